"""The table page in a real headless Chromium, against launcherd --sim and launcher-web processes.

Screenshots of every step go to tests/browser/artifacts/ (ignored by git), or to $BROWSER_ARTIFACTS.
"""

from __future__ import annotations

from harness.browser import ARTIFACTS, PHONE, expect_text, shot


def first_sections(page, n: int) -> str:
    return page.evaluate("""(n) => [...document.querySelectorAll('main > section:not([hidden])')]
        .map((s) => s.id).slice(0, n).join()""", n)


def use_code(page, code: str) -> None:
    page.fill("#code", code)
    page.click("#code-form button[type=submit]")


def test_a_game_from_a_phone(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    wrong = "00000000" if code != "00000000" else "11111111"
    page = browser_context.new_page()
    page.goto(stack.url + "/")
    expect_text(page, "#link", "live")
    expect_text(page, "#turn-name", "No game")

    # The page fits a 360 px phone and every control is a thumb's size.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "01-no-game")

    # A wrong code: the action is refused and the page says so.
    use_code(page, wrong)
    expect_text(page, "#code-status", "wrong code")
    # Without a game, the first game's steps, the join code (refused: still to give) and New game,
    # open, come first under the turn panel, as the top says.
    expect(page.locator("#new-game-box")).to_have_attribute("open", "")
    assert first_sections(page, 4) == "turn,steps,join-panel,new-game"
    page.fill("#new-players", "Ann, Bob, Cy, Dee")
    page.select_option("#new-rules", "attack-mega-hit")
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#banner", r"Refused: wrong join code")
    expect_text(page, "#turn-name", "No game")
    shot(page, "02-wrong-code")
    assert "wrong join code" in stack.web_log()

    # The right code: a 4-player attack-mega-hit game, set up from the page.
    use_code(page, code)
    expect_text(page, "#code-status", "accepted")
    # The code accepted, the join step is done: New game is the step now.
    expect(page.locator("#steps li[data-step='1']")).to_have_class("done")
    assert first_sections(page, 3) == "turn,steps,new-game"
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#turn-name", "^Ann$")
    expect_text(page, "#turn-what", "plays a card or presses")
    too_small = page.evaluate("""() => [...document.querySelectorAll('button, summary, input, select, a')]
        .filter((e) => e.offsetParent !== null && !(e.type === 'checkbox'))
        .filter((e) => e.getBoundingClientRect().height < 44).map((e) => e.id || e.textContent)""")
    assert too_small == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "03-new-game")

    # Ann plays a Hit 2: Bob owes 2 presses (or stacks).
    page.click("#cards button[data-card='hit-2']")
    page.click("#picker-choices button[data-choice='red']")  # nothing on the pile yet: its colour
    expect_text(page, "#turn-name", "^Bob$")
    expect_text(page, "#turn-what", "owes 2 presses or stacks a Hit card")
    expect_text(page, "td[data-owes='Bob']", "^2$")
    shot(page, "04-bob-owes-2")

    # Bob presses twice (the sim's button): nothing, then 3 cards; the turn moves on to Cy.
    page.click("#press")
    expect_text(page, "td[data-owes='Bob']", "^1$")
    expect_text(page, "#last-burst", "Bob pressed: nothing came out")
    page.click("#press")
    expect_text(page, "#turn-name", "^Cy$")
    expect_text(page, "td[data-cards='Bob']", "^3$")
    expect_text(page, "#last-burst", "Bob took 3 cards")
    shot(page, "05-turn-moved-on")

    # A reload mid-game shows the same table.
    page.reload()
    expect_text(page, "#turn-name", "^Cy$")
    expect_text(page, "td[data-cards='Bob']", "^3$")
    expect_text(page, "td[data-owes='Bob']", "^–$")
    expect(page.locator("#code")).to_have_value(code)
    shot(page, "06-after-reload")

    # Cy plays a last card: the 7 dealt, all red, laid under a Discard All. The hands are entered on
    # the page, as the count has them (Ann 6, Bob 7 and the 3 he took, Dee 7); the scores show the
    # round.
    page.check("#last-card")
    page.click("#cards button[data-card='discard-all']")  # on the red pile: its colour, no question
    expect_text(page, "#turn-name", "Cy won round 1")
    expect(page.locator("#end-round-box")).to_have_attribute("open", "")  # the step now: open by itself
    expect(page.locator("#winner")).to_have_value("Cy")
    page.fill("#hands input[name='Ann']", "10")
    page.fill("#hands input[name='Bob']", "7, hit-2, 1, 2, 3, 4, 5, 6, 8, 9")  # 85
    page.fill("#hands input[name='Dee']", "12")
    shot(page, "07-hands")
    page.click("#end-round-form button[type=submit]")
    expect_text(page, "td[data-total='Cy']", "^107$")
    expect_text(page, "#round-line", "Round 2")
    page.locator("#scores-panel").scroll_into_view_if_needed()
    shot(page, "08-scores")

    # The statistics, with their chart, drawn by the page.
    page.click("#stats-box summary")
    expect(page.locator("#stats svg.chart").first).to_be_visible()
    page.locator("#stats-panel").screenshot(path=str(ARTIFACTS / "09-stats.png"))


def test_the_table_display_and_the_qr_code(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]},
                      code)[0] == 200
    assert stack.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)[0] == 200
    assert stack.post("/api/game/play", {"card": "hit-1", "color": "red"}, code)[0] == 200
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{stack.url}/?view=table&code={code}")
    expect_text(page, "#turn-name", "^Cy$")
    expect_text(page, "#chain", r"Mega Hit: 3 hits on Cy")
    expect(page.locator("#act")).to_be_hidden()
    assert "code=" not in page.url, "the code stays out of the address bar"
    # The table display shows the join code and its QR code by itself (nobody taps a table display).
    expect(page.locator("#qr-figure")).to_be_visible()
    expect_text(page, "#table-code", rf"{code}$")
    shot(page, "10-table-display")
    expect_text(page, "#qr-url", rf"\?code={code}$")
    shot(page, "11-qr")


def test_the_page_says_reconnecting_while_launcherd_restarts(stack, browser_context):
    page = browser_context.new_page()
    page.goto(stack.url + "/")
    expect_text(page, "#link", "live")
    stack.stop_daemon()
    expect_text(page, "#link", "reconnecting")
    expect_text(page, "#launcher-state", "not reachable")
    shot(page, "12-reconnecting")
    stack.start_daemon()
    expect_text(page, "#link", "live")
    expect_text(page, "#launcher-state", "ready")


def test_a_launcherd_that_stops_while_the_page_loads_is_not_said_ready(stack, browser_context):
    """The page draws the state it read once the rules are loaded: launcherd stopped meanwhile, and
    that state (ready) is older than the link's news."""
    page = browser_context.new_page()
    page.route("**/api/game/rules*", lambda route: (stack.stop_daemon(), route.continue_()))
    page.goto(stack.url + "/")
    expect_text(page, "#link", "reconnecting")
    expect_text(page, "#launcher-state", "not reachable")


def test_wilds_ask_for_a_colour_and_attacks_for_a_player(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]},
                      code)[0] == 200
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    expect_text(page, "#turn-name", "^Ann$")
    page.click("#cards button[data-card='wild-attack']")
    expect_text(page, "#picker-title", "which colour")
    shot(page, "13-colour-picker")
    page.click("#picker-choices button[data-choice='red']")
    expect_text(page, "#picker-title", "which player")
    assert page.locator("#picker-choices button[data-choice='Ann']").count() == 0  # not the attacker
    page.click("#picker-choices button[data-choice='Cy']")
    expect_text(page, "#turn-name", "^Cy$")
    expect_text(page, "td[data-owes='Cy']", "^2$")
    # Cy owes 2: only what answers the Mega Hit is offered. A picker closed without a choice plays nothing.
    expect(page.locator("#cards button[data-card='wild']")).to_be_hidden()
    page.click("#cards button[data-card='hit-2']")
    page.click("#picker button.cancel")
    expect_text(page, "#turn-name", "^Cy$")
    assert stack.post("/api/game/status")[1]["top_card"] == "wild-attack"


def test_the_page_in_french_by_the_switch_remembered_and_back(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]},
                      code)[0] == 200
    assert stack.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)[0] == 200
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    expect_text(page, "#turn-what", "^owes 2 presses or stacks a Hit card$")  # the browser asks for English

    page.click(".langs button[data-lang='fr']")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect_text(page, "#turn-what", "^doit 2 appuis ou pose une carte Appuyer$")
    expect_text(page, "#launcher-state", "prêt : le joueur qui a la main appuie sur le bouton")
    expect_text(page, "h1", "^Lanceur de cartes$")
    expect_text(page, "#cards button[data-card='hit-2']", "Appuyer 2 fois")  # the French rule book's names
    expect_text(page, "#act h2", "^Jouer$")
    expect(page.locator("#code")).to_have_attribute("placeholder", "8 chiffres")
    # French is longer: the page still fits a phone and every control is still a thumb's size.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    too_small = page.evaluate("""() => [...document.querySelectorAll('button, summary, input, select, a')]
        .filter((e) => e.offsetParent !== null && !(e.type === 'checkbox'))
        .filter((e) => e.getBoundingClientRect().height < 44).map((e) => e.id || e.textContent)""")
    assert too_small == []
    shot(page, "14-french")

    # The choice is this phone's, kept over a reload.
    page.reload()
    expect_text(page, "#turn-what", "^doit 2 appuis")
    page.click("#press")
    expect_text(page, "#last-burst", "^Bob a appuyé : rien n'est sorti$")
    page.click(".langs button[data-lang='en']")
    expect_text(page, "#turn-what", "^owes 1 press$")
    expect_text(page, "#last-burst", "^Bob pressed: nothing came out$")


def test_a_french_browser_gets_the_page_in_french(stack, browser_context):
    page = browser_context.new_page()
    page.set_extra_http_headers({"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"})
    page.goto(stack.url + "/")
    expect_text(page, "#link", "en direct")
    expect_text(page, "#turn-name", "^Pas de partie$")
    expect_text(page, "#turn-what", "^pas encore de partie : lancez-en une ci-dessous$")
    shot(page, "15-french-browser")
