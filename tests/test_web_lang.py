"""launcher-web in the reader's language: the choice of language, and what is rendered in it.

The daemon's own texts are asked of it in the reader's language ("lang" on each request); the
message objects launcher-web keeps or relays (``game/message`` events) it renders itself.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer


from harness.web import Stack

from controller.text.messages import render  # noqa: E402
from firmware.client import reply_error  # noqa: E402
from controller.web.page_texts import (  # noqa: E402
    choose_language, launcher_advice, localized_params, own_text, words,
)
from controller.web.server import WebApp  # noqa: E402

OWES = {"id": "owes", "player": "Bob", "presses": 2}


@pytest.mark.parametrize("asked, accept, default, chosen", [
    ("fr", "en-US,en;q=0.9", "en", "fr"),            # the page's own choice wins
    (None, "fr-FR,fr;q=0.9,en;q=0.8", "en", "fr"),   # else the browser's
    (None, "de-DE,de;q=0.9,en;q=0.5", "fr", "en"),   # the first of the browser's the page has
    (None, "en;q=0.4,fr;q=0.8", "en", "fr"),         # by weight, not by place
    (None, "de, *", "fr", "fr"),                     # none of the page's: launcher-web's --lang
    (None, None, "fr", "fr"),                        # curl
    ("de", "fr;q=0", "en", "en"),                    # an unknown ?lang= and a refused French
])
def test_the_language_of_a_request(asked, accept, default, chosen):
    assert choose_language(asked, accept, default) == chosen


def test_an_event_with_a_message_object_is_rendered_in_each_readers_language():
    params = {"message": OWES, "text": "Bob owes 2 presses", "match_id": 3}
    assert localized_params(params, "fr") == {**params, "text": "Bob doit 2 appuis"}
    assert localized_params(params, "en")["text"] == "Bob owes 2 presses"


def test_an_event_with_text_only_or_an_unknown_id_keeps_its_text():
    assert localized_params({"text": "Bob owes 2 presses"}, "fr") == {"text": "Bob owes 2 presses"}
    newer = {"message": {"id": "said_by_a_newer_launcherd"}, "text": "as the daemon said it"}
    assert localized_params(newer, "fr")["text"] == "as the daemon said it"


def test_a_reason_object_gives_the_reason_in_the_readers_language():
    stalled = {"id": "stalled", "seconds": 2.5}
    params = {"state": "halted", "reason": "the daemon was stalled for 2.5 s; motor stopped",
              "reason_object": stalled}
    assert localized_params(params, "fr")["reason"] == render(stalled, "fr")
    advice = launcher_advice(params, "fr")
    assert advice["text"] == f"arrêté : {render(stalled, 'fr')} ; corrigez, puis touchez Réinitialiser"
    assert launcher_advice(params)["text"] == (
        "halted: the daemon was stalled for 2.5 s; motor stopped; fix it, then tap Reset")


def test_the_names_of_cards_and_colours_in_french():
    french = words("fr")
    assert french["lang"] == "fr"
    assert french["cards"]["hit-2"] == "Appuyer 2 fois" and french["cards"]["wild-attack"] == "Double attaque"
    assert french["colors"]["red"] == "rouge"
    assert words("en")["colors"]["red"] == "red"


def test_a_daemon_error_keeps_its_message_object_and_details():
    error = reply_error({"code": 1, "message": "le moteur a besoin de 2,4 s de repos",
                          "message_object": {"id": "motor_needs_rest", "seconds": 2.4}, "retry_after_s": 2.4})
    assert error.code == 1 and error.message == "le moteur a besoin de 2,4 s de repos"
    assert error.message_object == {"id": "motor_needs_rest", "seconds": 2.4}
    assert error.data == {"retry_after_s": 2.4, "message_object": {"id": "motor_needs_rest", "seconds": 2.4}}


# ---- against a stand-in for launcherd that records what it is asked ---------------------------------


class FakeDaemon:
    """Answers launcher-web's requests on a Unix socket and keeps them: events/subscribe, a right
    join code, and a refusal of every other method, as launcherd sends it."""

    REFUSAL = {"code": 1, "message": "c'est à Bob de jouer, pas à Cy",
               "message_object": {"id": "not_your_move", "player": "Bob", "by": "Cy"}}

    def __init__(self, path: Path):
        self.path = path
        self.requests: list[dict] = []

    async def start(self) -> None:
        self.server = await asyncio.start_unix_server(self._serve, str(self.path))

    async def _serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            self.requests.append(request)
            if request["method"] == "events/subscribe":
                reply = {"result": {"subscribed": True}}
            elif request["method"] == "game/code/check":
                reply = {"result": {"valid": True}}
            else:
                reply = {"error": self.REFUSAL}
            writer.write(json.dumps({"id": request["id"], **reply}).encode() + b"\n")
            await writer.drain()


def with_web(check, lang: str | None = None):
    """Run ``check(client, daemon, app)`` against a launcher-web on a FakeDaemon."""
    directory = Path(tempfile.mkdtemp(prefix="web-lang-", dir="/tmp"))

    async def main():
        daemon = FakeDaemon(directory / "launcher.sock")
        await daemon.start()
        app = WebApp(daemon.path, lang=lang)
        async with TestClient(TestServer(app.build())) as client:
            assert await app.link.wait_connected(10)
            await check(client, daemon, app)
        daemon.server.close()

    try:
        asyncio.run(asyncio.wait_for(main(), 30))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def test_the_daemon_is_asked_in_the_readers_language_and_its_refusal_keeps_its_object():
    async def check(client, daemon, app):
        response = await client.post("/api/game/play", json={"card": "skip", "by": "Cy"},
                                     headers={"X-Join-Code": "123456", "Accept-Language": "fr-FR,fr;q=0.9"})
        assert response.status == 409
        assert (await response.json())["error"] == FakeDaemon.REFUSAL
        play = next(r for r in daemon.requests if r["method"] == "game/play")
        assert play["lang"] == "fr" and play["params"] == {"card": "skip", "by": "Cy"}

    with_web(check)


def test_launcher_webs_own_refusals_in_the_readers_language():
    async def check(client, daemon, app):
        response = await client.post("/api/game/undo?lang=fr", json={})
        assert response.status == 403
        said = (await response.json())["error"]["message"]
        assert said.startswith("il faut le code de la table : saisissez-le sous Code de la table")
        response = await client.post("/api/game/undo", json={})
        english = (await response.json())["error"]["message"]
        assert english.startswith("this needs the table's join code: enter it under Join code")
        # Said to people: where the code is, and no header's name.
        assert "launcherctl game code" in english and "table display" in english
        assert "X-Join-Code" not in said + english

    with_web(check, lang="en")


def test_the_answers_a_page_kept_are_said_again_in_the_language_it_switched_to():
    """POST /api/render: the message objects of the answers and refusals a page shows (launcherd's
    and launcher-web's own, which carry one too), in the reader's language; no code needed, and
    what is no message renders as null rather than failing the rest (#40)."""
    async def check(client, daemon, app):
        refused = await (await client.post("/api/game/undo", json={})).json()
        own = refused["error"]["message_object"]
        assert own["id"] == "web:no_code"
        kept = [OWES, own, FakeDaemon.REFUSAL["message_object"], {"id": "no_such_message"}, {"id": "owes"}, "text"]
        response = await client.post("/api/render?lang=fr", json={"messages": kept})
        assert response.status == 200
        said = await response.json()
        assert said["lang"] == "fr"
        assert said["texts"][:3] == [render(OWES, "fr"), own_text("no_code", "fr"),
                                     render(FakeDaemon.REFUSAL["message_object"], "fr")]
        assert said["texts"][3:] == [None, None, None]
        assert not any(r["method"] == "game/code/check" for r in daemon.requests)
        too_many = await client.post("/api/render", json={"messages": [OWES] * 33})
        assert too_many.status == 400

    with_web(check, lang="en")


def test_each_page_gets_the_relayed_messages_in_its_own_language():
    async def check(client, daemon, app):
        async with client.ws_connect("/api/events?lang=fr") as french, client.ws_connect("/api/events") as plain:
            for ws in (french, plain):
                assert (await ws.receive_json(timeout=10))["event"] == "link"
            app._on_event("game/message", {"message": OWES, "text": "Bob owes 2 presses", "match_id": 1})
            assert (await french.receive_json(timeout=10))["params"]["text"] == "Bob doit 2 appuis"
            got = (await plain.receive_json(timeout=10))["params"]
            assert got == {"message": OWES, "text": "Bob owes 2 presses", "match_id": 1}

    with_web(check, lang="en")  # the second page's browser asks for no language: launcher-web's


# ---- against launcherd --sim ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def french_by_default():
    running = Stack(web_args=["--lang", "fr"]).start()
    yield running
    running.close()


def test_the_state_in_the_language_asked_else_launcher_webs(french_by_default):
    stack = french_by_default
    status, state = stack.get("/api/state")
    assert status == 200 and state["lang"] == "fr"
    assert state["launcher_advice"]["text"] == "prêt : le joueur qui a la main appuie sur le bouton"
    assert state["game_error"] == "pas encore de partie : lancez-en une ci-dessous"
    status, state = stack.get("/api/state?lang=en")
    assert state["lang"] == "en" and state["launcher_advice"]["text"].startswith("ready: ")
    status, state, _ = stack.request("GET", "/api/state", headers={"Accept-Language": "en-GB,en;q=0.9"})
    assert state["lang"] == "en"


def test_the_words_of_the_page(french_by_default):
    status, found = french_by_default.get("/api/words")
    assert status == 200 and found["cards"]["hit-2"] == "Appuyer 2 fois"
    assert french_by_default.get("/api/words?lang=en")[1]["lang"] == "en"


def test_a_ready_launcher_whose_press_deals_nothing_now_says_what_to_settle_instead():
    settle = {"id": "press_settles_first",
              "what": [{"id": "what_now_challenge", "player": "Bob", "cards": 4, "challenged": "Ann"}]}
    status = {"state": "ready", "press_means": "nothing", "press_reason": settle,
              "press_reason_text": render(settle, "en")}
    assert launcher_advice(status)["text"] == "a press draws no card now: Bob: accept 4 cards, or challenge Ann"
    assert launcher_advice(status, "fr")["text"] == render(settle, "fr")
    assert "presses the button" in launcher_advice({"state": "ready", "press_means": "policy"})["text"]
