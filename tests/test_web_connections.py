"""launcher-web's connections against idle and slow guests, with few descriptors (issue 22):
real launcherd --sim and launcher-web processes, launcher-web under a low RLIMIT_NOFILE, its header
and keep-alive deadlines shortened by its test hooks (10 s and 15 s on a Pi)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from controller.web.connections import HEADER_TIMEOUT_VARIABLE, KEEPALIVE_VARIABLE
from harness.units import parse_unit
from harness.web import Stack

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "launcher-web.service"
DESCRIPTORS = 160  # launcher-web keeps 64 for itself: 96 connections
PER_ADDRESS = 32
# The header deadline past the 1 s in which the connections over an address's cap must be closed
# (an idle one is closed by that deadline); the keep-alive (which aiohttp also counts from the
# opening of a connection) past the header deadline and its 4 s of slack: each closing is told apart
# from the others by when it comes.
HEADER_TIMEOUT_S, KEEPALIVE_S = 2.0, 8.0


@pytest.fixture
def stack():
    deadlines = {HEADER_TIMEOUT_VARIABLE: str(int(HEADER_TIMEOUT_S * 1000)),
                 KEEPALIVE_VARIABLE: str(int(KEEPALIVE_S * 1000))}
    running = Stack(web_descriptors=DESCRIPTORS, web_env=deadlines).start()
    yield running
    running.close()


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection within ``seconds`` (whatever it sent before)."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(4096):
                pass
        return True
    except ConnectionError:
        return True
    except TimeoutError:
        return False


async def _phone_reads_state(port: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
    status = int((await asyncio.wait_for(reader.readline(), 10)).split()[1])
    writer.close()
    return status


def test_idle_and_slow_connections_never_lock_the_phones_out(stack):
    async def scenario():
        # One address holds what it may and no more: the rest are closed at once.
        idle = [await asyncio.open_connection("127.0.0.1", stack.port, local_addr=("127.0.5.1", 0))
                for _ in range(PER_ADDRESS + 8)]
        closed_at_once = await asyncio.gather(*(_closed_within(reader, 1.0) for reader, _ in idle))
        # Slow guests on more addresses than the descriptors allow, a header line every quarter of
        # the deadline: each line comes in time, the headers never complete.
        slow = [await asyncio.open_connection("127.0.0.1", stack.port, local_addr=(f"127.0.6.{n % 4 + 1}", 0))
                for n in range(4 * PER_ADDRESS)]
        for _, writer in slow:
            writer.write(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n".encode())

        async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            for line in range(12):  # bounded: three times the header deadline
                await asyncio.sleep(HEADER_TIMEOUT_S / 4)
                if reader.at_eof() or writer.transport.is_closing():
                    return
                writer.write(f"X-Slow-{line}: 1\r\n".encode())
        trickling = [asyncio.ensure_future(trickle(reader, writer)) for reader, writer in slow]
        phone = await _phone_reads_state(stack.port)  # while every descriptor is wanted
        # A keep-alive connection after its reply, and the slow ones: all closed by their deadlines.
        kept_reader, kept_writer = await asyncio.open_connection("127.0.0.1", stack.port)
        kept_writer.write(f"GET /api/words HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n\r\n".encode())
        started = time.monotonic()
        slow_closed = await asyncio.gather(*(_closed_within(reader, HEADER_TIMEOUT_S + 4) for reader, _ in slow))
        slow_after = time.monotonic() - started
        kept_closed = await _closed_within(kept_reader, KEEPALIVE_S + 4)
        kept_after = time.monotonic() - started
        for task in trickling:
            task.cancel()
        for _, writer in idle + slow + [(None, kept_writer)]:
            writer.close()
        return closed_at_once, phone, slow_closed, slow_after, kept_closed, kept_after

    closed_at_once, phone, slow_closed, slow_after, kept_closed, kept_after = asyncio.run(scenario())
    assert closed_at_once.count(True) >= 8  # the ones past the address's cap (and any closed to make room)
    assert phone == 200
    assert all(slow_closed) and slow_after <= HEADER_TIMEOUT_S + 4
    assert kept_closed and KEEPALIVE_S - 1 <= kept_after <= KEEPALIVE_S + 4
    log = stack.web_log()
    assert "Traceback" not in log and "Too many open files" not in log, log
    # Once a minute with a count: a line of each kind, not a line per connection.
    assert log.count("connections refused") <= 2 and log.count("connections closed") <= 2, log
    assert stack.get("/api/state")[0] == 200


def test_the_unit_raises_the_descriptor_limit():
    assert int(parse_unit(UNIT.read_text())["Service"]["LimitNOFILE"][-1]) >= 8192  # the last one counts


def test_running_out_of_descriptors_is_logged_once_a_minute_with_a_count(caplog):
    """The accept loop fails with EMFILE at every turn while descriptors are out: one line at once,
    then one a minute with the count, never a traceback; any other failure goes to asyncio's handler."""
    import errno
    import logging

    from controller.web.connections import Gate

    now = [0.0]
    gate = Gate(lambda: asyncio.Protocol(), limit=10, clock=lambda: now[0])

    class Loop:
        handed_on: list[dict] = []

        def default_exception_handler(self, context: dict) -> None:
            self.handed_on.append(context)

    loop = Loop()
    emfile = OSError(errno.EMFILE, "Too many open files")
    with caplog.at_level(logging.WARNING, "launcher-web"):
        for tenth in range(1_500):  # 150 s of failures, ten a second
            now[0] = tenth / 10
            gate.loop_exception(loop, {"message": "socket.accept() out of system resource",
                                       "exception": emfile})
        now[0] = 180.0
        for summary in gate.summaries():  # the server flushes them every second
            summary.flush()
        gate.loop_exception(loop, {"message": "something else", "exception": ValueError("not ours")})
    lines = [record.getMessage() for record in caplog.records]
    assert lines == ["accepting connections failed: Too many open files (0 connections open)",
                     "accepting connections failed: 599 more in the last 60 s, from 1 address(es)",
                     "accepting connections failed: 600 more in the last 60 s, from 1 address(es)",
                     "accepting connections failed: 300 more in the last 60 s, from 1 address(es)"], lines
    assert [context["message"] for context in loop.handed_on] == ["something else"]
