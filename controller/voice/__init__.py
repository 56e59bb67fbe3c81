"""launcher-voice: speaks the game at the table (docs/voice.md).

``announcer`` decides what to say (pure), ``speech`` turns a phrase into sound with espeak-ng and
plays it through ALSA, ``service`` is the console script: a client of launcherd's event stream.
"""
