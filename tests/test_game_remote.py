"""controller/layer/remote.py, the game's end of launcherd's socket, against a stand-in launcherd:
what it takes in reaches the game in order, a few lines per turn of its loop."""

import asyncio
import json
import shutil
import socket
import tempfile
import threading
from pathlib import Path

from controller.layer.remote import SocketHost


def test_a_flood_of_events_reaches_the_game_in_order_and_leaves_its_timers_their_turn():
    """The watchdog's beat is a timer on the game's loop: 5,000 launch events arriving at once
    (launches back to back) must not keep it waiting until they are all taken in."""
    directory = Path(tempfile.mkdtemp(prefix="remote-", dir="/tmp"))  # a socket path has 107 bytes
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(directory / "s"))
    server.listen(1)
    lines = b"".join(json.dumps({"event": "launched", "params": {"n": n}, "launcher": {"hopper": 5000 - n}}).encode()
                     + b"\n" for n in range(5000))

    sent = threading.Event()

    def stand_in() -> None:
        connection, _ = server.accept()
        connection.sendall(lines)
        sent.set()
        connection.shutdown(socket.SHUT_WR)
        connection.recv(1)  # until the game closes
        connection.close()

    threading.Thread(target=stand_in, daemon=True).start()

    async def main():
        loop = asyncio.get_running_loop()
        host = SocketHost(directory / "s", directory, loop)
        seen, hoppers = [], []

        def listener(name, params):
            if params["n"] == 0:
                loop.call_soon(seen.append, "a timer's turn")
                sent.wait(30)  # the loop held until launcherd's lines are (nearly) all read in
            seen.append(params["n"])
            hoppers.append(host.hopper)  # the event's own copy: no round trip to a launcherd that never answers
        host.subscribe(listener)
        host.connect()
        await asyncio.wait_for(host.lost.wait(), 30)
        host.close()
        return seen, hoppers

    try:
        seen, hoppers = asyncio.run(main())
    finally:
        server.close()
        shutil.rmtree(directory, ignore_errors=True)
    assert [n for n in seen if n != "a timer's turn"] == list(range(5000))
    assert seen.index("a timer's turn") <= 20
    assert hoppers == [5000 - n for n in range(5000)]
