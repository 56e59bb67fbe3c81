"""What the table reads and hears: the message catalogue (EN, FR), wording, advice."""
