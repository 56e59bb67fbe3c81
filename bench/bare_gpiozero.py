"""The baseline process: bare gpiozero holding a Button, a Motor and an LED on mock pins, idle.

Started by bench/run.py for the idle wakeups, CPU ticks and RSS baselines. It prints "ready" once
the devices exist, then sleeps until SIGTERM (which it turns into a normal exit, as gpiozero needs).
"""

import signal
import sys

from gpiozero import LED, Button, Motor
from gpiozero.pins.mock import MockFactory, MockPWMPin

factory = MockFactory(pin_class=MockPWMPin)  # Motor needs PWM-capable pins
button = Button(17, pin_factory=factory)
motor = Motor(12, 13, pin_factory=factory)
led = LED(23, pin_factory=factory)
signal.signal(signal.SIGTERM, lambda *args: sys.exit(0))
print("ready", flush=True)
while True:
    signal.pause()
