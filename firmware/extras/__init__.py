"""Features beside the device. The dealer's dispense, bring-up and the refill gesture's answer are
loaded by name through ``setup(host)`` on the motor's loop (``firmware/daemon/loading.py``);
calibration is the pure analysis ``launcherctl calibrate`` runs on bring-up's feeds."""
