"""The game service with the launcher as dealer (classic) and with the blaster (blast), issue #11.

The service runs on a stand-in for the daemon: the layer interface only (``call``, ``publish``,
``launcher_status``...), with dispenses whose outcome each test chooses, and the pauses of dealing
on the test's own clock. Everything runs in one ``asyncio.run`` per test; ``settle`` lets the
service's background tasks run until they wait for something.
"""

from __future__ import annotations

import asyncio
import itertools

from controller.layer.service import GameService
from firmware.errors import Refused, Unavailable
from harness.launcherd import ThreadDaemon
from harness.waits import wait_until

P3 = ["Ann", "Bob", "Cy"]


class Launcher:
    """What the game layer sees of launcherd: dispenses give ``gives`` (in order), else all asked."""

    def __init__(self, state_dir, servo=False):
        self.state_dir = state_dir
        self.servo = servo
        self.calls: list[tuple[str, dict]] = []
        self.meanings: list[dict] = []
        self.events: list[tuple[str, dict]] = []
        self.gives: list[int] = []
        self.state = "ready"
        self.hold: asyncio.Event | None = None  # set: dispenses wait for it
        self.aim_hold: asyncio.Event | None = None  # set: aims wait for it (a slow servo, a busy loop)
        self._ids = itertools.count(1)

    def publish(self, name, params):
        self.events.append((name, params))

    async def call(self, method, params=None):
        params = dict(params or {})
        if method == "launcher/press-means":  # what a press means, told as the table changes
            self.meanings.append(params)
            return {}
        self.calls.append((method, params))
        if method == "launcher/aim":
            if not self.servo:
                raise Unavailable("no aim servo is configured ([pins] servo)")
            if self.aim_hold is not None:
                await self.aim_hold.wait()
            return {"angle": 0.0}
        if method == "launcher/cancel":  # the first deal cancels a previous game layer's dispense
            return {"cancelled": 0}
        assert method == "launcher/dispense", method
        if self.hold is not None:
            await self.hold.wait()
        count = params["count"]
        cards = self.gives.pop(0) if self.gives else count
        if cards < count:
            self.state = "jammed"
        return {"event": "launched", "press_id": next(self._ids), "source": "dispense", "cards": cards,
                "requested": count, "ended": "done" if cards == count else "jam"}

    # The launcher's estimate, as LayerHost.hopper gives it: the whole classic deck is loaded (a
    # dealer game's opening deal waits for its deck in the hopper, tests/test_game_deck.py).
    hopper = 108

    def launcher_status(self):
        return {"state": self.state}

    def outcomes_after(self, seq, record=None):
        return []

    def outcomes_logged(self, seq):
        pass

    def dispensed(self):
        return [p["count"] for m, p in self.calls if m == "launcher/dispense"]

    def aims(self):
        return [p["seat"] for m, p in self.calls if m == "launcher/aim"]

    def messages(self):
        return [p["text"] for name, p in self.events if name == "game/message"]


async def settle():
    for _ in range(100):
        await asyncio.sleep(0)


def table(tmp_path, servo=False, slept=None):
    async def sleep(seconds):
        if slept is not None:
            slept.append(seconds)

    launcher = Launcher(tmp_path, servo)
    service = GameService(launcher, sleep=sleep)
    service.open()
    return launcher, service


def new(rules="classic", players=P3, dealer=None, **options):
    action = {"type": "new", "rules": rules, "players": players, "first_card": "5",
              "color": "red" if rules != "despicable-me-4" else "orange", "options": options}
    return action if dealer is None else {**action, "dealer": dealer}


def taken(service):
    return [p["cards_taken"] for p in service.status()["players"]]


def logged(service):
    return [r.action for r in service.store.actions(service.match_id)][1:]


def presses(service):
    return [(a["by"], a["cards"]) for a in logged(service) if a["type"] == "press"]


def button(service, cards=0):
    service.on_event("launched", {"source": "button", "press_id": 99, "cards": cards,
                                  "outcome": "dry" if not cards else "burst", "ended": "done"})


# ---- the opening deal ---------------------------------------------------------------------------


def test_without_a_servo_seven_each_seat_by_seat_with_a_pause_between_piles(tmp_path):
    slept = []

    async def scenario():
        launcher, service = table(tmp_path, slept=slept)
        service.start(new(deal_pause_s="3"))
        await settle()
        return launcher, service

    launcher, service = asyncio.run(scenario())
    assert launcher.dispensed() == [7, 7, 7] and slept == [3.0, 3.0]
    assert presses(service) == [("Ann", 7), ("Bob", 7), ("Cy", 7)]
    assert service.status()["owed"] is None and service.status()["turn"] == "Ann"


def test_with_a_servo_each_pile_is_aimed_at_its_seat_and_nobody_waits(tmp_path):
    slept = []

    async def scenario():
        launcher, service = table(tmp_path, servo=True, slept=slept)
        service.start(new(players=["Ann", "Bob", "Cy", "Dee"], dealer="Bob"))
        await settle()
        return launcher, service

    launcher, service = asyncio.run(scenario())
    assert slept == [] and launcher.dispensed() == [7, 7, 7, 7]
    # Each pile comes right after the launcher was turned to its seat, from the dealer's left.
    aimed = [launcher.calls[i - 1] for i, (m, _) in enumerate(launcher.calls) if m == "launcher/dispense"]
    assert [(m, p["seat"], p["seats"]) for m, p in aimed] == [("launcher/aim", s, 4) for s in (2, 3, 0, 1)]
    assert taken(service) == [7, 7, 7, 7]


def test_deal_pause_press_waits_for_the_button_between_piles(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path)
        service.start(new(deal_pause="press"))
        await settle()
        first = (launcher.dispensed(), service.status()["owed"]["player"])
        button(service)  # a dry press: the dealer has handed Ann's pile over
        await settle()
        second = launcher.dispensed()
        button(service)
        await settle()
        return first, second, launcher, service

    first, second, launcher, service = asyncio.run(scenario())
    assert first == ([7], "Bob")
    assert second == [7, 7] and launcher.dispensed() == [7, 7, 7]
    assert "hand the pile over, then press the button to deal to Bob" in launcher.messages()
    assert presses(service) == [("Ann", 7), ("Bob", 7), ("Cy", 7)]  # the dry presses are no moves


def test_a_short_dispense_is_counted_and_the_rest_dealt_once_the_launcher_is_ready(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path, servo=True)
        launcher.gives = [7, 3]
        service.start(new())
        await settle()
        waiting = (launcher.dispensed(), service.status()["owed"])
        launcher.state = "ready"  # the stuck card was pulled out
        service.on_event("state", {"state": "ready"})
        await settle()
        return waiting, launcher, service

    (dispensed, owed), launcher, service = asyncio.run(scenario())
    assert dispensed == [7, 7] and (owed["player"], owed["cards"]) == ("Bob", 4)
    assert any(text.startswith("Bob was dealt 3 of 7 cards (jam)") for text in launcher.messages())
    assert launcher.dispensed() == [7, 7, 4, 7] and taken(service) == [7, 7, 7]
    assert presses(service) == [("Ann", 7), ("Bob", 3), ("Bob", 4), ("Cy", 7)]


def test_a_dispense_that_gave_more_than_owed_counts_what_was_owed_and_says_so(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path, servo=True)
        launcher.gives = [8]
        service.start(new())
        await settle()
        return launcher, service

    launcher, service = asyncio.run(scenario())
    assert taken(service) == [7, 7, 7]
    assert ("8 cards came out for Ann, who was owed 7: 1 go back in the hopper (then reload the hopper with how"
            " many it holds)") \
        in launcher.messages()


def test_a_deal_stopped_by_undo_waits_for_a_press_before_dealing_again(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path)
        service.start(new(deal_pause="press"))
        await settle()
        reply = service.undo()  # Ann's 7 no longer counted: she is owed them again
        await settle()
        held = launcher.dispensed()
        button(service)  # a person asks for the deal again
        await settle()
        return reply, held, launcher, service

    reply, held, launcher, service = asyncio.run(scenario())
    assert "Ann is owed 7 cards again: nothing is dealt after an undo. Undo again to take back what" \
           " caused them; a press of the button deals them" in reply["messages"]
    assert held == [7]
    assert launcher.dispensed() == [7, 7] and presses(service) == [("Ann", 7)]


def test_cards_of_a_dispense_under_way_when_a_new_game_starts_are_not_counted(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path)
        launcher.hold = asyncio.Event()
        service.start(new())
        await settle()
        service.start(new("attack-mega-hit"), force=True)
        launcher.hold.set()
        await settle()
        return launcher, service

    launcher, service = asyncio.run(scenario())
    assert launcher.dispensed() == [7]
    assert any(text.startswith("7 cards came out after the deal was stopped") for text in launcher.messages())
    assert service.status()["ruleset"] == "attack-mega-hit" and taken(service) == [0, 0, 0]


def test_a_daemon_restarted_mid_deal_deals_what_the_log_does_not_show_dealt(tmp_path):
    async def first_daemon():
        launcher, service = table(tmp_path)
        service.start(new(deal_pause="press"))
        await settle()
        service.close()  # the power goes while the dealer hands Ann's pile over

    async def second_daemon():
        launcher, service = table(tmp_path)  # open() resumes the match from its log
        await settle()
        button(service)  # Bob's pile is handed over
        await settle()
        return launcher, service

    asyncio.run(first_daemon())
    launcher, service = asyncio.run(second_daemon())
    assert launcher.dispensed() == [7, 7]
    assert taken(service) == [7, 7, 7] and presses(service) == [("Ann", 7), ("Bob", 7), ("Cy", 7)]


# ---- cards dealt during the round -----------------------------------------------------------------


def dealt_table(tmp_path, rules="classic", players=P3):
    launcher, service = table(tmp_path, servo=True)
    launcher.hopper = 112 if rules == "despicable-me-4" else 108  # the whole deck
    service.start(new(rules, players))
    return launcher, service


def test_every_later_deal_is_a_dispense_of_that_count_to_that_player(tmp_path):
    async def scenario():
        launcher, service = dealt_table(tmp_path)
        await settle()
        steps = []
        for action in ({"type": "play", "card": "draw-two", "color": "red"},  # Ann: Bob is dealt 2
                       {"type": "play", "card": "wild-draw-four", "color": "blue"},  # Cy
                       {"type": "accept"},  # Ann is dealt 4
                       {"type": "play", "card": "wild-draw-four", "color": "green"},  # Bob
                       {"type": "challenge"}, {"type": "challenge-result", "result": "illegal"},  # Bob 4
                       {"type": "play", "card": "wild-draw-four", "color": "green"},  # Cy
                       {"type": "challenge"}, {"type": "challenge-result", "result": "legal"}):  # Ann 6
            service.act(action)
            await settle()
            steps.append(launcher.dispensed()[3:])
        return steps, launcher, service

    steps, launcher, service = asyncio.run(scenario())
    assert launcher.dispensed()[3:] == [2, 4, 4, 6]
    assert presses(service)[3:] == [("Bob", 2), ("Ann", 4), ("Bob", 4), ("Ann", 6)]
    assert taken(service) == [17, 13, 7]
    # Each dispense comes right after the launcher was turned to that player's seat.
    aimed = [launcher.calls[i - 1] for i, (m, _) in enumerate(launcher.calls) if m == "launcher/dispense"]
    assert [p["seat"] for m, p in aimed[3:]] == [1, 0, 1, 0]
    # The log says who moved, filled in as for a play.
    assert [(a["type"], a["by"]) for a in logged(service) if a["type"] in ("accept", "challenge")] == [
        ("accept", "Ann"), ("challenge", "Cy"), ("challenge", "Ann")]


def test_mega_minions_deals_each_other_player_their_count(tmp_path):
    async def scenario():
        launcher, service = dealt_table(tmp_path, "despicable-me-4")
        await settle()
        service.act({"type": "play", "card": "wild-mega-minions", "color": "purple"})
        service.act({"type": "minions", "counts": {"Bob": 2, "Cy": 3}})
        await settle()
        return launcher, service

    launcher, service = asyncio.run(scenario())
    assert launcher.dispensed()[3:] == [2, 3] and taken(service) == [7, 9, 10]


def test_a_press_is_a_draw_of_exactly_one_card(tmp_path):
    async def scenario():
        launcher, service = dealt_table(tmp_path)
        await settle()
        button(service)  # dry: the launcher deals the one card of the draw
        await settle()
        drawn = (launcher.dispensed()[3:], service.status()["awaiting"])
        button(service)  # Ann has drawn: no second card
        await settle()
        again = launcher.dispensed()[3:]
        service.act({"type": "pass"})
        button(service, cards=3)  # Bob: a burst is no draw (the cards are not counted)
        button(service, cards=1)  # a press that gave its one card: counted as it is
        return drawn, again, launcher, service

    drawn, again, launcher, service = asyncio.run(scenario())
    assert drawn == ([1], "play_or_pass") and again == [1]
    assert any("Ann has drawn: play that card or pass" in text for text in launcher.messages())
    assert any("a draw is exactly 1 card, not 3" in text for text in launcher.messages())
    assert presses(service)[3:] == [("Ann", 1), ("Bob", 1)] and taken(service) == [8, 8, 7]
    assert [a["by"] for a in logged(service) if a["type"] == "pass"] == ["Ann"]


def test_game_draw_waits_for_the_card_and_is_refused_when_no_draw_is_due(tmp_path):
    async def scenario():
        launcher, service = dealt_table(tmp_path)
        await settle()
        reply = await service.draw(None)
        try:
            await service.draw(None)
        except Refused as exc:
            refused = exc.message
        return reply, refused, launcher

    reply, refused, launcher = asyncio.run(scenario())
    assert reply["awaiting"] == "play_or_pass" and reply["players"][0]["cards_taken"] == 8
    assert "Ann has drawn: play that card or pass" in refused and launcher.dispensed()[3:] == [1]


# ---- the blaster ----------------------------------------------------------------------------------


def test_blaster_events_are_the_insertions_of_whose_move_it_is(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path)
        service.start(new("blast"))
        service.on_event("insert", {"insert_id": 1, "slot": 1, "outcome": "safe"})  # Ann
        service.act({"type": "play", "card": "wild-blast", "color": "blue"})  # Bob: Cy inserts until the blast
        owed = service.status()["owed"]
        service.on_event("insert", {"insert_id": 2, "slot": 2, "outcome": "safe"})
        service.on_event("insert", {"insert_id": 3, "slot": 3, "outcome": "blast"})
        pending = service.status()["owed"]
        service.on_event("blast", {"insert_id": 3, "slot": 3, "cards": 3, "jammed": False})
        return owed, pending, launcher, service

    owed, pending, launcher, service = asyncio.run(scenario())
    assert (owed["player"], owed["inserts"], owed["until_blast"]) == ("Cy", None, True)
    assert pending["player"] == "Cy"  # the firing insertion counts once its cards are counted
    inserts = [a for a in logged(service) if a["type"] == "insert"]
    assert inserts == [
        {"type": "insert", "blast": False, "cards": 0, "insert_id": 1, "by": "Ann"},
        {"type": "insert", "blast": False, "cards": 0, "insert_id": 2, "by": "Cy"},
        {"type": "insert", "blast": True, "cards": 3, "insert_id": 3, "by": "Cy"},
    ]
    assert service.status()["owed"] is None and service.status()["turn"] == "Ann"
    assert taken(service) == [0, 0, 3] and launcher.dispensed() == []


def test_an_insertion_the_round_refuses_is_said_not_counted(tmp_path):
    async def scenario():
        launcher, service = table(tmp_path)
        service.start(new("blast"))
        service.act({"type": "play", "card": "discard-color", "color": "red", "last": True})  # seven red
        service.on_event("insert", {"insert_id": 4, "slot": 1, "outcome": "safe"})
        return launcher

    launcher = asyncio.run(scenario())
    assert any(text.startswith("insertion 4 (0 cards blasted) is not counted in the game: round 1 is over")
               for text in launcher.messages())


# ---- end to end: launcherd --sim and launcherctl --------------------------------------------------


def test_a_deal_to_ten_seats_gives_seventy_through_launcherd_and_launcherctl(tmp_path):
    import json

    with ThreadDaemon(tmp_path) as launcherd:
        launcherd.ctl("reload", "108", check=True)  # the whole deck (the sim starts with 112)
        players = [f"P{n}" for n in range(1, 11)]
        # No pause between seats (2 s by default): the deal, not the table's rhythm, is what is checked.
        new = launcherd.ctl("game", "new", "--rules", "classic", "--players", ",".join(players),
                            "--option", "deal_pause_s=0", "--wait")
        assert new.returncode == 0, new.stderr
        assert "P1 starts once the first card is turned up: nobody plays, presses or draws before it" in new.stdout
        status = json.loads(launcherd.ctl("game", "status", "--json", check=True).stdout)
        assert [p["cards_taken"] for p in status["players"]] == [7] * 10 and status["owed"] is None
        log = json.loads(launcherd.ctl("game", "log", "--json", check=True).stdout)["actions"]
        dealt = [(r["action"]["by"], r["action"]["cards"]) for r in log if r["action"]["type"] == "press"]
        assert sum(cards for _, cards in dealt) == 70 and {by for by, _ in dealt} == set(players)
        assert launcherd.call("status/get")["hopper"] == 108 - 70  # the sim's hopper: exactly 70 came out

        refused = launcherd.ctl("game", "draw")  # nothing before the first card (#39)
        assert refused.returncode == 1 and "the first card is not turned up yet" in refused.stderr
        launcherd.ctl("game", "turn-up", "4", "--color", "red", check=True)
        drawn = launcherd.ctl("game", "draw", check=True)
        assert "P1 draws 1 card" in drawn.stdout
        launcherd.ctl("game", "pass", check=True)
        assert launcherd.call("status/get")["hopper"] == 108 - 71


def test_a_blast_game_is_played_with_insertions_typed_by_hand(tmp_path):
    with ThreadDaemon(tmp_path) as launcherd:
        started = launcherd.ctl("game", "new", "--rules", "blast", "--players", "Ann,Bob,Cy",
                                "--first-card", "5", "--color", "red")
        assert started.returncode == 0, started.stderr
        assert "Ann's move - play a card or insert one in the blaster" in started.stdout
        launcherd.ctl("game", "insert", check=True)  # Ann: safe
        wild = launcherd.ctl("game", "play", "wild-blast", "--color", "blue", check=True)  # Bob
        assert "Cy's move - inserts until the blast in the blaster" in wild.stdout
        launcherd.ctl("game", "insert", check=True)
        boom = launcherd.ctl("game", "insert", "--blast", "4", check=True)
        assert "the blast: Cy takes 4 cards, done" in boom.stdout and "Ann's move" in boom.stdout
        assert launcherd.ctl("game", "draw").returncode == 1  # no dealer in blast


def test_a_blast_game_follows_the_blasters_own_insertions(tmp_path):
    import json

    with ThreadDaemon(tmp_path, '[device]\nkind = "blaster"\n') as launcherd:
        launcherd.ctl("game", "new", "--rules", "blast", "--players", "Ann,Bob,Cy", "--first-card", "5",
                      "--color", "red", check=True)
        for _ in range(6):
            launcherd.ctl("insert", check=True)
            launcherd.wait_for(lambda s: s["state"] != "firing")  # a blast counts its cards first

        def six_inserts_logged() -> list[dict] | None:
            log = json.loads(launcherd.ctl("game", "log", "--json", check=True).stdout)["actions"]
            inserts = [r["action"] for r in log if r["action"]["type"] == "insert"]
            return inserts if len(inserts) >= 6 else None

        # The game layer logs an insertion as it takes in its event, on a thread of its own: the
        # last one's entry may come after the blaster is ready again (a busy machine's game layer
        # had logged 5 of the 6 by then).
        inserts = wait_until(six_inserts_logged, what="six insertions logged")
        assert [a["insert_id"] for a in inserts] == [1, 2, 3, 4, 5, 6]
        assert [a["by"] for a in inserts] == ["Ann", "Bob", "Cy", "Ann", "Bob", "Cy"]
        assert any(a["blast"] for a in inserts)  # 4 slots: a blast within every 4 insertions
        status = json.loads(launcherd.ctl("game", "status", "--json", check=True).stdout)
        assert sum(p["cards_taken"] for p in status["players"]) == sum(a["cards"] for a in inserts)


def test_turns_faster_than_the_servo_are_one_move_to_the_latest_chair(tmp_path):
    """Aims that come while the servo still turns are not queued one per move (a burst of presses
    piled up a task each): one move at a time, to where the turn is by then."""
    async def scenario():
        launcher, service = table(tmp_path, servo=True)
        service.start({"type": "new", "rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]})
        await settle()
        launcher.aim_hold = asyncio.Event()
        first = len(launcher.aims())
        service.act({"type": "play", "card": "7", "color": "red"})  # Ann plays: to Bob, the servo turns
        await settle()
        for card in ("8", "9"):  # Bob, Cy play while it still turns: the turn passes to Cy, then Dee
            service.act({"type": "play", "card": card, "color": "red"})
        await settle()
        in_flight = launcher.aims()[first:]
        launcher.aim_hold.set()
        await settle()
        return in_flight, launcher.aims()[first:], service

    in_flight, aims, service = asyncio.run(scenario())
    assert in_flight == [1]  # Bob's chair, the first of the three
    assert aims == [1, 3]  # then straight to Dee's, where the turn is


# ---- an undo never moves the launcher, the aim servo included (#21) -----------------------------


def test_an_undo_never_turns_the_launcher_and_the_next_move_faces_whose_move_it_is(tmp_path):
    async def run():
        launcher, service = table(tmp_path, servo=True)
        service.start({"type": "new", "rules": "attack-mega-hit", "players": P3})
        service.act({"type": "play", "card": "7", "color": "red"})  # Bob's move: the launcher faces him
        service.act({"type": "play", "card": "8", "color": "red"})  # then Cy
        await settle()
        assert launcher.aims()[-1] == 2
        before = len(launcher.aims())
        service.undo()  # Bob's move again
        await settle()
        service.undo()  # Ann's
        await settle()
        assert len(launcher.aims()) == before, "an undo turned the launcher"
        assert service.status()["turn"] == "Ann"
        service.act({"type": "uno", "player": "Ann"})  # the next action: the launcher follows
        await settle()
        assert launcher.aims()[before:] == [0]

    asyncio.run(run())
