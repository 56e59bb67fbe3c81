"""The rules: the shared game state, one module per family (attack, classic, blast), decks and points, the registry."""
