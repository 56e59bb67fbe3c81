"""launcherd: the motor's loop (driver), the JSON-lines API, the game layer's door, the outcome record, the latch, sd_notify."""
