"""The layer contract (firmware/daemon/layer.py) as the daemon provides it."""

from __future__ import annotations

from harness.launcherd import ThreadDaemon
from firmware.daemon.layer import LayerHost


def test_the_game_layer_gets_a_door_with_a_cheap_hopper_and_the_core_status(tmp_path):
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 30\n") as running:
        door = running.daemon.game_host.door
        assert isinstance(door, LayerHost)
        calls = []
        door.post(door.add_status, "costly", lambda: calls.append(1) or {"built": True})  # on its loop
        running.call("launcher/dispense", {"count": 4})
        assert door.hopper == 26  # asked from this thread, answered by the motor's loop
        core = door.launcher_status()
        assert core["hopper"] == 26 and "costly" not in core
        assert running.call("status/get")["costly"] == {"built": True}  # the layer's last snapshot
        assert calls and all(isinstance(n, int) for n in calls)


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


def test_a_reading_leaves_the_status_snapshot_as_it_is_and_a_change_takes_it_again(tmp_path):
    # Four clients reading statistics without pause made the game thread take the whole status
    # snapshot, in every language, once per reading: GIL time the motor's thread waited behind.
    import time
    from concurrent.futures import ThreadPoolExecutor

    with ThreadDaemon(tmp_path, "[sim]\nhopper = 30\n") as running:
        door = running.daemon.game_host.door
        taken = []
        changes = []
        door.post(door.add_status, "probe", lambda: taken.append(1) or {"changes": len(changes)})
        door.post(door.register, "probe/read", lambda p: {"changes": len(changes)}, None, "", lambda: len(changes))
        door.post(door.register, "probe/change", lambda p: changes.append(1) or {"changes": len(changes)})
        deadline = time.monotonic() + 10
        while not {"probe/read", "probe/change"} <= {m["method"] for m in running.call("list_methods")}:
            assert time.monotonic() < deadline, "the layer's methods were never registered"
        running.call("probe/change")
        assert running.call("status/get")["probe"] == {"changes": 1}
        before = len(taken)

        def read() -> list:
            with running.client() as client:
                return [client.call("probe/read") for _ in range(5)]  # four of them: the pace's burst
        with ThreadPoolExecutor(4) as readers:  # side by side, as four pages reading would
            replies = [reply for replies in readers.map(lambda _: read(), range(4)) for reply in replies]
        assert replies == [{"changes": 1}] * 20
        assert running.call("status/get")["probe"] == {"changes": 1}
        assert len(taken) == before, "a reading took the status snapshot again"
        running.call("probe/change")
        assert running.call("status/get")["probe"] == {"changes": 2}  # a change is shown at once
        assert len(taken) > before
