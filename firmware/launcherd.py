"""The `launcherd` command: the daemon's entry point, before anything heavy is imported."""

import sys


def main() -> int:
    # asyncio imports ssl (OpenSSL, about 2 MB of resident memory) for TLS that launcherd never
    # speaks: its API is a Unix socket and its unit forbids the network. Without ssl, asyncio
    # simply has no TLS. A layer that needs TLS would have to be run in a process of its own.
    sys.modules.setdefault("ssl", None)
    from .daemon import main as daemon_main

    return daemon_main()


if __name__ == "__main__":
    sys.exit(main())
