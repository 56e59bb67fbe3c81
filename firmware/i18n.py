"""The language replies are rendered in, and the door to the message catalogues.

Everything the launcher and the game say is a message object, ``{"id": "stalled", "seconds": 2.5}``.
The daemon carries the objects as they are; where it also sends a text (an error's ``message``, a
reply's ``texts``), it renders the object in the language of the request: the request's own
``"lang"`` (launcherctl ``--lang``), else the daemon's ``[daemon] language``, else the locale's.

Each side owns its catalogue (firmware/text/ for what launcherd, launcherctl, the dealer, bring-up
and calibration say; controller/text/ for the game's), and each is found by its name in the entry
point group ``card_launcher.messages``: firmware's own first, then the game's when it is installed,
so that firmware never imports controller and launcherd without the game still renders its own.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from importlib.metadata import entry_points
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

LANGUAGES = ("en", "fr")
CATALOGUE_GROUP = "card_launcher.messages"
OWN_CATALOGUE = "firmware"  # the entry point of firmware's own catalogue, looked up before the others

Message = Mapping[str, Any]


class Catalogue(Protocol):
    """What a side's catalogue offers the door (firmware.text.catalogue.Catalogue is one)."""

    def __iter__(self) -> Iterator[str]:
        """Its message ids (and words: "state:ready")."""

    def __hash__(self) -> int: ...

    def text(self, message_id: str, lang: str, n: int | None = None) -> str:
        """An entry's template in ``lang`` (its plural form for ``n``)."""

    def render(self, message: Message, lang: str) -> str:
        """A message object's text in ``lang``; MessageError for one it does not hold."""

    def compile(self) -> None:
        """Compile every language now."""

_request_language: ContextVar[str | None] = ContextVar("request_language", default=None)
_daemon_language: str | None = None


def locale_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the locale (LC_ALL, then LC_MESSAGES, then LANG): French for any ``fr*``."""
    environ = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"


def set_daemon_language(lang: str | None) -> None:
    """The daemon's language (``[daemon] language``); None or "" follows the locale."""
    global _daemon_language
    _daemon_language = lang or None


def daemon_language() -> str:
    """The daemon's language (``[daemon] language``), else the locale's: that of events' texts."""
    return _daemon_language or locale_language()


def requested() -> str | None:
    """The language the request being served asked for (None: it asked for none); it goes along
    with what the request makes another thread do."""
    return _request_language.get()


def current() -> str:
    """The language of the request being served, else the daemon's."""
    return _request_language.get() or daemon_language()


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """Render in ``lang`` inside the block (None: leave the language as it is)."""
    token = _request_language.set(lang) if lang else None
    try:
        yield
    finally:
        if token is not None:
            _request_language.reset(token)


@cache
def catalogues() -> tuple[Catalogue, ...]:
    """Every installed side's catalogue, firmware's own first."""
    found = sorted(entry_points(group=CATALOGUE_GROUP), key=lambda point: (point.name != OWN_CATALOGUE, point.name))
    return tuple(point.load() for point in found)


def catalogue_of(message_id: str) -> Catalogue | None:
    """The catalogue that holds a message id (or a word, "state:ready"); None: none does."""
    return _owners(catalogues()).get(message_id)


@cache
def _owners(installed: tuple[Catalogue, ...]) -> dict[str, Catalogue]:
    """Each id's catalogue, the first that holds it: one look-up per message rendered, and the
    game's replay of a long match renders one for each of its actions."""
    owners: dict[str, Catalogue] = {}
    for catalogue in installed:
        for message_id in catalogue:
            owners.setdefault(message_id, catalogue)
    return owners


def prepare() -> None:
    """Load every catalogue and compile each in every language now (before the daemon says READY):
    compiling on first use would hold up the loop that serves that request (0.27 s for French on
    an x86 laptop, more on a Pi)."""
    for catalogue in catalogues():
        catalogue.compile()


def _plain(message: Message) -> str:
    params = ", ".join(f"{key}={value!r}" for key, value in message.items() if key != "id")
    return f"{message.get('id')}({params})"


def render(message: Message, lang: str | None = None) -> str:
    """The text of a message object in ``lang`` (None: :func:`current`), from the catalogue that holds
    its id. One that no catalogue holds is refused by the last one looked in (MessageError, a
    ValueError); with no catalogue installed at all, it is shown as its id and parameters."""
    installed = catalogues()
    if not installed:
        return _plain(message)
    owner = catalogue_of(message.get("id")) if is_message(message) else None
    return (installed[-1] if owner is None else owner).render(message, lang or current())


def is_message(value: Any) -> bool:
    """A message object: a mapping with a string ``id``."""
    return isinstance(value, (dict, Mapping)) and isinstance(value.get("id"), str)


def message(message_id: str, /, **params: Any) -> dict[str, Any]:
    """A message object: ``message("stalled", seconds=2.5)``."""
    return {"id": message_id, **params}
