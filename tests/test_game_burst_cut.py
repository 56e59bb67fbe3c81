"""A burst cut short in an UNO Attack game (#40): a jam or an empty hopper stops a press's burst;
the table hears what came out and is the presser's, the stuck card included, and what they still
owe; the log keeps how it ended. A press the launcher ignores (a card stuck) is said as ignored,
with why, and is no move of the game.

Through the socket API of a real launcherd --sim (in a thread) with a fixed ejection profile.
"""

from __future__ import annotations

from controller.text.messages import render
from harness.launcherd import ThreadDaemon

P3 = ["Ann", "Bob", "Cy"]
ATTACK = {"rules": "attack-mega-hit", "players": P3}


def fixed(seq: str, extra: str = "") -> str:
    return f'[ejection]\nprofile = "fixed"\nsequence = {seq}\n' + extra


def presses(running) -> list[dict]:
    return [r["action"] for r in running.call("game/log")["actions"] if r["action"]["type"] == "press"]


def test_a_burst_cut_by_a_jam_says_the_stuck_card_is_the_pressers_and_a_press_while_jammed_is_ignored(tmp_path):
    with ThreadDaemon(tmp_path, fixed("[5]")) as running, running.events() as events:
        running.call("game/new", ATTACK)
        running.call("game/play", {"card": "hit-1", "color": "red"})  # Ann: Bob presses once
        running.call("sim/jam")
        outcome = running.call("launcher/press")  # Bob's press: the first card sticks in the slot
        assert (outcome["cards"], outcome["ended"]) == (1, "jam")
        said = events.wait_for("game/message", lambda p: p["message"]["id"] == "burst_cut_jam")
        assert said["message"] == {"id": "burst_cut_jam", "player": "Bob", "cards": 1,
                                   "owed": {"id": "burst_owes_nothing", "player": "Bob"}}
        assert said["text"] == ("Bob's burst stopped at a jam: 1 card for Bob, counting the card stuck in the slot"
                                " (pull it out: it is Bob's too); Bob owes no more presses")
        assert presses(running)[-1] == {"type": "press", "cards": 1, "press_id": outcome["press_id"],
                                        "ended": "jam", "by": "Bob"}
        before = running.call("game/status")

        ignored = running.call("launcher/press")  # a press while the card is stuck: ignored
        assert (ignored["event"], ignored["reason"]) == ("ignored", "jammed")
        said = events.wait_for("game/message", lambda p: p["message"]["id"].startswith("press_ignored"))
        assert said["message"] == {"id": "press_ignored_jammed_owner", "owner": "Bob"}
        assert "ignored, nothing counted" in said["text"]
        after = running.call("game/status")
        assert len(presses(running)) == 1 and after["players"] == before["players"]


def test_a_burst_cut_by_an_empty_hopper_says_what_came_out_and_what_is_still_owed(tmp_path):
    with ThreadDaemon(tmp_path, fixed("[4]", "[sim]\nhopper = 6\n")) as running, running.events() as events:
        running.call("launcher/reload", {"cards": 6})
        running.call("game/new", ATTACK)
        assert running.call("launcher/press")["cards"] == 4  # Ann cannot play: a whole burst, turn over
        outcome = running.call("launcher/press")  # Bob's press: the hopper runs dry after 2
        assert (outcome["cards"], outcome["ended"]) == (2, "empty")
        said = events.wait_for("game/message", lambda p: p["message"]["id"] == "burst_cut_empty")
        assert said["message"]["cards"] == 2 and said["message"]["player"] == "Bob"
        assert said["message"]["owed"] == {"id": "burst_owes_nothing", "player": "Bob"}
        assert render(said["message"], "fr") == (
            "la rafale de Bob s'est arrêtée : le lanceur s'est vidé après 2 cartes, toutes à Bob ; mélangez la"
            " défausse dans le lanceur et rechargez-le ; Bob ne doit plus d'appui")
        assert presses(running)[-1]["ended"] == "empty"
        # The first, whole burst was no burst cut short: its log line has no ending.
        assert "ended" not in presses(running)[0]
