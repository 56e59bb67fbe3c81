// What the page shows: the launcher and the table, the matches set aside, the table display, statistics.
"use strict";

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
  // What is wrong with the game log and what to do, from game/status (controller/log/damage.py).
  const damage = game ? game.damage : state.game_damage;
  $("#damage").hidden = !damage;
  if (damage) $("#damage-text").textContent = t("damage", damage.what, damage.todo);
}

function markBareTurn() {
  $("#new-force-box").hidden = !state.game;  // only a running match is set aside
  // On a phone the bar says whose move and what now: the panel keeps the round, the colour and the
  // moment's buttons, and goes when it has none of them (a shorter page, #40).
  const turn = $("#turn");
  const shown = [...turn.children].some((c) => !c.hidden && c.id !== "turn-name" && c.id !== "turn-what"
    && (c.textContent.trim() || c.children.length));
  turn.classList.toggle("bare", !shown);
}

function renderTurn(game) {
  const match = game ? game.match : null;
  $("#chain").hidden = true;
  $("#catchable-line").hidden = true;
  if (!game) {
    $("#round-line").textContent = "";
    $("#turn-color").hidden = true;
    $("#turn-name").textContent = t("noGame");
    $("#turn-what").textContent = state.game_error || t("startOne");
    $("#direction").textContent = "";
    return;
  }
  $("#round-line").textContent = t("roundLine", game.round, (t("rulesetName") || {})[game.ruleset] || game.ruleset, game.dealer);
  $("#direction").textContent = t(game.direction === "clockwise" ? "clockwise" : "counterclockwise");
  if (match.match_over) {
    const winner = Array.isArray(match.winner) ? match.winner.join(t("and")) : match.winner;
    $("#turn-name").textContent = `★ ${winner}`;
    $("#turn-what").textContent = t("winsMatch");
  } else if (game.owed && deviceOf(game) !== "launcher") {
    // Classic, Despicable Me 4: the launcher deals what is owed; Blast: insertions owed.
    $("#turn-name").textContent = game.owed.player;
    $("#turn-what").textContent = deviceOf(game) === "blaster" ? t("nowInserts", game.owed.inserts ?? game.owed.presses)
      : t("nowDealt", game.owed.cards ?? game.owed.presses);
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
  } else if (deviceOf(game) !== "launcher") {
    // Wild Mega Minions: the table enters the counts for whoever played it.
    $("#turn-name").textContent = game.awaiting === "minions" ? minionsPlayer(game) : game.turn;
    $("#turn-what").textContent = momentText(game);
  } else {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = t("playsOrPresses");
  }
  // The colour a Wild named (or the pile's): a swatch and its name, never colour alone.
  const color = $("#turn-color");
  color.hidden = !game.color || match.match_over;
  if (game.color) {
    const named = String(game.top_card || "").startsWith("wild");  // a Wild named it; else the pile's
    color.replaceChildren(el("span", { class: `swatch ${game.color}`, "aria-hidden": "true" }),
      t(named ? "colourNamed" : "colourPile", colorName(game.color)));
  }
  if (game.chain) {
    const chain = game.chain;
    $("#chain").textContent = t(chain.stacks ? "chain" : "chainOpen", chain);
    $("#chain").hidden = false;
  }
  if (catchTarget(game)) {
    $("#catchable-line").textContent = t("catchable", catchTarget(game));
    $("#catchable-line").hidden = false;
  }
}

// The matches set aside (game/history): resumable from the page.
let historyKey = null;
async function renderMatches(game) {
  // game/history replays the log (a heavy read, counted against a reader that has not joined):
  // asked again only when the table's match changes, or, without one, when launcherd said something.
  const lastSaid = state.messages.length ? state.messages[state.messages.length - 1].n : 0;
  const key = `${game ? game.match_id : `none#${lastSaid}`}#${lang}`;
  if (historyKey === key) return;
  historyKey = key;
  let matches;
  try {
    matches = await api("POST", "/api/game/history", { limit: 8 });
  } catch (error) {
    return;
  }
  const aside = matches.filter((m) => !m.current && !m.finished && !m.error).reverse();
  $("#matches-panel").hidden = !aside.length;
  $("#matches").replaceChildren(...aside.map((m) => el("li", { "data-match": m.id }, el("span", {}, t("matchEntry", m)),
    el("button", { type: "button", "data-resume": m.id, onclick: () => act("/api/game/resume", { match: m.id }, said("resume")) }, t("resume")))));
}

// The page orders itself by what the table needs now (issue #40): the turn and its instruction,
// then the step the moment asks (the join code, New game, the launcher's reload, the hands at the
// end of a round, the cards to play), then the rest.
function needsLauncher(game) {
  const advice = state.launcher_advice;
  const reload = game ? game.reload_advice : null;
  return Boolean(state.launcher.pending) || state.launcher.state === "halted" || Boolean(dealReload(game))
    || !["ready", "launching", "firing", "sleeping"].includes(advice.state) || Boolean(reload && reload.reload);
}

function joinFirst() { return !code() || codeState === "wrong"; }

let sectionsKey = null;
let hadGame = null;
let joinWasFirst = null;
function placeSections(game) {
  const join = joinFirst() ? ["join-panel"] : [];
  const rest = ["players-panel", "launcher", "end-round", "scores-panel", "messages-panel", "stats-panel",
    "matches-panel", "new-game", "join-panel"];
  let first;
  if (!game) first = ["turn", "steps", ...join, "matches-panel", "new-game", "launcher"];
  else if (game.round_over || game.match.match_over) first = ["turn", ...join, "end-round", "scores-panel", "players-panel"];
  else if (needsLauncher(game)) first = ["turn", "steps", ...join, "launcher", "act", "players-panel"];
  else first = ["turn", "steps", ...join, "act", "players-panel"];
  const order = [...first, ...rest.filter((id) => !first.includes(id)), "act"].filter((id, i, all) => all.indexOf(id) === i);
  const key = order.join();
  // The join code folds once given, and opens when it is the step (none yet, or refused).
  if (joinWasFirst !== joinFirst()) {
    joinWasFirst = joinFirst();
    $("#join-box").open = joinWasFirst;
  }
  // The calm launcher is one compact panel below the play; what needs a person is said in full.
  $("#launcher").classList.toggle("calm", !(game ? needsLauncher(game) : false));
  if (key === sectionsKey) return;
  if (hadGame !== Boolean(game)) {
    hadGame = Boolean(game);
    $("#new-game-box").open = !game;  // open when it is the step, folded once a game runs
    $("#matches-box").open = !game;  // so are the matches set aside, to resume one
  }
  sectionsKey = key;
  const main = $("main");
  // Only the sections that move are moved: a moved node loses the focus of what it holds.
  order.forEach((id, i) => {
    const section = document.getElementById(id);
    if (main.children[i] !== section) main.insertBefore(section, main.children[i]);
  });
}

// The first game's steps, one at a time: join, New game, load the cards, play; until the first move.
function renderSteps(game) {
  const started = game && (game.round > 1 || game.round_over || game.top_card !== null
    || game.players.some((p) => p.cards_taken || p.presses) || (game.match.totals && Object.values(game.match.totals).some(Boolean)));
  const panel = $("#steps");
  panel.hidden = Boolean(started) || document.body.classList.contains("table-view");
  if (panel.hidden) return;
  const done = [!joinFirst(), Boolean(game), Boolean(game) && !dealReload(game), false];
  const now = done.indexOf(false);
  // One line: the step now said whole, the others a mark each (their words for screen readers).
  $("#steps-list").replaceChildren(...t("steps").map((label, i) => el("li", {
    class: done[i] ? "done" : i === now ? "step-now" : "later", "data-step": i + 1, "aria-current": i === now ? "step" : "false" },
  el("span", { class: "step-mark", "aria-hidden": "true" }, done[i] ? "✔" : `${i + 1}.`), " ", el("span", { class: "step-label" }, label))));
}

function render() {
  const game = state.game;
  renderGameLayer();
  if ($("#code-status").dataset.said) $("#code-status").textContent = t($("#code-status").dataset.said);
  placeSections(game);
  renderSteps(game);
  renderTurn(game);
  renderDamage(game);
  renderLauncher();
  renderPlayers(game);
  renderActions(game);
  renderEndRound(game);
  renderScores();
  renderMessages();
  renderNow(game);
  renderMatches(game);
  renderTableCode();
  markBareTurn();
  if ($("#stats-box").open) loadStats();
}

// The table display: the join code, big, and the QR code of the page's address on the table's network.
function renderTableCode() {
  const table = document.body.classList.contains("table-view");
  const on = table && Boolean(code());
  $("#table-code").hidden = !table;
  $("#table-code").classList.toggle("small", !on);
  if (!table) return;
  // Nobody taps a table display: its code, its QR code and the log are shown unfolded.
  $("#join-box").open = true;
  $("#messages-box").open = true;
  if (!on) { $("#table-code").textContent = t("tableNeedsCode"); return; }
  $("#table-code").textContent = `${t("joinCode")}: ${code()}`;
  if ($("#qr-figure").hidden && !qrAsked) { qrAsked = true; showQr(); }
}
let qrAsked = false;

// ---- statistics -----------------------------------------------------------------------------------

function barChart(title, rows, unit, alt) {
  const width = 320, rowHeight = 30, label = 90;
  const top = Math.max(1, ...rows.map((r) => r.value));
  const chart = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${rows.length * rowHeight + 28}`, role: "img",
    "aria-label": `${title}: ` + rows.map((r) => `${r.name} ${r.value}`).join(", ") });
  chart.append(svg("text", { x: 0, y: 16 }, title));
  rows.forEach((r, i) => {
    const y = 28 + i * rowHeight;
    const length = Math.round((width - label - 90) * r.value / top);  // room for "12.5 min" after the bar
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
