"""Firmware's own texts: the catalogue machinery both sides use, and what launcherd, launcherctl,
the dealer, bring-up and calibration say (EN, FR)."""
