"""The page for families (issue #40), at 360 px in both languages: a first-time table guided one
step at a time (the join code and where it is, New game, loading the cards, the first move), the
instruction that matters said whole, the launcher's reload prompted when the deal needs it, and
each player's hand in view.

Screenshots go to tests/browser/artifacts/, named 40-* and up.
"""

from __future__ import annotations

import re

import pytest

from harness.browser import ARTIFACTS, PHONE, expect_text

TEXTS = {
    "en": {"first": "enter the table's join code just below", "refused": "needs the table's join code", "where": "table display", "steps": "Join", "hand": "Hand",
           "load": r"Load 83 cards into the launcher", "reload_deal": r"Load the other 83 cards into the launcher",
           "deal": r"deal 7 cards each by hand \(28\), turn one up, load the other 83 into the launcher and reload"
                   r" the hopper: 83 cards", "owes": r"owes 2 presses"},
    "fr": {"first": "saisissez le code de la table juste en dessous", "refused": "il faut le code de la table", "where": "affichage de la table", "steps": "Rejoindre",
           "hand": "Main", "load": r"Chargez 83 cartes dans le lanceur", "reload_deal": r"Chargez les 83 cartes restantes",
           "deal": r"distribuez 7 cartes à chacun à la main \(28\), retournez-en une, chargez les 83 autres dans le"
                   r" lanceur et rechargez le réservoir : 83 cartes", "owes": r"doit 2 appuis"},
}


def view_shot(page, name: str) -> None:
    """What the phone's screen shows, not the whole page."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def visible_sections(page) -> list[str]:
    return page.evaluate("""[...document.querySelectorAll('main > section')]
        .filter((s) => s.offsetParent !== null).map((s) => s.id)""")


def whole(page, selector: str) -> bool:
    """Shown whole: nothing of its text cut off (no line clamp, no overflow)."""
    return page.evaluate("""(s) => { const e = document.querySelector(s); const style = getComputedStyle(e);
        return e.scrollHeight <= e.clientHeight + 1 && style.webkitLineClamp === "none"; }""", selector)


def hands(page) -> dict[str, str]:
    return page.evaluate("""Object.fromEntries([...document.querySelectorAll('td[data-hand]')]
        .map((td) => [td.dataset.hand, td.textContent]))""")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_first_game_guided_step_by_step_with_the_hands_in_view(stack, browser_context, lang):
    from playwright.sync_api import expect

    said = TEXTS[lang]
    page = browser_context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{stack.url}/")
    if lang == "fr":
        page.click(".langs button[data-lang='fr']")
    expect_text(page, "#link", "●")
    # A first-time table: the steps, then the join code (and where it is), then New game.
    expect(page.locator("#steps li[data-step='1']")).to_have_class("step-now")
    expect_text(page, "#now-what", said["first"])
    assert visible_sections(page)[:4] == ["turn", "steps", "join-panel", "new-game"]
    expect_text(page, "#join-help", said["where"])
    assert "launcherctl game code" in page.locator("#join-help").inner_text()

    # New game before the code: refused in plain words, where the code is said, no header's name;
    # the code's field is ready to type in.
    page.fill("#new-players", "Ann, Bob, Cy, Dee")
    page.select_option("#new-rules", "attack-mega-hit")
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#banner-text", said["refused"])
    refusal = page.locator("#banner-text").inner_text() + page.locator("#now-reply").inner_text()
    assert "X-Join-Code" not in refusal and said["where"] in refusal
    expect(page.locator("#code")).to_be_focused()
    field, bar = page.locator("#code").bounding_box(), page.locator("#now").bounding_box()
    assert field["y"] >= bar["y"] + bar["height"] and field["y"] + field["height"] <= PHONE["height"]  # in view
    view_shot(page, f"40-{lang}-refused-for-the-code")

    # The code: the join step is done, New game is the step now.
    page.fill("#code", stack.code())
    page.click("#code-form button[type=submit]")
    expect(page.locator("#steps li[data-step='1']")).to_have_class("done")
    expect(page.locator("#steps li[data-step='2']")).to_have_class("step-now")
    assert visible_sections(page)[:3] == ["turn", "steps", "new-game"]

    # New game: the deal's instruction whole in the bar, the reload prompted there and in the
    # launcher's panel, right under the turn, its count filled in.
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#turn-name", "^Ann$")
    expect(page.locator("#steps li[data-step='3']")).to_have_class("step-now")
    expect_text(page, "#now", said["deal"])  # the answer to New game, or the daemon's latest word
    for line in ("#now-reply", "#now-said", "#now-what"):
        assert page.locator(line).is_hidden() or whole(page, line), line
    assert page.evaluate("window.scrollY") == 0  # the page's top: the step now is there
    expect_text(page, "#now-launcher", said["load"])
    assert visible_sections(page)[:3] == ["turn", "steps", "launcher"]
    expect(page.locator("#reload-box")).to_have_attribute("open", "")
    expect_text(page, "#reload-text", said["reload_deal"])
    expect(page.locator("#reload-cards")).to_have_value("83")
    # Every hand in view: 7 each as dealt, beside the cards taken.
    expect_text(page, "#players thead", said["hand"])
    assert hands(page) == {"Ann": "7", "Bob": "7", "Cy": "7", "Dee": "7"}
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    view_shot(page, f"41-{lang}-load-the-cards")

    # Reloaded: the prompt goes, the cards to play come right under the turn.
    page.click("#reload-form button[type=submit]")
    expect(page.locator("#now-launcher")).to_be_hidden()
    expect(page.locator("#steps li[data-step='4']")).to_have_class("step-now")
    assert visible_sections(page)[:3] == ["turn", "steps", "act"]
    assert stack.call("status/get")["hopper"] == 83

    # The first move: the steps are over; the hands follow the play and the presses.
    page.click("#cards button[data-card='hit-2']")
    page.click("#picker-choices button[data-choice='red']")
    expect_text(page, "#turn-what", said["owes"])
    expect(page.locator("#steps")).to_be_hidden()
    assert hands(page)["Ann"] == "6"
    while page.locator("#turn-name").inner_text() == "Bob":  # Bob presses until the turn moves on
        taken = stack.call("launcher/press").get("cards", 0)
        if taken:
            break
    expect_text(page, "#turn-name", "^Cy$")
    bob = stack.call("game/status")["hand_sizes"][1]
    expect_text(page, "td[data-hand='Bob']", f"^{bob[0]}$")
    assert bob[0] > 7
    # A Discard All lays any number of its colour: Cy's hand is a range now.
    page.click("#cards button[data-card='discard-all']")  # on the red pile: its colour, no question
    expect_text(page, "td[data-hand='Cy']", r"^\d+–6$")
    view_shot(page, f"42-{lang}-cards")
    page.locator("#players-panel").screenshot(path=str(ARTIFACTS / f"42-{lang}-hands.png"))
    assert page.errors == []


def test_the_language_switch_says_the_log_and_the_last_answer_in_the_new_language(stack, browser_context):
    from playwright.sync_api import expect

    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={stack.code()}")
    expect_text(page, "#link", "live")
    page.fill("#new-players", "Ann, Bob")
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#turn-name", "^Ann$")
    page.click("#undo")  # nothing to undo: an answer in English under the bar
    expect(page.locator("#now-reply")).to_be_visible()
    expect_text(page, "#messages", "Bob deals")
    page.click(".langs button[data-lang='fr']")
    expect_text(page, "#messages", "distribue")
    assert not re.search(r"\bdeals\b|\bthe launcher\b", page.locator("#messages").inner_text())
    expect(page.locator("#now-reply")).to_be_hidden()  # the answer said in English is not left
    assert not re.search(r"\bdeal\b|\bthe hopper\b", page.locator("#now").inner_text())
    view_shot(page, "43-fr-switched")


def test_blast_without_a_blaster_is_the_blasters_view_in_french(stack, browser_context):
    """The English one is test_every_ruleset's Blast test: here the same view in French."""
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "blast", "players": ["Ann", "Bob", "Cy"]}, code)[0] == 200
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    page.click(".langs button[data-lang='fr']")
    expect_text(page, "#link", "en direct")
    expect_text(page, "#launcher-title", "^Blaster$")
    expect_text(page, "#blaster-last", "0 sur 4")
    expect_text(page, "#players th.col-presses", "^Insertions$")
    for launcher_only in ("#launcher-state", "#hopper", "#reload-box", "#last-burst", "#now-launcher"):
        expect(page.locator(launcher_only)).to_be_hidden()
    assert "appuie sur le bouton" not in page.inner_text("body")
    page.locator("#launcher").screenshot(path=str(ARTIFACTS / "44-fr-blast-without-a-blaster.png"))
