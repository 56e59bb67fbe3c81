"""Scenarios for every rule and option of rules.md §3-5 in the three UNO Attack rulesets."""

import pytest

from controller.rules import rulesets
from controller.rules.game import apply, new_game, status
from firmware import i18n
from firmware.errors import InvalidParams, Refused
from game_actions import FOUR, TWO, attack, catch, down_to, down_to_one, game, hint, play, press, run, uno

ATTACK = list(rulesets.RULESETS)
OLD_BOXES = ["attack-2005", "attack-2010"]
WITH_WILD_ATTACK = ["attack-mega-hit", "attack-2010"]


def owed(state):
    o = status(state)["owed"]
    return None if o is None else (o["player"], o["presses"])


def turn(state):
    return status(state)["turn"]


def taken(state):
    return {p["name"]: p["cards_taken"] for p in status(state)["players"]}


def aims(effects):
    return [e["player"] for e in effects if e["type"] == "aim"]


# ---- rulesets as data ---------------------------------------------------------------------------


def test_rulesets_cards_are_the_point_tables():
    for rs in rulesets.RULESETS.values():
        assert set(rs.deck) == set(rs.cards)
        assert set(rs.hits) <= set(rs.cards)
    assert rulesets.deck_size(rulesets.get("attack-mega-hit")) == 112
    assert rulesets.deck_size(rulesets.get("attack-2005")) is None  # the old boxes are not counted
    assert rulesets.get("attack-2010").deck["discard-all"] == 8


@pytest.mark.parametrize(
    "ruleset, defaults",
    [
        ("attack-mega-hit", {"early_stop": "true", "resume": "after_first_attacker"}),
        ("attack-2005", {"early_stop": "false"}),
        ("attack-2010", {"early_stop": "false"}),
    ],
)
def test_option_defaults(ruleset, defaults):
    assert status(game(ruleset))["options"] == defaults


# ---- Hit cards ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ATTACK)
def test_hit_2_makes_the_next_player_press_twice_then_the_turn_ends(ruleset):
    state, effects = apply(game(ruleset, options={"early_stop": "false"}), play("hit-2"))
    assert owed(state) == ("Bob", 2) and aims(effects) == ["Bob"]
    state = run(state, press(1), press(2))
    assert owed(state) is None and turn(state) == "Cid"
    assert taken(state)["Bob"] == 3


def test_hit_1_makes_the_next_player_press_once():
    state = run(game(), play("hit-1"))
    assert owed(state) == ("Bob", 1)
    state = run(state, press(0))
    assert turn(state) == "Cid"


@pytest.mark.parametrize("ruleset", OLD_BOXES)
def test_old_boxes_press_all_by_default(ruleset):
    state = run(game(ruleset), play("hit-2"), press(4))
    assert owed(state) == ("Bob", 1) and status(state)["owed"]["until_cards"] is False
    state = run(state, press(0))
    assert turn(state) == "Cid" and taken(state)["Bob"] == 4


@pytest.mark.parametrize("ruleset", OLD_BOXES)
def test_old_boxes_may_take_the_early_stop(ruleset):
    state = run(game(ruleset, options={"early_stop": "true"}), play("hit-2"), press(1))
    assert owed(state) is None and turn(state) == "Cid"


def test_early_stop_ends_at_the_first_press_giving_cards_by_default():
    state = run(game(), play("hit-2"))
    assert status(state)["owed"]["until_cards"] is True
    state = run(state, press(0))
    assert owed(state) == ("Bob", 1)  # a dry press does not stop
    state = run(state, press(3))
    assert owed(state) is None and turn(state) == "Cid" and taken(state)["Bob"] == 3


def test_early_stop_off_presses_them_all():
    state = run(game(options={"early_stop": "false"}), play("hit-2"), press(3))
    assert owed(state) == ("Bob", 1)
    state = run(state, press(2))
    assert turn(state) == "Cid" and taken(state)["Bob"] == 5


@pytest.mark.parametrize("ruleset", OLD_BOXES)
def test_no_stacking_where_there_is_no_mega_hit(ruleset):
    state = run(game(ruleset), play("hit-2"))
    before = status(state)
    with pytest.raises(Refused, match="no Mega Hit"):
        apply(state, play("hit-2"))
    assert status(state) == before
    assert before["chain"] is None


def test_no_stacking_of_a_wild_attack_in_2010():
    state = run(game("attack-2010"), attack("Cid"))
    with pytest.raises(Refused):
        apply(state, play("hit-2"))
    with pytest.raises(Refused):
        apply(state, attack("Ann"))


@pytest.mark.parametrize("ruleset", ATTACK)
def test_a_player_who_owes_presses_cannot_play_a_number(ruleset):
    state = run(game(ruleset), play("hit-2"))
    with pytest.raises(Refused, match="Bob"):
        apply(state, play("5"))


@pytest.mark.parametrize("ruleset", WITH_WILD_ATTACK)
def test_wild_attack_victim_presses_twice(ruleset):
    state = run(game(ruleset, options={"early_stop": "false"}), attack("Cid"))
    assert owed(state) == ("Cid", 2)
    state = run(state, press(1), press(1))
    assert turn(state) == "Dee" and taken(state)["Cid"] == 2


def test_wild_attack_may_target_the_previous_player():
    state = run(game(), attack("Dee"))
    assert owed(state) == ("Dee", 2)
    state = run(state, press(0), press(0))
    assert turn(state) == "Ann"


# ---- Mega Hit -----------------------------------------------------------------------------------


def test_mega_hit_example_from_000_dry_presses():
    """P1 Hit 1, P2 Hit 2, P3 Wild Attack-Attack naming P2: P2 presses 5 times."""
    state = run(game(), play("hit-1"))
    assert status(state)["chain"] == {"hits": 1, "started_by": "Ann", "target": "Bob", "stacks": 0}
    state, effects = apply(state, play("hit-2", color="blue"))  # any colour
    assert owed(state) == ("Cid", 3) and aims(effects) == ["Cid"]
    state, effects = apply(state, attack("Bob"))
    assert owed(state) == ("Bob", 5) and aims(effects) == ["Bob"]
    assert status(state)["chain"] == {"hits": 5, "started_by": "Ann", "target": "Bob", "stacks": 2}
    for left in (4, 3, 2, 1):
        state = run(state, press(0))
        assert owed(state) == ("Bob", left)
        assert status(state)["chain"] is None  # pressing closes the stack
    state = run(state, press(0))
    assert owed(state) is None
    assert status(state)["players"][1]["presses"] == 5


def test_mega_hit_example_without_early_stop_counts_all_cards():
    state = run(
        game(options={"early_stop": "false"}), play("hit-1"), play("hit-2"), attack("Bob")
    )
    state = run(state, *[press(2)] * 5)
    assert owed(state) is None and taken(state)["Bob"] == 10


def test_a_stack_is_closed_once_the_victim_presses():
    state = run(game(), play("hit-2"), press(0))
    with pytest.raises(Refused, match="owes 1 press"):
        apply(state, play("hit-1"))


def test_only_hit_cards_answer_a_mega_hit():
    state = run(game(), play("hit-1"))
    for card in ("skip", "reverse", "5"):
        with pytest.raises(Refused, match="only a Hit card"):
            apply(state, play(card))
    with pytest.raises(Refused):
        apply(state, play("wild", color="red"))


@pytest.mark.parametrize(
    "resume, expected",
    [("after_first_attacker", "Bob"), ("first_attacker", "Ann")],
)
def test_resume_after_a_chain(resume, expected):
    state = run(game(options={"resume": resume}), play("hit-1"), play("hit-1"))
    state = run(state, press(0), press(0))
    assert owed(state) is None and turn(state) == expected


@pytest.mark.parametrize("resume", ["after_first_attacker", "first_attacker"])
def test_a_hit_without_stack_resumes_after_the_victim(resume):
    state = run(game(options={"resume": resume}), play("hit-2"), press(0), press(0))
    assert turn(state) == "Cid"


def test_a_chain_started_by_a_wild_attack_passes_on_from_the_target():
    state = run(game(), attack("Cid"), play("hit-2"))
    assert owed(state) == ("Dee", 4)
    state = run(state, press(0), press(0), press(0), press(0))
    assert turn(state) == "Bob"  # after Ann, who played the first Hit card


def test_a_chain_follows_the_direction_of_play():
    state = run(game(), play("reverse"), play("hit-1"))  # Dee hits Cid
    assert owed(state) == ("Cid", 1)
    state = run(state, play("hit-1"))
    assert owed(state) == ("Bob", 2)
    state = run(state, press(1))  # early stop: cards came out
    assert turn(state) == "Cid"  # after Dee, counterclockwise


# ---- two players --------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ATTACK)
@pytest.mark.parametrize("card", ["reverse", "skip"])
def test_two_players_skip_and_reverse_play_again(ruleset, card):
    state, effects = apply(game(ruleset, TWO), play(card))
    s = status(state)
    assert s["turn"] == "Ann" and s["direction"] == "clockwise"
    assert aims(effects) == []


@pytest.mark.parametrize("ruleset", ATTACK)
def test_two_players_hit_2_comes_back_to_the_attacker(ruleset):
    state = run(game(ruleset, TWO), play("hit-2"))
    assert owed(state) == ("Bob", 2)
    state, effects = apply(state, press(0))
    state, effects = apply(state, press(0))
    assert turn(state) == "Ann" and aims(effects) == ["Ann"]


@pytest.mark.parametrize("ruleset", WITH_WILD_ATTACK)
def test_two_players_wild_attack_plays_again(ruleset):
    state = run(game(ruleset, TWO), attack("Bob"), press(0), press(0))
    assert turn(state) == "Ann"


def test_two_players_hit_1_plays_again():
    state = run(game("attack-mega-hit", TWO), play("hit-1"), press(0))
    assert turn(state) == "Ann"


@pytest.mark.parametrize(
    "resume, expected",
    [("after_first_attacker", "Bob"), ("first_attacker", "Ann")],
)
def test_two_players_a_stack_answer_takes_the_free_turn_away(resume, expected):
    state = run(game("attack-mega-hit", TWO, options={"resume": resume}), play("hit-2"))
    state = run(state, play("hit-1"))
    assert owed(state) == ("Ann", 3)
    state = run(state, press(0), press(0), press(0))
    assert turn(state) == expected


def test_two_players_wild_all_hit_and_hit_fire_play_again():
    state = run(game("attack-2005", TWO), play("wild-all-hit", color="red"), press(0))
    assert turn(state) == "Ann"
    state = run(state, play("wild-hit-fire", color="red"), press(0), press(1))
    assert turn(state) == "Ann"


@pytest.mark.parametrize("ruleset", ATTACK)
def test_two_players_a_number_passes_the_turn(ruleset):
    assert turn(run(game(ruleset, TWO), play("5"))) == "Bob"


# ---- the 2005 cards -----------------------------------------------------------------------------


def test_wild_all_hit_every_other_player_presses_once_in_turn_order():
    state, effects = apply(game("attack-2005"), play("wild-all-hit", color="green"))
    assert [o["player"] for o in status(state)["queue"]] == ["Bob", "Cid", "Dee"]
    assert aims(effects) == ["Bob"]
    seen = []
    for cards in (0, 2, 1):
        state, effects = apply(state, press(cards))
        seen += aims(effects)
    assert seen == ["Cid", "Dee", "Bob"]  # then Bob's turn: the presses were not turns
    assert turn(state) == "Bob" and taken(state) == {"Ann": 0, "Bob": 0, "Cid": 2, "Dee": 1}
    assert status(state)["color"] == "green"


def test_wild_all_hit_counterclockwise():
    state = run(game("attack-2005"), play("reverse"), play("wild-all-hit", color="red"))
    assert [o["player"] for o in status(state)["queue"]] == ["Cid", "Bob", "Ann"]
    state = run(state, press(0), press(0), press(0))
    assert turn(state) == "Cid"


def test_wild_hit_fire_presses_until_cards_come_out():
    state = run(game("attack-2005"), play("wild-hit-fire", color="blue"))
    assert status(state)["owed"] == {
        "player": "Bob", "seat": 1, "presses": None, "until_cards": True, "reason": "hit-fire",
    }
    state = run(state, *[press(0)] * 7)
    assert owed(state) == ("Bob", None)
    state = run(state, press(4))
    assert owed(state) is None and turn(state) == "Cid" and taken(state)["Bob"] == 4


def test_trade_hands_names_another_player_and_passes_the_turn():
    state, effects = apply(game("attack-2005"), play("trade-hands", target="Dee"))
    assert turn(state) == "Bob"
    assert any("swap hands" in e.get("text", "") for e in effects)
    with pytest.raises(InvalidParams, match="Trade Hands names another player: say which player it attacks"):
        apply(game("attack-2005"), play("trade-hands"))
    with pytest.raises(Refused):
        apply(game("attack-2005"), play("trade-hands", target="Ann"))


def test_a_round_cannot_end_on_trade_hands():
    state = down_to_one(game("attack-2005"))
    with pytest.raises(Refused, match="cannot end"):
        apply(state, play("trade-hands", target="Bob", last=True))
    assert status(state)["round_over"] is False


# ---- the first card turned up -------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ATTACK)
def test_first_reverse_the_dealer_starts_then_to_the_right(ruleset):
    state, effects = new_game(ruleset, FOUR, first_card="reverse", color="red")
    s = status(state)
    assert s["turn"] == "Dee" and s["direction"] == "counterclockwise" and s["color"] == "red"
    assert aims(effects) == ["Dee"]
    assert turn(run(state, play("3"))) == "Cid"


@pytest.mark.parametrize("ruleset", ATTACK)
def test_first_reverse_with_two_players_the_dealer_starts(ruleset):
    state = game(ruleset, TWO, first_card="reverse")
    assert turn(state) == "Bob" and turn(run(state, play("3"))) == "Ann"


@pytest.mark.parametrize("ruleset", ATTACK)
def test_first_skip_skips_the_first_player(ruleset):
    state, effects = new_game(ruleset, FOUR, first_card="skip")
    assert turn(state) == "Bob" and aims(effects) == ["Bob"]


@pytest.mark.parametrize("ruleset", ATTACK)
def test_first_wild_the_first_player_names_the_colour_and_plays(ruleset):
    state = game(ruleset, first_card="wild")
    s = status(state)
    assert s["turn"] == "Ann" and s["color"] is None and s["top_card"] == "wild"
    assert turn(run(state, play("8", color="yellow"))) == "Bob"


def test_first_wild_with_the_colour_already_named():
    assert status(game(first_card="wild", color="blue"))["color"] == "blue"


@pytest.mark.parametrize("ruleset", ATTACK)
def test_first_hit_2_the_first_player_presses_twice_and_misses_the_turn(ruleset):
    state, effects = new_game(ruleset, FOUR, first_card="hit-2", options={"early_stop": "false"})
    assert owed(state) == ("Ann", 2) and aims(effects) == ["Ann"]
    assert status(state)["chain"] is None  # nobody to answer: the rules say the first player presses
    with pytest.raises(Refused):
        apply(state, play("hit-2"))
    state = run(state, press(1), press(0))
    assert turn(state) == "Bob" and taken(state)["Ann"] == 1


def test_first_hit_1_the_first_player_presses_once():
    state = game(first_card="hit-1")
    assert owed(state) == ("Ann", 1)
    assert turn(run(state, press(0))) == "Bob"


@pytest.mark.parametrize("ruleset", ATTACK)
@pytest.mark.parametrize("first_move, then", [(play("7", color="red"), "Bob"), (press(2), "Bob")])
def test_first_discard_all_the_first_player_plays_or_presses(ruleset, first_move, then):
    state = game(ruleset, first_card="discard-all", color="red")
    assert turn(state) == "Ann"
    assert turn(run(state, first_move)) == then


@pytest.mark.parametrize("ruleset", WITH_WILD_ATTACK)
def test_first_wild_attack_the_first_player_names_colour_and_target(ruleset):
    state = game(ruleset, first_card="wild-attack", options={"early_stop": "false"})
    s = status(state)
    assert s["awaiting"] == "first_attack" and s["turn"] == "Ann"
    with pytest.raises(Refused, match="first names"):
        apply(state, play("5"))
    with pytest.raises(Refused):
        apply(state, {"type": "first_attack", "color": "red", "target": "Ann"})
    with pytest.raises(Refused):
        apply(state, {"type": "first_attack", "color": "red", "target": "Dee", "by": "Bob"})
    with pytest.raises(InvalidParams):
        apply(state, {"type": "first_attack", "target": "Dee"})
    state, effects = apply(state, {"type": "first_attack", "color": "green", "target": "Cid"})
    s = status(state)
    assert s["awaiting"] is None and s["color"] == "green" and owed(state) == ("Cid", 2)
    assert aims(effects) == ["Cid"]
    state = run(state, press(1), press(0))
    assert turn(state) == "Dee"
    with pytest.raises(Refused):
        apply(state, {"type": "first_attack", "color": "red", "target": "Bob"})


def test_first_wild_attack_in_mega_hit_may_be_stacked():
    state = game(first_card="wild-attack")
    state = run(state, {"type": "first_attack", "color": "red", "target": "Cid"}, play("hit-1"))
    assert owed(state) == ("Dee", 3)
    state = run(state, press(0), press(0), press(0))
    assert turn(state) == "Bob"  # after Ann, who launched the attack


def test_first_wild_all_hit_every_player_but_the_dealer_presses_once():
    state, effects = new_game("attack-2005", FOUR, first_card="wild-all-hit")
    assert [o["player"] for o in status(state)["queue"]] == ["Ann", "Bob", "Cid"]
    assert aims(effects) == ["Ann"]
    state = run(state, press(0), press(0), press(0))
    assert turn(state) == "Ann"


def test_first_wild_hit_fire_the_first_player_presses_until_cards():
    state = game("attack-2005", first_card="wild-hit-fire")
    assert owed(state) == ("Ann", None)
    state = run(state, press(0), press(0), press(1))
    assert turn(state) == "Bob"


@pytest.mark.parametrize("ruleset, card", [("attack-2005", "trade-hands"), ("attack-2010", "9")])
def test_first_trade_hands_or_number_just_starts(ruleset, card):
    state, effects = new_game(ruleset, FOUR, first_card=card, color="yellow")
    s = status(state)
    assert s["turn"] == "Ann" and s["owed"] is None and s["color"] == "yellow"
    assert s["first_card"] == card
    assert [e["type"] for e in effects] == ["message", "aim"]


# ---- penalties ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ATTACK)
def test_uno_caught_before_the_next_turn_costs_two_presses_out_of_turn(ruleset):
    state = run(down_to(game(ruleset, options={"early_stop": "false"}), "Ann", 2), play("5"))
    state, effects = apply(state, catch("Ann"))
    assert owed(state) == ("Ann", 2) and aims(effects) == ["Ann"]
    assert status(state)["owed"]["reason"] == "uno"
    with pytest.raises(Refused, match="owes"):
        apply(state, play("6"))  # Bob waits for the penalty
    state = run(state, press(1))
    state, effects = apply(state, press(0))
    assert owed(state) is None and turn(state) == "Bob" and aims(effects) == ["Bob"]
    assert taken(state)["Ann"] == 1 and status(state)["players"][0]["hand_max"] == 2


def test_a_catch_keeps_a_pending_hit():
    state = run(down_to(game(options={"early_stop": "false"}), "Ann", 2), play("hit-2"),
                catch("Ann"))
    assert [(o["player"], o["presses"]) for o in status(state)["queue"]] == [("Ann", 2), ("Bob", 2)]
    assert status(state)["chain"]["target"] == "Bob"
    state = run(state, press(0), press(0))
    assert owed(state) == ("Bob", 2)
    state = run(state, play("hit-1"))  # Bob's stack is still open after the penalty
    assert owed(state) == ("Cid", 3)


def test_a_penalty_mid_obligation_restores_the_rest():
    state = run(game("attack-2005"), play("hit-2"), press(0), hint("Dee"))
    assert owed(state) == ("Dee", 4)
    state = run(state, *[press(0)] * 4)
    assert owed(state) == ("Bob", 1)
    state = run(state, press(0))
    assert turn(state) == "Cid"


def test_penalties_queue_in_order_before_turn_obligations():
    state = run(game("attack-2010"), play("hit-2"), hint("Dee"), hint("Cid"))
    assert [(o["player"], o["reason"]) for o in status(state)["queue"]] == [
        ("Dee", "hint"), ("Cid", "hint"), ("Bob", "hit"),
    ]


def test_the_catch_window_closes_with_the_next_players_turn():
    two_each = down_to(game(), "Ann", 2)  # Ann holds 2, Bob, Cid and Dee 3
    state = run(two_each, play("5"), play("6"))
    with pytest.raises(Refused, match="too late to catch Ann"):
        apply(state, catch("Ann"))
    with pytest.raises(Refused, match="Bob holds 2 cards"):  # Bob just played, and holds 2
        apply(state, catch("Bob"))
    state = run(two_each, play("5"), press(0))
    with pytest.raises(Refused, match="too late"):
        apply(state, catch("Ann"))


def test_a_penalty_press_does_not_close_the_catch_window():
    state = run(down_to(game("attack-2010"), "Ann", 2), play("5"), hint("Cid"),
                *[press(0)] * 4)
    state = run(state, catch("Ann"))
    assert owed(state) == ("Ann", 2)


def test_an_uno_call_covers_the_play_just_made_or_the_next_one_only():
    state = run(game(), uno("Ann"), play("5"))  # called just before playing
    with pytest.raises(Refused, match="called Uno"):
        apply(state, catch("Ann"))
    state = run(game(), play("5"), uno("Ann"))  # called just after
    with pytest.raises(Refused, match="called Uno"):
        apply(state, catch("Ann"))
    assert status(state)["catchable"] is None  # status and catch agree
    state = run(state, press(0))  # Bob's turn began: the call is spent
    assert status(state)["uno_called"] == []


def test_an_early_uno_call_does_not_shield_later_plays():
    state = run(down_to(game(), "Dee", 3, turn="Bob"), uno("Dee"), play("5"), play("5"),
                play("5"))  # Dee holds 2: covered by the call
    assert status(state)["catchable"] is None
    with pytest.raises(Refused, match="called Uno"):
        apply(state, catch("Dee"))
    state = run(state, play("5"), play("5"), play("5"), play("5"))  # a whole round of turns later
    assert status(state)["catchable"] == "Dee"
    assert owed(run(state, catch("Dee"))) == ("Dee", 2)


def test_taking_cards_ends_an_early_uno_call():
    state = run(game(), uno("Ann"), press(2))
    assert status(state)["uno_called"] == []


def test_status_offers_a_catch_exactly_when_the_catch_is_accepted():
    state = run(down_to(game(), "Ann", 2), play("5"))
    assert status(state)["catchable"] == "Ann"
    called = run(state, uno("Ann"))
    assert status(called)["catchable"] is None
    with pytest.raises(Refused):
        apply(called, catch("Ann"))
    assert owed(run(state, catch("Ann"))) == ("Ann", 2)


def test_a_player_is_caught_only_once():
    state = run(down_to(game(), "Ann", 2), play("5"), catch("Ann"))
    with pytest.raises(Refused, match="Ann was caught already"):
        apply(state, catch("Ann"))


@pytest.mark.parametrize("ruleset", OLD_BOXES)
def test_advice_costs_four_presses_out_of_turn_in_the_old_boxes(ruleset):
    state = run(game(ruleset), play("5"))
    state, effects = apply(state, hint("Dee"))
    assert owed(state) == ("Dee", 4) and aims(effects) == ["Dee"]
    state = run(state, press(0), press(0), press(0), press(1))
    assert turn(state) == "Bob" and taken(state)["Dee"] == 1


def test_advice_penalty_with_early_stop():
    state = run(game("attack-2005", options={"early_stop": "true"}), hint("Cid"), press(2))
    assert owed(state) is None and turn(state) == "Ann"


def test_no_advice_penalty_in_mega_hit():
    state = run(game(), play("hit-1"))
    with pytest.raises(Refused, match="no advice penalty"):
        apply(state, hint("Cid"))


def test_a_penalty_while_a_first_attack_waits():
    state = run(game("attack-2010", first_card="wild-attack"), hint("Bob"))
    assert owed(state) == ("Bob", 4)
    with pytest.raises(Refused, match="Bob owes"):
        apply(state, {"type": "first_attack", "color": "red", "target": "Cid"})
    state = run(state, *[press(0)] * 4)
    assert status(state)["awaiting"] == "first_attack" and turn(state) == "Ann"


# ---- a last-card Wild Attack-Attack -------------------------------------------------------------


@pytest.mark.parametrize("ruleset", WITH_WILD_ATTACK)
def test_a_last_wild_attack_still_attacks_and_its_cards_are_recorded(ruleset):
    state, effects = apply(
        down_to_one(game(ruleset, options={"early_stop": "false"})), attack("Cid", last=True)
    )
    s = status(state)
    assert s["round_over"] is True and s["winner"] == "Ann"
    assert {"type": "round_over", "winner": "Ann"} in effects and aims(effects) == ["Cid"]
    assert s["last_card_attack"] == {"victim": "Cid", "presses_owed": 2, "cards": 0}
    cid_before = taken(state)["Cid"]
    with pytest.raises(Refused):
        apply(state, play("hit-2"))  # no stacking once the round is over
    with pytest.raises(Refused):
        apply(state, catch("Ann"))
    state = run(state, press(3))
    assert status(state)["last_card_attack"] == {"victim": "Cid", "presses_owed": 1, "cards": 3}
    state = run(state, press(2))
    s = status(state)
    assert s["last_card_attack"] == {"victim": "Cid", "presses_owed": 0, "cards": 5}
    assert s["turn"] is None and taken(state)["Cid"] == cid_before + 5
    with pytest.raises(Refused, match="over"):
        apply(state, press(0))


def test_a_last_wild_attack_with_early_stop():
    state = run(down_to_one(game()), attack("Bob", last=True), press(0), press(2))
    assert status(state)["last_card_attack"] == {"victim": "Bob", "presses_owed": 0, "cards": 2}


def test_a_last_wild_attack_on_a_mega_hit_passes_the_whole_stack():
    state = run(down_to_one(game(), "Bob", "Ann"), play("hit-2"), attack("Dee", last=True))
    assert status(state)["last_card_attack"]["presses_owed"] == 4
    assert status(state)["winner"] == "Bob"


def test_a_last_hit_card_attacks_nobody():
    state = run(down_to_one(game()), play("hit-2", last=True))
    s = status(state)
    assert s["owed"] is None and s["turn"] is None and s["last_card_attack"] is None


def test_a_last_card_while_stacking_ends_the_chain():
    state = run(down_to_one(game(), "Bob", "Ann"), play("hit-2"), play("hit-1", last=True))
    s = status(state)
    assert s["winner"] == "Bob" and s["owed"] is None and s["chain"] is None


@pytest.mark.parametrize("ruleset", ["attack-mega-hit", "attack-2010"])
def test_a_press_while_the_turned_up_attack_waits_counts_for_the_first_player(ruleset):
    state = game(ruleset, first_card="wild-attack")
    state, effects = apply(state, press(3))
    s = status(state)
    assert taken(state)["Ann"] == 3 and s["players"][0]["presses"] == 1
    assert s["awaiting"] == "first_attack" and s["turn"] == "Ann"  # still names colour and victim
    assert "Ann pressed: 3 cards" in effects[0]["text"] and "still names" in effects[0]["text"]
    state = run(state, {"type": "first_attack", "color": "blue", "target": "Cid"})
    assert owed(state) == ("Cid", 2)


def test_a_press_names_who_pressed_and_is_refused_for_someone_else():
    state = game()
    with pytest.raises(Refused, match="Ann's move, not Bob's"):
        apply(state, {"type": "press", "cards": 0, "by": "Bob"})
    state = run(state, {"type": "press", "cards": 1, "by": "Ann"})
    with pytest.raises(Refused, match="last press was Ann's"):
        apply(state, {"type": "cards", "cards": 1, "by": "Bob"})
    assert taken(run(state, {"type": "cards", "cards": 1, "by": "ann"}))["Ann"] == 2


def test_a_card_that_matches_neither_the_colour_nor_the_card_on_the_pile_is_refused():
    state = game(first_card="5", color="red")
    with pytest.raises(Refused, match="a blue 3 does not go on the red 5: play a red card, a 5 or a wild"):
        apply(state, play("3", color="blue"))
    for fits in (play("3", color="red"), play("5", color="blue"), play("wild", color="blue")):
        apply(state, fits)  # same colour, same card, a wild
    named = run(state, play("wild", color="green"))
    with pytest.raises(Refused, match="on the green Wild: play a green card or a wild"):
        apply(named, play("7", color="yellow"))
    # A coloured card without its colour would leave the pile unchecked: refused, with what is legal.
    with pytest.raises(InvalidParams, match="7 has a colour: say which, one of red$"):
        apply(state, {"type": "play", "card": "7"})
    with pytest.raises(InvalidParams, match="5 has a colour: say which, one of red, yellow, green, blue"):
        apply(state, {"type": "play", "card": "5"})
    apply(game(), play("2", color="blue"))  # nothing known about the pile


def test_any_hit_card_answers_a_mega_hit_whatever_its_colour():
    state = run(game(first_card="5", color="red"), play("hit-2", color="red"))
    state = run(state, play("hit-1", color="blue"))
    assert status(state)["chain"]["hits"] == 3


# ---- the table's refusals in both languages (issue #14) -------------------------------------------


def _refusal(call, *args) -> InvalidParams:
    with pytest.raises(InvalidParams) as info:
        call(*args)
    return info.value


@pytest.mark.parametrize("call, args, english, french", [
    (rulesets.seating, ("Ann",), "players must be a list of names in seat order",
     "les joueurs sont une liste de noms dans l'ordre des places"),
    (rulesets.seating, (["Ann"],), "2 to 10 players, not 1", "de 2 à 10 joueurs, pas 1"),
    (rulesets.seating, (["Ann", " Bob"],),
     "a name is 1 to 24 characters, with no control characters, no '=' and no spaces around it: ' Bob'",
     "un nom a de 1 à 24 caractères, sans caractère de contrôle, sans '=' ni espaces autour : ' Bob'"),
    (rulesets.seating, (["Ann", "ann"],), "two players are named 'Ann' (names ignore case)",
     "deux joueurs s'appellent 'Ann' (les noms ignorent la casse)"),
    (rulesets.get, ("nope",), "unknown ruleset 'nope'; rulesets: UNO Attack Mega Hit, UNO Attack (2005), UNO Attack (2010)",
     "règle du jeu inconnue 'nope' ; règles : UNO Attack Mega Hit, UNO Attack (2005), UNO Attack (2010)"),
    (rulesets.resolve_options, (rulesets.get("attack-2005"), {"speed": "1"}),
     "unknown option 'speed' for UNO Attack (2005); options: early_stop",
     "option inconnue 'speed' pour UNO Attack (2005) ; options : early_stop"),
    (rulesets.resolve_options, (rulesets.get("attack-2005"), {"early_stop": "maybe"}),
     "option early_stop cannot be 'maybe'; choices: true, false",
     "l'option early_stop ne peut pas valoir 'maybe' ; choix : true, false"),
])
def test_the_table_refusals_read_as_before_in_english_and_are_french_in_french(call, args, english, french):
    with i18n.speaking("en"):
        assert _refusal(call, *args).message == english
    with i18n.speaking("fr"):
        refusal = _refusal(call, *args)
    assert refusal.message == french and refusal.message_object["id"]
