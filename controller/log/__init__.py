"""The game's log: the SQLite store, damage recovery, the join code."""
