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
