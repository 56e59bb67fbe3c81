"""Scenarios for every rule of classic and despicable-me-4 with the launcher as dealer (rules.md §5, §7)."""

import json
from dataclasses import replace

import pytest

from controller.rules import classic

from controller.match import scores
from game_actions import from_json, to_json
from controller.rules.points import POINTS
from firmware.errors import InvalidParams, Refused

P3 = ["Ann", "Bob", "Cy"]
BOTH = ["classic", "despicable-me-4"]
COLOR = {"classic": "red", "despicable-me-4": "orange"}


def dealt(state):
    """Deal every seat's 7, as the service would after each deal effect."""
    while classic.status(state)["owed"] and classic.status(state)["owed"]["reason"] == "deal":
        state, _ = classic.apply(state, press(classic.status(state)["owed"]["cards"]))
    return state


def start(ruleset="classic", players=P3, **kw):
    kw.setdefault("first_card", "5")
    kw.setdefault("color", COLOR[ruleset])
    return dealt(classic.new_game(ruleset, players, **kw)[0])


def holding(state, **hands):
    """The round with these players' hands set (as many plays as it takes to get there)."""
    counts = list(state.hands)
    for name, cards in hands.items():
        counts[state.players.index(name)] = cards
    return replace(state, hands=tuple(counts))


def run(state, *actions):
    for action in actions:
        state, _ = classic.apply(state, action)
    return state


def play(card, color=None, **kw):
    return {"type": "play", "card": card, "color": color, **kw}


def press(cards=1, **kw):
    return {"type": "press", "cards": cards, **kw}


def st(state):
    return classic.status(state)


def taken(state):
    return {p["name"]: p["cards_taken"] for p in st(state)["players"]}


def owed(state):
    o = st(state)["owed"]
    return None if o is None else (o["player"], o["cards"], o["reason"])


# ---- decks -----------------------------------------------------------------------------------------


def test_decks_are_the_boxes():
    c, d = classic.RULESETS["classic"], classic.RULESETS["despicable-me-4"]
    assert c.deck_size == 108 and d.deck_size == 112
    assert c.colors == ("red", "yellow", "green", "blue") and d.colors == ("blue", "orange", "purple", "yellow")
    assert "wild-mega-minions" not in c.cards and d.deck["wild-mega-minions"] == 4
    assert dict(POINTS["despicable-me-4"]) == dict(d.points)
    assert dict(POINTS["classic"]) == dict(c.points)


def test_colours_are_the_rulesets():
    with pytest.raises(InvalidParams, match="unknown colour 'orange'; colours of UNO"):
        classic.apply(start(), play("wild", "orange"))
    run(start("despicable-me-4"), play("wild", "purple"))
    with pytest.raises(InvalidParams, match="'wild-mega-minions' is not a card of UNO"):
        classic.apply(start(), play("wild-mega-minions", "red"))


# ---- dealing ----------------------------------------------------------------------------------------


def test_seven_dealt_to_every_seat_seat_by_seat_from_the_dealers_left():
    state, effects = classic.new_game("classic", P3, dealer="Bob", first_card="5", color="red")
    deals = [e for e in effects if e["type"] == "deal"]
    assert [(d["player"], d["cards"], d["pause"]) for d in deals] == [("Cy", 7, 2.0), ("Ann", 7, 2.0), ("Bob", 7, 2.0)]
    with pytest.raises(Refused, match="Cy is dealt 7 cards first"):
        classic.apply(state, play("5", "red"))
    state = dealt(state)
    assert taken(state) == {"Ann": 7, "Bob": 7, "Cy": 7} and st(state)["turn"] == "Cy"


def test_a_deal_to_ten_seats_gives_seventy():
    players = [f"P{i}" for i in range(10)]
    state = start(players=players)
    assert sum(taken(state).values()) == 70 and set(taken(state).values()) == {7}


def test_a_deal_counts_partial_dispenses_and_never_more_than_owed():
    state, _ = classic.new_game("classic", ["Ann", "Bob"], first_card="5", color="red")
    state = run(state, press(3), press(4))
    assert owed(state) == ("Bob", 7, "deal")
    with pytest.raises(Refused, match="Bob is owed 7 cards, not 8: never more"):
        classic.apply(state, press(8))


def test_deal_pause_options():
    _, effects = classic.new_game("classic", P3, options={"deal_pause": "press"})
    assert {e["pause"] for e in effects if e["type"] == "deal"} == {"press"}
    _, effects = classic.new_game("classic", P3, options={"deal_pause_s": "5"})
    assert {e["pause"] for e in effects if e["type"] == "deal"} == {5.0}
    with pytest.raises(InvalidParams, match="deal_pause_s cannot be '99'"):
        classic.new_game("classic", P3, options={"deal_pause_s": "99"})


@pytest.mark.parametrize("card", ["draw-two", "skip", "reverse", "wild", "wild-draw-four"])
def test_an_action_card_turned_up_first_is_ignored(card):
    state, effects = classic.new_game("classic", P3, first_card=card)
    state = dealt(state)
    assert st(state)["turn"] == "Ann" and st(state)["direction"] == "clockwise" and st(state)["awaiting"] is None
    assert st(state)["top_card"] is None and any("ignored" in e.get("text", "") for e in effects)


# ---- a turn -----------------------------------------------------------------------------------------


def test_a_draw_is_one_card_then_play_it_or_pass():
    s = run(start(), press(1))
    assert taken(s)["Ann"] == 8 and st(s)["awaiting"] == "play_or_pass" and st(s)["turn"] == "Ann"
    with pytest.raises(Refused, match="Ann has drawn: play that card or pass"):
        classic.apply(s, press(1))
    assert st(run(s, {"type": "pass"}))["turn"] == "Bob"
    s = run(s, play("5", "blue"))
    assert st(s)["turn"] == "Bob" and st(s)["awaiting"] is None
    with pytest.raises(Refused, match="a draw is exactly 1 card, not 2"):
        classic.apply(start(), press(2))
    with pytest.raises(Refused, match="pass only after drawing"):
        classic.apply(start(), {"type": "pass"})


@pytest.mark.parametrize("ruleset", BOTH)
def test_draw_two_deals_two_and_the_turn_is_lost_without_stacking(ruleset):
    s = run(start(ruleset), play("draw-two", COLOR[ruleset]))
    assert owed(s) == ("Bob", 2, "draw-two")
    with pytest.raises(Refused, match="Bob is dealt 2 cards first"):
        classic.apply(s, play("draw-two", COLOR[ruleset]))
    s = run(s, press(2))
    assert taken(s)["Bob"] == 9 and st(s)["turn"] == "Cy"


def test_skip_reverse_and_two_players():
    assert st(run(start(), play("skip", "red")))["turn"] == "Cy"
    s = run(start(), play("reverse", "red"))
    assert st(s)["turn"] == "Cy" and st(s)["direction"] == "counterclockwise"
    for card in ("skip", "reverse"):
        s = run(start(players=["Ann", "Bob"]), play(card, "red"))
        assert st(s)["turn"] == "Ann" and st(s)["direction"] == "clockwise"


def test_wild_names_a_colour_and_a_mismatch_is_refused():
    with pytest.raises(InvalidParams, match="Wild names a colour"):
        classic.apply(start(), play("wild"))
    assert st(run(start(), play("wild", "green")))["color"] == "green"
    with pytest.raises(Refused, match="a blue 7 does not go on the red 5"):
        classic.apply(start(), play("7", "blue"))


# ---- Wild Draw Four ---------------------------------------------------------------------------------


def four(ruleset="classic", players=P3):
    return run(start(ruleset, players), play("wild-draw-four", "blue"))


def test_wild_draw_four_accepted_deals_four_and_the_turn_is_lost():
    s = four()
    assert st(s)["awaiting"] == "challenge_or_accept" and st(s)["turn"] == "Bob"
    assert st(s)["challenge"] == {"challenger": "Bob", "player": "Ann"}
    with pytest.raises(Refused, match="first settles the Wild Draw Four"):
        classic.apply(s, play("5", "blue"))
    s = run(s, {"type": "accept", "by": "Bob"})
    assert owed(s) == ("Bob", 4, "wild-draw-four")
    s = run(s, press(4))
    assert taken(s)["Bob"] == 11 and st(s)["turn"] == "Cy"


def test_wild_draw_four_challenged_and_legal_deals_six_to_the_challenger():
    s = run(four(), {"type": "challenge"})
    assert st(s)["awaiting"] == "challenge_result"
    with pytest.raises(Refused, match="no Wild Draw Four to accept"):
        classic.apply(s, {"type": "accept"})
    s = run(s, {"type": "challenge-result", "result": "legal"})
    assert owed(s) == ("Bob", 6, "challenge-lost")
    s = run(s, press(6))
    assert taken(s)["Bob"] == 13 and st(s)["turn"] == "Cy"


def test_wild_draw_four_challenged_and_illegal_deals_four_to_its_player_and_the_challenger_plays():
    s = run(four(), {"type": "challenge"}, {"type": "challenge-result", "result": "illegal"})
    assert owed(s) == ("Ann", 4, "illegal-wild-draw-four")
    s = run(s, press(4))
    assert taken(s)["Ann"] == 11 and taken(s)["Bob"] == 7 and st(s)["turn"] == "Bob"
    s = run(s, play("3", "blue", by="Bob"))
    assert st(s)["turn"] == "Cy"


def test_wild_draw_four_with_two_players():
    s = run(four(players=["Ann", "Bob"]), {"type": "accept"}, press(4))
    assert st(s)["turn"] == "Ann"
    s = run(four(players=["Ann", "Bob"]), {"type": "challenge"}, {"type": "challenge-result", "result": "illegal"})
    assert owed(s) == ("Ann", 4, "illegal-wild-draw-four")
    assert st(run(s, press(4)))["turn"] == "Bob"


def test_challenge_result_is_legal_or_illegal():
    s = run(four(), {"type": "challenge"})
    with pytest.raises(InvalidParams, match="legal or illegal, not 'maybe'"):
        classic.apply(s, {"type": "challenge-result", "result": "maybe"})
    with pytest.raises(Refused, match="no challenge waits"):
        classic.apply(start(), {"type": "challenge-result", "result": "legal"})


# ---- Wild Mega Minions Power -----------------------------------------------------------------------


def test_mega_minions_deals_each_other_player_their_count():
    players = ["Ann", "Bob", "Cy", "Dee"]
    s = run(start("despicable-me-4", players), play("wild-mega-minions", "purple"))
    assert st(s)["awaiting"] == "minions" and st(s)["color"] == "purple"
    with pytest.raises(InvalidParams, match="missing: Dee"):
        classic.apply(s, {"type": "minions", "counts": {"Bob": 2, "Cy": 0}})
    with pytest.raises(Refused, match="Ann played the card"):
        classic.apply(s, {"type": "minions", "counts": {"Ann": 1, "Bob": 2, "Cy": 0, "Dee": 1}})
    with pytest.raises(InvalidParams, match="Cy's count is a whole number"):
        classic.apply(s, {"type": "minions", "counts": {"Bob": 2, "Cy": -1, "Dee": 1}})
    s = run(s, {"type": "minions", "counts": {"bob": 2, "Cy": 0, "Dee": 3}})
    assert [(q["player"], q["cards"]) for q in st(s)["queue"]] == [("Bob", 2), ("Dee", 3)]
    s = run(s, press(2), press(3))
    assert taken(s) == {"Ann": 7, "Bob": 9, "Cy": 7, "Dee": 10} and st(s)["turn"] == "Bob"


# ---- Uno, the end of a round ----------------------------------------------------------------------


def test_uno_not_called_costs_two_cards_before_the_next_turns_deal():
    s = run(holding(start(), Ann=2), play("draw-two", "red"), {"type": "catch", "player": "Ann"})
    assert [(q["player"], q["cards"], q["reason"]) for q in st(s)["queue"]] == [
        ("Ann", 2, "uno"), ("Bob", 2, "draw-two")]
    s = run(s, press(2), press(2))
    assert taken(s) == {"Ann": 9, "Bob": 9, "Cy": 7} and st(s)["turn"] == "Cy"
    s = run(start(), {"type": "uno", "player": "Ann"}, play("5", "red"))
    with pytest.raises(Refused, match="Ann called Uno"):
        classic.apply(s, {"type": "catch", "player": "Ann"})


@pytest.mark.parametrize("card, cards", [("draw-two", 2), ("wild-draw-four", 4)])
def test_last_card_draws_option(card, cards):
    s = run(holding(start(), Ann=1), play(card, "red", last=True))
    assert st(s)["round_over"] and st(s)["owed"] is None and "last_card_draw" not in st(s)
    s = run(holding(start(options={"last_card_draws": "true"}), Ann=1), play(card, "red", last=True))
    assert owed(s) == ("Bob", cards, "last-card-draw")
    s = run(s, press(cards))
    assert st(s)["last_card_draw"] == {"victim": "Bob", "cards": cards} and st(s)["winner"] == "Ann"


def test_a_logged_game_replays_to_the_same_state_through_json():
    log = [play("wild-draw-four", "blue"), {"type": "challenge"}, {"type": "challenge-result", "result": "illegal"},
           press(4), press(1), play("4", "blue"), play("draw-two", "blue"), press(2)]
    s = run(start(), *log)
    assert run(start(), *json.loads(json.dumps(log))) == s
    assert from_json(json.loads(json.dumps(to_json(s)))) == s


@pytest.mark.parametrize("scoring, totals", [
    ("standard", {"Ann": 91, "Bob": 0, "Cy": 0}),
    ("lowest", {"Ann": 0, "Bob": 70, "Cy": 21}),
    ("elimination", {"Ann": 0, "Bob": 70, "Cy": 21}),
])
def test_a_round_scored_with_each_variant(scoring, totals):
    match = scores.new_match("classic", P3, scoring=scoring)
    hands = {"Bob": "wild-draw-four,draw-two,0", "Cy": "skip,1"}
    if scoring != "standard":
        hands["Ann"] = 0
    assert scores.scores(scores.end_round(match, "Ann", hands))["totals"] == totals
