"""The launcher's API methods: each turns a request into an event for the core (or a device call).

``register(daemon)`` adds them to the daemon's registry; ``register_blaster(daemon)`` adds those that a
card blaster has (status, sleep and wake, e-stop and reset) instead. They use the driver's two primitives:
``daemon.await_outcome(trigger)`` for a press (answered with its own outcome, by request id) and
``daemon.request(event)`` for the rest (answered with the status, or the core's refusal).

What the core says to people is a message object (``firmware/i18n.py``): :func:`with_texts` puts its
text beside it in a reply, an event or a status, and :func:`refusal` makes a ``refused`` event the
caller's error, in the caller's language.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Mapping

from firmware import i18n
from firmware.daemon.api import Param
from firmware.errors import InvalidParams, Refused, Unavailable
from firmware.events import Dispense, EStop, Launch, PressMeaning, Reload, Reset, Resume, Retract, SleepNow, Wake

if TYPE_CHECKING:
    from firmware.daemon.driver import Daemon

log = logging.getLogger("launcherd")


def _register_common(daemon: "Daemon") -> None:
    r = daemon.registry.register
    r("list_methods", lambda p: daemon.registry.describe(), doc="every method and its parameters")
    r("status/get", lambda p: daemon.settled_status(), doc="the launcher's status")
    r("launcher/sleep", lambda p: daemon.request(SleepNow()), doc="sleep now")
    r("launcher/wake", lambda p: daemon.request(Wake()), doc="wake without launching")
    r("system/estop", lambda p: daemon.request(EStop(p["reason"])),
      {"reason": Param(str, "emergency stop")}, doc="stop the motor and halt until reset")
    r("system/reset", lambda p: daemon.request(Reset()), doc="leave the halted state")
    # A blaster has it too, answered as by a launcher without a servo: the game aims at whoever draws.
    r("launcher/aim", lambda p: _aim(daemon, p), {
        "angle": Param(float, None, -90, 90), "seat": Param(int, None, 0, 9),
        "seats": Param(int, None, 1, 10)}, doc="turn the launcher: angle, or seat of seats")


def register_blaster(daemon: "Daemon") -> None:
    """The card blaster's methods: it is fed by its slots, so it has no press, feed or dispense."""
    _register_common(daemon)


def register(daemon: "Daemon") -> None:
    _register_common(daemon)
    r = daemon.registry.register
    r("launcher/press", lambda p: _press(daemon), doc="sim: press the physical button; waits for the outcome")
    r("launcher/launch", lambda p: daemon.await_outcome(lambda request: daemon.feed(Launch("api", request))),
      doc="a press from software; waits for the outcome")
    # launcher/dispense (exact, through jams, misfeeds and reloads) is firmware/extras/dealer.py's.
    r("launcher/feed",
      lambda p: daemon.await_outcome(lambda request: daemon.feed(Dispense(p["count"], "dispense", request))),
      {"count": Param(int, minimum=1, maximum=500)},
      doc="one run of the motor for up to count cards, answered as it ends (no retry)")
    r("launcher/retract", lambda p: daemon.request(Retract()), doc="reverse pulse")
    r("launcher/resume", lambda p: daemon.request(Resume("api")),
      doc="a person says go on: what waits for a press (status pending) may move; the press of the button does the same")
    r("launcher/press-means", lambda p: _press_means(daemon, p),
      {"means": Param(str, choices=("policy", "cards", "nothing")), "cards": Param(int, None, 1, 500),
       "player": (str, None), "reason": (dict, None)},
      doc="what a press of the button (or launcher/launch) means from now on: the ejection policy's burst,"
          " exactly cards cards (for player), or nothing (reason: a message object saying what to settle first)")
    r("launcher/reload", lambda p: _reload(daemon, p["cards"]), {"cards": Param(int, minimum=0, maximum=10000)},
      doc="the hopper now holds this many cards")


async def _press(daemon: "Daemon") -> dict:
    if daemon.sim is None:
        raise Unavailable(i18n.message("press_needs_sim"))
    return await daemon.await_outcome(daemon.sim.press)


def _press_means(daemon: "Daemon", params: dict) -> dict:
    status = daemon.request(PressMeaning(params["means"], params["cards"], params["player"], params["reason"]))
    daemon.press_meaning_told()
    return status


def _reload(daemon: "Daemon", cards: int) -> dict:
    if daemon.sim is not None:
        daemon.sim.reload(cards)  # in the sim the table's refill is the mechanism's too
    return daemon.request(Reload(cards))


def _aim(daemon: "Daemon", params: dict) -> dict:
    if daemon.is_blaster:
        raise Unavailable(i18n.message("blaster_no_aim"))
    if not daemon.hardware.has_servo:
        raise Unavailable(i18n.message("no_aim_servo"))
    angle = params["angle"]
    if angle is None:
        seat, seats = params["seat"], params["seats"]
        if seat is None or seats is None or seat >= seats:
            raise InvalidParams(i18n.message("aim_needs_angle_or_seat"))
        aim = daemon.config.aim
        span = aim.max_angle - aim.min_angle
        angle = aim.min_angle + (span * seat / (seats - 1) if seats > 1 else span / 2)
    daemon.aim_angle = daemon.hardware.aim(angle)  # clamped to the configured range
    return {"angle": daemon.aim_angle}


def refusal(params: Mapping[str, Any]) -> Refused:
    """The caller's error for a ``refused`` event: the core's reason (rendered in the request's
    language, and sent as ``message_object``), when to try again, and the state it was refused in."""
    error = Refused(params.get("reason_object") or params["reason"], retry_after_s=params.get("retry_after_s"))
    error.data["state"] = params.get("state")
    return error


def render_safely(message: i18n.Message, lang: str | None) -> str:
    """A message's text; one the renderer cannot show is logged and shown by its id, because an
    event or a status line must never fail (a failure while applying actions halts the launcher)."""
    try:
        return i18n.render(message, lang)
    except Exception:
        log.exception("cannot render %r", message)
        return str(message.get("id"))


# Keys whose message object stays under the key, its text beside it as ``X_text``: the API names
# them as objects (status ``pending``: null, or what waits for a press and why).
OBJECT_KEYS = frozenset({"pending", "press_reason"})


def with_texts(params: Mapping[str, Any], lang: str | None) -> dict[str, Any]:
    """``params`` with each message object ``X`` shown as its text ``X`` (in ``lang``; None: the
    request's) and kept as it is in ``X_object``, beside it (``OBJECT_KEYS``: the object as ``X``
    and the text as ``X_text``)."""
    shown: dict[str, Any] = {}
    for key, value in params.items():
        if key in OBJECT_KEYS:
            shown[key] = value
            shown[f"{key}_text"] = render_safely(value, lang) if i18n.is_message(value) else None
        elif i18n.is_message(value):
            shown[key] = render_safely(value, lang)
            shown[f"{key}_object"] = value
        else:
            shown[key] = value
    return shown


__all__ = ["refusal", "register", "register_blaster", "render_safely", "with_texts"]
