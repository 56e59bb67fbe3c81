"""launcher-web's connections: a cap per address and in all, and a deadline for request headers.

aiohttp closes a keep-alive connection that stays idle after a reply, but not one that never
completes its first request: a guest holding a thousand half-sent requests used to take every
descriptor. :class:`Gate` wraps aiohttp's protocol factory: each connection must complete its
request headers within ``HEADER_TIMEOUT_S`` of its first byte (or of its opening); an address may
hold ``PER_ADDRESS`` connections; and when all the descriptors the process may use are taken, the
oldest connection that is not in a request is closed to make room, so a phone always gets in.
Refusals are logged once a minute with a count (:class:`~controller.web.guard.Summary`), and so
are malformed requests (:class:`MalformedRequests`), which aiohttp would log with a traceback each.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import time
from collections import Counter, OrderedDict
from typing import Any, Callable

from aiohttp.http_exceptions import HttpProcessingError

from controller.web.guard import Clock, Summary

log = logging.getLogger("launcher-web")

HEADER_TIMEOUT_S = 10.0
# After a reply, a browser keeps its connection for the next request; a quiet one is closed.
KEEPALIVE_S = 15.0
# Test hooks (tests/test_web_connections.py), read when launcher-web starts: the two deadlines
# above in milliseconds, so that a test sees them pass without waiting 15 s.
HEADER_TIMEOUT_VARIABLE = "LAUNCHER_TEST_HEADER_TIMEOUT_MS"
KEEPALIVE_VARIABLE = "LAUNCHER_TEST_KEEPALIVE_MS"
# A phone opens six connections and a WebSocket; a table display as many.
PER_ADDRESS = 32
MAX_CONNECTIONS = 4096
# Descriptors kept for launcherd's socket, the listening sockets, files served and the log.
RESERVED_DESCRIPTORS = 64
# asyncio accepts up to this many connections in one go, before any is looked at: it must stay
# well within the reserve, or a burst runs out of descriptors before the cap can close any.
ACCEPT_BACKLOG = RESERVED_DESCRIPTORS // 2
DESCRIPTOR_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
# Kinds of malformed request counted apart; a guest inventing more shares the last one.
MALFORMED_KINDS = 32


def connection_limit() -> int:
    """How many connections may be open at once: MAX_CONNECTIONS, or fewer when RLIMIT_NOFILE is low."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, soft - RESERVED_DESCRIPTORS))


class Gate:
    """The protocol factory handed to ``loop.create_server``: aiohttp's, wrapped."""

    def __init__(self, factory: Callable[[], asyncio.Protocol], limit: int | None = None,
                 clock: Clock = time.monotonic, header_timeout: float = HEADER_TIMEOUT_S):
        self.factory = factory
        self.limit = connection_limit() if limit is None else limit
        self.header_timeout = header_timeout
        self.per_address: Counter[str] = Counter()
        self.idle: OrderedDict[Connection, None] = OrderedDict()  # not in a request, oldest first
        self.by_transport: dict[Any, Connection] = {}
        self.refused = Summary(log, "connections refused", clock)
        self.timed_out = Summary(log, "connections closed", clock)
        self.accept_errors = Summary(log, "accepting connections failed", clock)

    def __call__(self) -> "Connection":
        return Connection(self)

    @property
    def open(self) -> int:
        return len(self.by_transport)

    def summaries(self) -> tuple[Summary, ...]:
        return self.refused, self.timed_out, self.accept_errors

    def request_started(self, transport: Any) -> None:
        connection = self.by_transport.get(transport)
        if connection is not None:
            connection.busy = True
            connection.disarm()
            self.idle.pop(connection, None)

    def request_ended(self, transport: Any) -> None:
        connection = self.by_transport.get(transport)
        if connection is not None:
            connection.busy = False
            self.idle[connection] = None  # aiohttp's keep-alive timeout closes it if nothing comes

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's exception handler: running out of descriptors is counted, not a traceback each time."""
        failure = context.get("exception")
        if isinstance(failure, OSError) and failure.errno in DESCRIPTOR_ERRORS:
            self.accept_errors.note("?", f"{failure.strerror} ({self.open} connections open)")
            return
        loop.default_exception_handler(context)

    def _make_room(self, address: str) -> bool:
        """Whether a new connection from ``address`` may stay, closing the oldest idle one if need be."""
        if self.per_address[address] >= PER_ADDRESS:
            self.refused.note(address, f"{address} already holds {PER_ADDRESS} connections")
            return False
        if self.open < self.limit:
            return True
        if not self.idle:
            self.refused.note(address, f"{self.open} connections open, all in a request (the limit)")
            return False
        oldest, _ = self.idle.popitem(last=False)
        self.timed_out.note(oldest.address, f"closed an idle connection of {oldest.address} to make room")
        oldest.close()
        return True


class Connection(asyncio.Protocol):
    """One client connection: aiohttp's request handler inside, and the deadline of its headers."""

    def __init__(self, gate: Gate):
        self.gate = gate
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.address = "?"
        self.busy = False
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = peer[0] if peer else "?"
        if not self.gate._make_room(self.address):
            transport.abort()
            return
        self.transport = transport  # type: ignore[assignment]
        self.gate.per_address[self.address] += 1
        self.gate.by_transport[transport] = self
        self.gate.idle[self] = None
        self.inner = self.gate.factory()
        self._arm()
        self.inner.connection_made(transport)

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = asyncio.get_running_loop().call_later(self.gate.header_timeout, self._late)

    def disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        self._deadline = None
        if not self.busy:
            self.gate.timed_out.note(self.address, f"{self.address} sent no complete request within"
                                                   f" {self.gate.header_timeout:g} s")
            self.close()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if not self.busy:
            self._arm()  # the first bytes of a request: its headers are due within the deadline
        self.inner.data_received(data)  # type: ignore[attr-defined]

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None  # type: ignore[attr-defined]

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self.inner is None:
            return
        self.gate.by_transport.pop(self.transport, None)
        self.gate.idle.pop(self, None)
        self.gate.per_address[self.address] -= 1
        if self.gate.per_address[self.address] <= 0:
            del self.gate.per_address[self.address]
        self.inner.connection_lost(exc)


class MalformedRequests(logging.Filter):
    """A filter on aiohttp's server logger: a request aiohttp's parser refused (a 400 already sent:
    Content-Length beside Transfer-Encoding, a folded or duplicated header, a bare LF, a NUL) is
    counted by kind and logged at most once a minute per kind (:class:`Summary`), instead of an
    ERROR with a traceback each (2,000 of them wrote 1.6 MB). Any other error keeps its traceback."""

    def __init__(self, clock: Clock = time.monotonic):
        super().__init__()
        self.clock = clock
        self.kinds: dict[str, Summary] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        if not isinstance(failure, HttpProcessingError):
            return True
        lines = [line.strip() for line in str(failure.message).splitlines() if line.strip()]
        kind = f"{type(failure).__name__}: {lines[0] if lines else failure.code}".rstrip(":")[:80]
        if kind not in self.kinds and len(self.kinds) >= MALFORMED_KINDS:
            kind = "other"
        summary = self.kinds.get(kind)
        if summary is None:
            summary = self.kinds[kind] = Summary(log, f"malformed request ({kind})", self.clock)
        address = str(record.args[0]) if isinstance(record.args, tuple) and record.args else "?"
        detail = " ".join(lines[1:2])[:80]
        summary.note(address, f"{address}, refused with {failure.code}" + (f": {detail!r}" if detail else ""))
        return False

    def summaries(self) -> tuple[Summary, ...]:
        return tuple(self.kinds.values())
