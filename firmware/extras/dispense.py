"""``launcher/dispense`` and ``launcher/cancel``: the dealer (``firmware/extras/dealer.py``) on the
motor's loop, loaded by name through :func:`setup` (``firmware/daemon/loading.py``).

It runs there, not beside the game: what the dealer returns is fed to the core right after the
batch of core actions that led to it (``loop.call_soon``), in the order of the core's own events,
which is what keeps a dispense from ever asking for card N+1.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from firmware.daemon.registry import Param
from firmware.daemon.device import DaemonHost
from firmware.daemon.replies import with_texts
from firmware.daemon.waiting import DeadlineTimer, Waiters
from firmware.errors import InvalidParams
from firmware.events import Emit
from firmware.extras.dealer import (
    ABANDONED, DONE, FAILED, OUTCOME, WAIT_PRESS_SHOWN, Dealer, Output, wait_reason,
)
from firmware.i18n import message


class DealerService:
    """Runs a :class:`Dealer` on the daemon's loop and serves ``launcher/dispense`` with it.

    Every launcher event goes to the dealer (a ``subscribe`` listener); what it returns is applied
    with ``loop.call_soon``, after the batch of core actions that led to it, so that subscribers
    hear the core's events in their order: core events are fed with ``host.feed``, the dealer's
    own are published. Everything the dealer returns is applied in the order it returned it: a
    request (``launcher/cancel``, another dispense) or the deadline handled before such a
    ``call_soon`` came due applies the earlier outputs first, for they were decided before it (a
    ``Hold`` applied after the cancel that withdrew it would leave the core holding a press for a
    dispense that is gone, and a ``Dispense`` after its ``Cancel`` would deal for a replaced
    match). Its deadline is one loop timer. A ``sim/clear`` needs nothing here: the beam clears,
    the core leaves ``jammed``, and its ``state`` event resumes the dispense.
    """

    def __init__(self, host: DaemonHost, dealer: Dealer | None = None):
        self.host = host
        self.dealer = dealer or Dealer(host.launcher_status()["state"])
        self._timer = DeadlineTimer(host.loop, self._tick)
        self._waiters = Waiters()
        self._ids = itertools.count(1)
        self._outbox: deque[Output] = deque()  # what the dealer returned, not yet applied

    def install(self) -> "DealerService":
        host = self.host
        host.subscribe(self._heard)
        host.register("launcher/dispense", self.dispense, {"count": Param(int, minimum=1, maximum=500),
                                                           "wait_press": _wait_press_param()},
                      doc="eject exactly count cards, through misfeeds, jams (once cleared) and reloads;"
                          f" wait_press (true or {WAIT_PRESS_SHOWN}): only after a person's press"
                          " (status pending says so, and after what); the game's are judged by the"
                          " press rule's keeper (firmware/daemon/keeper.py)")
        host.register("launcher/cancel", self.cancel_all,
                      doc="what the dispenses were for is over: stop the running one, drop the queued ones")
        host.add_status("dealer", self._status)
        host.on_close(self.close)
        return self

    async def dispense(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exactly ``count`` cards; answered with the outcome (``done``, or ``abandoned`` by a halt)."""
        request = next(self._ids)
        with self._waiters.waiting(request) as future:
            status = self.host.launcher_status()
            self._apply(self.dealer.start(params["count"], request, self.host.loop.time(),
                                          state=status["state"], wait_press=params["wait_press"]))
            return with_texts(await future, None)

    def cancel_all(self, params: dict[str, Any]) -> dict[str, Any]:
        """``launcher/cancel``: every dispense is abandoned, the running one stopped at once;
        each caller is answered with the cards it got."""
        status = self.dealer.get_status()
        cancelled = len(status["queued"]) + (status["current"] is not None)
        self._apply(self.dealer.cancel_all(message("dispense_cancelled"), self.host.loop.time()))
        return {"cancelled": cancelled}

    def _status(self) -> dict[str, Any]:
        """The dealer's status, its reason in the request's language."""
        status = self.dealer.get_status()
        current = status["current"]
        return {**status, "current": None if current is None else with_texts(current, None)}

    def close(self) -> None:
        """The daemon stops: every dispense is abandoned and its caller answered."""
        self._apply(self.dealer.cancel(message("daemon_stopping"), self.host.loop.time()))
        self._timer.cancel()

    def _heard(self, name: str, params: dict[str, Any]) -> None:
        loop = self.host.loop
        # The estimate matters only as a run begins (the belief a misfeed is judged by).
        hopper = self.host.hopper if name == "press" else None
        out = self.dealer.on_event(name, params, loop.time(), hopper=hopper)
        if out:
            # The driver is still applying the batch this event is part of: later, in order.
            self._outbox.extend(out)
            loop.call_soon(self._flush)

    def _apply(self, out: list[Output]) -> None:
        self._outbox.extend(out)
        self._flush()

    def _flush(self) -> None:
        """Apply what the dealer returned, oldest first; what feeding the core makes it return
        meanwhile is applied by the same loop, once the core's batch has been applied."""
        while self._outbox:
            item = self._outbox.popleft()
            if isinstance(item, Emit):
                if item.name == OUTCOME:
                    self._waiters.answer(item.params["request"], _reply(item.params))
                self.host.publish(item.name, with_texts(item.params, self.host.language))
            else:
                self.host.feed(item)
        self._timer.rearm(self.dealer.next_deadline())

    def _tick(self) -> None:
        self._apply(self.dealer.tick(self.host.loop.time()))


def setup(host: DaemonHost) -> DealerService:
    return DealerService(host).install()


# The schema's name of wait_press's type (list_methods): true, false or a reason.
_BoolOrReason = type("bool_or_reason", (), {})


def _wait_press_param() -> Any:
    """``launcher/dispense``'s ``wait_press``: a flag or a reason (:func:`wait_reason`)."""
    class WaitPress(Param):
        def check(self, method: str, name: str, value: Any) -> Any:
            try:
                if value is None:  # as a bool parameter refuses it
                    raise InvalidParams(f"wait_press must be true, false, {WAIT_PRESS_SHOWN}, not None")
                wait_reason(value)
            except InvalidParams as exc:
                raise InvalidParams(f"{method}: {exc}") from None
            return value

    return WaitPress(_BoolOrReason, False)


def _reply(params: dict[str, Any]) -> dict[str, Any]:
    """The dealer's outcome with the keys a single launch's outcome has, for existing clients
    (``launcherctl``'s output, the game's deal): ``press_id`` is the last run's."""
    ids = params["press_ids"]
    return {"event": "dispensed", "outcome": "dispense", "press_id": ids[-1] if ids else None,
            "requested": params["count"], "ended": _ENDED[params["state"]], **params}


_ENDED = {DONE: "done", ABANDONED: "halt", FAILED: "refused"}


__all__ = ["DealerService", "setup"]
