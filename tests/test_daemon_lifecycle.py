"""launcherd as a process: signals, one daemon per socket and per state dir, the pin factory."""

from __future__ import annotations

import signal
import sys
import types

import pytest

from harness.launcherd import DaemonProcess, ThreadDaemon
from firmware.client import Client
from firmware.errors import ApiError, HardwareError
from firmware.launcher.sim import sim_pin_factory

LONG_DISPENSE = "[sim]\ncards_per_second = 20.0\nhopper = 10000\n[timing]\nfeed_timeout_ms = 400\n"


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"])
def test_a_signal_mid_dispense_stops_the_motor_answers_the_caller_and_exits_cleanly(daemon_process, sig):
    proc = daemon_process(LONG_DISPENSE)
    with proc.client() as client:
        request = client.send("launcher/dispense", {"count": 200})
        with proc.client() as probe:
            while not probe.call("status/get")["motor"]["on"]:
                pass
        proc.process.send_signal(getattr(signal, sig))
        reply = next(m for m in client.messages() if m.get("id") == request)
    assert reply["error"]["code"] == ApiError.UNAVAILABLE
    assert "stopped before launcher/dispense finished" in reply["error"]["message"]
    assert proc.process.wait(10) == 0
    log = proc.process.stderr.read()
    assert f"{sig}: motor stopped; stopping" in log
    assert "Traceback" not in log and "CancelledError" not in log
    assert not proc.socket.exists()


def test_a_second_daemon_on_the_same_state_dir_refuses_to_start(tmp_path, daemon_process):
    first = daemon_process()
    second = DaemonProcess(tmp_path, socket_path=tmp_path / "other.sock", state_dir=first.state_dir)
    result = second.run_to_exit()
    assert result.returncode == 1
    assert f"is using the state dir {first.state_dir}" in result.stderr
    assert f"pid {first.process.pid}" in result.stderr
    assert first.call("status/get")["state"] == "ready"


def test_a_second_daemon_on_the_same_socket_refuses_and_leaves_it_alone(tmp_path, daemon_process):
    first = daemon_process()
    second = DaemonProcess(tmp_path, state_dir=tmp_path / "other-state")
    result = second.run_to_exit()
    assert result.returncode == 1
    assert f"another launcherd is already answering on {first.socket}" in result.stderr
    assert first.call("status/get")["state"] == "ready"


def test_a_killed_daemon_leaves_nothing_that_stops_the_next(daemon_process):
    first = daemon_process()
    first.kill()
    assert first.socket.exists()  # SIGKILL: nothing cleaned up
    second = daemon_process()
    assert second.call("status/get")["state"] == "ready"


def test_a_regular_file_at_the_socket_path_is_refused(tmp_path):
    proc = DaemonProcess(tmp_path)
    proc.socket.write_text("not a socket")
    result = proc.run_to_exit()
    assert result.returncode == 1
    assert "is a regular file, not a socket" in result.stderr
    assert proc.socket.read_text() == "not a socket"


class FakeLgpio:
    """Stands in for gpiozero.pins.lgpio: records the chip, hands out mock pins."""

    def __init__(self):
        self.chips = []

    def LGPIOFactory(self, chip=0):  # noqa: N802 - gpiozero's name
        self.chips.append(chip)
        return sim_pin_factory()


def test_the_configured_chip_reaches_lgpio(tmp_path, monkeypatch):
    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=fake.LGPIOFactory))
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    with ThreadDaemon(tmp_path, "[pins]\nchip = 4\n", sim=False, load_layers=False) as running:
        assert running.call("status/get")["state"] == "ready"
    assert fake.chips == [4]


def test_lgpio_asked_for_but_missing_is_a_hardware_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)  # import fails
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    running = ThreadDaemon(tmp_path, sim=False, load_layers=False)
    with pytest.raises(HardwareError, match="GPIOZERO_PIN_FACTORY=lgpio but lgpio cannot be imported"):
        running.__enter__()


def test_the_start_says_where_the_game_state_is_kept(daemon_process):
    proc = daemon_process()
    proc.terminate()
    assert f"state in {proc.state_dir}" in proc.process.stderr.read()


def test_launcherd_maps_no_openssl_and_speaks_its_own_texts_in_both_languages(daemon_process):
    """launcherd serves a Unix socket and speaks no TLS: OpenSSL (3.3 MiB of its memory through
    ssl or hashlib) is never loaded, and its own texts still render in English and French. Nor
    unicodedata (0.25 MiB), which only reading a card's name needs (where the interpreter has it
    as a module of its own)."""
    proc = daemon_process(args=("--no-game",))
    with Client(proc.socket, timeout=30, lang="en") as client:
        english = client.call("status/get")
    with Client(proc.socket, timeout=30, lang="fr") as client:
        french = client.call("status/get")
    mapped = open(f"/proc/{proc.process.pid}/maps").read()
    assert "libcrypto" not in mapped and "libssl" not in mapped
    assert "unicodedata" not in mapped
    assert english["game_layer"]["reason_object"] == french["game_layer"]["reason_object"]
    assert english["game_layer"]["reason"] and french["game_layer"]["reason"]
    assert english["game_layer"]["reason"] != french["game_layer"]["reason"]
