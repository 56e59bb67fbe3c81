"""The demo's screen follows every change, also those that emit no event."""

from __future__ import annotations

import asyncio
import re
import io
import subprocess
import sys
from pathlib import Path

from harness.launcherd import ThreadDaemon
from harness.waits import wait_until


class Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_screen_shows_the_reloaded_hopper_without_another_event(tmp_path):
    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, "[sim]\nhopper = 40\n") as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.call("launcher/dispense", {"count": 3})
        running.in_loop(view.on_key, "r")
        running.wait_for(lambda s: s["hopper"] == 40)
        running.in_loop(lambda: None)  # the request's done callback has run by the next turn
        last = screen.getvalue().rsplit("\x1b[H", 1)[-1]
    assert "hopper    40 (estimate)" in last


def test_demo_and_daemon_do_not_import_each_other():
    code = "import firmware.tools.demo, sys; print('firmware.daemon.driver' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def empty_hopper_screen(tmp_path, keys: str = "") -> tuple[str, str]:
    """The demo's screen over a launcherd --sim whose hopper is empty after a launch (``keys``
    typed first): the join code, and the last frame drawn."""
    from firmware.tools.demo import DemoView

    config = '[sim]\nhopper = 0\n[ejection]\nprofile = "fixed"\nsequence = [3]\n[timing]\nfeed_timeout_ms = 200\n'
    with ThreadDaemon(tmp_path, config) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.in_loop(view.fetch_join_code)
        code = running.call("game/code")["code"]
        for key in keys:
            running.in_loop(view.on_key, key)
        running.call("launcher/launch")  # nothing in the hopper: the launcher says it is empty
        running.wait_for(lambda s: s["state"] == "empty")
        running.in_loop(view.draw)
        return code, frame(screen)


def test_the_screen_shows_the_table_page_with_its_join_code_and_how_to_refill(tmp_path, monkeypatch):
    monkeypatch.setenv("LAUNCHER_WEB_URL", "http://127.0.0.1:8080/")
    monkeypatch.setenv("LAUNCHER_DEMO_VOICE", "voice: silent, no sound card")
    code, last = empty_hopper_screen(tmp_path)
    assert f"table page: http://127.0.0.1:8080/   join code {code}" in last
    assert "l twice (lid open, lid closed)" in last
    assert "  voice: silent, no sound card" in last  # what make demo found about its voice


def frame(screen: Screen) -> str:
    """The last screen drawn."""
    return screen.getvalue().rsplit("\x1b[H", 1)[-1]


def test_every_key_answers_with_a_line_at_once(tmp_path):
    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, "[sim]\nhopper = 40\n") as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        # Each line is on the screen when the key's handler returns, before anything it causes.
        for key, line in [("r", "r: reload 40 cards"), ("j", "j: the next card will jam"),
                          ("c", "c: no card is stuck"), ("s", "s: sleep"), ("w", "w: wake"),
                          ("z", "z: not a key of the demo")]:
            running.in_loop(view.on_key, key)
            assert line in frame(screen), key
        running.in_loop(lambda: None)  # the reload's done callback has run by the next turn
        assert "reloaded: the hopper holds 40 cards" in frame(screen)


BURST_OF_THREE = '[sim]\nhopper = 40\n[ejection]\nprofile = "fixed"\nsequence = [3]\n'


def jam_after_a_burst(running: ThreadDaemon, view, screen: "Screen", said: str) -> str:
    """A press (a burst of 3), then a jam of the next; the screen once it says ``said``: the status
    says jammed before the view has had the jam's events, so it is drawn until it has."""
    running.in_loop(running.daemon.subscribe, view.on_event)
    running.in_loop(view.on_key, " ")
    running.wait_for(lambda s: s["last"] is not None and s["state"] == "ready")
    running.in_loop(view.on_key, "j")
    running.in_loop(view.on_key, " ")
    running.wait_for(lambda s: s["state"] == "jammed")

    def drawn() -> str | None:
        running.in_loop(view.draw)
        shown = frame(screen)
        return shown if said in shown else None
    return wait_until(drawn, what=f"the screen saying {said!r}")


def test_a_jam_says_that_c_clears_it_and_events_are_short_lines(tmp_path):
    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, BURST_OF_THREE) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        jammed = jam_after_a_burst(running, view, screen, "a card is stuck in the exit slot: c clears it")
        running.in_loop(view.on_key, "c")
        running.wait_for(lambda s: s["state"] != "jammed")
        running.in_loop(view.draw)
        cleared = frame(screen)
    assert "press 1: 3 cards" in jammed
    assert "c clears it" in jammed.split("recent events:")[0]  # the advice, above the events
    assert "a card is stuck in the exit slot: c clears it" in jammed.split("recent events:")[1]
    assert "c: the stuck card is pulled out" in cleared
    for raw in ("request=None", "press_id=", "previous="):
        assert raw not in jammed + cleared


def test_message_objects_in_events_are_shown_through_the_catalogue():
    from firmware import i18n
    from firmware.tools.demo import event_line

    reason = i18n.message("refused_sleep")
    line = event_line("refused", {"event": "SleepNow", "request": None, "state": "launching", "reason": reason})
    assert line == f"refused: {i18n.render(reason)}"
    assert "refused_sleep" not in line and "{" not in line
    assert event_line("card", {"press_id": 1, "count": 1}) is None
    assert event_line("game/whatever", {"seq": None, "text": "Bob presses"}) == "game/whatever: text=Bob presses"


def test_the_lid_opened_and_closed_refills_whatever_is_left_as_the_readme_says(tmp_path):
    from firmware.tools.demo import DemoView

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert "`l` twice (lid open, lid closed) refills the hopper at any time, empty or not" in " ".join(readme.split())
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 112\n") as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.call("launcher/dispense", {"count": 10})
        running.in_loop(view.on_key, "l")
        running.wait_for(lambda s: s["lid_open"])
        running.in_loop(view.on_key, "l")
        running.wait_for(lambda s: not s["lid_open"] and s["hopper"] == 112)
        running.in_loop(view.draw)
    assert "refilled: 112 cards (102 before)" in frame(screen)


def test_the_screen_speaks_french_when_the_demo_is_asked_to(tmp_path, monkeypatch):
    """``make demo DEMO_LANG=fr`` (LC_MESSAGES=fr_FR.UTF-8): the screen's own words too, not only
    the catalogues' texts it shows."""
    from firmware import i18n

    monkeypatch.setenv("LAUNCHER_WEB_URL", "http://127.0.0.1:8080/")
    monkeypatch.setenv("LC_MESSAGES", "fr_FR.UTF-8")
    monkeypatch.setattr(i18n, "_daemon_language", None)
    assert i18n.daemon_language() == "fr"
    code, last = empty_hopper_screen(tmp_path, keys="j")
    assert f"page de la table : http://127.0.0.1:8080/   code de la table {code}" in last
    assert "j : la prochaine carte se coincera" in last
    assert "réservoir vide : remplissez-le, puis l deux fois" in last
    assert "Espace/Entrée appuyer" in last and "derniers événements" in last
    for english in ("recent events", "table page", "hopper empty", "presses   ", "Space/Enter"):
        assert english not in last, english


def test_under_demo_lang_fr_every_line_of_the_screen_is_french(tmp_path, monkeypatch):
    """``make demo DEMO_LANG=fr``: the voice line as make demo gets it (controller.voice.sound --lang
    fr), the launcher's states and outcomes in the catalogue's French words, and no English word of
    the catalogues anywhere but in the commands the screen shows."""
    from controller.text.messages import render
    from firmware import i18n
    from test_plain_refusals import english_only_words

    voice = subprocess.run([sys.executable, "-m", "controller.voice.sound", "--lang", "fr", "--mute"],
                           capture_output=True, text=True, timeout=30).stdout.strip()
    assert voice == render({"id": "demo_voice_muted"}, "fr")
    monkeypatch.setenv("LAUNCHER_DEMO_VOICE", voice)
    monkeypatch.setenv("LAUNCHER_WEB_URL", "http://127.0.0.1:8080/")
    monkeypatch.setenv("LC_MESSAGES", "fr_FR.UTF-8")
    monkeypatch.setattr(i18n, "_daemon_language", None)
    from firmware.tools.demo import DemoView

    word = {key: render({"id": key}, "fr") for key in ("state:jammed", "state:launching", "outcome:burst")}
    with ThreadDaemon(tmp_path, BURST_OF_THREE) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        last = jam_after_a_burst(running, view, screen,
                                 f"{word['state:jammed'].upper()} (avant : {word['state:launching']})")
    assert f"  {voice}" in last.splitlines()
    assert f"état      {word['state:jammed'].upper()}" in last
    assert f"dernier   {word['outcome:burst']}," in last
    # Commands stay as typed: the launcherctl command line, make's and launcher-voice's options.
    said = re.sub(r"\S*launcher\S*|--\S+|\S+=\S+|/\S*", " ",
                  "\n".join(line for line in last.splitlines() if "launcherctl --socket" not in line))
    english = english_only_words()
    assert sorted({w for w in re.findall(r"[^\W\d_]{3,}", said) if w.casefold() in english}) == []


# ---- the demo's own lines: firmware's catalogue (demo_*), by message id (#40) ------------------------

LABELS = ("state", "led", "chime", "motor", "presses", "last", "hopper", "slots")


def french_screen(monkeypatch) -> None:
    """The demo as make demo DEMO_LANG=fr starts it (LC_MESSAGES=fr_FR.UTF-8)."""
    from firmware import i18n

    monkeypatch.setenv("LC_MESSAGES", "fr_FR.UTF-8")
    monkeypatch.setattr(i18n, "_daemon_language", None)
    monkeypatch.delenv("LAUNCHER_WEB_URL", raising=False)
    monkeypatch.delenv("LAUNCHER_DEMO_VOICE", raising=False)


def said(message_id: str, **params) -> str:
    from controller.text.messages import render

    return render({"id": message_id, **params}, "fr")


def labelled(name: str, text: str) -> str:
    """A line of the screen: its label in the labels' column (as wide as the longest label, and one more)."""
    width = max(9, *(len(said(f"demo_label_{key}")) for key in LABELS)) + 1
    return f"  {said(f'demo_label_{name}'):<{width}}{text}"


def drawn(view) -> dict:
    """Draw the screen, and the status it was drawn from (in the loop: nothing changes in between)."""
    view.draw()
    return view.daemon.get_status()


def no_english(screen: str) -> list[str]:
    """The English words of the catalogues on a screen, but in the launcherctl command it shows."""
    from test_plain_refusals import english_only_words

    text = re.sub(r"\S*launcher\S*|--\S+|\S+=\S+|/\S*", " ",
                  "\n".join(line for line in screen.splitlines() if "launcherctl --socket" not in line))
    english = english_only_words()
    return sorted({w for w in re.findall(r"[^\W\d_]{3,}", text) if w.casefold() in english})


def test_the_launcher_s_screen_in_french_says_the_catalogue_s_lines(tmp_path, monkeypatch):
    french_screen(monkeypatch)
    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, BURST_OF_THREE) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.in_loop(view.on_key, " ")
        running.wait_for(lambda s: s["last"] is not None and s["state"] == "ready")
        running.in_loop(view.on_key, "j")
        status = running.in_loop(drawn, view)  # the status the frame shows
        lines = frame(screen).splitlines()
    assert "  " + said("demo_title_launcher") in lines
    assert "  " + said("demo_keys_launcher") in lines
    assert labelled("motor", said("demo_motor_off")) in lines
    assert labelled("presses", said("demo_presses", presses=1, dry=0, profile="fixed")) in lines
    assert said("profile:fixed") == "fixe" and "fixed" not in "\n".join(lines)  # the profile's word, not its name
    assert labelled("last", said("demo_last_press", outcome="burst", cards=3)) in lines
    assert labelled("hopper", said("demo_hopper", hopper=str(status["hopper"]), truth=str(status["sim"]["hopper"]),
                                   ejected=3)) in lines
    events = [line.strip() for line in lines[lines.index("  " + said("demo_recent_events")) + 1:]]
    assert said("demo_key_jam") in events
    assert said("demo_launched", press=said("demo_press", press="1"), said=said("demo_launched_cards", cards=3)) in events
    assert said("demo_key_press", key=said("demo_key_space")) in events
    assert no_english("\n".join(lines)) == []


def test_the_blaster_s_screen_in_french_says_the_catalogue_s_lines(tmp_path, monkeypatch):
    from harness.launcherd import BLASTER

    french_screen(monkeypatch)
    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, BLASTER) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.in_loop(view.on_key, "1")
        running.wait_for(lambda s: s["last"] is not None)
        running.in_loop(view.on_key, "l")
        status = running.in_loop(drawn, view)
        lines = frame(screen).splitlines()
    last = status["last"]
    assert "  " + said("demo_title_blaster") in lines
    assert "  " + said("demo_keys_blaster") in lines
    slots = " ".join("X" if full else "." for full in status["slots"])
    assert labelled("slots", said("demo_slots", slots=slots, ejected=status["cards_ejected"],
                                  profile=status["profile"])) in lines
    assert f"{said('profile:' + status['profile'])}" in "\n".join(lines)  # the profile's word
    if last["outcome"] == "blast":
        shown = said("demo_last_slot_blast", slot=last["slot"], outcome="blast", cards=last["cards"])
    else:
        shown = said("demo_last_slot", slot=last["slot"], outcome=last["outcome"])
    assert labelled("last", shown) in lines
    events = [line.strip() for line in lines[lines.index("  " + said("demo_recent_events")) + 1:]]
    assert said("demo_key_insert_slot", key="1", slot=1) in events
    assert said("demo_key_no_lid", key="l") in events
    assert no_english("\n".join(lines)) == []
