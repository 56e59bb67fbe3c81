"""The motor loop's thread asks Linux for a short scheduler slice, so that woken by an edge it
preempts a busy thread at once (EEVDF's custom slices, Linux 6.12 and later)."""

from __future__ import annotations

import logging
import platform
import re
import threading
from pathlib import Path

import pytest

from harness.launcherd import ThreadDaemon

from firmware.daemon import motorloop


def kernel_at_least(major: int, minor: int) -> bool:
    found = re.match(r"(\d+)\.(\d+)", platform.release())
    return bool(found) and (int(found[1]), int(found[2])) >= (major, minor)


def slice_ns(native_id: int) -> int | None:
    """The thread's scheduler slice from /proc (a kernel with scheduler debugging), or None."""
    try:
        text = Path(f"/proc/self/task/{native_id}/sched").read_text()
    except OSError:
        return None
    found = re.search(r"^se\.slice\s*:\s*(\d+)", text, re.MULTILINE)
    return int(found[1]) if found else None


needs_custom_slices = pytest.mark.skipif(
    not kernel_at_least(6, 12) or slice_ns(threading.get_native_id()) is None,
    reason="custom scheduler slices (Linux 6.12) and /proc/<pid>/sched's se.slice")


def in_a_thread(function):
    """``function()`` in a thread of its own (a slice stays with its thread); its result and the
    thread's slice afterwards."""
    result = {}

    def run() -> None:
        result["returned"] = function()
        result["slice"] = slice_ns(threading.get_native_id())

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return result["returned"], result["slice"]


@needs_custom_slices
def test_the_calling_thread_gets_the_short_slice_and_the_others_keep_theirs():
    before = slice_ns(threading.get_native_id())
    taken, after = in_a_thread(motorloop.ask_short_slice)
    assert taken is True and after == motorloop.MOTOR_LOOP_SLICE_NS
    assert slice_ns(threading.get_native_id()) == before


@needs_custom_slices
def test_the_daemons_loop_thread_runs_with_the_short_slice(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        ident = running.daemon._loop_thread
        native = next(thread.native_id for thread in threading.enumerate() if thread.ident == ident)
        assert slice_ns(native) == motorloop.MOTOR_LOOP_SLICE_NS


def test_where_the_system_call_is_unknown_nothing_changes_but_a_line_in_the_log(monkeypatch, caplog):
    monkeypatch.setattr(platform, "machine", lambda: "sparc64")
    with caplog.at_level(logging.INFO, logger="firmware.daemon.motorloop"):
        taken, _ = in_a_thread(motorloop.ask_short_slice)
    assert taken is False
    assert "no short scheduler slice" in caplog.text


def test_a_refused_request_is_said_and_never_raised(monkeypatch, caplog):
    # A kernel without the call (or a seccomp filter) answers ENOSYS: here, a number no kernel has.
    monkeypatch.setitem(motorloop.SCHED_SETATTR, platform.machine(), 100_000)
    with caplog.at_level(logging.INFO, logger="firmware.daemon.motorloop"):
        taken, _ = in_a_thread(motorloop.ask_short_slice)
    assert taken is False
    assert "kept the motor loop's scheduler slice" in caplog.text
