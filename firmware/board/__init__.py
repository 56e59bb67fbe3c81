"""The board: the Pi's pin facts, the pin factory's choice, safe-off and the heartbeat pin."""
