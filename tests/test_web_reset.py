"""The page's Reset (issue #20): ``POST /api/reset`` leaves halted like ``launcherctl reset``, and
only with the table's join code, as every other action of the page; the page shows it while halted."""

from __future__ import annotations

from pathlib import Path

from harness.waits import wait_until

from firmware.client import Client  # noqa: E402

STATIC = Path(__file__).parents[1] / "controller" / "web" / "static"


def test_reset_from_the_page_needs_the_join_code(stack):
    code = stack.code()
    with Client(stack.socket, timeout=30) as client:
        client.call("system/estop", {"reason": "a hand in the slot"})
    seen: list = []
    wait_until(lambda: seen.append(stack.get("/api/state")[1]) or seen[-1]["launcher"]["state"] == "halted", 20,
               "the page never showed halted")
    assert seen[-1]["launcher"]["reason"] == "a hand in the slot"
    assert stack.post("/api/reset", {}, None)[0] == 403
    assert stack.post("/api/reset", {}, "00000000" if code != "00000000" else "11111111")[0] == 403
    with Client(stack.socket, timeout=30) as client:
        assert client.call("status/get")["state"] == "halted"
    status, reply = stack.post("/api/reset", {}, code)
    assert status == 200 and reply["state"] == "ready"
    status, reply = stack.post("/api/reset", {}, code)
    assert status == 409 and "not halted" in reply["error"]["message"]


def test_the_page_has_a_reset_control_shown_while_halted_in_both_languages():
    page = (STATIC / "index.html").read_text()
    script = "\n".join(path.read_text() for path in sorted(STATIC.glob("*.js")))
    assert 'id="reset"' in page and 'data-i18n="resetLauncher"' in page
    assert 'resetLauncher: "Reset"' in script and 'resetLauncher: "Réinitialiser"' in script
    assert 'state.launcher.state === "halted"' in script and 'act("/api/reset")' in script
