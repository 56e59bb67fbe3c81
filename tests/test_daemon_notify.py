"""launcherd under systemd's notify protocol, with a real datagram socket made by the test."""

import signal
import socket
import threading
import time

import pytest

from firmware.client import Client
from firmware.daemon.notify import Notifier

from harness.launcherd import DaemonProcess, ThreadDaemon


@pytest.fixture
def notify_socket(tmp_path):
    path = tmp_path / "notify.sock"
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(path))
    yield path, receiver
    receiver.close()


def receive(receiver, timeout):
    receiver.settimeout(timeout)
    try:
        return receiver.recv(4096).decode()
    except (socket.timeout, BlockingIOError):
        return None


def receive_until(receiver, wanted, timeout=60.0):
    """Datagrams up to and including the first one containing ``wanted`` (``timeout`` bounds a hang)."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = receive(receiver, deadline - time.monotonic())
        if message is None:
            break
        seen.append(message)
        if wanted in message.split("\n"):
            return seen
    raise AssertionError(f"{wanted} never came; got {seen}")


def start(tmp_path, notify_path) -> DaemonProcess:
    """launcherd --sim with NOTIFY_SOCKET, not waited for: READY must come on its own."""
    return DaemonProcess(tmp_path, env={"NOTIFY_SOCKET": str(notify_path)}).start(wait=False)


def test_ready_comes_only_once_the_api_answers_and_stopping_on_sigterm(tmp_path, notify_socket):
    notify_path, receiver = notify_socket
    daemon = start(tmp_path, notify_path)
    process, socket_path = daemon.process, daemon.socket
    try:
        receive_until(receiver, "READY=1")
        with Client(socket_path, timeout=60) as client:  # no retry: it listens by READY
            assert client.call("status/get")["state"] == "ready"
        process.send_signal(signal.SIGTERM)
        receive_until(receiver, "STOPPING=1")
        assert process.wait(60) == 0
    finally:
        process.kill()


def test_status_line_follows_the_state(tmp_path, notify_socket):
    notify_path, receiver = notify_socket
    daemon = start(tmp_path, notify_path)
    process, socket_path = daemon.process, daemon.socket
    try:
        receive_until(receiver, "READY=1")
        receive_until(receiver, "STATUS=ready, hopper 112")
        with Client(socket_path, timeout=60) as client:
            client.call("system/estop", {"reason": "test"})
        receive_until(receiver, "STATUS=halted, hopper 112: test")
    finally:
        process.kill()


def test_watchdog_pings_stop_while_the_loop_is_blocked(tmp_path, notify_socket):
    notify_path, receiver = notify_socket
    environ = {"NOTIFY_SOCKET": str(notify_path), "WATCHDOG_USEC": "100000"}  # ping every 50 ms
    with ThreadDaemon(tmp_path, notifier=Notifier.from_environ(environ)) as running:
        receive_until(receiver, "WATCHDOG=1")
        receive_until(receiver, "WATCHDOG=1")
        # Block the loop on purpose, as a hung handler would, until the test has listened: a
        # block of a set time (0.6 s) could end before a busy machine ran the test's listening.
        release = threading.Event()
        block_began = threading.Event()

        def hang():
            block_began.set()
            release.wait(60)

        running.daemon.loop.call_soon_threadsafe(hang)
        try:
            assert block_began.wait(60)
            while receive(receiver, 0.0) is not None:
                pass  # drop pings sent before the block
            assert receive(receiver, 0.3) is None  # the loop sends them: none while it is held
        finally:
            release.set()
        assert "WATCHDOG=1" in receive_until(receiver, "WATCHDOG=1")[-1]  # back once it ends


def test_watchdog_pings_stop_while_the_api_loop_is_blocked(tmp_path, notify_socket):
    """The API server has a loop of its own: a hung one answers no client while the motor's loop
    runs on, so the watchdog is fed only while both answer, and systemd restarts a daemon nobody
    can reach."""
    notify_path, receiver = notify_socket
    environ = {"NOTIFY_SOCKET": str(notify_path), "WATCHDOG_USEC": "100000"}  # ping every 50 ms
    with ThreadDaemon(tmp_path, notifier=Notifier.from_environ(environ)) as running:
        receive_until(receiver, "WATCHDOG=1")
        release = threading.Event()
        block_began = threading.Event()

        def hang():
            block_began.set()
            release.wait(120)

        running.daemon.api.loop.call_soon_threadsafe(hang)
        try:
            assert block_began.wait(60)
            # The beat taken last before the block ages past two periods: then the pings stop
            # (within a bound on a hang: a busy machine may run the motor's loop seconds late).
            deadline = time.monotonic() + 60
            while receive(receiver, 0.3) is not None:
                assert time.monotonic() < deadline, "the pings never stopped"
            assert running.daemon.core.get_status()["state"] == "ready"  # the motor's loop runs on
        finally:
            release.set()
        assert "WATCHDOG=1" in receive_until(receiver, "WATCHDOG=1")[-1]  # back once it answers
