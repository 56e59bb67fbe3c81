"""launcher-voice: listens to launcherd's event stream and speaks the game (docs/voice.md).

A client of the daemon's JSON-lines socket like launcherctl (``firmware/client.py``), in its own process: it subscribes to
events, asks ``game/status`` after each game action, lets the :class:`Announcer` decide, and
speaks one phrase at a time. It never touches a pin; when the daemon goes away it waits for it to
come back.

It never falls behind for long: the events waiting are bounded, and of several game actions waiting
only the latest is looked at (with the game status as it is now), so the phrases said are about the
table as it is, not as it was. A phrase that cannot be said (a message this version does not know,
espeak-ng refuses it, a binary is missing, a file is broken) is logged once per phrase, and the next
phrase is said; should the speaking loop fail all the same, it is started again.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections import OrderedDict, deque
from pathlib import Path
from typing import Any, AsyncIterator

from firmware import test_hooks
from firmware.client import Connection, Unreachable, connect
from firmware.errors import ApiError
from firmware.paths import client_socket

from controller.text.messages import LANGUAGES, default_language, render
from controller.voice.announcer import ALERT, MAX_AGE_S, VERBOSITY, Announcer, Phrase, likely_phrases
from controller.voice.speech import MAX_VOLUME, Speech, default_cache_dir

log = logging.getLogger("launcher-voice")

RETRY_S = 2.0  # between attempts to reach a daemon that is not (yet) there
# A test hook (tests/test_voice.py), read at start: RETRY_S in milliseconds, so that a test's
# daemon started late is heard at once.
RETRY_VARIABLE = "LAUNCHER_TEST_VOICE_RETRY_MS"
ALSA_CARDS = Path("/proc/asound/cards")
CARD_RECHECK_S = 30.0  # how often a voice without a sound card looks for one again
# Events read but not yet looked at. A burst is a few dozen; past this the oldest game actions go
# (only the latest one matters: its status is the table's now). Launcher events are few and kept.
EVENTS_KEPT = 256
# A phrase is a sentence about a player or two: past this it is cut (a phrase of 4 KB took 79 s).
MAX_PHRASE_CHARS = 160
# Phrases whose failure was logged, remembered so as not to log it again; player names make the
# set open-ended, so the oldest are forgotten past this.
FAILURES_REMEMBERED = 256
# Before the speaking loop is started again after a failure of its own: a bug that fails at once
# every time fills the log with a line a second, not a busy loop.
RESTART_SPEAKING_S = 1.0


class SoundCard:
    """Whether ALSA has a sound card, looked up again at most every ``CARD_RECHECK_S``.

    Without one there is nothing to speak through: rendering phrases would only burn the CPU
    the daemon needs (a Pi without a speaker, a VM). A card plugged in later is found within
    ``CARD_RECHECK_S``; an explicit ``--device`` (which may name something else than a card)
    is trusted.
    """

    def __init__(self, cards: Path = ALSA_CARDS, trusted: bool = False):
        self.cards = cards
        self.trusted = trusted
        self._present: bool | None = None
        self._checked_at = float("-inf")

    def present(self, now: float) -> bool:
        if self.trusted:
            return True
        if now - self._checked_at >= CARD_RECHECK_S:
            self._checked_at = now
            try:
                listed = self.cards.read_text()
            except OSError:
                listed = ""
            found = bool(listed.strip()) and "no soundcards" not in listed
            if found != self._present:
                if found:
                    log.info("sound card found: speaking")
                else:
                    log.warning("no sound card (%s lists none): silent until one is plugged in", self.cards)
            self._present = found
        return bool(self._present)


class DaemonFeed:
    """launcherd as the voice hears it: calls on one connection, and its events in arrival order,
    the ones read but not yet looked at bounded (:data:`EVENTS_KEPT`)."""

    def __init__(self) -> None:
        self._events: deque[tuple[str, dict[str, Any]] | None] = deque()
        self._arrived = asyncio.Event()
        self.connection: Connection | None = None
        self._watching: asyncio.Future | None = None

    @classmethod
    async def open(cls, path: Path) -> "DaemonFeed":
        """:raises Unreachable: launcherd's socket is missing or refuses connections."""
        feed = cls()
        feed.connection = await connect(path, feed._keep)
        feed._watching = asyncio.ensure_future(feed._end_when_closed(feed.connection))
        return feed

    async def _end_when_closed(self, connection: Connection) -> None:
        await connection.wait_closed()
        self._events.append(None)
        self._arrived.set()

    def _keep(self, name: str, params: dict[str, Any]) -> None:
        self._events.append((name, params))
        if len(self._events) > EVENTS_KEPT:
            stale = next((e for e in self._events if e is not None and e[0] == "game/action"), None)
            self._events.remove(stale if stale is not None else self._events[0])
        self._arrived.set()

    def action_waiting(self) -> bool:
        """Whether a newer game action waits behind the one being looked at."""
        return any(event is not None and event[0] == "game/action" for event in self._events)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        assert self.connection is not None, "opened by DaemonFeed.open"
        return await self.connection.call(method, params)

    async def events(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        while True:
            while not self._events:
                self._arrived.clear()
                await self._arrived.wait()
            event = self._events.popleft()
            if event is None:
                return
            yield event

    async def close(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
        if self.connection is not None:
            await self.connection.close()


async def _status(connection: DaemonFeed) -> dict[str, Any] | None:
    """The game status; None without a game (or while the game layer cannot play)."""
    try:
        return await connection.call("game/status")
    except ApiError:
        return None


class Voice:
    """The announcer fed from a connection, and the one loop that speaks what it decides."""

    def __init__(self, announcer: Announcer, lang: str, speak, warm=None):
        self.announcer = announcer
        self.lang = lang
        self.speak = speak  # async (text) -> None; returns once the phrase has been said
        self.warm = warm  # async (texts) -> None: prepares phrases to be said later, or None
        self._wake = asyncio.Event()
        self._players: list[str] = []
        self._warming: asyncio.Future | None = None
        self._failed: OrderedDict[str, None] = OrderedDict()  # the phrases whose failure was logged

    async def listen(self, connection: DaemonFeed) -> None:
        """Feed the announcer until the connection ends."""
        loop = asyncio.get_running_loop()
        await connection.call("events/subscribe")
        status = await _status(connection)
        self.announcer.baseline(status)
        self._warm_up(status)
        log.info("listening to launcherd, speaking %s", self.lang)
        async for name, params in connection.events():
            if name == "game/action":
                if connection.action_waiting():
                    continue  # stale: the newer action's status says how the table is now
                status = await _status(connection)
                self.announcer.game_action(params.get("action"), status, loop.time())
                self._warm_up(status)
            else:
                self.announcer.launcher_event(name, params, loop.time())
            self._wake.set()

    def _warm_up(self, status: dict[str, Any] | None) -> None:
        """When the players change, prepare their phrases in the background."""
        players = [player["name"] for player in (status or {}).get("players", [])]
        if self.warm is None or not players or players == self._players:
            return
        self._players = players
        if self._warming is not None:
            self._warming.cancel()
        # As they will be said: a long name's phrase is shortened, or its file would never be used.
        texts = [shortened(render(message, self.lang)) for message in likely_phrases(players)]
        self._warming = asyncio.ensure_future(self.warm(texts))
        self._warming.add_done_callback(_report_warm_up)

    async def speak_forever(self) -> None:
        """Say the announcer's phrases one at a time, for as long as launcher-voice runs."""
        loop = asyncio.get_running_loop()
        while True:
            phrase = self.announcer.next_phrase(loop.time())
            if phrase is None:
                await self._wake.wait()
                self._wake.clear()
                continue
            await self.say(phrase)

    async def speak_for_good(self) -> None:
        """:meth:`speak_forever`, started again should it fail: the voice is never silent for good."""
        while True:
            try:
                await self.speak_forever()
            except Exception:  # a bug; being cancelled (launcher-voice stopping) is no Exception
                log.exception("the speaking loop failed; starting it again")
                await asyncio.sleep(RESTART_SPEAKING_S)

    async def say(self, phrase: Phrase) -> None:
        """Say one phrase and return once it is said, cut short, or known not to be sayable (logged
        once per phrase): whatever goes wrong with this phrase, the next one is still said."""
        try:
            text = shortened(render(phrase.message, self.lang))
        except Exception as failure:  # a message id this version does not know (a newer launcherd)
            self._could_not_say(json.dumps(phrase.message, sort_keys=True, default=str), failure)
            return
        speaking = asyncio.ensure_future(self.speak(text))
        try:
            await self._until_said_or_cut(speaking, phrase.slot == ALERT, text)
        finally:
            speaking.cancel()  # launcher-voice stopping: nothing goes on playing
        if speaking.cancelled():
            return
        failure = speaking.exception()
        if failure is not None:
            self._could_not_say(repr(text), failure)

    def _could_not_say(self, phrase: str, failure: BaseException) -> None:
        if phrase in self._failed:
            self._failed.move_to_end(phrase)
            return
        self._failed[phrase] = None
        while len(self._failed) > FAILURES_REMEMBERED:
            self._failed.popitem(last=False)
        log.error("could not say %s: %s (logged once; this phrase failing again is not)", phrase,
                  str(failure) or type(failure).__name__)

    async def _until_said_or_cut(self, speaking: asyncio.Future, alert: bool, text: str) -> None:
        """Wait for a phrase to be said; an alert that comes meanwhile cuts any other phrase short."""
        while not speaking.done():
            self._wake.clear()
            woken = asyncio.ensure_future(self._wake.wait())
            await asyncio.wait({speaking, woken}, return_when=asyncio.FIRST_COMPLETED)
            woken.cancel()
            if not speaking.done() and not alert and self.announcer.alert_waiting():
                log.info("cut %r short for an alert", text)
                speaking.cancel()
                await asyncio.wait({speaking})


def shortened(text: str) -> str:
    """A phrase cut to MAX_PHRASE_CHARS at a word's end, so that it is said in a few seconds."""
    if len(text) <= MAX_PHRASE_CHARS:
        return text
    cut = text[:MAX_PHRASE_CHARS].rsplit(" ", 1)[0]
    return (cut if len(cut) > MAX_PHRASE_CHARS // 2 else text[:MAX_PHRASE_CHARS]) + "…"


def _report_warm_up(task: asyncio.Future) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("could not prepare the players' phrases: %s", task.exception())


async def run(args: argparse.Namespace) -> None:
    lang = args.lang or default_language()
    announcer = Announcer(args.verbosity, args.max_age)
    if args.mute:
        async def speak(text: str) -> None:
            print(text, flush=True)
        voice = Voice(announcer, lang, speak)
    else:
        speech = Speech(lang, args.cache_dir, args.volume, device=args.device)
        card = SoundCard(trusted=args.device is not None)
        loop = asyncio.get_running_loop()

        async def speak(text: str) -> None:
            if card.present(loop.time()):
                await speech.say(text)

        async def warm(texts: list[str]) -> None:
            if card.present(loop.time()):
                await speech.warm(texts)
        voice = Voice(announcer, lang, speak, warm)
    speaker = asyncio.ensure_future(voice.speak_for_good())
    path = client_socket(args.socket)
    retry_s = test_hooks.seconds(RETRY_VARIABLE, RETRY_S)
    told = False  # said that launcherd is not answering: once per absence, not every retry
    try:
        while True:
            try:
                feed = await DaemonFeed.open(path)
            except Unreachable as exc:
                if not told:
                    log.info("launcherd is not answering on %s (%s); waiting for it", path, exc)
                told = True
                await asyncio.sleep(retry_s)
                continue
            told = False
            try:
                await voice.listen(feed)
            except (ConnectionError, OSError) as exc:
                log.warning("lost launcherd: %s", exc)
            finally:
                await feed.close()
            await asyncio.sleep(retry_s)
    finally:
        speaker.cancel()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="launcher-voice", description="Speak the card launcher's game aloud (espeak-ng, ALSA).")
    parser.add_argument("--socket", metavar="PATH",
                        help="launcherd's socket (default: $LAUNCHER_SOCKET, the service's, else the sim's)")
    parser.add_argument("--lang", choices=LANGUAGES, help="language (default: from LANG / LC_ALL)")
    parser.add_argument("--mute", action="store_true", help="print the phrases instead of speaking")
    parser.add_argument("--volume", type=int, default=100, metavar=f"0-{MAX_VOLUME}",
                        help="loudness, 100 is espeak-ng's normal (default: 100)")
    parser.add_argument("--verbosity", choices=tuple(VERBOSITY), default="normal",
                        help="quiet: what someone must do; normal: also whose move and bursts;"
                             " chatty: also presses that gave nothing (default: normal)")
    parser.add_argument("--max-age", type=float, default=MAX_AGE_S, metavar="SECONDS",
                        help=f"drop a phrase not said within this time (default: {MAX_AGE_S})")
    parser.add_argument("--device", metavar="ALSA_DEVICE", help="aplay's -D device (default: ALSA's default)")
    parser.add_argument("--cache-dir", type=Path, default=None, metavar="DIR",
                        help="rendered phrases (default: $CACHE_DIRECTORY, else ~/.cache/launcher-voice)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.volume <= MAX_VOLUME:
        build_parser().error(f"--volume must be 0 to {MAX_VOLUME}, not {args.volume}")
    args.cache_dir = args.cache_dir or default_cache_dir()
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        asyncio.run(run(args))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
