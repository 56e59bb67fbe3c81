"""The motor's motion: runs by phase (kick, run, reverse pulse, jog) with the coast a reversal needs,
a launch from its start to its end, and the requests that move the motor by hand (jog, retract,
cancel)."""

from __future__ import annotations

import logging

from firmware.events import Action, Cancel, DriverEnable, Emit, Jog, Motor, Retract
from firmware.i18n import message
from firmware.launcher.motor_limits import EPS, rest_needed
from firmware.launcher.states import (
    AFTER, COAST, EMPTY, FEEDING, HALTED, JOG, KICK, LAUNCHING, MIN_DUTY, READY, RETRACT, RUN, SLEEPING, PressRecord,
    valid_duty, whole,
)

log = logging.getLogger(__name__)


JOG_DIRECTIONS = ("forward", "reverse")


class LauncherMotion:
    """The motor, its phases and the launch it serves. A part of :class:`~firmware.launcher.core.Launcher`,
    which composes it with the others and owns the state it reads and writes (``Launcher.__init__``)."""

    def _drive(self, direction: str, duty: float, now: float) -> list[Action]:
        """Set the motor; never reverses a running motor without a stop in between. Timed when
        the pins change (``_pins_at``): a run's on-time and the coast after it are what the motor
        did, however late the deadline that moved it ran."""
        now = max(now, self._pins_at)
        if direction == self._motor_direction and (direction == "stop" or duty == self._motor_duty):
            return []
        actions: list[Action] = []
        if direction != self._motor_direction and "stop" not in (direction, self._motor_direction):
            actions += self._drive("stop", 0.0, now)
        if direction == "stop":
            duty = 0.0
            self._on_time.stop(now)
        elif self._motor_direction == "stop":
            self._on_time.start(now)
        if direction == "stop" and self._motor_direction != "stop":
            self._last_run = (self._motor_direction, now)
        self._motor_direction, self._motor_duty = direction, duty
        actions.append(Motor(direction, duty))  # type: ignore[arg-type]
        return actions + self._trace(now, "motor", direction=direction, duty=duty)

    def _clear_motion(self) -> None:
        self._phase = self._phase_end = self._after_coast = None
        self._launch_deadline = self._feed_deadline = self._feed_left = None

    def _coast_left(self, direction: str, now: float) -> float:
        """How long the motor must still coast before it may run ``direction``."""
        if self._last_run is None or self._last_run[0] == direction:
            return 0.0
        return max(0.0, self._last_run[1] + self._dead_time_s - now)

    def _run_phase(self, phase: str, direction: str, duty: float, seconds: float | None,
                   now: float) -> list[Action]:
        """Run the motor ``direction`` for ``seconds`` (None: until told) as ``phase``, after the
        coast a reversal needs. Timed from when the pins change: a deadline run late must not
        shorten the coast or the run that follows it (a reverse pulse of 0.02 ms was seen)."""
        now = max(now, self._pins_at)
        coast = self._coast_left(direction, now) if self._motor_direction == "stop" else self._dead_time_s
        if direction != self._motor_direction and self._motor_direction != "stop" and coast > 0:
            actions = self._drive("stop", 0.0, now)
        else:
            actions = []
        if coast > 0 and direction != self._motor_direction:
            self._phase, self._phase_end = COAST, now + coast
            self._after_coast = (phase, direction, duty, seconds)
            return actions
        self._phase, self._phase_end = phase, None if seconds is None else now + seconds
        return actions + self._drive(direction, duty, now)

    def _halt_motion(self, now: float) -> list[Action]:
        """Stop the motor at once and forget every motor timer (the launch stays open)."""
        self._clear_motion()
        return self._drive("stop", 0.0, now)

    def _start_launch(self, record: PressRecord, now: float) -> list[Action]:
        self._launch = record
        self._launch_deadline = now + self._launch_timeout_s
        if self._beam_blocked:
            self._feed_deadline, self._feed_left = None, self._feed_timeout_s
        else:
            self._feed_deadline, self._feed_left = now + self._feed_timeout_s, None
        motor = self._motor_cfg
        if record.kick and self._launch_duty() < motor.kick_below and motor.kick_ms > 0:
            # Below kick_below the motor may not overcome the cards' friction from standstill.
            actions = self._run_phase(KICK, "forward", motor.kick_duty, motor.kick_ms / 1000, now)
        else:
            actions = self._run_phase(RUN, "forward", self._launch_duty(), None, now)
        return actions + self._enter(LAUNCHING, now)

    def _launch_duty(self) -> float:
        launch = self._launch
        return self._motor_cfg.duty if launch is None or launch.duty is None else launch.duty

    def _on_phase_end(self, at: float) -> list[Action]:
        if self._phase == COAST:
            assert self._after_coast is not None
            phase, direction, duty, seconds = self._after_coast
            self._after_coast = None
            if self._launch is None and self._beam_blocked:
                # A jog or a lone reverse pulse waited for its coast, and something came into the
                # slot meanwhile: the motor does not start on it (Jog, Retract are refused so).
                log.info("the beam was blocked during the coast: the %s does not start", phase)
                self._phase = self._phase_end = None
                return self._end_jog("cancelled")
            return self._run_phase(phase, direction, duty, seconds, at)
        if self._phase == KICK:
            self._phase, self._phase_end = RUN, None
            return self._drive("forward", self._launch_duty(), at)
        if self._phase == JOG:
            return self._halt_motion(at) + self._end_jog("done")
        # The reverse pulse is over (after a launch, or a lone Retract).
        actions = self._halt_motion(at)
        if self._launch is not None:
            actions += self._finish(self._launch.ended, at)
        return actions

    def _on_motor_limit(self, at: float) -> list[Action]:
        """The chain of runs has used max_on_ms: stop at once, no pulse; not a fault."""
        log.warning("motor stopped: %.1f s on without %.1f s of rest", self._on_time.max_on,
                    self._on_time.rest)
        actions = self._halt_motion(at) + self._end_jog("motor_limit")
        if self._launch is not None:
            # A launch cut in its reverse pulse keeps how its feeding ended.
            actions += self._finish(self._launch.ended or "motor_limit", at)
        return actions

    def _end_feeding(self, ended: str, now: float) -> list[Action]:
        """Target reached or launch timed out: stop, reverse pulse, stop, then resolve."""
        assert self._launch is not None
        self._launch.ended = ended
        self._clear_motion()
        retract_ms = self._motor_cfg.retract_ms
        if retract_ms == 0:
            return self._drive("stop", 0.0, now) + self._finish(ended, now)
        return self._run_phase(RETRACT, "reverse", self._motor_cfg.retract_duty, retract_ms / 1000, now)

    def _on_feed_timeout(self, at: float) -> list[Action]:
        assert self._launch is not None
        actions = self._halt_motion(at)
        self._blind_runs = self._blind_runs + 1 if self._hopper else 0
        if self._blind_runs >= self._blind_runs_limit:
            # The hopper estimate stands: it is the sensor that is not believed.
            runs, self._blind_runs = self._blind_runs, 0
            return actions + self.shutdown(message("halted_beam_sees_no_cards", runs=runs), at)
        self._hopper = 0
        # How near the wiring halt the blind runs in a row are: the dealer's retries stop short of it.
        actions.append(Emit("empty", {"press_id": self._launch.press_id, "message": message("no_card_hopper_empty"),
                                      "blind_runs": self._blind_runs, "blind_runs_limit": self._blind_runs_limit}))
        return actions + self._finish("empty", at)

    def _resolve(self, ended: str) -> list[Action]:
        """Close the running launch with one ``launched``."""
        assert self._launch is not None
        record, self._launch = self._launch, None
        record.ended = ended
        return [record.launched()]

    def _finish(self, ended: str, now: float) -> list[Action]:
        return self._resolve(ended) + self._enter(AFTER[ended], now)

    def _on_cancel(self, event: Cancel, now: float) -> list[Action]:
        """The running dispense of ``event.request`` ends now, as after its count; a dispense
        already ending (its reverse pulse), or none, is left as it is."""
        launch = self._launch
        if launch is None or launch.request != event.request or self._phase not in FEEDING + (COAST,):
            return []
        if self._phase == COAST:
            if self._after_coast is not None and self._after_coast[0] not in FEEDING:
                return []  # the coast before its reverse pulse: it is ending already
            self._clear_motion()  # it had not fed yet: nothing to pull back
            launch.ended = "cancelled"
            return self._finish("cancelled", now)
        return self._end_feeding("cancelled", now)

    def _on_jog(self, event: Jog, now: float) -> list[Action]:
        if event.direction not in JOG_DIRECTIONS:
            return self._refuse(event, message("refused_direction"))
        if not whole(event.ms, 1):
            return self._refuse(event, message("refused_ms"))
        if not valid_duty(event.duty):
            return self._refuse(event, message("refused_duty", minimum=MIN_DUTY))
        # The lid open is the state lid_open (or halted): refused as such, and checked again here.
        if self._state not in (READY, EMPTY) or self._phase is not None or self._lid_open:
            return self._refuse(event, message("refused_jog_state"))
        if self._held_still():
            return self._refuse(event, self._refused_pending())
        if self._beam_blocked:
            # In every mode, not only bench: a finger or a card in the slot, and the motor would
            # pull it in or push against it until jam_ms.
            return self._refuse(event, message("refused_beam_blocked"))
        if event.standby and not self._has_standby:
            return self._refuse(event, message("refused_no_standby"))
        seconds = event.ms / 1000
        if seconds > self._on_time.max_on + EPS:
            return self._refuse(event, message("refused_jog_too_long", ms=round(self._on_time.max_on * 1000)))
        wait = self._on_time.wait(now, seconds)
        left = self._on_time.max_on - self._on_time.chained(now)
        if wait is None and seconds > left + EPS:
            # A jog is never cut short by the chain's limit: it waits for the rest instead.
            rest = self._on_time.off_since + self._on_time.rest - now  # type: ignore[operator]
            wait = (rest, rest_needed(rest))
        if wait is not None:
            return [self._refused_wait("Jog", "jog", event.request, *wait)]
        self._jog = event
        actions: list[Action] = []
        if event.standby:
            self._driver_enabled = False
            actions.append(DriverEnable(False))
        return actions + self._run_phase(JOG, event.direction, float(event.duty), seconds, now)

    def _end_jog(self, ended: str) -> list[Action]:
        """The jog is over (``done``, or what cut it): driver back on, ``jogged``."""
        jog, self._jog = self._jog, None
        if jog is None:
            return []
        actions: list[Action] = []
        if jog.standby and not self._driver_enabled and self._state not in (SLEEPING, HALTED):
            self._driver_enabled = True
            actions.append(DriverEnable(True))
        return actions + [Emit("jogged", {"request": jog.request, "direction": jog.direction, "ms": jog.ms,
                                          "duty": jog.duty, "standby": jog.standby, "ended": ended})]

    def _on_retract(self, event: Retract, now: float) -> list[Action]:
        if self._state != READY or self._phase is not None or self._lid_open:
            return self._refuse(event, message("refused_retract"))
        if self._held_still():
            return self._refuse(event, self._refused_pending())
        if self._beam_blocked:
            # A finger or a card in the slot (a block not yet a jam, or a hand in bench mode).
            return self._refuse(event, message("refused_beam_blocked"))
        if self._motor_cfg.retract_ms == 0:
            return self._refuse(event, message("refused_no_retract"))
        wait = self._on_time.wait(now, self._motor_cfg.retract_ms / 1000)
        if wait is not None:
            return [self._refused_wait("Retract", None, None, *wait)]
        return self._run_phase(RETRACT, "reverse", self._motor_cfg.retract_duty,
                               self._motor_cfg.retract_ms / 1000, now)


__all__ = ["LauncherMotion"]
