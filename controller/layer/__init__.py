"""The game layer that plugs into launcherd (setup(host)) and its launcherctl commands."""
