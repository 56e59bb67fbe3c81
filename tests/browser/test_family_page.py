"""The page for families (issue #40), at 360 px in both languages: a first-time table guided one
step at a time (the join code and where it is, New game, loading the cards, the first move), the
instruction that matters said whole, the launcher's reload prompted when the deal needs it, and
each player's hand in view.

Screenshots go to tests/browser/artifacts/, named 40-* and up.
"""

from __future__ import annotations

import re

import pytest

from controller.match.scores import parse_hand
from harness.browser import ARTIFACTS, PHONE, expect_text, shot

TEXTS = {
    "en": {"first": "enter the table's join code just below", "refused": "needs the table's join code", "where": "table display", "steps": "Join", "hand": "Hand",
           "load": r"Load 83 cards into the launcher", "reload_deal": r"Load the other 83 cards into the launcher",
           "deal": r"deal 7 cards each by hand \(28\), turn one up, load the other 83 into the launcher and reload"
                   r" the hopper: 83 cards", "owes": r"owes 2 presses",
           "won": "Dee won round 1", "round2": "Round 2"},
    "fr": {"first": "saisissez le code de la table juste en dessous", "refused": "il faut le code de la table", "where": "affichage de la table", "steps": "Rejoindre",
           "hand": "Main", "load": r"Chargez 83 cartes dans le lanceur", "reload_deal": r"Chargez les 83 cartes restantes",
           "deal": r"distribuez 7 cartes à chacun à la main \(28\), retournez-en une, chargez les 83 autres dans le"
                   r" lanceur et rechargez le réservoir : 83 cartes", "owes": r"doit 2 appuis",
           "won": "Dee a gagné la manche 1", "round2": "Manche 2"},
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


def page_height(page) -> int:
    return page.evaluate("document.documentElement.scrollHeight")


def on_first_screen(page, target) -> None:
    """Whole on the phone's first screen, the page at its top: no scrolling to reach it."""
    page.evaluate("window.scrollTo(0, 0)")
    box = (page.locator(target) if isinstance(target, str) else target).bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (target, box)


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
    assert visible_sections(page)[:3] == ["steps", "join-panel", "new-game"]  # no game: the bar is the turn
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
    assert visible_sections(page)[:2] == ["steps", "new-game"]
    on_first_screen(page, "#new-game-form button[type=submit]")  # the step's form whole, Start in view
    heights = {"setup": page_height(page)}

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
    on_first_screen(page, "#reload-form button[type=submit]")
    heights["load"] = page_height(page)
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
    for card in page.locator("#cards button").all():  # every card to play on the first screen
        on_first_screen(page, card)

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
    page.evaluate("window.scrollTo(0, 0)")
    view_shot(page, f"42-{lang}-cards")
    page.locator("#players-panel").screenshot(path=str(ARTIFACTS / f"42-{lang}-hands.png"))
    # In play, the rest is folded under its label, one tap away: the page is two screens at most
    # (1,405 px in English, 1,463 in French at this step; 2,960-3,550 in play before the folds, #40).
    heights["play"] = page_height(page)
    for box in ("#end-round-box", "#messages-box", "#stats-box", "#new-game-box", "#join-box"):
        assert page.locator(box).get_attribute("open") is None, box
        assert page.locator(f"{box} > summary").is_visible(), box
    assert heights["play"] <= 2 * PHONE["height"], heights
    page.click("#messages-box > summary")
    expect(page.locator("#messages li").first).to_be_visible()
    shot(page, f"45-{lang}-in-play-whole-page")

    # The round's end: the hands' form opens by itself, first, and says what to type in the names
    # the box prints, never a card's id; "+ card" writes the name, and launcherd reads it.
    page.check("#last-card")
    page.click("#cards button[data-card='discard-all']")  # Dee's 7, all red, under it
    page.click("#picker-choices button[data-choice='red']")  # on a Discard All: its colour is asked
    expect_text(page, "#turn-name", said["won"])
    expect(page.locator("#end-round-box")).to_have_attribute("open", "")
    assert visible_sections(page)[:2] == ["turn", "end-round"]
    ids = [c["card"] for c in stack.call("game/rules", {"rules": "attack-mega-hit"})["rulesets"][0]["cards"]]
    fields = page.evaluate("""() => [document.querySelector('#end-round-form').innerText,
        ...[...document.querySelectorAll('#hands input')].map((i) => i.placeholder)].join(' ')""")
    named = [card for card in ids if "-" in card and re.search(rf"\b{card}\b", fields)]
    assert named == [], (named, fields)
    names = stack.request("GET", f"/api/words?lang={lang}")[1]["cards"]
    for card in ("7", "reverse", "wild"):
        assert names.get(card, card) in page.locator("#hands-help").inner_text()
    page.click("#hands button[data-add-card='Ann']")
    page.click("#picker-choices button[data-choice='hit-2']")
    expect(page.locator("#hands input[name='Ann']")).to_have_value(names["hit-2"])
    ann = f"{names['hit-2']}, 1, 2, 3, 4, 5"  # her 6 cards, the first by its name as tapped
    page.fill("#hands input[name='Ann']", ann)
    page.fill("#hands input[name='Bob']", "40")
    page.fill("#hands input[name='Cy']", "20")
    page.evaluate("window.scrollTo(0, 0)")
    view_shot(page, f"46-{lang}-end-of-round")
    heights["end of round"] = page_height(page)
    page.click("#end-round-form button[type=submit]")
    expect_text(page, "#round-line", said["round2"])
    assert stack.call("game/scores")["totals"]["Dee"] == parse_hand("attack-mega-hit", ann)["points"] + 40 + 20
    print(lang, "page heights at 360x740:", heights)
    assert page.errors == []


# Words of one language's texts that the other's never use: the game's and launcherd's catalogues,
# launcher-web's own texts (controller/web/page_texts.py) and the page's (static/texts.js).
WORD = re.compile(r"[^\W\d_]{3,}")


def catalogue_texts(lang: str) -> list[str]:
    from controller.web import page_texts
    from firmware import i18n

    texts = [catalogue.text(message_id, lang, n) for catalogue in i18n.catalogues() for message_id in catalogue
             for n in (1, 2)]
    texts += [text[lang] for text in page_texts.TEXTS.values()]
    texts += [advice[1][lang] for table in (page_texts.LAUNCHER_ADVICE, page_texts.BLASTER_ADVICE)
              for advice in table.values()]
    return texts


def page_texts_of(page, lang: str) -> list[str]:
    """The page's own texts in ``lang``, a function's by its source (the same names in both)."""
    return page.evaluate("""(lang) => { const out = [];
        const walk = (v) => { if (typeof v === 'string') out.push(v); else if (typeof v === 'function') out.push(String(v));
          else if (v && typeof v === 'object') Object.values(v).forEach(walk); };
        walk(TEXTS[lang]); return out; }""", lang)


def only_in(page, lang: str, other: str) -> set[str]:
    def words(texts):
        return {w for text in texts for w in WORD.findall(text.lower())}
    return words(catalogue_texts(lang) + page_texts_of(page, lang)) - words(catalogue_texts(other) + page_texts_of(page, other))


def other_language_in_view(page, lang: str, other: str, players: list[str]) -> set[str]:
    shown = {w for w in WORD.findall(page.evaluate("document.body.innerText").lower())}
    return (shown & only_in(page, other, lang)) - {p.lower() for p in players}


def test_the_language_switch_says_the_answers_the_refusal_and_the_log_again(stack, browser_context):
    """EN -> FR with a refusal in view, FR -> EN with a press's answer and a play's: nothing of the
    language left stays on the page (#40); the answers are said again, not hidden."""
    from playwright.sync_api import expect

    players = ["Ann", "Bob"]
    page = browser_context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(f"{stack.url}/?code={stack.code()}")
    expect_text(page, "#link", "live")
    page.fill("#new-players", ", ".join(players))
    page.click("#new-game-form button[type=submit]")
    expect_text(page, "#turn-name", "^Ann$")
    page.click("#reload-form button[type=submit]")
    expect_text(page, "#now-reply", "Reloaded")
    # Ann's "last card" from seven: launcherd refuses, under the bar (once: the banner, which says
    # what no tap answers, stays folded).
    page.check("#last-card")
    page.click("#cards button[data-card='5']")
    page.click("#picker-choices button[data-choice='red']")
    expect_text(page, "#now-reply", "^✖ ")
    expect(page.locator("#banner")).to_be_hidden()
    refusal = page.locator("#now-reply").inner_text()
    page.click(".langs button[data-lang='fr']")
    page.wait_for_selector("body[data-said-in='fr']", state="attached")
    expect(page.locator("#now-reply")).to_be_visible()  # said again, not hidden
    expect_text(page, "#now-reply", "^✖ ")
    assert page.locator("#now-reply").inner_text() != refusal
    assert page.locator("#banner-text").text_content() == page.locator("#now-reply").inner_text()
    assert other_language_in_view(page, "fr", "en", players) == set()
    view_shot(page, "43-fr-switched-with-a-refusal")

    # In French: a press, answered with what came out, then a play, answered by launcherd.
    page.uncheck("#last-card")
    page.click("#press")
    expect_text(page, "#now-reply", "le bouton a été pressé")
    expect(page.locator("#banner")).to_be_hidden()
    page.click("#cards button[data-card='5']")
    page.click("#picker-choices button[data-choice='red']")
    expect_text(page, "#turn-name", "^Bob$")
    expect_text(page, "#now-reply", "5")
    played = page.locator("#now-reply").inner_text()
    page.click("#messages-box > summary")
    page.click(".langs button[data-lang='en']")
    page.wait_for_selector("body[data-said-in='en']", state="attached")
    expect_text(page, "#now-reply", "^✔ ")
    assert page.locator("#now-reply").inner_text() != played
    expect_text(page, "#messages", "deals")
    assert other_language_in_view(page, "en", "fr", players) == set()
    view_shot(page, "43-en-switched-back-with-the-answer")
    assert page.errors == []


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
