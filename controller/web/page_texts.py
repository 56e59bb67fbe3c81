"""What launcher-web says itself, in the reader's language: the launcher's state as advice for the
table, its own refusals, and launcherd's message objects rendered for one reader (the request's
language, :func:`choose_language`). launcherd's own texts come rendered already."""

from __future__ import annotations

from typing import Any

from firmware.i18n import is_message

from controller.text.messages import CATALOGUE, LANGUAGES, MessageError, render

# The header that carries the table's join code (its name is in the texts that ask for it).
CODE_HEADER = "X-Join-Code"

# What the table should do about each launcher state: a symbol beside the word, never colour alone.
LAUNCHER_ADVICE = {
    "ready": ("✔", {"en": "ready: the player whose move it is presses the button",
                    "fr": "prêt : le joueur qui a la main appuie sur le bouton"}),
    "launching": ("➜", {"en": "launching: cards are coming out", "fr": "lancement : les cartes sortent"}),
    "jammed": ("⚠", {"en": "jammed: pull the stuck card out of the slot",
                     "fr": "coincé : retirez la carte coincée de la fente"}),
    "empty": ("⚠", {"en": "empty: reload the hopper, then enter how many cards it holds",
                    "fr": "vide : rechargez le réservoir, puis indiquez combien de cartes il contient"}),
    "sleeping": ("☾", {"en": "asleep: one press wakes it (that press launches nothing)",
                       "fr": "en veille : un appui le réveille (cet appui ne lance rien)"}),
    "lid_open": ("⚠", {"en": "lid open: close the hopper lid", "fr": "couvercle ouvert : fermez le couvercle"}),
    "halted": ("✖", {"en": "halted: {reason}; fix it, then tap Reset",
                     "fr": "arrêté : {reason} ; corrigez, puis touchez Réinitialiser"}),
    "starting": ("…", {"en": "starting", "fr": "démarrage"}),
}
# The card blaster's states that read otherwise than the launcher's (UNO Blast).
BLASTER_ADVICE = {
    "ready": ("✔", {"en": "ready: the player whose move it is puts a card in an empty slot",
                    "fr": "prêt : le joueur qui a la main met une carte dans une fente vide"}),
    "firing": ("➜", {"en": "blasting: cards are flying out", "fr": "tir : les cartes sortent"}),
    "jammed": ("⚠", {"en": "jammed: take the stuck card out of its slot",
                     "fr": "coincé : retirez la carte coincée de sa fente"}),
}
# launcher-web's own texts; launcherd's come rendered in the request's language.
TEXTS = {
    "no_game": {"en": "no game yet: start one below", "fr": "pas encore de partie : lancez-en une ci-dessous"},
    # Said to people: no header name. Where the code is: the table display, the demo's terminal,
    # launcherctl game code on the launcher.
    "no_code": {"en": "this needs the table's join code: enter it under Join code (it is on the table display,"
                      " in the demo's terminal, or ask the launcher: launcherctl game code)",
                "fr": "il faut le code de la table : saisissez-le sous Code de la table (il est sur l'affichage"
                      " de la table, dans le terminal de la démo, ou demandez-le au lanceur : launcherctl game code)"},
    "wrong_code": {"en": "wrong join code: ask the table for the current one",
                   "fr": "mauvais code : demandez le code actuel à la table"},
    "too_many_codes": {"en": "too many join codes tried: wait {seconds:.0f} s",
                       "fr": "trop de codes essayés : attendez {seconds:.0f} s"},
    "too_many_reads": {"en": "too many requests from this address: wait {seconds:.0f} s",
                       "fr": "trop de requêtes depuis cette adresse : attendez {seconds:.0f} s"},
    "foreign_host": {"en": "this page does not answer to the name {host!r} (launcher-web --allow-host)",
                     "fr": "cette page ne répond pas au nom {host!r} (launcher-web --allow-host)"},
    "foreign_origin": {"en": "a page of another site ({origin}) may not act on the table",
                       "fr": "une page d'un autre site ({origin}) ne peut pas agir sur la table"},
    "slow_body": {"en": "the request's body did not arrive within {seconds:.0f} s",
                  "fr": "le corps de la requête n'est pas arrivé en {seconds:.0f} s"},
    "too_deep": {"en": "the body is nested too deeply (lists and objects at most {levels} levels deep)",
                 "fr": "le corps est imbriqué trop profondément (listes et objets sur {levels} niveaux au plus)"},
    "unreachable": {"en": "{reason}; reconnecting", "fr": "launcherd ne répond pas ({reason}) ; reconnexion"},
}


# The id of launcher-web's own texts as message objects: {"id": "web:no_code", ...its params}.
OWN_PREFIX = "web:"


def own_text(key: str, lang: str, **params: Any) -> str:
    """One of launcher-web's own texts (:data:`TEXTS`) in ``lang``."""
    return TEXTS[key][lang].format(**params)


def own_message(key: str, **params: Any) -> dict[str, Any]:
    """One of launcher-web's own texts as a message object, which :func:`shown` renders."""
    return {"id": OWN_PREFIX + key, **params}


def choose_language(asked: str | None, accept_language: str | None, default: str) -> str:
    """The language of one request: ``?lang=`` when it names one, else the browser's most wanted
    language of those the page has (``Accept-Language``, by weight), else launcher-web's default."""
    if asked in LANGUAGES:
        return asked
    wanted = []
    for position, item in enumerate((accept_language or "").split(",")):
        tag, *options = item.strip().split(";")
        weight = 1.0
        for option in options:
            name, _, value = option.strip().partition("=")
            if name == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        primary = tag.strip().split("-")[0].lower()
        if primary in LANGUAGES and weight > 0:
            wanted.append((-weight, position, primary))
    return min(wanted)[2] if wanted else default


def shown(message: Any, lang: str, fallback: str | None) -> str | None:
    """A message object in ``lang``; the text that came with it if it is none, or is not in this
    version's catalogue (a newer launcherd)."""
    if not is_message(message):
        return fallback
    if message["id"].startswith(OWN_PREFIX):
        key = message["id"].removeprefix(OWN_PREFIX)
        params = {name: value for name, value in message.items() if name != "id"}
        try:
            return own_text(key, lang, **params) if key in TEXTS else fallback
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            return fallback  # not the parameters this text takes
    try:
        return render(message, lang)
    except MessageError:
        return fallback


def shown_sent(message: Any, lang: str) -> str | None:
    """A message object a page sent back (POST /api/render), in ``lang``; None for what does not
    render: the page's objects are what the API gave it, but the request is anyone's."""
    try:
        return shown(message, lang, None)
    except Exception:  # noqa: BLE001 - a bad object is a null text, never a failed request
        return None


def localized_params(params: dict[str, Any], lang: str) -> dict[str, Any]:
    """An event's parameters with its texts in ``lang``: ``text`` from ``message`` (game/message),
    and every ``X`` from its ``X_object`` (a launcher event's ``reason``)."""
    out = dict(params)
    if is_message(params.get("message")):
        out["text"] = shown(params["message"], lang, params.get("text"))
    for key, value in params.items():
        if key.endswith("_object") and is_message(value):
            name = key.removesuffix("_object")
            out[name] = shown(value, lang, params.get(name))
    return out


def launcher_advice(status: dict[str, Any], lang: str = "en") -> dict[str, str]:
    state = status.get("state") or "starting"
    symbol, texts = LAUNCHER_ADVICE.get(state, ("?", {"en": state, "fr": state}))
    if status.get("device") == "blaster":
        symbol, texts = BLASTER_ADVICE.get(state, (symbol, texts))
    reason = shown(status.get("reason_object"), lang, status.get("reason")) or ""
    if state == "ready" and status.get("press_means") == "nothing" and status.get("press_reason"):
        # Ready, but the game has a press deal nothing now (a decision pending): say what to settle.
        return {"state": state, "symbol": "⚠",
                "text": shown(status["press_reason"], lang, status.get("press_reason_text")) or ""}
    return {"state": state, "symbol": symbol, "text": texts[lang].format(reason=reason)}


def words(lang: str) -> dict[str, Any]:
    """The names the page shows for cards and colours in ``lang`` (the French rule book's)."""
    return {"lang": lang, **{
        group: {key.split(":", 1)[1]: render({"id": key}, lang) for key in CATALOGUE if key.startswith(prefix)}
        for group, prefix in (("cards", "card:"), ("colors", "color:"), ("directions", "direction:"))}}


def last_burst(actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The latest press of the match and what it gave, late cards included ("Bob took 4")."""
    burst = None
    for record in actions:
        action = record["action"]
        if record.get("undone"):
            continue
        if action.get("type") == "press":
            burst = {"player": action.get("by"), "cards": action["cards"], "press_id": action.get("press_id")}
        elif action.get("type") == "cards" and burst and action.get("press_id") == burst["press_id"]:
            burst["cards"] += action["cards"]
    return burst
