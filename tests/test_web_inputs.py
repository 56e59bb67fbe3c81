"""Inputs that used to get no clear answer (issue 22): player names and out-of-range whole numbers,
through launcherctl, the socket API and the page, against real launcherd --sim and launcher-web."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from harness.web import Stack

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))
INVALID_PARAMS = -32602
ALLOWED = "a name is 1 to 24 characters, with no control characters, no '=' and no spaces around it"
BAD_NAMES = ["Bob\x00", "\x1b[31mRed", "Cy\u202eyC", "Dee\nEve", "B" * 25, "B" * 4400]


@pytest.fixture(scope="module")
def stack():
    running = Stack().start()
    yield running
    running.close()


def call(stack: Stack, method: str, params: dict) -> dict:
    """One request on launcherd's socket, as any client sends it: the whole reply line."""
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(10)
        client.connect(str(stack.socket))
        client.sendall(json.dumps({"id": 1, "method": method, "params": params}).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            reply += client.recv(65536)
    return json.loads(reply)


@pytest.mark.parametrize("name", BAD_NAMES, ids=["nul", "escape", "bidi", "newline", "25", "4400"])
def test_a_bad_name_is_refused_by_the_api_and_the_page_saying_what_is_allowed(stack, name):
    players = ["Ann", name]
    error = call(stack, "game/new", {"rules": "attack-mega-hit", "players": players, "force": True})["error"]
    assert error["code"] == INVALID_PARAMS and ALLOWED in error["message"]
    assert len(error["message"]) < 200  # the name is shown cut short, its escapes as escapes
    status, reply = stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": players, "force": True}, stack.code())
    assert status == 400 and ALLOWED in reply["error"]["message"]
    assert reply["error"]["message_object"]["id"] == "player_name_bad"


def test_launcherctl_says_the_same_in_both_languages(stack):
    for lang, said in (("C.UTF-8", ALLOWED), ("fr_FR.UTF-8", "un nom a de 1 à 24 caractères")):
        result = subprocess.run([LAUNCHERCTL, "--socket", str(stack.socket), "game", "new", "--force",
                                 "--players", "Ann,\x1b[2JBob"], capture_output=True, text=True, timeout=30,
                                env={"PATH": "/usr/bin:/bin", "LANG": lang, "LC_ALL": lang})
        assert result.returncode != 0 and said in result.stdout + result.stderr, result


def test_names_that_fit_are_taken(stack):
    players = ["Ann", "B" * 24, "Zoë", "👨‍👩‍👧 family", "Jean-Pierre"]
    assert "result" in call(stack, "game/new", {"rules": "attack-mega-hit", "players": players, "force": True})
    assert [p["name"] for p in call(stack, "game/status", {})["result"]["players"]] == players


@pytest.mark.parametrize("match", [2**63, 2**53 + 1, -(2**63) - 1, 10**30])
def test_an_out_of_range_whole_number_is_a_precise_invalid_params(stack, match):
    error = call(stack, "game/resume", {"match": match})["error"]
    assert error["code"] == INVALID_PARAMS
    assert "game/resume: match must be" in error["message"] and "internal" not in error["message"]
    status, reply = stack.post("/api/game/resume", {"match": match}, stack.code())
    assert status == 400 and reply["error"]["code"] == INVALID_PARAMS
    assert "Traceback" not in stack.web_log()
    assert "Traceback" not in (stack.dir / "launcherd.log").read_text()
