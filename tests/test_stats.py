"""Match statistics (controller/match/stats.py): the pure figures, their sum over history, game/stats and the CLI."""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.match import table as match_table
from controller.layer.game_parser import register
from controller.match.stats import format_stats, history_stats, match_stats
from firmware.client import Client
from firmware.errors import ApiError, NotFound


from harness.web import Stack

FOUR = {"type": "new", "rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]}


def log(*actions: dict, undone: tuple[int, ...] = (), step_s: int = 30) -> list[dict]:
    """Rows as game/log gives them, one every ``step_s`` seconds."""
    return [{"seq": i + 1, "ts": f"2026-12-01T10:{i * step_s // 60:02d}:{i * step_s % 60:02d}.000+00:00",
             "action": action, "undone": i in undone} for i, action in enumerate(actions)]


def play(card: str, by: str, **extra) -> dict:
    if not card.startswith("wild"):
        extra.setdefault("color", "red")  # every card but a wild shows its colour (#21)
    return {"type": "play", "card": card, "by": by, **extra}


def press(cards: int, by: str, press_id: int) -> dict:
    return {"type": "press", "cards": cards, "press_id": press_id, "by": by}


MEGA_HIT = log(
    FOUR,
    play("hit-2", "Ann"),                     # Bob owes 2, or stacks
    play("hit-1", "Bob"),                     # Mega Hit: 3 pass to Cy
    press(0, "Cy", 1),
    press(4, "Cy", 2),                        # early stop: Cy is done
    {"type": "cards", "cards": 1, "press_id": 2, "by": "Cy"},  # one fell out late
    press(0, "Bob", 3),
    press(0, "Cy", 4),
    {"type": "end_round", "winner": "Ann", "hands": {"Bob": 10, "Cy": 20, "Dee": 5}},
)


def test_presses_cards_bursts_streaks_and_a_mega_hit():
    stats = match_stats(MEGA_HIT)
    ann, bob, cy, dee = (stats["players"][name] for name in ("Ann", "Bob", "Cy", "Dee"))
    assert (cy["presses"], cy["cards"], cy["biggest_burst"]) == (3, 5, 5)  # the late card is the burst's
    assert (bob["presses"], bob["cards"], bob["longest_dry_streak"]) == (1, 0, 1)
    assert (ann["hits_sent"], bob["hits_sent"]) == (2, 1)
    # Bob stacked and passed the hits on: only Cy, who pressed them, received them.
    assert (bob["hits_received"], cy["hits_received"]) == (0, 3)
    assert stats["biggest_burst"] == {"player": "Cy", "cards": 5}
    assert stats["launcher_longest_dry_streak"] == 2  # Bob's then Cy's dry press
    assert stats["longest_mega_hit"] == {"hits": 3, "cards": 2, "started_by": "Ann", "pressed_by": "Cy",
                                         "round": 1}
    assert ann["rounds_won"] == 1 and dee == {**dee, "presses": 0, "rounds_won": 0}
    assert stats["rounds"] == [{"round": 1, "winner": "Ann", "seconds": 240.0}]
    assert stats["round_in_play"] == 2 and stats["match_over"] is False


def test_a_classic_match_has_draws_and_rounds_but_no_hits():
    classic = {"type": "new", "rules": "classic", "players": ["Ann", "Bob"]}
    stats = match_stats(log(classic, {"type": "end_round", "winner": "Bob", "hands": {"Ann": 12}}))
    assert stats["ruleset"] == "classic"
    assert stats["players"]["Bob"]["rounds_won"] == 1
    assert stats["players"]["Ann"]["hits_sent"] == 0


def test_undone_actions_do_not_count():
    stats = match_stats(log(FOUR, play("hit-2", "Ann"), press(3, "Bob", 1), undone=(2,)))
    assert stats["players"]["Bob"]["presses"] == 0
    assert stats["players"]["Ann"]["hits_sent"] == 2
    assert stats["players"]["Bob"]["hits_received"] == 0  # the hit is still owed, not yet pressed


def test_a_late_card_ends_the_dry_streak_its_press_seemed_to_extend():
    stats = match_stats(log(FOUR, press(0, "Ann", 1), press(0, "Bob", 2),
                            {"type": "cards", "cards": 1, "press_id": 2, "by": "Bob"}, press(0, "Cy", 3)))
    assert stats["players"]["Bob"]["cards"] == 1 and stats["players"]["Bob"]["biggest_burst"] == 1
    assert stats["launcher_longest_dry_streak"] == 2  # Ann, Bob; then the streak starts again at Cy


def test_wild_all_hit_sends_one_hit_to_each_other_player():
    new = {**FOUR, "rules": "attack-2005"}
    stats = match_stats(log(new, play("wild-all-hit", "Ann", color="red"),
                            press(0, "Bob", 1), press(0, "Cy", 2), press(2, "Dee", 3)))
    figures = stats["players"]
    assert figures["Ann"]["hits_sent"] == 3
    assert [figures[n]["hits_received"] for n in ("Bob", "Cy", "Dee")] == [1, 1, 1]
    assert stats["longest_mega_hit"] is None


def test_the_history_adds_counts_and_keeps_maxima():
    one = {**match_stats(MEGA_HIT), "winner": ["Ann"]}
    two = {**match_stats(log(FOUR, press(2, "Ann", 1), press(7, "Bob", 2))), "winner": []}
    history = history_stats([one, two])
    assert history["matches"] == 2 and history["rounds"] == 1
    assert history["players"]["Bob"]["cards"] == 0 + 7
    assert history["players"]["Cy"]["biggest_burst"] == 5
    assert history["players"]["Bob"]["biggest_burst"] == 7
    assert history["players"]["Ann"]["matches_won"] == 1 and history["players"]["Bob"]["matches"] == 2
    assert history["average_round_seconds"] == 240.0


def test_an_empty_log_has_no_statistics():
    with pytest.raises(NotFound):
        match_stats([])
    with pytest.raises(NotFound):
        match_stats(log(FOUR, undone=(0,)))


def test_the_text_for_the_table():
    stats = match_stats(MEGA_HIT)
    text = format_stats({"match_id": 4, "match": stats, "history": history_stats([{**stats, "winner": []}])})
    assert "match 4 (UNO Attack Mega Hit)" in text  # the ruleset by its box (#40)
    assert "biggest burst: Cy, 5 cards" in text
    assert "longest Mega Hit: 3 hits in 2 cards, started by Ann, pressed by Cy" in text
    assert "round 1: Ann won in 4:00" in text
    assert "history: 1 match, 1 round" in text
    assert "no match at the table" in format_stats({"match": None, "history": history_stats([])})


# Random play of one round: the statistics agree with the game's own count of presses and cards.
moves = st.lists(st.one_of(
    st.tuples(st.just("play"), st.sampled_from(["hit-1", "hit-2", "skip", "reverse", "7"])),
    st.tuples(st.just("press"), st.integers(0, 6)),
), max_size=40)


@settings(max_examples=60, deadline=None)
@given(moves)
def test_the_figures_agree_with_the_game(moves):
    table, _ = match_table.new_table(FOUR)
    actions = [FOUR]
    press_id = 0
    for kind, value in moves:
        if kind == "play":
            action = {"type": "play", "card": value}
        else:
            press_id += 1
            action = {"type": "press", "cards": value, "press_id": press_id}
        try:
            table, _ = match_table.apply(table, action)
        except ApiError:
            continue  # a move the round does not allow now is not logged
        actions.append(action)
    stats = match_stats(log(*actions, step_s=1))
    for player in match_table.status(table)["players"]:
        figures = stats["players"][player["name"]]
        assert (figures["presses"], figures["cards"]) == (player["presses"], player["cards_taken"])
    # Hits are received once pressed: never more than were sent.
    assert sum(f["hits_received"] for f in stats["players"].values()) <= sum(
        f["hits_sent"] for f in stats["players"].values())


@pytest.fixture(scope="module")
def daemon():
    running = Stack()
    running.start_daemon()
    yield running
    running.close()


def test_game_stats_over_the_socket_and_launcherctl_game_stats(daemon, capsys):
    with Client(daemon.socket, timeout=30) as client:
        assert client.call("game/stats")["match"] is None
        client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"]})
        client.call("game/play", {"card": "hit-2", "color": "red"})
        client.call("launcher/press")
        stats = client.call("game/stats")
        assert stats["match"]["players"]["Bob"]["presses"] == 1
        assert stats["match"]["players"]["Ann"]["hits_sent"] == 2
        with pytest.raises(ApiError, match="no match 99"):
            client.call("game/stats", {"match": 99})

        common = argparse.ArgumentParser(add_help=False)
        common.add_argument("--json", action="store_true")
        parser = argparse.ArgumentParser(prog="launcherctl")
        register(parser.add_subparsers(dest="command", required=True), [common])
        args = parser.parse_args(["game", "stats"])
        assert args.func(args, client) == 0
        assert f"match {stats['match_id']} (UNO Attack Mega Hit)" in capsys.readouterr().out  # the box's name (#40)
        args = parser.parse_args(["game", "stats", "--json", "--match", str(stats["match_id"])])
        assert args.func(args, client) == 0
        assert '"hits_sent": 2' in capsys.readouterr().out
