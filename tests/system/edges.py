"""After `SYSTEMTEST_TRACE=1 make systemtest`: did the kernel report every edge the test wrote?

    python3 tests/system/edges.py [build/systemtest]

Reads the test's writes to the input lines (`pulls.txt`: CLOCK_MONOTONIC seconds, line, level)
and the kernel's trace on the same clock (`ftrace.txt`). gpiolib's edge thread (`irq/N-lg`)
reads the line's level for each edge it reports (the `gpio_value ... get` events); an edge whose
level it never read before the next write was merged with the next one and never reached
lgpio, gpiozero or the daemon. For the beam, it also gives how long each block lasted as the
edge thread read it (low, then high): every one longer than beam_filter_ms is a card the kernel
handed on, so a card the daemon did not count was lost above the kernel. Runs on the host with
the standard library only.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LINES = {17: "button", 27: "beam", 22: "lid"}  # the test config's input lines
HELD_S = 0.002
BEAM_FILTER_S = 0.002  # the shipped beam_filter_ms, which the test config keeps
TRACE_LINE = re.compile(r"^\s*(?P<task>\S+)-\d+\s+\[\d+\]\s+\S+\s+(?P<t>[\d.]+): (?P<event>\w+): (?P<rest>.*)$")


def chip_base(results: Path) -> int:
    """The global number of the chip's line 0, from debugfs ("gpiochip0: GPIOs 512-539")."""
    text = (results / "gpio-debug.txt").read_text() if (results / "gpio-debug.txt").exists() else ""
    match = re.search(r"GPIOs (\d+)-\d+, parent: platform/gpio-sim", text)
    return int(match.group(1)) if match else 512


def edge_reads(results: Path) -> dict[int, list[tuple[float, int]]]:
    """Global GPIO number -> [(time, level)] read by gpiolib's edge threads."""
    reads: dict[int, list[tuple[float, int]]] = defaultdict(list)
    with (results / "ftrace.txt").open() as trace:
        for line in trace:
            match = TRACE_LINE.match(line)
            if not match or match["event"] != "gpio_value" or not match["task"].startswith("irq/"):
                continue
            gpio, op, value = match["rest"].split()
            if op == "get":
                reads[int(gpio)].append((float(match["t"]), int(value)))
    return reads


def report(results: Path) -> list[str]:
    writes: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for row in (results / "pulls.txt").read_text().splitlines():
        stamp, line, level = row.split()
        writes[int(line)].append((float(stamp), 0 if level == "down" else 1))
    reads, base = edge_reads(results), chip_base(results)
    out = []
    for line, name in LINES.items():
        ws, rs = writes.get(line, []), reads.get(base + line, [])
        merged, late = [], []
        for index, (stamp, level) in enumerate(ws):
            if index and ws[index - 1][1] == level:
                continue  # no change, no edge
            end = ws[index + 1][0] if index + 1 < len(ws) else float("inf")
            seen = [t for t, v in rs if stamp <= t < end and v == level]
            if seen:
                late.append(seen[0] - stamp)
            elif index:
                merged.append((stamp, level, end - stamp))
        late.sort()
        out.append(f"{name} (line {line}, GPIO {base + line}): {len(ws)} writes, {len(rs)} edge-thread reads")
        if late:
            out.append(f"  write to the edge thread's read: p50 {late[len(late) // 2] * 1e3:.2f} ms, "
                       f"max {late[-1] * 1e3:.2f} ms")
        # A bounce merged with the next one is harmless; a level held this long and never
        # reported is an edge lost below the daemon.
        held = [edge for edge in merged if edge[2] > HELD_S]
        out.append(f"  edges never read at their level before the next write: {len(merged)}, "
                   f"{len(held)} of them held longer than {HELD_S * 1e3:.0f} ms")
        out += [f"    at {t:.6f} s to {'up' if v else 'down'}, next write {gap * 1e3:.2f} ms later"
                for t, v, gap in (held or merged)[:20]]
        if name == "beam":
            blocks = block_lengths(rs)
            if blocks:
                out.append(f"  blocks as the edge thread read them: {len(blocks)}, shortest"
                           f" {min(blocks) * 1e3:.2f} ms, {sum(b < BEAM_FILTER_S for b in blocks)} under"
                           f" beam_filter_ms ({BEAM_FILTER_S * 1e3:.0f} ms)")
    return out


def block_lengths(reads: list[tuple[float, int]]) -> list[float]:
    """Seconds from each low read (blocked) to the next high read (clear) of the beam line."""
    lengths, blocked_at = [], None
    for t, level in reads:
        if level == 0 and blocked_at is None:
            blocked_at = t
        elif level == 1 and blocked_at is not None:
            lengths.append(t - blocked_at)
            blocked_at = None
    return lengths


if __name__ == "__main__":
    print("\n".join(report(Path(sys.argv[1] if len(sys.argv) > 1 else "build/systemtest"))))
