"""Safe-off says when ExecStopPost='s no-Python step (motor-pins-low) drives other pins than the
config names: a pin moved, or the heartbeat fitted, without install.sh run again (issue 37)."""

from __future__ import annotations

from firmware.board.safe_off import native_step_lag
from firmware.config import build_config


def test_the_same_pins_in_any_order_say_nothing(tmp_path):
    written = tmp_path / "motor-pins"
    written.write_text("# written by install.sh\nchip=auto\npins=26 16 12 13\n")
    assert native_step_lag(build_config({}), written) is None


def test_a_heartbeat_fitted_without_a_new_install_is_named(tmp_path):
    # An install whose config said motor_heartbeat = false, the config changed to the gate's pin since.
    written = tmp_path / "motor-pins"
    written.write_text("chip=auto\npins=12 13 16\n")
    lag = native_step_lag(build_config({"pins": {"motor_heartbeat": 26}}), written)
    assert lag == (f"the no-Python step before safe-off ({written}) drives GPIO 12, 13, 16, the config names"
                   " GPIO 12, 13, 16, 26: run sudo systemd/install.sh again")


def test_no_step_installed_is_no_lag(tmp_path):
    assert native_step_lag(build_config({}), tmp_path / "absent") is None
