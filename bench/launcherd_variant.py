"""launcherd with a change the benchmark wants to weigh: a diagnosis, never a figure.

    python bench/launcherd_variant.py VARIANT[,VARIANT...] [launcherd arguments...]

Variants (each is a change proposed in docs/performance.md, tried here without touching firmware/):

- ``bounded_pins``: gpiozero's MockPin appends every change of every pin to ``pin.states`` and
  never forgets it, so a long ``launcherd --sim`` run grows by that list. Keep the last 16.
- ``no_ssl``: asyncio imports ``ssl`` (and with it libssl and libcrypto) although launcherd never
  uses TLS. Make ``import ssl`` fail before asyncio is imported; asyncio then runs without it.

Everything else is ``firmware.daemon.main`` unchanged.
"""

import collections
import sys

variants = set(sys.argv.pop(1).split(",")) if len(sys.argv) > 1 else set()
unknown = variants - {"bounded_pins", "no_ssl", "none"}
if unknown:
    sys.exit(f"unknown variant(s): {', '.join(sorted(unknown))}")

if "no_ssl" in variants:
    sys.modules["ssl"] = None  # import ssl -> ImportError, which asyncio tolerates

if "bounded_pins" in variants:
    from gpiozero.pins import mock

    _clear_states = mock.MockPin.clear_states

    def _bounded_clear_states(self):
        _clear_states(self)
        self.states = collections.deque(self.states, maxlen=16)

    mock.MockPin.clear_states = _bounded_clear_states

from firmware.daemon import main  # noqa: E402

if __name__ == "__main__":
    sys.argv[0] = "launcherd"
    sys.exit(main())
