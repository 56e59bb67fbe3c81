"""The daemon's own API methods, which every device kind has: status, sleep and wake, e-stop and
reset, and aim (answered by a device that cannot aim with why).

Each turns a request into an event for the core through ``host.request(event)`` (answered with the
status, or the core's refusal). A kind's own methods are its ``methods`` module's
(``firmware/launcher/methods.py``); the extras add theirs through ``setup(host)``.
"""

from __future__ import annotations

from firmware import i18n
from firmware.daemon.registry import Param
from firmware.daemon.device import DaemonHost
from firmware.errors import InvalidParams, Refused
from firmware.events import EStop, Reset, SleepNow, Wake


def register(host: DaemonHost) -> None:
    r = host.registry.register
    r("list_methods", lambda p: host.describe(), doc="every method and its parameters")
    r("status/get", lambda p: host.settled_status(), doc="the launcher's status")
    r("launcher/sleep", lambda p: host.request(SleepNow()), doc="sleep now")
    r("launcher/wake", lambda p: host.request(Wake()), doc="wake without launching")
    r("system/estop", lambda p: host.request(EStop(p["reason"])),
      {"reason": Param(str, "emergency stop")}, doc="stop the motor and halt until reset")
    r("system/reset", lambda p: host.request(Reset()), doc="leave the halted state")
    # A blaster has it too, answered as by a launcher without a servo: the game aims at whoever draws.
    r("launcher/aim", lambda p: _aim(host, p), {
        "angle": Param(float, None, -90, 90), "seat": Param(int, None, 0, 9),
        "seats": Param(int, None, 1, 10)}, doc="turn the launcher: angle, or seat of seats")


def _aim(host: DaemonHost, params: dict) -> dict:
    host.device.check_aim()
    _check_still(host)
    angle = params["angle"]
    if angle is None:
        seat, seats = params["seat"], params["seats"]
        if seat is None or seats is None or seat >= seats:
            raise InvalidParams(i18n.message("aim_needs_angle_or_seat"))
        aim = host.config.aim
        span = aim.max_angle - aim.min_angle
        angle = aim.min_angle + (span * seat / (seats - 1) if seats > 1 else span / 2)
    host.aim_angle = host.device.aim(angle)
    return {"angle": host.aim_angle}


def _check_still(host: DaemonHost) -> None:
    """The aim servo moves as the motor does: never while halted (an e-stop included) or with the
    lid open, and never while something waits for a person's press, bring-up's bench mode excepted
    (entered on purpose). A game that aims then is told so and goes on facing where it was."""
    core = host.core
    if core is None:
        return
    status = core.get_status()
    if status.get("state") == "halted":
        raise Refused(i18n.message("aim_not_halted"))
    if status.get("lid_open") or status.get("state") == "lid_open":
        raise Refused(i18n.message("aim_not_lid_open"))
    if status.get("pending") is not None and not getattr(core, "bench", False):
        raise Refused(i18n.message("aim_not_pending", what=status["pending"]))


__all__ = ["register"]
