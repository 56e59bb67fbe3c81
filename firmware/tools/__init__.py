"""The command-line tools: launcherctl, the bring-up wizard, the demo."""
