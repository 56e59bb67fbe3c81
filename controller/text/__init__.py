"""What the table reads and hears: the game's message catalogue (EN, FR), wording, advice."""
