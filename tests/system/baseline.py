"""Bare gpiozero on the same chip, the baseline of the press-to-motor figure: a Button whose
when_pressed calls Motor.forward(), with gpiozero's bounce_time (the kernel's debounce on lgpio).
Run by test_zz_performance.py with the service stopped: python baseline.py CHIP BUTTON FWD REV DEBOUNCE_S"""

import signal
import sys

from gpiozero import Button, Motor
from gpiozero.pins.lgpio import LGPIOFactory

chip, button, forward, reverse = (int(arg) for arg in sys.argv[1:5])
factory = LGPIOFactory(chip=chip)
motor = Motor(forward, reverse, pin_factory=factory)
button = Button(button, pull_up=True, bounce_time=float(sys.argv[5]), pin_factory=factory)
button.when_pressed = motor.forward
button.when_released = motor.stop
print("ready", flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
