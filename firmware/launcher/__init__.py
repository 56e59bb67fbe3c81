"""The card launcher: its sans-IO core, ejection policy, gpiozero hardware and simulated mechanism."""
