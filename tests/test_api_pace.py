"""The readings' pace (firmware/daemon/pace.py): readings a client may ask without end are served
at a bounded rate shared by every connection, in the order asked, and never refused."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from hypothesis import given, strategies as st

from harness.waits import HANG_S
from firmware.client import MAX_LINE
from firmware.daemon.api import ApiServer
from firmware.daemon.pace import Pace
from firmware.daemon.registry import Registry
from firmware.errors import ApiError


def test_a_burst_is_served_at_once_then_one_reading_per_interval_then_a_quiet_spell_restores_it():
    pace = Pace(rate=10, burst=3)
    assert [pace.delay(0.0) for _ in range(5)] == pytest.approx([0, 0, 0, 0.1, 0.2])
    assert pace.delay(0.05) == pytest.approx(0.25)  # behind the ones booked before it
    assert [pace.delay(10.0) for _ in range(3)] == [0, 0, 0]


def test_a_pace_without_rate_or_burst_is_refused_with_its_values():
    with pytest.raises(ValueError, match="0, 3"):
        Pace(rate=0, burst=3)
    with pytest.raises(ValueError, match="5, 0"):
        Pace(rate=5, burst=0)


@given(st.lists(st.floats(min_value=0, max_value=0.5), min_size=1, max_size=80),
       st.floats(min_value=1, max_value=100), st.integers(min_value=1, max_value=10))
def test_however_readings_are_asked_none_is_served_early_in_another_order_or_beyond_the_pace(gaps, rate, burst):
    pace = Pace(rate=rate, burst=burst)
    asked, served, now = [], [], 0.0
    for gap in gaps:
        now += gap
        asked.append(now)
        served.append(now + pace.delay(now))
    assert all(s >= a for s, a in zip(served, asked))
    assert served == sorted(served)  # in the order asked
    for first in range(len(served)):  # in any span, at most the burst and the rate's share
        for last in range(first, len(served)):
            span = served[last] - served[first]
            assert last - first + 1 <= burst + span * rate + 1e-6


def paced_registry() -> Registry:
    registry = Registry()
    read = iter(range(1000))
    registry.register("stats", lambda p: {"reading": next(read)}, reading=True)
    registry.register("echo", lambda p: p, {"text": str})
    registry.register("system/estop", lambda p: {"stopped": True})
    return registry


def test_readings_past_the_burst_wait_their_turn_while_other_lines_are_answered_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.Pace", lambda: Pace(rate=20, burst=2))

    async def body():
        server = ApiServer(paced_registry(), tmp_path / "api.sock")
        await server.start()
        try:
            reader, writer = await asyncio.open_unix_connection(str(server.path), limit=4 * MAX_LINE)
            started = time.monotonic()
            writer.write(b"".join(b'{"id": %d, "method": "stats"}\n' % n for n in range(6))
                         + b'{"id": "e", "method": "echo", "params": {"text": "hi"}}\n'
                         + b'{"id": "x", "method": "system/estop"}\n')
            await writer.drain()
            replies = [json.loads(await asyncio.wait_for(reader.readline(), HANG_S)) for _ in range(8)]
            elapsed = time.monotonic() - started
            writer.close()
        finally:
            await server.close()
        order = [reply["id"] for reply in replies]
        assert order[:2] == [0, 1]  # the burst
        assert set(order[2:4]) == {"e", "x"}  # not held behind the readings that wait
        assert order[4:] == [2, 3, 4, 5]  # each in its turn, in the order asked, none refused
        assert [reply["result"]["reading"] for reply in replies if isinstance(reply["id"], int)] == list(range(6))
        assert elapsed >= (6 - 2) / 20 - 0.01  # four waited a twentieth of a second each
    asyncio.run(body())


def test_readings_waiting_for_their_turn_when_the_server_closes_are_told_so(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.Pace", lambda: Pace(rate=1 / 3600, burst=1))  # an hour apart

    async def body():
        server = ApiServer(paced_registry(), tmp_path / "api.sock")
        await server.start()
        reader, writer = await asyncio.open_unix_connection(str(server.path), limit=4 * MAX_LINE)
        gone_reader, gone_writer = await asyncio.open_unix_connection(str(server.path))
        writer.write(b'{"id": 1, "method": "stats"}\n{"id": 2, "method": "stats"}\n')
        gone_writer.write(b'{"id": 3, "method": "stats"}\n')
        await writer.drain()
        await gone_writer.drain()
        assert json.loads(await asyncio.wait_for(reader.readline(), HANG_S))["id"] == 1
        gone_writer.close()  # a client that left while its reading waits
        await asyncio.sleep(0.05)
        started = time.monotonic()
        await server.close()
        closing = time.monotonic() - started
        reply = json.loads(await asyncio.wait_for(reader.readline(), HANG_S))
        assert reply["id"] == 2 and reply["error"]["code"] == ApiError.UNAVAILABLE
        assert closing < 30  # not the hour of its turn: a bound on a hang, not on the machine's speed
    asyncio.run(body())


def test_a_game_reading_waiting_for_its_turn_when_launcherd_stops_is_told_so_at_once(tmp_path, monkeypatch):
    import socket as sockets

    from harness.launcherd import ThreadDaemon

    monkeypatch.setattr("firmware.daemon.api.Pace", lambda: Pace(rate=1 / 3600, burst=1))  # an hour apart
    running = ThreadDaemon(tmp_path).__enter__()
    try:
        client = sockets.socket(sockets.AF_UNIX)
        client.connect(str(running.daemon.socket_path))
        client.settimeout(HANG_S)
        lines = client.makefile("rb")
        client.sendall(b'{"id": 1, "method": "game/stats"}\n{"id": 2, "method": "game/history"}\n')
        assert "result" in json.loads(lines.readline())  # the burst
    finally:
        started = time.monotonic()
        running.__exit__(None, None, None)
    reply = json.loads(lines.readline())
    assert reply["id"] == 2 and reply["error"]["code"] == ApiError.UNAVAILABLE
    assert time.monotonic() - started < 30  # not the hour of its turn: a bound on a hang only
    client.close()
