"""`make bench`: launcherd's figures next to their baselines, a table, and bench/results.json.

    .venv/bin/python bench/run.py            # the full run (14-16 minutes loaded), writes bench/results.json
    .venv/bin/python bench/run.py --quick    # a shorter run (about 4 minutes), writes bench/results-quick.json

The sections that do not measure the motor's rest and duty rules set them out of the way in the
config they give launcherd (bench/common.py, RULES_FOR_MEASUREMENT); bench/rules.py measures the
rules on their own. With the rules as shipped everywhere the full run took about an hour, most of
it waiting as they asked (2026-12-04); on 2026-12-06, 824 and 944 s on a shared 2-vCPU x86_64 VM with a
load average of 15-35 (docs/performance.md has each section's time). A quiet machine is faster,
a Pi slower. Run it before each release and whenever the motor's loop, the core, the game layer
or the door between them changes; it is not part of `make test` nor of CI (its budget).

Every figure that has a baseline is measured in the same run, interleaved with it (latency rounds
alternate, idle processes are sampled side by side over the same windows, start-up runs alternate),
so a noisy machine slows both. Repeated measurements are reported as their median; latencies as
p50/p99 over all samples of all rounds. Not part of `make test`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import procs  # noqa: E402
from bench.common import ROOT, median, run_json  # noqa: E402

FULL = {
    "latency": ["--rounds", "5", "--presses", "300", "--jams", "40"],
    "rules": ["--rounds", "3", "--presses", "50", "--cycles", "15"],
    "idle_reps": 3, "idle_window_s": 20.0, "idle_settle_s": 3.0,
    "ready_reps": 9,
    "api_requests": 2000,
    "count_cards": 10000,
    "growth_presses": 100000, "growth_checkpoints": (1000, 10000, 20000, 50000, 75000),
    "loaded": ["--presses", "200", "--jams", "20"],
    "rss_log_actions": 100000,
}
QUICK = {
    "latency": ["--rounds", "2", "--presses", "120", "--jams", "15", "--warmup", "15"],
    "rules": ["--rounds", "2", "--presses", "25", "--cycles", "6"],
    "idle_reps": 1, "idle_window_s": 20.0, "idle_settle_s": 2.0,
    "ready_reps": 5,
    "api_requests": 1000,
    "count_cards": 2000,
    "growth_presses": 10000, "growth_checkpoints": (1000, 5000),
    "loaded": ["--presses", "40", "--jams", "5", "--sizes", "1000,10000"],
    "rss_log_actions": 10000,
}
PRESS_LIMIT_US = 500
# launcherd's RSS beside bare gpiozero's (issue #38: within 1.3x once the game has its own process).
RSS_RATIO = 1.3
# The whole stack idle under --sim before issue #38 (launcherd with the game in it, the page, the
# voice), the figure: what stack_idle_rss_mb is shown beside (not a target).
STACK_BEFORE_MB = 109.0
MIB = 1024  # /proc reports kB (KiB); the figures are MiB, written "mb" in the keys


def _growth_key(presses: int) -> str:
    return f"rss_growth_{presses // 1000}k_presses_mb"


def _mb(kb: float) -> float:
    return kb / MIB


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _git() -> dict:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    return {"commit": git("rev-parse", "--short", "HEAD"), "dirty": bool(git("status", "--porcelain"))}


def _timed(seconds: dict, name: str, step):
    started = time.monotonic()
    try:
        return step()
    finally:
        seconds[name] = round(time.monotonic() - started, 1)


def measure(params: dict) -> dict:
    """Every section; raw["seconds"] says how long each took.

    The timed sections run one after the other. The growth's 100,000 presses (the longest
    section by far) run beside the idle and services' RSS sections, which time nothing: the idle
    figures count the idle processes' own wake-ups, CPU ticks and RSS, and the services' figure is
    RSS, none of which another process's load changes.
    """
    raw: dict = {}
    seconds: dict[str, float] = {}
    _log("latency: press-to-motor, jam-to-stop, queue baseline (in-process daemon, rounds interleaved;"
         " the motor's rest and duty rules out of the way)")
    raw["latency"] = _timed(seconds, "latency", lambda: run_json("latency.py", *params["latency"]))
    _log("rules: the motor's rest and duty rules: press to motor with them as shipped beside out of the"
         " way, and at work in a scaled-down time (the chain's cut, the refusal, the retry)")
    raw["rules"] = _timed(seconds, "rules", lambda: run_json("rules.py", *params["rules"]))
    _log(f"ready: {params['ready_reps']} starts to READY=1, interleaved with `import gpiozero`")
    raw["ready"] = _timed(seconds, "ready", lambda: procs.ready(params["ready_reps"]))
    _log(f"api: {params['api_requests']} status/get with 10 clients connected")
    raw["api"] = _timed(seconds, "api", lambda: procs.api_roundtrip(params["api_requests"]))
    _log(f"count: at least {params['count_cards']} cards with misfeeds and jams (the rules out of the way)")
    raw["count"] = _timed(seconds, "count", lambda: procs.count_exact(params["count_cards"]))
    _log("loaded: press, jam and the loop's timers while stats/history are read over a 100,000-action"
         " log, while each commit takes 500 ms, while a cold catalogue compiles; stats/history by log size")
    raw["loaded"] = _timed(seconds, "loaded", lambda: run_json("loaded.py", *params["loaded"]))
    _log(f"growth: {params['growth_presses']} presses through the API, a game running (the rules out of"
         " the way), beside the two sections that time nothing:")
    with ThreadPoolExecutor(max_workers=1) as beside:
        growth = beside.submit(_timed, seconds, "growth", lambda: procs.growth(
            params["growth_presses"], params["growth_checkpoints"]))
        _log(f"idle: launcherd --sim with a game vs bare gpiozero, {params['idle_reps']} x"
             f" {params['idle_window_s']:.0f} s side by side")
        raw["idle"] = _timed(seconds, "idle", lambda: procs.idle(
            params["idle_reps"], params["idle_window_s"], params["idle_settle_s"]))
        _log("rss: the whole stack under --sim (launcherd, launcher-game, launcher-web, launcher-voice),"
             " started and after reading a long log")
        raw["services_rss"] = _timed(seconds, "services_rss", lambda: procs.services_rss(params["rss_log_actions"]))
        raw["growth"] = growth.result()
    raw["seconds"] = seconds
    return raw


def figures(raw: dict, params: dict) -> dict:
    lat, idle, ready, api, count = raw["latency"], raw["idle"], raw["ready"], raw["api"], raw["count"]
    rules = raw["rules"]
    n = params["growth_presses"]
    rss_growth = raw["growth"]["rss_kb"]
    return {
        "press_to_motor_p50_us": round(lat["press"]["p50_us"], 1),
        "press_to_motor_p99_us": round(lat["press"]["p99_us"], 1),
        "baseline_queue_p99_us": round(lat["baseline"]["p99_us"], 1),
        "jam_to_stop_p99_us": round(lat["jam"]["p99_us"], 1),
        "idle_wakeups_20s": median(idle["launcherd"]["wakeups"]),
        # The game process beside it, idle over the same windows (no target: its own figures).
        "game_idle_wakeups_20s": median(idle["game"]["wakeups"]),
        "game_rss_mb": round(_mb(median(idle["game"]["rss_kb"])), 2),
        "idle_cpu_ticks_20s": median(idle["launcherd"]["ticks"]),
        "baseline_idle_wakeups_20s": median(idle["bare"]["wakeups"]),
        "baseline_idle_cpu_ticks_20s": median(idle["bare"]["ticks"]),
        # launcherd alone (the game is a process of its own since issue #38), beside bare gpiozero.
        "rss_mb": round(_mb(median(idle["launcherd"]["rss_kb"])), 2),
        "baseline_rss_mb": round(_mb(median(idle["bare"]["rss_kb"])), 2),
        # The whole stack idle under --sim, started (launcherd, the game, the page, the voice),
        # beside the 109 MB that launcherd (with the game in it), the page and the voice took before.
        "stack_idle_rss_mb": raw["services_rss"]["started"]["together_mb"],
        "baseline_stack_idle_rss_mb": STACK_BEFORE_MB,
        "ready_ms": round(median(ready["ready_ms"]), 1),
        "baseline_import_ms": round(median(ready["import_ms"]), 1),
        _growth_key(n): round(_mb(rss_growth[n] - rss_growth[1000]), 2),
        "count_exact_ratio": round(count["exact"] / count["launches"], 6),
        "api_roundtrip_p99_us": round(api["sequential"]["p99_us"], 1),
        # The motor's rest and duty rules (bench/rules.py): their cost on a press, beside the same
        # presses with them out of the way, and at work in a scaled-down time.
        "rules_press_to_motor_p50_us": round(rules["press"]["shipped"]["p50_us"], 1),
        "rules_press_to_motor_p99_us": round(rules["press"]["shipped"]["p99_us"], 1),
        "rules_off_press_to_motor_p50_us": round(rules["press"]["out_of_the_way"]["p50_us"], 1),
        "rules_off_press_to_motor_p99_us": round(rules["press"]["out_of_the_way"]["p99_us"], 1),
        "rules_refusal_p99_us": round(rules["at_work"]["refusal"]["p99_us"], 1),
        "rules_cut_late_p99_us": round(rules["at_work"]["cut_late"]["p99_us"], 1),
        "rules_retry_admitted_ratio": round(rules["at_work"]["admitted"] / rules["at_work"]["retried"], 6),
        # Context for the figures above (numbers too).
        "press_debounce_excluded_ms": lat["config"]["debounce_ms"],
        "jam_threshold_excluded_ms": lat["config"]["jam_ms"],
        "baseline_queue_p50_us": round(lat["baseline"]["p50_us"], 1),
        "jam_to_stop_p50_us": round(lat["jam"]["p50_us"], 1),
        "api_roundtrip_p50_us": round(api["sequential"]["p50_us"], 1),
        "api_roundtrip_concurrent10_p99_us": round(api["concurrent"]["p99_us"], 1),
        "baseline_python_startup_ms": round(median(ready["python_ms"]), 1),
        "count_cards": count["cards_true"],
        "count_launches": count["launches"],
        "watchdog_pings_20s": 0,
        "rules_refusal_p50_us": round(rules["at_work"]["refusal"]["p50_us"], 1),
        "rules_cut_late_p50_us": round(rules["at_work"]["cut_late"]["p50_us"], 1),
        "rules_refusals": rules["at_work"]["refusal"]["n"],
        "rules_cuts": rules["at_work"]["cut_late"]["n"],
    }


def targets(result: dict, n: int) -> dict:
    growth_key = _growth_key(n)
    press_limit = min(2 * result["baseline_queue_p99_us"], PRESS_LIMIT_US)
    checks = {
        "press_to_motor_p99_us": (f"<= 2x baseline_queue_p99_us and < {PRESS_LIMIT_US} us", press_limit,
                                  result["press_to_motor_p99_us"] <= 2 * result["baseline_queue_p99_us"]
                                  and result["press_to_motor_p99_us"] < PRESS_LIMIT_US),
        "idle_wakeups_20s": ("<= 10", 10, result["idle_wakeups_20s"] <= 10),
        # Issue #38: launcherd without the game within 1.3x of bare gpiozero (1.88x with it in).
        "rss_mb": (f"<= {RSS_RATIO}x baseline_rss_mb", RSS_RATIO * result["baseline_rss_mb"],
                   result["rss_mb"] <= RSS_RATIO * result["baseline_rss_mb"]),
        "ready_ms": ("<= 3x baseline_import_ms", 3 * result["baseline_import_ms"],
                     result["ready_ms"] <= 3 * result["baseline_import_ms"]),
        growth_key: ("< 1 MB", 1.0, result[growth_key] < 1.0),
        "count_exact_ratio": ("= 1.0", 1.0, result["count_exact_ratio"] == 1.0),
        # A refusal's retry_after_s is a promise: a press after that long is admitted.
        "rules_retry_admitted_ratio": ("= 1.0", 1.0, result["rules_retry_admitted_ratio"] == 1.0),
    }
    return {key: {"target": text, "limit": round(limit, 2), "pass": ok,
                  "miss_by": None if ok else round(result[key] - limit, 6)}
            for key, (text, limit, ok) in checks.items()}


def _fmt(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if value.is_integer() or abs(value) >= 100:
            return f"{value:,.0f}"
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.4g}"
    return f"{value:,}"


def table(result: dict, checks: dict, n: int) -> str:
    growth_key = _growth_key(n)
    rows = [
        ("press_to_motor_p50_us", "baseline_queue_p50_us"),
        ("press_to_motor_p99_us", "baseline_queue_p99_us"),
        ("jam_to_stop_p99_us", None),
        ("idle_wakeups_20s", "baseline_idle_wakeups_20s"),
        ("idle_cpu_ticks_20s", "baseline_idle_cpu_ticks_20s"),
        ("rss_mb", "baseline_rss_mb"),
        ("stack_idle_rss_mb", "baseline_stack_idle_rss_mb"),
        ("ready_ms", "baseline_import_ms"),
        (growth_key, None),
        ("count_exact_ratio", None),
        ("api_roundtrip_p99_us", None),
        ("rules_press_to_motor_p50_us", "rules_off_press_to_motor_p50_us"),
        ("rules_press_to_motor_p99_us", "rules_off_press_to_motor_p99_us"),
        ("rules_refusal_p99_us", None),
        ("rules_cut_late_p99_us", None),
        ("rules_retry_admitted_ratio", None),
    ]
    lines = [("figure", "value", "baseline", "ratio", "target", "result")]
    for key, base_key in rows:
        value = result[key]
        base = result.get(base_key) if base_key else None
        ratio = f"{value / base:.2f}x" if base else "-"
        check = checks.get(key)
        shown = f"{value:.4f}" if key.endswith("_ratio") else _fmt(value)
        lines.append((key, shown, f"{_fmt(base)}" + (f" ({base_key})" if base_key else ""), ratio,
                      check["target"] if check else "(none)",
                      ("PASS" if check["pass"] else f"MISS by {_fmt(check['miss_by'])}") if check else "-"))
    widths = [max(len(str(row[i])) for row in lines) for i in range(6)]
    out = ["  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in lines]
    out.insert(1, "  ".join("-" * width for width in widths))
    out.append("")
    out.append(f"Excluded: debounce {result['press_debounce_excluded_ms']} ms (press), jam threshold"
               f" {result['jam_threshold_excluded_ms']} ms (jam). Watchdog pings: none (no NOTIFY_SOCKET"
               " in the idle run). The motor's rest and duty rules: out of the way in every section but"
               " rules_* (bench/rules.py).")
    return "\n".join(out)


def loaded_table(loaded: dict) -> str:
    """bench/loaded.py's figures, each load on a line beside the same run's idle one."""
    lines = [f"{'load':<15} {'press p50/p99 ms':>17} {'jam max ms':>10} {'count max ms':>12}"
             f" {'lateness p50/p99/max ms':>24} {'halted':>6} {'loop cpu ms/s, wakeups/s':>25}"
             f" {'load avg':>11}  verdict"]
    for load, got in loaded["loads"].items():
        verdict = loaded["verdicts"].get(load)
        misses = [] if verdict is None else [
            key for key, limit in loaded["targets"].items()
            if (verdict[key] >= limit if key == "lateness_max_ms" else verdict[key] > limit)]
        lateness = got["timer_lateness"]
        averages = [average for round_ in got["load_average"] for average in round_]  # each round's before, after
        lines.append(
            f"{load:<15} {got['press']['p50_us'] / 1000:>8.2f}/{got['press']['p99_us'] / 1000:<8.2f}"
            f" {got['jam']['max_us'] / 1000:>10.2f} {got['count_stop']['max_us'] / 1000:>12.2f}"
            f" {lateness['p50_ms']:>8.2f}/{lateness['p99_ms']:.2f}/{lateness['max_ms']:<8.2f}"
            f" {str(got['halted']):>6}"
            f" {got['motor_loop']['cpu_ms_per_s']:>14.1f}, {got['motor_loop']['wakeups_per_s']:<8}"
            f" {min(averages):>5.1f}-{max(averages):<5.1f}  "
            + ("(the baseline)" if verdict is None else "PASS" if verdict["ok"]
               else "MISS: " + ", ".join(misses + (["halted"] if got["halted"] else []))))
    sizes = loaded.get("game_log", {})
    for size, methods in sizes.items():
        lines.append(f"{int(size):>7,} actions: " + "; ".join(
            f"{method} first {cost['first_ms']} ms, kept {cost['kept_ms']} ms,"
            f" after a press {cost['after_press_ms']} ms" for method, cost in methods.items()))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples and presses (about 4 minutes)")
    parser.add_argument("--output", type=Path,
                        help="where to write the JSON (default bench/results.json, or results-quick.json)")
    args = parser.parse_args(argv)
    params = QUICK if args.quick else FULL
    output = args.output or ROOT / "bench" / ("results-quick.json" if args.quick else "results.json")

    started = time.monotonic()
    load_before = os.getloadavg()
    raw = measure(params)
    elapsed = time.monotonic() - started
    result = figures(raw, params)
    checks = targets(result, params["growth_presses"])
    document = {
        **result,
        "targets": checks,
        # Each load beside the same run's idle figures, with its targets (bench/loaded.py).
        "loaded": raw["loaded"],
        "services_rss": raw["services_rss"],
        "meta": {
            "command": ".venv/bin/python bench/run.py" + (" --quick" if args.quick else ""),
            "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(elapsed),
            "section_seconds": raw["seconds"],
            "machine": {"platform": platform.platform(), "machine": platform.machine(),
                        "cpus": os.cpu_count(), "python": platform.python_version(),
                        "gpiozero": version("gpiozero"),
                        "loadavg_before": [round(x, 2) for x in load_before],
                        "loadavg_after": [round(x, 2) for x in os.getloadavg()]},
            "git": _git(),
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
            "raw": raw,
        },
    }
    output.write_text(json.dumps(document, indent=2) + "\n")
    print()
    print(table(result, checks, params["growth_presses"]))
    print()
    print(loaded_table(raw["loaded"]))
    print()
    print("seconds by section: " + ", ".join(f"{name} {value:.0f}" for name, value in raw["seconds"].items()))
    print(f"{sum(not c['pass'] for c in checks.values())} of {len(checks)} targets missed;"
          f" {elapsed:.0f} s; written to {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
