"""The page's "Turn up the first card" (issue #24): ``POST /api/turn-up`` has the launcher deal one
card face up, only with the table's join code and never more than one; the game then asks which card
it is (game/turn-up), and the favicon is served."""

from __future__ import annotations

from harness.waits import wait_until


def test_turn_up_deals_one_card_with_the_join_code_only(stack):
    code = stack.code()
    stack.call("launcher/reload", {"cards": 108})  # the whole deck: the deal waits for it (#40)
    assert stack.post("/api/game/new", {"rules": "classic", "players": ["Ann", "Bob"],
                                        "options": {"deal_pause_s": "0"}}, code)[0] == 200
    wait_until(lambda: not stack.post("/api/game/status")[1]["owed"], 30, "the deal never ended")
    before = stack.get("/api/state")[1]["launcher"]["cards_ejected"]
    assert stack.post("/api/turn-up", {}, None)[0] == 403
    status, reply = stack.post("/api/turn-up", {"count": 5}, code)  # whatever it asks: one card
    assert status == 200, reply
    state = stack.get("/api/state")[1]
    assert state["launcher"]["cards_ejected"] == before + 1
    game = state["game"]
    assert game["top_card"] is None and [p["cards_taken"] for p in game["players"]] == [7, 7]
    assert stack.post("/api/game/turn-up", {"card": "5", "color": "red"}, code)[0] == 200
    assert stack.post("/api/game/status")[1]["top_card"] == "5"


def test_the_favicon_is_served(stack):
    status, body, headers = stack.request("GET", "/favicon.ico")
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml") and "<svg" in body
