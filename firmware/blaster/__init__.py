"""The card blaster (UNO Blast), a device kind: its sans-IO core, blast policy, hardware and simulation,
built behind the daemon's Device protocol by ``device.py``."""
