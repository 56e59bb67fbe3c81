"""What a guest on the table's network found at the page's edges (issue 36, findings 6, 7, 9, 10),
against real launcherd --sim and launcher-web processes: another site's bare-IP Origin, the cost of
/api/state on a long log, malformed HTTP requests in the log, and names that a spreadsheet would
take for formulas in the scores' CSV."""

from __future__ import annotations

import csv
import io
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.web import Stack

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture(scope="module")
def stack():
    running = Stack().start()
    yield running
    running.close()


def raw_http(stack: Stack, request: bytes) -> bytes:
    """One request written as it is on a new connection; the reply's head (its status line and headers)."""
    with socket.create_connection(("127.0.0.1", stack.port), timeout=10) as connection:
        connection.sendall(request)
        reply = b""
        while b"\r\n\r\n" not in reply and (chunk := connection.recv(65536)):
            reply += chunk
    return reply


# ---- finding 10: formulas in the scores' CSV ---------------------------------------------------


def test_names_a_spreadsheet_would_run_are_text_in_every_csv(stack):
    players = ["+Ann", "-Bob", "@Cy", "Dee"]
    stack.call("game/new", {"rules": "attack-mega-hit", "players": players, "force": True})
    # A Discard All may empty +Ann's hand: she can win the round (the hand model, #39).
    stack.call("game/play", {"card": "discard-all", "color": "red"})
    stack.call("game/end-round", {"winner": "+Ann", "hands": {"-Bob": 7, "@Cy": 12, "Dee": 30}})
    by_cli = subprocess.run([LAUNCHERCTL, "--socket", str(stack.socket), "game", "scores", "--csv"],
                            capture_output=True, text=True, timeout=30)
    assert by_cli.returncode == 0, by_cli.stderr
    status, by_page, _ = stack.request("GET", "/api/scores.csv")
    assert status == 200
    for text in (by_cli.stdout, by_page, stack.call("game/scores", {"csv": True})["csv"]):
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[1][:2] == ["1", "'+Ann"]
        assert rows[0][3:5] == ["'+Ann points", "'+Ann total"] and rows[0][5] == "'-Bob points"
        for cell in (cell for row in rows for cell in row):
            number = cell.lstrip("-").isdigit()
            assert number or not cell.startswith(FORMULA_STARTS), (cell, text)


# ---- finding 6: another site's bare-IP Origin --------------------------------------------------


def open_stream(stack: Stack, origin: str) -> int:
    """The status of a WebSocket upgrade to /api/events that carries ``origin`` (101: opened)."""
    reply = raw_http(stack, (f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n"
                             "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                             f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: {origin}\r\n\r\n").encode())
    return int(reply.split(b" ", 2)[1])


def test_only_the_pages_own_addresses_are_its_origin(stack):
    for foreign in ("203.0.113.5", "192.0.2.77", "[2001:db8::5]", "10.11.12.13"):
        origin = f"http://{foreign}:{stack.port}"
        assert open_stream(stack, origin) == 403, origin
        status, reply, _ = stack.request("POST", "/api/game/new", {"players": ["Ann", "Bob"]}, stack.code(),
                                         headers={"Origin": origin})
        assert status == 403 and reply["error"]["code"] == "origin", origin
    own = [f"http://127.0.0.1:{stack.port}", f"http://localhost:{stack.port}", f"http://[::1]:{stack.port}",
           f"http://{socket.gethostname().split('.')[0].lower()}.local:{stack.port}"]
    from controller.web.lan import lan_address
    found = lan_address()
    if found is not None:  # the machine's address on its network: a phone opens the page there
        own.append(f"http://{found}:{stack.port}")
    for origin in own:
        assert open_stream(stack, origin) == 101, origin
    assert "Traceback" not in stack.web_log()


# ---- finding 9: malformed requests in the log --------------------------------------------------

MALFORMED = {
    "CL+TE": b"POST /api/state HTTP/1.1\r\n{host}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "folded TE": b"POST /api/state HTTP/1.1\r\n{host}Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n",
    "two CL": b"POST /api/state HTTP/1.1\r\n{host}Content-Length: 1\r\nContent-Length: 2\r\n\r\nab",
    "two Host": b"GET /api/state HTTP/1.1\r\n{host}{host}\r\n",
    "bare LF": b"GET /api/state HTTP/1.1\n{host}\n",
    "NUL": b"GET /api/st\x00ate HTTP/1.1\r\n{host}\r\n",
}


def test_malformed_requests_are_refused_with_one_log_line_per_kind_not_a_traceback_each(stack):
    host = f"Host: 127.0.0.1:{stack.port}\r\n".encode()
    before = len(stack.web_log().splitlines())
    for _ in range(5):
        for name, request in MALFORMED.items():
            request = request.replace(b"{host}", host)
            if name == "bare LF":
                request = request.replace(b"\r\n", b"\n")
            status_line = raw_http(stack, request).split(b"\r\n", 1)[0]
            assert status_line.split(b" ")[1:2] == [b"400"], (name, status_line)
    assert stack.get("/api/state")[0] == 200
    new = stack.web_log().splitlines()[before:]
    assert not [line for line in new if "Traceback" in line or "Error handling request" in line], new
    malformed = [line for line in new if "malformed request" in line]
    assert 1 <= len(malformed) <= len(MALFORMED), new  # at most one line per kind within the minute
    assert len(new) <= len(MALFORMED) + 2, new


# ---- finding 7: /api/state on a long log --------------------------------------------------------

STATE_LOG_ACTIONS = 100  # the page of the log /api/state asks for (docs/web.md)


class RecordingProxy:
    """A Unix socket between launcher-web and launcherd that passes everything on and keeps, for
    each request launcher-web sends, its method, params and the length of launcherd's reply."""

    def __init__(self, daemon_socket: Path, path: Path):
        import asyncio
        import threading

        self.daemon_socket, self.path = daemon_socket, path
        self.asked: dict[object, dict] = {}  # id -> {"method", "params", "reply_bytes"}
        self.loop = asyncio.new_event_loop()
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(asyncio.start_unix_server(self._serve, str(path), limit=2**22))
            started.set()
            self.loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        assert started.wait(10)

    async def _serve(self, reader, writer) -> None:
        import asyncio

        upstream_reader, upstream_writer = await asyncio.open_unix_connection(str(self.daemon_socket), limit=2**22)

        async def requests() -> None:
            while line := await reader.readline():
                request = json.loads(line)
                self.asked[request.get("id")] = {"method": request.get("method"),
                                                 "params": request.get("params"), "reply_bytes": None}
                upstream_writer.write(line)
                await upstream_writer.drain()
            upstream_writer.close()

        async def replies() -> None:
            while line := await upstream_reader.readline():
                reply = json.loads(line)
                if reply.get("id") in self.asked:
                    self.asked[reply["id"]]["reply_bytes"] = len(line)
                writer.write(line)
                await writer.drain()
            writer.close()

        await asyncio.gather(requests(), replies(), return_exceptions=True)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def long_match():
    """A match of 300-odd actions, and launcher-web reaching launcherd through a RecordingProxy."""
    from firmware.client import Client

    running = Stack()
    running.start_daemon()
    with Client(running.socket, timeout=30) as client:
        client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"], "force": True})
        client.call("launcher/reload", {"cards": 100})
        for turn in range(300):  # a long log of possible hands: each play taken back (undone rows stay)
            client.call("game/play", {"card": str(1 + turn % 9), "color": "red"})
            client.call("game/undo")
        for _ in range(2):  # the fixed presses give 0, then 3 cards
            client.call("launcher/press")
        for turn in range(10):  # the last burst is not the last action
            client.call("game/play", {"card": str(1 + turn % 9), "color": "red"})
    proxy = RecordingProxy(running.socket, running.dir / "proxy.sock")
    daemon_socket, running.socket = running.socket, proxy.path
    running.start_web()
    running.socket = daemon_socket  # the test's own calls go straight to launcherd
    yield running, proxy
    running.close()
    proxy.close()


def test_state_fetches_a_bounded_page_of_the_log_and_finds_the_last_burst(long_match):
    from controller.web.page_texts import last_burst

    stack, proxy = long_match
    whole = stack.call("game/log")
    assert len(whole["actions"]) > 3 * STATE_LOG_ACTIONS
    status, state = stack.get("/api/state")
    assert status == 200
    assert state["last_burst"] == last_burst(whole["actions"]) == {
        "player": state["last_burst"]["player"], "cards": 3, "press_id": state["last_burst"]["press_id"]}
    # What launcher-web asked of the log since it started (its first state, or this one): a page.
    fetched = [asked for asked in proxy.asked.values() if asked["method"] == "game/log"]
    assert len(fetched) == 1 and fetched[0]["params"] == {"limit": STATE_LOG_ACTIONS}, fetched
    whole_bytes = len(json.dumps(whole))
    assert fetched[0]["reply_bytes"] < whole_bytes / 3, (fetched[0]["reply_bytes"], whole_bytes)


def test_game_log_pages_put_together_are_the_whole_log(long_match):
    stack, _ = long_match
    whole = stack.call("game/log")["actions"]
    pages, before = [], None
    while True:
        page = stack.call("game/log", {"limit": 64, **({"before": before} if before else {})})
        assert len(page["actions"]) <= 64
        pages = page["actions"] + pages
        if not page["more"]:
            break
        before = page["actions"][0]["seq"]
    assert pages == whole
    status, reply = stack.post("/api/game/log", {"limit": 5})
    assert status == 200 and reply["actions"] == whole[-5:] and reply["more"] is True
    status, reply = stack.post("/api/game/log", {"limit": 0})
    assert status == 400


def test_states_ask_launcherd_for_the_logs_page_once_per_change_of_the_log(long_match):
    """/api/state keeps the last burst it found for the log as it last changed: the page of the log
    is a reading launcherd serves at its readings' pace, shared by every client, so asking it for
    every guest's state put each phone's state behind thirty guests' (a second, at 20 a second)."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.waits import wait_until

    stack, proxy = long_match
    status, first = stack.get("/api/state")
    assert status == 200
    proxy.asked.clear()
    with ThreadPoolExecutor(30) as guests:
        states = list(guests.map(lambda _: stack.get("/api/state"), range(30)))
    assert {status for status, _ in states} == {200}
    assert all(state["last_burst"] == first["last_burst"] for _, state in states)
    assert [asked for asked in proxy.asked.values() if asked["method"] == "game/log"] == []

    # The log changes (a dry press, then one of 2 cards): the next state reads its page again.
    before = stack.call("game/log", {"limit": 1})["actions"][-1]["seq"]
    for _ in range(2):
        stack.call("launcher/press")
    burst = wait_until(lambda: (lambda state: state["last_burst"] if state["last_burst"] != first["last_burst"]
                                else None)(stack.get("/api/state")[1]), what="the new burst in /api/state",
                       interval=0.2)
    assert burst["cards"] == 2 and burst["press_id"] > first["last_burst"]["press_id"]
    assert stack.call("game/log", {"limit": 1})["actions"][-1]["seq"] > before
    proxy.asked.clear()
    with ThreadPoolExecutor(30) as guests:
        states = list(guests.map(lambda _: stack.get("/api/state"), range(30)))
    assert all(state["last_burst"] == burst for _, state in states)
    assert [asked for asked in proxy.asked.values() if asked["method"] == "game/log"] == []
