"""Over random Attack rounds (the sessions of tests/test_game_properties.py): every moment has a
plain sentence in both languages naming the player to move, the choices fit the moment, and a catch
is offered only against a player a catch is accepted against (#24)."""

from __future__ import annotations

from hypothesis import given

from controller.rules.game import apply, new_game
from controller.text.advice import round_what_now
from controller.text.messages import render
from test_game_properties import SETTINGS, sessions


@SETTINGS
@given(sessions())
def test_every_moment_says_who_moves_and_what_they_may_do(session):
    setup, actions, statuses, _ = session
    # The state after the first k actions, one action further each moment (replaying each prefix
    # afresh gave the same states in quadratic time; test_game_properties checks the replays).
    state, _ = new_game(**setup)
    for k, shown in enumerate(statuses):
        if k:
            state, _ = apply(state, actions[k - 1])
        said = round_what_now(state)
        texts = [render(said, lang) for lang in ("en", "fr")]
        if shown["turn"] is not None:
            assert all(shown["turn"] in text for text in texts), (said, texts)
        if shown["round_over"] and shown["owed"] is None:
            assert shown["choices"] == ["end_round"]
        elif shown["owed"] is not None:
            assert shown["choices"][0] == "press"
            assert "play" not in shown["choices"] or shown["chain"] is not None  # only a Hit card stacks
        elif shown["awaiting"] == "first_attack":
            assert shown["choices"] == ["first_attack"]
        else:
            assert shown["choices"] == ["play", "press"]
        assert set(shown["catchable_players"]) <= {shown["catchable"]}
