"""launcherctl in French, end to end (#14): one UNO Attack round against a real ``launcherd --sim``,
cards and colours named as the French rule book names them, presses on the (simulated) button, the
round won and scored, a refusal; every line checked in French."""

from __future__ import annotations

import json
import subprocess

from harness.launcherd import launcherctl_in_process

# Every press gives a known number of cards: 3, then 0, then 2, and again.
BURSTS = """
[ejection]
profile = "fixed"
sequence = [3, 0, 2]
"""


def french(launcherd, *args: str) -> subprocess.CompletedProcess:
    """``launcherctl --lang fr ...`` in an English locale (the suite's): the option alone makes it French."""
    return launcherctl_in_process(launcherd.socket, "--lang", "fr", *args)


def ok(done: subprocess.CompletedProcess) -> list[str]:
    assert done.returncode == 0, f"{done.args}\n{done.stdout}{done.stderr}"
    return done.stdout.splitlines()


def test_an_attack_round_played_with_launcherctl_in_french(daemon_process):
    launcherd = daemon_process(BURSTS)

    started = ok(french(launcherd, "game", "new", "--rules", "attack-mega-hit", "--players", "Ann,Bob,Cy"))
    assert started == [
        "manche 1 de UNO Attack Mega Hit : Cy distribue",
        "distribuez 7 cartes à chacun à la main (21), retournez-en une, chargez les 90 autres dans le"
        " lanceur et rechargez le réservoir : 90 cartes (dans un terminal : launcherctl reload 90)",
        "À Ann - poser une carte ou appuyer",
    ]
    ok(french(launcherd, "reload", "90"))

    hit = ok(french(launcherd, "game", "play", "Appuyer 1 fois", "--color", "rouge"))
    assert hit == ["Ann joue Appuyer 1 fois (rouge)", "Bob doit 1 appui ou répond avec une carte Appuyer",
                   "À Bob - doit 1 appui ou pose une carte Appuyer (s'arrête dès que des cartes sortent)"]
    ok(french(launcherd, "press"))  # Bob: 3 cards, his press is done
    status = ok(french(launcherd, "game", "status"))
    assert status[0] == "UNO Attack Mega Hit - manche 1 - Cy distribue"
    assert status[1] == "À Cy - poser une carte ou appuyer"
    assert status[3].split() == ["joueur", "main", "cartes", "prises", "appuis", "score"]
    assert status[-1].startswith("partie 1, journal de jeu dans ")
    # Bob's hand (the 7 dealt and the 3 taken), his cards taken, his presses.
    assert next(line for line in status if line.startswith("Bob")).split()[1:4] == ["10", "3", "1"]

    attack = ok(french(launcherd, "game", "play", "Double attaque", "--color", "bleu", "--target", "Ann"))
    assert attack[:2] == ["Cy joue Double attaque (bleu) contre Ann",
                          "Ann doit 2 appuis ou répond avec une carte Appuyer"]
    refused = french(launcherd, "game", "play", "Passer", "--by", "Bob")
    assert refused.returncode == 1 and "c'est à Ann de jouer, pas à Bob" in refused.stderr
    ok(french(launcherd, "press"))  # Ann: nothing came out, one press still owed
    assert ok(french(launcherd, "game", "status"))[1] == (
        "À Ann - doit 1 appui (s'arrête dès que des cartes sortent)")
    ok(french(launcherd, "press"))  # Ann: 2 cards, done

    # Bob holds ten: all blue, laid at once under a Discard All (a last card needs a hand of one, #39).
    won = ok(french(launcherd, "game", "play", "Poser tout", "--color", "bleu", "--last"))
    assert won == ["Bob joue Poser tout (bleu)", "Bob pose sa dernière carte et gagne la manche 1",
                   "Manche 1 gagnée par Bob - saisissez les mains : game end-round"]
    scored = ok(french(launcherd, "game", "end-round", "--winner", "Bob", "Ann=12", "Cy=7,Appuyer 2 fois,1,2,3,4"))
    assert scored[0] == "manche 1 : Bob marque 69 (69 en tout)"
    assert scored[-1] == "À Bob - poser une carte ou appuyer"  # round 2: Ann deals, Bob starts
    scores = ok(french(launcherd, "game", "scores"))
    assert scores[0] == "score standard, objectif 500"
    assert scores[1].split() == ["manche", "Ann", "Bob", "Cy", "gagnant"]
    assert scores[-1] == "ensuite : manche 2, Ann distribue"

    # What was logged is the cards' ids, whatever language named them.
    log = json.loads(french(launcherd, "game", "log", "--json").stdout)["actions"]
    plays = [record["action"].get("card") for record in log if record["action"]["type"] == "play"]
    assert plays == ["hit-1", "wild-attack", "discard-all"]
