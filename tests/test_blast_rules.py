"""Scenarios for every rule of the blast ruleset (rules.md §5, §6; seed 002), on controller/rules/blast.py."""

import json

import pytest

from controller.rules import blast

from controller.match import scores
from game_actions import from_json, to_json
from controller.rules.points import POINTS
from firmware.errors import InvalidParams, NotFound, Refused

P3 = ["Ann", "Bob", "Cy"]


def start(players=P3, **kw):
    kw.setdefault("first_card", "5")
    kw.setdefault("color", "red")
    return blast.new_game("blast", players, **kw)[0]


def run(state, *actions):
    for action in actions:
        state, _ = blast.apply(state, action)
    return state


def play(card, color=None, **kw):
    return {"type": "play", "card": card, "color": color, **kw}


def safe(**kw):
    return {"type": "insert", "blast": False, "cards": 0, **kw}


def boom(cards, **kw):
    return {"type": "insert", "blast": True, "cards": cards, **kw}


def two_each(state=None):
    """Five rounds of red 3s: every player holds 2 cards by the count, Ann's move (#39)."""
    return run(state or start(), *[play("3", "red")] * 15)


def st(state):
    return blast.status(state)


def taken(state):
    return {p["name"]: p["cards_taken"] for p in st(state)["players"]}


def test_deck_and_points_are_seed_002():
    assert blast.RULESET.deck_size == 110
    assert sum(blast.RULESET.deck[str(n)] for n in range(1, 10)) == 72
    assert (blast.RULESET.deck["draw-one"], blast.RULESET.deck["wild-blast"]) == (8, 6)
    assert dict(blast.RULESET.points) == dict(POINTS["blast"])
    assert st(start())["device"] == "blaster"


def test_a_safe_insertion_ends_the_turn():
    s = run(start(), safe())
    assert st(s)["turn"] == "Bob" and taken(s) == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert st(s)["players"][0]["presses"] == 1  # insertions are counted per player


def test_a_blast_gives_every_ejected_card_to_the_inserter_and_ends_the_turn():
    s = run(start(), boom(3))
    assert taken(s)["Ann"] == 3 and st(s)["turn"] == "Bob"


def test_a_drawn_card_is_never_played_that_turn():
    s = run(start(), safe())
    with pytest.raises(Refused, match="it is Bob's move, not Ann's"):
        blast.apply(s, play("5", "red", by="Ann"))


def test_draw_one_the_next_player_inserts_one_and_that_is_their_turn():
    s = run(start(), play("draw-one", "red"))
    assert st(s)["owed"] == {"player": "Bob", "seat": 1, "reason": "draw-one", "inserts": 1, "until_blast": False,
                             "presses": 1, "until_cards": False}
    with pytest.raises(Refused, match="Bob owes 1 insertion first; nothing answers it"):
        blast.apply(s, play("draw-one", "red"))
    s = run(s, safe())
    assert st(s)["owed"] is None and st(s)["turn"] == "Cy"


def test_draw_one_that_blasts_gives_the_cards_and_ends_the_obligation():
    s = run(start(), play("draw-one", "red"), boom(2))
    assert taken(s)["Bob"] == 2 and st(s)["turn"] == "Cy"


def test_wild_blast_inserts_until_the_blast_and_takes_them_all():
    s = run(start(), play("wild-blast", "green"))
    assert st(s)["owed"]["inserts"] is None and st(s)["owed"]["until_blast"] is True
    assert st(s)["color"] == "green"
    s = run(s, safe(), safe(), safe())
    assert st(s)["turn"] == "Bob" and st(s)["owed"]["until_blast"] is True
    s = run(s, boom(4))
    assert taken(s)["Bob"] == 4 and st(s)["owed"] is None and st(s)["turn"] == "Cy"
    assert st(s)["players"][1]["presses"] == 4


def test_discard_color_works_as_discard_all():
    s = run(start(), play("discard-color", "red"))
    assert st(s)["turn"] == "Bob" and st(s)["color"] == "red" and st(s)["top_card"] == "discard-color"


def test_reverse_turns_play_around_and_skip_skips():
    s = run(start(), play("reverse", "red"))
    assert st(s)["direction"] == "counterclockwise" and st(s)["turn"] == "Cy"
    s = run(start(), play("skip", "red"))
    assert st(s)["turn"] == "Cy"


@pytest.mark.parametrize("card", ["reverse", "skip"])
def test_two_players_reverse_acts_as_skip(card):
    s = run(start(["Ann", "Bob"]), play(card, "red"))
    assert st(s)["turn"] == "Ann" and st(s)["direction"] == "clockwise"


def test_two_players_the_player_of_draw_one_plays_again_after_the_insertion():
    s = run(start(["Ann", "Bob"]), play("draw-one", "red"))
    assert st(s)["turn"] == "Bob"
    s = run(s, safe())
    assert st(s)["turn"] == "Ann"


def test_wild_names_a_colour():
    with pytest.raises(InvalidParams, match="Wild names a colour"):
        blast.apply(start(), play("wild"))
    s = run(start(), play("wild", "blue"))
    assert st(s)["color"] == "blue" and st(s)["turn"] == "Bob"


def test_a_card_that_matches_nothing_known_is_refused():
    with pytest.raises(Refused, match="a blue 7 does not go on the red 5"):
        blast.apply(start(), play("7", "blue"))
    run(start(), play("5", "blue"), play("7", "blue"))  # number, then colour


def test_uno_not_called_costs_two_insertions_out_of_turn_each_may_blast():
    s = run(two_each(), play("5", "red"))
    assert st(s)["catchable"] == "Ann"
    s = run(s, {"type": "catch", "player": "Ann"})
    assert st(s)["owed"] == {"player": "Ann", "seat": 0, "reason": "uno", "inserts": 2, "until_blast": False,
                             "presses": 2, "until_cards": False}
    s = run(s, boom(2))  # a blast does not end the penalty: it is 2 cards drawn
    assert st(s)["owed"]["inserts"] == 1 and st(s)["turn"] == "Ann"
    s = run(s, safe())
    assert taken(s)["Ann"] == 2 and st(s)["turn"] == "Bob" and st(s)["players"][0]["hand_max"] == 3


def test_uno_penalty_goes_before_a_turns_obligation():
    s = run(two_each(), play("draw-one", "red"), {"type": "catch", "player": "Ann"})
    assert [o["reason"] for o in st(s)["queue"]] == ["uno", "draw-one"]
    s = run(s, safe(), safe(), safe())
    assert st(s)["turn"] == "Cy" and st(s)["players"][1]["presses"] == 1


def test_uno_called_cannot_be_caught_and_a_late_catch_is_refused():
    s = run(two_each(), {"type": "uno", "player": "Ann"}, play("5", "red"))
    with pytest.raises(Refused, match="Ann called Uno"):
        blast.apply(s, {"type": "catch", "player": "Ann"})
    s = run(two_each(), play("5", "red"), safe())
    with pytest.raises(Refused, match="too late to catch Ann"):
        blast.apply(s, {"type": "catch", "player": "Ann"})
    with pytest.raises(NotFound):
        blast.apply(s, {"type": "catch", "player": "Zed"})


@pytest.mark.parametrize("card", ["draw-one", "wild-blast", "skip", "reverse", "discard-color", "wild"])
def test_an_action_card_turned_up_first_is_ignored(card):
    state, effects = blast.new_game("blast", P3, first_card=card)
    assert st(state)["turn"] == "Ann" and st(state)["owed"] is None and st(state)["direction"] == "clockwise"
    assert st(state)["top_card"] is None and st(state)["first_card"] == card
    assert "ignored" in effects[1]["text"]


def test_the_last_card_ends_the_round_and_a_last_wild_blast_blasts_nobody():
    s = run(two_each(), play("3", "red"), play("3", "red"), play("3", "red"), play("wild-blast", "red", last=True))
    assert st(s)["round_over"] and st(s)["winner"] == "Ann" and st(s)["owed"] is None
    with pytest.raises(Refused, match="round 1 is over"):
        blast.apply(s, safe())


@pytest.mark.parametrize("action, message", [
    (boom(0), "a blast gives 1 card or more, not 0"),
    (safe(cards=2), "a safe insertion gives no card, not 2"),
    ({"type": "insert", "cards": 0}, "a card into the blaster: say whether it fired"),
    ({"type": "press", "cards": 1}, r"UNO Blast has no such move \(a press of the launch button\); its moves: playing a"
                                    r" card, a card into the blaster, calling Uno, catching"),
    (play("hit-2", "red"), "'hit-2' is not a card of UNO Blast"),
    (play("wild", "orange"), "unknown colour 'orange'"),
])
def test_malformed_actions_are_refused(action, message):
    with pytest.raises(InvalidParams, match=message):
        blast.apply(start(), action)


def test_a_logged_game_replays_to_the_same_state_through_json():
    log = [play("wild-blast", "blue"), safe(), boom(2), {"type": "uno", "player": "Cy"}, play("7", "blue"),
           play("draw-one", "blue"), safe()]
    s = run(start(), *log)
    again = run(start(), *json.loads(json.dumps(log)))
    assert again == s and from_json(json.loads(json.dumps(to_json(s)))) == s


@pytest.mark.parametrize("scoring, totals", [
    ("standard", {"Ann": 106, "Bob": 0, "Cy": 0}),  # the winner scores the others' hands
    ("lowest", {"Ann": 0, "Bob": 77, "Cy": 29}),  # each keeps their own
    ("elimination", {"Ann": 0, "Bob": 77, "Cy": 29}),
])
def test_a_round_scored_with_each_variant(scoring, totals):
    match = scores.new_match("blast", P3, scoring=scoring, target=500)
    # 20 + 50 + 7 and 20 + 9, from seed 002's table.
    hands = {"Bob": "draw-one,wild-blast,7", "Cy": "discard-color,9"}
    if scoring != "standard":
        hands["Ann"] = 0
    match = scores.end_round(match, "Ann", hands)
    assert scores.scores(match)["totals"] == totals
