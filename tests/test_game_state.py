"""The game state machine: setting up a round, basic turns, presses, the end of a round, bad input."""

import json
import pickle

import pytest

from controller.rules import rulesets
from controller.rules.game import apply, new_game, status
from game_actions import from_json, to_json
from firmware.errors import ApiError, InvalidParams, NotFound, Refused
from game_actions import FOUR, down_to_one, game, play, press, run


def aims(effects):
    return [e["player"] for e in effects if e["type"] == "aim"]


# ---- setting up ---------------------------------------------------------------------------------


def test_new_game_defaults_dealer_last_and_first_name_plays_first():
    state, effects = new_game("attack-mega-hit", FOUR)
    s = status(state)
    assert s["dealer"] == "Dee"
    assert s["turn"] == s["aim"] == "Ann"
    assert s["direction"] == "clockwise"
    assert s["owed"] is None and s["chain"] is None and s["queue"] == []
    assert s["round"] == 1 and s["round_over"] is False and s["winner"] is None
    assert s["options"] == {"early_stop": "true", "resume": "after_first_attacker"}
    assert s["players"] == [
        {"name": n, "seat": i, "cards_taken": 0, "presses": 0, "hand_min": 7, "hand_max": 7}
        for i, n in enumerate(FOUR)
    ]
    assert effects[-1] == {"type": "aim", "player": "Ann", "seat": 0}
    assert effects[0]["type"] == "message"


def test_status_has_every_documented_key():
    keys = {
        "ruleset", "round", "players", "dealer", "first_card", "turn", "aim", "direction", "owed",
        "queue", "chain", "awaiting", "top_card", "color", "catchable", "uno_called", "round_over",
        "winner", "last_card_attack", "options", "colors", "named_color", "resumes", "catchable_players", "choices", "hand_sizes",
    }
    assert set(status(game())) == keys


def test_player_left_of_the_dealer_starts():
    assert status(game(dealer="bob"))["turn"] == "Cid"  # names ignore case
    assert status(game(dealer="Dee"))["turn"] == "Ann"


def test_round_number_is_kept():
    assert status(game(round_no=3))["round"] == 3


@pytest.mark.parametrize("ruleset", list(rulesets.RULESETS))
def test_two_and_ten_players_are_allowed(ruleset):
    assert len(status(game(ruleset, ["A", "B"]))["players"]) == 2
    assert len(status(game(ruleset, [f"P{i}" for i in range(10)]))["players"]) == 10


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"players": ["Ann"]}, InvalidParams),
        ({"players": [f"P{i}" for i in range(11)]}, InvalidParams),
        ({"players": ["Ann", "Bob", "ann"]}, InvalidParams),
        ({"players": ["Ann", " "]}, InvalidParams),
        ({"players": "Ann,Bob"}, InvalidParams),
        ({"ruleset": "attack-1999"}, InvalidParams),
        ({"options": {"stacking": "true"}}, InvalidParams),
        ({"options": {"early_stop": "maybe"}}, InvalidParams),
        ({"options": {"resume": "victim"}}, InvalidParams),
        ({"dealer": "Zed"}, NotFound),
        ({"first_card": "draw-two"}, InvalidParams),
        ({"first_card": "0"}, InvalidParams),
        ({"color": "purple"}, InvalidParams),
        ({"round_no": 0}, InvalidParams),
        ({"round_no": True}, InvalidParams),
    ],
)
def test_bad_setups_are_refused(kwargs, error):
    kwargs = {"ruleset": "attack-mega-hit", "players": FOUR, **kwargs}
    with pytest.raises(error):
        new_game(**kwargs)


def test_unknown_option_error_lists_the_allowed_options():
    with pytest.raises(InvalidParams, match="early_stop, resume"):
        new_game("attack-mega-hit", FOUR, options={"stacking": "true"})
    with pytest.raises(InvalidParams, match="options: early_stop"):
        new_game("attack-2010", FOUR, options={"resume": "first_attacker"})


def test_options_accept_json_booleans_and_any_case():
    assert status(game(options={"early_stop": False}))["options"]["early_stop"] == "false"
    assert status(game(options={"early_stop": "TRUE"}))["options"]["early_stop"] == "true"


# ---- turns and presses --------------------------------------------------------------------------


def test_a_number_passes_the_turn_clockwise_and_sets_the_colour():
    state, effects = apply(game(), play("7", color="red"))
    s = status(state)
    assert s["turn"] == "Bob" and s["top_card"] == "7" and s["color"] == "red"
    assert aims(effects) == ["Bob"]


def test_a_coloured_card_without_its_colour_is_refused_with_the_colours_it_may_have():
    state = run(game(), play("wild", color="green"))
    with pytest.raises(InvalidParams, match="5 has a colour: say which, one of green$"):
        apply(state, {"type": "play", "card": "5"})
    assert status(state)["color"] == "green"


def test_a_press_with_nothing_owed_ends_the_turn_and_records_the_cards():
    state, effects = apply(game(), press(3))
    s = status(state)
    assert s["turn"] == "Bob"
    assert s["players"][0]["cards_taken"] == 3 and s["players"][0]["presses"] == 1
    assert aims(effects) == ["Bob"]


def test_press_id_is_accepted():
    state, _ = apply(game(), {"type": "press", "cards": 0, "press_id": 12})
    assert status(state)["turn"] == "Bob"


def test_by_must_name_the_player_whose_move_it_is():
    state = game()
    with pytest.raises(Refused, match="Ann's move"):
        apply(state, play("5", by="Bob"))
    state, _ = apply(state, play("5", by="ann"))
    assert status(state)["turn"] == "Bob"


def test_reverse_flips_the_direction_with_three_or_more():
    state = run(game(), play("reverse"))
    s = status(state)
    assert s["direction"] == "counterclockwise" and s["turn"] == "Dee"
    state = run(state, play("4"), play("reverse"))  # Dee plays, then Cid reverses back
    assert status(state)["direction"] == "clockwise" and status(state)["turn"] == "Dee"


def test_counterclockwise_turns_wrap_around():
    state = run(game(), play("reverse"), press(), press(), press())
    assert status(state)["turn"] == "Ann"


def test_skip_skips_the_next_player():
    assert status(run(game(), play("skip")))["turn"] == "Cid"


def test_discard_all_and_wild_pass_the_turn():
    state = run(game(), play("discard-all", color="blue"), play("wild", color="red"))
    assert status(state)["turn"] == "Cid" and status(state)["color"] == "red"


def test_wild_attack_hits_any_other_player_and_play_resumes_after_the_victim():
    state, effects = apply(game(), play("wild-attack", color="red", target="Dee"))
    s = status(state)
    assert s["owed"]["player"] == "Dee" and s["owed"]["presses"] == 2
    assert aims(effects) == ["Dee"]
    state = run(state, press(0), press(0))
    assert status(state)["turn"] == "Ann"  # the player after Dee


# ---- the end of a round -------------------------------------------------------------------------


def test_the_last_card_ends_the_round():
    state, effects = apply(down_to_one(game()), play("5", last=True))
    s = status(state)
    assert s["round_over"] is True and s["winner"] == "Ann"
    assert s["turn"] is None and s["aim"] is None and s["last_card_attack"] is None
    assert {"type": "round_over", "winner": "Ann"} in effects


@pytest.mark.parametrize(
    "action",
    [
        play("5"),
        press(0),
        {"type": "uno", "player": "Bob"},
        {"type": "catch", "player": "Ann"},
        {"type": "hint", "player": "Bob"},
    ],
)
def test_nothing_happens_after_the_round_is_over(action):
    state = run(down_to_one(game("attack-2010")), play("5", last=True))
    with pytest.raises(Refused, match="over"):
        apply(state, action)


# ---- bad input leaves the state as it was -------------------------------------------------------


@pytest.mark.parametrize(
    "action, error",
    [
        ("play", InvalidParams),
        ({"card": "5"}, InvalidParams),
        ({"type": "draw"}, InvalidParams),
        ({"type": "play"}, InvalidParams),
        (play("5", colour="red"), InvalidParams),
        (play(5), InvalidParams),
        (play("5", last="yes"), InvalidParams),
        (play("hit-3"), InvalidParams),
        (play("wild"), InvalidParams),
        (play("wild", color="pink"), InvalidParams),
        (play("wild-attack", color="red"), InvalidParams),
        (play("7", target="Bob"), InvalidParams),
        (play("wild-attack", color="red", target="cid"), Refused),
        (play("wild-attack", color="red", target="Zed"), NotFound),
        (play("5", by="Zed"), NotFound),
        (play("5", by="Dee"), Refused),
        ({"type": "press"}, InvalidParams),
        (press(-1), InvalidParams),
        (press(True), InvalidParams),
        (press(1.5), InvalidParams),
        ({"type": "press", "cards": 1, "press_id": "x"}, InvalidParams),
        ({"type": "uno"}, InvalidParams),
        ({"type": "uno", "player": "Zed"}, NotFound),
        ({"type": "catch", "player": "Bob"}, Refused),
        ({"type": "hint", "player": "Bob"}, Refused),
        ({"type": "first_attack", "color": "red", "target": "Bob"}, Refused),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(action, error):
    state = run(game(), play("3"), press(1))  # Cid's move; Bob's press closed Ann's catch window
    before = status(state)
    with pytest.raises(error) as raised:
        apply(state, action)
    assert isinstance(raised.value, ApiError)
    assert status(state) == before


def test_a_card_the_box_does_not_have_is_refused():
    with pytest.raises(InvalidParams, match=r"UNO Attack \(2010\)"):
        apply(game("attack-2010"), play("hit-1"))
    with pytest.raises(InvalidParams):
        apply(game("attack-mega-hit"), play("trade-hands", target="Bob"))
    with pytest.raises(InvalidParams):
        apply(game("attack-2005"), play("wild-attack", color="red", target="Bob"))


def test_colour_on_a_coloured_card_is_required_and_checked():
    assert status(run(game(), play("skip", color="yellow")))["color"] == "yellow"
    with pytest.raises(InvalidParams, match="Skip has a colour: say which"):
        apply(game(), {"type": "play", "card": "skip"})
    with pytest.raises(InvalidParams):
        apply(game(), play("skip", color="orange"))


# ---- serialisation -----------------------------------------------------------------------------


def test_state_survives_pickle_and_json():
    state = run(
        game("attack-2005"),
        play("wild-all-hit", color="red"),
        {"type": "uno", "player": "Ann"},
        {"type": "hint", "player": "Cid"},
        press(2),
    )
    assert pickle.loads(pickle.dumps(state)) == state
    assert from_json(json.loads(json.dumps(to_json(state)))) == state


def test_a_chain_survives_json():
    state = run(game(), play("hit-2"), play("hit-1"))
    assert from_json(json.loads(json.dumps(to_json(state)))) == state


def test_cards_that_come_out_late_go_to_the_last_presser():
    state = run(game(), press(2))  # Ann cannot play and presses: her turn is over
    state, effects = apply(state, {"type": "cards", "cards": 1, "press_id": 1})
    taken = {p["name"]: p["cards_taken"] for p in status(state)["players"]}
    assert taken["Ann"] == 3 and status(state)["turn"] == "Bob"
    assert "Ann also takes 1 card" in effects[0]["text"]


def test_late_cards_before_any_press_belong_to_no_one():
    with pytest.raises(Refused):
        apply(game(), {"type": "cards", "cards": 1})


@pytest.mark.parametrize("names", [["Ann=1", "Bob"], [" Ann", "Bob"], ["Ann", "ann"], ["Ann"], [""] * 2])
def test_the_game_and_the_counter_refuse_the_same_names(names):
    from controller.match.scores import new_match

    with pytest.raises(InvalidParams) as by_game:
        new_game("attack-mega-hit", names)
    with pytest.raises(InvalidParams) as by_counter:
        new_match("attack-mega-hit", names)
    assert by_game.value.message == by_counter.value.message
