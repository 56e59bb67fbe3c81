"""The table reducer: rounds and scores together, pure, and replay equal to the live state."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.match import table as match_table
from firmware.errors import ApiError, InvalidParams, NotFound, Refused

NEW = {"type": "new", "rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}
# A round's winner must be able to have emptied their hand (#39): Ann lays her whole hand, all of
# one colour, with a Discard All as her first card; or Bob lays a Discard All and may hold one card
# more, his last, which the table did not record.
ANN_OUT = {"type": "play", "card": "discard-all", "color": "red", "last": True}
BOB_MAY_BE_OUT = [{"type": "play", "card": "7", "color": "red"},
                  {"type": "play", "card": "discard-all", "color": "red"}]


def run(actions):
    """Apply actions live, as the service does; returns the table and every effect."""
    table, effects = match_table.new_table(actions[0])
    for action in actions[1:]:
        table, more = match_table.apply(table, action)
        effects += more
    return table, effects


def messages(effects):
    return [e["text"] for e in effects if e["type"] == "message"]


def test_new_table_deals_round_one_and_aims_at_the_first_player():
    table, effects = match_table.new_table(NEW)
    status = match_table.status(table)
    assert status["round"] == 1 and status["dealer"] == "Cy" and status["turn"] == "Ann"
    assert status["match"]["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert status["match"]["scoring"] == "standard" and status["match"]["target"] == 500
    aims = [e for e in effects if e["type"] == "aim"]
    assert aims[-1] == {"type": "aim", "player": "Ann", "seat": 0, "seats": 3}


def test_a_given_dealer_is_the_dealer_of_both_the_round_and_the_match():
    table, _ = match_table.new_table({**NEW, "dealer": "ann"})
    assert match_table.status(table)["dealer"] == "Ann"
    assert match_table.status(table)["turn"] == "Bob"


@pytest.mark.parametrize("bad, error", [
    ({"type": "new", "players": ["Ann", "Bob"]}, InvalidParams),
    ({**NEW, "rules": "uno-flip"}, InvalidParams),
    ({**NEW, "players": "Ann,Bob"}, InvalidParams),
    ({**NEW, "players": ["Ann"]}, InvalidParams),
    ({**NEW, "scoring": "golf"}, InvalidParams),
    ({**NEW, "dealer": "Zed"}, NotFound),
    ({**NEW, "colour": "red"}, InvalidParams),
])
def test_a_bad_new_action_is_refused(bad, error):
    with pytest.raises(error):
        match_table.new_table(bad)


def test_game_actions_go_to_the_round_and_presses_to_whose_move_it_is():
    table, effects = run([NEW, {"type": "play", "card": "7", "color": "red"},
                          {"type": "press", "cards": 3, "press_id": 1}])
    status = match_table.status(table)
    assert [p["cards_taken"] for p in status["players"]] == [0, 3, 0]
    assert status["turn"] == "Cy"
    assert effects[-1] == {"type": "aim", "player": "Cy", "seat": 2, "seats": 3}


def test_a_refused_action_leaves_the_table_as_it_was():
    table, _ = match_table.new_table(NEW)
    before = match_table.status(table)
    for action in ({"type": "play", "card": "hit-3"}, {"type": "uno", "player": "Zed"},
                   {"type": "shuffle"}, {"type": "edit_round", "round": 1, "hands": {"Bob": 3}}):
        with pytest.raises(ApiError):
            match_table.apply(table, action)
    assert match_table.status(table) == before


def test_end_round_scores_and_deals_the_next_round_with_the_next_dealer():
    table, effects = run([
        NEW, ANN_OUT,
        {"type": "end_round", "winner": "ann", "hands": {"bob": "7,hit-2,3,4,5,6,8", "Cy": 12},
         "first_card": "skip", "color": "blue"},
    ])
    status = match_table.status(table)
    assert status["match"]["totals"] == {"Ann": 85, "Bob": 0, "Cy": 0}
    assert status["round"] == 2 and status["dealer"] == "Ann" and not status["round_over"]
    assert status["first_card"] == "skip" and status["turn"] == "Cy"  # Bob is skipped
    assert "round 1: Ann scores 85 (85 in all)" in messages(effects)


def test_end_round_must_name_the_player_who_played_the_last_card():
    table, _ = run([NEW, ANN_OUT])
    with pytest.raises(Refused, match="Ann played the last card"):
        match_table.apply(table, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 3, "Cy": 4}})


def test_a_round_can_be_ended_by_hand_when_the_last_play_was_not_entered():
    with pytest.raises(Refused, match="Bob cannot have emptied their hand"):  # Bob played nothing
        run([NEW, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 3, "Cy": 4}}])
    table, _ = run([NEW, *BOB_MAY_BE_OUT, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 3, "Cy": 4}}])
    assert match_table.status(table)["match"]["totals"]["Bob"] == 7


def test_last_card_attack_must_be_pressed_then_its_cards_are_the_reminder():
    start = [NEW, {"type": "play", "card": "discard-all", "color": "red"},
             {"type": "press", "cards": 0, "press_id": 1}, {"type": "press", "cards": 0, "press_id": 2},
             {"type": "play", "card": "wild-attack", "color": "red", "target": "Cy", "last": True}]
    table, _ = run(start)
    with pytest.raises(Refused, match="still owes"):
        match_table.apply(table, {"type": "end_round", "winner": "Ann", "hands": {"Bob": 5, "Cy": "7,7"}})
    table, effects = run(start + [
        {"type": "press", "cards": 3, "press_id": 3},
        {"type": "end_round", "winner": "Ann", "hands": {"Bob": 5, "Cy": "7,7,7,7,7,7,7,7,8,8"}},
    ])
    assert table.match.rounds[0].ejected == {"Cy": 3}
    assert any("last-card attack" in text for text in messages(effects))


def test_the_match_ends_and_refuses_moves_then_an_edit_reopens_it():
    table, effects = run([NEW, *BOB_MAY_BE_OUT, {"type": "end_round", "winner": "Bob",
                                                 "hands": {"Ann": 300, "Cy": 200}}])
    assert table.match_over and "Bob wins the match" in messages(effects)
    with pytest.raises(Refused, match="match is over"):
        match_table.apply(table, {"type": "uno", "player": "Ann"})
    with pytest.raises(Refused):
        match_table.apply(table, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 1, "Cy": 1}})
    with pytest.raises(InvalidParams, match="no next round"):
        run([NEW, *BOB_MAY_BE_OUT, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 300, "Cy": 200},
                                    "first_card": "5"}])
    reopened, effects = match_table.apply(table, {"type": "edit_round", "round": 1, "hands": {"Ann": 1}})
    assert not reopened.match_over
    assert match_table.status(reopened)["round"] == 2 and match_table.status(reopened)["turn"] == "Bob"
    assert "the match goes on: round 2" in messages(effects)


def test_elimination_deals_the_next_round_to_the_seated_and_aims_at_the_chairs():
    four = {**NEW, "players": ["Ann", "Bob", "Cy", "Dee"], "scoring": "elimination", "target": 100}
    table, effects = run([four, ANN_OUT, {"type": "end_round", "winner": "Ann",
                                          "hands": {"Bob": 150, "Cy": 10, "Dee": 5}}])
    status = match_table.status(table)
    assert status["match"]["eliminated"] == ["Bob"]
    assert [p["name"] for p in status["players"]] == ["Ann", "Cy", "Dee"]
    assert "Bob reached the target and leaves the table" in messages(effects)
    aim = [e for e in effects if e["type"] == "aim"][-1]
    assert aim["seats"] == 4 and aim["seat"] == ["Ann", "Bob", "Cy", "Dee"].index(aim["player"])


def test_an_edit_that_changes_who_sits_deals_the_round_in_play_again():
    four = {**NEW, "players": ["Ann", "Bob", "Cy", "Dee"], "scoring": "elimination", "target": 100}
    table, _ = run([four, ANN_OUT, {"type": "end_round", "winner": "Ann", "hands": {"Bob": 150, "Cy": 10, "Dee": 5}},
                    {"type": "play", "card": "5", "color": "red"}])
    table, effects = match_table.apply(table, {"type": "edit_round", "round": 1, "hands": {"Bob": 50}})
    assert [p["name"] for p in match_table.status(table)["players"]] == ["Ann", "Bob", "Cy", "Dee"]
    assert match_table.status(table)["top_card"] is None
    assert "round 2 is dealt again" in messages(effects)


def test_an_edit_that_keeps_the_seats_keeps_the_round_in_play():
    table, _ = run([NEW, ANN_OUT, {"type": "end_round", "winner": "Ann", "hands": {"Bob": 10, "Cy": 10}},
                    {"type": "play", "card": "5", "color": "red"}])
    edited, effects = match_table.apply(table, {"type": "edit_round", "round": 1, "hands": {"Bob": 30}})
    assert edited.game == table.game
    assert edited.match.rounds[0].totals["Ann"] == 40
    assert messages(effects)[0] == "round 1 corrected"


def test_replay_of_an_empty_log_is_refused():
    with pytest.raises(InvalidParams):
        match_table.replay([])


# ---- replay is the live state ---------------------------------------------------------------------

NAMES = ["Ann", "Bob", "Cy", "Dee"]
CARDS = ["3", "7", "skip", "reverse", "hit-1", "hit-2", "discard-all", "wild", "wild-attack"]
action_strategy = st.one_of(
    st.builds(lambda c, col, t, last: {"type": "play", "card": c, "color": col,
                                       "target": t if c == "wild-attack" else None, "last": last},
              st.sampled_from(CARDS), st.sampled_from(["red", "blue"]), st.sampled_from(NAMES),
              st.sampled_from([None, None, None, True])),
    st.builds(lambda n, i: {"type": "press", "cards": n, "press_id": i},
              st.sampled_from([0, 0, 1, 3]), st.integers(1, 999)),
    st.builds(lambda k, p: {"type": k, "player": p},
              st.sampled_from(["uno", "catch"]), st.sampled_from(NAMES)),
    st.builds(lambda w, n: {"type": "end_round", "winner": w,
                            "hands": {p: n for p in NAMES if p != w}},
              st.sampled_from(NAMES), st.integers(0, 120)),
    st.builds(lambda r, p, n: {"type": "edit_round", "round": r, "hands": {p: n}},
              st.integers(1, 3), st.sampled_from(NAMES), st.integers(0, 120)),
)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["standard", "lowest", "elimination"]), st.lists(action_strategy, max_size=40))
def test_replay_of_the_accepted_actions_is_the_live_table(scoring, actions):
    first = {"type": "new", "rules": "attack-mega-hit", "players": NAMES, "scoring": scoring, "target": 200}
    live, _ = match_table.new_table(first)
    accepted = [first]
    for action in actions:
        try:
            live, _ = match_table.apply(live, action)
        except ApiError:
            continue  # refused: not logged
        accepted.append(action)
    assert match_table.replay(accepted) == live
    assert match_table.status(match_table.replay(accepted)) == match_table.status(live)


# ---- the blast and classic flows at the table (#11) ------------------------------------------------

CLASSIC = {"type": "new", "rules": "classic", "players": ["Ann", "Bob", "Cy"],
           "options": {"last_card_draws": "true"}, "first_card": "5", "color": "red"}


def test_every_ruleset_id_is_played_by_a_flow():
    from controller.rules.game import RULESET_IDS

    for rules in RULESET_IDS:
        table, _ = match_table.new_table({**NEW, "rules": rules})
        assert match_table.status(table)["ruleset"] == rules


def test_deal_effects_name_the_tables_chairs_and_the_deal_is_logged_as_presses():
    table, effects = run([CLASSIC])
    deals = [(e["player"], e["seat"], e["seats"], e["cards"]) for e in effects if e["type"] == "deal"]
    assert deals == [("Ann", 0, 3, 7), ("Bob", 1, 3, 7), ("Cy", 2, 3, 7)]
    table, _ = run([CLASSIC] + [{"type": "press", "cards": 7}] * 3)
    assert [p["cards_taken"] for p in match_table.status(table)["players"]] == [7, 7, 7]


def test_a_round_won_on_a_draw_card_counts_the_cards_still_dealt():
    dealt = [CLASSIC] + [{"type": "press", "cards": 7}] * 3
    down_to_one = [{"type": "play", "card": "3", "color": "red"}] * 18  # six rounds of three plays
    won = dealt + down_to_one + [{"type": "play", "card": "draw-two", "color": "red", "last": True}]
    end = {"type": "end_round", "winner": "Ann", "hands": {"Bob": "7", "Cy": 3}}
    with pytest.raises(Refused, match="Bob is still to be dealt 2 card"):
        run(won + [end])
    table, effects = run(won + [{"type": "press", "cards": 2}, end])
    assert match_table.status(table)["match"]["totals"]["Ann"] == 10
    assert any("ejected" in text or "Bob" in text for text in messages(effects))


def test_a_blast_round_inserts_through_the_table():
    table, _ = run([{**NEW, "rules": "blast", "first_card": "5", "color": "red"},
                    {"type": "insert", "blast": False, "cards": 0},
                    {"type": "insert", "blast": True, "cards": 3}])
    status = match_table.status(table)
    assert status["turn"] == "Cy" and [p["cards_taken"] for p in status["players"]] == [0, 3, 0]
    with pytest.raises(InvalidParams, match=r"UNO Attack Mega Hit has no such move \(a card into the blaster\); its moves: playing a card, "):
        run([NEW, {"type": "insert", "blast": False, "cards": 0}])
