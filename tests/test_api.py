"""The JSON-lines API server: structured errors for every kind of bad input, events, slow clients."""

import asyncio
import json
import os
import stat

import pytest

from firmware.api import MAX_LINE, ApiServer, Param, Registry
from firmware.errors import ApiError, Refused


def make_registry():
    registry = Registry()
    registry.register("echo", lambda p: p, {"text": str, "times": Param(int, 1, minimum=1, maximum=5)})
    registry.register("boom", lambda p: 1 / 0)
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
    return json.loads(await asyncio.wait_for(reader.readline(), 5))


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


@pytest.mark.parametrize("raw, code", [
    (b"{not json\n", ApiError.PARSE_ERROR),
    (b"[1, 2]\n", ApiError.INVALID_REQUEST),
    (b'{"id": 1}\n', ApiError.INVALID_REQUEST),
    (b'{"id": 1, "method": 5}\n', ApiError.INVALID_REQUEST),
    (b'{"id": 1, "method": "nope"}\n', ApiError.METHOD_NOT_FOUND),
    (b'{"id": 1, "method": "echo"}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "echo", "params": {"text": 3}}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "times": true}}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "times": 99999999999999999999}}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "echo", "params": {"text": "x", "extra": 1}}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "echo", "params": [1]}\n', ApiError.INVALID_PARAMS),
    (b'{"id": 1, "method": "boom"}\n', ApiError.INTERNAL_ERROR),
    (b'{"id": 1, "method": "refuse"}\n', ApiError.REFUSED),
    (b"[" * 100000 + b"\n", ApiError.INVALID_REQUEST),
], ids=["json", "array", "no-method", "method-type", "unknown", "missing", "type", "bool-int", "huge",
        "extra", "params-list", "handler-bug", "refused", "too-long"])
def test_bad_input_gets_a_structured_error_and_the_connection_lives_on(tmp_path, raw, code):
    async def body(server):
        reader, writer = await connect(server)
        reply = await exchange(reader, writer, raw)
        assert reply["error"]["code"] == code
        assert isinstance(reply["error"]["message"], str) and reply["error"]["message"]
        again = await exchange(reader, writer, b'{"id": 2, "method": "echo", "params": {"text": "ok"}}\n')
        assert again["result"]["text"] == "ok"
        writer.close()
    run(tmp_path, body)


def test_deeply_nested_json_is_a_parse_error_not_a_crash(tmp_path):
    async def body(server):
        reader, writer = await connect(server)
        nested = b"[" * 50000 + b"]" * 50000
        reply = await exchange(reader, writer, nested[: MAX_LINE - 10] + b"\n")
        assert "error" in reply
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
        event = json.loads(await asyncio.wait_for(r1.readline(), 5))
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


def test_clients_beyond_the_limit_are_turned_away(tmp_path, monkeypatch):
    monkeypatch.setattr("firmware.api.MAX_CLIENTS", 3)

    async def body(server):
        kept = [await connect(server) for _ in range(3)]
        for reader, writer in kept:
            assert (await exchange(reader, writer, b'{"id": 1, "method": "echo", "params": {"text": "a"}}\n'))["id"] == 1
        reader, writer = await connect(server)
        writer.write(b'{"id": 2, "method": "echo", "params": {"text": "b"}}\n')
        try:
            assert await asyncio.wait_for(reader.read(), 5) == b""  # closed without an answer
        except ConnectionResetError:
            pass  # or reset: either way no answer
        kept[0][1].close()
        await asyncio.sleep(0.05)
        reader, writer = await connect(server)
        assert (await exchange(reader, writer, b'{"id": 3, "method": "echo", "params": {"text": "c"}}\n'))["id"] == 3
    run(tmp_path, body)
