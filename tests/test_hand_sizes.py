"""game/status's ``hand_sizes``: each seat's hand, [fewest, most] cards, in seat order, in every ruleset."""

import pytest

from controller.rules import rulesets
from controller.rules.game import status
from game_actions import FOUR, game, play, press, run


@pytest.mark.parametrize("ruleset", list(rulesets.RULESETS))
def test_one_pair_per_seat_in_seat_order(ruleset):
    s = status(game(ruleset))
    assert len(s["hand_sizes"]) == len(s["players"]) == len(FOUR)
    for pair, player in zip(s["hand_sizes"], s["players"]):
        assert pair == [player["hand_min"], player["hand_max"]]


def test_a_table_dealt_by_hand_counts_plays_and_cards_taken():
    state = game("attack-mega-hit")
    assert status(state)["hand_sizes"] == [[7, 7]] * 4
    state = run(state, play("5"), press(3))  # Ann plays, Bob presses: 3 cards
    assert status(state)["hand_sizes"] == [[6, 6], [10, 10], [7, 7], [7, 7]]


def test_a_discard_all_leaves_a_range():
    state = run(game("attack-mega-hit"), play("discard-all"))
    low, high = status(state)["hand_sizes"][0]
    assert low < high == 6


def test_game_status_text_has_a_hand_column_in_both_languages():
    from controller.layer.cli import format_status
    from controller.match import table as match_table
    from firmware import i18n

    table, _ = match_table.new_table({"type": "new", "rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]})
    table, _ = match_table.apply(table, play("discard-all"))
    status = {**match_table.status(table), "match_id": 1, "state_dir": "/var/lib/card-launcher"}
    for lang, label in (("en", "hand"), ("fr", "main")):
        with i18n.speaking(lang):
            lines = format_status(status).splitlines()
        head = next(line for line in lines if line.split()[1:2] == [label])
        rows = {line.split()[0]: line.split()[1] for line in lines[lines.index(head) + 1:][:3]}
        low, high = status["hand_sizes"][0]
        assert rows == {"Ann": f"{low}-{high}", "Bob": "7", "Cy": "7"}
