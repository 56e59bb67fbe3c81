"""How late the guest's own timers fire, on one vCPU: the emulator's share of a late stop or a stall.

Run by `rig.GuestLateness`, one per CPU of the guest, pinned to it, at real-time priority
(SCHED_FIFO, below the rig's bounce writer): nothing of the guest's ordinary work (launcherd, the
test, journald) can hold it up, so a wake-up that comes late means that the vCPU itself did not
run (the host had not scheduled QEMU's thread, or TCG was busy elsewhere) or the guest's kernel did
not let anything run. It sleeps PERIOD_S at a time and prints each wake-up later than LATE_S as
`start end` (CLOCK_MONOTONIC seconds, the clock of launcherd's loop and of `time.perf_counter()`
in the tests): from when it should have woken to when it did.

    python3 lateness.py CPU
"""

from __future__ import annotations

import os
import sys
import time

PERIOD_S = 0.010
LATE_S = 0.015  # one tick of a 100 Hz guest clock and some: a wake-up later than this is a gap
PRIORITY = 20


def main(cpu: int) -> None:
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(PRIORITY))
    print("ready", flush=True)
    while True:
        due = time.monotonic() + PERIOD_S
        time.sleep(PERIOD_S)
        woke = time.monotonic()
        if woke - due > LATE_S:
            print(f"{due:.6f} {woke:.6f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]))
