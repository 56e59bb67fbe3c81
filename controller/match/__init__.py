"""A match: the table (turns, undo), scores and statistics."""
