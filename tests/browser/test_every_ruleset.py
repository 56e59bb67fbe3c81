"""Every ruleset played only from the page at 360 px (issue #24), against launcherd --sim and
launcher-web as real processes, in Debian's headless Chromium: nobody types a command.

Screenshots go to tests/browser/artifacts/ (ignored by git), named 30-* and up.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

from harness.browser import ARTIFACTS, PHONE, TIMEOUT_MS, expect_text, shot
from harness.web import Stack


def phone(stack, browser_context):
    """A phone that joined with the code, its page errors collected."""
    page = browser_context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{stack.url}/?code={stack.code()}")
    expect_text(page, "#link", "live")
    return page


def new_game_from_the_page(page, rules: str, players: str, **options: str) -> None:
    """The New game form, open and first while there is no game; options chosen by their words."""
    from playwright.sync_api import expect

    expect(page.locator("#new-game-box")).to_have_attribute("open", "")
    page.fill("#new-players", players)
    page.select_option("#new-rules", rules)
    if options:  # the rules' options are folded under Settings (a short page, #40): one tap opens them
        page.click("#new-more summary")
    for name, value in options.items():
        page.select_option(f"#new-options select[data-option='{name}']", value)
    # Plain words: no option keys, no section or seed numbers, a line of explanation for each option.
    form = page.locator("#new-game-form").inner_text()
    assert not re.search(r"_|§|\(\d{3}\)|--", form), form
    assert page.locator("#new-options .help").count() == page.locator("#new-options select").count()
    page.click("#new-game-form button[type=submit]")


def load_the_deck_from_the_page(page, cards: int) -> None:
    """A dealer game waits for its whole deck in the hopper (#40): the launcher panel's reload is
    open, filled in with the deck's size; once it is reloaded, the button's press deals."""
    from playwright.sync_api import expect

    expect(page.locator("#reload-box")).to_have_attribute("open", "")
    expect(page.locator("#reload-cards")).to_have_value(str(cards))
    page.click("#reload-form button[type=submit]")
    expect_text(page, "#now-reply", rf"\b{cards}\b")  # "✔ Reloaded: 108 cards", "Rechargé : 108 cartes"
    page.click("#press")


def tap_card(page, card: str, color: str | None = None, target: str | None = None) -> None:
    page.click(f"#cards button[data-card='{card}']")
    if color:
        page.click(f"#picker-choices button[data-choice='{color}']")
    if target:
        page.click(f"#picker-choices button[data-choice='{target}']")


def bar_in_view(page) -> None:
    """The "whose move / what now" bar is on screen wherever the page is scrolled: at its top, or
    under the header when the page is not scrolled (the step now is at the page's top, #40)."""
    box = page.locator("#now").bounding_box()
    top = 0 if page.evaluate("window.scrollY") > 130 else 130
    # Its texts said whole, not cut to two lines (#40): an undo that asks to put cards back and
    # reload is said in full, in two fifths of the screen at most.
    assert box is not None and 0 <= box["y"] < 20 + top and box["height"] < PHONE["height"] * 0.4, box
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def view_shot(page, name: str) -> None:
    """What the phone's screen shows (not the whole page): the bar where the thumb is."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def visible_ids(page, *ids: str) -> dict[str, bool]:
    return {i: page.locator(f"#{i}").is_visible() for i in ids}


def turn_up_first_card(page, card: str, color: str) -> None:
    page.click("#turn-up")
    expect_text(page, "#picker-title", "Which card was turned up")
    page.click(f"#picker-choices button[data-choice='{card}']")
    page.click(f"#picker-choices button[data-choice='{color}']")
    expect_text(page, "#turn-color", f"^colour: {color}$")


def end_round_by_tapping(page, hands: dict[str, list[str]], winner: str | None = None) -> None:
    """End of round: each hand tapped card by card from the ruleset's cards, in the form that opened
    by itself when the round ended (the step now, #40)."""
    from playwright.sync_api import expect

    expect(page.locator("#end-round-box")).to_have_attribute("open", "")
    if winner:
        page.select_option("#winner", winner)
    for player, cards in hands.items():
        for card in cards:
            page.click(f"#hands button[data-add-card='{player}']")
            page.click(f"#picker-choices button[data-choice='{card}']")
    page.locator("#end-round").screenshot(path=str(ARTIFACTS / f"39-hands-{page.locator('#round-line').inner_text()[:7].strip().replace(' ', '-')}-{'-'.join(hands)}.png"))
    page.click("#end-round-form button[type=submit]")


def plays_at_the_table(stack, plays: str) -> None:
    """Plays told through the API where the page is not what the test is about: ``"Bob 3 green,
    Cy uno, ..."``, each by the player named (launcherd refuses a move that is someone else's), an
    Uno call as ``<player> uno``."""
    for told in plays.split(","):
        player, card, *color = told.split()
        if card == "uno":
            stack.call("game/uno", {"player": player})
        else:
            stack.call("game/play", {"card": card, "color": color[0], "by": player})


def test_a_double_tap_on_a_card_plays_it_once(stack, browser_context):
    page = phone(stack, browser_context)
    new_game_from_the_page(page, "classic", "Ann, Bob, Cy", deal_pause_s="0")
    load_the_deck_from_the_page(page, 108)
    expect_text(page, "td[data-cards='Cy']", "^7$")
    turn_up_first_card(page, "5", "red")
    # A red 7 on the red 5 asks nothing. The second tap of a double tap would be Bob's: a 7 on
    # the 7 asking him its colour, or, for a card that asks nothing, played for him.
    page.dblclick("#cards button[data-card='7']")
    expect_text(page, "#now", r"Bob.*play a card, or press to draw one")
    assert page.locator("#picker").get_attribute("open") is None
    log = stack.call("game/log")["actions"]
    assert [a["action"]["card"] for a in log if a["action"]["type"] == "play"] == ["7"]
    # Bob's own tap on the same card, in his turn, is his play, however soon it comes.
    tap_card(page, "7", "green")  # on a 7, a 7 may be any colour: this one asks
    expect_text(page, "#now", r"Cy.*play a card, or press to draw one")
    log = stack.call("game/log")["actions"]
    assert [a["action"]["card"] for a in log if a["action"]["type"] == "play"] == ["7", "7"]
    assert page.errors == []


def test_classic_a_round_and_the_wild_draw_four_both_ways(stack, browser_context):
    from playwright.sync_api import expect

    page = phone(stack, browser_context)
    new_game_from_the_page(page, "classic", "Ann, Bob, Cy", deal_pause_s="0")
    load_the_deck_from_the_page(page, 108)
    expect_text(page, "td[data-cards='Cy']", "^7$")  # the launcher dealt 7 each
    expect_text(page, "#now", r"Ann starts once the first card is turned up")
    shot(page, "30-classic-dealt")

    # The first card: the launcher deals it, the table says which it is.
    turn_up_first_card(page, "5", "red")
    expect_text(page, "#now", r"Ann.*play a card, or press to draw one")
    assert visible_ids(page, "turn-up", "accept", "challenge") == {"turn-up": False, "accept": False, "challenge": False}
    assert page.locator("#cards button").count() > 0
    assert not page.locator("#last-card").is_visible()  # launcherd knows Ann holds 7: no last card

    # Ann: Wild Draw Four. Bob may only accept or challenge Ann.
    tap_card(page, "wild-draw-four", "blue")
    expect_text(page, "#now", r"Bob.*accept 4 cards, or challenge Ann")
    expect_text(page, "#now-what", "^accept 4 cards, or challenge Ann$")
    expect_text(page, "#turn-color", "^colour named: blue$")  # the colour the Wild named
    assert page.locator("#cards button").count() == 0
    assert visible_ids(page, "draw", "pass", "press", "accept", "challenge") == {
        "draw": False, "pass": False, "press": False, "accept": True, "challenge": True}
    # The tap was made far down, in the cards: the decision's buttons came into view, under the bar.
    bar = page.locator("#now").bounding_box()
    for decision in ("#accept", "#challenge"):
        box = page.locator(decision).bounding_box()
        assert bar["y"] + bar["height"] <= box["y"] and box["y"] + box["height"] <= PHONE["height"], (decision, box, bar)
    bar_in_view(page)
    shot(page, "31-classic-challenge-or-accept")
    view_shot(page, "31-classic-challenge-or-accept-screen")

    # Bob challenges; Ann's hand shows it was illegal: Ann takes 4 back, and the page says so.
    page.click("#challenge")
    expect_text(page, "#now-reply", "Bob challenges")
    expect(page.locator("#legal")).to_be_visible()
    page.click("#illegal")
    expect_text(page, "#now-reply", "illegal")
    expect_text(page, "td[data-cards='Ann']", "^11$")
    bar_in_view(page)
    view_shot(page, "32-classic-illegal-screen")

    # Bob draws exactly one card from the page, then keeps it and passes.
    expect_text(page, "#now", r"Bob.*play a card, or press to draw one")
    page.click("#draw")
    expect_text(page, "td[data-cards='Bob']", "^8$")
    expect_text(page, "#now", r"Bob.*play the card just drawn, or pass")
    assert not page.locator("#draw").is_visible()
    page.click("#pass")
    expect_text(page, "#now", r"Cy.*play a card, or press to draw one")

    # Cy: Wild Draw Four; Ann accepts: dealt 4, the turn goes past her.
    tap_card(page, "wild-draw-four", "green")
    expect_text(page, "#now", r"Ann.*accept 4 cards, or challenge Cy")
    page.click("#accept")
    expect_text(page, "td[data-cards='Ann']", "^15$")
    expect_text(page, "#now", r"Bob.*play a card, or press to draw one")

    # Bob goes out: the launcher dealt every card, so the count is exact (Bob 8, Cy 6, Ann 14) and
    # Bob plays all 8 down, the others playing between (twice Bob's Skip passes Cy by): Cy keeps 1
    # card, Ann 7. The round's plays are told through the API; its end is the page's.
    plays_at_the_table(stack, "Bob 3 green, Cy 3 yellow, Ann 8 yellow, Bob skip yellow, Ann 6 yellow,"
                              " Bob 6 blue, Cy 2 blue, Ann 2 red, Bob 9 red, Cy 9 green, Ann 1 green,"
                              " Bob skip green, Ann 4 green, Bob 4 red, Cy 7 red, Ann 7 blue,"
                              " Bob uno, Bob 1 blue, Cy uno, Cy 1 yellow, Ann 5 yellow, Bob 5 green")
    expect_text(page, "#turn-name", "Bob won round 1")
    # The hands are tapped, not typed: Ann 7+20+0+8+20+20+3 = 78, Cy 50.
    end_round_by_tapping(page, {"Ann": ["7", "skip", "0", "8", "reverse", "draw-two", "3"], "Cy": ["wild"]},
                         winner="Bob")
    expect_text(page, "td[data-total='Bob']", "^128$")
    expect_text(page, "#round-line", "Round 2")
    assert page.errors == []


def test_despicable_me_4_minions_counts_from_the_page(stack, browser_context):
    page = phone(stack, browser_context)
    new_game_from_the_page(page, "despicable-me-4", "Ann, Bob, Cy", deal_pause_s="0")  # the sim holds its 112
    expect_text(page, "td[data-cards='Cy']", "^7$")
    # An action card turned up first is ignored: the page asks for the next one.
    page.click("#turn-up")
    page.click("#picker-choices button[data-choice='skip']")
    page.click("#picker-choices button[data-choice='blue']")
    expect_text(page, "#now-reply", "Skip|skip")
    expect_text(page, "#now", r"Ann starts once the first card is turned up")
    turn_up_first_card(page, "4", "purple")
    tap_card(page, "wild-mega-minions", "orange")
    expect_text(page, "#now", r"Wild Mega Minions Power: say how many cards were discarded by Bob and Cy")
    assert page.locator("#cards button").count() == 0
    # A count for each other player, not for Ann who played it.
    assert page.locator("#minions-form input").evaluate_all("(l) => l.map((i) => i.name)") == ["Bob", "Cy"]
    page.fill("#minions-form input[name='Bob']", "2")
    page.fill("#minions-form input[name='Cy']", "1")
    shot(page, "33-dm4-minions")
    page.click("#minions-form button[type=submit]")
    expect_text(page, "td[data-cards='Bob']", "^9$")
    expect_text(page, "td[data-cards='Cy']", "^8$")
    expect_text(page, "#now", r"Bob.*play a card, or press to draw one")
    # Each discarded as many as they were dealt: Ann holds 6, Bob and Cy 7, counted exactly. Bob
    # plays all 7 down, the others playing between (Cy's Skip passes Ann by once), told through the
    # API: Ann and Cy keep a card each.
    plays_at_the_table(stack, "Bob 3 orange, Cy 3 blue, Ann 8 blue, Bob 8 yellow, Cy skip yellow,"
                              " Bob 2 yellow, Cy 2 purple, Ann 6 purple, Bob 6 orange, Cy 1 orange,"
                              " Ann 1 blue, Bob 5 blue, Cy 5 purple, Ann 9 purple, Bob uno, Bob 7 purple,"
                              " Cy uno, Cy 7 yellow, Ann uno, Ann 4 yellow, Bob 4 orange")
    expect_text(page, "#turn-name", "Bob won round 1")
    end_round_by_tapping(page, {"Ann": ["9"], "Cy": ["wild-draw-four"]}, winner="Bob")
    expect_text(page, "td[data-total='Bob']", "^59$")
    assert page.errors == []


def test_blast_without_a_blaster_insertions_and_a_blast_from_the_page(stack, browser_context):
    page = phone(stack, browser_context)
    new_game_from_the_page(page, "blast", "Ann, Bob, Cy")
    expect_text(page, "#now", r"Ann starts once the first card is turned up: say which card it is")
    turn_up_first_card(page, "5", "red")  # turned up by hand: no launcher in Blast
    expect_text(page, "#now", r"Ann.*play a card, or insert one in the blaster")
    # No blaster fitted: the table records insertions, and the panel is the blaster's (its slots as
    # the insertions told them), not the launcher's: no button to press, no hopper, no presses.
    expect_text(page, "#launcher-title", "^Blaster$")
    expect_text(page, "#blaster-last", "0 of 4")
    assert page.locator("#blaster-slots .slot").count() == 4
    assert visible_ids(page, "launcher-state", "hopper", "reload-box", "last-burst", "now-launcher") == dict.fromkeys(
        ["launcher-state", "hopper", "reload-box", "last-burst", "now-launcher"], False)
    expect_text(page, "#players th.col-presses", "^Inserts$")  # each player's insertions, not presses
    assert "presses the button" not in page.inner_text("body")
    tap_card(page, "draw-one")  # on the red pile: its colour, no question
    expect_text(page, "#now", r"Bob.*inserts 1")
    assert page.locator("#cards button").count() == 0  # Bob's turn is the insertion
    page.click("#insert-safe")
    expect_text(page, "#now", r"Cy.*play a card, or insert one")
    expect_text(page, "#blaster-last", "1 of 4")
    assert page.locator("#blaster-slots .slot.full").count() == 1
    page.click("#insert-blast")
    expect_text(page, "#picker-title", "How many cards came out")
    page.click("#picker-choices button[data-choice='3']")
    expect_text(page, "td[data-cards='Cy']", "^3$")
    expect_text(page, "#now", r"Ann.*play a card, or insert one")
    expect_text(page, "#blaster-last", "0 of 4")  # the blast emptied the slots
    expect_text(page, "td[data-hand='Cy']", "^10$")  # 7 dealt and the blast's 3
    assert page.locator("tr[data-player='Cy'] td.col-presses").inner_text() == "1"  # one insertion
    shot(page, "34-blast")
    # Ann holds 6 (the table dealt 7; she played one): her last card is a Discard Color laying the
    # rest, all red, beneath it.
    page.check("#last-card")
    tap_card(page, "discard-color")  # on the red pile: its colour, no question
    expect_text(page, "#turn-name", "Ann won round 1")
    assert page.locator("#cards button").count() == 0
    # The hands as counted: Bob the 7 dealt (his insertion was safe), Cy 7 and the blast's 3.
    # Bob 50+1+4+6+9+20+20 = 110, Cy 2+3+5+7+8+9+1+20+20+50 = 125.
    end_round_by_tapping(page, {"Bob": ["wild-blast", "1", "4", "6", "9", "skip", "reverse"],
                                "Cy": ["2", "3", "5", "7", "8", "9", "1", "draw-one", "skip", "wild"]})
    expect_text(page, "td[data-total='Ann']", "^235$")
    assert page.errors == []


def test_a_press_in_a_dealer_game_deals_exactly_one_card(stack, browser_context):
    """May fail until the game side's dealer press (issue #24 (a)) is merged: the sim's fixed
    sequence gives 0, then 3 cards; in a dealer game each press is a draw of exactly one."""
    page = phone(stack, browser_context)
    new_game_from_the_page(page, "classic", "Ann, Bob, Cy", deal_pause_s="0")
    load_the_deck_from_the_page(page, 108)
    expect_text(page, "td[data-cards='Cy']", "^7$")
    turn_up_first_card(page, "5", "red")
    page.click("#press")
    expect_text(page, "td[data-cards='Ann']", "^8$")
    page.click("#pass")
    expect_text(page, "#now", r"Bob.*play a card, or press to draw one")
    page.click("#press")
    expect_text(page, "#now", r"Bob.*play the card just drawn, or pass")
    expect_text(page, "td[data-cards='Bob']", "^8$")
    status = stack.post("/api/game/status")[1]
    assert [p["cards_taken"] for p in status["players"]] == [8, 8, 7]


class BlasterStack(Stack):
    """launcherd --sim driving the card blaster ([device] kind = "blaster") and its table page."""

    def __init__(self) -> None:
        super().__init__(extra_config='[device]\nkind = "blaster"\n')

    def insert(self, slot: int) -> dict:
        """A card put in a slot of the simulated blaster (sim/insert): its outcome."""
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(self.socket))
            client.sendall(json.dumps({"id": 1, "method": "sim/insert", "params": {"slot": slot}}).encode() + b"\n")
            return json.loads(client.makefile().readline())["result"]


@pytest.fixture
def blaster_stack():
    running = BlasterStack().start()
    yield running
    running.close()


def test_blast_with_a_blaster_fitted_shows_its_slots_and_what_it_did(blaster_stack, browser_context):
    from playwright.sync_api import expect

    page = phone(blaster_stack, browser_context)
    new_game_from_the_page(page, "blast", "Ann, Bob, Cy")
    expect(page.locator("#blaster-slots .slot")).to_have_count(4)
    expect_text(page, "#now", r"Ann starts once the first card is turned up: say which card it is")
    turn_up_first_card(page, "5", "red")
    expect_text(page, "#now", r"Ann.*insert one in the blaster")
    # The blaster counts its insertions itself: the page offers no way to type one.
    assert visible_ids(page, "insert-safe", "insert-blast", "press") == {
        "insert-safe": False, "insert-blast": False, "press": False}
    first = blaster_stack.insert(1)  # Ann puts a card in slot 1
    if first["outcome"] == "blast":
        expect_text(page, "#blaster-last", r"slot 1, it blasted \d+ cards?")
    else:
        expect_text(page, "#blaster-last", "slot 1, safe")
    expect_text(page, "#now", r"Bob.*insert one in the blaster")
    shot(page, "35-blast-with-a-blaster")
    assert page.errors == []


def test_attack_catch_offered_only_for_a_last_card(stack, browser_context):
    """Catch is offered against a player who may be on their last card and did not say Uno: in
    UNO Attack the controller counts 7 dealt + cards taken - cards played (controller/rules/game.py)."""
    from playwright.sync_api import expect

    page = phone(stack, browser_context)
    new_game_from_the_page(page, "attack-mega-hit", "Ann, Bob, Cy, Dee")
    # A first card of seven: nobody to catch.
    tap_card(page, "5", "red")
    expect_text(page, "#now", r"Bob.*plays a card or presses")
    expect(page.locator("#catch")).to_be_hidden()
    # Five turns round the table: Bob plays his fifth card (two left), then Cy, Dee and Ann.
    for _ in range(5):
        for player in ("Bob", "Cy", "Dee", "Ann"):
            expect_text(page, "#now", rf"{player}.*plays a card or presses")
            tap_card(page, "5", "red")  # a 5 on a 5: which colour is asked
        if _ == 0:
            expect(page.locator("#catch")).to_be_hidden()
    expect_text(page, "#now", r"Bob.*plays a card or presses")
    tap_card(page, "5", "red")  # Bob's sixth card, one left, no Uno
    expect(page.locator("#catch")).to_have_text("Catch Bob (no Uno)", timeout=TIMEOUT_MS)


def test_attack_the_end_of_a_mega_hit_chain_is_said(stack, browser_context):
    from playwright.sync_api import expect

    page = phone(stack, browser_context)
    new_game_from_the_page(page, "attack-mega-hit", "Ann, Bob, Cy, Dee")
    expect_text(page, "#now", r"Ann.*plays a card or presses")
    tap_card(page, "5", "red")
    # A Mega Hit chain: Bob plays a Hit 2, Cy stacks one on it, Dee owes 4; Dee presses (0, then 3 cards).
    # Bob taps at once, as at the table: the page plays it after Ann's 5, on the pile the 5 made.
    tap_card(page, "hit-2")
    expect_text(page, "#now", r"Cy.*owes 2 presses or stacks a Hit card")
    # Only what answers a Mega Hit: the Hit cards (and Wild Attack-Attack), no number.
    assert page.locator("#cards button:visible").evaluate_all("(l) => l.map((b) => b.dataset.card)") == [
        "hit-1", "hit-2", "wild-attack"]
    tap_card(page, "hit-2", "blue")  # the same card, or an answer to a Hit: any colour
    expect_text(page, "#chain", r"Mega Hit: 4 hits on Dee \(started by Bob")
    page.click("#press")
    expect_text(page, "#last-burst", "Dee pressed: nothing came out")
    # Pressing closed the chain: no stacking. Waited for: the launcher's burst can reach the page
    # before the game layer has applied it.
    expect(page.locator("#cards button:visible")).to_have_count(0, timeout=TIMEOUT_MS)
    page.click("#press")
    # The chain is over: the page says why the turn goes where it goes.
    expect_text(page, "#now-said", r"Mega Hit over: play resumes after the first attacker, Bob: Cy plays")
    expect_text(page, "#turn-name", "^Cy$")
    bar_in_view(page)
    view_shot(page, "36-attack-chain-over-screen")
    # Undo, tapped far down the page, is answered in the bar that stays in view.
    page.locator("#undo").scroll_into_view_if_needed()
    page.click("#undo")
    expect_text(page, "#now-reply", r"undone: .*Dee")
    view_shot(page, "38-undo-answered-screen")
    bar_in_view(page)
    assert page.errors == []


def test_attack_a_card_tapped_before_the_last_play_is_answered_follows_it(stack, browser_context):
    """Bob taps his card the moment Ann's is played, before her play is answered (a slow Wi-Fi, held
    here). The page sends Bob's play after Ann's is applied, and decides it on the state Ann's play
    brought: Hit 2 on her red 5 takes its red, no question. It used to decide on the state still
    drawn, whose empty pile asked Bob a colour, and Bob's play waited behind that question."""
    page = phone(stack, browser_context)
    new_game_from_the_page(page, "attack-mega-hit", "Ann, Bob, Cy, Dee")
    expect_text(page, "#now", r"Ann.*plays a card or presses")
    held = []

    def hold_anns_play(route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/game/play", hold_anns_play)
    with page.expect_request("**/api/game/play"):
        tap_card(page, "5", "red")
    tap_card(page, "hit-2")
    assert len(held) == 1  # Ann's play, unanswered while Bob tapped
    held[0].continue_()
    expect_text(page, "#now", r"Cy.*owes 2 presses or stacks a Hit card")
    expect_text(page, "#turn-color", "^colour: red$")
    assert not page.locator("#picker").is_visible()
    assert page.errors == []


def test_the_wild_draw_four_moment_in_french(stack, browser_context):
    page = phone(stack, browser_context)
    page.click(".langs button[data-lang='fr']")
    expect_text(page, "#new-rules option[value='classic']", "^UNO classique$")
    new_game_from_the_page(page, "classic", "Ann, Bob, Cy", deal_pause_s="0")
    load_the_deck_from_the_page(page, 108)
    expect_text(page, "td[data-cards='Cy']", "^7$")
    expect_text(page, "#now", r"Ann commence une fois la première carte retournée")
    page.click("#turn-up")
    page.click("#picker-choices button[data-choice='5']")
    page.click("#picker-choices button[data-choice='red']")
    tap_card(page, "wild-draw-four", "blue")
    expect_text(page, "#now", r"Bob.*acceptez 4 cartes, ou contestez Ann")
    expect_text(page, "#now-what", "^acceptez 4 cartes, ou contestez Ann$")  # the name once, in the bar
    expect_text(page, "#accept", "^Bob accepte 4 cartes$")
    expect_text(page, "#challenge", "^Bob conteste Ann$")
    expect_text(page, "#turn-color", "couleur demandée : bleu")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    too_small = page.evaluate("""() => [...document.querySelectorAll('button, summary, input, select, a')]
        .filter((e) => e.offsetParent !== null && !(e.type === 'checkbox'))
        .filter((e) => e.getBoundingClientRect().height < 44).map((e) => e.id || e.textContent)""")
    assert too_small == []
    shot(page, "37-classic-french")
    assert page.errors == []
