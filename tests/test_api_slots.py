"""launcherd's connection slots against a client that would hold one for ever (issue 36, finding 8),
on a real launcherd --sim whose deadlines its test hooks shorten: a line must be complete within
LAUNCHER_TEST_API_LINE_MS of its first byte, and bytes that complete no request never reset the
idle deadline (LAUNCHER_TEST_API_IDLE_MS); params nested far too deep are refused before the line
is decoded, naming the request; root keeps its spare slot when another user of the service group
holds every other one. That requests keep a connection (and a subscriber stays) is judged on the
API loop's own clock, moved by the test, with the deadline as shipped."""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from harness.launcherd import DaemonProcess, ThreadDaemon

from firmware.daemon.api import IDLE_TIMEOUT_S, IDLE_TIMEOUT_VARIABLE, LINE_TIMEOUT_VARIABLE  # noqa: E402
from firmware.daemon.registry import MAX_NESTING  # noqa: E402

IDLE_S, LINE_S = 2.0, 1.0
# Far past both deadlines: a connection still open by then was never going to be closed. A bound
# on a hang (12 s was within the stalls of a busy machine).
GIVE_UP_S = 60.0


@pytest.fixture(scope="module")
def daemon():
    directory = Path(tempfile.mkdtemp(prefix="slots-", dir="/tmp"))  # a socket path under 108 bytes
    running = DaemonProcess(directory, env={IDLE_TIMEOUT_VARIABLE: str(int(IDLE_S * 1000)),
                                            LINE_TIMEOUT_VARIABLE: str(int(LINE_S * 1000))}, log_file=True)
    running.start()
    yield running
    running.stop()
    shutil.rmtree(directory, ignore_errors=True)


def trickle(daemon: DaemonProcess, pieces: bytes) -> tuple[bytes, float]:
    """Send ``pieces`` one byte each quarter of the line deadline, over and over, until launcherd
    answers or closes; (what it said, seconds until then). Each wait is for launcherd's reply."""
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(daemon.socket))
        client.settimeout(LINE_S / 4)
        started = time.monotonic()
        said = b""
        sent = 0
        while time.monotonic() - started < GIVE_UP_S:
            try:
                chunk = client.recv(65536)
            except TimeoutError:
                try:
                    client.sendall(pieces[sent % len(pieces):sent % len(pieces) + 1])
                except (BrokenPipeError, ConnectionResetError):
                    break
                sent += 1
                continue
            said += chunk
            if not chunk:
                break
        return said, time.monotonic() - started


def test_a_line_trickled_a_byte_at_a_time_does_not_hold_a_slot(daemon):
    said, after = trickle(daemon, b'{"id": 1, "method": "status/get"}')
    assert after < GIVE_UP_S, "the trickling connection was never closed"
    notice = json.loads(said.splitlines()[0])
    assert notice["error"]["code"] == 1 and f"complete within {LINE_S:g} s" in notice["error"]["message"]


def test_blank_lines_are_no_requests_and_do_not_keep_a_connection_alive(daemon):
    said, after = trickle(daemon, b"\n")
    assert after < GIVE_UP_S, "the connection sending blank lines was never closed"
    assert f"idle for {IDLE_S:g} s" in json.loads(said.splitlines()[0])["error"]["message"]


class ApiClock:
    """The clock of launcherd's API loop, moved forward by the test: a deadline of minutes runs out
    in a jump, and how long a busy machine takes to run the test meanwhile is nothing beside it."""

    def __init__(self, loop):
        self.offset = 0.0
        self._loop = loop
        real = loop.time
        loop.time = lambda: real() + self.offset  # asyncio's timers and the API's deadlines read it

    def jump(self, seconds: float) -> None:
        self.offset += seconds
        self._loop.call_soon_threadsafe(lambda: None)  # the loop looks at its timers again


def test_requests_keep_a_connection_and_a_subscriber_stays(tmp_path):
    """The idle deadline as shipped (300 s) on the API loop's clock, which the test moves: a
    request every two thirds of it keeps a connection open past it, a subscriber stays with no
    request at all, and a whole deadline more without one closes the first. (On the wall clock,
    with a 2 s deadline, a reply later than 1 s or a gap past 2 s on a busy machine failed it.)"""
    with ThreadDaemon(tmp_path, load_layers=False) as running:
        clock = ApiClock(running.daemon.api.loop)
        idle_s = running.daemon.api.idle_timeout
        assert idle_s == IDLE_TIMEOUT_S
        with socket.socket(socket.AF_UNIX) as subscriber, socket.socket(socket.AF_UNIX) as asking:
            subscriber.connect(str(running.daemon.socket_path))
            subscriber.settimeout(60)
            subscriber.sendall(b'{"id": 1, "method": "events/subscribe"}\n')
            events = subscriber.makefile("rb")
            assert json.loads(events.readline())["result"] == {"subscribed": True}
            asking.connect(str(running.daemon.socket_path))
            asking.settimeout(60)
            replies = asking.makefile("rb")
            for number in range(4):  # two deadlines' time in all, never two thirds of one idle
                asking.sendall(json.dumps({"id": number, "method": "status/get"}).encode() + b"\n")
                assert json.loads(replies.readline())["id"] == number  # no closing notice first
                clock.jump(2 * idle_s / 3)
            clock.jump(idle_s)  # now a whole deadline without a request
            notice = json.loads(replies.readline())
            assert f"idle for {idle_s:g} s" in notice["error"]["message"], notice
            assert replies.readline() == b""  # closed
            subscriber.sendall(b'{"id": 2, "method": "status/get"}\n')
            assert any(json.loads(line).get("id") == 2 for line in iter(events.readline, b""))


def test_a_line_nested_thirty_thousand_deep_is_refused_naming_the_request(daemon):
    line = b'{"id": 41, "method": "game/new", "params": {"players": ' + b"[" * 30_000 + b"]" * 30_000 + b"}}\n"
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(str(daemon.socket))
        client.settimeout(10)
        client.sendall(line)
        reply = json.loads(client.makefile("rb").readline())
    assert reply["id"] == 41
    assert reply["error"] == {"code": -32602, "message": f"game/new: params hold lists or objects nested more"
                                                         f" than {MAX_NESTING} deep"}
    assert "Traceback" not in daemon.log()


FILLER = """
import socket, sys
held = []
for _ in range(int(sys.argv[2])):
    client = socket.socket(socket.AF_UNIX)
    client.connect(sys.argv[1])
    client.settimeout(30)
    client.sendall(b'{"id": 1, "method": "events/subscribe"}\\n')  # a subscriber is never idle
    said = client.recv(65536)
    if b'"subscribed"' not in said and b'"result"' not in said:
        print("refused", said.decode(errors="replace").splitlines()[0], flush=True)
        break
    held.append(client)
print("held", len(held), flush=True)
sys.stdin.read()  # until the test is done
"""


@pytest.mark.skipif(__import__("os").geteuid() != 0, reason="a client of another user needs root to start")
def test_root_keeps_its_spare_slot_when_another_user_fills_every_other_one(daemon):
    """A member of the service group (here uid 65534 in launcherd's group) holds every slot it can
    get: one more of its connections is refused, root's is served, and a second of root's is not."""
    import os
    import shutil
    import subprocess

    from firmware.daemon.api import MAX_CLIENTS

    # The filler needs only the standard library, from a Python the other user may run (this
    # one's may live in root's home).
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 for a client of another user")
    os.chmod(daemon.socket.parent, 0o755)  # the other user reaches the socket (0660, the group's)
    with socket.socket(socket.AF_UNIX) as ours:  # a client of launcherd's own beside them
        ours.connect(str(daemon.socket))
        ours.sendall(b'{"id": 1, "method": "events/subscribe"}\n')
        ours.settimeout(10)
        assert b'"subscribed"' in ours.recv(65536)
        filler = subprocess.Popen([python, "-c", FILLER, str(daemon.socket), str(MAX_CLIENTS + 5)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  user=65534, group=os.getgid(), extra_groups=[])
        try:
            refused = filler.stdout.readline()
            held = filler.stdout.readline()
            assert refused.startswith("refused") and f"serves {MAX_CLIENTS} clients" in refused, refused
            # Every slot but ours and the game process's (launcher-game is a client of the socket too).
            assert held == f"held {MAX_CLIENTS - 2}\n", held
            with socket.socket(socket.AF_UNIX) as root, socket.socket(socket.AF_UNIX) as again:
                root.connect(str(daemon.socket))
                root.settimeout(10)
                root.sendall(b'{"id": 2, "method": "status/get"}\n')
                assert json.loads(root.makefile("rb").readline())["id"] == 2
                again.connect(str(daemon.socket))
                again.settimeout(10)
                assert "clients (the limit)" in json.loads(again.makefile("rb").readline())["error"]["message"]
        finally:
            filler.stdin.close()
            filler.wait(30)
