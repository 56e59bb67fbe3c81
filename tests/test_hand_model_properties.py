"""The controller's model of every hand (#39, controller/rules/hands.py) against random legal games of
every ruleset, played by a table that knows what each player really holds.

The table below deals, plays and takes cards as players do (a Discard All lays any number of its
colour, a blast gives every card in the slots), keeps the true hands, and acts only through
``controller.rules.game.apply``; after each step the model must hold every true hand
(``hand_min <= true <= hand_max``, never below zero), and no refusal may contradict the truth: a
player who really holds one card, not caught yet, not covered by an Uno call, is catchable while
the window is open, and a last card from a real hand of one is never refused.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules import game, hands
from controller.rules.rulesets import CANNOT_END
from controller.rules.state import turn_seat

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOT_LAST = CANNOT_END | {"wild-draw-four", "wild-mega-minions"}  # (a round ends on them but says nothing new)


class Table:
    """A table playing one round by the rules, knowing every true hand."""

    def __init__(self, draw, ruleset: str, players: int):
        self.draw = draw
        self.rs = game.ruleset(ruleset)
        names = [f"P{i}" for i in range(players)]
        first = {} if self.rs.dealer else {"first_card": "5", "color": self.rs.colors[0]}
        self.state, _ = game.new_game(ruleset, names, **first)
        self.true = [0 if self.rs.dealer else 7] * players
        self.in_blaster = 0

    def pick(self, choices):
        return choices[self.draw(st.integers(0, len(choices) - 1))]

    def act(self, action: dict) -> None:
        self.state, _ = game.apply(self.state, action)

    def take(self, seat: int, cards: int) -> None:
        self.true[seat] += cards

    def step(self) -> bool:
        """One legal action; False once the round is over and nothing is owed."""
        s = self.state
        if s.round_over and not s.queue:
            return False
        seat = turn_seat(s)
        if s.queue:
            return self._owed(seat, s.queue[0]) or True
        if self.rs.dealer and s.top_card is None or self.rs.blaster and s.top_card is None:
            self.act({"type": "turn_up", "card": "4", "color": self.rs.colors[0]})
            return True
        if self.rs.dealer and s.awaiting is not None:
            return self._dealer_awaits(seat) or True
        if s.awaiting == "first_attack":
            target = self.pick([p for p in s.players if p != s.players[seat]])
            self.act({"type": "first_attack", "color": "red", "target": target})
            return True
        move = self.pick(["play"] * 3 + ["take", "uno", "catch"])
        if move == "uno":
            self.act({"type": "uno", "player": self.pick(s.players)})
        elif move == "catch" and hands.catchable(s) is not None:
            self.act({"type": "catch", "player": s.players[s.catchable]})
        elif move == "play" and self.true[seat]:
            self._play(seat)
        else:
            self._take_turn(seat)
        return True

    def _play(self, seat: int) -> None:
        s = self.state
        held = self.true[seat]
        cards = [c for c in self.rs.cards if not (held == 1 and c in NOT_LAST)
                 and not c.startswith("wild-draw") and c != "wild-mega-minions"]
        if s.awaiting == "first_discard":
            cards = [c for c in cards if not c.startswith("wild")]
        card = self.pick(cards)
        color = self.rs.colors[0]  # one colour all round: every card matches
        laid = 1
        if card in hands.DISCARDS or s.awaiting == "first_discard":
            laid += self.draw(st.integers(0, held - 1))  # the rest of that colour, beneath it
        action = {"type": "play", "card": card, "color": color}
        if card == "wild-attack" or card == "trade-hands":
            action["target"] = self.pick([p for p in s.players if p != s.players[seat]])
        if laid == held:
            action["last"] = True  # the table says so; from a hand of one the model knows it too
        self.act(action)
        self.true[seat] -= laid
        if card == "trade-hands":
            other = s.players.index(action["target"])
            self.true[seat], self.true[other] = self.true[other], self.true[seat]

    def _take_turn(self, seat: int) -> None:
        """The turn of a player who cannot or will not play: press, draw, or insert."""
        if self.rs.dealer:
            self.act({"type": "press", "cards": 1})
            self.take(seat, 1)
            if self.pick([True, False]):
                self.act({"type": "pass"})
        elif self.rs.blaster:
            self._insert(seat)
        else:
            cards = self.pick([0, 0, 1, 3])
            self.act({"type": "press", "cards": cards})
            self.take(seat, cards)

    def _insert(self, seat: int) -> None:
        fires = self.in_blaster == 3 or self.pick([False, False, True])
        if fires:
            cards = self.in_blaster + 1
            self.act({"type": "insert", "blast": True, "cards": cards})
            self.take(seat, cards)
            self.in_blaster = 0
        else:
            self.act({"type": "insert", "blast": False, "cards": 0})
            self.in_blaster += 1

    def _owed(self, seat: int, owed) -> None:
        if self.rs.dealer:
            self.act({"type": "press", "cards": owed.presses, "by": self.state.players[owed.seat]})
            self.take(owed.seat, owed.presses)
        elif self.rs.blaster:
            self._insert(seat)
        else:
            cards = self.pick([0, 1, 2])
            self.act({"type": "press", "cards": cards})
            self.take(seat, cards)

    def _dealer_awaits(self, seat: int) -> None:
        awaiting = self.state.awaiting
        if awaiting == "play_or_pass":
            self.act({"type": "pass"})


def check(table: Table) -> None:
    s = table.state
    for seat, held in enumerate(table.true):
        low, high = hands.bounds(s, seat)
        assert 0 <= low <= held <= high, (seat, low, held, high)
    seat = s.catchable
    if (seat is not None and seat not in s.uno_called and not s.caught and table.true[seat] == 1
            and not s.round_over):
        assert hands.catchable(s) == seat  # never a refusal the truth contradicts
    refused = None if seat is None else hands.catch_refusal(s, seat)
    if refused is not None and refused["id"] == "catch_needs_one":
        assert table.true[seat] != 1


@SETTINGS
@given(st.data(), st.sampled_from(game.RULESET_IDS), st.integers(2, 5))
def test_the_model_holds_every_true_hand_and_refuses_nothing_the_truth_allows(data, ruleset, players):
    table = Table(data.draw, ruleset, players)
    check(table)
    for _ in range(data.draw(st.integers(0, 80))):
        if not table.step():
            break
        check(table)
