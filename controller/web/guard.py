"""launcher-web's defences against a guest on the table's network (docs/web.md "What the page protects").

Pure bookkeeping with an injected clock, no I/O, so that the server and the tests share it:

- :class:`CodeGuard`: join-code guesses limited per address and for the whole table, each guess
  counted *before* launcherd is asked (concurrent guesses cannot slip through while the check is
  awaited), and the session tokens of phones that gave the right code once (they never meet the
  guessing limit again).
- :class:`ReadLimit`: a token bucket per address for the readers that need no code.
- :class:`HostRule`: which ``Host`` and ``Origin`` headers are the page's own (DNS rebinding, other
  sites' pages, served by name or by IP).
- :class:`Summary`: one log line a minute with a count, instead of one line per refusal.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
import secrets
import socket
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import urlsplit

from controller.web.lan import canonical_address, machine_addresses

Clock = Callable[[], float]

# Per address: a phone that mistypes a few times is not locked out for long.
WRONG_CODES_ALLOWED, WRONG_CODES_WINDOW_S = 10, 60.0
# The whole table: whatever the number of addresses, at most this many guesses a minute are checked
# (docs/web.md has the arithmetic: with 8 digits, half the code space takes over three years).
TABLE_GUESSES_ALLOWED = 30
# Phones that joined; a table has a dozen. Past this the oldest session must give the code again.
SESSIONS_KEPT = 1000
# Addresses remembered at once; a flood of addresses forgets the quietest, never the limit itself.
ADDRESSES_KEPT = 4096
SUMMARY_INTERVAL_S = 60.0
# The machine's addresses are found at start, and again at most this often (an address not known).
ADDRESSES_FOUND_EVERY_S = 60.0
# Readers: a page refetches its state after every event (a burst of cards is a few dozen), and
# the heavy readings (statistics, history, the whole log) replay the log: they cost more.
READ_BURST, READ_PER_S = 120.0, 20.0
HEAVY_READ_COST = 5.0


class Summary:
    """Counts occurrences of one kind of trouble and logs them at most once per interval.

    The first occurrence after a quiet interval is logged at once with its detail; the ones that
    follow are counted, and :meth:`flush` (called by the server once a second and at every new
    occurrence) logs one line with the count and the number of addresses once the interval is over.
    """

    def __init__(self, logger: logging.Logger, what: str, clock: Clock = time.monotonic,
                 interval: float = SUMMARY_INTERVAL_S):
        self.logger = logger
        self.what = what
        self.clock = clock
        self.interval = interval
        self._since: float | None = None  # start of the current interval, None: quiet
        self._count = 0
        self._addresses: set[str] = set()

    def note(self, address: str, detail: str) -> None:
        self.flush()
        if self._since is None:
            self._since = self.clock()
            self.logger.warning("%s: %s", self.what, detail)
            return
        self._count += 1
        if len(self._addresses) < ADDRESSES_KEPT:
            self._addresses.add(address)

    def flush(self) -> None:
        if self._since is None or self.clock() - self._since < self.interval:
            return
        if self._count:
            self.logger.warning("%s: %d more in the last %.0f s, from %d address(es)", self.what, self._count,
                                self.clock() - self._since, len(self._addresses))
            self._since = self.clock()  # still busy: the next summary in one interval
        else:
            self._since = None
        self._count = 0
        self._addresses.clear()


def _forget_quietest(entries: OrderedDict) -> None:
    while len(entries) > ADDRESSES_KEPT:
        entries.popitem(last=False)


@dataclass
class Guess:
    """One join-code check in flight or done: it holds a place in both limits until it proves right."""

    address: str
    at: float
    right: bool = field(default=False)


class CodeGuard:
    """Join-code guesses per address and for the table, and the sessions of phones that joined."""

    def __init__(self, clock: Clock = time.monotonic):
        self.clock = clock
        self._by_address: OrderedDict[str, deque[Guess]] = OrderedDict()
        self._table: deque[Guess] = deque()
        self._sessions: OrderedDict[str, bytes] = OrderedDict()  # token -> the code it was granted for
        # Codes whose sessions were made before launcherd went away: checked once more when it is back.
        self._unconfirmed: set[bytes] = set()

    def _recent(self, guesses: deque[Guess]) -> deque[Guess]:
        while guesses and (guesses[0].right or self.clock() - guesses[0].at > WRONG_CODES_WINDOW_S):
            guesses.popleft()
        return guesses

    def wait_s(self, address: str) -> float:
        """0 when ``address`` may guess now, else how long until it may (its own or the table's limit)."""
        mine = self._recent(self._by_address.get(address, deque()))
        table = self._recent(self._table)
        waits = [0.0]
        for guesses, allowed in ((mine, WRONG_CODES_ALLOWED), (table, TABLE_GUESSES_ALLOWED)):
            counted = [guess for guess in guesses if not guess.right]
            if len(counted) >= allowed:
                waits.append(counted[-allowed].at + WRONG_CODES_WINDOW_S - self.clock())
        return max(waits)

    def begin(self, address: str) -> Guess:
        """Count a guess before it is checked; :meth:`proved_right` gives its place back."""
        guess = Guess(address, self.clock())
        self._by_address.setdefault(address, deque()).append(guess)
        self._by_address.move_to_end(address)
        _forget_quietest(self._by_address)
        self._table.append(guess)
        return guess

    @staticmethod
    def proved_right(guess: Guess) -> None:
        guess.right = True

    def open_session(self, code: str) -> str:
        """A token for a phone that gave the right ``code``: its later actions need no check."""
        token = secrets.token_urlsafe(32)
        self._sessions[token] = code.encode()
        while len(self._sessions) > SESSIONS_KEPT:
            self._sessions.popitem(last=False)
        return token

    def session_holds(self, token: str | None, code: str | None) -> bool:
        """Whether ``token`` is a live session; a code given beside it must be the one it joined with
        (a phone whose code was changed in its field is checked again)."""
        granted = self._sessions.get(token) if token else None
        if granted is None:
            return False
        return code is None or hmac.compare_digest(code.encode(), granted)

    def session_code(self, token: str | None) -> str | None:
        """The code a live session was granted for (the QR code of a phone that joined), else None."""
        granted = self._sessions.get(token) if token else None
        return granted.decode() if granted is not None else None

    def suspend_sessions(self) -> None:
        """launcherd went away (or came back): it may hold another code now. Every session stays,
        but the code it was granted for must be checked once more (:meth:`unconfirmed_code`)."""
        self._unconfirmed = set(self._sessions.values())

    def unconfirmed_code(self, token: str | None) -> str | None:
        """The code to check again before ``token``'s session may act, or None when it holds as it is."""
        granted = self._sessions.get(token) if token else None
        return granted.decode() if granted is not None and granted in self._unconfirmed else None

    def confirm(self, code: str, valid: bool) -> None:
        """launcherd's answer for a code sessions were granted for: they hold, or they all end."""
        granted = code.encode()
        self._unconfirmed.discard(granted)
        if not valid:
            for token in [token for token, theirs in self._sessions.items() if theirs == granted]:
                del self._sessions[token]

    def end_sessions(self) -> None:
        """The code was rotated: every phone must give the code again."""
        self._sessions.clear()
        self._unconfirmed.clear()


class ReadLimit:
    """A token bucket per address for the readings that need no code."""

    def __init__(self, clock: Clock = time.monotonic, burst: float = READ_BURST, per_s: float = READ_PER_S):
        self.clock = clock
        self.burst = burst
        self.per_s = per_s
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # address -> (tokens, at)

    def take(self, address: str, cost: float = 1.0) -> float:
        """0 when the reading may go ahead (and is counted), else the seconds to wait."""
        now = self.clock()
        tokens, at = self._buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.per_s)
        if tokens < cost:
            self._buckets[address] = (tokens, now)
            return (cost - tokens) / self.per_s
        self._buckets[address] = (tokens - cost, now)
        self._buckets.move_to_end(address)
        _forget_quietest(self._buckets)
        return 0.0


# Never in a Host header nor an Origin's authority: a user name, a path, a query, a fragment, spaces.
_NOT_IN_AUTHORITY = re.compile(r"[@/?#\\\s]")


def _authority(authority: str) -> tuple[str, int | None] | None:
    """``host[:port]`` (IPv6 in brackets) -> (the host, lower case, without a final dot; the port or
    None); None when it is no authority at all (``[evil``, a port that is not a number, a path)."""
    if _NOT_IN_AUTHORITY.search(authority):
        return None
    try:  # urlsplit raises ValueError for an unclosed bracket, .port for a port that is no number
        parts = urlsplit(f"//{authority}")
        port = parts.port
    except ValueError:
        return None
    host = (parts.hostname or "").rstrip(".").lower()
    return (host, port) if host else None


def _bare_host(authority: str) -> str:
    """``host[:port]`` -> the host (:func:`_authority`); "" when malformed."""
    parts = _authority(authority)
    return parts[0] if parts else ""


def _port(authority: str, scheme: str = "http") -> int | None:
    """The port of ``host[:port]``, the scheme's when none is given; None when malformed."""
    parts = _authority(authority)
    if parts is None:
        return None
    return parts[1] if parts[1] is not None else {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)


def _name_given(name: str) -> str:
    """A name of ``--allow-host`` (``table.example``) or ``--url`` (``http://table.example:8080/``)."""
    if "://" in name:
        try:
            name = urlsplit(name).netloc
        except ValueError:
            return ""
    return _bare_host(name)


def machine_names() -> set[str]:
    """This machine's host names: as set, fully qualified, and the ``.local`` name mDNS gives it."""
    names = {"localhost"}
    for name in (socket.gethostname(), socket.getfqdn()):
        name = name.rstrip(".").lower()
        if name:
            short = name.split(".")[0]
            names.update({name, short, f"{short}.local"})
    return names


class HostRule:
    """The page's own names: any IP literal, localhost, the machine's names and ``.local``, and the
    names given with ``--allow-host`` (and ``--url``'s). Anything else is DNS rebinding or a
    misdirected request.

    An ``Origin`` is held to more: a browser sends one that names the site whose page made the
    request, and a site served by IP (``http://203.0.113.5:8080``) is no DNS rebinding, yet it is
    not the table's page. Its host must be one of the names above or one of this machine's own
    addresses: the one the request came to, the listen address, every interface's, loopback
    (``lan.machine_addresses``, found again at most once a minute when an address is not known)."""

    def __init__(self, extra: list[str] | tuple[str, ...] = (), names: set[str] | None = None,
                 addresses: set[str] | None = None, listen_host: str | None = None, clock: Clock = time.monotonic):
        self.names = (machine_names() if names is None else set(names)) | {_name_given(n) for n in extra}
        self.names.discard("")
        self.listen_host = listen_host
        self.clock = clock
        self._fixed_addresses = addresses is not None
        self.addresses = set(addresses) if addresses is not None else machine_addresses(listen_host)
        self.addresses |= {address for name in self.names if (address := canonical_address(name))}
        self._found_at = clock()

    def allows(self, authority: str) -> bool:
        host = _bare_host(authority)
        if not host:
            return False
        try:
            ipaddress.ip_address(host)
            return True
        except ValueError:
            return host in self.names or host.endswith(".localhost")

    def own_address(self, host: str, local_address: str | None = None) -> bool:
        """Whether the IP address ``host`` is this machine's (``local_address``: the one the request
        came to)."""
        address = canonical_address(host)
        if address is None:
            return False
        if address == canonical_address(local_address or "") or ipaddress.ip_address(address).is_loopback:
            return True
        if address not in self.addresses and not self._fixed_addresses \
                and self.clock() - self._found_at >= ADDRESSES_FOUND_EVERY_S:
            self.addresses |= machine_addresses(self.listen_host)  # a new lease, an interface come up
            self._found_at = self.clock()
        return address in self.addresses

    def same_origin(self, origin: str, host_header: str, local_address: str | None = None) -> bool:
        """Whether a browser's ``Origin`` is this page: one of its own names or addresses
        (:meth:`own_address`), on the port the request came to. A malformed ``Origin``
        (``http://[x``) or ``Host`` is no origin of the page's."""
        try:
            parts = urlsplit(origin)
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return False  # "null" (a sandboxed frame, a file), or not a web origin
        theirs, ours = _port(parts.netloc, parts.scheme), _port(host_header)
        if theirs is None or theirs != ours or not self.allows(parts.netloc):
            return False
        host = _bare_host(parts.netloc)
        if canonical_address(host) is not None:
            return self.own_address(host, local_address)
        return True  # a name: allows() held it to the page's own
