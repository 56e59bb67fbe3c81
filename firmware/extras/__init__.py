"""Features beside the device: the dealer, bring-up and calibration."""
