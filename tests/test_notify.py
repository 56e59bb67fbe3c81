"""firmware.daemon.notify against real AF_UNIX datagram sockets standing in for systemd."""

from __future__ import annotations

import logging
import os
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path

import pytest

from firmware.daemon.notify import Notifier


@pytest.fixture
def short_dir():
    # AF_UNIX paths are limited to 108 bytes: pytest's tmp_path can be longer than that.
    with tempfile.TemporaryDirectory(prefix="notify") as name:
        yield Path(name)


@pytest.fixture
def receiver(short_dir):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = short_dir / "notify.sock"
    sock.bind(str(path))
    sock.settimeout(2)
    yield sock, str(path)
    sock.close()


@pytest.fixture
def abstract_receiver():
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"card-launcher-test-{uuid.uuid4().hex}"
    sock.bind("\0" + name)
    sock.settimeout(2)
    yield sock, "@" + name
    sock.close()


def fill_queue(notifier: Notifier) -> int:
    """Send until the receiver's queue is full; return how many fitted."""
    sent = 0
    while notifier.watchdog():
        sent += 1
        assert sent < 10_000, "the queue never filled"
    return sent


def drain(sock: socket.socket) -> list[bytes]:
    sock.setblocking(False)
    messages = []
    try:
        while True:
            messages.append(sock.recv(4096))
    except BlockingIOError:
        return messages


def test_from_environ_without_notify_socket_is_none():
    assert Notifier.from_environ({}) is None
    assert Notifier.from_environ({"NOTIFY_SOCKET": ""}) is None


def test_from_environ_with_unsupported_address_is_none_and_says_why(caplog):
    with caplog.at_level(logging.WARNING, logger="firmware.daemon.notify"):
        assert Notifier.from_environ({"NOTIFY_SOCKET": "vsock:2:1234"}) is None
    assert "vsock:2:1234" in caplog.text


def test_messages_arrive_on_a_path_socket(receiver):
    sock, path = receiver
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": path})
    assert notifier is not None and notifier.address == path

    assert notifier.ready("ready, hopper 112")
    assert sock.recv(4096) == b"READY=1\nSTATUS=ready, hopper 112"
    assert notifier.ready()
    assert sock.recv(4096) == b"READY=1"
    assert notifier.status("launching, hopper 109")
    assert sock.recv(4096) == b"STATUS=launching, hopper 109"
    assert notifier.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert notifier.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_messages_arrive_on_an_abstract_socket(abstract_receiver):
    sock, address = abstract_receiver
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": address})
    assert notifier.ready("ready")
    assert sock.recv(4096) == b"READY=1\nSTATUS=ready"
    assert notifier.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"


def test_send_uppercases_keys_spells_booleans_and_keeps_one_line_per_field(receiver):
    sock, path = receiver
    notifier = Notifier(path)
    assert notifier.send(ready=True, status="jammed\nclear the slot", errno=5)
    assert sock.recv(4096) == b"READY=1\nSTATUS=jammed clear the slot\nERRNO=5"


def test_periodic_sends_never_wait_on_a_full_queue(receiver, caplog):
    sock, path = receiver
    notifier = Notifier(path, timeout=600)
    with caplog.at_level(logging.WARNING, logger="firmware.daemon.notify"):
        assert fill_queue(notifier) > 0
        started = time.monotonic()
        assert notifier.watchdog() is False
        assert notifier.status("still here") is False
        # Far less than one timeout (600 s): neither send waited on it. A bound on a hang: the
        # 4 s it was (of a 5 s timeout) is a stall a busy machine can make by itself.
        assert time.monotonic() - started < 60, "a periodic send waited on the full queue"
    assert len(caplog.records) == 1, "a failing notifier must log once, not on every ping"


def test_one_off_sends_give_up_after_the_timeout(receiver, caplog):
    sock, path = receiver
    notifier = Notifier(path, timeout=0.05)
    fill_queue(notifier)
    with caplog.at_level(logging.WARNING, logger="firmware.daemon.notify"):
        started = time.monotonic()
        assert notifier.ready("ready") is False
        assert notifier.stopping() is False
        elapsed = time.monotonic() - started
    assert 0.09 <= elapsed < 10  # both waited their timeout, and gave up (the bound is a hang's)
    assert len(caplog.records) == 1


def test_one_off_sends_wait_for_room_in_the_queue(receiver):
    sock, path = receiver
    notifier = Notifier(path, timeout=60)  # a bound on a hang: the reader's thread may start late
    queued = fill_queue(notifier)
    # systemd reads one datagram a little later: READY=1 must take the freed place, not be lost.
    reader = threading.Timer(0.05, sock.recv, args=(4096,))
    reader.start()
    try:
        assert notifier.ready("ready") is True
    finally:
        reader.join()
    messages = drain(sock)
    assert len(messages) == queued
    assert messages[-1] == b"READY=1\nSTATUS=ready"


def test_a_vanished_receiver_is_reported_once_and_never_raises(short_dir, caplog):
    path = short_dir / "gone.sock"
    refused = short_dir / "refused.sock"
    # A socket file with nobody bound to it any more: ECONNREFUSED rather than ENOENT.
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    stale.bind(str(refused))
    stale.close()
    with caplog.at_level(logging.WARNING, logger="firmware.daemon.notify"):
        for address in (str(path), str(refused)):
            notifier = Notifier(address)
            assert notifier.ready() is False
            assert notifier.watchdog() is False
            assert notifier.stopping() is False
    assert [record.levelno for record in caplog.records] == [logging.WARNING, logging.WARNING]


def test_close_stops_sending_and_is_idempotent(receiver):
    sock, path = receiver
    notifier = Notifier(path)
    notifier.close()
    notifier.close()
    assert notifier.watchdog() is False
    assert drain(sock) == []


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"WATCHDOG_USEC": "5000000"}, 2.5),
        ({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": str(os.getpid())}, 2.5),
        ({"WATCHDOG_USEC": "5000000", "WATCHDOG_PID": str(os.getpid() + 1)}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
    ],
)
def test_watchdog_interval_is_half_of_watchdog_usec_for_this_process(environ, expected):
    notifier = Notifier.from_environ({"NOTIFY_SOCKET": "/run/systemd/notify", **environ})
    assert notifier.watchdog_interval() == expected
