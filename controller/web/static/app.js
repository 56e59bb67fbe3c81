// The table page: everything it shows comes from GET /api/state, refreshed on every event the
// launcher-web WebSocket relays; every action is one POST with the join code (docs/web.md).
// No framework and no build step: the page must work on a Pi with no internet at all.
"use strict";

const $ = (selector) => document.querySelector(selector);
const COLORS = ["red", "yellow", "green", "blue"];
const CODE_KEY = "card-launcher-join-code";
const LANG_KEY = "card-launcher-lang";
const LANGS = ["en", "fr"];

// The page's own texts in each language: labels of index.html (by data-i18n key) and the sentences
// this script builds from the game's status. Texts launcherd says (messages, refusals, advice) come
// from launcher-web already in the reader's language (docs/web.md).
const TEXTS = {
  en: {
    title: "Card launcher: the table", heading: "Card launcher", language: "Language", connecting: "⟳ connecting…",
    tableView: "Table display", phoneView: "Phone view", dismiss: "Dismiss", repair: "Repair the game log",
    launcher: "Launcher", hopperCards: "Cards now in the hopper", reloaded: "Reloaded", goOn: "Go on", resetLauncher: "Reset", players: "Players",
    player: "Player", owes: "Owes", cards: "Cards", presses: "Presses", score: "Score", play: "Play",
    joinCode: "Join code", codeDigits: "8 digits", useCode: "Use code",
    firstAttack: "Name the colour and the player to attack", lastCard: "it is the player's last card",
    pressSim: "Press the button (simulation)", uno: "Uno!", hintPenalty: "Advice penalty…", undo: "Undo last action",
    endRound: "End of round: enter the hands", winner: "Winner", handsHelp: "Each hand as points (37) or its cards (7, hit-2, wild).",
    scoreRound: "Score the round", scores: "Scores", csv: "Download the scores (CSV)", stats: "Match statistics",
    newGame: "New game", newPlayers: "Players, in seat order (clockwise), separated by commas", rules: "Rules",
    scoring: "Scoring", target: "Target", force: "set the running match aside (it stays resumable)", start: "Start the game",
    happened: "What happened", join: "Join from a phone", qrShow: "Show the QR code (needs the join code)",
    qrAlt: "QR code of this page's address with the join code", cancel: "Cancel",
    live: "● live", reconnectingLauncher: "⟳ reconnecting to the launcher…", reconnectingWeb: "⟳ reconnecting to launcher-web…",
    notReachable: "⟳ not reachable: the launcher is restarting; this page catches up by itself",
    untilCards: "until cards", uno_reason: "Uno penalty", hint_reason: "advice penalty",
    firstCard: "the card turned up", lastCardAttack: "last-card attack: those cards count in the score",
    damage: (what, todo) => `⚠ game log: ${what} · what to do: ${todo}`,
    gameStarting: (why) => `… the game is starting${why ? `: ${why}` : ""}`,
    gameDown: (why) => `⚠ the game is not available${why ? `: ${why}` : ""}; the launcher still works`,
    noGame: "No game", startOne: "start one under New game",
    roundLine: (round, ruleset, dealer) => `Round ${round} · ${ruleset} · dealer ${dealer}`,
    clockwise: "↻ play goes clockwise", counterclockwise: "↺ play goes counterclockwise", and: " and ",
    winsMatch: "wins the match", pressesUntil: "presses until cards come out", owesPresses: (n) => `owes ${count(n, "press")}`,
    orStacks: " or stacks a Hit card", wonRound: (winner, round) => `${winner} won round ${round}`,
    enterHands: "enter the hands under End of round", namesAttack: "names a colour and a player to attack",
    playsOrPresses: "plays a card or presses",
    chain: (c) => `⚡ Mega Hit: ${count(c.hits, "hit")} on ${c.target} (started by ${c.started_by}, ${count(c.stacks, "card")} stacked on it)`,
    chainOpen: (c) => `⚡ Mega Hit open: ${c.target} presses ${c.hits} or stacks a Hit card`,
    catchable: (p) => `${p} did not call Uno: on their last card, catch them below`,
    noPress: "No press yet", took: (p, n) => `${p} took ${count(n, "card")}`, pressedNothing: (p) => `${p} pressed: nothing came out`,
    hopperUnknown: "hopper: unknown", holds: (n) => `the launcher holds about ${count(n, "card")}`,
    reloadNow: "⚠ Reload: shuffle the discard pile (all but its top card) into the hopper",
    catchButton: (p) => `Catch ${p} (no Uno)`, hand: (n) => `${n}'s hand `, handPlaceholder: "points, or cards: 7, hit-2, wild",
    noMatch: "no match yet", scoresLine: (s, t) => `${s} scoring, target ${t}`, next: (r, d) => ` · next: round ${r}, dealer ${d}`,
    round: "Round", total: "Total", matchWinner: (w) => `🏆 Winner: ${w}`,
    cardsTaken: "Cards taken", biggestBurst: "Biggest burst", dryStreak: "Longest dry streak", hitsSent: "Hits sent",
    hitsReceived: "Hits received", roundsWon: "Rounds won", matches: "Matches", matchesWon: "Matches won",
    statsUnavailable: (e) => `statistics unavailable: ${e}`, match: (id) => `Match ${id}`,
    burstFact: (p, n) => `Biggest burst: ${p}, ${count(n, "card")}`, dryFact: (p, n) => `Longest dry streak: ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Longest Mega Hit: ${count(c.hits, "hit")} in ${count(c.cards, "card")}, started by ${c.started_by}, pressed by ${c.pressed_by}`,
    minutesPerRound: "Minutes per round", secondsPerRound: "Seconds per round", roundN: (r) => `Round ${r}`,
    allMatches: (m, r) => `All matches: ${m}, rounds: ${r}`, whichColour: (card) => `${card}: which colour?`,
    whichPlayer: (card) => `${card}: which player?`, whoUno: "Who calls Uno?", whoAdvice: "Who gave advice?",
    firstAttackColour: "The turned-up Wild Attack-Attack: which colour?", whoAttacked: "Which player is attacked?",
    codeAccepted: "✔ code accepted", wrongCode: "✖ wrong code", refused: (m) => `✖ Refused: ${m}`,
    codeChanged: "The table's join code changed: enter the new one", box2023: " (the 2023 box)",
    press: ["press", "presses"], card: ["card", "cards"], hit: ["hit", "hits"],
  },
  fr: {
    title: "Lanceur de cartes : la table", heading: "Lanceur de cartes", language: "Langue", connecting: "⟳ connexion…",
    tableView: "Affichage table", phoneView: "Vue téléphone", dismiss: "Fermer", repair: "Réparer le journal de partie",
    launcher: "Lanceur", hopperCards: "Cartes dans le réservoir", reloaded: "Rechargé", goOn: "Continuer", resetLauncher: "Réinitialiser", players: "Joueurs",
    player: "Joueur", owes: "Doit", cards: "Cartes", presses: "Appuis", score: "Score", play: "Jouer",
    joinCode: "Code de la table", codeDigits: "8 chiffres", useCode: "Valider le code",
    firstAttack: "Nommer la couleur et le joueur à attaquer", lastCard: "c'est la dernière carte du joueur",
    pressSim: "Appuyer sur le bouton (simulation)", uno: "Uno !", hintPenalty: "Pénalité de conseil…",
    undo: "Annuler la dernière action", endRound: "Fin de manche : saisir les mains", winner: "Gagnant",
    handsHelp: "Chaque main en points (37) ou en cartes (7, Appuyer 2 fois, Carte blanche).",
    scoreRound: "Compter la manche", scores: "Scores", csv: "Télécharger les scores (CSV)", stats: "Statistiques de la partie",
    newGame: "Nouvelle partie", newPlayers: "Joueurs, dans l'ordre des places (sens horaire), séparés par des virgules",
    rules: "Règles", scoring: "Décompte", target: "Objectif", force: "mettre de côté la partie en cours (elle pourra reprendre)",
    start: "Lancer la partie", happened: "Ce qui s'est passé", join: "Rejoindre depuis un téléphone",
    qrShow: "Afficher le QR code (demande le code de la table)", qrAlt: "QR code de l'adresse de cette page avec le code de la table",
    cancel: "Annuler", live: "● en direct", reconnectingLauncher: "⟳ reconnexion au lanceur…",
    reconnectingWeb: "⟳ reconnexion à launcher-web…",
    notReachable: "⟳ injoignable : le lanceur redémarre ; cette page se remet à jour d'elle-même",
    untilCards: "jusqu'aux cartes", uno_reason: "pénalité Uno", hint_reason: "pénalité de conseil",
    firstCard: "la carte retournée", lastCardAttack: "attaque sur la dernière carte : ces cartes comptent dans le score",
    damage: (what, todo) => `⚠ journal de partie : ${what} · que faire : ${todo}`,
    gameStarting: (why) => `… le jeu démarre${why ? ` : ${why}` : ""}`,
    gameDown: (why) => `⚠ le jeu n'est pas disponible${why ? ` : ${why}` : ""} ; le lanceur fonctionne toujours`,
    noGame: "Pas de partie", startOne: "lancez-en une sous Nouvelle partie",
    roundLine: (round, ruleset, dealer) => `Manche ${round} · ${ruleset} · ${dealer} distribue`,
    clockwise: "↻ le jeu tourne dans le sens des aiguilles d'une montre",
    counterclockwise: "↺ le jeu tourne dans le sens inverse des aiguilles d'une montre", and: " et ",
    winsMatch: "gagne la partie", pressesUntil: "appuie jusqu'à ce que des cartes sortent",
    owesPresses: (n) => `doit ${count(n, "press")}`, orStacks: " ou pose une carte Appuyer",
    wonRound: (winner, round) => `${winner} a gagné la manche ${round}`, enterHands: "saisissez les mains sous Fin de manche",
    namesAttack: "nomme une couleur et un joueur à attaquer", playsOrPresses: "joue une carte ou appuie",
    chain: (c) => `⚡ Méga appuyer : ${count(c.hits, "hit")} sur ${c.target} (lancé par ${c.started_by}, ${count(c.stacks, "card")} posée${c.stacks > 1 ? "s" : ""} dessus)`,
    chainOpen: (c) => `⚡ Méga appuyer ouvert : ${c.target} appuie ${c.hits} fois ou pose une carte Appuyer`,
    catchable: (p) => `${p} n'a pas dit Uno : sur sa dernière carte, attrapez ce joueur ci-dessous`,
    noPress: "Pas encore d'appui", took: (p, n) => `${p} a pris ${count(n, "card")}`,
    pressedNothing: (p) => `${p} a appuyé : rien n'est sorti`, hopperUnknown: "réservoir : inconnu",
    holds: (n) => `le lanceur contient environ ${count(n, "card")}`,
    reloadNow: "⚠ Rechargez : mélangez la défausse (sauf sa carte du dessus) dans le réservoir",
    catchButton: (p) => `Attraper ${p} (pas de Uno)`, hand: (n) => `Main de ${n} `,
    handPlaceholder: "points, ou cartes : 7, Appuyer 2 fois, Carte blanche",
    noMatch: "pas encore de partie", scoresLine: (s, t) => `décompte ${s}, objectif ${t}`,
    next: (r, d) => ` · ensuite : manche ${r}, ${d} distribue`, round: "Manche", total: "Total",
    matchWinner: (w) => `🏆 Gagnant : ${w}`, cardsTaken: "Cartes prises", biggestBurst: "Plus grosse rafale",
    dryStreak: "Plus longue série à vide", hitsSent: "Appuis envoyés", hitsReceived: "Appuis reçus",
    roundsWon: "Manches gagnées", matches: "Parties", matchesWon: "Parties gagnées",
    statsUnavailable: (e) => `statistiques indisponibles : ${e}`, match: (id) => `Partie ${id}`,
    burstFact: (p, n) => `Plus grosse rafale : ${p}, ${count(n, "card")}`,
    dryFact: (p, n) => `Plus longue série à vide : ${p}, ${count(n, "press")}`,
    megaFact: (c) => `Plus long Méga appuyer : ${count(c.hits, "hit")} en ${count(c.cards, "card")}, lancé par ${c.started_by}, encaissé par ${c.pressed_by}`,
    minutesPerRound: "Minutes par manche", secondsPerRound: "Secondes par manche", roundN: (r) => `Manche ${r}`,
    allMatches: (m, r) => `Toutes les parties : ${m}, manches : ${r}`, whichColour: (card) => `${card} : quelle couleur ?`,
    whichPlayer: (card) => `${card} : quel joueur ?`, whoUno: "Qui dit Uno ?", whoAdvice: "Qui a donné un conseil ?",
    firstAttackColour: "La Double attaque retournée : quelle couleur ?", whoAttacked: "Quel joueur est attaqué ?",
    codeAccepted: "✔ code accepté", wrongCode: "✖ mauvais code", refused: (m) => `✖ Refusé : ${m}`,
    codeChanged: "Le code de la table a changé : saisissez le nouveau", box2023: " (la boîte 2023)",
    press: ["appui", "appuis"], card: ["carte", "cartes"], hit: ["appui", "appuis"],
  },
};

let lang = "en";        // the language the page is shown in
let words = null;       // GET /api/words: card and colour names in that language

// The reader's own choice, if any: it goes with every request; without it the browser's
// Accept-Language does, and launcher-web answers in the language it chose (state.lang).
function chosenLang() {
  const chosen = localStorage.getItem(LANG_KEY);
  return LANGS.includes(chosen) ? chosen : null;
}

function browserLang() {
  const found = (navigator.languages || [navigator.language]).map((l) => String(l).slice(0, 2)).find((l) => LANGS.includes(l));
  return found || "en";
}

function t(key, ...args) {
  const text = TEXTS[lang][key] ?? TEXTS.en[key];
  return typeof text === "function" ? text(...args) : text;
}

// The labels of index.html, the switch and the names of cards and colours in the page's language.
async function showLanguage(wanted) {
  lang = wanted;
  document.documentElement.lang = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const attribute of ["placeholder", "aria-label", "alt"]) {
    for (const node of document.querySelectorAll(`[data-i18n-${attribute}]`)) {
      node.setAttribute(attribute, t(node.getAttribute(`data-i18n-${attribute}`)));
    }
  }
  for (const button of document.querySelectorAll(".langs button")) button.setAttribute("aria-pressed", String(button.dataset.lang === lang));
  try { words = await api("GET", `/api/words?lang=${lang}`); } catch (error) { words = null; }
  if (state) render();
}

// "1 press", "2 presses"; French keeps the singular for 0 and 1.
function count(n, key) {
  const [one, many] = t(key);
  return `${n} ${(lang === "fr" ? n <= 1 : n === 1) ? one : many}`;
}

let state = null;       // the last /api/state
let rules = {};         // ruleset id -> its game/rules entry
let scorings = {};
let refreshTimer = null;

// ---- small helpers ----------------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function cardName(card) {
  if (/^\d+$/.test(card)) return card;
  if (lang !== "en" && words && words.cards[card]) return words.cards[card];
  return card.split("-").map((word) => word[0].toUpperCase() + word.slice(1)).join(" ")
    .replace("Wild Attack", "Wild Attack-Attack");
}

function code() { return localStorage.getItem(CODE_KEY) || ""; }

class ApiFailure extends Error {
  constructor(status, body) {
    super((body && body.error && body.error.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(method, path, body) {
  const headers = {};
  if (code()) headers["X-Join-Code"] = code();
  if (chosenLang()) headers["Accept-Language"] = chosenLang();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new ApiFailure(response.status, data);
  return data;
}

function showError(error) {
  const banner = $("#banner");
  let text = error.message;
  if (error.status === 403) text = t("refused", error.message);
  else if (error.status === 503) text = `⟳ ${error.message}`;
  else text = `✖ ${text}`;
  $("#banner-text").textContent = text;
  banner.hidden = false;
}

function clearError() { $("#banner").hidden = true; }

async function act(path, body) {
  try {
    const reply = await api("POST", path, body === undefined ? {} : body);
    clearError();
    await refresh();
    return reply;
  } catch (error) {
    showError(error);
    return null;
  }
}

// ---- the picker: colours and players ------------------------------------------------------------

function pick(title, choices) {
  const dialog = $("#picker");
  $("#picker-title").textContent = title;
  const box = $("#picker-choices");
  box.replaceChildren(...choices.map(({ value, label, swatch }) => {
    const button = el("button", { type: "submit", value, "data-choice": value });
    if (swatch) button.append(el("span", { class: `swatch ${swatch}`, "aria-hidden": "true" }));
    button.append(label);
    return button;
  }));
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue || null), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

const colorName = (c) => (lang !== "en" && words && words.colors[c]) || c;
const pickColor = (title) => pick(title, COLORS.map((c) => ({ value: c, label: colorName(c), swatch: c })));

function pickPlayer(title, except) {
  const names = (state.game ? state.game.players.map((p) => p.name) : []).filter((n) => n !== except);
  return pick(title, names.map((name) => ({ value: name, label: name })));
}

// ---- rendering ----------------------------------------------------------------------------------

function setLink(up, text) {
  const link = $("#link");
  link.className = `link ${up ? "up" : "down"}`;
  link.textContent = text || t(up ? "live" : "reconnectingLauncher");
  // What is shown is the last known state, not the present one: say so until the link is back.
  document.body.classList.toggle("stale", !up);
  if (!up) {
    $("#launcher-state").textContent = t("notReachable");
    $("#launcher-state").classList.add("trouble");
  }
}

function owedBy(game) {
  const owed = {};
  for (const item of game.queue) {
    const before = owed[item.player];
    const presses = item.presses === null ? t("untilCards") : item.presses;
    owed[item.player] = before === undefined ? presses
      : (typeof before === "number" && typeof presses === "number" ? before + presses : `${before} + ${presses}`);
  }
  return owed;
}

// Why a player owes presses, beside the count (hit-fire says it already: "presses until cards come out").
const REASONS = { uno: "uno_reason", hint: "hint_reason", "all-hit": "wild-all-hit", "first-card": "firstCard",
  "last-card-attack": "lastCardAttack" };

function renderDamage(game) {
  // What is wrong with the game log and what to do, from game/status (controller/damage.py).
  const damage = game ? game.damage : state.game_damage;
  $("#damage").hidden = !damage;
  if (damage) $("#damage-text").textContent = t("damage", damage.what, damage.todo);
}

function renderTurn(game) {
  const match = game ? game.match : null;
  $("#chain").hidden = true;
  $("#catchable-line").hidden = true;
  if (!game) {
    $("#round-line").textContent = "";
    $("#turn-name").textContent = t("noGame");
    $("#turn-what").textContent = state.game_error || t("startOne");
    $("#direction").textContent = "";
    return;
  }
  $("#round-line").textContent = t("roundLine", game.round, game.ruleset, game.dealer);
  $("#direction").textContent = t(game.direction === "clockwise" ? "clockwise" : "counterclockwise");
  if (match.match_over) {
    const winner = Array.isArray(match.winner) ? match.winner.join(t("and")) : match.winner;
    $("#turn-name").textContent = `🏆 ${winner}`;
    $("#turn-what").textContent = t("winsMatch");
  } else if (game.owed) {
    const owed = game.owed;
    $("#turn-name").textContent = owed.player;
    let what = owed.presses === null ? t("pressesUntil") : t("owesPresses", owed.presses);
    if (game.chain && game.chain.target === owed.player && !["uno", "hint"].includes(owed.reason)) what += t("orStacks");
    if (REASONS[owed.reason]) what += ` (${owed.reason === "all-hit" ? cardName(REASONS[owed.reason]) : t(REASONS[owed.reason])})`;
    $("#turn-what").textContent = what;
  } else if (game.round_over) {
    $("#turn-name").textContent = t("wonRound", game.winner, game.round);
    $("#turn-what").textContent = t("enterHands");
  } else if (game.awaiting === "first_attack") {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = t("namesAttack");
  } else {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = t("playsOrPresses");
  }
  if (game.chain) {
    const chain = game.chain;
    $("#chain").textContent = t(chain.stacks ? "chain" : "chainOpen", chain);
    $("#chain").hidden = false;
  }
  if (game.catchable) {
    $("#catchable-line").textContent = t("catchable", game.catchable);
    $("#catchable-line").hidden = false;
  }
}

function renderLauncher() {
  const advice = state.launcher_advice;
  const line = $("#launcher-state");
  line.textContent = `${advice.symbol} ${advice.text}`;
  line.classList.toggle("trouble", !["ready", "launching"].includes(advice.state));
  const burst = state.last_burst;
  $("#last-burst").textContent = !burst ? t("noPress")
    : burst.cards ? t("took", burst.player, burst.cards) : t("pressedNothing", burst.player);
  const reload = state.game ? state.game.reload_advice : null;
  const hopper = state.launcher.hopper;
  $("#hopper").textContent = reload ? reload.text
    : (hopper === null ? t("hopperUnknown") : t("holds", hopper));
  // What waits for a person's press (status pending), said in the page's language, with "Go on".
  const pending = state.launcher.pending;
  $("#pending").hidden = !pending;
  $("#pending-text").textContent = pending ? state.launcher.pending_text : "";
  // Halted (a fault, an e-stop, a restart after the motor may have been on): why, and "Reset".
  const halted = state.launcher.state === "halted";
  $("#halted").hidden = !halted;
  $("#halted-text").textContent = halted ? state.launcher.reason : "";
  const needed = (reload && reload.reload) || advice.state === "empty";
  $("#reload-form").hidden = !needed;
  $("#reload-text").textContent = needed ? t("reloadNow") : "";
}

function renderPlayers(game) {
  const body = $("#players tbody");
  if (!game) { body.replaceChildren(); return; }
  const owed = owedBy(game);
  const totals = game.match.totals || {};
  body.replaceChildren(...game.players.map((p) => el("tr", { class: p.name === game.turn ? "current" : "", "data-player": p.name },
    el("td", {}, p.name), el("td", { "data-owes": p.name }, owed[p.name] === undefined ? "–" : owed[p.name]),
    el("td", { "data-cards": p.name }, p.cards_taken), el("td", {}, p.presses), el("td", {}, totals[p.name] ?? 0))));
}

function renderActions(game) {
  const rs = game ? rules[game.ruleset] : null;
  const playing = game && !game.round_over && !game.match.match_over;
  $("#press").hidden = !state.sim;
  $("#players-panel").hidden = !game;
  $("#end-round").hidden = !game || game.match.match_over;
  $("#last-card-box").hidden = !playing;
  for (const button of document.querySelectorAll("#act .in-game")) button.hidden = !game;
  const box = $("#cards");
  if (!rs || !playing) {
    box.replaceChildren();
  } else if (box.dataset.ruleset !== `${rs.id}#${lang}#${words ? words.lang : ""}`) {
    // Rebuilt when the names arrive too: a render between a switch of language and its names
    // would otherwise keep the old language's names on the buttons.
    box.dataset.ruleset = `${rs.id}#${lang}#${words ? words.lang : ""}`;
    box.replaceChildren(...rs.cards.map(({ card, notes }) => {
      const kinds = [];
      if (/^\d+$/.test(card)) kinds.push("number");
      if (notes.some((n) => n.includes("presses"))) kinds.push("attack");
      if (card.startsWith("wild")) kinds.push("wild");
      return el("button", { type: "button", class: kinds.join(" "), "data-card": card, title: notes.join("; "),
        onclick: () => playCard(card) }, cardName(card));
    }));
  }
  if (!playing) delete box.dataset.ruleset;
  $("#first-attack-box").hidden = !(game && game.awaiting === "first_attack");
  const catchButton = $("#catch");
  catchButton.hidden = !(game && game.catchable);
  if (game && game.catchable) catchButton.textContent = t("catchButton", game.catchable);
  $("#hint").hidden = !(rs && rs.hint_penalty);
}

function renderEndRound(game) {
  const winner = $("#winner");
  const hands = $("#hands");
  if (!game) { winner.replaceChildren(); hands.replaceChildren(); return; }
  const names = game.players.map((p) => p.name);
  const key = names.join("\n") + `#${game.round}#${lang}`;
  if (hands.dataset.key === key) {
    if (game.round_over && game.winner && winner.value !== game.winner) {
      winner.value = game.winner;
      updateHands();
    }
    return;
  }
  hands.dataset.key = key;
  winner.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  winner.value = game.winner || names[0];
  hands.replaceChildren(...names.map((n) => el("label", { "data-hand": n }, t("hand", n),
    el("input", { name: n, autocomplete: "off", placeholder: t("handPlaceholder") }))));
  updateHands();
}

function updateHands() {
  for (const label of document.querySelectorAll("#hands label")) {
    label.hidden = label.dataset.hand === $("#winner").value;
  }
}

function renderScores() {
  const table = $("#scores");
  const scores = state.scores;
  if (!scores) {
    table.replaceChildren();
    $("#scores-line").textContent = t("noMatch");
    $("#match-winner").hidden = true;
    return;
  }
  const players = scores.players;
  $("#scores-line").textContent = t("scoresLine", scores.scoring, scores.target) +
    (scores.match_over ? "" : t("next", scores.round, scores.dealer));
  const head = el("tr", {}, el("th", { scope: "col" }, t("round")), ...players.map((n) => el("th", { scope: "col" }, n)), el("th", { scope: "col" }, t("winner")));
  const rows = scores.rounds.map((r) => el("tr", {}, el("td", {}, r.round),
    ...players.map((n) => el("td", {}, r.points[n] ?? "")), el("td", {}, r.winner)));
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, t("total")),
    ...players.map((n) => el("td", { "data-total": n }, scores.totals[n])), el("td", {}, ""));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows, total));
  const winner = $("#match-winner");
  winner.hidden = !scores.match_over;
  if (scores.match_over) {
    winner.textContent = t("matchWinner", Array.isArray(scores.winner) ? scores.winner.join(t("and")) : scores.winner);
  }
}

function renderMessages() {
  $("#messages").replaceChildren(...state.messages.slice(-8).reverse().map((m) => el("li", {}, m.text)));
}

function renderGameLayer() {
  // Whether launcherd's game layer is up (status/get's game_layer): its reason in the page's language.
  const layer = state.game_layer;
  const down = Boolean(layer && layer.state !== "up");
  $("#game-layer").hidden = !down;
  if (down) $("#game-layer").textContent = t(layer.state === "starting" ? "gameStarting" : "gameDown", layer.reason);
}

function render() {
  const game = state.game;
  renderGameLayer();
  renderTurn(game);
  renderDamage(game);
  renderLauncher();
  renderPlayers(game);
  renderActions(game);
  renderEndRound(game);
  renderScores();
  renderMessages();
  if ($("#stats-box").open) loadStats();
}

// ---- statistics -----------------------------------------------------------------------------------

function barChart(title, rows, unit, alt) {
  const width = 320, rowHeight = 30, label = 90;
  const top = Math.max(1, ...rows.map((r) => r.value));
  const chart = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${rows.length * rowHeight + 28}`, role: "img",
    "aria-label": `${title}: ` + rows.map((r) => `${r.name} ${r.value}`).join(", ") });
  chart.append(svg("text", { x: 0, y: 16 }, title));
  rows.forEach((r, i) => {
    const y = 28 + i * rowHeight;
    const length = Math.round((width - label - 40) * r.value / top);
    chart.append(svg("text", { x: 0, y: y + 18 }, r.name.slice(0, 10)));
    chart.append(svg("rect", { class: alt ? "bar alt" : "bar", x: label, y: y + 4, width: Math.max(length, 2), height: rowHeight - 10 }));
    chart.append(svg("text", { x: label + length + 6, y: y + 18 }, `${r.value}${unit}`));
  });
  return chart;
}

function statsTable(players, extra = []) {
  // Figures as rows, players as columns: seven figures would not fit a phone's width as columns.
  const rows = [["presses", "presses"], ["cards", "cardsTaken"], ["biggest_burst", "biggestBurst"],
    ["longest_dry_streak", "dryStreak"], ["hits_sent", "hitsSent"], ["hits_received", "hitsReceived"],
    ["rounds_won", "roundsWon"], ...extra];
  const names = Object.keys(players);
  return el("div", { class: "scroll" }, el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, ""), ...names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {}, ...rows.map(([key, label]) => el("tr", {}, el("th", { scope: "row" }, t(label)),
      ...names.map((n) => el("td", {}, players[n][key])))))));
}

async function loadStats() {
  const box = $("#stats");
  let result;
  try {
    result = await api("GET", "/api/stats");
  } catch (error) {
    box.replaceChildren(el("p", { class: "small" }, t("statsUnavailable", error.message)));
    return;
  }
  const parts = [];
  const match = result.match;
  if (match) {
    parts.push(el("h2", {}, t("match", result.match_id)), statsTable(match.players));
    const facts = [];
    if (match.biggest_burst) facts.push(t("burstFact", match.biggest_burst.player, match.biggest_burst.cards));
    if (match.longest_dry_streak) facts.push(t("dryFact", match.longest_dry_streak.player, match.longest_dry_streak.presses));
    if (match.longest_mega_hit) facts.push(t("megaFact", match.longest_mega_hit));
    parts.push(el("ul", {}, ...facts.map((f) => el("li", {}, f))));
    parts.push(barChart(t("cardsTaken"), Object.entries(match.players).map(([name, f]) => ({ name, value: f.cards })), ""));
    if (match.rounds.length) {
      const minutes = match.rounds.some((r) => r.seconds >= 120);
      parts.push(barChart(t(minutes ? "minutesPerRound" : "secondsPerRound"), match.rounds.map((r) => ({
        name: t("roundN", r.round), value: minutes ? Math.round(r.seconds / 6) / 10 : Math.round(r.seconds) })),
        minutes ? " min" : " s", true));
    }
  }
  const history = result.history;
  parts.push(el("h2", {}, t("allMatches", history.matches, history.rounds)));
  if (Object.keys(history.players).length) {
    parts.push(statsTable(history.players, [["matches", "matches"], ["matches_won", "matchesWon"]]));
  }
  box.replaceChildren(...parts);
}

// ---- actions ----------------------------------------------------------------------------------------

async function playCard(card) {
  const rs = rules[state.game.ruleset];
  const entry = rs.cards.find((c) => c.card === card);
  const body = { card };
  if (card.startsWith("wild")) {
    const color = await pickColor(t("whichColour", cardName(card)));
    if (!color) return;
    body.color = color;
  } else {
    // A coloured card shows its colour (launcherd refuses it without): the pile's, unless it is the
    // same card as the pile's or answers a Mega Hit, where it may be any.
    const pile = state.game;
    const only = pile.color && pile.top_card && pile.top_card !== card && !pile.chain ? pile.color : null;
    const color = only || await pickColor(t("whichColour", cardName(card)));
    if (!color) return;
    body.color = color;
  }
  if (entry.notes.some((n) => n.includes("names a player"))) {
    const target = await pickPlayer(t("whichPlayer", cardName(card)), state.game.turn);
    if (!target) return;
    body.target = target;
  }
  if ($("#last-card").checked) body.last = true;
  if (await act("/api/game/play", body)) $("#last-card").checked = false;
}

function bind() {
  for (const button of document.querySelectorAll(".langs button")) {
    button.addEventListener("click", async () => {
      localStorage.setItem(LANG_KEY, button.dataset.lang);  // remembered on this phone
      await showLanguage(button.dataset.lang);
      rules = {};  // the rule set names in the new language
      refresh();
    });
  }
  $("#banner-close").addEventListener("click", clearError);
  $("#view-toggle").addEventListener("click", () => {
    const on = document.body.classList.toggle("table-view");
    $("#view-toggle").setAttribute("aria-pressed", String(on));
    $("#view-toggle").dataset.i18n = on ? "phoneView" : "tableView";
    $("#view-toggle").textContent = t($("#view-toggle").dataset.i18n);
  });
  $("#code-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(CODE_KEY, $("#code").value.trim());
    try {
      await api("POST", "/api/code/check", {});
      $("#code-status").textContent = t("codeAccepted");
      $("#code-status").className = "small ok";
      clearError();
    } catch (error) {
      $("#code-status").textContent = error.status === 403 ? t("wrongCode") : `✖ ${error.message}`;
      $("#code-status").className = "small bad";
    }
  });
  $("#press").addEventListener("click", () => act("/api/press"));
  $("#resume").addEventListener("click", () => act("/api/resume"));
  $("#reset").addEventListener("click", () => act("/api/reset"));
  $("#undo").addEventListener("click", () => act("/api/game/undo"));
  $("#repair").addEventListener("click", () => act("/api/game/repair"));
  $("#uno").addEventListener("click", async () => {
    const player = await pickPlayer(t("whoUno"));
    if (player) act("/api/game/uno", { player });
  });
  $("#catch").addEventListener("click", () => act("/api/game/catch", { player: state.game.catchable }));
  $("#hint").addEventListener("click", async () => {
    const player = await pickPlayer(t("whoAdvice"));
    if (player) act("/api/game/hint", { player });
  });
  $("#first-attack").addEventListener("click", async () => {
    const color = await pickColor(t("firstAttackColour"));
    if (!color) return;
    const target = await pickPlayer(t("whoAttacked"), state.game.turn);
    if (target) act("/api/game/first-attack", { color, target });
  });
  $("#reload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("/api/reload", { cards: Number($("#reload-cards").value) });
  });
  $("#winner").addEventListener("change", updateHands);
  $("#end-round-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const winner = $("#winner").value;
    const hands = {};
    for (const input of document.querySelectorAll("#hands input")) {
      if (input.name !== winner && input.value.trim()) hands[input.name] = input.value.trim();
    }
    if (await act("/api/game/end-round", { winner, hands })) {
      $("#end-round-box").open = false;
      delete $("#hands").dataset.key;
    }
  });
  $("#new-rules").addEventListener("change", renderOptions);
  $("#new-scoring").addEventListener("change", () => { $("#scoring-doc").textContent = scorings[$("#new-scoring").value] || ""; });
  $("#new-game-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = $("#new-players").value.split(",").map((n) => n.trim()).filter(Boolean);
    const options = {};
    for (const select of document.querySelectorAll("#new-options select")) options[select.name] = select.value;
    const body = { rules: $("#new-rules").value, players, options, scoring: $("#new-scoring").value,
      target: Number($("#new-target").value) || 500 };
    if ($("#new-force").checked) body.force = true;
    if (await act("/api/game/new", body)) $("#new-game-box").open = false;
  });
  $("#stats-box").addEventListener("toggle", () => { if ($("#stats-box").open) loadStats(); });
  $("#qr-show").addEventListener("click", async () => {
    const headers = { "X-Join-Code": code() };
    if (chosenLang()) headers["Accept-Language"] = chosenLang();
    const response = await fetch("/api/qr.svg", { headers });
    if (!response.ok) {
      showError(new ApiFailure(response.status, await response.json()));
      return;
    }
    $("#qr").src = URL.createObjectURL(await response.blob());
    $("#qr-url").textContent = response.headers.get("X-Page-Url");
    $("#qr-figure").hidden = false;
  });
}

function renderOptions() {
  const rs = rules[$("#new-rules").value];
  $("#new-options").replaceChildren(...Object.entries(rs ? rs.options : {}).map(([name, option]) =>
    el("label", { title: option.doc }, `${name.replace("_", " ")} `,
      (() => {
        const select = el("select", { name }, ...option.choices.map((c) => el("option", { value: c }, c)));
        select.value = option.default;
        return select;
      })(),
      el("span", { class: "small" }, ` ${option.doc}`))));
}

async function loadRules() {
  // In English whatever the page's language: the card buttons read what each card does from its notes.
  const data = await api("POST", "/api/game/rules?lang=en", {});
  for (const rs of data.rulesets) rules[rs.id] = rs;
  scorings = data.scorings;
  $("#new-rules").replaceChildren(...data.rulesets.map((rs) => el("option", { value: rs.id }, rs.id + (rs.default ? t("box2023") : ""))));
  $("#new-scoring").replaceChildren(...Object.keys(scorings).map((s) => el("option", { value: s }, s)));
  $("#scoring-doc").textContent = scorings[$("#new-scoring").value];
  $("#new-target").value = data.target;
  renderOptions();
}

// ---- live updates -------------------------------------------------------------------------------

async function refresh() {
  try {
    state = await api("GET", "/api/state");
  } catch (error) {
    if (error.status === 503) setLink(false);
    else setLink(false, t("reconnectingWeb"));
    return;
  }
  setLink(true);
  // Without a choice of the reader's, the page speaks the language launcher-web answered in.
  if (!chosenLang() && state.lang !== lang) await showLanguage(state.lang);
  if (!Object.keys(rules).length) {
    try { await loadRules(); } catch (error) { showError(error); }
  }
  render();
}

function scheduleRefresh() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 80);
}

function listen() {
  const asked = chosenLang() ? `?lang=${chosenLang()}` : "";
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events${asked}`);
  socket.addEventListener("message", (message) => {
    const { event, params } = JSON.parse(message.data);
    if (event === "link") {
      setLink(params.connected);
      if (params.connected) scheduleRefresh();
      return;
    }
    if (event === "game/code_changed") {
      showError(new Error(t("codeChanged")));
      $("#code-status").textContent = "";
    }
    scheduleRefresh();
  });
  socket.addEventListener("close", () => {
    setLink(false, t("reconnectingWeb"));
    setTimeout(() => { listen(); refresh(); }, 1000);
  });
}

function start() {
  const params = new URLSearchParams(location.search);
  if (params.get("code")) {
    localStorage.setItem(CODE_KEY, params.get("code"));
    params.delete("code");  // out of the address bar: it would show up in a screenshot or a shared link
    history.replaceState(null, "", location.pathname + (params.toString() ? `?${params}` : ""));
  }
  $("#code").value = code();
  showLanguage(chosenLang() || browserLang());
  bind();
  if (params.get("view") === "table") $("#view-toggle").click();
  refresh();
  listen();
}

document.addEventListener("DOMContentLoaded", start);
