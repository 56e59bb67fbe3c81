"""Firmware for a Raspberry Pi card launcher: pins, timing, safety and randomness."""

__version__ = "0.1.0"
