"""launcher-web: the table page and its HTTP API, a process of its own beside launcherd (issue #12).

launcherd owns the pins and keeps no network; this process has the network and no devices, and
reaches the daemon only through its Unix socket (``controller.web.link``), as launcherctl does.
``controller.web.server`` serves the page (``static/``), the HTTP API (docs/web.md) and a WebSocket
that relays the launcher's events.
"""
