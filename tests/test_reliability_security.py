"""Security: who may talk to launcherd.

launcherd runs here as a real process in a service group (``Popen(group=...)``, the way systemd's
``Group=`` starts it). Then:

- its socket is mode 0660, owned by the daemon's user and the service group;
- a process of another user (``nobody``, forked here and switched with setgid/setuid before it
  connects) cannot even open the socket: the file mode refuses it;
- the same user with the service group as its group is let in and served;
- with the socket opened to everyone (chmod 0666, so that the file mode lets it through), the
  daemon itself refuses the other user from its SO_PEERCRED credentials: the connection is cut
  before any request is read, and the daemon's log names the pid, uid and gid that were refused;
  the daemon goes on serving its group.

Switching users needs root: as anyone else these tests are skipped, saying so.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from harness.launcherd import BIN, write_config
from harness.waits import HANG_S, wait_for_socket, wait_until
from firmware.client import Client

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="needs root: the test forks clients that switch to another uid (nobody)")

SERVICE_GROUPS = ("card-launcher", "gpio", "dialout", "users", "staff")


def _other_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' to act as another user")


def _service_group(stranger: pwd.struct_passwd) -> grp.struct_group:
    """An existing group to run the daemon in, that the other user is not a member of."""
    for name in SERVICE_GROUPS:
        try:
            group = grp.getgrnam(name)
        except KeyError:
            continue
        if group.gr_gid not in (0, stranger.pw_gid) and stranger.pw_name not in group.gr_mem:
            return group
    pytest.skip(f"none of the groups {SERVICE_GROUPS} exists to act as the service group")


@pytest.fixture
def service(tmp_path):
    """launcherd --sim in the service group, its socket in a directory anyone may traverse.

    (pytest's own tmp_path is private to root, so that no other user could reach a socket there.)
    """
    stranger = _other_user()
    group = _service_group(stranger)
    home = Path(tempfile.mkdtemp(prefix="launcher-security-", dir="/tmp"))
    home.chmod(0o755)
    config = write_config(tmp_path)
    log_path = tmp_path / "launcherd.log"
    sock = home / "launcher.sock"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [str(BIN / "launcherd"), "--sim", "--config", str(config), "--socket", str(sock),
             "--state-dir", str(tmp_path / "state")],
            stdout=subprocess.DEVNULL, stderr=log, group=group.gr_gid, extra_groups=[])
    try:
        wait_for_socket(sock)
        assert process.poll() is None, log_path.read_text()
        wait_until(lambda: _game_up(sock), what="the game process registered")
        yield {"socket": sock, "group": group, "stranger": stranger, "process": process, "log": log_path}
    finally:
        process.kill()
        process.wait(HANG_S)
        shutil.rmtree(home, ignore_errors=True)


def _game_up(sock: Path) -> bool:
    with Client(sock, timeout=10) as client:
        return client.call("status/get")["game_layer"]["state"] == "up"


def as_user(uid: int, gid: int, path: Path, request: dict, groups: tuple[int, ...] = ()) -> dict:
    """Fork a child that becomes uid:gid (with only ``groups`` besides), connects, sends one request, reads.

    Returns what the child saw: ``connect`` ("ok" or the error's name), ``reply`` (the reply, or
    how the stream ended), and its ``pid``.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 0
        try:
            os.close(read_end)
            os.setgroups(list(groups))
            os.setgid(gid)
            os.setuid(uid)
            seen: dict = {"uid": os.getuid(), "gid": os.getgid()}
            try:
                with socket.socket(socket.AF_UNIX) as sock:
                    sock.settimeout(5)
                    sock.connect(str(path))
                    seen["connect"] = "ok"
                    sock.sendall(json.dumps(request).encode() + b"\n")
                    data = b""
                    while not data.endswith(b"\n"):
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    seen["reply"] = json.loads(data) if data.endswith(b"\n") else f"closed after {len(data)} bytes"
            except OSError as exc:
                seen.setdefault("connect", type(exc).__name__)
                seen.setdefault("reply", type(exc).__name__)
            os.write(write_end, json.dumps(seen).encode())
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0 and data, "the child failed before it could report"
    return {**json.loads(data), "pid": pid}


def logged_line(log: Path, needle: str, timeout: float = HANG_S) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if needle in line:
                return line
        time.sleep(0.02)
    raise AssertionError(f"{needle!r} not in the daemon's log:\n{log.read_text()}")


def test_the_socket_is_0660_with_the_service_group(service):
    info = os.stat(service["socket"])
    assert stat.S_ISSOCK(info.st_mode)
    assert stat.S_IMODE(info.st_mode) == 0o660
    assert info.st_gid == service["group"].gr_gid  # the daemon's group, not root's
    assert info.st_uid == 0  # the daemon's user (root here, card-launcher under systemd)
    with Client(service["socket"], timeout=10) as client:  # the daemon's own user is served
        assert client.call("status/get")["state"] == "ready"


def test_another_user_cannot_open_the_socket(service):
    stranger = service["stranger"]
    seen = as_user(stranger.pw_uid, stranger.pw_gid, service["socket"], {"id": 1, "method": "status/get"})
    assert seen["uid"] == stranger.pw_uid
    assert seen["connect"] == "PermissionError", seen


def test_the_same_user_in_the_service_group_is_served(service):
    stranger, group = service["stranger"], service["group"]
    seen = as_user(stranger.pw_uid, group.gr_gid, service["socket"], {"id": 1, "method": "status/get"})
    assert seen["connect"] == "ok", seen
    assert seen["reply"]["id"] == 1 and seen["reply"]["result"]["state"] == "ready", seen
    assert "refused API client" not in service["log"].read_text()


def test_a_member_of_the_service_group_by_a_supplementary_group_is_served(service):
    """As launcher-web and launcher-voice are: DynamicUser= with SupplementaryGroups=card-launcher."""
    stranger, group = service["stranger"], service["group"]
    seen = as_user(stranger.pw_uid, stranger.pw_gid, service["socket"], {"id": 1, "method": "status/get"},
                   groups=(group.gr_gid,))
    assert seen["connect"] == "ok", seen
    assert seen["reply"]["id"] == 1 and seen["reply"]["result"]["state"] == "ready", seen
    assert "refused API client" not in service["log"].read_text()


def test_another_user_is_refused_by_peer_credentials_and_logged_with_its_uid(service):
    os.chmod(service["socket"], 0o666)  # the file lets anyone in: SO_PEERCRED is all that is left
    stranger = service["stranger"]
    seen = as_user(stranger.pw_uid, stranger.pw_gid, service["socket"],
                   {"id": 1, "method": "system/estop", "params": {"reason": "intruder"}})
    assert seen["connect"] == "ok", seen  # the kernel let it connect ...
    assert not isinstance(seen["reply"], dict), seen  # ... the daemon cut it off unanswered
    line = logged_line(service["log"], "refused API client")
    assert f"pid {seen['pid']} uid {stranger.pw_uid} gid {stranger.pw_gid}" in line, line
    assert "WARNING" in line
    # Nothing it sent was carried out, and the daemon serves its own as before.
    with Client(service["socket"], timeout=10) as client:
        status = client.call("status/get")
    assert status["state"] == "ready" and status["reason"] is None
    assert service["process"].poll() is None


def test_many_refused_clients_do_not_wear_the_daemon_down(service):
    """Refusals cost nothing that lasts: no client slot, no task, the daemon answers at once."""
    os.chmod(service["socket"], 0o666)
    stranger = service["stranger"]
    for _ in range(20):
        seen = as_user(stranger.pw_uid, stranger.pw_gid, service["socket"], {"id": 1, "method": "status/get"})
        assert not isinstance(seen["reply"], dict), seen
    with Client(service["socket"], timeout=10) as client:
        assert client.call("status/get")["daemon"]["clients"] == 2  # this one and the game process's
    log = service["log"].read_text()
    assert log.count("refused API client") == 20 and "Traceback" not in log
