"""Helpers shared by the benchmark scripts: statistics, /proc readers, launcherd as a subprocess
(the tests' harness, tests/harness/)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PYTHON = sys.executable
BIN = Path(sys.executable).parent

for _path in (ROOT, ROOT / "tests"):  # the firmware, and the harness
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from harness.launcherd import DaemonProcess  # noqa: E402


# ---- the motor's rest and duty rules -------------------------------------------------------------

# The motor's rest and duty rules (firmware/launcher/motor_limits.py) and its coast before a
# reverse, as a section that does not measure them sets them: out of the way. As shipped (a chain
# of runs at most 20 s of on-time, a 3 s rest to end it, at most half of any 60 s on, 30 ms of
# coast after every burst) they made the bench wait more than it measured (about an hour in all,
# 2026-12-04): back-to-back presses, jams and 100,000 launches are what no player does. Only the
# keys of the config launcherd is given change; the daemon and its rules are the ones shipped,
# and bench/rules.py measures the rules themselves.
RULES_FOR_MEASUREMENT = {"timing": {"max_on_ms": 120000, "motor_rest_ms": 100, "max_duty": 1.0},
                         "motor": {"dead_time_ms": 0}}


def for_measurement(config: dict) -> dict:
    """``config`` with the motor's rest and duty rules set out of the way (RULES_FOR_MEASUREMENT)."""
    return {**config, **{section: {**config.get(section, {}), **keys}
                         for section, keys in RULES_FOR_MEASUREMENT.items()}}


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


# ---- launcherd ---------------------------------------------------------------------------------

def unit_nice(unit: str) -> int:
    """The Nice= of one of the product's units (0 when it sets none): what the bench starts beside
    launcherd runs as its unit runs it on a Pi, where the motor's daemon wins a busy CPU."""
    text = (ROOT / "systemd" / unit).read_text()
    return next((int(line.split("=", 1)[1]) for line in text.splitlines() if line.startswith("Nice=")), 0)


def launcherd(directory: Path, config: dict | None = None, **options) -> DaemonProcess:
    """``launcherd --sim`` in ``directory`` (its socket and state there) on ``config`` as given
    (None: launcherd's defaults), its log discarded: what is measured is the daemon alone."""
    return DaemonProcess(directory, config, base="", discard_log=True, **options)


def run_json(script: str, *args: str, timeout: float = 1800) -> dict:
    """Run ``bench/<script>`` with this interpreter; its last stdout line is a JSON result."""
    result = subprocess.run([PYTHON, str(BENCH / script), *args], capture_output=True, text=True,
                            timeout=timeout, cwd=ROOT)
    if result.returncode != 0:
        raise RuntimeError(f"{script} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
