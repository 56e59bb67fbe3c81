"""What firmware says (launcherd, launcherctl, the dealer, bring-up and calibration), as data.

Each entry is a message id, its English source and its parameters' kinds
(:mod:`firmware.text.catalogue`); the translations are ``locale/<lang>/LC_MESSAGES/firmware.po``.
launcherd renders these without the game installed; the game's texts are its own
(controller/text/messages.py), and a message of either side may carry the other's.

Maintenance: after changing an entry, regenerate the template with
``python -m firmware.text.messages > firmware/text/locale/firmware.pot``, merge it into the languages
with ``pybabel update``, and translate what is new; ``tests/test_messages.py`` fails until every id
is translated in every language.
"""

from __future__ import annotations

import sys
from pathlib import Path

from firmware.text.catalogue import Catalogue, Text, entry

# Words that are parameters of the messages below: how a launch ended, the launcher's states, how a
# press came out, which way the motor turns.
WORDS: dict[str, Text] = {
    "ended:timeout": entry("timeout"),
    "ended:jam": entry("jam"),
    "ended:lid": entry("lid"),
    "ended:empty": entry("empty"),
    "ended:done": entry("done"),
    "ended:halt": entry("halt"),
    "ended:refused": entry("refused"),
    "ended:motor_limit": entry("motor_limit"),
    "ended:sleep": entry("sleep"),
    "ended:cancelled": entry("cancelled"),
    # The launcher's states, and why a press was ignored (a state, or one of these).
    **{f"state:{state}": entry(state) for state in (
        "ready", "launching", "jammed", "empty", "lid_open", "sleeping", "halted", "bench", "jogging",
        "beam_blocked", "firing", "starting", "decision_pending")},
    # How a press or an insertion came out, and which way the motor turns (launcherctl status).
    **{f"outcome:{outcome}": entry(outcome) for outcome in ("dry", "burst", "dispense", "draw", "empty", "safe", "blast")},
    # The ejection profiles ([ejection] profile) and the blaster's ([blaster] profile).
    **{f"profile:{profile}": entry(profile) for profile in ("classic", "schedule", "tension", "extreme", "fixed",
                                                            "trigger", "rising")},
    "motor_direction:forward": entry("forward"),
    "motor_direction:reverse": entry("reverse"),
}

# What the launcher says (firmware/launcher/core.py, firmware/tools/cli.py).
LAUNCHER: dict[str, Text] = {
    "no_card_hopper_empty": entry("no card came out: the hopper is empty, reload it"),
    "halted_beam_sees_no_cards": entry(
        "the exit sensor sees no cards: %(runs)d motor run counted none with cards in the hopper;"
        " check the break-beam's wiring, then reset",
        "the exit sensor sees no cards: %(runs)d motor runs in a row counted none with cards in the"
        " hopper; check the break-beam's wiring, then reset", "runs", runs="int"),
    "stalled": entry("the daemon was stalled for %(seconds)s s; motor stopped", seconds="seconds"),
    "motor_needs_rest": entry("the motor needs %(seconds)s s of rest", seconds="seconds"),
    "motor_duty_window": entry("the motor may run %(share)s of any %(window)s s; wait %(seconds)s s",
                               share="percent", window="seconds", seconds="seconds"),
    "refused_count": entry("count must be a whole number of at least 1"),
    "refused_press_means": entry("a press means policy, cards (with their count) or nothing (with a message saying why)"),
    "press_game_starting": entry("the game is starting: a press does nothing until it says what a press means"),
    "refused_cards": entry("cards must be a whole number of at least 0"),
    "refused_cards_or_unknown": entry("cards must be a whole number of at least 0, or None (unknown)"),
    "refused_duty": entry("duty must be a number from %(minimum)s to 1", minimum="number"),
    "refused_direction": entry("direction must be forward or reverse"),
    "refused_ms": entry("ms must be a whole number of at least 1"),
    "refused_seconds": entry("seconds must be a number from 0 to 3600"),
    "refused_sleep": entry("sleep only from ready or empty"),
    "refused_not_sleeping": entry("not sleeping"),
    "refused_not_halted": entry("not halted"),
    "refused_nothing_pending": entry("nothing waits for a press"),
    "refused_pending": entry("the motor does not move while something waits for a press (%(what)s): press"
                             " the button or resume first", what="text"),
    "refused_resume_state": entry("the launcher cannot go on yet: clear the jam, close the lid or reset it first"),
    "refused_retract": entry("a reverse pulse needs the launcher ready and the motor still"),
    "refused_no_retract": entry("[motor] retract_ms is 0"),
    "refused_jog_state": entry("a jog needs the launcher ready (or empty) and the motor still"),
    "refused_beam_blocked": entry("the beam is blocked: clear the slot first"),
    "refused_no_standby": entry("no standby pin is fitted ([pins] motor_enable = false)"),
    "refused_jog_too_long": entry("longer than [timing] max_on_ms (%(ms)d)", ms="int"),
    "refused_in_state": entry("%(reason)s (state %(state)s)", reason="text", state="state"),
    "refused_unknown_event": entry("unknown event"),
    # firmware/blaster/core.py
    "refused_sleep_blaster": entry("sleep only from ready"),
    "refused_slot_number": entry("slots are numbered 1 to %(slots)d", slots="int"),
    "refused_slot_levels": entry("%(slots)d slot levels expected, not %(levels)d", slots="int",
                                 levels="int"),
    # firmware/daemon/driver.py, firmware/daemon/methods.py
    "halted_internal_error": entry("internal error: %(error)s", error="raw"),
    "halted_device_error": entry("device error: %(error)s", error="raw"),
    "halted_after_crash": entry("launcherd ended while the motor may have been running: check the launcher,"
                                " then reset"),
    "halted_latch_damaged": entry("the latch file in the state dir was damaged, so the last faults are unknown:"
                                  " check the launcher, then reset"),
    "no_outcome": entry("no outcome from the launcher in time"),
    # firmware/daemon/gameport.py: the game process, as launcherd sees it
    "game_layer_starting": entry("the game layer is starting"),
    "game_layer_died": entry("the game layer stopped (%(error)s): it is being restarted; the launcher"
                             " works meanwhile", error="raw"),
    "game_layer_failed": entry("the game layer could not start (%(error)s): it is tried again; the"
                               " launcher works meanwhile", error="raw"),
    "game_layer_stopping": entry("launcherd is stopping: the game layer no longer answers"),
    # firmware/daemon/gameport.py: the game process, as launcherd sees it
    "game_layer_replaced": entry("a newer game process registered: this one no longer answers"),
    "game_layer_no_answer": entry("the game did not answer within %(seconds)s s: it is being restarted;"
                                  " the launcher works meanwhile", seconds="seconds"),
    "game_connection_closed": entry("its connection closed"),
    "press_game_away": entry("the game is away: a press does nothing until it is back"),
    "press_needs_sim": entry("launcher/press drives the simulated button; on a Pi press the real one or"
                             " use launcher/launch"),
    "blaster_no_aim": entry("the card blaster has no aim servo"),
    "no_aim_servo": entry("no aim servo is configured ([pins] servo)"),
    "aim_needs_angle_or_seat": entry("launcher/aim needs angle, or seat < seats"),
    "aim_not_halted": entry("the launcher is halted: the aim servo does not turn until it is reset"),
    "aim_not_lid_open": entry("the lid is open: the aim servo does not turn until it is closed"),
    "aim_not_pending": entry("the aim servo does not turn while something waits for a press (%(what)s)",
                             what="text"),
    # firmware/extras/dealer.py: what a dispense waits for, and why it ended
    "dispense_waiting_jam": entry("a card is stuck in the slot: pull it out"),
    "dispense_waiting_lid": entry("the lid is open"),
    "dispense_waiting_empty": entry("the hopper is empty: reload it"),
    "dispense_waiting_busy": entry("the launcher is busy"),
    "dispense_busy_because": entry("the launcher is busy (%(reason)s)", reason="state"),
    "dispense_cancelled": entry("cancelled: what it was dealing for is over"),
    "dispense_waiting_press": entry(
        "%(after)s: press the button to go on (%(count)d card left to deal)",
        "%(after)s: press the button to go on (%(count)d cards left to deal)", "count",
        after="text", count="int"),
    "after_jam": entry("the jam is cleared"),
    "after_lid": entry("the lid is closed"),
    "after_reload": entry("the hopper is reloaded"),
    "after_rest": entry("the motor has rested"),
    "after_restart": entry("the launcher has restarted"),
    "after_reset": entry("the launcher was reset"),
    "after_beam": entry("the slot is clear"),
    "after_undo": entry("an action was undone"),
    "after_resume": entry("a match was resumed"),
    "after_abandon": entry("the match was set aside"),
    "after_repair": entry("the game's log was repaired"),
    "after_layer_restart": entry("the game has restarted"),
    "after_unrelated": entry("nothing at the table asked for these cards"),
    "keeper_holds": entry("%(after)s: the motor moves only at a person's press", after="text"),
    "dispense_no_card_timeout": entry("no card came out before the launch timeout"),
    "dispense_misfeed_retry": entry("misfeed: retry %(retry)d of %(retries)d", retry="int", retries="int"),
    "dispense_reload": entry("no card came out: reload the hopper"),
    "dispense_misfeeds": entry("no card came out %(times)d times in a row: check the hopper, reload",
                               times="int"),
    "dispense_halted": entry("the launcher halted: %(reason)s", reason="text"),
    "dispense_launcher_halted": entry("the launcher halted"),
    "dispense_is_halted": entry("the launcher is halted"),
    "daemon_stopping": entry("launcherd is stopping"),
    # firmware/extras/bringup.py
    "still_starting": entry("launcherd is still starting"),
    "no_answer_in_time": entry("no answer from the launcher in time"),
    "not_fitted": entry("no %(name)s is fitted ([pins] %(name)s = false)", name="raw"),
    "no_aim_servo_fitted": entry("no aim servo is fitted ([pins] servo = false)"),
    "calibration_not_started": entry("calibration feed not started: %(reason)s", reason="text"),
    "press_woke": entry("the launcher was asleep: that press woke it (press again to launch)"),
    "press_resumed": entry("that press let what was waiting go on (no cards of its own)"),
    "press_ignored": entry("press ignored: %(reason)s", reason="state"),
    "press_dry": entry("press %(press_id)d: nothing came out", press_id="int"),
    "press_empty": entry("press %(press_id)d: the hopper is empty: reload it (launcherctl reload N)",
                         press_id="int"),
    "press_out": entry("press %(press_id)d: %(cards)d card out", "press %(press_id)d: %(cards)d cards out",
                       "cards", press_id="int", cards="int"),
    "press_out_asked": entry(
        "press %(press_id)d: %(cards)d card out (asked for %(requested)d)",
        "press %(press_id)d: %(cards)d cards out (asked for %(requested)d)",
        "cards", press_id="int", cards="int", requested="int"),
    "press_out_ended": entry(
        "press %(press_id)d: %(cards)d card out; ended by %(ended)s",
        "press %(press_id)d: %(cards)d cards out; ended by %(ended)s",
        "cards", press_id="int", cards="int", ended="ended"),
    "press_out_asked_ended": entry(
        "press %(press_id)d: %(cards)d card out (asked for %(requested)d); ended by %(ended)s",
        "press %(press_id)d: %(cards)d cards out (asked for %(requested)d); ended by %(ended)s",
        "cards", press_id="int", cards="int", requested="int", ended="ended"),
    "aimed": entry("aimed at %(angle)d degrees", angle="int"),
    "not_running": entry(
        "launcherd is not running (no answer on %(path)s).\n  Start the simulator with"
        " `launcherd --sim` (or `make demo`), or on a Pi: `sudo systemctl start launcherd`.",
        path="text"),
    "permission_denied": entry(
        "permission denied on %(path)s: add yourself to the card-launcher group"
        " (sudo usermod -aG card-launcher $USER, then log in again).", path="text"),
    "lost_connection": entry("lost the connection to launcherd: %(reason)s", reason="text"),
    # launcherctl status: one line each, the label padded to the values' column
    "status_state": entry("state      %(state)s", state="state"),
    "status_state_reason": entry("state      %(state)s (%(reason)s)", state="state", reason="text"),
    "status_profile": entry("profile    %(profile)s", profile="profile"),
    "status_presses": entry("presses    %(presses)d   dry streak %(streak)d", presses="int", streak="int"),
    "status_ejected": entry("ejected    %(cards)d card   hopper %(hopper)d",
                            "ejected    %(cards)d cards   hopper %(hopper)d", "cards", cards="int", hopper="int"),
    "status_ejected_unknown": entry("ejected    %(cards)d card   hopper unknown",
                                    "ejected    %(cards)d cards   hopper unknown", "cards", cards="int"),
    "status_last_press": entry("last       press %(press_id)d: %(outcome)s, %(cards)d card",
                               "last       press %(press_id)d: %(outcome)s, %(cards)d cards", "cards",
                               press_id="int", outcome="outcome", cards="int"),
    "status_last_none": entry("last       -"),
    "status_motor_on": entry("motor      %(direction)s at %(duty)d%%", direction="motor_direction", duty="int"),
    "status_motor_off": entry("motor      off"),
    "status_aim": entry("aim        %(angle)d degrees", angle="int"),
    "status_sim": entry("sim        hopper %(hopper)d, cards out %(out)d", hopper="int", out="int"),
    "status_sim_stuck": entry("sim        hopper %(hopper)d, cards out %(out)d, a card is stuck", hopper="int",
                              out="int"),
    "status_pending": entry("waiting    %(what)s", what="text"),
    "status_reset_how": entry("reset      hold the launch button %(seconds)s s, or launcherctl reset", seconds="seconds"),
    # the blaster's status: each slot's part begins with the space between two slots
    "status_slots": entry("slots     %(slots)s", slots="parts"),
    "status_slot_full": entry(" %(slot)d:full", slot="int"),
    "status_slot_empty": entry(" %(slot)d:empty", slot="int"),
    "status_inserts": entry("inserts    %(inserts)d   ejected %(cards)d card",
                            "inserts    %(inserts)d   ejected %(cards)d cards", "cards", inserts="int", cards="int"),
    "status_last_insert": entry("last       insert %(insert_id)d, slot %(slot)d: %(outcome)s", insert_id="int",
                                slot="int", outcome="outcome"),
    "status_last_blast": entry("last       insert %(insert_id)d, slot %(slot)d: blast, %(cards)d card",
                               "last       insert %(insert_id)d, slot %(slot)d: blast, %(cards)d cards", "cards",
                               insert_id="int", slot="int", cards="int"),
    "status_sim_stuck_slot": entry("sim        a card is stuck in slot %(slot)d", slot="int"),
    # launcherctl insert
    "insert_not_judged": entry("card in slot %(slot)d, not judged: the blaster is %(reason)s", slot="int",
                               reason="state"),
    "insert_outcome": entry("insert %(insert_id)d, slot %(slot)d: %(outcome)s", insert_id="int", slot="int",
                            outcome="outcome"),
    "insert_blast": entry("insert %(insert_id)d, slot %(slot)d: blast: every loaded card is shot out",
                          insert_id="int", slot="int"),
    "retry_after": entry("the launcher will take it in %(seconds)s s: try again then", seconds="number"),
    "dispense_progress": entry("%(reason)s (%(cards)d of %(count)d out)", reason="text", cards="int",
                               count="int"),
    "not_answering": entry("launcherd on %(path)s accepted the connection but did not answer in time",
                           path="text"),
    # firmware/daemon/outcomes.py: the outcome record found wrong at start (said in status and the journal)
    "outcome_record_damaged": entry(
        "the outcome record %(path)s was no sound record at start (%(reason)s): it is kept as %(aside)s;"
        " a new record numbers launches on after the last one the game's log took in", path="text",
        reason="text", aside="text"),
    "outcome_record_missing": entry(
        "the outcome record %(path)s was missing at start though the game's log had taken in launches up to"
        " %(seq)d: a new record numbers launches on from there", path="text", seq="int"),
    "outcome_record_behind": entry(
        "the outcome record %(path)s ended at launch %(last)d, before launch %(seq)d the game's log had taken"
        " in (an older copy?): launches are numbered on from %(seq)d", path="text", last="int", seq="int"),
    "status_outcome_record": entry("outcomes   %(said)s", said="text"),
}

# The bring-up dialogues of launcherctl (firmware/tools/bringup_cli.py): selftest, jog and inputs.
BRINGUP: dict[str, Text] = {
    "selftest_title_led": entry("button LED"),
    "selftest_title_chime": entry("chime"),
    "selftest_title_motor": entry("motor %(direction)s", direction="motor_direction"),
    "selftest_title_standby": entry("driver standby"),
    "selftest_title_beam": entry("break-beam"),
    "selftest_title_button": entry("button"),
    "selftest_title_lid": entry("lid switch"),
    "selftest_title_servo": entry("aim servo"),
    "selftest_say_led": entry("LED: it flashes 4 times, then shows the launcher's state again."),
    "selftest_say_chime": entry("Chime: 3 beeps."),
    "selftest_say_motor": entry("Motor: the wheel must be free (no cards against it). It turns forward, then"
                                " reverse, %(ms)d ms each at %(duty)s.", ms="int", duty="percent"),
    "selftest_say_standby": entry("Standby: the driver is put in standby and the motor driven forward; the"
                                  " wheel must NOT turn."),
    "selftest_say_act": entry("%(title)s: %(act)s now (within %(seconds)d s).", title="raw", act="text",
                              seconds="int"),
    "selftest_say_undo": entry("  seen. Now %(undo)s.", undo="text"),
    "selftest_act_beam": entry("block the beam at the exit slot (a card or a finger)"),
    "selftest_undo_beam": entry("clear it"),
    "selftest_act_button": entry("press the launch button"),
    "selftest_undo_button": entry("let go"),
    "selftest_act_lid": entry("open the hopper lid"),
    "selftest_undo_lid": entry("close it"),
    "selftest_say_servo": entry("Servo: it turns to one end, the other, then the middle."),
    "selftest_ask": entry("%(question)s [y]es / [n]o / [s]kip: ", question="text"),
    "selftest_ask_led": entry("Did the button LED flash 4 times?"),
    "selftest_ask_chime": entry("Did you hear 3 beeps?"),
    "selftest_ask_wheel_free": entry("Is the wheel free?"),
    "selftest_ask_motor": entry("Did the wheel turn %(direction)s (it feeds cards out when forward)?",
                                direction="motor_direction"),
    "selftest_ask_standby": entry("Did the wheel stay still?"),
    "selftest_ask_servo": entry("Did the launcher turn to both ends and back to the middle?"),
    "selftest_nobody": entry(" (nobody to look: run it at a terminal, or with --yes to take the daemon's word)"),
    "selftest_flashed": entry("flashed 4 times"),
    "selftest_beeps": entry("3 beeps sent"),
    "selftest_wheel_not_free": entry("nobody said the wheel is free"),
    "selftest_jog_refused": entry("the launcher refused the jog: %(reason)s", reason="text"),
    "selftest_jogged": entry("%(direction)s %(ms)d ms at %(duty)s: %(ended)s", direction="motor_direction",
                             ms="int", duty="percent", ended="ended"),
    "selftest_no_standby": entry("no standby pin fitted ([pins] motor_enable = false)"),
    "selftest_not_fitted": entry("no %(name)s fitted ([pins] %(name)s = false)", name="raw"),
    "selftest_active_before": entry("the %(title)s reads active before anyone touched it", title="raw"),
    "selftest_seen_back": entry("seen active, then back"),
    "selftest_seen_not_back": entry("seen active, but it never came back"),
    "selftest_nothing_seen": entry("nothing seen in %(seconds)d s", seconds="int"),
    "selftest_no_servo": entry("no servo fitted ([pins] servo = false)"),
    "selftest_angles": entry("angles %(angles)s", angles="raw"),
    "selftest_servo_refused": entry("refused: %(reason)s", reason="text"),
    "selftest_pin_not_fitted": entry("[pins] %(function)s: not fitted", function="raw"),
    "selftest_pin": entry("[pins] %(function)s = GPIO %(gpio)s (header pin %(header)s)", function="raw",
                          gpio="raw", header="raw"),
    "selftest_pin_reads": entry(
        "[pins] %(function)s = GPIO %(gpio)s (header pin %(header)s), reads %(reads)s now (active"
        " %(active)s, internal pull-%(pull)s)", function="raw", gpio="raw", header="raw", reads="raw",
        active="raw", pull="raw"),
    "selftest_check_led": entry("the LED's series resistor, its polarity (long leg towards the GPIO), its GND"),
    "selftest_check_chime": entry("an active buzzer (it beeps on DC), its transistor, base resistor and 5 V"
                                  " supply"),
    "selftest_check_motor_supply": entry("the motor supply, its fuse and the driver's VM, VCC and GND; the"
                                         " grounds joined"),
    "selftest_check_motor_driver": entry("TB6612FNG: PWMA tied to 3V3 and STBY high; DRV8833: nSLEEP high"),
    "selftest_check_motor_swapped": entry("forward and reverse swapped? swap the two motor wires (or the two"
                                          " [pins])"),
    "selftest_check_standby_pin": entry("%(pin)s to the driver's STBY (TB6612FNG) or nSLEEP (DRV8833)",
                                        pin="text"),
    "selftest_check_standby_breakout": entry("a breakout that pulls nSLEEP high on the board: see"
                                             " wiring/README.md"),
    "selftest_check_beam": entry(
        "the emitter powered (its LED glows in a phone camera), the receiver aligned across the slot,"
        " its open-collector output to the GPIO; [sensor] beam_blocked"),
    "selftest_check_button": entry("the button between the GPIO and the rail opposite its pull; [sensor]"
                                   " button_active"),
    "selftest_check_lid": entry("the lid switch closed while the lid is shut; [sensor] lid_open"),
    "selftest_check_servo": entry("the servo's own 5 V supply and the common ground; [aim] min_pulse_ms /"
                                  " max_pulse_ms"),
    "selftest_report_line": entry("[%(mark)s] %(title)s: %(detail)s", mark="text", title="raw", detail="raw"),
    "selftest_mark_pass": entry("pass"),
    "selftest_mark_fail": entry("FAIL"),
    "selftest_mark_skipped": entry("skip"),
    "selftest_report_check": entry("       check: %(hint)s", hint="raw"),
    "selftest_summary": entry("%(passed)d passed, %(failed)d failed, %(skipped)d skipped", passed="int",
                              failed="int", skipped="int"),
    "selftest_not_ready": entry("launcherctl selftest: the launcher is %(state)s; it must be ready"
                                " (launcherctl reset, clear the slot, close the lid)", state="state"),
    "bringup_pending": entry("launcherctl %(command)s: something waits for a press (%(what)s): press the button"
                             " or launcherctl resume first, or its cards would join it", command="raw",
                             what="text"),
    "jog_run": entry("%(direction)s %(ms)d ms at %(duty)s", direction="motor_direction", ms="int",
                     duty="percent"),
    "jog_standby": entry(" (driver in standby)"),
    "jog_done": entry(": done"),
    "jog_stopped": entry(": stopped early (%(ended)s)", ended="ended"),
    "input:button": entry("button"),
    "input:beam": entry("beam"),
    "input:lid": entry("lid"),
    "input:press": entry("press"),
    "input_level:pressed": entry("pressed"),
    "input_level:released": entry("released"),
    "input_level:blocked": entry("blocked"),
    "input_level:clear": entry("clear"),
    "input_level:open": entry("open"),
    "input_level:closed": entry("closed"),
    "input_level:press": entry("press (debounced)"),
    "inputs_not_fitted": entry("%(name)s not fitted", name="raw"),
    "inputs_line": entry("%(name)s %(level)s GPIO %(gpio)s (header pin %(header)s) reads %(reads)s (active"
                         " %(active)s, pull-%(pull)s)", name="raw", level="raw", gpio="raw", header="raw",
                         reads="raw", active="raw", pull="raw"),
    # launcherctl calibrate (firmware/extras/calibrate.py, firmware/tools/bringup_cli.py)
    "n_misfeeds": entry("%(count)d misfeed", "%(count)d misfeeds", "count", count="int"),
    "n_jams": entry("%(count)d jam", "%(count)d jams", "count", count="int"),
    "calibrate_warn_duty": entry("duty %(duty)s: %(misfeeds)s, %(jams)s: not used", duty="number",
                                 misfeeds="text", jams="text"),
    "calibrate_warn_jam_half": entry("jam_ms %(jam)d would exceed half of launch_timeout_ms (%(launch)d); kept"
                                     " at that half", jam="int", launch="int"),
    "calibrate_warn_no_crossing": entry("no card crossed the beam cleanly: nothing to propose for the beam"
                                        " timings"),
    "calibrate_warn_feed_slow": entry("feed_timeout_ms %(feed)d is not below launch_timeout_ms (%(launch)d): the"
                                      " feed is too slow at duty %(duty)s", feed="int", launch="int", duty="number"),
    "calibrate_warn_no_duty": entry("no duty fed every card without a misfeed or a jam: try higher duties"
                                    " (--duties)"),
    "margin_card_crossing_ms": entry("x%(factor)s the longest crossing seen, at least +%(plus)d ms", factor="raw",
                                     plus="int"),
    "margin_jam_ms": entry("x%(factor)s the longest crossing seen, at least card_crossing_ms + %(plus)d ms",
                           factor="raw", plus="int"),
    "margin_feed_timeout_ms": entry("x%(factor)s the longest wait for a card at the proposed duty (the first card"
                                    " or between cards), at least +%(plus)d ms", factor="raw", plus="int"),
    "margin_duty": entry("one tested step above the lowest duty that fed every card with no misfeed and no jam"
                         " (the lowest clean duty when it is the highest tried)"),
    "margin_kick_duty": entry("the highest clean duty tried"),
    "margin_kick_ms": entry("%(share)s of the first-card time at kick_duty, from %(least)d to %(most)d ms; used"
                            " only while duty is below kick_below", share="percent", least="int", most="int"),
    "calibrate_not_toml": entry("%(source)s: not valid TOML, not edited: %(error)s", source="raw", error="raw"),
    "calibrate_would_break": entry("%(source)s: the edit would break the file (%(error)s); not edited",
                                   source="raw", error="raw"),
    "calibrate_cannot_change": entry("%(source)s: the file is written in a way this editor cannot change safely"
                                     " (dotted keys or inline tables?); not edited: paste the snippet by hand",
                                     source="raw"),
    "calibrate_cannot_read": entry("%(path)s: cannot read the file: %(error)s", path="raw", error="raw"),
    "calibrate_cannot_write": entry("%(path)s: cannot write next to the file: %(error)s (the configuration in"
                                    " /etc needs sudo)", path="raw", error="raw"),
    "calibrate_fails_check": entry("%(path)s: not written, the result would not pass --check-config:\n%(error)s",
                                   path="raw", error="raw"),
    "calibrate_defaults": entry("launcherctl calibrate: launcherd runs on the built-in defaults: give --config"
                                " FILE to write"),
    "calibrate_start": entry("calibrating: %(cards)d cards at each duty of %(duties)s", cards="int",
                             duties="raw"),
    "calibrate_start_load": entry("calibrating: %(cards)d cards at each duty of %(duties)s; load at least"
                                  " %(need)d cards and catch them", cards="int", duties="raw", need="int"),
    "calibrate_run": entry("  duty %(duty)s: %(cards)d of %(requested)d cards (%(ended)s)", duty="raw",
                           cards="int", requested="int", ended="ended"),
    "calibrate_stuck": entry("  a card is stuck: calibration stops here (clear the slot and run it again)"),
    "calibrate_nothing": entry("launcherctl calibrate: nothing to write"),
    "calibrate_header": entry("duty  cards  crossing ms (max)  gap ms (max)  first card ms  cards/s  misfeeds"
                              "  jam"),
    "calibrate_yes": entry("yes"),
    "calibrate_no": entry("no"),
    "calibrate_warning": entry("warning: %(warning)s", warning="raw"),
    "calibrate_proposed": entry("proposed (margins used):"),
    "calibrate_written": entry("written to %(path)s; `launcherd --check-config %(path)s` passes; restart"
                               " launcherd to use it", path="raw"),
    "inputs_watching": entry("watching (bench mode: the button launches nothing meanwhile); Ctrl-C to stop"),
}

# What launcherd --demo's screen says (firmware/tools/demo.py), in the daemon's language.
DEMO: dict[str, Text] = {
    "demo_keys_launcher": entry("Space/Enter press   j jam   c clear   l lid   r reload   d deal 7   s sleep   w wake"
                                "   e e-stop   x reset   q quit"),
    "demo_keys_blaster": entry("Space/Enter insert   1-8 insert in slot N   j jam   c clear   s sleep   w wake"
                               "   e e-stop   x reset   q quit"),
    "demo_title_launcher": entry("CARD LAUNCHER  (simulation)"),
    "demo_title_blaster": entry("CARD BLASTER  (simulation)"),
    # The labels of the screen's lines, in a column as wide as the longest.
    "demo_label_state": entry("state"),
    "demo_label_led": entry("LED"),
    "demo_label_chime": entry("chime"),
    "demo_label_motor": entry("motor"),
    "demo_label_presses": entry("presses"),
    "demo_label_last": entry("last"),
    "demo_label_hopper": entry("hopper"),
    "demo_label_slots": entry("slots"),
    "demo_chimes": entry("%(last)s   (%(count)d so far)", last="raw", count="int"),
    "demo_slots": entry("[%(slots)s]   ejected %(ejected)d   profile %(profile)s", slots="raw", ejected="int",
                        profile="profile"),
    "demo_last_slot": entry("slot %(slot)d: %(outcome)s", slot="int", outcome="outcome"),
    "demo_last_slot_blast": entry("slot %(slot)d: %(outcome)s, %(cards)d card", "slot %(slot)d: %(outcome)s, %(cards)d cards",
                                  "cards", slot="int", outcome="outcome", cards="int"),
    "demo_motor_on": entry("%(direction)s %(duty)s", direction="raw", duty="percent"),
    "demo_motor_off": entry("off"),
    "demo_presses": entry("%(presses)d   dry streak %(dry)d   profile %(profile)s", presses="int", dry="int",
                          profile="profile"),
    "demo_last_press": entry("%(outcome)s, %(cards)d card", "%(outcome)s, %(cards)d cards", "cards",
                             outcome="outcome", cards="int"),
    "demo_hopper": entry("%(hopper)s (estimate)   %(truth)s (truth)   ejected %(ejected)d", hopper="raw",
                         truth="raw", ejected="int"),
    "demo_led_on": entry("on"),
    "demo_led_on_at": entry("on %(brightness)s", brightness="percent"),
    "demo_led_off": entry("off"),
    "demo_led_flash": entry("flashing every %(ms)d ms", ms="int"),
    "demo_recent_events": entry("recent events:"),
    "demo_launcherctl": entry("launcherctl talks to it too: %(command)s", command="raw"),
    "demo_table_page": entry("table page: %(url)s", url="raw"),
    "demo_table_page_code": entry("table page: %(url)s   join code %(code)s", url="raw", code="raw"),
    # What to do now, for the states a player must act on.
    "demo_advice_jammed": entry("a card is stuck in the exit slot: c clears it (on the Pi, pull the card out);"),
    "demo_advice_jammed_presses": entry("presses are ignored until then"),
    "demo_advice_empty": entry("hopper empty: refill it, then l twice (lid open, lid closed) tells the launcher;"),
    "demo_advice_empty_pi": entry("on the Pi, hold the button 2 s, or open and close the lid"),
    "demo_advice_lid_open": entry("lid open: l closes it, and closing it counts as a refill"),
    "demo_advice_halted": entry("halted: x resets it once the cause is dealt with"),
    "demo_advice_sleeping": entry("asleep: w or a press (Space) wakes it"),
    "demo_advice_bench": entry("bench mode (selftest/calibrate/inputs): presses launch nothing"),
    "demo_advice_pending": entry("%(what)s: a press (Space) goes on", what="raw"),
    "demo_something_waits": entry("something waits"),
    # One short line per event.
    "demo_press": entry("press %(press)s", press="raw"),
    "demo_press_from": entry("press %(press)s (%(source)s)", press="raw", source="raw"),
    "demo_launched": entry("%(press)s: %(said)s", press="raw", said="raw"),
    "demo_launched_dry": entry("nothing came out (a dry press)"),
    "demo_launched_empty": entry("nothing came out: the hopper is empty"),
    "demo_launched_cards": entry("%(cards)d card", "%(cards)d cards", "cards", cards="int"),
    "demo_launched_cards_of": entry("%(cards)d of %(requested)d card", "%(cards)d of %(requested)d cards", "requested",
                                    cards="int", requested="int"),
    "demo_launched_ended": entry("%(said)s, %(ended)s", said="raw", ended="raw"),
    "demo_ended_jam": entry("then a card jammed"),
    "demo_ended_empty": entry("then the hopper ran empty"),
    "demo_ended_lid": entry("the lid was opened"),
    "demo_ended_stop": entry("stopped"),
    "demo_ended_estop": entry("emergency stop"),
    "demo_ended_halt": entry("halted"),
    "demo_ended_cancel": entry("cancelled"),
    "demo_ended_sleep": entry("went to sleep"),
    "demo_state_now": entry("now %(state)s (was %(previous)s)", state="raw", previous="raw"),
    "demo_jammed": entry("a card is stuck in the exit slot: c clears it"),
    "demo_hopper_empty": entry("the hopper is empty"),
    "demo_halted": entry("halted: %(reason)s", reason="raw"),
    "demo_refused": entry("refused: %(reason)s", reason="raw"),
    "demo_refused_wait": entry("refused: %(reason)s (again in %(seconds)s s)", reason="raw", seconds="seconds"),
    "demo_press_ignored": entry("press ignored (%(why)s)", why="raw"),
    "demo_refill_lid": entry("lid closed: the launcher takes it as a refill"),
    "demo_refill_button": entry("button held: the launcher takes it as a refill"),
    "demo_refilled": entry("refilled: %(cards)d card", "refilled: %(cards)d cards", "cards", cards="int"),
    "demo_refilled_before": entry("refilled: %(cards)d card (%(previous)d before)",
                                  "refilled: %(cards)d cards (%(previous)d before)", "cards", cards="int", previous="int"),
    "demo_refilled_unknown": entry("refilled: count unknown"),
    "demo_refilled_unknown_before": entry("refilled: count unknown (%(previous)d before)", previous="int"),
    "demo_pending": entry("waiting for a press to go on (%(what)s)", what="raw"),
    "demo_resumed": entry("a press let it go on"),
    "demo_reset": entry("reset: the launcher is ready again"),
    "demo_reset_from": entry("reset: the launcher is ready again (%(source)s)", source="raw"),
    "demo_bench_on": entry("bench mode on: presses launch nothing"),
    "demo_bench_off": entry("bench mode off"),
    "demo_jogged": entry("jogged %(direction)s %(ms)s ms", direction="raw", ms="raw"),
    "demo_insert": entry("card into slot %(slot)s: %(outcome)s", slot="raw", outcome="raw"),
    "demo_blast": entry("blast from slot %(slot)s: %(cards)d card", "blast from slot %(slot)s: %(cards)d cards", "cards",
                        slot="raw", cards="int"),
    "demo_blast_jammed": entry("blast from slot %(slot)s: %(cards)d card, one stuck: c clears it",
                               "blast from slot %(slot)s: %(cards)d cards, one stuck: c clears it", "cards",
                               slot="raw", cards="int"),
    "demo_removed": entry("card taken out of slot %(slot)s", slot="raw"),
    # What each key says at once.
    "demo_key_space": entry("Space"),
    "demo_key_enter": entry("Enter"),
    "demo_key_insert": entry("%(key)s: a card into the first empty slot", key="raw"),
    "demo_key_insert_slot": entry("%(key)s: a card into slot %(slot)d", key="raw", slot="int"),
    "demo_key_no_lid": entry("%(key)s: a blaster has no lid", key="raw"),
    "demo_key_no_hopper": entry("%(key)s: a blaster has no hopper", key="raw"),
    "demo_key_no_dealer": entry("%(key)s: a blaster has no dealer", key="raw"),
    "demo_key_press": entry("%(key)s: the launch button", key="raw"),
    "demo_key_jam": entry("j: the next card will jam in the exit slot (c clears it)"),
    "demo_key_clear": entry("c: the stuck card is pulled out"),
    "demo_key_clear_none": entry("c: no card is stuck (j jams the next one)"),
    "demo_key_lid_open": entry("l: lid open (the motor stops; l again closes it, which counts as a refill)"),
    "demo_key_lid_closed": entry("l: lid closed"),
    "demo_key_lid_none": entry("l: no lid switch is configured ([pins] lid = false)"),
    "demo_key_reload": entry("r: reload %(cards)d card", "r: reload %(cards)d cards", "cards", cards="int"),
    "demo_reloaded": entry("reloaded: the hopper holds %(cards)d card", "reloaded: the hopper holds %(cards)d cards",
                           "cards", cards="int"),
    "demo_key_deal": entry("d: deal %(cards)d card", "d: deal %(cards)d cards", "cards", cards="int"),
    "demo_dealt": entry("dealt %(cards)s of %(count)d card", "dealt %(cards)s of %(count)d cards", "count",
                        cards="raw", count="int"),
    "demo_dealt_why": entry("%(dealt)s: %(reason)s", dealt="raw", reason="raw"),
    "demo_key_sleep": entry("s: sleep"),
    "demo_key_wake": entry("w: wake"),
    "demo_key_estop": entry("e: emergency stop (x resets)"),
    "demo_estop_reason": entry("emergency stop from the demo"),
    "demo_key_reset": entry("x: reset"),
    "demo_key_quit": entry("q: quitting"),
    "demo_key_unknown": entry("%(key)s: not a key of the demo (the keys are below)", key="raw"),
}

# A request that does not fit its method (firmware/daemon/registry.py): the method, the parameter and
# the values as the API has them (JSON), what was expected in words.
API: dict[str, Text] = {
    **{f"value_type:{name}": entry(text) for name, text in (
        ("int", "a whole number"), ("float", "a number"), ("str", "a string"), ("bool", "true or false"),
        ("list", "a list"), ("dict", "an object"))},
    "api_unknown_method": entry("unknown method %(method)s; see list_methods", method="raw"),
    "api_params_not_object": entry("%(method)s: params must be an object, got %(got)s", method="raw", got="raw"),
    "api_unknown_param": entry("%(method)s: unknown parameter %(param)s; allowed: %(allowed)s",
                               method="raw", param="raw", allowed="raw"),
    "api_unknown_param_none": entry("%(method)s: unknown parameter %(param)s; allowed: none",
                                    method="raw", param="raw"),
    "api_missing_param": entry("%(method)s: missing parameter %(param)s", method="raw", param="raw"),
    "api_param_type": entry("%(method)s: %(param)s must be %(expected)s, got %(got)s",
                            method="raw", param="raw", expected="value_type", got="raw"),
    "api_param_at_least": entry("%(method)s: %(param)s must be at least %(minimum)s, got %(got)s",
                                method="raw", param="raw", minimum="raw", got="raw"),
    "api_param_at_most": entry("%(method)s: %(param)s must be at most %(maximum)s, got %(got)s",
                               method="raw", param="raw", maximum="raw", got="raw"),
    "api_param_int_range": entry("%(method)s: %(param)s must be a whole number from -2^53 to 2^53, got %(got)s",
                                 method="raw", param="raw", got="raw"),
    "api_param_choice": entry("%(method)s: %(param)s must be one of %(allowed)s, got %(got)s",
                              method="raw", param="raw", allowed="raw", got="raw"),
}

FIRMWARE = Catalogue("firmware", Path(__file__).resolve().parent / "locale",
                     {**WORDS, **LAUNCHER, **BRINGUP, **DEMO, **API})


def main() -> None:
    """Print the template (``python -m firmware.text.messages > firmware/text/locale/firmware.pot``)."""
    FIRMWARE.write_template(sys.stdout.buffer)


if __name__ == "__main__":
    main()
