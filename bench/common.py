"""Helpers shared by the benchmark scripts: statistics, /proc readers, launcherd as a subprocess."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PYTHON = sys.executable
BIN = Path(sys.executable).parent
LAUNCHERD = str(BIN / "launcherd")

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---- statistics ------------------------------------------------------------------------------

def percentile(values, q: float) -> float:
    """The q-th percentile (0-100), linear between closest ranks (numpy's default)."""
    data = sorted(values)
    if not data:
        raise ValueError("no samples")
    if len(data) == 1:
        return float(data[0])
    pos = (len(data) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(data) - 1)
    return float(data[low] + (data[high] - data[low]) * (pos - low))


def median(values) -> float:
    return percentile(values, 50)


# ---- /proc -----------------------------------------------------------------------------------

def cpu_ticks(pid: int) -> int:
    """utime + stime of the whole process (all threads, live and exited), in clock ticks."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)


def _status_field(path: Path, key: str) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def voluntary_switches(pid: int) -> dict[int, int]:
    """voluntary_ctxt_switches of every live thread, by thread id."""
    counts = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            counts[int(task.name)] = _status_field(task / "status", "voluntary_ctxt_switches")
        except (FileNotFoundError, ProcessLookupError):
            pass  # the thread ended while we looked
    return counts


def rss_kb(pid: int) -> int:
    return _status_field(Path(f"/proc/{pid}/status"), "VmRSS")


def thread_count(pid: int) -> int:
    return _status_field(Path(f"/proc/{pid}/status"), "Threads")


# ---- configuration and launcherd -------------------------------------------------------------

def toml(sections: dict) -> str:
    lines = []
    for section, body in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in body.items()]
    return "\n".join(lines) + "\n"


def write_config(directory: Path, sections: dict) -> Path:
    path = directory / "launcher.toml"
    path.write_text(toml(sections))
    return path


def wait_for_socket(path: Path, process: subprocess.Popen, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"launcherd exited with {process.returncode}")
        if path.exists():
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(str(path))
                return
            except OSError:
                pass
        time.sleep(0.02)
    raise TimeoutError(f"no socket at {path} after {timeout} s")


class Launcherd:
    """``launcherd --sim`` as a subprocess in ``directory`` (its socket and state there)."""

    def __init__(self, directory: Path, config: dict | None = None, seed: int = 7,
                 env: dict | None = None, state_dir: Path | None = None):
        self.directory = directory
        self.socket = directory / "launcher.sock"
        self.state_dir = state_dir or directory / "state"
        self.argv = [LAUNCHERD, "--sim", "--seed", str(seed), "--socket", str(self.socket),
                     "--state-dir", str(self.state_dir)]
        if config is not None:
            self.argv += ["--config", str(write_config(directory, config))]
        # Not under systemd: no notify socket and so no watchdog pings, unless the caller asks.
        self.env = dict(os.environ)
        for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"):
            self.env.pop(key, None)
        self.env.update(env or {})
        self.process: subprocess.Popen | None = None

    def start(self, wait: bool = True) -> "Launcherd":
        self.process = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                        env=self.env)
        if wait:
            wait_for_socket(self.socket, self.process)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    def client(self, timeout: float = 60.0):
        from firmware.tools.cli import Client
        return Client(self.socket, timeout=timeout)

    def stop(self, timeout: float = 10.0) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)

    def __enter__(self) -> "Launcherd":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def run_json(script: str, *args: str, timeout: float = 1800) -> dict:
    """Run ``bench/<script>`` with this interpreter; its last stdout line is a JSON result."""
    result = subprocess.run([PYTHON, str(BENCH / script), *args], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"{script} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
