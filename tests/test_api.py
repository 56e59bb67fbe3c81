"""The JSON-lines API server: structured errors for every kind of bad input, events, slow clients."""

import asyncio
import json
import re
import os
import socket
import stat

import pytest

from harness.waits import HANG_S
from firmware.client import MAX_LINE
from firmware.daemon.api import ApiServer

from firmware.daemon.registry import Param, Registry
from firmware.errors import ApiError, InUse, Refused


def make_registry():
    registry = Registry()
    registry.register("echo", lambda p: p, {"text": str, "times": Param(int, 1, minimum=1, maximum=5)})
    registry.register("boom", lambda p: 1 / 0)
    registry.register("pick", lambda p: p, {"side": Param(str, choices=("left", "right")),
                                            "at": Param(float, 1.0, minimum=0.5)})
    registry.register("refuse", lambda p: (_ for _ in ()).throw(Refused("not now")))

    async def slow(p):
        await asyncio.sleep(0)
        return {"slow": True}

    registry.register("slow", slow)
    return registry


async def with_server(tmp_path, body):
    server = ApiServer(make_registry(), tmp_path / "api.sock")
    await server.start()
    try:
        return await body(server)
    finally:
        await server.close()


async def connect(server):
    return await asyncio.open_unix_connection(str(server.path), limit=4 * MAX_LINE)


async def exchange(reader, writer, raw: bytes):
    writer.write(raw)
    await writer.drain()
    return json.loads(await asyncio.wait_for(reader.readline(), HANG_S))


def run(tmp_path, body):
    return asyncio.run(with_server(tmp_path, body))


def test_a_request_gets_its_result_with_its_id(tmp_path):
    async def body(server):
        reader, writer = await connect(server)
        reply = await exchange(reader, writer, b'{"id": 7, "method": "echo", "params": {"text": "hi"}}\n')
        assert reply == {"id": 7, "result": {"text": "hi", "times": 1}}
        reply = await exchange(reader, writer, b'{"id": "a", "method": "slow"}\n')
        assert reply == {"id": "a", "result": {"slow": True}}
        writer.close()
    run(tmp_path, body)


@pytest.mark.parametrize("raw, code, message", [
    (b"{not json\n", ApiError.PARSE_ERROR, "^not valid JSON$"),
    (b"[1, 2]\n", ApiError.INVALID_REQUEST, 'an object with a string "method"'),
    (b'{"id": 1}\n', ApiError.INVALID_REQUEST, 'an object with a string "method"'),
    (b'{"id": 1, "method": 5}\n', ApiError.INVALID_REQUEST, 'an object with a string "method"'),
    (b'{"id": 1, "method": "nope"}\n', ApiError.METHOD_NOT_FOUND, "^unknown method 'nope'; see list_methods$"),
    (b'{"id": 1, "method": "echo"}\n', ApiError.INVALID_PARAMS, "^echo: missing parameter 'text'$"),
    (b'{"id": 1, "method": "echo", "params": {"text": 3}}\n', ApiError.INVALID_PARAMS,
     "^echo: text must be a string, got 3$"),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "times": true}}\n', ApiError.INVALID_PARAMS,
     "^echo: times must be a whole number, got true$"),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "times": 99999999999999999999}}\n',
     ApiError.INVALID_PARAMS, "^echo: times must be at most 5, got 99999999999999999999$"),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "extra": 1}}\n', ApiError.INVALID_PARAMS,
     "^echo: unknown parameter 'extra'; allowed: text, times$"),
    (b'{"id": 1, "method": "echo", "params": [1]}\n', ApiError.INVALID_PARAMS,
     r"^echo: params must be an object, got \[1\]$"),
    (b'{"id": 1, "method": "boom"}\n', ApiError.INTERNAL_ERROR, "^internal error: division by zero$"),
    (b'{"id": 1, "method": "refuse"}\n', ApiError.REFUSED, "^not now$"),
    (b"[" * 100000 + b"\n", ApiError.INVALID_REQUEST, "^line longer than 64 KiB"),
], ids=["json", "array", "no-method", "method-type", "unknown", "missing", "type", "bool-int", "huge",
        "extra", "params-list", "handler-bug", "refused", "too-long"])
def test_bad_input_gets_a_structured_error_and_the_connection_lives_on(tmp_path, raw, code, message):
    async def body(server):
        reader, writer = await connect(server)
        reply = await exchange(reader, writer, raw)
        assert reply["error"]["code"] == code
        assert re.search(message, reply["error"]["message"]), reply["error"]["message"]
        again = await exchange(reader, writer, b'{"id": 2, "method": "echo", "params": {"text": "ok"}}\n')
        assert again["result"]["text"] == "ok"
        writer.close()
    run(tmp_path, body)


@pytest.mark.parametrize("request_line", [
    {"method": "nope"},
    {"method": "echo"},
    {"method": "echo", "params": {"text": 3}},
    {"method": "echo", "params": {"text": "x", "times": 99999999999999999999}},
    {"method": "echo", "params": {"text": "x", "times": 0}},
    {"method": "echo", "params": {"text": "x", "extra": 1}},
    {"method": "boom", "params": {"extra": 1}},
    {"method": "echo", "params": [1]},
    {"method": "pick", "params": {"side": "up"}},
    {"method": "pick", "params": {"side": "left", "at": 0.1}},
], ids=["unknown", "missing", "type", "huge", "small", "extra", "takes-none", "params-list", "choice", "at-least"])
def test_a_request_that_does_not_fit_its_method_is_refused_in_the_language_asked(tmp_path, request_line):
    """A person at launcherctl --lang fr reads the refusal of a mistyped call in French: the API's
    names and values stay as the API has them, the rest is the catalogue's (a message object)."""
    from firmware.i18n import render

    async def body(server):
        reader, writer = await connect(server)
        said = {}
        for lang in ("en", "fr"):
            line = json.dumps({"id": 1, "lang": lang, **request_line}).encode() + b"\n"
            said[lang] = (await exchange(reader, writer, line))["error"]
        writer.close()
        return said
    said = run(tmp_path, body)
    english, french = said["en"], said["fr"]
    assert english["message_object"] == french["message_object"]
    assert english["message_object"]["id"].startswith("api_")
    assert french["message"] == render(french["message_object"], "fr") != english["message"]
    assert english["message"] == render(english["message_object"], "en")


def test_deeply_nested_json_is_a_parse_error_not_a_crash(tmp_path):
    async def body(server):
        reader, writer = await connect(server)
        nested = b"[" * 50000 + b"]" * 50000
        reply = await exchange(reader, writer, nested[: MAX_LINE - 10] + b"\n")
        assert reply["id"] is None
        assert reply["error"]["code"] == ApiError.INVALID_REQUEST and "nested more than" in reply["error"]["message"]
        writer.close()
    run(tmp_path, body)


def test_a_half_line_then_disconnect_does_not_disturb_others(tmp_path):
    async def body(server):
        r1, w1 = await connect(server)
        w1.write(b'{"id": 1, "meth')
        await w1.drain()
        w1.close()
        r2, w2 = await connect(server)
        reply = await exchange(r2, w2, b'{"id": 3, "method": "echo", "params": {"text": "fine"}}\n')
        assert reply["result"]["text"] == "fine"
        w2.close()
    run(tmp_path, body)


def test_events_reach_subscribers_only(tmp_path):
    async def body(server):
        r1, w1 = await connect(server)
        r2, w2 = await connect(server)
        assert (await exchange(r1, w1, b'{"id": 1, "method": "events/subscribe"}\n'))["result"]
        server.publish("launched", {"cards": 3})
        event = json.loads(await asyncio.wait_for(r1.readline(), HANG_S))
        assert event == {"event": "launched", "params": {"cards": 3}}
        reply = await exchange(r2, w2, b'{"id": 9, "method": "echo", "params": {"text": "x"}}\n')
        assert reply["id"] == 9  # no event was queued in front of it
        w1.close()
        w2.close()
    run(tmp_path, body)


def test_a_client_that_never_reads_is_dropped_and_others_are_served(tmp_path):
    async def body(server):
        lazy_reader, lazy_writer = await connect(server)
        lazy_writer.write(b'{"id": 1, "method": "events/subscribe"}\n')
        await lazy_writer.drain()
        await asyncio.sleep(0.05)
        others = [await connect(server) for _ in range(10)]
        big = {"blob": "x" * 4000}
        for _ in range(3000):
            server.publish("noise", big)
            await asyncio.sleep(0)
        for reader, writer in others:
            reply = await exchange(reader, writer, b'{"id": 5, "method": "echo", "params": {"text": "y"}}\n')
            assert reply["result"]["text"] == "y"
        assert server.client_count == len(others)  # the lazy one is gone
        for _, writer in others:
            writer.close()
        lazy_writer.close()
    run(tmp_path, body)


def test_socket_is_group_only(tmp_path):
    async def body(server):
        mode = stat.S_IMODE(os.stat(server.path).st_mode)
        assert mode == 0o660
    run(tmp_path, body)


def test_list_of_methods_describes_parameters():
    registry = make_registry()
    echo = next(m for m in registry.describe() if m["method"] == "echo")
    assert echo["params"] == {"text": {"type": "str", "required": True}, "times": {"type": "int", "required": False}}


async def read_to_end(reader):
    """Every line until the server closes the connection (a reset counts as the close)."""
    lines = []
    try:
        while line := await asyncio.wait_for(reader.readline(), HANG_S):
            lines.append(json.loads(line))
    except ConnectionResetError:
        pass
    return lines


def test_clients_beyond_the_limit_are_told_why_and_turned_away(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.MAX_CLIENTS", 3)
    monkeypatch.setattr("firmware.daemon.api.ADMIN_SLOTS", 0)

    async def body(server):
        kept = [await connect(server) for _ in range(3)]
        for reader, writer in kept:
            assert (await exchange(reader, writer, b'{"id": 1, "method": "echo", "params": {"text": "a"}}\n'))["id"] == 1
        reader, writer = await connect(server)
        [refusal] = await read_to_end(reader)
        assert refusal["id"] is None and refusal["error"]["code"] == ApiError.REFUSED
        assert "3 clients" in refusal["error"]["message"] and "try again" in refusal["error"]["message"]
        kept[0][1].close()
        await asyncio.sleep(0.05)
        reader, writer = await connect(server)
        assert (await exchange(reader, writer, b'{"id": 3, "method": "echo", "params": {"text": "c"}}\n'))["id"] == 3
    run(tmp_path, body)


@pytest.mark.skipif(os.getuid() != 0, reason="the administrator's slot is for root")
def test_root_keeps_a_slot_when_every_other_one_is_taken(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.MAX_CLIENTS", 2)

    async def body(server):
        kept = [await connect(server) for _ in range(2)]
        reader, writer = await connect(server)
        assert (await exchange(reader, writer, b'{"id": 4, "method": "echo", "params": {"text": "r"}}\n'))["id"] == 4
        reader, _ = await connect(server)
        [refusal] = await read_to_end(reader)
        assert refusal["error"]["code"] == ApiError.REFUSED
        del kept
    run(tmp_path, body)


def test_an_idle_connection_is_told_and_closed_but_a_subscriber_stays(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.IDLE_TIMEOUT_S", 0.2)

    async def body(server):
        idle_reader, _ = await connect(server)
        sub_reader, sub_writer = await connect(server)
        assert (await exchange(sub_reader, sub_writer, b'{"id": 1, "method": "events/subscribe"}\n'))["result"]
        [notice] = await read_to_end(idle_reader)
        assert notice["id"] is None and notice["error"]["code"] == ApiError.REFUSED
        assert "idle for 0.2 s" in notice["error"]["message"]
        await asyncio.sleep(0.3)
        server.publish("still", {"here": True})
        assert json.loads(await asyncio.wait_for(sub_reader.readline(), HANG_S))["event"] == "still"
        assert server.client_count == 1
    run(tmp_path, body)


def make_gated_registry(gate: asyncio.Event):
    registry = make_registry()

    async def wait(p):
        await gate.wait()
        return {"waited": True}

    registry.register("wait", wait)
    registry.register("system/estop", lambda p: {"stopped": True})
    return registry


def test_a_request_does_not_wait_behind_a_running_one_on_the_same_connection(tmp_path):
    async def body():
        gate = asyncio.Event()
        server = ApiServer(make_gated_registry(gate), tmp_path / "api.sock")
        await server.start()
        reader, writer = await connect(server)
        writer.write(b'{"id": 1, "method": "wait"}\n{"id": 2, "method": "system/estop"}\n')
        await writer.drain()
        first = json.loads(await asyncio.wait_for(reader.readline(), HANG_S))
        assert first == {"id": 2, "result": {"stopped": True}}
        gate.set()
        assert json.loads(await asyncio.wait_for(reader.readline(), HANG_S)) == {"id": 1, "result": {"waited": True}}
        await server.close()
    asyncio.run(body())


def test_requests_in_flight_are_capped_but_the_estop_always_runs(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.daemon.api.MAX_IN_FLIGHT", 2)

    async def body():
        gate = asyncio.Event()
        server = ApiServer(make_gated_registry(gate), tmp_path / "api.sock")
        await server.start()
        reader, writer = await connect(server)
        writer.write(b'{"id": 1, "method": "wait"}\n{"id": 2, "method": "wait"}\n{"id": 3, "method": "wait"}\n'
                     b'{"id": 4, "method": "system/estop"}\n')
        await writer.drain()
        too_many = json.loads(await asyncio.wait_for(reader.readline(), HANG_S))
        assert too_many["id"] == 3 and too_many["error"]["code"] == ApiError.REFUSED
        assert "2 requests" in too_many["error"]["message"]
        assert json.loads(await asyncio.wait_for(reader.readline(), HANG_S))["id"] == 4
        gate.set()
        assert {json.loads(await asyncio.wait_for(reader.readline(), HANG_S))["id"] for _ in range(2)} == {1, 2}
        await server.close()
    asyncio.run(body())


def test_a_request_running_when_the_server_closes_gets_an_error_reply(tmp_path):
    async def body():
        server = ApiServer(make_gated_registry(asyncio.Event()), tmp_path / "api.sock")
        await server.start()
        reader, writer = await connect(server)
        writer.write(b'{"id": 9, "method": "wait"}\n')
        await writer.drain()
        await asyncio.sleep(0.05)
        await server.close()
        [reply] = await read_to_end(reader)
        assert reply["id"] == 9 and reply["error"]["code"] == ApiError.UNAVAILABLE
        assert "stopped before wait finished" in reply["error"]["message"]
    asyncio.run(body())


def test_a_stale_socket_is_replaced(tmp_path):
    path = tmp_path / "api.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()  # bound, never listening: what a killed daemon leaves behind

    async def body(server):
        reader, writer = await connect(server)
        assert (await exchange(reader, writer, b'{"id": 1, "method": "echo", "params": {"text": "x"}}\n'))["id"] == 1
    run(tmp_path, body)


def test_a_live_server_on_the_path_is_not_replaced(tmp_path):
    async def body(server):
        second = ApiServer(make_registry(), server.path)
        with pytest.raises(InUse, match="already answering on"):
            await second.start()
        reader, writer = await connect(server)  # the first one still serves
        assert (await exchange(reader, writer, b'{"id": 1, "method": "echo", "params": {"text": "x"}}\n'))["id"] == 1
    run(tmp_path, body)


def test_a_regular_file_at_the_socket_path_is_refused_and_kept(tmp_path):
    path = tmp_path / "api.sock"
    path.write_text("notes")

    async def body():
        with pytest.raises(InUse, match="is a regular file, not a socket"):
            await ApiServer(make_registry(), path).start()
    asyncio.run(body())
    assert path.read_text() == "notes"


def test_a_request_sent_just_before_the_client_closes_its_side_is_still_run_and_answered(tmp_path):
    async def body():
        gate = asyncio.Event()
        registry = make_gated_registry(gate)
        ran = []
        registry.register("note", lambda p: ran.append(p) or {"noted": True}, {"text": str})
        server = ApiServer(registry, tmp_path / "api.sock")
        await server.start()
        reader, writer = await connect(server)
        writer.write(b'{"id": 1, "method": "note", "params": {"text": "x"}}\n{"id": 2, "method": "wait"}\n')
        writer.write_eof()  # as `echo ... | nc -U` does
        await asyncio.sleep(0.05)
        gate.set()
        replies = await read_to_end(reader)
        await server.close()
        return ran, replies

    ran, replies = asyncio.run(body())
    assert ran == [{"text": "x"}]
    assert [r["id"] for r in replies] == [1, 2] and replies[1]["result"] == {"waited": True}
