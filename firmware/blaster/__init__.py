"""The card blaster (UNO Blast): its sans-IO core, blast policy, hardware and simulation."""
