"""A simulated card blaster on mock pins, for ``launcherd --sim`` with ``[device] kind = "blaster"``.

Like :class:`firmware.launcher.sim.SimulatedMechanism`, it sits on the far side of the pins: it drives the
slot sensor pins that :class:`~firmware.blaster.hardware.BlasterHardware` reads and watches the actuator
pin it drives (a pin from :func:`firmware.launcher.sim.sim_pin_factory` reports its changes), so the daemon
runs the code it runs on a Pi. It needs only ``loop.call_later`` and ``loop.time``.

- :meth:`insert` puts a card in slot N, or the first empty slot; an unknown or full slot is
  refused (``InvalidParams`` / ``Refused``). :func:`setup` serves it as ``sim/insert``.
- ``eject_ms`` after the actuator goes on, every full slot empties: the blast. With
  ``jam_chance`` (or after :meth:`jam_next`) one card sticks and its slot stays full until
  :meth:`clear`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from firmware.daemon.registry import Param
from firmware.daemon.device import DaemonHost
from firmware.config import Section
from firmware.errors import InvalidParams, Refused
from firmware.launcher.sim import KeptState

# How long after the release goes on the cards have left their slots.
EJECT_MS = 40


class SimulatedBlaster:
    """The slots and the release of a blaster, on the pins of ``factory``.

    :param blaster: the checked ``[blaster]`` section (pins, slot count, sensor level).
    :param loop: ``call_later(delay, fn)`` and ``time()``; an asyncio loop or a test's fake.
    :param rng: decides jams, so a seeded run repeats.
    :param jam_chance: chance that one card sticks at a blast (``[sim] jam_chance``).
    """

    def __init__(self, blaster: Section, factory: MockFactory, loop, rng: random.Random,
                 jam_chance: float = 0.0, state_dir: Path | None = None):
        self._loop = loop
        self._rng = rng
        self._jam_chance = jam_chance
        self._jam_next = False
        self._slots = [factory.pin(pin) for pin in blaster.slot_pins]
        self._full_low = blaster.slot_full == "low"
        self._full = [False] * len(self._slots)
        self._stuck: int | None = None  # index of the slot whose card is stuck
        self._inserting: int | None = None  # the API request whose card is going in now
        self._eject_timer = None
        self._actuator = factory.pin(blaster.actuator)
        self._actuator.add_listener(self._on_actuator)
        # ``state_dir``: the cards in the slots are kept there, and a restart finds them in place
        # (driven before the daemon reads the slots: loaded cards, not insertions).
        self._kept = None if state_dir is None else KeptState(state_dir, "blaster")
        kept = {} if self._kept is None else self._kept.load()
        full = kept.get("slots")
        if not (isinstance(full, list) and len(full) == len(self._slots) and all(isinstance(f, bool) for f in full)):
            full = [False] * len(self._slots)
        stuck = kept.get("stuck")
        self._stuck = stuck if isinstance(stuck, int) and not isinstance(stuck, bool) and stuck in range(
            len(self._slots)) and full[stuck] else None
        for index, loaded in enumerate(full):
            self._drive(index, loaded)

    @property
    def slots(self) -> list[bool]:
        """Which slots hold a card, slot 1 first."""
        return list(self._full)

    def _drive(self, index: int, full: bool) -> None:
        self._full[index] = full
        pin = self._slots[index]
        if full == self._full_low:
            pin.drive_low()
        else:
            pin.drive_high()
        if self._kept is not None:
            self._kept.keep({"slots": list(self._full), "stuck": self._stuck})

    @property
    def inserting_for(self) -> int | None:
        """The API request whose card is going in now (the sensor's edge is reported while the
        card goes in: mock pins call back at once); None otherwise."""
        return self._inserting

    def insert(self, slot: int | None = None, request: int | None = None) -> int:
        """Put a card in ``slot`` (from 1), or the first empty one; returns the slot used.

        ``request``: the API request behind it (see :attr:`inserting_for`).
        """
        if slot is None:
            empty = [n for n, full in enumerate(self._full, 1) if not full]
            if not empty:
                raise Refused("every slot is full")
            slot = empty[0]
        if isinstance(slot, bool) or not isinstance(slot, int) or not 1 <= slot <= len(self._full):
            raise InvalidParams(f"slot must be a whole number from 1 to {len(self._full)}, not {slot!r}")
        if self._full[slot - 1]:
            raise Refused(f"slot {slot} is full")
        self._inserting = request
        try:
            self._drive(slot - 1, True)
        finally:
            self._inserting = None
        return slot

    def jam_next(self) -> None:
        """The next blast leaves one card stuck."""
        self._jam_next = True

    def clear(self) -> None:
        """Pull the stuck card out."""
        if self._stuck is not None:
            stuck, self._stuck = self._stuck, None
            self._drive(stuck, False)

    def _on_actuator(self, pin) -> None:
        if pin.state and self._eject_timer is None:
            self._eject_timer = self._loop.call_later(EJECT_MS / 1000, self._eject)

    def _eject(self) -> None:
        self._eject_timer = None
        loaded = [i for i, full in enumerate(self._full) if full]
        stuck = None
        if loaded and (self._jam_next or self._rng.random() < self._jam_chance):
            stuck = self._rng.choice(loaded)
        self._jam_next = False
        self._stuck = stuck
        for index in loaded:
            if index != stuck:
                self._drive(index, False)

    def get_status(self) -> dict[str, Any]:
        """``slots`` (which hold a card, slot 1 first) and ``stuck`` (the slot of a stuck card)."""
        return {"slots": self.slots, "stuck": None if self._stuck is None else self._stuck + 1}

    def close(self) -> None:
        self._actuator.remove_listener(self._on_actuator)
        if self._eject_timer is not None:
            self._eject_timer.cancel()
            self._eject_timer = None
        if self._kept is not None:
            self._kept.close()


def setup(host: DaemonHost) -> None:
    """The blaster's ``sim/*`` API methods of ``host.sim``, loaded by ``launcherd --sim`` only."""
    sim = host.sim
    slots = len(sim.slots)

    def then_status(act):
        def handler(params: dict) -> dict:
            act(params)
            return host.get_status()
        return handler

    r = host.registry.register
    r("sim/insert", lambda p: host.await_outcome(lambda request: sim.insert(p["slot"], request)),
      {"slot": Param(int, None, 1, slots)},
      doc="sim: a card goes into slot N, or the first empty one; answered with the insertion's outcome")
    r("sim/jam", then_status(lambda p: sim.jam_next()), doc="sim: at the next blast one card sticks")
    r("sim/clear", then_status(lambda p: sim.clear()), doc="sim: pull the stuck card out")


__all__ = ["EJECT_MS", "SimulatedBlaster", "setup"]
