"""A game log of many actions, built in a second: one randomly played match repeated as often as
needed, written in one SQLite transaction (logging each action through the store would take one
disk flush per action). Used by the tests and the benchmark of game/stats and game/history."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from controller.match import table as match_table
from controller.log.store import FILENAME, Store
from firmware.errors import ApiError

PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
NEW = {"type": "new", "rules": "attack-mega-hit", "players": PLAYERS}


def played_match(length: int, seed: int = 1) -> list[dict]:
    """The actions of one match of ``length`` actions (its ``new`` first), each one the game accepted."""
    rng = random.Random(seed)
    table, _ = match_table.new_table(NEW)
    actions, press_id = [NEW], 0
    while len(actions) < length:
        if rng.random() < 0.4:
            action = {"type": "play", "card": rng.choice(["hit-1", "hit-2", "skip", "reverse", "7"]),
                      "color": rng.choice(["red", "yellow", "green", "blue"])}
        else:
            press_id += 1
            action = {"type": "press", "cards": rng.choice([0, 0, 0, 1, 2, 5]), "press_id": press_id}
        try:
            table, _ = match_table.apply(table, action)
        except ApiError:
            continue
        actions.append(action)
    return actions


def build(state_dir: Path, actions: int, per_match: int = 400) -> Path:
    """A log of ``actions`` actions in matches of ``per_match`` under ``state_dir``; its path."""
    path = Path(state_dir) / FILENAME
    Store(path).close()  # the schema, as the daemon makes it
    match = [json.dumps(action, sort_keys=True, separators=(",", ":")) for action in played_match(per_match)]
    db = sqlite3.connect(str(path), isolation_level=None)
    try:
        db.execute("PRAGMA synchronous=OFF")
        db.execute("BEGIN")
        for number in range(actions // per_match):
            day = f"2026-{1 + number // 28 % 12:02d}-{1 + number % 28:02d}"
            match_id = db.execute("INSERT INTO matches (started, rules, players) VALUES (?, ?, ?)",
                                  (f"{day}T10:00:00+00:00", NEW["rules"], json.dumps(PLAYERS))).lastrowid
            db.executemany("INSERT INTO actions (match_id, ts, action) VALUES (?, ?, ?)",
                           [(match_id, f"{day}T10:{i // 60 % 60:02d}:{i % 60:02d}+00:00", text)
                            for i, text in enumerate(match)])
        db.execute("COMMIT")
    finally:
        db.close()
    return path
