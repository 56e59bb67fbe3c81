"""Properties of the game state machine over random legal action sequences (Hypothesis).

The actions are drawn from the status alone (whose move, what is owed, whether a stack is open), the
way a table would act, so an exception from ``apply`` is a bug too.
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import rulesets
from controller.rules.game import apply, new_game, status
from game_actions import from_json, to_json
from controller.rules.points import COLORS
from firmware.errors import ApiError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pick(draw, choices):
    """One of ``choices``; an index is drawn because building strategies per step is slow."""
    return choices[draw(st.integers(0, len(choices) - 1))]


def draw_play(draw, card, others, may_end, pile=(None, None), first_discard=False):
    """A legal play of ``card`` on a pile of known (colour, card), either of them None when unknown
    (``first_discard``: answering a turned-up Discard All, that colour only)."""
    wild = card in rulesets.WILD_CARDS
    if (wild or None in pile or card == pile[1]) and not (first_discard and pile[0]):
        colors = COLORS  # every card has its colour (#21)
    else:
        colors = (pile[0],)
    return {
        "type": "play",
        "card": card,
        "color": pick(draw, colors),
        "target": pick(draw, others) if card in rulesets.TARGETED_CARDS else None,
        "last": may_end and card not in rulesets.CANNOT_END and draw(st.booleans()),
    }


def draw_action(draw, rs: rulesets.Ruleset, s: dict) -> dict | None:
    """A legal action, chosen from what the status allows; None once nothing is."""
    press = {"type": "press", "cards": pick(draw, (0, 0, 0, 1, 3))}
    if s["round_over"]:
        return press if s["owed"] else None
    names = [p["name"] for p in s["players"]]
    others = [n for n in names if n != s["turn"]]
    moves = ["uno"]
    if rs.hint_penalty is not None:
        moves.append("hint")
    if s["catchable"] is not None and s["catchable"] not in s["uno_called"]:
        moves.append("catch")
    front = s["owed"]
    mover = next(p for p in s["players"] if p["name"] == s["turn"])
    # A last card needs a hand of one (a Discard All: any hand), and a hand of one ends on any card (#39).
    ends = mover["hand_min"] <= 1
    if s["awaiting"] == "first_attack" and front is None:
        moves.append("first_attack")
    else:
        moves += ["press"] * 3
        if front is None:
            moves += ["play"] * 6
        elif s["chain"] is not None and front["reason"] not in ("uno", "hint"):
            moves += ["stack"] * 3
    move = pick(draw, moves)
    if move == "press":
        return press
    if move in ("uno", "hint"):
        return {"type": move, "player": pick(draw, names)}
    if move == "catch":
        return {"type": "catch", "player": s["catchable"]}
    if move == "first_attack":
        return {"type": "first_attack", "color": pick(draw, COLORS), "target": pick(draw, others)}
    if move == "stack":
        return draw_play(draw, pick(draw, list(rs.hits)), others, may_end=False)
    first_discard = s["awaiting"] == "first_discard"
    cards = [c for c in rs.cards if not (first_discard and c in rulesets.WILD_CARDS)
             and not (mover["hand_max"] <= 1 and c in rulesets.CANNOT_END)]
    card = pick(draw, cards)
    # A round that ends at once teaches little: few plays may be a last card.
    may_end = (ends or card == "discard-all") and pick(draw, (False,) * 5 + (True,))
    return draw_play(draw, card, others, may_end=may_end, pile=(s["color"], s["top_card"]),
                     first_discard=first_discard)


@st.composite
def sessions(draw):
    """(setup, actions, statuses): statuses[k] is the status after the first k actions."""
    rs = rulesets.get(draw(st.sampled_from(list(rulesets.RULESETS))))
    players = [f"P{i}" for i in range(draw(st.integers(2, 5)))]
    setup = {
        "ruleset": rs.id,
        "players": players,
        "dealer": draw(st.none() | st.sampled_from(players)),
        "first_card": pick(draw, (None,) + rs.cards),
        "options": {name: draw(st.sampled_from(o.choices)) for name, o in rs.options.items()},
    }
    state, _ = new_game(**setup)
    actions, statuses = [], [status(state)]
    for _ in range(draw(st.integers(0, 60))):
        action = draw_action(draw, rs, statuses[-1])
        if action is None:
            break
        state, effects = apply(state, action)
        actions.append(action)
        statuses.append(status(state))
        aimed = [e["player"] for e in effects if e["type"] == "aim"]
        turn_before, turn_after = statuses[-2]["turn"], statuses[-1]["turn"]
        assert aimed == ([turn_after] if turn_after not in (None, turn_before) else [])
    return setup, actions, statuses, state


def replay(setup, actions):
    state, _ = new_game(**setup)
    for action in actions:
        state, _ = apply(state, action)
    return state


@SETTINGS
@given(sessions())
def test_turn_is_a_seated_player_and_nothing_owed_is_negative(session):
    _, _, statuses, _ = session
    for s in statuses:
        names = [p["name"] for p in s["players"]]
        if s["turn"] is None:
            assert s["round_over"] and s["owed"] is None
        else:
            assert s["turn"] in names and s["aim"] == s["turn"]
        for owed in s["queue"]:
            assert owed["player"] in names
            assert owed["presses"] is None or owed["presses"] > 0
            assert owed["presses"] is not None or owed["until_cards"]
        assert all(p["cards_taken"] >= 0 and p["presses"] >= 0 for p in s["players"])
        if s["chain"] is not None:
            assert s["chain"]["hits"] >= 1 and s["chain"]["target"] in names
        if s["last_card_attack"] is not None:
            assert s["last_card_attack"]["presses_owed"] >= 0


@SETTINGS
@given(sessions())
def test_replaying_the_logged_actions_gives_the_same_game(session):
    setup, actions, statuses, state = session
    logged = json.loads(json.dumps(actions))  # the log stores the actions as JSON
    again = replay(setup, logged)
    assert again == state
    assert status(again) == statuses[-1]
    assert from_json(json.loads(json.dumps(to_json(state)))) == state


@SETTINGS
@given(sessions())
def test_undo_by_replaying_all_but_the_last_action(session):
    setup, actions, statuses, _ = session
    for k in range(len(actions)):
        assert status(replay(setup, actions[:k])) == statuses[k]


@SETTINGS
@given(sessions())
def test_status_names_as_catchable_exactly_the_player_a_catch_is_accepted_against(session):
    _, _, statuses, state = session
    for player in statuses[-1]["players"]:
        try:
            apply(state, {"type": "catch", "player": player["name"]})
        except ApiError:
            accepted = False
        else:
            accepted = True
        assert accepted == (statuses[-1]["catchable"] == player["name"]), player["name"]
