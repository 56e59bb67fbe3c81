"""launcher-voice against what a guest can make it say, and against a flood (issue 22): a real
launcher-voice process with a fake espeak-ng that fails on some phrases and a fake aplay that is
slow on others, against a real launcherd --sim; and against a stand-in launcherd that sends
100,000 game actions as fast as it can."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from harness.web import Stack
from harness.waits import HANG_S, Lines, wait_until

from controller.voice.service import MAX_PHRASE_CHARS, RETRY_VARIABLE, shortened  # noqa: E402
from controller.voice.speech import CACHE_BYTES, Speech  # noqa: E402
from firmware.client import Client  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# Renders the text itself as the "WAV"; refuses phrases about Bob; writes a broken file for Dee.
FAKE_ESPEAK = """\
#!{python}
import os, sys
args = sys.argv[1:]
path, text = args[args.index("-w") + 1], args[-1]
with open(os.environ["FAKE_TRIED"], "a") as tried:
    tried.write(text + "\\n")
if "Bob" in text:
    sys.exit("espeak-ng: cannot say this")
with open(path, "w") as out:
    out.write("BROKEN" if "Dee" in text else text)
"""
# An alert cuts the minute-long phrase short: it is said before that minute is out (a bound between
# the two, which a busy machine's delay in starting the fakes does not reach; 10 s was).
CUT_S = 40.0
# Plays a phrase by writing it down; a phrase about Ann lasts a minute (a 4 KB name took 79 s).
FAKE_APLAY = """\
#!{python}
import os, sys, time
content = open(sys.argv[-1]).read()
if content == "BROKEN":
    sys.exit("aplay: not a WAV file")
with open(os.environ["FAKE_PLAYED"], "a") as played:
    played.write(content + "\\n")
if "Ann" in content:
    time.sleep(60)
"""


def start_voice(tmp_path, fakes_to_write: dict[str, str], path_after_fakes: str | None = None):
    """A launcherd --sim and a launcher-voice on it, with ``fakes_to_write`` (name: script) first on
    its PATH (alone on it unless ``path_after_fakes``); the fakes note what they play and try."""
    fakes = tmp_path / "bin"
    fakes.mkdir()
    for name, script in fakes_to_write.items():
        (fakes / name).write_text(script.format(python=sys.executable))
        (fakes / name).chmod(0o755)
    played, tried = tmp_path / "played", tmp_path / "tried"
    played.touch()
    tried.touch()
    daemon = Stack()
    daemon.start_daemon(wait=False)
    path = f"{fakes}:{path_after_fakes}" if path_after_fakes else str(fakes)
    # Started while launcherd starts: it tries again every 50 ms (not 2 s) until launcherd listens.
    voice = subprocess.Popen(
        [sys.executable, "-m", "controller.voice.service", "--lang", "en", "--device", "fake",
         "--socket", str(daemon.socket), "--max-age", "30", "--cache-dir", str(tmp_path / "cache")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env={**os.environ, "PATH": path, "FAKE_PLAYED": str(played), "FAKE_TRIED": str(tried), RETRY_VARIABLE: "50"})
    try:
        daemon.wait_for_daemon()
    except BaseException:
        voice.kill()
        voice.wait(HANG_S)
        daemon.close()
        raise
    return fakes, daemon, voice, played, tried


@pytest.fixture
def speaking(tmp_path):
    """A launcherd --sim, and a launcher-voice on it speaking through the fakes."""
    fakes, daemon, voice, played, tried = start_voice(
        tmp_path, {"espeak-ng": FAKE_ESPEAK, "aplay": FAKE_APLAY}, path_after_fakes=os.environ["PATH"])
    log = Lines(voice.stderr)
    log.wait_for("listening to launcherd")
    try:
        with Client(daemon.socket, timeout=30) as client:
            client.call("sim/lid", {"open": False})
            yield client, voice, log, played, tried
    finally:
        voice.terminate()
        voice.wait(HANG_S)
        daemon.close()


def _said(played: Path, phrase: str, timeout: float = HANG_S) -> None:
    wait_until(lambda: phrase in played.read_text(), timeout, f"{phrase!r} not played")


def test_a_jam_cuts_a_long_phrase_short(speaking):
    client, voice, log, played, _ = speaking
    client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Cy"]})
    _said(played, "Ann's move")  # a minute long
    client.call("sim/jam")
    jammed_at = time.monotonic()
    client.call("launcher/feed", {"count": 1})  # the card sticks: jammed
    _said(played, "A card is stuck", timeout=CUT_S)
    assert time.monotonic() - jammed_at < CUT_S
    log.wait_for("cut \"Ann's move\" short for an alert")


@pytest.mark.parametrize(("make_it", "alert"), [
    (lambda client: (client.call("launcher/reload", {"cards": 0}), client.call("launcher/feed", {"count": 1})),
     "The launcher is empty"),
    (lambda client: client.call("system/estop", {"reason": "a hand in the slot"}),
     "The launcher has stopped: see the table page"),
], ids=["empty", "halted"])
def test_an_empty_hopper_and_a_halt_cut_a_long_phrase_short(speaking, make_it, alert):
    client, voice, log, played, _ = speaking
    client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Cy"]})
    _said(played, "Ann's move")  # a minute long
    started = time.monotonic()
    make_it(client)
    _said(played, alert, timeout=CUT_S)
    assert time.monotonic() - started < CUT_S
    log.wait_for("cut \"Ann's move\" short for an alert")


def test_phrases_that_cannot_be_said_are_logged_once_and_the_voice_goes_on(speaking):
    client, voice, log, played, _ = speaking
    # Refused by espeak-ng (Bob), a broken file (Dee), or said (the others). Each game's first move
    # is waited for until the speaking loop is done with it (the warm-up renders it earlier): the
    # next game would make it stale, and a stale phrase is not said, nor failed.
    for players, sayable in ((["Bob", "Cy"], False), (["Cy", "Bob"], True), (["Dee", "Eve"], False),
                             (["Eve", "Fay"], True)):
        client.call("game/new", {"rules": "attack-mega-hit", "players": players, "force": True})
        if sayable:
            _said(played, f"{players[0]}'s move")
        else:
            log.wait_for(f'could not say "{players[0]}\'s move"')
    assert voice.poll() is None
    failures = [line for line in log.seen + list(log.lines.queue) if "could not say" in line]
    # Once per phrase: Bob's (refused by espeak-ng) and Dee's (a broken file), each once.
    assert len(failures) == 2 and "Bob's move" in failures[0] and "Dee's move" in failures[1], failures
    assert "Bob" not in played.read_text() and "Dee" not in played.read_text()


# ---- a flood of game actions ----------------------------------------------------------------------

ACTIONS = 100_000


def _status(turn: str) -> dict:
    return {"ruleset": "attack-mega-hit", "players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}],
            "turn": turn, "owed": None, "chain": None, "round_over": False, "match": {}}


class Flood:
    """A stand-in for launcherd: after the subscription, ACTIONS game actions as fast as it can;
    game/status says Bob's move until the last action is sent, then Cy's; then a jam."""

    def __init__(self, path: Path):
        self.path = path
        self.status_calls = 0
        self.sent_all_at: float | None = None

    async def serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            if request["method"] == "events/subscribe":
                writer.write(json.dumps({"id": request["id"], "result": {"subscribed": True}}).encode() + b"\n")
                asyncio.ensure_future(self._flood(writer))
                continue
            self.status_calls += 1
            turn = "Cy" if self.sent_all_at is not None else "Bob" if self.status_calls > 1 else "Ann"
            writer.write(json.dumps({"id": request["id"], "result": _status(turn)}).encode() + b"\n")
            await writer.drain()

    async def _flood(self, writer) -> None:
        line = json.dumps({"event": "game/action", "params": {"seq": 1, "action": {"type": "pass"}}}).encode()
        for sent in range(ACTIONS):
            writer.write(line + b"\n")
            if sent % 100 == 0:
                await writer.drain()
                await asyncio.sleep(0)  # a daemon answers requests while it publishes
        await writer.drain()
        self.sent_all_at = time.monotonic()
        # One more, now that the status is Cy's: the table as it is at the end; then a jam.
        writer.write(line + b"\n")
        writer.write(json.dumps({"event": "jammed", "params": {"press_id": 1}}).encode() + b"\n")
        await writer.drain()


def test_a_flood_of_actions_is_not_followed_action_by_action_and_a_jam_after_it_is_said_at_once():
    directory = Path(tempfile.mkdtemp(prefix="voice-flood-", dir="/tmp"))
    flood = Flood(directory / "launcher.sock")

    async def main() -> tuple[float, int, list[str]]:
        server = await asyncio.start_unix_server(flood.serve, str(flood.path))
        voice = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller.voice.service", "--mute", "--lang", "en",
            "--socket", str(flood.path), "--max-age", "30", cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        said: list[str] = []
        try:
            await _read_until(voice.stdout, "A card is stuck", said, timeout=60)
            lag = time.monotonic() - flood.sent_all_at
            with open(f"/proc/{voice.pid}/status") as status:
                rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
            # The table as it is at the end is said too, before the jam or after it: Cy's move.
            if "Cy's move" not in said:
                await _read_until(voice.stdout, "Cy's move", said, timeout=HANG_S)
            return lag, rss_kb, said
        finally:
            voice.terminate()
            await voice.wait()
            server.close()

    try:
        lag, rss_kb, said = asyncio.run(main())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    # Not followed action by action: a status asked for fewer than one action in ten, and the
    # moves said are few. How soon after the flood the jam was said is a figure: a busy machine's.
    print(f"\nthe jam said {lag:.1f} s after the last of {ACTIONS} actions")
    moves = [line for line in said if line.endswith("'s move")]
    assert moves[-1] == "Cy's move" and said.count("Cy's move") == 1, said
    assert flood.status_calls < ACTIONS // 10
    assert rss_kb < 64_000


# ---- the cache and the phrases, bounded ----------------------------------------------------------


def test_the_cache_is_bounded_in_bytes(tmp_path):
    """An espeak-ng that renders 4 MB a phrase (as a 4 KB name did): the cache keeps CACHE_BYTES."""
    fake = tmp_path / "espeak-ng"
    fake.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
                    "open(args[args.index('-w') + 1], 'wb').write(bytes(4 * 1024 * 1024))\n")
    fake.chmod(0o755)
    speech = Speech("en", tmp_path / "cache", espeak=str(fake))
    latest = [speech.wav(f"phrase {n}") for n in range(CACHE_BYTES // (4 * 1024 * 1024) + 4)][-1]
    kept = sum(path.stat().st_size for path in (tmp_path / "cache").glob("*.wav"))
    assert CACHE_BYTES - 4 * 1024 * 1024 <= kept <= CACHE_BYTES and latest.exists()


def test_a_phrase_is_bounded_in_length():
    long = "Bob " * 1100
    assert len(shortened(long)) <= MAX_PHRASE_CHARS + 1 and shortened(long).endswith("Bob…")
    assert shortened("B" * 4400) == "B" * MAX_PHRASE_CHARS + "…"
    assert shortened("Bob's move") == "Bob's move"


# ---- what one phrase does wrong never silences the voice -------------------------------------------


class Scripted:
    """A stand-in for launcherd: no game, and the events the test sends, when it sends them."""

    def __init__(self, path: Path):
        self.path = path
        self.subscribers: list[asyncio.StreamWriter] = []
        self.subscribed = asyncio.Event()

    async def serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            if request["method"] == "events/subscribe":
                reply = {"id": request["id"], "result": {"subscribed": True}}
                self.subscribers.append(writer)
                self.subscribed.set()
            else:
                reply = {"id": request["id"], "error": {"code": 3, "message": "no game"}}
            writer.write(json.dumps(reply).encode() + b"\n")
            await writer.drain()

    async def send(self, event: str, params: dict) -> None:
        for writer in self.subscribers:
            writer.write(json.dumps({"event": event, "params": params}).encode() + b"\n")
            await writer.drain()


async def _read_until(stream: asyncio.StreamReader, wanted: str, seen: list[str], timeout: float = 15.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while wanted not in (line := (await stream.readline()).decode()):
                if not line:
                    raise AssertionError(f"{wanted!r} never came, the stream ended: {seen}")
                seen.append(line.rstrip("\n"))
    except TimeoutError:
        raise AssertionError(f"{wanted!r} not within {timeout} s: {seen}") from None
    seen.append(line.rstrip("\n"))


def test_a_message_this_version_does_not_know_is_skipped_and_a_jam_after_it_is_said():
    """A newer launcherd says what waits with a message id this launcher-voice has no words for."""
    directory = Path(tempfile.mkdtemp(prefix="voice-unknown-", dir="/tmp"))
    daemon = Scripted(directory / "launcher.sock")
    unknown = {"pending": {"id": "from_a_newer_version", "count": 2}, "pending_text": "..."}

    async def main() -> tuple[list[str], list[str]]:
        server = await asyncio.start_unix_server(daemon.serve, str(daemon.path))
        voice = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller.voice.service", "--mute", "--lang", "en",
            "--socket", str(daemon.path), "--max-age", "30", cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        said: list[str] = []
        logged: list[str] = []
        try:
            await _read_until(voice.stderr, "listening to launcherd", logged)
            await daemon.send("pending", unknown)
            await _read_until(voice.stderr, "could not say", logged)
            await daemon.send("pending", unknown)  # the same again: not logged again
            await daemon.send("jammed", {"press_id": 1})
            await _read_until(voice.stdout, "A card is stuck", said)
            await daemon.send("pending", {"pending": {"id": "another_newer_one"}, "pending_text": "..."})
            await _read_until(voice.stderr, "could not say", logged)
            await daemon.send("empty", {"press_id": 2})
            await _read_until(voice.stdout, "The launcher is empty", said)
            assert voice.returncode is None
        finally:
            voice.terminate()
            await voice.wait()
            logged += (await voice.stderr.read()).decode().splitlines()
            server.close()
        return said, logged

    try:
        said, logged = asyncio.run(main())
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    failures = [line for line in logged if "could not say" in line]
    assert len(failures) == 2, logged
    assert "from_a_newer_version" in failures[0] and "another_newer_one" in failures[1]
    assert not any("Traceback" in line for line in logged), logged


def test_without_espeak_ng_the_voice_logs_each_phrase_once_and_speaks_once_it_is_installed(tmp_path):
    fakes, daemon, voice, played, tried = start_voice(tmp_path, {"aplay": FAKE_APLAY})  # no espeak-ng on PATH
    log = Lines(voice.stderr)
    try:
        log.wait_for("listening to launcherd")
        with Client(daemon.socket, timeout=30) as client:
            client.call("sim/lid", {"open": False})
            client.call("game/new", {"rules": "attack-mega-hit", "players": ["Cy", "Eve"]})
            log.wait_for("could not say \"Cy's move\": espeak-ng is not installed")
            client.call("game/new", {"rules": "attack-mega-hit", "players": ["Cy", "Eve"], "force": True})
            client.call("sim/jam")
            client.call("launcher/feed", {"count": 1})
            log.wait_for("could not say 'A card is stuck'")
            (fakes / "espeak-ng").write_text(FAKE_ESPEAK.format(python=sys.executable))
            (fakes / "espeak-ng").chmod(0o755)
            client.call("sim/clear")
            client.call("launcher/reload", {"cards": 0})
            client.call("launcher/feed", {"count": 1})
            _said(played, "The launcher is empty")
        assert voice.poll() is None
    finally:
        voice.terminate()
        voice.wait(HANG_S)
        daemon.close()
    failures = [line for line in log.seen + list(log.lines.queue) if "could not say" in line]
    assert len(failures) == len(set(failures)) == 2, failures  # "Cy's move" twice: logged once
    assert not any("Traceback" in line for line in log.seen + list(log.lines.queue))
