"""The press rule has one keeper (issue #36), as a property over random sequences (hypothesis).

The motor's side as launcherd runs it, sans-IO on one fake clock: the real core, the real dealer,
a fake mechanism (``test_dealer.Table``) and the press rule's keeper (firmware/daemon/keeper.py)
fed what the door feeds it: each game request as it is served, each launcher event as it is
forwarded, the game layer's starts. The game is the worst it could be: at random moments it asks
a dispense under any cause it ever had (a deal task an undo should have stopped, a task started by
``game uno``, the setup's), as the door would judge it. People press the button, undo, resume,
abandon, restart, e-stop and reset, and somebody on the socket tries a feed, a launch, a jog or a
reverse pulse. Whatever happens:

- the motor starts a dealer's run only for a dispense whose cause was a person's press or an
  action whose own effect is that deal with no interruption since (or a press after the last
  interruption answered it), or after a person's press that came once it was asked;
- while anything waits for a press, nothing from the socket moves the motor (a launch is the
  button's press: it lets what waits go on, and launches nothing).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.daemon.keeper import DEALING_ACTIONS, INTERRUPTIONS, PRESS, REQUEST, Cause, PressKeeper
from firmware.events import ButtonLevel, Dispense, EStop, Jog, Launch, Reset, Retract, Tick
from test_dealer import Table

ACTIONS = sorted(DEALING_ACTIONS) + ["game/uno", "game/hint", "game/pass", "game/status", "game/edit-round"]
STEPS = ("action", "action", "interrupt", "restart", "ask", "ask", "ask", "press", "press", "estop",
         "socket", "socket")
SOCKET = ("feed", "launch", "jog", "retract")


class KeptTable(Table):
    """The dealer's table with the keeper beside it, as launcherd has them."""

    def __init__(self, **options):
        super().__init__(**options)
        self.keeper = PressKeeper()
        self.history: list[tuple[str, Cause]] = []  # ("cause" | "interruption" | "press", when), in order
        self.asked: dict[int, tuple[Cause, int]] = {}  # job -> its cause, and the history's length then
        self.rises: list[tuple[object, int]] = []  # (the request whose run started, history length)

    def _dispatch(self, name, params):
        cause = self.keeper.event(name, params)  # GameHost.forward, before the layers hear it
        if cause.kind == PRESS:
            self.history.append(("press", cause))
        elif name == "halted":
            self.history.append(("interruption", cause))
        if name == "press":
            self.rises.append((params["request"], len(self.history)))
        super()._dispatch(name, params)

    def _chore(self, name, delay, fn):
        if name != "press":  # a jam is cleared and the hopper reloaded; presses are the script's
            super()._chore(name, delay, fn)

    def ask(self, count: int, request: int, cause: Cause) -> None:
        """The game's ``launcher/dispense`` through the door: judged, then asked."""
        self.asked[request] = (cause, len(self.history))
        after = self.keeper.judge(cause)
        self._dealer_out(self.dealer.start(count, request, self.now, state=self.core.get_status()["state"],
                                           wait_press=after if after is not None else False))


def licensed(history: list[tuple[str, Cause]], cause: Cause, asked_at: int) -> bool:
    """The issue's rule, read off the history up to the ask: a press after the last interruption
    answers what came before it; else an interruption after the cause ends it; else a press or an
    action whose effect is a deal moves, and nothing else does."""
    seen = history[:asked_at]
    last = max((i for i, (kind, _) in enumerate(seen) if kind == "interruption"), default=-1)
    if any(kind == "press" and cause.token < c.token for kind, c in seen[last + 1:]):
        return True
    if last >= 0 and cause.token <= seen[last][1].token:
        return False
    return cause.kind == PRESS or (cause.kind == REQUEST and cause.name in DEALING_ACTIONS)


@st.composite
def scripts(draw):
    steps = draw(st.lists(st.tuples(st.sampled_from(STEPS), st.floats(0.0, 3.0), st.integers(0, 1000)),
                          min_size=1, max_size=25))
    return {"seed": draw(st.integers(0, 2**16)), "jam_chance": draw(st.sampled_from([0.0, 0.1, 0.3])),
            "steps": steps}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_the_motor_starts_only_after_a_press_or_the_action_whose_effect_it_is(script):
    table = KeptTable(seed=script["seed"], hopper=500, pace=0.02, jam_chance=script["jam_chance"],
                      clear_after=(0.2, 1.0))
    table.capacity = 500
    causes: list[Cause] = []
    socket_moves: list[tuple[str, bool, list]] = []

    def cause_now(kind: str, pick: int) -> None:
        if kind == "action":
            cause = table.keeper.request(ACTIONS[pick % len(ACTIONS)])
            table.history.append(("cause", cause))
        elif kind == "interrupt":
            cause = table.keeper.request(sorted(INTERRUPTIONS)[pick % len(INTERRUPTIONS)])
            table.history.append(("interruption", cause))
        else:
            cause = table.keeper.started()
            table.history.append(("interruption", cause))
        causes.append(cause)

    def press() -> None:
        table.feed(ButtonLevel(True))
        table.at(table.now + 0.05, table.feed, ButtonLevel(False))

    def socket(pick: int) -> None:
        what = SOCKET[pick % len(SOCKET)]
        event = {"feed": Dispense(3, "dispense", f"socket-{pick}"), "launch": Launch("api", f"socket-{pick}"),
                 "jog": Jog("forward", 50, 0.5, request=f"socket-{pick}"), "retract": Retract()}[what]
        # The core runs what is due by now before the request (a press's debounce ending at this
        # very moment lets what waits go on first): whether a press is awaited is read after that.
        table.feed(Tick())
        held = table.core.get_status()["pending"] is not None
        before = len(table.events)
        table.feed(event)
        socket_moves.append((what, held, [name for _, name, _ in table.events[before:]]))

    when = 0.0
    for number, (step, gap, pick) in enumerate(script["steps"]):
        when += gap
        if step in ("action", "interrupt", "restart"):
            table.at(when, cause_now, step, pick)
        elif step == "ask":
            # Any cause the game ever had, the newest most often (None: before the first).
            table.at(when, lambda pick=pick, number=number: table.ask(
                1 + pick % 9, number, causes[-1 - pick % len(causes)] if causes else None))
        elif step == "press":
            table.at(when, press)
        elif step == "estop":
            table.at(when, table.feed, EStop("test"))
            table.at(when + 0.5, table.feed, Reset())
        else:
            table.at(when, socket, pick)
    table.run(until=when + 30)

    for request, at in table.rises:
        if not str(request).startswith("dealer:"):
            continue  # a press of the button, or a request from the socket (judged below)
        job = next(number for number, _ in table.asked.items() if table._runs.get(request) == number)
        cause, asked_at = table.asked[job]
        pressed_since = any(kind == "press" for kind, _ in table.history[asked_at:at])
        ok = cause is not None and licensed(table.history, cause, asked_at)
        assert ok or pressed_since, f"job {job} ran for {cause} with no press since it was asked"
    for what, held, said in socket_moves:
        if held:
            assert "press" not in said and "jogged" not in said, f"{what} moved while a press was awaited: {said}"
            # A launch lets what waits go on, or is ignored where the button would be too (the
            # socket's own dispense still running): either way it moves nothing.
            assert ({"resume", "ignored"} & set(said)) if what == "launch" else ("refused" in said), (what, said)
