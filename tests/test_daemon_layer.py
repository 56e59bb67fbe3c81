"""The layer contract (firmware/daemon/layer.py) as the daemon provides it."""

from __future__ import annotations

import json
import socket

import pytest

from harness.launcherd import ThreadDaemon
from harness.waits import HANG_S
from firmware.errors import ApiError


class FakeGame:
    """A game process as launcherd sees it (firmware/daemon/gameport.py): one connection, lines."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.sock.settimeout(HANG_S)
        self.file = self.sock.makefile("rb")
        self.ids = 0

    def send(self, message: dict) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def read(self, wanted) -> dict:
        while True:
            message = json.loads(self.file.readline())
            if wanted(message):
                return message

    def call(self, method: str, params: dict | None = None, **extra) -> dict:
        self.ids += 1
        self.send({"id": self.ids, "method": method, "params": params or {}, **extra})
        return self.read(lambda m: m.get("id") == self.ids)

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def test_a_game_registers_on_the_socket_and_its_replies_are_relayed_as_it_wrote_them(tmp_path):
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 30\n", load_layers=True) as running:
        running.stop_game()  # the harness's own game leaves: this test is the game
        running.wait_for(lambda s: s["game_layer"]["state"] == "down")
        with pytest.raises(ApiError) as refused:
            running.call("game/status")
        assert refused.value.code == ApiError.UNAVAILABLE
        game = FakeGame(running.daemon.socket_path)
        try:
            assert game.call("events/subscribe")["result"] == {"subscribed": True}
            reply = game.call("system/register-game", {"methods": [{"name": "game/echo", "doc": "echo", "params": {
                                                          "any": {"type": "list", "required": True}}}],
                                                      "pid": 1})["result"]
            assert reply["hopper"] == 30 and reply["launcher"]["hopper"] == 30 and isinstance(reply["cause"], int)
            assert "game/echo" in {m["method"] for m in running.call("list_methods")}
            client = FakeGame(running.daemon.socket_path)  # any client: its line as it typed it
            try:
                client.send({"id": "x", "method": "game/echo", "params": {"any": [1, {"deep": True}]}, "lang": "fr"})
                forward = game.read(lambda m: "forward" in m)
                assert (forward["method"], forward["params"], forward["lang"]) == (
                    "game/echo", {"any": [1, {"deep": True}]}, "fr")
                assert forward["cause"] > reply["cause"]
                # The body as the game wrote it, spaces and all: relayed, never decoded.
                game.sock.sendall(b'{"forward":%d,"reply":{"result": {"said" :  "hi"}}}\n' % forward["forward"])
                answer = client.read(lambda m: m.get("id") == "x")
            finally:
                client.close()
            assert answer == {"id": "x", "result": {"said": "hi"}}
            # A launcher event reaches the game with its cause and the launcher's status.
            running.call("launcher/dispense", {"count": 4})
            event = game.read(lambda m: m.get("event") == "launched")
            assert event["launcher"]["hopper"] == 26 and isinstance(event["cause"], int)
            # Only the game's connection may speak as the game.
            with pytest.raises(ApiError):
                running.call("system/publish", {"name": "game/x", "params": {}})
        finally:
            game.close()
        running.wait_for(lambda s: s["game_layer"]["state"] == "down")


def test_a_layer_registers_methods_through_the_host(tmp_path):
    with ThreadDaemon(tmp_path, load_layers=False) as running:
        running.in_loop(running.daemon.register, "layer/echo", lambda p: p, {"text": str})
        assert running.call("layer/echo", {"text": "hi"}) == {"text": "hi"}


def method_names(running: ThreadDaemon) -> set[str]:
    return {m["method"] for m in running.call("list_methods")}


def test_sim_methods_exist_only_in_simulation(tmp_path):
    from firmware.launcher.sim import sim_pin_factory

    for name in ("sim", "pins"):
        (tmp_path / name).mkdir()
    with ThreadDaemon(tmp_path / "sim", load_layers=False) as running:
        assert {"sim/jam", "sim/clear", "sim/lid"} <= method_names(running)
    with ThreadDaemon(tmp_path / "pins", sim=False, pin_factory=sim_pin_factory(), load_layers=False) as running:
        names = method_names(running)
    assert not {n for n in names if n.startswith("sim/")}
    assert {"launcher/press", "launcher/dispense", "system/estop", "status/get"} <= names


def test_the_driver_imports_neither_the_command_line_nor_the_demo():
    import subprocess
    import sys

    code = "import firmware.daemon.driver, sys; print(sorted(m for m in ('firmware.tools.demo', 'firmware.daemon.launcherd') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_the_keeper_judges_every_motion_the_game_connection_asks_by_its_cause_token(tmp_path):
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 30\n") as running:
        running.stop_game()
        running.wait_for(lambda s: s["game_layer"]["state"] == "down")
        game = FakeGame(running.daemon.socket_path)
        try:
            game.call("events/subscribe")
            start = game.call("system/register-game", {"methods": [], "pid": 1})["result"]["cause"]
            # No token, a made-up one, the start's own: none of them is a person's action or press.
            for extra in ({}, {"cause": 10 ** 9}, {"cause": start}):
                refused = game.call("launcher/feed", {"count": 1}, **extra)
                assert refused["error"]["message_object"]["id"] == "keeper_holds", (extra, refused)
            # A person's press (here launcher/launch from another client) is a cause that may move.
            running.call("launcher/launch")
            launched = game.read(lambda m: m.get("event") in ("launched", "ignored"))  # a press either way
            assert "result" in game.call("launcher/feed", {"count": 1}, cause=launched["cause"])
        finally:
            game.close()
        # A person's own call is judged by nobody: launcherd runs it.
        assert running.call("launcher/feed", {"count": 1})["cards"] == 1
