"""Where the daemon listens and keeps state, so that launcherctl finds it without configuration."""

from __future__ import annotations

import os
from pathlib import Path

SERVICE_SOCKET = Path("/run/card-launcher/launcher.sock")


def default_sim_socket() -> Path:
    """The socket of a simulated launcher started without --socket (one per user)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime, "card-launcher-sim.sock")
    return Path(f"/tmp/card-launcher-sim-{os.getuid()}.sock")


def default_sim_state_dir() -> Path:
    """Game state of a simulated launcher started without --state-dir."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base, "card-launcher", "sim")


def client_socket(explicit: str | None = None) -> Path:
    """The socket launcherctl talks to: --socket, $LAUNCHER_SOCKET, the service's, else the sim's."""
    if explicit:
        return Path(explicit)
    if os.environ.get("LAUNCHER_SOCKET"):
        return Path(os.environ["LAUNCHER_SOCKET"])
    if SERVICE_SOCKET.exists():
        return SERVICE_SOCKET
    return default_sim_socket()
