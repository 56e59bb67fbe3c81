"""launcher-web's HTTP API and WebSocket against real launcherd --sim and launcher-web processes."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from harness.waits import wait_until
from harness.web import SEQUENCE, Stack

from controller.web.guard import READ_PER_S, WRONG_CODES_ALLOWED, WRONG_CODES_WINDOW_S, CodeGuard  # noqa: E402
from controller.web.lan import parse_listen  # noqa: E402

FOUR = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]}


@pytest.fixture(scope="module")
def shared():
    running = Stack().start()
    yield running
    running.close()


@pytest.fixture
def code(shared) -> str:
    return shared.code()


@pytest.fixture
def game(shared, code) -> Stack:
    """A fresh 4-player match at the shared table, and a known hopper."""
    status, reply = shared.post("/api/game/new", {**FOUR, "force": True}, code)
    assert status == 200, reply
    assert shared.post("/api/reload", {"cards": 100}, code)[0] == 200
    return shared


def wrong(code: str) -> str:
    return "00000000" if code != "00000000" else "11111111"


# ---- reading: anyone ----------------------------------------------------------------------------


def test_state_without_a_game_shows_the_launcher_and_no_game(stack):
    status, state = stack.get("/api/state")
    assert status == 200
    assert state["connected"] is True and state["sim"] is True
    assert state["game"] is None and state["scores"] is None and state["last_burst"] is None
    assert state["launcher"]["state"] == "ready"
    assert state["launcher_advice"]["state"] == "ready" and state["launcher_advice"]["symbol"]


def test_state_is_game_scores_and_launcher_in_one_object(game, code):
    assert game.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)[0] == 200
    status, state = game.get("/api/state")
    assert status == 200
    assert state["game"]["turn"] == "Bob"
    assert state["game"]["owed"]["presses"] == 2
    assert state["scores"]["players"] == FOUR["players"]
    assert state["launcher"]["hopper"] == 100
    assert any("Bob owes 2 presses" in m["text"] for m in state["messages"])


def test_read_methods_need_no_code(game):
    for method, body in (("game/status", {}), ("game/rules", {"rules": "attack-2005"}), ("game/scores", {}),
                         ("game/log", {}), ("game/history", {}), ("game/stats", {})):
        status, reply = game.post(f"/api/{method}", body)
        assert status == 200, (method, reply)
    assert game.post("/api/game/status")[1]["players"][0]["name"] == "Ann"


def test_the_scores_as_csv(game, code):
    status, text, headers = game.request("GET", "/api/scores.csv")
    assert status == 200
    assert headers["Content-Type"].startswith("text/csv")
    assert "attachment" in headers["Content-Disposition"]
    assert text.splitlines()[0].startswith("round,winner,dealer,Ann points")


def test_the_scores_csv_without_a_game_is_not_found(stack):
    status, reply = stack.get("/api/scores.csv")
    assert status == 404 and reply["error"]["code"] == 2


def test_stats_of_the_match_and_the_history(game, code):
    game.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)
    game.post("/api/press", {}, code)
    status, stats = game.get("/api/stats")
    assert status == 200
    assert stats["match"]["players"]["Bob"]["presses"] == 1
    assert stats["match"]["players"]["Ann"]["hits_sent"] == 2
    assert stats["history"]["matches"] >= 1
    assert game.get(f"/api/stats?match={stats['match_id']}")[1]["match_id"] == stats["match_id"]


def test_stats_of_a_match_that_does_not_exist_or_is_not_a_number(game):
    assert game.get("/api/stats?match=9999")[0] == 404
    status, reply = game.get("/api/stats?match=two")
    assert status == 400 and "whole number" in reply["error"]["message"]


# ---- acting: the join code --------------------------------------------------------------------------


def test_every_action_without_the_code_is_refused_and_logged_once_a_minute(stack):
    paths = ["/api/game/new", "/api/game/play", "/api/game/undo", "/api/press", "/api/reload", "/api/code/check"]
    for path in paths:
        status, reply = stack.post(path, {})
        assert status == 403, path
        # Said to people: where to enter the code and where it is, no header's name (#40).
        said = reply["error"]["message"]
        assert reply["error"]["code"] == "join_code" and "Join code" in said and "launcherctl game code" in said
        assert "X-Join-Code" not in said
    # The first refusal at once; the others go into the next minute's count, not a line each.
    assert "refused POST /api/game/new from 127.0.0.1: no join code" in stack.web_log()
    assert stack.web_log().count("no join code") == 1


@pytest.mark.parametrize("given", ["wrong", "1234567", "abcdefgh", "123456789"])
def test_a_wrong_code_is_refused_and_logged_and_changes_nothing(game, code, given):
    given = wrong(code) if given == "wrong" else given
    before = game.get("/api/state")[1]["game"]
    status, reply = game.post("/api/game/play", {"card": "skip", "color": "red"}, given)
    assert status == 403 and "wrong join code" in reply["error"]["message"]
    assert "refused POST /api/game/play from 127.0.0.1: wrong join code" in game.web_log()
    assert game.get("/api/state")[1]["game"] == before


def test_the_code_check(game, code):
    assert game.post("/api/code/check", {}, code) == (200, {"valid": True})
    assert game.post("/api/code/check", {}, wrong(code))[0] == 403


def test_the_code_itself_is_never_served(game, code):
    for method in ("game/code", "game/code/check"):
        status, reply = game.post(f"/api/{method}", {"code": code}, code)
        assert status == 404 and code not in json.dumps(reply)


def test_a_rotated_code_locks_the_old_one_out_and_the_page_hears_of_it(stack):
    old = stack.code()

    async def watch() -> list[dict]:
        async with aiohttp.ClientSession() as session, session.ws_connect(stack.url + "/api/events") as ws:
            assert (await ws.receive_json(timeout=10))["params"] == {"connected": True}
            await asyncio.to_thread(subprocess.run, [str(Path(sys.executable).with_name("launcherctl")),
                                                     "--socket", str(stack.socket), "game", "code", "--new"],
                                    check=True, capture_output=True, timeout=30)
            return [await ws.receive_json(timeout=10)]

    events = asyncio.run(watch())
    assert events == [{"event": "game/code_changed", "params": {}}]
    new = stack.code()
    assert new != old
    assert stack.post("/api/game/new", FOUR, old)[0] == 403
    assert stack.post("/api/game/new", FOUR, new)[0] == 200


def test_too_many_wrong_codes_make_an_address_wait():
    now = [0.0]
    guard = CodeGuard(clock=lambda: now[0])
    for _ in range(WRONG_CODES_ALLOWED - 1):
        guard.begin("10.0.0.7")
    assert not guard.wait_s("10.0.0.7")
    guard.proved_right(guard.begin("10.0.0.7"))  # a right code gives its place back
    assert not guard.wait_s("10.0.0.7")
    guard.begin("10.0.0.7")
    assert guard.wait_s("10.0.0.7") == WRONG_CODES_WINDOW_S and not guard.wait_s("10.0.0.8")
    now[0] = WRONG_CODES_WINDOW_S + 1
    assert not guard.wait_s("10.0.0.7")


# ---- acting: every game method, and the daemon's refusals as 4xx ---------------------------------------


def test_a_turn_played_over_http(game, code):
    status, reply = game.post("/api/game/play", {"card": "hit-2", "color": "red"}, code)
    assert status == 200 and reply["turn"] == "Bob" and reply["messages"]
    status, outcome = game.post("/api/press", {}, code)
    assert status == 200 and outcome["source"] == "button" and outcome["cards"] in SEQUENCE
    state = game.get("/api/state")[1]
    assert state["last_burst"]["player"] == "Bob"
    assert state["last_burst"]["cards"] == outcome["cards"]
    assert game.post("/api/game/undo", {}, code)[0] == 200
    assert game.get("/api/state")[1]["game"]["players"][1]["presses"] == 0


def test_uno_catch_hint_first_attack_end_round_and_edit_round(shared, code):
    new = {**FOUR, "force": True, "first_card": "wild-attack"}
    assert shared.post("/api/game/new", new, code)[0] == 200
    status, reply = shared.post("/api/game/first-attack", {"color": "red", "target": "Cy"}, code)
    assert status == 200 and reply["turn"] == "Cy"
    assert shared.post("/api/game/uno", {"player": "Ann"}, code)[0] == 200
    status, reply = shared.post("/api/game/catch", {"player": "Ann"}, code)
    assert status == 409 and reply["error"]["code"] == 1  # Ann called Uno
    status, reply = shared.post("/api/game/hint", {"player": "Bob"}, code)
    assert status == 409 and "advice penalty" in reply["error"]["message"]
    # A round is won by a player who can have emptied their hand (#39): Ann lays seven red cards.
    assert shared.post("/api/game/new", {**FOUR, "force": True}, code)[0] == 200
    out = {"card": "discard-all", "color": "red", "last": True}
    assert shared.post("/api/game/play", out, code)[0] == 200
    hands = {"Bob": 10, "Cy": "7,hit-2,1,2,3,4,5", "Dee": 5}
    status, reply = shared.post("/api/game/end-round", {"winner": "Ann", "hands": hands}, code)
    assert status == 200, reply
    assert shared.get("/api/state")[1]["scores"]["totals"]["Ann"] == 77
    status, reply = shared.post("/api/game/edit-round", {"round": 1, "hands": {**hands, "Bob": 20}}, code)
    assert status == 200, reply
    assert shared.get("/api/state")[1]["scores"]["totals"]["Ann"] == 87


def test_abandon_resume_and_history(shared, code):
    assert shared.post("/api/game/new", {**FOUR, "force": True}, code)[0] == 200
    match = shared.get("/api/state")[1]["game"]["match_id"]
    assert shared.post("/api/game/abandon", {}, code)[0] == 200
    assert shared.get("/api/state")[1]["game"] is None
    assert shared.post("/api/game/resume", {"match": match}, code)[0] == 200
    assert shared.get("/api/state")[1]["game"]["match_id"] == match
    assert any(m["id"] == match for m in shared.post("/api/game/history")[1])


def test_the_repair_of_a_sound_log_is_refused(shared, code):
    status, reply = shared.post("/api/game/repair", {}, code)
    assert status == 409 and "nothing to repair" in reply["error"]["message"]


@pytest.mark.parametrize("body, status, error", [
    ({"card": "hit-9"}, 400, -32602),                  # not a card of the ruleset
    ({"card": "skip", "color": "red", "by": "Cy"}, 409, 1),  # not Cy's move
    ({"card": "skip", "colour": "red"}, 400, -32602),  # unknown parameter
    ({"card": "wild-attack", "color": "red", "target": "Zed"}, 404, 2),  # no such player
])
def test_daemon_refusals_come_back_as_4xx_with_the_daemons_error(game, code, body, status, error):
    got, reply = game.post("/api/game/play", body, code)
    assert got == status
    assert reply["error"]["code"] == error and reply["error"]["message"]


def test_an_unknown_method_and_a_body_that_is_not_an_object(game, code):
    status, reply = game.post("/api/game/nonsense", {}, code)
    assert status == 404 and reply["error"]["code"] == -32601
    assert game.request("POST", "/api/game/undo", code=code, raw=b"{not json")[0] == 400
    status, reply, _ = game.request("POST", "/api/game/undo", code=code, raw=b"[1, 2]")
    assert status == 400 and "JSON object" in reply["error"]["message"]


def test_a_damaged_game_log_is_shown_and_repaired_from_the_page():
    damaged = Stack()
    try:
        (damaged.state_dir / "game").mkdir(parents=True)
        (damaged.state_dir / "game" / "game.sqlite3").write_bytes(b"not a database, " * 512)
        damaged.start()
        code = damaged.code()
        state = damaged.get("/api/state")[1]
        assert state["game"] is None and state["game_damage"]["what"] and state["game_damage"]["todo"]
        assert damaged.post("/api/game/new", FOUR, code)[0] == 409  # refused until repaired
        status, reply = damaged.post("/api/game/repair", {}, code)
        assert status == 200 and reply["moved_to"]
        assert damaged.get("/api/state")[1]["game_damage"] is None
        assert damaged.post("/api/game/new", FOUR, code)[0] == 200
    finally:
        damaged.close()


def test_the_press_is_for_the_simulator_only():
    hardware = Stack(sim=False).start()
    try:
        code = hardware.code()
        assert hardware.get("/api/state")[1]["sim"] is False
        status, reply = hardware.post("/api/press", {}, code)
        assert status == 409 and reply["error"]["code"] == 3
        assert "simulated button" in reply["error"]["message"]
    finally:
        hardware.close()


def test_reload_sets_the_hopper_and_a_bad_count_is_refused(game, code):
    assert game.post("/api/reload", {"cards": 5}, code)[0] == 200
    state = game.get("/api/state")[1]
    assert state["launcher"]["hopper"] == 5
    assert state["game"]["reload_advice"]["reload"] is True
    assert game.post("/api/reload", {"cards": -1}, code)[0] == 400


def test_the_qr_code_needs_the_code_and_carries_it(game, code):
    assert game.request("GET", "/api/qr.svg")[0] == 403
    status, svg, headers = game.request("GET", "/api/qr.svg", code=code)
    assert status == 200 and headers["Content-Type"].startswith("image/svg+xml")
    assert svg.startswith("<svg")
    assert headers["X-Page-Url"] == f"{game.url}/?code={code}"


def test_the_page_and_its_files_are_served_without_a_cdn(shared):
    status, html = shared.get("/")
    assert status == 200 and "/static/app.js" in html
    texts = [html]
    scripts = re.findall(r'<script src="/static/([\w.-]+)"', html)
    assert "app.js" in scripts and len(scripts) > 1
    for name in (*scripts, "app.css"):
        status, text = shared.get(f"/static/{name}")
        assert status == 200
        texts.append(text)
    addresses = re.findall(r"(?:https?:)?//[\w.-]+\.\w+/[^\s\"')]*", "\n".join(texts))
    assert [a for a in addresses if not a.startswith("http://www.w3.org/")] == []  # XML namespaces only


# ---- live events and a daemon that restarts -----------------------------------------------------------


def test_events_are_relayed_over_the_websocket(game, code):
    async def watch() -> list[str]:
        async with aiohttp.ClientSession() as session, session.ws_connect(game.url + "/api/events") as ws:
            await ws.receive_json(timeout=10)
            status, _ = await asyncio.to_thread(game.post, "/api/game/play", {"card": "skip", "color": "red"}, code)
            assert status == 200
            names = []
            while "game/message" not in names:  # the action is published first, then what it says
                names.append((await ws.receive_json(timeout=10))["event"])
            return names

    assert "game/action" in asyncio.run(watch())


def test_a_daemon_restart_is_survived_and_said(stack):
    code = stack.code()
    assert stack.post("/api/game/new", FOUR, code)[0] == 200

    async def watch() -> list[dict]:
        async with aiohttp.ClientSession() as session, session.ws_connect(stack.url + "/api/events") as ws:
            seen = [await ws.receive_json(timeout=10)]
            await asyncio.to_thread(stack.stop_daemon)
            while seen[-1] != {"event": "link", "params": {"connected": False}}:
                seen.append(await ws.receive_json(timeout=10))
            status, reply = await asyncio.to_thread(stack.get, "/api/state")
            assert status == 503 and reply["connected"] is False
            assert "reconnecting" in reply["error"]["message"]
            status, reply = await asyncio.to_thread(stack.post, "/api/game/play", {"card": "skip", "color": "red"}, code)
            assert status == 503
            await asyncio.to_thread(stack.start_daemon)
            while seen[-1] != {"event": "link", "params": {"connected": True}}:
                seen.append(await ws.receive_json(timeout=15))
            return seen

    asyncio.run(watch())
    # launcherd serves its socket before the game process it starts has registered (it never
    # waits for it): the game is back once that process is, with the match from its log.
    def with_the_game():
        status, state = stack.get("/api/state")
        return status == 200 and state["game"] is not None and state

    state = wait_until(with_the_game, what="the game back in the page's state")
    assert state["game"]["turn"] == "Ann"  # the match came back from the log
    assert stack.post("/api/game/play", {"card": "skip", "color": "red"}, code)[0] == 200
    assert "lost launcherd" in stack.web_log()


# ---- the command line ------------------------------------------------------------------------------


def test_listen_addresses():
    assert parse_listen("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_listen("[::]:80") == ("::", 80)
    for bad in ("8080", "host:", ":8080", "host:99999", "host:http"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            parse_listen(bad)


def test_a_bad_listen_address_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "controller.web.server", "--listen", "nowhere"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "HOST:PORT" in result.stderr


# ---- what waits for a person's press ------------------------------------------------------------


def test_a_dispense_held_after_a_jam_shows_on_the_page_and_go_on_needs_the_code(stack):
    import threading

    from firmware.client import Client
    from harness.waits import wait_until

    def launcherd(method: str, params: dict | None = None):
        with Client(stack.socket, timeout=30) as client:
            return client.call(method, params)

    def page_state(predicate) -> dict:
        # Polled no faster than a reader without the code may read: a faster poll meets the 429.
        seen: list = []
        wait_until(lambda: predicate(seen.append(stack.get("/api/state")[1]) or seen[-1]), 20,
                   "the page never showed it", interval=1 / READ_PER_S)
        return seen[-1]

    code = stack.code()
    launcherd("sim/jam")
    replies: list = []

    def dispense() -> None:
        with Client(stack.socket, timeout=60) as client:
            replies.append(client.call("launcher/dispense", {"count": 3}))

    dealing = threading.Thread(target=dispense)
    dealing.start()
    page_state(lambda s: s["launcher"]["state"] == "jammed")
    launcherd("sim/clear")
    state = page_state(lambda s: s["launcher"]["pending"] is not None)
    assert state["launcher"]["pending"]["id"] == "dispense_waiting_press"
    assert state["launcher"]["pending_text"].startswith("the jam is cleared: press the button to go on")
    assert stack.post("/api/resume", {}, wrong(code))[0] == 403
    status, reply = stack.post("/api/resume", {}, code)
    assert status == 200 and reply["pending"] is None
    dealing.join(30)
    assert replies and replies[0]["cards"] == 3
