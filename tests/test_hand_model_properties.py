"""The controller's model of every hand (#39, controller/rules/hands.py) against random legal games of
every ruleset, played by a table that knows what each player really holds.

The table below deals, plays and takes cards as players do (a Discard All lays any number of its
colour, a blast gives every card in the slots, a Wild Draw Four is accepted or challenged either way,
the Minions' discards are dealt back, a card falls out late), keeps the true hands, and acts only
through ``controller.rules.game.apply``. After each step the model must hold every true hand
(``hand_min <= true <= hand_max``, never below zero), and no refusal may contradict the truth:

- a player who really holds one card, not caught yet, not covered by an Uno call, is catchable while
  the window is open, and a last card from a real hand of one is never refused (the table's moves
  are all legal, so any refusal of them fails the test);
- the table also tries moves the counts may refuse (a catch of anyone, a last card claimed now) and
  throws them away: each refusal that gives the count as its reason must be true of the real hand;
- a round may be ended at the table for a player really left with one card or none, and at the end
  of a round the real hands, named card by card or as totals, are accepted.

Each game is then replayed from its logged actions, as a restart or an undo does: the same state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.errors import ApiError
from controller.rules import game, hands
from controller.rules.points import POINTS
from controller.rules.rulesets import CANNOT_END
from controller.rules.state import replaying, turn_seat

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# A round may end on them, but the table below says nothing new by ending on them.
NOT_LAST = CANNOT_END | {"wild-draw-four", "wild-mega-minions"}
# The refusals whose reason is the count of a hand, and what the real hand must then be.
COUNT_REFUSALS = {
    "catch_needs_one": lambda held: held != 1,
    "last_needs_one": lambda held: held > 1,
    "no_card_to_play": lambda held: held == 0,
    "winner_not_emptied": lambda held: held > 1,
}


class Table:
    """A table playing one round by the rules, knowing every true hand."""

    def __init__(self, draw, ruleset: str, players: int):
        self.draw = draw
        self.rs = game.ruleset(ruleset)
        names = [f"P{i}" for i in range(players)]
        color = self.rs.colors[0]  # one colour all round: every card matches
        self.color = color
        if self.rs.dealer or self.rs.blaster:
            first = {} if self.rs.dealer else {"first_card": "5", "color": color}
        else:  # the Attack editions: every first card of the box (rules.md §5)
            first = {"first_card": self.pick(["5"] + [c for c in self.rs.cards if not c.isdigit()]),
                     "color": color}
        self.new = {"ruleset": ruleset, "players": names, **first}
        self.state, _ = game.new_game(ruleset, names, **first)
        self.log: list[dict] = []
        self.true = [0 if self.rs.dealer else 7] * players
        self.in_blaster = 0

    def pick(self, choices):
        return choices[self.draw(st.integers(0, len(choices) - 1))]

    def act(self, action: dict) -> None:
        self.state, _ = game.apply(self.state, action)
        self.log.append(action)

    def take(self, seat: int, cards: int) -> None:
        self.true[seat] += cards

    # ---- moves the counts may refuse, tried and thrown away ----------------------------------------

    def probe(self, action: dict, seat: int) -> None:
        """Try ``action`` on the state and keep nothing: a refusal for the count of ``seat``'s hand must
        be true of the real one."""
        try:
            game.apply(self.state, action)
        except ApiError as error:
            said = error.message_object or {}
            rule = COUNT_REFUSALS.get(said.get("id"))
            if rule is not None:
                assert rule(self.true[seat]), (said, self.true[seat], hands.bounds(self.state, seat))

    def probes(self) -> None:
        s = self.state
        if s.round_over:
            return
        anyone = self.pick(range(len(s.players)))
        self.probe({"type": "catch", "player": s.players[anyone]}, anyone)
        refused = hands.winner_refusal(s, anyone)  # the round ended at the table, its last card not told
        if refused is not None:
            assert COUNT_REFUSALS[refused["id"]](self.true[anyone]), (refused, self.true[anyone])
        seat = turn_seat(s)
        if not s.queue and s.awaiting in (None, "first_discard", "play_or_pass") and s.top_card is not None:
            self.probe({"type": "play", "card": "5", "color": self.color, "last": True}, seat)

    # ---- one legal move --------------------------------------------------------------------------

    def step(self) -> bool:
        """One legal action; False once the round is over and nothing is owed."""
        s = self.state
        if s.round_over and not s.queue:
            return False
        seat = turn_seat(s)
        if s.queue:
            return self._owed(seat, s.queue[0]) or True
        if self.rs.dealer and s.top_card is None or self.rs.blaster and s.top_card is None:
            ignored = self.pick([None, "skip"])  # an action card turned up is ignored (§5)
            if ignored is not None:
                self.act({"type": "turn_up", "card": ignored, "color": self.color})
            self.act({"type": "turn_up", "card": "4", "color": self.color})
            return True
        if self.rs.dealer and s.awaiting is not None:
            return self._dealer_awaits(seat) or True
        if s.awaiting == "first_attack":
            target = self.pick([p for p in s.players if p != s.players[seat]])
            self.act({"type": "first_attack", "color": self.color, "target": target})
            return True
        move = self.pick(["play"] * 3 + ["take", "uno", "catch", "late"])
        if move == "uno":
            self.act({"type": "uno", "player": self.pick(s.players)})
        elif move == "catch" and hands.catchable(s) is not None:
            self.act({"type": "catch", "player": s.players[s.catchable]})
        elif move == "late" and "cards" in game.flow(s.ruleset).ACTIONS and s.last_presser is not None:
            cards = self.pick([1, 2])  # a card stuck half-way falls out: the presser's (§2)
            self.act({"type": "cards", "cards": cards})
            self.take(s.last_presser, cards)
        elif move == "play" and self.true[seat]:
            self._play(seat)
        else:
            self._take_turn(seat)
        return True

    def _play(self, seat: int) -> None:
        s = self.state
        held = self.true[seat]
        cards = [c for c in self.rs.cards if not (held == 1 and c in NOT_LAST)]
        if s.awaiting == "first_discard":
            cards = [c for c in cards if not c.startswith("wild")]
        if s.queue:  # (only a Mega Hit's answer is played while presses are owed)
            cards = [c for c in cards if c in self.rs.hits]
        card = self.pick(cards)
        laid = 1
        if card in hands.DISCARDS or s.awaiting == "first_discard":
            laid += self.draw(st.integers(0, held - 1))  # the rest of that colour, beneath it
        action = {"type": "play", "card": card, "color": self.color}
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
        if owed.chain is not None and self.true[seat] > 1 and self.pick([False, False, True]):
            self._play(seat)  # a Mega Hit answered with a Hit card (never the last: see NOT_LAST's note)
        elif self.rs.dealer:
            self.act({"type": "press", "cards": owed.presses, "by": self.state.players[owed.seat]})
            self.take(owed.seat, owed.presses)
        elif self.rs.blaster:
            self._insert(seat)
        else:
            cards = self.pick([0, 1, 2])
            self.act({"type": "press", "cards": cards})
            self.take(seat, cards)

    def _dealer_awaits(self, seat: int) -> None:
        s = self.state
        if s.awaiting == "play_or_pass":
            self.act({"type": "pass"})
        elif s.awaiting == "challenge_or_accept":
            self.act({"type": self.pick(["accept", "challenge"])})
        elif s.awaiting == "challenge_result":
            self.act({"type": "challenge-result", "result": self.pick(["legal", "illegal"])})
        elif s.awaiting == "minions":
            player = (seat - s.direction) % len(s.players)  # who played the Wild Mega Minions Power
            counts = {}
            for other, name in enumerate(s.players):
                if other != player:
                    counts[name] = self.draw(st.integers(0, self.true[other]))
                    self.true[other] -= counts[name]  # discarded; the deals that follow give as many back
            self.act({"type": "minions", "counts": counts})

    # ---- the end of the round ----------------------------------------------------------------------

    def real_hands(self) -> dict[str, tuple[int, tuple[str, ...]]] | None:
        """The losers' real hands, card by card: as many as each holds, drawn from the box (cards of a
        count the box does not say are taken eight at a time); None for hands more than a box (the
        table above keeps no draw pile)."""
        box = [card for card, count in self.rs.deck.items() for _ in range(count or 8)]
        if sum(self.true) > len(box):
            return None
        random.Random(self.draw(st.integers(0, 2**32))).shuffle(box)
        points = POINTS[self.state.ruleset]
        dealt = {}
        for seat, name in enumerate(self.state.players):
            if seat != self.state.winner:
                cards = tuple(box[:self.true[seat]])
                del box[:self.true[seat]]
                dealt[name] = (sum(points[card] for card in cards), cards)
        return dealt


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


def check_the_end(table: Table) -> None:
    """The real hands are accepted at the end of the round, named or as totals."""
    s = table.state
    named = table.real_hands() if s.round_over else None
    if named is None:
        return
    winner = s.players[s.winner]
    deck, points = table.rs.deck, POINTS[s.ruleset]
    assert hands.hands_refusal(s, deck, points, winner, named) is None, (named, table.true)
    totals = {name: (total, None) for name, (total, _) in named.items()}
    assert hands.hands_refusal(s, deck, points, winner, totals) is None, (totals, table.true)


def check_the_replay(table: Table) -> None:
    """The logged actions rebuild the same state, as a restart or an undo replays them."""
    new = table.new
    with replaying():
        state, _ = game.new_game(new["ruleset"], new["players"], first_card=new.get("first_card"),
                                 color=new.get("color"))
        for action in table.log:
            state, _ = game.apply(state, action)
    assert state == table.state


@pytest.mark.parametrize("ruleset", game.RULESET_IDS)
@SETTINGS
@given(data=st.data(), players=st.integers(2, 5))
def test_the_model_holds_every_true_hand_and_refuses_nothing_the_truth_allows(ruleset, data, players):
    table = Table(data.draw, ruleset, players)
    check(table)
    for _ in range(data.draw(st.integers(0, 120))):
        table.probes()
        if not table.step():
            break
        check(table)
    check_the_end(table)
    check_the_replay(table)
