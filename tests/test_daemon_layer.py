"""The layer contract (firmware/layer.py) as the daemon provides it."""

from __future__ import annotations

from conftest import ThreadDaemon
from firmware.layer import LayerHost


def test_the_daemon_is_a_layer_host_with_a_cheap_hopper_and_the_core_status(tmp_path):
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 30\n", load_layers=False) as running:
        daemon = running.daemon
        assert isinstance(daemon, LayerHost)
        calls = []
        running.in_loop(daemon.add_status, "costly", lambda: calls.append(1) or {"built": True})
        running.call("launcher/dispense", {"count": 4})
        assert running.in_loop(lambda: daemon.hopper) == 26
        core = running.in_loop(daemon.launcher_status)
        assert core["hopper"] == 26 and "costly" not in core and calls == []
        assert running.call("status/get")["costly"] == {"built": True}  # get_status keeps every layer's


def test_a_layer_registers_methods_through_the_host(tmp_path):
    with ThreadDaemon(tmp_path, load_layers=False) as running:
        running.in_loop(running.daemon.register, "layer/echo", lambda p: p, {"text": str})
        assert running.call("layer/echo", {"text": "hi"}) == {"text": "hi"}


def method_names(running: ThreadDaemon) -> set[str]:
    return {m["method"] for m in running.call("list_methods")}


def test_sim_methods_exist_only_in_simulation(tmp_path):
    from firmware.sim import sim_pin_factory

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

    code = "import firmware.daemon, sys; print(sorted(m for m in ('firmware.demo', 'firmware.launcherd') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
