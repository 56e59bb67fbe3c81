"""firmware/client.py, the one client of launcherd's socket, against a stand-in daemon: replies by
id, events to the listener, error replies as ApiError, and the daemon going away."""

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from firmware.client import MAX_LINE, Client, DaemonDown, Unreachable, connect
from firmware.client import reply_error
from firmware.errors import ApiError, InvalidParams, NotFound, Refused, Unavailable

REFUSAL = {"code": 1, "message": "the motor needs 2.4 s of rest", "retry_after_s": 2.4,
           "message_object": {"id": "motor_needs_rest", "seconds": 2.4}}


class StandIn:
    """Answers ``echo`` with its params (after an event), refuses ``refuse``, never answers
    ``hang``, and closes the connection on ``quit``."""

    def __init__(self, path: Path):
        self.path = path

    async def start(self) -> None:
        self.server = await asyncio.start_unix_server(self._serve, str(self.path))

    async def _serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            method = request["method"]
            if method == "quit":
                break
            if method == "echo":
                writer.write(json.dumps({"event": "echoing", "params": {"n": 1}}).encode() + b"\n")
                reply = {"result": {**request["params"], "lang": request.get("lang")}}
            elif method == "flood":
                writer.write(b"".join(json.dumps({"event": "launched", "params": {"n": n}}).encode() + b"\n"
                                      for n in range(request["params"]["events"])))
                reply = {"result": {}}
            elif method == "refuse":
                reply = {"error": REFUSAL}
            else:
                continue
            writer.write(json.dumps({"id": request["id"], **reply}).encode() + b"\n")
            await writer.drain()
        writer.close()


@pytest.fixture
def directory():
    path = Path(tempfile.mkdtemp(prefix="client-", dir="/tmp"))  # short: a socket path has 107 bytes
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(directory: Path, check) -> None:
    async def main():
        stand_in = StandIn(directory / "s")
        await stand_in.start()
        try:
            await check(stand_in.path)
        finally:
            stand_in.server.close()

    asyncio.run(asyncio.wait_for(main(), 20))


def test_calls_are_answered_by_id_and_events_go_to_the_listener(directory):
    async def check(path):
        events = []
        connection = await connect(path, lambda name, params: events.append((name, params)))
        first, second = await asyncio.gather(connection.call("echo", {"a": 1}, lang="fr"), connection.call("echo"))
        assert first == {"a": 1, "lang": "fr"} and second == {"lang": None}
        assert events == [("echoing", {"n": 1})] * 2
        await connection.close()
        assert connection.closed

    run(directory, check)


def test_an_error_reply_is_an_api_error_with_its_code_text_details_and_message_object(directory):
    async def check(path):
        connection = await connect(path, lambda name, params: None)
        with pytest.raises(ApiError) as refused:
            await connection.call("refuse")
        await connection.close()
        return refused.value

    def same(error: ApiError) -> None:
        assert isinstance(error, Refused) and error.retry_after_s == 2.4
        assert error.code == 1 and error.message == REFUSAL["message"]
        assert error.message_object == REFUSAL["message_object"] and error.data["retry_after_s"] == 2.4

    async def both(path):
        same(await check(path))
        with Client(path) as client:
            with pytest.raises(ApiError) as refused:
                await asyncio.to_thread(client.call, "refuse")
        same(refused.value)

    run(directory, both)


def test_the_calls_waiting_fail_with_daemon_down_when_the_daemon_goes(directory):
    async def check(path):
        connection = await connect(path, lambda name, params: None)
        waiting = asyncio.ensure_future(connection.call("hang"))
        await asyncio.sleep(0)
        await connection.call("echo")  # the hang is in the stand-in's hands
        with pytest.raises(DaemonDown):
            await connection.call("quit")
        with pytest.raises(DaemonDown):
            await waiting
        await connection.wait_closed()
        with pytest.raises(DaemonDown):
            await connection.call("echo")
        await connection.close()

    run(directory, check)


def test_a_request_longer_than_launcherd_reads_is_refused_before_it_is_sent(directory):
    async def check(path):
        connection = await connect(path, lambda name, params: None)
        with pytest.raises(ApiError) as refused:
            await connection.call("echo", {"text": "x" * MAX_LINE})
        assert refused.value.code == ApiError.INVALID_REQUEST
        assert await connection.call("echo", {"text": "ok"}) == {"text": "ok", "lang": None}
        await connection.close()

    run(directory, check)


def test_a_missing_socket_is_unreachable_both_ways(directory):
    with pytest.raises(Unreachable):
        Client(directory / "nothing")

    async def check():
        with pytest.raises(Unreachable):
            await connect(directory / "nothing", lambda name, params: None)

    asyncio.run(check())


@pytest.mark.parametrize(("code", "kind"), [(-32602, InvalidParams), (1, Refused), (2, NotFound),
                                            (3, Unavailable), (-32603, ApiError), (99, ApiError)])
def test_an_error_reply_is_the_error_of_its_code_as_the_daemon_raised_it(code, kind):
    error = reply_error({"code": code, "message": "no", "state": "ready"})
    assert type(error) is kind and error.code == code and str(error) == "no"
    assert error.data == {"state": "ready"}


def test_a_flood_of_events_leaves_the_loop_a_turn_between_them(directory):
    """launcher-game's watchdog beats from its loop: events arriving faster than they are taken in
    (a burst of launches) must not hold the loop until they are all read."""
    async def check(path):
        seen = []

        def on_event(name, params):
            if params["n"] == 0:
                asyncio.get_running_loop().call_soon(seen.append, "a timer's turn")
            seen.append(params["n"])
        connection = await connect(path, on_event)
        await connection.call("flood", {"events": 5000})
        await connection.close()
        assert seen.index("a timer's turn") <= 2 and len(seen) == 5001

    run(directory, check)
