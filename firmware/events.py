"""What goes into the launcher core (events) and what comes out of it (actions).

The core is sans-IO: the daemon turns pin edges and API calls into these events, feeds them to
``Launcher.handle(event, now)`` with the loop's clock, and applies the actions it returns to the
devices. Times are seconds as floats (``loop.time()`` in the daemon, anything in tests).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

# ---- events: into the core ------------------------------------------------------------------


@dataclass(frozen=True)
class ButtonLevel:
    """The launch button's raw level changed (already mapped from the pin's active level).

    ``request`` is the id of the API request that drove the edge (the simulated button), if any:
    the press this edge leads to reports its outcome with that id. ``debounced``: the pin backend
    has already seen the level hold ``button_debounce_ms`` (lgpio's debounce,
    :func:`firmware.launcher.hardware.debounces_on_edge_times`), so it counts at once.
    """

    pressed: bool
    request: int | None = None
    debounced: bool = False


@dataclass(frozen=True)
class BeamLevel:
    """The exit beam's raw level changed: ``blocked`` is True while something is in the slot."""

    blocked: bool


@dataclass(frozen=True)
class LidLevel:
    """The hopper lid switch changed."""

    open: bool


@dataclass(frozen=True)
class InputLevels:
    """Every input's logical level, read once by the driver right after building the core.

    Levels are not edges: a button held at start is no press (it must be released first), a beam
    blocked at start is a block that began then, a lid open at start stops the launcher as an
    opening would. ``lid`` is None without a lid switch.
    """

    button: bool
    beam: bool
    lid: bool | None = None


@dataclass(frozen=True)
class Tick:
    """The deadline the core asked for (``next_deadline()``) has come.

    ``button`` is the button's level read from the line as it came (None: not read). The
    backend's thread can hand an edge over after the deadline it should have moved (under load,
    a bounce's last edge arrived after the debounce time and the bounce passed for a press); a
    level that differs from the last edge is taken, as an edge now, before any deadline runs.
    """

    button: bool | None = None


@dataclass(frozen=True)
class Launch:
    """A press from software: the same as a debounced button press.

    ``request`` is the caller's id; every ``Emit`` about the outcome of this press carries it as
    ``params["request"]`` so that the driver answers exactly the caller that asked.
    """

    source: str = "api"
    request: int | None = None


@dataclass(frozen=True)
class Dispense:
    """Eject exactly ``count`` cards, no randomness (classic-UNO dealing, penalties).

    ``duty`` runs this dispense at another duty than ``[motor] duty`` and ``kick`` False leaves
    out the start-up kick: calibration measures the feed at a few plain duties this way.
    """

    count: int
    source: str = "api"
    request: int | str | None = None  # as for Launch
    duty: float | None = None
    kick: bool = True


@dataclass(frozen=True)
class Retract:
    """Run the reverse pulse that pulls a half-fed card back in."""


@dataclass(frozen=True)
class SleepNow:
    """Go to sleep now, as if the inactivity timer had run out."""


@dataclass(frozen=True)
class Wake:
    """Wake from sleep without launching."""


@dataclass(frozen=True)
class Reload:
    """The hopper has been refilled and now holds ``cards`` cards."""

    cards: int


@dataclass(frozen=True)
class Refill:
    """The answer to a ``refill_wanted`` gesture: the hopper now holds ``cards`` (None: unknown).

    Unlike ``Reload`` it confirms on the chime and the LED, since nobody is at a terminal.
    """

    cards: int | None
    source: str = "button"


@dataclass(frozen=True)
class Jog:
    """Run the motor ``direction`` at ``duty`` for ``ms``, within every limit a launch has.

    ``standby``: with the driver in standby, so a wheel that turns shows a miswired standby pin.
    """

    direction: str
    ms: int
    duty: float
    standby: bool = False
    request: int | str | None = None


@dataclass(frozen=True)
class Bench:
    """Bring-up mode for ``seconds`` from now (each ``Bench`` renews it; 0 ends it).

    While it lasts every raw input edge and motor change is emitted as ``trace`` with its time,
    a button press launches nothing, and the beam blocked with the motor still is a hand in the
    slot, neither a card nor a jam. It lapses by itself so that a bring-up client that dies
    cannot leave the button dead.

    ``on_purpose`` False: bench mode a bring-up method enters by itself (calibration's feed, the
    inputs' watch), not ``bringup/bench``; it is not entered while something waits for a press,
    for bench mode lets the motor run then (#36). It is renewed if it is on.
    """

    seconds: float
    on_purpose: bool = True


@dataclass(frozen=True)
class Identify:
    """Flash the LED and/or sound the chime so that a person can check them."""

    led: bool = True
    chime: bool = True


@dataclass(frozen=True)
class EStop:
    """Emergency stop: shut down with this reason until ``Reset``."""

    reason: str = "emergency stop"


@dataclass(frozen=True)
class Reset:
    """Leave the halted state: a person's deliberate reset (``source``: ``api``, or ``button``
    for the launch button held ``[button] reset_hold_ms``)."""

    source: str = "api"


@dataclass(frozen=True)
class Hold:
    """Something of ``owner``'s (a dispense, a deal) waits for a person's press before it moves;
    ``what`` says what and why (a message object), None: it no longer waits."""

    owner: str
    what: Any = None


@dataclass(frozen=True)
class Resume:
    """A person's deliberate "go on" (``launcher/resume``, the page): what waits may move now."""

    source: str = "api"
    request: int | str | None = None


@dataclass(frozen=True)
class PressMeaning:
    """What a person's press (the button, ``Launch``) means from now on, as the game says it.

    ``means``: ``"policy"`` (the ejection policy's burst: UNO Attack, no game), ``"cards"`` (exactly
    ``cards`` cards, whatever the profile: a dealer game's draw, for ``player``), or ``"nothing"``
    (a decision is pending: the press is ``ignored`` with ``reason``, a message object saying what
    to settle first). Set ahead of the press, so that the motor's loop never waits on the game.
    """

    means: str = "policy"
    cards: int | None = None
    player: str | None = None
    reason: Any = None


@dataclass(frozen=True)
class Cancel:
    """End the running dispense asked with ``request`` now (what it was for is over): the motor
    stops as after a count, and its ``launched`` says ``ended = "cancelled"``."""

    request: int | str | None


@dataclass(frozen=True)
class Restore:
    """Fed once at start, before ``InputLevels``: what the last run left in the latch file
    (``firmware/daemon/latch.py``). ``halt``: the reason to come up ``halted`` with (None: none);
    ``on_time``: the motor's on-time record in the core's clock (None: rested)."""

    halt: Any = None
    on_time: Any = None


Event = (
    ButtonLevel | BeamLevel | LidLevel | InputLevels | Tick | Launch | Dispense | Retract | SleepNow | Wake
    | Reload | Refill | Jog | Bench | Identify | EStop | Reset | Hold | Resume | Cancel | Restore | PressMeaning
)

# Runs an on-time record keeps for the duty window; more are merged (OnTimeRecord.bounded): a
# record must fit the latch file's slot.
MAX_RUNS = 48


def bound_runs(runs: deque[tuple[float, float]]) -> None:
    """At most ``MAX_RUNS`` runs, oldest first: the oldest is moved to end where the next begins,
    which keeps every second of on-time and only keeps it in the window longer (the safe side)."""
    while len(runs) > MAX_RUNS:
        (a, b), (c, d) = runs.popleft(), runs.popleft()
        runs.appendleft((c - (b - a), d))


@dataclass(frozen=True)
class OnTimeRecord:
    """The motor's on-time as the core keeps it (``firmware/launcher/core.py`` ``_OnTime``), in the core's
    clock: the current chain's finished on-time, when the motor last stopped (None: never ran),
    when the running motor started (None: off), and the finished runs in the duty window."""

    chain: float = 0.0
    off_since: float | None = None
    on_since: float | None = None
    runs: tuple[tuple[float, float], ...] = ()

    def bounded(self) -> "OnTimeRecord":
        """At most ``MAX_RUNS`` runs (a record written by an older version may hold more)."""
        runs = deque(self.runs)
        bound_runs(runs)
        return OnTimeRecord(self.chain, self.off_since, self.on_since, tuple(runs))

    def to_ages(self, now: float) -> dict[str, Any]:
        def age(t: float | None) -> float | None:
            return None if t is None else round(now - t, 4)
        return {"chain": round(self.chain, 4), "off": age(self.off_since), "on": age(self.on_since),
                "runs": [[age(a), age(b)] for a, b in self.bounded().runs]}

    @classmethod
    def from_ages(cls, ages: dict[str, Any], now: float, max_on: float) -> "OnTimeRecord":
        """The record at ``now`` from its ages (already grown by the time since it was written).

        A run still going when the process ended has no end on record: it is taken as ended
        where the core would have cut it (its start plus what was left of ``max_on``), or now if
        that is sooner. The motor then rests from that moment."""
        def at(value: Any) -> float | None:
            return None if value is None else now - float(value)
        chain = float(ages.get("chain", 0.0))
        off_since, on_since = at(ages.get("off")), at(ages.get("on"))
        runs = [(now - float(a), now - float(b)) for a, b in ages.get("runs", [])]
        if on_since is not None:
            end = min(now, on_since + max(0.0, max_on - chain))
            chain += end - on_since
            runs.append((on_since, end))
            off_since = end
        return cls(chain, off_since, None, tuple(runs))


# ---- actions: out of the core ---------------------------------------------------------------


@dataclass(frozen=True)
class Motor:
    """Drive the motor: ``direction`` forward/reverse at ``duty`` (0-1], or stop."""

    direction: Literal["forward", "reverse", "stop"]
    duty: float = 0.0


@dataclass(frozen=True)
class DriverEnable:
    """Enable or disable the motor driver (standby pin); disabled while sleeping or halted."""

    on: bool


@dataclass(frozen=True)
class Led:
    """The button LED: ``off``, ``on`` at ``brightness``, or ``flash`` with the given period.

    A flash with ``count`` None keeps flashing until the next Led action.
    """

    mode: Literal["off", "on", "flash"]
    brightness: float = 1.0
    period_ms: int = 0
    count: int | None = None


@dataclass(frozen=True)
class Chime:
    """Sound the chime ``count`` times, each ``ms`` long, ``gap_ms`` apart."""

    count: int = 1
    ms: int = 120
    gap_ms: int = 80


@dataclass(frozen=True)
class Emit:
    """Publish an event to API subscribers and to layers (the controller)."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Persist:
    """Keep this in the latch file (``firmware/daemon/latch.py``), for the next start: ``halt`` (the
    reason while halted, else None) and ``on_time`` (the motor's on-time record), as of ``at``
    in the core's clock. Returned whenever either changed."""

    halt: Any
    on_time: Any
    at: float


Action = Motor | DriverEnable | Led | Chime | Emit | Persist
