"""launcher-voice: what it says for a scripted game (as text), and its service against launcherd."""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.launcherd import ThreadDaemon
from harness.waits import Lines
from controller.rules import game
from controller.text.messages import render
from controller.voice.announcer import MAX_WAITING, Announcer
from controller.voice.service import RETRY_VARIABLE, Voice
from controller.voice.speech import SpeechError
from firmware.client import Client
from firmware.errors import ApiError, InvalidParams

PLAYERS = ["Ann", "Bob", "Cy"]
SPEAK_S = 1.0  # how long each phrase takes to say, in the simulated table
# The voice on a real asyncio loop, whose clock stamps its phrases: where their age is not the point,
# none goes stale however long a busy machine holds the test up (3 s, as shipped, could), and
# what the test waits for is bounded as a hang.
NEVER_STALE_S, HANG_S = 3600.0, 60.0


def transcript(script, lang="en", verbosity="normal", max_age=3.0) -> str:
    """What the table hears: one line per phrase, with the time it starts.

    ``script`` is a list of (time, kind, payload): "act" a game action (the game status after it
    is fed along), "event" a launcher event (name, params). A simulated speaker takes one phrase at
    a time, each lasting SPEAK_S, from the announcer's :meth:`next`.
    """
    announcer = Announcer(verbosity, max_age)
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    lines, free_at = [], 0.0
    times = [at for at, _, _ in script] + [math.inf]
    for (at, kind, payload), until in zip(script, times[1:]):
        if kind == "act":
            state, _ = game.apply(state, payload)
            announcer.game_action(payload, game.status(state), at)
        else:
            announcer.launcher_event(*payload, at)
        now = max(free_at, at)
        while now < until and (message := announcer.next(now)) is not None:
            lines.append(f"{now:4.1f} {render(message, lang)}")
            now += SPEAK_S
        free_at = max(free_at, now)
    return "\n".join(lines)


def play(card, color="red", **more):
    return {"type": "play", "card": card, "color": color, **more}


def press(cards):
    return {"type": "press", "cards": cards}


# Ann, Bob and Cy; Cy deals, Ann plays first.
ROUND = [
    (0.0, "act", play("hit-2")),  # Ann attacks Bob
    (3.0, "act", play("hit-1")),  # Bob stacks: Mega Hit on Cy
    (6.0, "act", press(4)),  # Cy takes 4; play resumes after Ann
    (10.0, "act", press(0)),  # Bob cannot play
    (10.5, "event", ("jammed", {"press_id": 2})),
    (14.0, "act", play("5")),  # Cy
    (14.2, "act", press(2)),  # Ann, while "Ann's move" is being said
    (20.0, "act", play("skip")),  # Bob skips Cy: Ann
    # A rush: three turns in a second; only the latest whose-move is worth saying.
    (20.1, "act", press(3)),  # Ann
    (20.2, "act", press(0)),  # Bob
    (20.3, "act", press(1)),  # Cy
    (26.0, "act", play("discard-all", color="red", last=True)),  # Ann's last cards, all red (#39)
]


def test_a_scripted_round_in_english():
    assert transcript(ROUND) == """\
 0.0 Bob, press twice
 3.0 Mega Hit! 3 hits for Cy
 6.0 Cy takes 4
 7.0 Bob's move
10.0 Cy's move
11.0 A card is stuck
14.0 Ann's move
15.0 Ann takes 2
16.0 Bob's move
20.0 Ann's move
21.0 Cy takes one
22.0 Ann's move
26.0 Ann wins round 1"""


def test_the_same_round_in_french():
    assert transcript(ROUND, "fr") == """\
 0.0 Bob, appuie deux fois
 3.0 Méga appuyer ! 3 appuis pour Cy
 6.0 Cy prend 4 cartes
 7.0 À Bob de jouer
10.0 À Cy de jouer
11.0 Une carte est coincée
14.0 À Ann de jouer
15.0 Ann prend 2 cartes
16.0 À Bob de jouer
20.0 À Ann de jouer
21.0 Cy prend une carte
22.0 À Ann de jouer
26.0 Ann gagne la manche 1"""


def test_quiet_says_only_what_someone_must_do_and_the_end():
    assert transcript(ROUND, verbosity="quiet") == """\
 0.0 Bob, press twice
 3.0 Mega Hit! 3 hits for Cy
10.5 A card is stuck
26.0 Ann wins round 1"""


def test_chatty_also_says_presses_that_gave_nothing():
    said = transcript(ROUND[:4], verbosity="chatty").splitlines()
    assert said[-2:] == ["10.0 Nothing for Bob", "11.0 Cy's move"]


def test_attacks_of_every_kind_say_who_presses_and_how_often():
    script = [(0.0, "act", play("hit-1")), (2.0, "act", press(0)),  # Bob misses his turn
              (4.0, "act", play("wild-attack", target="Ann"))]
    assert transcript(script) == """\
 0.0 Bob, press once
 2.0 Cy's move
 4.0 Ann, press twice"""


def test_a_phrase_not_said_in_time_is_dropped_not_said_late():
    announcer = Announcer("normal", max_age=3.0)
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    state, _ = game.apply(state, play("hit-2"))
    announcer.game_action(play("hit-2"), game.status(state), 10.0)
    assert announcer.next(13.5) is None
    announcer.launcher_event("empty", {"press_id": 1}, 20.0)
    assert announcer.next(23.0) == {"id": "voice_empty"}


def test_alerts_go_first_and_a_newer_phrase_replaces_a_waiting_one_of_its_kind():
    announcer = Announcer("normal")
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    for at, action in ((1.0, press(0)), (1.1, press(0))):  # Ann, then Bob: now Cy's move
        state, _ = game.apply(state, action)
        announcer.game_action(action, game.status(state), at)
    announcer.launcher_event("jammed", {}, 1.2)
    said = [render(announcer.next(1.3), "en"), render(announcer.next(1.3), "en")]
    assert said == ["A card is stuck", "Cy's move"] and announcer.next(1.3) is None


def test_the_start_and_an_undo_say_only_what_changed():
    announcer = Announcer("normal")
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    assert announcer.next(0.0) is None
    before = state
    state, _ = game.apply(state, play("hit-2"))
    announcer.game_action(play("hit-2"), game.status(state), 1.0)
    announcer.next(1.0)
    announcer.game_action(None, game.status(before), 2.0)  # the attack undone: Ann again
    assert render(announcer.next(2.0), "en") == "Ann's move" and announcer.next(2.0) is None


def test_the_end_of_the_match_names_its_winners():
    announcer = Announcer("quiet")
    playing = {"turn": "Ann", "owed": None, "chain": None, "round": 3, "round_over": False,
               "match": {"match_over": False, "winner": None}}
    announcer.baseline(playing)
    over = {**playing, "turn": None, "round_over": True, "winner": "Bob",
            "match": {"match_over": True, "winner": ["Ann", "Bob"]}}
    announcer.game_action({"type": "end_round"}, over, 5.0)
    assert render(announcer.next(5.0), "fr") == "Ann et Bob gagnent la partie"
    assert announcer.next(5.0) is None


def test_launcher_events_nobody_must_act_on_are_not_said():
    announcer = Announcer("chatty")
    for name in ("state", "press", "launched", "card", "ignored", "game/message"):
        announcer.launcher_event(name, {}, 0.0)
    assert announcer.next(0.0) is None


def test_an_unknown_verbosity_is_refused():
    with pytest.raises(InvalidParams, match="quiet, normal, chatty"):
        Announcer("loud")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(
    st.floats(min_value=0.0, max_value=4.0),
    st.sampled_from([press(0), press(1), press(3), play("hit-2"), play("hit-1"), play("skip"),
                     play("5"), ("event", "jammed"), ("event", "empty"), ("speak", None)])),
    max_size=40))
def test_whatever_happens_a_phrase_is_never_stale_and_few_wait(steps):
    announcer = Announcer("chatty", max_age=3.0)
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    decided, now = {}, 0.0
    for dt, step in steps:
        now += dt
        if isinstance(step, tuple) and step[0] == "event":
            announcer.launcher_event(step[1], {}, now)
        elif isinstance(step, tuple):
            message = announcer.next(now)
            if message is not None:
                assert now - decided[id(message)][1] <= 3.0
        else:
            try:
                state, _ = game.apply(state, step)
            except ApiError:
                continue  # not allowed now: nothing happened
            announcer.game_action(step, game.status(state), now)
        for phrase in announcer.waiting:
            # The message is kept too, so that its id is not reused by a later one.
            decided.setdefault(id(phrase.message), (phrase.message, phrase.at))
        slots = [phrase.slot for phrase in announcer.waiting]
        assert len(slots) == len(set(slots)) <= MAX_WAITING


def test_a_phrase_that_cannot_be_said_does_not_stop_the_next():
    announcer = Announcer("normal", max_age=NEVER_STALE_S)
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    announcer.baseline(game.status(state))
    state, _ = game.apply(state, play("hit-2"))
    tried = []

    async def speak(text):
        tried.append(text)
        if len(tried) == 1:
            raise SpeechError("no sound card")

    async def main():
        now = asyncio.get_running_loop().time()  # the clock the speaking loop reads
        announcer.launcher_event("jammed", {}, now)
        announcer.launcher_event("empty", {}, now)  # replaces the jam: both are alerts
        announcer.game_action(play("hit-2"), game.status(state), now)
        voice = Voice(announcer, "en", speak)
        task = asyncio.ensure_future(voice.speak_forever())
        while len(tried) < 2:
            await asyncio.sleep(0)
        task.cancel()

    asyncio.run(asyncio.wait_for(main(), HANG_S))
    assert tried == ["The launcher is empty", "Bob, press twice"]


class ScriptedConnection:
    """A stand-in for launcherd's connection: game statuses in turn, then the events given."""

    def __init__(self, statuses, events):
        self.statuses = list(statuses)
        self._events = list(events)

    async def call(self, method, params=None):
        return {"subscribed": True} if method == "events/subscribe" else self.statuses.pop(0)

    async def events(self):
        for event in self._events:
            await asyncio.sleep(0)  # events come one by one: what runs in the background gets a turn
            yield event

    def action_waiting(self):
        return False  # one by one: none waits behind the one being looked at


def test_the_players_phrases_are_prepared_once_when_the_players_change():
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    first = game.status(state)
    state, _ = game.apply(state, press(0))
    again = game.status(state)
    other = game.status(game.new_game("attack-mega-hit", ["Zoé", "Yann"])[0])
    warmed = []

    async def warm(texts):
        warmed.append(texts)

    async def speak(text):
        pass

    async def main():
        voice = Voice(Announcer(), "fr", speak, warm)
        action = ("game/action", {"action": press(0)})
        await voice.listen(ScriptedConnection([first, again, other], [action, action]))
        await asyncio.sleep(0)  # the warm-ups run in the background

    asyncio.run(main())
    assert [len(texts) for texts in warmed] == [3 + 7 * 3, 3 + 7 * 2]
    assert "Bob, appuie deux fois" in warmed[0] and "À Zoé de jouer" in warmed[1]
    assert "Zoé prend 4 cartes" in warmed[1] and "Le lanceur est vide" in warmed[1]


# ---- the service against a running launcherd ------------------------------------------------

CONFIG = """
[ejection]
profile = "fixed"
sequence = [2, 0, 1]
[sim]
cards_per_second = 50.0
"""


def test_launcher_voice_speaks_a_game_played_on_launcherd_in_french(tmp_path):
    with ThreadDaemon(tmp_path, CONFIG, seed=1) as daemon:
        voice = subprocess.Popen(
            [sys.executable, "-m", "controller.voice.service", "--mute", "--lang", "fr",
             "--socket", str(daemon.daemon.socket_path), "--max-age", "30"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=Path(__file__).resolve().parent.parent)
        try:
            Lines(voice.stderr).wait_for("listening to launcherd")
            said = Lines(voice.stdout)
            with Client(daemon.daemon.socket_path, timeout=15) as client:
                client.call("sim/lid", {"open": False})  # closed, whatever the sim starts with
                client.call("game/new", {"rules": "attack-mega-hit", "players": PLAYERS})
                said.wait_for("À Ann de jouer")
                client.call("game/play", {"card": "hit-2", "color": "red"})
                said.wait_for("Bob, appuie deux fois")
                client.call("launcher/launch")  # 2 cards: Bob's obligation ends early
                said.wait_for("Bob prend 2 cartes")
                said.wait_for("À Cy de jouer")
        finally:
            voice.terminate()
            voice.wait(HANG_S)


def test_launcher_voice_waits_for_a_daemon_that_is_not_there_yet(tmp_path):
    daemon = ThreadDaemon(tmp_path, CONFIG, seed=1)
    voice = subprocess.Popen(
        [sys.executable, "-m", "controller.voice.service", "--mute", "--lang", "en",
         "--socket", str(daemon.daemon.socket_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parent.parent,
        env={**os.environ, RETRY_VARIABLE: "50"})  # not 2 s between its attempts
    try:
        log = Lines(voice.stderr)
        log.wait_for("launcherd is not answering")
        with daemon:
            log.wait_for("listening to launcherd, speaking en")
            assert voice.poll() is None
    finally:
        voice.terminate()
        voice.wait(HANG_S)


def test_events_carrying_message_objects_are_heard_in_the_voices_own_words():
    """game/message carries a message object and its text, a launcher event its reason as both:
    launcher-voice keeps to its own phrases, in its own language, whatever the daemon's."""
    state, _ = game.new_game("attack-mega-hit", PLAYERS)
    start = game.status(state)
    state, _ = game.apply(state, play("hit-2"))
    said = []

    async def speak(text):
        said.append(text)

    async def main():
        voice = Voice(Announcer(max_age=NEVER_STALE_S), "fr", speak)
        events = [
            ("game/action", {"seq": 1, "match_id": 1, "action": play("hit-2")}),
            ("game/message", {"message": {"id": "owes", "player": "Bob", "presses": 2},
                              "text": "Bob owes 2 presses", "match_id": 1}),
            ("jammed", {"press_id": 1, "reason": "a card is stuck in the slot",
                        "reason_object": {"id": "voice_jam"}}),
        ]
        await voice.listen(ScriptedConnection([start, game.status(state)], events))
        speaker = asyncio.ensure_future(voice.speak_forever())
        while len(said) < 2:
            await asyncio.sleep(0)
        speaker.cancel()

    asyncio.run(asyncio.wait_for(main(), HANG_S))
    assert said == ["Une carte est coincée", "Bob, appuie deux fois"]


def test_without_a_sound_card_nothing_is_rendered_until_one_is_plugged_in(tmp_path):
    from controller.voice.service import CARD_RECHECK_S, SoundCard

    cards = tmp_path / "cards"
    cards.write_text("--- no soundcards ---\n")
    card = SoundCard(cards)
    assert not card.present(0.0)
    cards.write_text(" 0 [Device         ]: USB-Audio - USB Audio Device\n")
    assert not card.present(CARD_RECHECK_S - 1)  # not looked at again before its time
    assert card.present(CARD_RECHECK_S)
    assert not SoundCard(tmp_path / "no-alsa").present(0.0)
    assert SoundCard(tmp_path / "no-alsa", trusted=True).present(0.0)


def test_a_halt_is_an_alert_said_first():
    script = [(0.0, "act", play("hit-2")), (0.1, "event", ("halted", {"reason": "the daemon was stalled"}))]
    assert transcript(script).splitlines()[:2] == [" 0.0 Bob, press twice",
                                                   " 1.0 The launcher has stopped: see the table page"]
    announcer = Announcer()
    announcer.launcher_event("halted", {"reason": "x"}, 0.0)
    assert announcer.alert_waiting() and announcer.next(0.0) == {"id": "voice_halted"}


def test_trouble_with_the_game_log_is_an_alert():
    announcer = Announcer("quiet")
    damage = {"id": "damage", "what": {"id": "log_gone", "path": "/x"}, "todo": {"id": "log_gone_todo"}}
    announcer.launcher_event("game/message", {"message": damage, "text": "..."}, 0.0)
    assert announcer.alert_waiting() and render(announcer.next(0.0), "fr") == \
        "Problème avec le journal de partie : voyez la page de la table"
    announcer.launcher_event("game/message", {"message": {"id": "owes", "player": "Bob", "presses": 2}}, 0.0)
    assert announcer.next(0.0) is None


def test_what_waits_for_a_press_is_said_even_when_quiet():
    waits = {"id": "dispense_waiting_press", "count": 3, "after": {"id": "after_jam"}}
    for lang, said in (("en", "the jam is cleared: press the button to go on (3 cards left to deal)"),
                       ("fr", "le bourrage est dégagé : appuyez sur le bouton pour continuer (3 cartes à distribuer)")):
        announcer = Announcer("quiet")
        announcer.launcher_event("pending", {"pending": waits, "pending_text": "..."}, 10.0)
        assert render(announcer.next(10.5), lang) == said
        announcer.launcher_event("pending", {"pending": None, "pending_text": None}, 11.0)
        assert announcer.next(11.0) is None


def test_the_warm_up_prepares_phrases_as_they_will_be_said_shortened():
    """A name longer than this launcher allows (an older log, another launcherd): the phrase is said
    shortened, so it is rendered shortened ahead of time, or its file would never be used."""
    from controller.voice.service import MAX_PHRASE_CHARS, shortened

    long_name = "Bartholomew " * 20
    status = {"players": [{"name": long_name}, {"name": "Cy"}], "turn": "Cy", "owed": None, "chain": None}
    warmed = []

    async def warm(texts):
        warmed.extend(texts)

    async def speak(text):
        pass

    async def main():
        voice = Voice(Announcer(), "en", speak, warm)
        await voice.listen(ScriptedConnection([status], []))
        await asyncio.sleep(0)  # the warm-up runs in the background

    asyncio.run(main())
    said = shortened(render({"id": "voice_turn", "player": long_name}, "en"))
    assert said in warmed and len(said) <= MAX_PHRASE_CHARS + 1
    assert all(len(text) <= MAX_PHRASE_CHARS + 1 for text in warmed)


def test_each_phrase_that_cannot_be_said_is_logged_once(caplog):
    import logging

    from controller.voice.announcer import ALERT, MOVE, Phrase

    async def speak(text):
        if "Bob" in text:
            raise SpeechError(f"espeak-ng refuses {text!r}")

    async def main():
        voice = Voice(Announcer(), "en", speak)
        for message, slot in [({"id": "voice_turn", "player": "Bob"}, MOVE),
                              ({"id": "from_a_newer_version"}, MOVE),
                              ({"id": "voice_turn", "player": "Bob"}, MOVE),  # again: not logged again
                              ({"id": "from_a_newer_version"}, MOVE),
                              ({"id": "voice_jam"}, ALERT),  # said
                              ({"id": "voice_press_twice", "player": "Bob"}, MOVE),  # another phrase
                              ({"id": "voice_turn", "player": None}, MOVE)]:  # a parameter missing
            await voice.say(Phrase(message, 0.0, slot))

    with caplog.at_level(logging.ERROR, "launcher-voice"):
        asyncio.run(asyncio.wait_for(main(), HANG_S))
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 4, lines
    assert "Bob's move" in lines[0] and "from_a_newer_version" in lines[1]
    assert "Bob, press twice" in lines[2] and "voice_turn" in lines[3]


def test_the_speaking_loop_is_started_again_if_it_fails(monkeypatch, caplog):
    import logging

    from controller.voice import service

    monkeypatch.setattr(service, "RESTART_SPEAKING_S", 0.0)
    announcer = Announcer(max_age=NEVER_STALE_S)
    said = []
    original = announcer.next_phrase
    failed = []

    def next_phrase(now):
        if not failed:
            failed.append(now)
            raise RuntimeError("a bug in the announcer")
        return original(now)

    announcer.next_phrase = next_phrase

    async def speak(text):
        said.append(text)

    async def main():
        announcer.launcher_event("jammed", {}, asyncio.get_running_loop().time())
        voice = Voice(announcer, "en", speak)
        task = asyncio.ensure_future(voice.speak_for_good())
        while not said:
            await asyncio.sleep(0)
        task.cancel()

    with caplog.at_level(logging.ERROR, "launcher-voice"):
        asyncio.run(asyncio.wait_for(main(), HANG_S))
    assert said == ["A card is stuck"]
    assert any("starting it again" in record.getMessage() for record in caplog.records)
