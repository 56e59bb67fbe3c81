"""Nothing at the table needs a terminal (issue #24): reloading with the count the game proposes,
a match set aside and resumed, and the table display's join code and QR code of the page's address
on the table's network. Real launcherd --sim and launcher-web processes, headless Chromium at 360 px.
"""

from __future__ import annotations

import re

import pytest

from controller.web.lan import page_url
from harness.web import Stack
from harness.browser import TIMEOUT_MS, expect_text, shot
PLAYERS = ["Ann", "Bob", "Cy", "Dee"]


@pytest.fixture
def stack_on_every_address():
    running = Stack(listen_host="0.0.0.0").start()
    yield running
    running.close()


def test_a_reload_prefilled_with_the_count_the_game_proposes(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": PLAYERS}, code)[0] == 200
    proposed = stack.post("/api/game/refill-count", {}, code)[1]["cards"]
    assert isinstance(proposed, int) and proposed > 0
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    expect_text(page, "#turn-name", "^Ann$")
    # The deal asks to load the rest of the deck: the reload is open by itself (#40).
    expect(page.locator("#reload-box")).to_have_attribute("open", "")
    expect(page.locator("#reload-cards")).to_have_value(str(proposed), timeout=TIMEOUT_MS)
    expect_text(page, "#reload-proposed", f"proposes {proposed} cards")
    shot(page, "40-reload")
    page.click("#reload-form button[type=submit]")
    expect_text(page, "#now-reply", f"Reloaded: {proposed} cards")
    expect_text(page, "#hopper", f"holds about {proposed} cards")
    box = page.locator("#now").bounding_box()
    header = page.locator("header.bar").bounding_box()
    assert box is not None and box["y"] <= max(20, header["height"] + 1)  # the answer is next to the bar, in view


def test_a_match_set_aside_and_resumed_from_the_page(stack, browser_context):
    from playwright.sync_api import expect

    code = stack.code()
    assert stack.post("/api/game/new", {"rules": "attack-mega-hit", "players": PLAYERS}, code)[0] == 200
    assert stack.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)[0] == 200
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    expect_text(page, "#turn-name", "^Bob$")
    page.click("#new-game-box summary")  # setting a match aside is under New game, folded in play
    page.click("#abandon")
    expect_text(page, "#picker-title", "Set this match aside")
    page.click("#picker-choices button[data-choice='yes']")
    expect_text(page, "#turn-name", "No game")
    expect(page.locator("#matches-panel")).to_be_visible()
    expect(page.locator("#turn-color")).to_be_hidden()  # no game, no colour
    # Without a game, the matches set aside come right under the turn panel and the first game's
    # steps, then New game.
    assert page.evaluate("""[...document.querySelectorAll('main > section')].map((s) => s.id).slice(0, 4).join()""") == (
        "turn,steps,matches-panel,new-game")
    expect_text(page, "#matches li[data-match='1']", "^Match 1 · UNO Attack Mega Hit · Ann, Bob, Cy, Dee · 0 rounds")
    shot(page, "41-set-aside")
    page.click("#matches button[data-resume='1']")
    expect_text(page, "#turn-name", "^Bob$")
    expect_text(page, "td[data-owes='Bob']", "^2$")
    expect_text(page, "#now-reply", "resumed")
    expect(page.locator("#matches-panel")).to_be_hidden()


def test_the_table_display_shows_the_code_and_a_qr_of_the_lan_address(stack_on_every_address, browser_context):
    from playwright.sync_api import expect

    stack = stack_on_every_address
    code = stack.code()
    lan = page_url("0.0.0.0", stack.port)
    assert lan is not None and "127.0.0.1" not in lan, "this machine has no address on a network"
    assert stack.request("GET", "/favicon.ico")[0] == 200  # no 404 in the browser's log
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    # Without the code, the table display says how to give it, and shows no QR code.
    page.goto(f"{stack.url}/?view=table")
    expect_text(page, "#table-code", "Enter the join code once")
    expect(page.locator("#qr-figure")).to_be_hidden()
    page.goto(f"{stack.url}/?view=table&code={code}")  # the browser on the Pi itself: 127.0.0.1
    expect_text(page, "#table-code", rf"Join code: {code}$")
    expect(page.locator("#qr-figure")).to_be_visible()
    expect_text(page, "#qr-url", "^" + re.escape(f"{lan}?code={code}") + "$")
    assert "127.0.0.1" not in page.locator("#qr-url").inner_text()
    shot(page, "42-table-display-lan-qr")


def test_the_statistics_minutes_are_not_clipped(stack, browser_context):
    """"4.8 min" after the longest bar ends inside the chart (it was cut to "4.8 r" at 360 px)."""
    page = browser_context.new_page()
    page.goto(stack.url + "/")
    expect_text(page, "#link", "live")
    overflow = page.evaluate("""() => {
        const chart = barChart('Minutes per round', [{ name: 'Round 1', value: 4.8 }, { name: 'Round 2', value: 12.5 }], ' min', true);
        document.querySelector('#stats').append(chart);
        document.querySelector('#stats-box').open = true;
        const width = chart.viewBox.baseVal.width;
        return [...chart.querySelectorAll('text')].map((t) => t.getBBox()).map((b) => b.x + b.width - width);
    }""")
    assert max(overflow) <= 0, overflow


def test_a_halted_launcher_is_said_in_the_bar_and_reset_from_the_page(stack, browser_context):
    from playwright.sync_api import expect

    from firmware.client import Client

    code = stack.code()
    page = browser_context.new_page()
    page.goto(f"{stack.url}/?code={code}")
    expect_text(page, "#link", "live")
    expect(page.locator("#now-launcher")).to_be_hidden()
    with Client(stack.socket, timeout=30) as client:
        client.call("system/estop", {"reason": "a hand in the slot"})
    expect_text(page, "#now-launcher", "halted: a hand in the slot; fix it, then tap Reset")
    page.click("#now-launcher")
    page.click("#reset")
    expect(page.locator("#now-launcher")).to_be_hidden(timeout=TIMEOUT_MS)
    expect_text(page, "#launcher-state", "ready")
