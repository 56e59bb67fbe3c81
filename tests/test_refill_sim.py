"""The refill gesture end to end in the simulation: the hopper runs dry, the button held (the mock
button pin driven as a finger would) or the lid opened and closed refills it, from the game layer's
count when it gives one, else from the last reload; the chime and the LED confirm."""

from __future__ import annotations

from firmware.launcher.hopper import REFILL_CHIME, REFILL_FLASH
from test_bringup import BringupDaemon

# A quick feed timeout (cards are 7 ms apart) for the runs that end empty, and a short hold.
SMALL_HOPPER = """
[sim]
hopper = 3
[timing]
feed_timeout_ms = 100
refill_hold_ms = 150
"""
# The same without the game layer, for the tests that stand in for it with their own game/refill-count.
NO_GAME = SMALL_HOPPER + "[daemon]\nextensions = []\n"


def run_dry(d) -> None:
    outcome = d.call("launcher/feed", {"count": 5})
    assert outcome["ended"] == "empty" and d.call("status/get")["state"] == "empty"


def lid_refill(d, dry_first: bool = True) -> dict:
    """The lid opened and closed (after the hopper ran dry, unless ``dry_first`` is False): the
    ``refilled`` event it gives."""
    events = d.events()
    try:
        if dry_first:
            run_dry(d)
        d.call("sim/lid", {"open": True})
        d.call("sim/lid", {"open": False})
        return events.wait_for("refilled")
    finally:
        events.close()


def hold_button(d, pressed: bool) -> None:
    pin = d.daemon.pin_factory.pin(d.daemon.config.pins.button)
    d.daemon.loop.call_soon_threadsafe(pin.drive_low if pressed else pin.drive_high)


def test_holding_the_button_while_empty_refills_with_the_last_reload_and_confirms(tmp_path):
    with BringupDaemon(tmp_path, SMALL_HOPPER) as d:
        feedback = []
        d.in_loop(d.daemon.watch_feedback, feedback.append)
        events = d.events()
        try:
            run_dry(d)
            d.call("launcher/reload", {"cards": 2})  # the last reload: 2 cards, all of them dealt
            run_dry(d)
            hold_button(d, True)
            refilled = events.wait_for("refilled")
            hold_button(d, False)
        finally:
            events.close()
        status = d.call("status/get")
    assert refilled == {"source": "button", "cards": 2, "previous": 0}
    assert status["state"] == "ready" and status["hopper"] == 2 and status["sim"]["hopper"] == 2
    assert status["bringup"]["last_reload"] == 2
    assert REFILL_CHIME in feedback and REFILL_FLASH in feedback


def test_the_game_layers_count_wins_over_the_last_reload(tmp_path):
    with BringupDaemon(tmp_path, NO_GAME) as d:
        asked = []

        def refill_count(params):
            asked.append(params)
            return {"cards": 77}

        d.daemon.registry.register("game/refill-count", refill_count)
        events = d.events()
        try:
            run_dry(d)
            hold_button(d, True)
            refilled = events.wait_for("refilled")
            hold_button(d, False)
        finally:
            events.close()
        assert d.call("status/get")["hopper"] == 77
    assert asked == [{}] and refilled["cards"] == 77


def test_a_layer_that_knows_nothing_leaves_the_last_reload(tmp_path):
    with BringupDaemon(tmp_path, NO_GAME) as d:
        d.daemon.registry.register("game/refill-count", lambda params: {"cards": None})
        refilled = lid_refill(d)
    assert refilled == {"source": "lid", "cards": 3, "previous": 0}


def test_a_short_press_while_empty_is_only_an_empty_press(tmp_path):
    with BringupDaemon(tmp_path, SMALL_HOPPER) as d:
        run_dry(d)
        outcome = d.call("launcher/press")
        status = d.call("status/get")
    assert outcome["outcome"] == "empty"
    assert status["state"] == "empty" and status["hopper"] == 0


def test_a_nonsense_answer_of_the_layer_falls_back_to_the_last_reload(tmp_path):
    with BringupDaemon(tmp_path, NO_GAME) as d:
        d.daemon.registry.register("game/refill-count", lambda params: {"cards": -4})
        refilled = lid_refill(d)
    assert refilled["cards"] == 3


def test_during_a_game_the_refill_is_the_deck_less_the_hands(tmp_path):
    """attack-mega-hit has 112 cards: 4 hands of 7, less the card Ann played, and one on the pile."""
    with BringupDaemon(tmp_path, SMALL_HOPPER) as d:
        d.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]})
        d.call("game/play", {"card": "hit-2", "color": "red"})
        assert d.call("game/refill-count") == {"cards": 112 - (4 * 7 - 1) - 1}
        refilled = lid_refill(d)
    assert refilled["cards"] == 112 - (4 * 7 - 1) - 1


def test_the_deck_a_dealer_game_waits_for_is_counted_whole_by_the_refill_gesture(tmp_path):
    """A classic game whose hopper does not hold its deck (#40): the table loads all 108 and closes
    the lid; the gesture counts the whole deck, not the deck less hands nobody was dealt yet, and the
    opening deal then waits only for a person's press."""
    with BringupDaemon(tmp_path, SMALL_HOPPER) as d:
        reply = d.call("game/new", {"rules": "classic", "players": ["Ann", "Bob", "Cy"]})
        assert reply["load_deck"] == {"cards": 108, "hopper": 3}
        assert d.call("game/refill-count") == {"cards": 108}
        refilled = lid_refill(d, dry_first=False)  # the deck loaded whole, the lid closed
        assert refilled["cards"] == 108
        status = d.call("game/status")
        assert status["load_deck"] == {"cards": 108, "hopper": 108}  # loaded; the deal waits for the press
        assert d.call("status/get")["sim"]["cards_out"] == 0  # the lid deals nothing: a press will
