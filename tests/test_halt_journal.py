"""Every halt reaches the journal once, with its reason: the core's own (an e-stop asked of the
core, a stall, the motor's limit) as well as the driver's. A system test's launch once halted
with nothing in the journal to say why."""

from __future__ import annotations

import logging

from firmware import i18n

from harness.launcherd import ThreadDaemon


def halts(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "launcherd" and record.getMessage().startswith("halted: ")]


def test_each_halt_is_logged_once_with_its_reason(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="launcherd")
    with ThreadDaemon(tmp_path) as running:
        running.call("system/estop", {"reason": "cards everywhere"})  # the core halts itself
        running.call("system/reset")
        running.call("system/estop", {"reason": "cards everywhere"})  # a second halt: said again
        running.in_loop(running.daemon.shutdown, i18n.message("halted_internal_error", error="boom"))
        running.in_loop(running.daemon.shutdown, i18n.message("halted_internal_error", error="boom"))
    assert halts(caplog) == ["halted: cards everywhere", "halted: cards everywhere",
                             "halted: internal error: boom"]
