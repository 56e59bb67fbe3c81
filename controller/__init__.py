"""The game-flow layer: seats, turns, owed presses and scores. Never touches a pin."""
