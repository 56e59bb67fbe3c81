"""What a layer (the game controller) may use of the daemon: the whole contract, typed.

The game (controller/) runs in a process of its own, ``launcher-game``, and sees launcherd through an
object satisfying :class:`LayerHost`: controller/layer/remote.py's ``SocketHost``, over launcherd's
socket (firmware/daemon/gameport.py has launcherd's end). A plain Protocol: firmware never imports
controller.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol, runtime_checkable

from firmware.events import Action

Listener = Callable[[str, dict[str, Any]], None]
Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]


@runtime_checkable
class LayerHost(Protocol):
    state_dir: Path  # created, for the layer's crash-safe state

    def subscribe(self, listener: Listener) -> None:
        """``listener(name, params)`` for every launcher event, on the layer's loop."""

    def publish(self, name: str, params: dict[str, Any]) -> None:
        """Push an event of the layer's own to API subscribers."""

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Call any registered API method (e.g. ``launcher/aim``); it runs on the motor's loop."""

    def register(self, name: str, handler: Handler, params: dict[str, Any] | None = None,
                 doc: str = "", version: Callable[[], Any] | None = None) -> None:
        """Add an API method; ``params`` as in :meth:`firmware.daemon.registry.Registry.register`. The handler
        runs on the layer's loop, in the request's language. ``version``: the method only reads,
        and its reply depends only on its params, the language and ``version()``; while that stays
        the same, a reply is computed and encoded once and sent again as it is."""

    def add_status(self, name: str, provider: Callable[[], Any]) -> None:
        """``status/get`` gains ``provider()`` under ``name`` (its last value, taken on the layer's
        loop after each request and event)."""

    def on_close(self, closer: Callable[[], Any]) -> None:
        """``closer()`` once at shutdown."""

    def watch_feedback(self, watcher: Callable[[Action], None]) -> None:
        """``watcher(action)`` for every LED and chime action."""

    @property
    def hopper(self) -> int | None:
        """The core's hopper estimate (None: unknown); cheap, for every event."""

    def launcher_status(self) -> dict[str, Any]:
        """The launcher core's status only, without any layer's (see ``get_status`` for all)."""

    def outcomes_after(self, seq: int, record: str | None = None) -> list[dict[str, Any]]:
        """The ``launched`` outcomes recorded after ``seq``, oldest first: what to catch up on.
        ``record``: the identity of the outcome record ``seq`` is of, as the layer's log keeps it
        (another record's outcomes are all new; None: the log predates identities); the record
        never numbers at or below ``seq`` from then on."""

    def outcomes_logged(self, seq: int) -> None:
        """Every outcome up to ``seq`` is in the layer's own log: the record may let them go."""



__all__ = ["Handler", "LayerHost", "Listener"]
