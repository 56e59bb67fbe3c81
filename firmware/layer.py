"""What a layer (the game controller) may use of the daemon: the whole contract, typed.

A layer's ``setup(daemon)`` receives an object satisfying :class:`LayerHost`; anything else on the
daemon is internal and may change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol, runtime_checkable

from .events import Action

Listener = Callable[[str, dict[str, Any]], None]
Handler = Callable[[dict[str, Any]], Any | Awaitable[Any]]


@runtime_checkable
class LayerHost(Protocol):
    state_dir: Path  # created, for the layer's crash-safe state

    def subscribe(self, listener: Listener) -> None:
        """``listener(name, params)`` for every launcher event, in the loop."""

    def publish(self, name: str, params: dict[str, Any]) -> None:
        """Push an event of the layer's own to API subscribers."""

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Call any registered API method (e.g. ``launcher/aim``)."""

    def register(self, name: str, handler: Handler, params: dict[str, Any] | None = None,
                 doc: str = "") -> None:
        """Add an API method; ``params`` as in :meth:`firmware.api.Registry.register`."""

    def add_status(self, name: str, provider: Callable[[], Any]) -> None:
        """``status/get`` gains ``provider()`` under ``name``."""

    def on_close(self, closer: Callable[[], Any]) -> None:
        """``closer()`` once at shutdown."""

    def watch_feedback(self, watcher: Callable[[Action], None]) -> None:
        """``watcher(action)`` for every LED and chime action."""

    @property
    def hopper(self) -> int | None:
        """The core's hopper estimate (None: unknown); cheap, for every event."""

    def launcher_status(self) -> dict[str, Any]:
        """The launcher core's status only, without any layer's (see ``get_status`` for all)."""


__all__ = ["Handler", "LayerHost", "Listener"]
