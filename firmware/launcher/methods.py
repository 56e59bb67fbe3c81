"""The launcher's API methods: each turns a request into an event for the core.

They use the daemon's two primitives (``DaemonHost``, ``firmware/daemon/device.py``): ``host.await_outcome(trigger)``
for a press (answered with its own outcome, by request id) and ``host.request(event)`` for the rest
(answered with the status, or the core's refusal). ``launcher/dispense`` (exact, through jams,
misfeeds and reloads) is the dealer's (``firmware/extras/dispense.py``).
"""

from __future__ import annotations

from firmware import i18n
from firmware.daemon.registry import Param
from firmware.daemon.device import DaemonHost
from firmware.errors import Unavailable
from firmware.events import Dispense, Launch, PressMeaning, Refill, Reload, Resume, Retract


def register(host: DaemonHost) -> None:
    r = host.registry.register
    r("launcher/press", lambda p: _press(host), doc="sim: press the physical button; waits for the outcome")
    r("launcher/launch", lambda p: host.await_outcome(lambda request: host.feed(Launch("api", request))),
      doc="a press from software; waits for the outcome")
    r("launcher/feed",
      lambda p: host.await_outcome(lambda request: host.feed(Dispense(p["count"], "dispense", request))),
      {"count": Param(int, minimum=1, maximum=500)},
      doc="one run of the motor for up to count cards, answered as it ends (no retry)")
    r("launcher/retract", lambda p: host.request(Retract()), doc="reverse pulse")
    r("launcher/resume", lambda p: host.request(Resume("api")),
      doc="a person says go on: what waits for a press (status pending) may move; the press of the button does the same")
    r("launcher/press-means", lambda p: _press_means(host, p),
      {"means": Param(str, choices=("policy", "cards", "nothing")), "cards": Param(int, None, 1, 500),
       "player": (str, None), "reason": (dict, None)},
      doc="what a press of the button (or launcher/launch) means from now on: the ejection policy's burst,"
          " exactly cards cards (for player), or nothing (reason: a message object saying what to settle first)")
    r("launcher/reload", lambda p: host.request(refilled(host, Reload(p["cards"]))),
      {"cards": Param(int, minimum=0, maximum=10000)}, doc="the hopper now holds this many cards")
    r("launcher/latency", lambda p: host.device.press_trace.figures(),
      doc="where the last presses' time went, edge to motor (firmware/daemon/trace.py)")


def refilled(host: DaemonHost, event: Reload | Refill) -> Reload | Refill:
    """``event`` (a reload or a refill of the hopper), after the simulated mechanism's hopper got
    the same cards: in the sim the table's refill is the mechanism's too."""
    if host.sim is not None and event.cards is not None:
        host.sim.reload(event.cards)
    return event


async def _press(host: DaemonHost) -> dict:
    if host.sim is None:
        raise Unavailable(i18n.message("press_needs_sim"))
    return await host.await_outcome(host.sim.press)


def _press_means(host: DaemonHost, params: dict) -> dict:
    status = host.request(PressMeaning(params["means"], params["cards"], params["player"], params["reason"]))
    host.press_meaning_told()
    return status


__all__ = ["refilled", "register"]
