"""Calibration, pure: the beam's and the motor's timed edges of a few feeds in, configuration out.

``launcherctl calibrate`` feeds cards at a few duties (``bringup/feed``), then :func:`analyse`
measures each run at the beam and proposes ``[motor] duty``, ``kick_duty``, ``kick_ms`` and
``[timing] card_crossing_ms``, ``jam_ms``, ``feed_timeout_ms``, with the margin each one used;
:func:`update_toml` writes them into a configuration file line by line, keeping its comments and
every other setting.

What is measured, per run (times from the motor's start):

- crossing: how long each card blocks the beam;
- gap: from the beam clearing to the next card blocking it (what the feed timeout waits for);
- period: from one card to the next (the feed rate);
- first feed: from the motor's start to the first card at the beam;
- misfeeds: a run that ran dry (``ended == "empty"``) before its count although cards were left,
  and periods longer than :data:`SLIP_FACTOR` times the run's median period (the wheel slipped once).
"""

from __future__ import annotations

import math
import os
import re
import statistics
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware import i18n
from firmware.config import Config, load_config
from firmware.errors import ConfigError

SLIP_FACTOR = 1.5  # a card that comes one feed late makes a period of about twice the median
# Margins: every proposal is the measurement times a factor, and at least the measurement plus a
# fixed amount, so that short, quick mechanisms keep a usable margin too.
CROSSING_FACTOR, CROSSING_PLUS_MS = 1.5, 5
JAM_FACTOR, JAM_PLUS_MS = 4.0, 100  # the plus is over the proposed card_crossing_ms
FEED_FACTOR, FEED_PLUS_MS = 2.0, 200
KICK_SHARE = 0.5  # of the first-card time at the kick duty: moves the stack, never feeds by itself
KICK_MIN_MS, KICK_MAX_MS = 20, 300
# How each proposal is made, as message objects; :func:`analyse` says them in the current language.
MARGINS = {
    "card_crossing_ms": i18n.message("margin_card_crossing_ms", factor=str(CROSSING_FACTOR), plus=CROSSING_PLUS_MS),
    "jam_ms": i18n.message("margin_jam_ms", factor=str(JAM_FACTOR), plus=JAM_PLUS_MS),
    "feed_timeout_ms": i18n.message("margin_feed_timeout_ms", factor=str(FEED_FACTOR), plus=FEED_PLUS_MS),
    "duty": i18n.message("margin_duty"),
    "kick_duty": i18n.message("margin_kick_duty"),
    "kick_ms": i18n.message("margin_kick_ms", share=KICK_SHARE, least=KICK_MIN_MS, most=KICK_MAX_MS),
}


class CalibrationError(ConfigError):
    """Calibration cannot propose or write values; the message says why and what to do, in the
    current language (``firmware/i18n.py``)."""

    def __init__(self, message_id: str, **params: Any):
        super().__init__(i18n.render(i18n.message(message_id, **params)))


@dataclass
class RunMeasure:
    """What one feed showed at the beam (milliseconds)."""

    duty: float
    requested: int
    cards: int
    ended: str
    crossings_ms: list[float] = field(default_factory=list)
    gaps_ms: list[float] = field(default_factory=list)
    periods_ms: list[float] = field(default_factory=list)
    first_feed_ms: float | None = None
    misfeeds: int = 0
    jammed: bool = False

    @property
    def clean(self) -> bool:
        return self.cards >= self.requested and not self.misfeeds and not self.jammed

    def as_dict(self) -> dict[str, Any]:
        def r(values: list[float]) -> list[float]:
            return [round(v, 2) for v in values]

        return {
            "duty": self.duty, "requested": self.requested, "cards": self.cards, "ended": self.ended,
            "crossings_ms": r(self.crossings_ms), "gaps_ms": r(self.gaps_ms), "periods_ms": r(self.periods_ms),
            "first_feed_ms": None if self.first_feed_ms is None else round(self.first_feed_ms, 2),
            "misfeeds": self.misfeeds, "jammed": self.jammed, "clean": self.clean,
            "cards_per_second": _rate(self.periods_ms),
        }


def _rate(periods_ms: list[float]) -> float | None:
    return round(1000 / statistics.median(periods_ms), 2) if periods_ms else None


def measure(run: dict[str, Any]) -> RunMeasure:
    """Measure one ``bringup/feed`` result (``beam``: ``[[t, blocked], ...]`` seconds from the start)."""
    result = RunMeasure(float(run["duty"]), int(run["requested"]), int(run["cards"]), str(run["ended"]))
    blocks: list[tuple[float, float | None]] = []
    for t, blocked in run.get("beam", []):
        ms = float(t) * 1000
        if blocked:
            blocks.append((ms, None))
        elif blocks and blocks[-1][1] is None:
            blocks[-1] = (blocks[-1][0], ms)
    result.jammed = run["ended"] == "jam"
    complete = [(a, b) for a, b in blocks if b is not None]
    result.crossings_ms = [b - a for a, b in complete]
    if blocks:
        result.first_feed_ms = blocks[0][0]
    for (a0, b0), (a1, _) in zip(blocks, blocks[1:]):
        result.periods_ms.append(a1 - a0)
        if b0 is not None:
            result.gaps_ms.append(a1 - b0)
    if result.periods_ms:
        typical = statistics.median(result.periods_ms)
        result.misfeeds += sum(1 for period in result.periods_ms if period > SLIP_FACTOR * typical)
    if run["ended"] == "empty" and result.cards < result.requested:
        result.misfeeds += 1  # the feed stopped: a slip, or the hopper really ran out
    return result


def _up(value: float) -> int:
    return int(math.ceil(value - 1e-9))


def analyse(runs: list[dict[str, Any]], config: Config) -> dict[str, Any]:
    """Measure every run and propose the configuration; see :data:`MARGINS` for how.

    Returns ``{"runs": [...], "proposed": {"motor": {...}, "timing": {...}}, "margins": {...},
    "measured": {...}, "warnings": [...]}``. Keys that cannot be measured are not proposed. The
    margins and warnings are texts in the current language (``firmware/i18n.py``).
    """
    measures = [measure(run) for run in runs]
    warnings: list[str] = []
    by_duty: dict[float, list[RunMeasure]] = {}
    for m in measures:
        by_duty.setdefault(m.duty, []).append(m)
    clean = sorted(duty for duty, ms in by_duty.items() if all(m.clean for m in ms))
    for duty, ms in sorted(by_duty.items()):
        if duty not in clean:
            trouble = sum(m.misfeeds for m in ms), sum(m.jammed for m in ms)
            warnings.append(i18n.render(i18n.message(
                "calibrate_warn_duty", duty=duty, misfeeds=i18n.message("n_misfeeds", count=trouble[0]),
                jams=i18n.message("n_jams", count=trouble[1]))))
    proposed: dict[str, dict[str, Any]] = {"motor": {}, "timing": {}}
    timing = config.timing
    measured: dict[str, Any] = {}

    crossings = [c for m in measures if m.clean for c in m.crossings_ms]
    if crossings:
        longest = max(crossings)
        measured["crossing_ms"] = {"median": round(statistics.median(crossings), 2), "max": round(longest, 2)}
        crossing = max(_up(longest * CROSSING_FACTOR), _up(longest) + CROSSING_PLUS_MS, timing.beam_filter_ms + 1)
        proposed["timing"]["card_crossing_ms"] = crossing
        jam = max(_up(longest * JAM_FACTOR), crossing + JAM_PLUS_MS)
        if jam * 2 > timing.launch_timeout_ms:
            warnings.append(i18n.render(i18n.message("calibrate_warn_jam_half", jam=jam,
                                                     launch=timing.launch_timeout_ms)))
            jam = timing.launch_timeout_ms // 2
        proposed["timing"]["jam_ms"] = jam
    else:
        warnings.append(i18n.render(i18n.message("calibrate_warn_no_crossing")))

    if clean:
        duty = clean[1] if len(clean) > 1 else clean[0]
        proposed["motor"]["duty"] = duty
        at_duty = by_duty[duty]
        waits = [w for m in at_duty for w in ([m.first_feed_ms] if m.first_feed_ms is not None else []) + m.gaps_ms]
        if waits:
            longest_wait = max(waits)
            measured["longest_wait_ms"] = round(longest_wait, 2)
            feed = max(_up(longest_wait * FEED_FACTOR), _up(longest_wait) + FEED_PLUS_MS)
            kick_duty = clean[-1]
            firsts = [m.first_feed_ms for m in by_duty[kick_duty] if m.first_feed_ms is not None]
            kick_ms = config.motor.kick_ms
            if firsts:
                kick_ms = min(KICK_MAX_MS, max(KICK_MIN_MS, round(KICK_SHARE * min(firsts))))
                proposed["motor"]["kick_duty"] = kick_duty
                proposed["motor"]["kick_ms"] = kick_ms
            feed = max(feed, kick_ms + 1, 50)
            if feed >= timing.launch_timeout_ms:
                warnings.append(i18n.render(i18n.message("calibrate_warn_feed_slow", feed=feed,
                                                         launch=timing.launch_timeout_ms, duty=duty)))
            else:
                proposed["timing"]["feed_timeout_ms"] = feed
        periods = [p for m in at_duty for p in m.periods_ms]
        if periods:
            rate = 1000 / statistics.median(periods)
            measured["cards_per_second"] = round(rate, 2)
            measured["cards_per_second_at_full_duty"] = round(rate / duty, 2)
    else:
        warnings.append(i18n.render(i18n.message("calibrate_warn_no_duty")))
    for section in ("motor", "timing"):
        if not proposed[section]:
            del proposed[section]
    return {"runs": [m.as_dict() for m in measures], "proposed": proposed, "measured": measured,
            "margins": {key: i18n.render(text) for key, text in MARGINS.items()
                        if any(key in body for body in proposed.values())},
            "warnings": warnings}


def toml_snippet(proposed: dict[str, dict[str, Any]]) -> str:
    lines: list[str] = []
    for section, body in proposed.items():
        if lines:
            lines.append("")
        lines.append(f"[{section}]")
        lines += [f"{key} = {_value(value)}" for key, value in body.items()]
    return "\n".join(lines) + "\n"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(round(value, 4))
    if isinstance(value, int):
        return str(value)
    raise TypeError(f"calibration writes numbers only, not {value!r}")


# ---- the line-based TOML editor ------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")


def _key_line(key: str) -> re.Pattern[str]:
    # key = value, with an optional comment after the value; the value of our keys is one number.
    return re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#\s][^#]*?)(\s*(#.*)?)$")


def update_toml(text: str, values: dict[str, dict[str, Any]], source: str = "<text>") -> str:
    """``text`` with ``values[section][key]`` set, every other line as it was.

    A key already in its section keeps its place, indentation and trailing comment; a missing key
    goes after the section's last line; a missing section is appended. The result is parsed again
    and must hold exactly the new values and every other setting unchanged, or
    :class:`CalibrationError` says the file is too unusual to edit safely (and nothing is written).
    """
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError("calibrate_not_toml", source=source, error=str(exc)) from None
    lines = text.splitlines()
    for section, body in values.items():
        start = next((i for i, line in enumerate(lines) if (m := _HEADER.match(line)) and m.group(1) == section),
                     None)
        if start is None:
            if lines and lines[-1].strip():
                lines.append("")
            lines.append(f"[{section}]")
            lines += [f"{key} = {_value(value)}" for key, value in body.items()]
            continue
        end = next((i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
        for key, value in body.items():
            pattern = _key_line(key)
            at = next((i for i in range(start + 1, end) if pattern.match(lines[i])), None)
            if at is not None:
                lines[at] = pattern.sub(lambda m: m.group(1) + _value(value) + m.group(3), lines[at])
                continue
            last = max((i for i in range(start, end) if lines[i].strip()), default=start)
            lines.insert(last + 1, f"{key} = {_value(value)}")
            end += 1
    result = "\n".join(lines) + "\n"
    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError("calibrate_would_break", source=source, error=str(exc)) from None
    expected = {section: dict(body) for section, body in before.items()}
    for section, body in values.items():
        expected.setdefault(section, {}).update(body)
    if after != expected:
        raise CalibrationError("calibrate_cannot_change", source=source)
    return result


def write_config(path: str | Path, values: dict[str, dict[str, Any]]) -> Config:
    """Update the file at ``path`` in place (atomically, keeping its mode) after checking it loads.

    :raises CalibrationError: the file cannot be read, edited or written, or the result would not
        pass ``launcherd --check-config`` (the message is that check's).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError("calibrate_cannot_read", path=str(path), error=str(exc)) from None
    new_text = update_toml(text, values, str(path))
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, temp = tempfile.mkstemp(prefix=".calibrate-", suffix=".toml", dir=directory)
    except OSError as exc:
        raise CalibrationError("calibrate_cannot_write", path=str(path), error=str(exc.strerror)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(new_text)
        try:
            checked = load_config(temp)
        except ConfigError as exc:
            raise CalibrationError("calibrate_fails_check", path=str(path), error=str(exc)) from None
        if path.exists():
            os.chmod(temp, path.stat().st_mode & 0o7777)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)
    return checked


__all__ = ["CalibrationError", "MARGINS", "RunMeasure", "analyse", "measure", "toml_snippet",
           "update_toml", "write_config"]
