"""launcherd --sim and launcher-web as real processes on a temporary socket and state dir.

Shared by the API tests (tests/test_web_api.py) and the browser tests. launcherd is started through
its own ``main`` with ``game/stats`` added to the game layer (``controller.match.stats.register_stats``),
which is what controller/layer/service.py's setup will do once the layer calls it itself.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

# Press outcomes are known: the n-th press gives SEQUENCE[n - 1] cards, then it starts again.
SEQUENCE = [0, 3, 0, 2, 1, 0, 0, 4]
CONFIG = f"""
[ejection]
profile = "fixed"
sequence = {json.dumps(SEQUENCE)}
[sim]
cards_per_second = 200.0
block_ms = 3
[timing]
card_crossing_ms = 20
jam_ms = 150
feed_timeout_ms = 300
button_debounce_ms = 5
[motor]
retract_ms = 10
kick_ms = 10
"""

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until(check, timeout: float, what: str) -> None:
    """Poll ``check()`` until it is true; a process that starts has no event to wait on."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise TimeoutError(f"{what} after {timeout} s")


class Stack:
    """One simulated launcher and its table page."""

    def __init__(self, sim: bool = True, web_args: list[str] | None = None,
                 web_descriptors: int | None = None, listen_host: str = "127.0.0.1") -> None:
        self.listen_host = listen_host  # 0.0.0.0: on every address, as on the Pi (the QR has the LAN address)
        self.sim = sim  # False: launcherd on mock pins as if on a Pi, with no simulated mechanism
        self.web_args = web_args or []  # more options of launcher-web (--lang fr)
        self.web_descriptors = web_descriptors  # launcher-web's RLIMIT_NOFILE (None: as inherited)
        # Short: a Unix socket path may not exceed 107 bytes, and pytest's tmp_path can.
        self.dir = Path(tempfile.mkdtemp(prefix="web-", dir="/tmp"))
        self.socket = self.dir / "launcher.sock"
        self.state_dir = self.dir / "state"
        self.config = self.dir / "launcher.toml"
        self.config.write_text(CONFIG)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.daemon: subprocess.Popen | None = None
        self.web: subprocess.Popen | None = None

    def start_daemon(self) -> None:
        mode = ["--sim", "--seed", "1"] if self.sim else []
        pins = {} if self.sim else {"GPIOZERO_PIN_FACTORY": "mock", "GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}
        self.daemon = subprocess.Popen(
            [sys.executable, "-m", "firmware.daemon.launcherd", *mode, "--config", str(self.config),
             "--socket", str(self.socket), "--state-dir", str(self.state_dir)],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "launcherd.log", "ab"), env={**os.environ, **pins})

        def listening() -> bool:
            if self.daemon.poll() is not None:
                raise RuntimeError(f"launcherd exited: {(self.dir / 'launcherd.log').read_text()}")
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(str(self.socket))
                return True
            except OSError:
                return False

        wait_until(listening, 15, "no launcherd socket")

    def stop_daemon(self) -> None:
        if self.daemon is not None and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(10)

    def start_web(self) -> None:
        def limit_descriptors() -> None:
            if self.web_descriptors is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (self.web_descriptors, self.web_descriptors))

        self.web = subprocess.Popen(
            [sys.executable, "-m", "controller.web.server", "--socket", str(self.socket),
             "--listen", f"{self.listen_host}:{self.port}", *self.web_args],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "launcher-web.log", "ab"),
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=limit_descriptors)
        wait_until(lambda: self.get("/api/state")[0] == 200, 15, "launcher-web never reached launcherd")

    def start(self) -> "Stack":
        self.start_daemon()
        self.start_web()
        return self

    def web_log(self) -> str:
        return (self.dir / "launcher-web.log").read_text()

    def code(self) -> str:
        result = subprocess.run([str(Path(sys.executable).with_name("launcherctl")), "--socket",
                                 str(self.socket), "game", "code"], capture_output=True, text=True,
                                timeout=30, check=True)
        return result.stdout.strip()

    def rotate_code(self) -> None:
        subprocess.run([str(Path(sys.executable).with_name("launcherctl")), "--socket", str(self.socket),
                        "game", "code", "--new"], capture_output=True, timeout=30, check=True)

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
        for process in (self.web, self.daemon):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)
