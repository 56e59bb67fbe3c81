"""launcher-web beside launcherd (Stack) or beside a stand-in for launcherd (StandIn)."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path

from controller.web.link import RETRY_MAX_VARIABLE
from firmware.client import Client
from harness.launcherd import game_is_up, write_config
from harness.waits import HANG_S, wait_for_socket, wait_until

# Press outcomes are known: the n-th press gives SEQUENCE[n - 1] cards, then it starts again.
SEQUENCE = [0, 3, 0, 2, 1, 0, 0, 4]
FIXED_PRESSES = f"""
[ejection]
profile = "fixed"
sequence = {json.dumps(SEQUENCE)}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stack:
    """launcherd --sim and launcher-web as real processes on a temporary socket and state dir.

    launcherd is started through its module's ``main``; its presses give :data:`SEQUENCE`.
    :meth:`start_web` alone serves the page of whatever listens on :attr:`socket` (a :class:`StandIn`).
    """

    def __init__(self, sim: bool = True, web_args: list[str] | None = None, web_descriptors: int | None = None,
                 listen_host: str = "127.0.0.1", extra_config: str = "", web_env: dict[str, str] | None = None) -> None:
        self.listen_host = listen_host  # 0.0.0.0: on every address, as on the Pi (the QR has the LAN address)
        self.sim = sim  # False: launcherd on mock pins as if on a Pi, with no simulated mechanism
        self.web_args = web_args or []  # more options of launcher-web (--lang fr)
        self.web_descriptors = web_descriptors  # launcher-web's RLIMIT_NOFILE (None: as inherited)
        # More environment of launcher-web (its test hooks). Its link tries launcherd again every
        # 50 ms, not after up to 2 s: a launcherd that starts or restarts is reached at once.
        self.web_env = {RETRY_MAX_VARIABLE: "50", **(web_env or {})}
        # Short: a Unix socket path may not exceed 107 bytes, and pytest's tmp_path can.
        self.dir = Path(tempfile.mkdtemp(prefix="web-", dir="/tmp"))
        self.socket = self.dir / "launcher.sock"
        self.state_dir = self.dir / "state"
        self.config = write_config(self.dir, FIXED_PRESSES + extra_config)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.daemon: subprocess.Popen | None = None
        self.game: subprocess.Popen | None = None  # launcher-game beside a launcherd not in --sim
        self.web: subprocess.Popen | None = None

    def start_daemon(self, wait: bool = True) -> None:
        mode = ["--sim", "--seed", "1"] if self.sim else []
        pins = {} if self.sim else {"GPIOZERO_PIN_FACTORY": "mock", "GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}
        self.daemon = subprocess.Popen(
            [sys.executable, "-m", "firmware.daemon.launcherd", *mode, "--config", str(self.config),
             "--socket", str(self.socket), "--state-dir", str(self.state_dir)],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "launcherd.log", "ab"), env={**os.environ, **pins})
        if not self.sim and (self.game is None or self.game.poll() is not None):
            # On a Pi systemd starts the game beside launcherd (launcher-game.service); --sim does it itself.
            self.game = subprocess.Popen(
                [sys.executable, "-m", "controller.layer.process", "--socket", str(self.socket),
                 "--state-dir", str(self.state_dir / "game")],
                stdout=subprocess.DEVNULL, stderr=open(self.dir / "launcher-game.log", "ab"), env=os.environ.copy())
        if wait:
            self.wait_for_daemon()

    def wait_for_daemon(self) -> None:
        wait_for_socket(self.socket, self.daemon, log=(self.dir / "launcherd.log").read_text)
        # Registered is not enough: until the game has said what a press means, the page's
        # launcher advice is "the game is starting", a long moment on a busy machine.
        wait_until(lambda: game_is_up(self.call("status/get")), HANG_S,
                   "the game registered with launcherd and a press's meaning said", 0.05)

    def stop_daemon(self) -> None:
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(HANG_S)

    def stop_game(self) -> None:
        if self.game is not None and self.game.poll() is None:
            self.game.send_signal(signal.SIGTERM)
            self.game.wait(HANG_S)

    def start_web(self, wait: bool = True) -> None:
        def limit_descriptors() -> None:
            if self.web_descriptors is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (self.web_descriptors, self.web_descriptors))

        self.web = subprocess.Popen(
            [sys.executable, "-m", "controller.web.server", "--socket", str(self.socket),
             "--listen", f"{self.listen_host}:{self.port}", *self.web_args],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "launcher-web.log", "ab"),
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.web_env}, preexec_fn=limit_descriptors)
        if wait:
            self.wait_for_web()

    def wait_for_web(self) -> None:
        wait_until(lambda: self.get("/api/state")[0] == 200, HANG_S, "launcher-web reaching launcherd", 0.05)

    def start(self) -> "Stack":
        """Both at once (launcher-web waits for launcherd as on a Pi), ready when the page shows the launcher."""
        self.start_daemon(wait=False)
        self.start_web(wait=False)
        self.wait_for_daemon()
        self.wait_for_web()
        return self

    def web_log(self) -> str:
        return (self.dir / "launcher-web.log").read_text()

    def call(self, method: str, params: dict | None = None):
        with Client(self.socket, timeout=30) as client:
            return client.call(method, params)

    def code(self) -> str:
        """The table's join code (what ``launcherctl game code`` prints)."""
        return self.call("game/code", {"new": False})["code"]

    def rotate_code(self) -> None:
        self.call("game/code", {"new": True})

    def request(self, method: str, path: str, body: object = None, code: str | None = None,
                raw: bytes | None = None, headers: dict[str, str] | None = None) -> tuple[int, object, dict]:
        """(status, JSON body or text, headers) of one HTTP request."""
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=headers or {})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if code is not None:
            request.add_header("X-Join-Code", code)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text, headers = response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            status, text, headers = error.code, error.read().decode(), dict(error.headers)
        except (urllib.error.URLError, ConnectionError):
            return 0, None, {}
        if "json" in headers.get("Content-Type", ""):
            return status, json.loads(text), headers
        return status, text, headers

    def get(self, path: str) -> tuple[int, object]:
        status, body, _ = self.request("GET", path)
        return status, body

    def post(self, path: str, body: object = None, code: str | None = None) -> tuple[int, object]:
        status, reply, _ = self.request("POST", path, {} if body is None else body, code)
        return status, reply

    def close(self) -> None:
        for process in (self.web, self.daemon, self.game):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(HANG_S)
        shutil.rmtree(self.dir, ignore_errors=True)


class StandIn:
    """A stand-in for launcherd on ``path``, in a thread: :meth:`answer` says what it replies
    (a ``{"result": ...}`` or ``{"error": ...}``); events/subscribe is always accepted."""

    def __init__(self, path: Path):
        self.path = path
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        threading.Thread(target=self._run, args=(started,), daemon=True).start()
        assert started.wait(HANG_S), "the stand-in did not listen"

    def answer(self, method: str, params: dict) -> dict:
        raise NotImplementedError

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(asyncio.start_unix_server(self._serve, str(self.path)))
        started.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            if request["method"] == "events/subscribe":
                reply = {"result": {"subscribed": True}}
            else:
                reply = self.answer(request["method"], request.get("params") or {})
            writer.write(json.dumps({"id": request["id"], **reply}).encode() + b"\n")
            await writer.drain()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
