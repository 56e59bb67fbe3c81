"""Who is at the other end of an API connection, and whether it may use the API.

The socket's mode (0660, the service group's) is the first gate; these checks, on each connection's
peer credentials, are the second.
"""

from __future__ import annotations

import grp
import os
import pwd
import socket
import struct


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket (SO_PEERCRED)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", raw)


# Linux's SO_PEERGROUPS (4.13 and later), for which Python has no name.
SO_PEERGROUPS = getattr(socket, "SO_PEERGROUPS", 59)


def peer_groups(sock: socket.socket) -> tuple[int, ...]:
    """The supplementary groups of the process at the other end; empty where the kernel cannot say.

    A client that is a member of the service group only through SupplementaryGroups= (launcher-web
    and launcher-voice run as DynamicUser= with it) is known by these, not by its primary group.
    """
    try:  # 1024 bytes, Python's limit: 256 groups; a peer in more is judged by its primary group
        raw = sock.getsockopt(socket.SOL_SOCKET, SO_PEERGROUPS, 1024)
    except OSError:
        return ()
    return struct.unpack(f"{len(raw) // 4}I", raw)


def may_connect(uid: int, gid: int, groups: tuple[int, ...] = ()) -> bool:
    """Root, our own user, and members of our group (the service group) may use the API."""
    if uid in (0, os.getuid()) or gid == os.getgid() or os.getgid() in groups:
        return True
    try:
        name = pwd.getpwuid(uid).pw_name
        return name in grp.getgrgid(os.getgid()).gr_mem
    except KeyError:
        return False
