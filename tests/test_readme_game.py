"""The README's "Playing a game" examples run as written, against a real `launcherd --sim` (#10, #11).

The first block starts the daemon; the next ones (classic UNO with the launcher as dealer, UNO Blast with
its insertions typed by hand) go on with it."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

from harness.launcherd import BIN
from harness.waits import wait_for_socket

README = Path(__file__).resolve().parent.parent / "README.md"
EXAMPLE_SOCKET = "/tmp/l.sock"


def example() -> list[str]:
    """The lines of every sh block of the section, in order."""
    section = README.read_text().split("### Playing a game", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 3, "the section has an sh example for Attack, classic and blast"
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_readme_game_example_runs_as_written(tmp_path):
    sock = tmp_path / "l.sock"  # the example's /tmp/l.sock, private to this test
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "XDG_STATE_HOME": str(tmp_path / "state-home")}
    env.pop("LAUNCHER_SOCKET", None)
    daemon = None
    lines = example()
    assert lines[0].startswith("launcherd --sim") and lines[1].startswith("export LAUNCHER_SOCKET=")
    try:
        for line in lines:
            words = [word.replace(EXAMPLE_SOCKET, str(sock)) for word in shlex.split(line, comments=True)]
            if words[0] == "export":
                name, _, value = words[1].partition("=")
                env[name] = value
                continue
            if words[0] == "launcherd":
                assert words[-1] == "&", "the daemon is started in the background"
                daemon = subprocess.Popen(words[:-1], env=env, text=True,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                wait_for_socket(sock, daemon)
                continue
            done = subprocess.run(words, env=env, capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
            if words[1:3] == ["game", "new"] and "classic" in words:
                assert "the launcher deals 7 to each seat (21)" in done.stdout
                assert "Ann starts once the first card is turned up" in done.stdout  # and not before (#39)
            elif words[1:3] == ["game", "new"] and "blast" in words:
                assert "deal 7 cards each by hand (21) and turn one up" in done.stdout
            elif words[1:3] == ["game", "new"]:
                assert "load the other 83 into the launcher and reload the hopper: 83 cards" in done.stdout
            if words[1:3] == ["game", "challenge-result"]:
                assert "Bob is dealt 4" in done.stdout
            if words[1:3] == ["game", "insert"] and "--blast" in words:
                assert "the blast: Cy takes 4 cards, done" in done.stdout
            if words[1:3] == ["game", "status"]:
                assert f"game log in {tmp_path / 'state-home' / 'card-launcher' / 'sim'}" in done.stdout
            if words[1:3] == ["game", "log"]:
                assert "Ann plays Hit 1 (red)" in done.stdout and "Bob plays Hit 2 (blue)" in done.stdout
    finally:
        if daemon is not None:
            daemon.terminate()
            daemon.wait(10)
