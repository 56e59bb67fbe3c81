"""The API server on a thread of its own: handlers run on the loop that started it (launcherd's
motor loop), everything else (reading, parsing, checking, encoding, writing) does not."""

import asyncio
import json
import socket
import threading

from harness.waits import HANG_S
from firmware.daemon.api import ApiServer

from firmware.daemon.registry import Registry
from firmware.errors import ApiError


def make_registry(seen_threads: list[int]) -> Registry:
    registry = Registry()

    def echo(params):
        seen_threads.append(threading.get_ident())
        return params

    async def later(params):
        seen_threads.append(threading.get_ident())
        await asyncio.sleep(0)
        return {"later": True}

    registry.register("echo", echo, {"text": str})
    registry.register("later", later)
    return registry


def lines_of(sock: socket.socket, count: int) -> list[dict]:
    reader = sock.makefile("rb")
    return [json.loads(reader.readline()) for _ in range(count)]


def test_handlers_run_on_the_loop_that_started_the_server(tmp_path):
    seen: list[int] = []

    async def body():
        server = ApiServer(make_registry(seen), tmp_path / "api.sock")
        await server.start()
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        writer.write(b'{"id": 1, "method": "echo", "params": {"text": "a"}}\n{"id": 2, "method": "later"}\n')
        await writer.drain()
        replies = [json.loads(await asyncio.wait_for(reader.readline(), HANG_S)) for _ in range(2)]
        writer.close()
        await server.close()
        return replies

    replies = asyncio.run(body())
    assert sorted(reply["id"] for reply in replies) == [1, 2]
    assert seen == [threading.get_ident()] * 2  # asyncio.run ran the test's loop on this thread


def test_a_blocked_handlers_loop_does_not_stop_the_server_answering_what_needs_no_handler(tmp_path):
    """Bad lines, unknown methods and wrong params are answered while the handlers' loop is busy."""
    answered = threading.Event()
    replies: list[dict] = []

    def client(path: str) -> None:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(HANG_S)
            sock.connect(path)
            sock.sendall(b'not json\n{"id": 3, "method": "nope"}\n{"id": 4, "method": "echo", "params": {}}\n')
            replies.extend(lines_of(sock, 3))
        answered.set()

    async def body():
        server = ApiServer(make_registry([]), tmp_path / "api.sock")
        await server.start()
        thread = threading.Thread(target=client, args=(str(server.path),))
        thread.start()
        answered.wait(10)  # blocks the loop that started the server, as a stuck motor loop would
        thread.join()
        await server.close()

    asyncio.run(body())
    assert answered.is_set()
    assert [(reply["id"], reply["error"]["code"]) for reply in replies] == [
        (None, ApiError.PARSE_ERROR), (3, ApiError.METHOD_NOT_FOUND), (4, ApiError.INVALID_PARAMS)]


def test_replies_known_at_once_keep_the_order_of_the_lines(tmp_path):
    async def body():
        server = ApiServer(make_registry([]), tmp_path / "api.sock")
        await server.start()
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        writer.write(b'{"id": 1, "method": "echo", "params": {"text": "a"}}\n[1]\n'
                     b'{"id": 2, "method": "echo", "params": {"text": "b"}}\n{"id": 3, "method": "echo"}\n')
        await writer.drain()
        replies = [json.loads(await asyncio.wait_for(reader.readline(), HANG_S)) for _ in range(4)]
        writer.close()
        await server.close()
        return replies

    assert [reply["id"] for reply in asyncio.run(body())] == [1, None, 2, 3]


def test_an_event_is_what_it_was_when_published(tmp_path):
    """The subscribers get the params as they were: the publisher may change its dict at once."""
    async def body():
        server = ApiServer(make_registry([]), tmp_path / "api.sock")
        await server.start()
        reader, writer = await asyncio.open_unix_connection(str(server.path))
        writer.write(b'{"id": 1, "method": "events/subscribe"}\n')
        await writer.drain()
        assert json.loads(await asyncio.wait_for(reader.readline(), HANG_S))["result"] == {"subscribed": True}
        params = {"cards": [1, 2]}
        server.publish("launched", params)
        params["cards"].append(3)
        params["late"] = True
        event = json.loads(await asyncio.wait_for(reader.readline(), HANG_S))
        writer.close()
        await server.close()
        return event

    assert asyncio.run(body()) == {"event": "launched", "params": {"cards": [1, 2]}}


def test_the_server_thread_ends_when_it_closes(tmp_path):
    async def body():
        server = ApiServer(make_registry([]), tmp_path / "api.sock")
        await server.start()
        during = {thread.name for thread in threading.enumerate()}
        await server.close()
        return during

    during = asyncio.run(body())
    assert "launcherd-api" in during
    assert "launcherd-api" not in {thread.name for thread in threading.enumerate()}


def test_game_readings_and_bad_lines_are_answered_while_the_motors_loop_is_busy(tmp_path):
    """A game method goes from the API's loop straight to the game layer's: a client reading the
    game (or sending garbage) neither waits for the motor's loop nor makes it work."""
    from harness.launcherd import ThreadDaemon

    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"]})
        busy, release = threading.Event(), threading.Event()

        def hold_the_loop() -> None:
            busy.set()
            release.wait(20)  # the motor's loop runs nothing else until the client has its answers

        running.daemon.loop.call_soon_threadsafe(hold_the_loop)
        assert busy.wait(10)
        try:
            with running.client(timeout=10) as client:
                assert client.call("game/rules", {"rules": "attack-mega-hit"})
                assert client.call("game/history") is not None
            with socket.socket(socket.AF_UNIX) as raw:
                raw.settimeout(10)
                raw.connect(str(running.daemon.socket_path))
                raw.sendall(b"{oops\n")
                [reply] = lines_of(raw, 1)
            assert reply["error"]["code"] == ApiError.PARSE_ERROR
        finally:
            release.set()
        assert running.call("status/get")["state"]


def test_a_server_answers_from_its_start_however_long_before_it_was_made(tmp_path):
    """launcherd makes its server long before it serves (pins, the game log, seconds on a Pi or
    under emulation): the watchdog's first question after READY must not find a beat that old."""
    now = [0.0]

    async def body():
        server = ApiServer(make_registry([]), tmp_path / "api.sock", clock=lambda: now[0])
        now[0] = 60.0  # a start that took a minute
        await server.start()
        try:
            return server.answering(60.5, within=1.0)
        finally:
            await server.close()

    assert asyncio.run(body())
