"""Builders of game actions and a few shortcuts, shared by the game tests."""

from dataclasses import asdict

from controller.rules import hands
from controller.rules.game import apply, new_game
from controller.rules.state import Chain, GameState, Owed, turn_seat

FOUR = ["Ann", "Bob", "Cid", "Dee"]
TWO = ["Ann", "Bob"]


def play(card, **kw):
    """A play; a coloured card shows red unless told (every card but a wild has its colour, #21)."""
    if "color" not in kw and not str(card).startswith("wild"):
        kw["color"] = "red"
    return {"type": "play", "card": card, **kw}


def press(cards=0):
    return {"type": "press", "cards": cards}


def attack(target, color="red", **kw):
    return play("wild-attack", color=color, target=target, **kw)


def catch(player):
    return {"type": "catch", "player": player}


def hint(player):
    return {"type": "hint", "player": player}


def uno(player):
    return {"type": "uno", "player": player}


def run(state, *actions):
    for action in actions:
        state, _ = apply(state, action)
    return state


def game(ruleset="attack-mega-hit", players=FOUR, **kw):
    return new_game(ruleset, players, **kw)[0]


def down_to(state, player=None, cards=1, turn=None, card="3", color="red"):
    """Play on until ``player`` (default: whose move it is) holds ``cards`` by the controller's
    count (a last card, a catch and a round's winner need a hand of one, #39) and it is ``turn``'s
    move (default: theirs). Every other player keeps more: they play ``card`` while they hold more
    than ``cards`` + 1, then press and take nothing."""
    names = list(state.players)
    seat = turn_seat(state) if player is None else names.index(player)
    waits_for = seat if turn is None else names.index(turn)
    while not (hands.bounds(state, seat)[1] == cards and turn_seat(state) == waits_for):
        mover = turn_seat(state)
        held = hands.bounds(state, mover)[1]
        if held > (cards if mover == seat else cards + 1):
            state, _ = apply(state, play(card, color=color))
        else:
            state, _ = apply(state, press(0))
    return state


def down_to_one(state, player=None, turn=None):
    """``down_to`` a hand of one."""
    return down_to(state, player, 1, turn)


def to_json(state: GameState) -> dict:
    """The whole state as JSON data: a state stays plain data, nothing a log could not hold."""
    data = asdict(state)
    data["options"] = dict(state.options)
    data["uno_called"] = sorted(state.uno_called)
    return data


def from_json(data: dict) -> GameState:
    """The state :func:`to_json` gave (after a trip through JSON text)."""
    queue = tuple(
        Owed(**{**o, "chain": None if o["chain"] is None else Chain(**o["chain"])})
        for o in data["queue"]
    )
    return GameState(
        **{
            **data,
            "players": tuple(data["players"]),
            "options": tuple(data["options"].items()),
            "cards_taken": tuple(data["cards_taken"]),
            "presses": tuple(data["presses"]),
            "queue": queue,
            "uno_called": frozenset(data["uno_called"]),
            "hands": tuple(data.get("hands", ())),
            "played": tuple(data.get("played", ())),
            "hand_low": tuple(data.get("hand_low", ())),
            "hand_high": tuple(data.get("hand_high", ())),
        }
    )
