"""sd_notify for launcherd: tell systemd READY, STATUS, WATCHDOG and STOPPING.

The protocol is one datagram of ``KEY=value`` lines to the AF_UNIX socket named by
``$NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace). Written with the standard
library because the PyPI ``sdnotify`` swallows every error and blocks on a full queue.

The receiver's queue holds about ten datagrams; a send to a receiver that is not reading would
block, and the event loop that sends must never block. Hence a short send timeout for the
one-off messages and none at all for the periodic ones: a lost WATCHDOG=1 or STATUS= is repeated
by the next one, a lost READY=1 is not.

Each send uses a fresh socket connected to the receiver, as libsystemd does: connected, the
socket's writability reflects room in the receiver's queue, so Python's timeout really waits
(unconnected, poll() reports writable while the receiver is full and the timeout spins the CPU);
fresh, no stale connection survives the receiver re-creating its socket.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)

# Long enough for systemd to drain its queue when busy at boot, short enough that READY=1 or
# STOPPING=1 never holds the loop up noticeably.
SEND_TIMEOUT = 0.25


class Notifier:
    """Sends notifications to systemd's notify socket; a failed send returns False, never raises."""

    def __init__(
        self, address: str, timeout: float = SEND_TIMEOUT, environ: Mapping[str, str] = os.environ
    ):
        if not address.startswith(("/", "@")):
            raise ValueError(f"NOTIFY_SOCKET={address!r}: must be a path or @abstract name")
        self.address = address
        # Python spells the abstract namespace with a leading NUL where systemd writes "@".
        self._target = "\0" + address[1:] if address.startswith("@") else address
        self.timeout = timeout
        self._environ = environ
        self._closed = False
        self._warned = False
        self._status: str | None = None  # the last STATUS= line sent

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Notifier | None:
        """A Notifier for ``$NOTIFY_SOCKET``, or None when not run by systemd with Type=notify."""
        address = environ.get("NOTIFY_SOCKET")
        if not address:
            return None
        try:
            return cls(address, environ=environ)
        except ValueError as exc:
            # e.g. systemd 254+'s vsock: addresses, meant for VMs: not an error of this daemon.
            log.warning("not notifying systemd: %s", exc)
            return None

    def send(self, **fields: object) -> bool:
        """Send ``KEY=value`` fields in one datagram, waiting at most ``timeout`` seconds."""
        return self._send(fields, self.timeout)

    def _send(self, fields: Mapping[str, object], timeout: float) -> bool:
        if self._closed:
            return False
        message = "\n".join(f"{key.upper()}={_value(value)}" for key, value in fields.items())
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.settimeout(timeout)
                sock.connect(self._target)
                sock.send(message.encode("utf-8", "replace"))
        except OSError as exc:
            # Full queue (timeout, EAGAIN), systemd gone or re-executing (ENOENT, ECONNREFUSED):
            # the daemon must keep running its motor safely either way, so report and carry on.
            if not self._warned:
                self._warned = True
                log.warning(
                    "cannot notify systemd at %s: %s (further failures not logged)", self.address, exc
                )
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """READY=1: the pins are claimed and the API socket listens."""
        return self.send(READY=1, STATUS=status) if status else self.send(READY=1)

    def status(self, text: str) -> bool:
        """STATUS=: the one line ``systemctl status`` shows, sent when it changes. Never waits."""
        if text == self._status:
            return True
        self._status = text
        return self._send({"STATUS": text}, 0)

    def stopping(self) -> bool:
        """STOPPING=1: shutting down on purpose (not a crash)."""
        return self.send(STOPPING=1)

    def watchdog(self) -> bool:
        """WATCHDOG=1: the loop is alive. Never waits: a lost ping is repeated by the next one."""
        return self._send({"WATCHDOG": 1}, 0)

    def watchdog_interval(self) -> float | None:
        """Seconds between WATCHDOG=1 pings (half of WatchdogSec=), or None when not asked for."""
        pid = self._environ.get("WATCHDOG_PID")
        if pid and pid != str(os.getpid()):
            return None  # the watchdog belongs to another process (e.g. inherited environment)
        try:
            usec = int(self._environ.get("WATCHDOG_USEC", ""))
        except ValueError:
            return None
        return usec / 2_000_000 if usec > 0 else None

    def close(self) -> None:
        """Stop notifying: later sends return False. Idempotent."""
        self._closed = True


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    # A newline would end the field and start a bogus one: STATUS= text is user-visible data.
    return str(value).replace("\n", " ")


__all__ = ["Notifier", "SEND_TIMEOUT"]
