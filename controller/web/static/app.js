// The table page: everything it shows comes from GET /api/state, refreshed on every event the
// launcher-web WebSocket relays; every action is one POST with the join code (docs/web.md).
// No framework and no build step: the page must work on a Pi with no internet at all.
"use strict";

const $ = (selector) => document.querySelector(selector);
const COLORS = ["red", "yellow", "green", "blue"];
const CODE_KEY = "card-launcher-join-code";

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
  return card.split("-").map((word) => word[0].toUpperCase() + word.slice(1)).join(" ")
    .replace("Wild Attack", "Wild Attack-Attack");
}

function plural(n, word, many = `${word}s`) { return `${n} ${n === 1 ? word : many}`; }

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
  if (error.status === 403) text = `✖ Refused: ${error.message}`;
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

const pickColor = (title) => pick(title, COLORS.map((c) => ({ value: c, label: c, swatch: c })));

function pickPlayer(title, except) {
  const names = (state.game ? state.game.players.map((p) => p.name) : []).filter((n) => n !== except);
  return pick(title, names.map((name) => ({ value: name, label: name })));
}

// ---- rendering ----------------------------------------------------------------------------------

function setLink(up, text) {
  const link = $("#link");
  link.className = `link ${up ? "up" : "down"}`;
  link.textContent = text || (up ? "● live" : "⟳ reconnecting to the launcher…");
  // What is shown is the last known state, not the present one: say so until the link is back.
  document.body.classList.toggle("stale", !up);
  if (!up) {
    $("#launcher-state").textContent = "⟳ not reachable: the launcher is restarting; this page catches up by itself";
    $("#launcher-state").classList.add("trouble");
  }
}

function owedBy(game) {
  const owed = {};
  for (const item of game.queue) {
    const before = owed[item.player];
    const presses = item.presses === null ? "until cards" : item.presses;
    owed[item.player] = before === undefined ? presses
      : (typeof before === "number" && typeof presses === "number" ? before + presses : `${before} + ${presses}`);
  }
  return owed;
}

const REASONS = { uno: "Uno penalty", hint: "advice penalty", "all-hit": "Wild All Hit",
  "hit-fire": "until cards come out", "first-card": "the card turned up",
  "last-card-attack": "last-card attack: those cards count in the score" };

function renderDamage(game) {
  // What is wrong with the game log and what to do, from game/status (controller/damage.py).
  const damage = game ? game.damage : state.game_damage;
  $("#damage").hidden = !damage;
  if (damage) $("#damage-text").textContent = `⚠ game log: ${damage.what} · what to do: ${damage.todo}`;
}

function renderTurn(game) {
  const match = game ? game.match : null;
  $("#chain").hidden = true;
  $("#catchable-line").hidden = true;
  if (!game) {
    $("#round-line").textContent = "";
    $("#turn-name").textContent = "No game";
    $("#turn-what").textContent = state.game_error || "start one under New game";
    $("#direction").textContent = "";
    return;
  }
  $("#round-line").textContent = `Round ${game.round} · ${game.ruleset} · dealer ${game.dealer}`;
  $("#direction").textContent = game.direction === "clockwise" ? "↻ play goes clockwise" : "↺ play goes counterclockwise";
  if (match.match_over) {
    const winner = Array.isArray(match.winner) ? match.winner.join(" and ") : match.winner;
    $("#turn-name").textContent = `🏆 ${winner}`;
    $("#turn-what").textContent = "wins the match";
  } else if (game.owed) {
    const owed = game.owed;
    $("#turn-name").textContent = owed.player;
    let what = owed.presses === null ? "presses until cards come out" : `owes ${plural(owed.presses, "press", "presses")}`;
    if (game.chain && game.chain.target === owed.player && !["uno", "hint"].includes(owed.reason)) what += " or stacks a Hit card";
    if (REASONS[owed.reason] && owed.reason !== "hit-fire") what += ` (${REASONS[owed.reason]})`;
    $("#turn-what").textContent = what;
  } else if (game.round_over) {
    $("#turn-name").textContent = `${game.winner} won round ${game.round}`;
    $("#turn-what").textContent = "enter the hands under End of round";
  } else if (game.awaiting === "first_attack") {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = "names a colour and a player to attack";
  } else {
    $("#turn-name").textContent = game.turn;
    $("#turn-what").textContent = "plays a card or presses";
  }
  if (game.chain) {
    const chain = game.chain;
    $("#chain").textContent = chain.stacks
      ? `⚡ Mega Hit: ${plural(chain.hits, "hit")} on ${chain.target} (started by ${chain.started_by},` +
        ` ${plural(chain.stacks, "card")} stacked on it)`
      : `⚡ Mega Hit open: ${chain.target} presses ${chain.hits} or stacks a Hit card`;
    $("#chain").hidden = false;
  }
  if (game.catchable) {
    $("#catchable-line").textContent = `${game.catchable} did not call Uno: on their last card, catch them below`;
    $("#catchable-line").hidden = false;
  }
}

function renderLauncher() {
  const advice = state.launcher_advice;
  const line = $("#launcher-state");
  line.textContent = `${advice.symbol} ${advice.text}`;
  line.classList.toggle("trouble", !["ready", "launching"].includes(advice.state));
  const burst = state.last_burst;
  $("#last-burst").textContent = !burst ? "No press yet"
    : burst.cards ? `${burst.player} took ${plural(burst.cards, "card")}` : `${burst.player} pressed: nothing came out`;
  const reload = state.game ? state.game.reload_advice : null;
  const hopper = state.launcher.hopper;
  $("#hopper").textContent = reload ? reload.text
    : (hopper === null ? "hopper: unknown" : `the launcher holds about ${plural(hopper, "card")}`);
  const needed = (reload && reload.reload) || advice.state === "empty";
  $("#reload-form").hidden = !needed;
  $("#reload-text").textContent = needed ? "⚠ Reload: shuffle the discard pile (all but its top card) into the hopper" : "";
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
  } else if (box.dataset.ruleset !== rs.id) {
    box.dataset.ruleset = rs.id;
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
  if (game && game.catchable) catchButton.textContent = `Catch ${game.catchable} (no Uno)`;
  $("#hint").hidden = !(rs && rs.hint_penalty);
}

function renderEndRound(game) {
  const winner = $("#winner");
  const hands = $("#hands");
  if (!game) { winner.replaceChildren(); hands.replaceChildren(); return; }
  const names = game.players.map((p) => p.name);
  const key = names.join("\n") + `#${game.round}`;
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
  hands.replaceChildren(...names.map((n) => el("label", { "data-hand": n }, `${n}'s hand `,
    el("input", { name: n, autocomplete: "off", placeholder: "points, or cards: 7, hit-2, wild" }))));
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
    $("#scores-line").textContent = "no match yet";
    $("#match-winner").hidden = true;
    return;
  }
  const players = scores.players;
  $("#scores-line").textContent = `${scores.scoring} scoring, target ${scores.target}` +
    (scores.match_over ? "" : ` · next: round ${scores.round}, dealer ${scores.dealer}`);
  const head = el("tr", {}, el("th", { scope: "col" }, "Round"), ...players.map((n) => el("th", { scope: "col" }, n)), el("th", { scope: "col" }, "Winner"));
  const rows = scores.rounds.map((r) => el("tr", {}, el("td", {}, r.round),
    ...players.map((n) => el("td", {}, r.points[n] ?? "")), el("td", {}, r.winner)));
  const total = el("tr", { class: "total" }, el("th", { scope: "row" }, "Total"),
    ...players.map((n) => el("td", { "data-total": n }, scores.totals[n])), el("td", {}, ""));
  table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows, total));
  const winner = $("#match-winner");
  winner.hidden = !scores.match_over;
  if (scores.match_over) {
    winner.textContent = `🏆 Winner: ${Array.isArray(scores.winner) ? scores.winner.join(" and ") : scores.winner}`;
  }
}

function renderMessages() {
  $("#messages").replaceChildren(...state.messages.slice(-8).reverse().map((m) => el("li", {}, m.text)));
}

function render() {
  const game = state.game;
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
  const rows = [["presses", "Presses"], ["cards", "Cards taken"], ["biggest_burst", "Biggest burst"],
    ["longest_dry_streak", "Longest dry streak"], ["hits_sent", "Hits sent"], ["hits_received", "Hits received"],
    ["rounds_won", "Rounds won"], ...extra];
  const names = Object.keys(players);
  return el("div", { class: "scroll" }, el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, ""), ...names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {}, ...rows.map(([key, label]) => el("tr", {}, el("th", { scope: "row" }, label),
      ...names.map((n) => el("td", {}, players[n][key])))))));
}

async function loadStats() {
  const box = $("#stats");
  let result;
  try {
    result = await api("GET", "/api/stats");
  } catch (error) {
    box.replaceChildren(el("p", { class: "small" }, `statistics unavailable: ${error.message}`));
    return;
  }
  const parts = [];
  const match = result.match;
  if (match) {
    parts.push(el("h2", {}, `Match ${result.match_id}`), statsTable(match.players));
    const facts = [];
    if (match.biggest_burst) facts.push(`Biggest burst: ${match.biggest_burst.player}, ${plural(match.biggest_burst.cards, "card")}`);
    if (match.longest_dry_streak) facts.push(`Longest dry streak: ${match.longest_dry_streak.player}, ${plural(match.longest_dry_streak.presses, "press", "presses")}`);
    if (match.longest_mega_hit) {
      const c = match.longest_mega_hit;
      facts.push(`Longest Mega Hit: ${plural(c.hits, "hit")} in ${plural(c.cards, "card")}, started by ${c.started_by}, pressed by ${c.pressed_by}`);
    }
    parts.push(el("ul", {}, ...facts.map((f) => el("li", {}, f))));
    parts.push(barChart("Cards taken", Object.entries(match.players).map(([name, f]) => ({ name, value: f.cards })), ""));
    if (match.rounds.length) {
      const minutes = match.rounds.some((r) => r.seconds >= 120);
      parts.push(barChart(minutes ? "Minutes per round" : "Seconds per round", match.rounds.map((r) => ({
        name: `Round ${r.round}`, value: minutes ? Math.round(r.seconds / 6) / 10 : Math.round(r.seconds) })),
        minutes ? " min" : " s", true));
    }
  }
  const history = result.history;
  parts.push(el("h2", {}, `All matches: ${history.matches}, rounds: ${history.rounds}`));
  if (Object.keys(history.players).length) {
    parts.push(statsTable(history.players, [["matches", "Matches"], ["matches_won", "Matches won"]]));
  }
  box.replaceChildren(...parts);
}

// ---- actions ----------------------------------------------------------------------------------------

async function playCard(card) {
  const rs = rules[state.game.ruleset];
  const entry = rs.cards.find((c) => c.card === card);
  const body = { card };
  if (card.startsWith("wild")) {
    const color = await pickColor(`${cardName(card)}: which colour?`);
    if (!color) return;
    body.color = color;
  }
  if (entry.notes.some((n) => n.includes("names a player"))) {
    const target = await pickPlayer(`${cardName(card)}: which player?`, state.game.turn);
    if (!target) return;
    body.target = target;
  }
  if ($("#last-card").checked) body.last = true;
  if (await act("/api/game/play", body)) $("#last-card").checked = false;
}

function bind() {
  $("#banner-close").addEventListener("click", clearError);
  $("#view-toggle").addEventListener("click", () => {
    const on = document.body.classList.toggle("table-view");
    $("#view-toggle").setAttribute("aria-pressed", String(on));
    $("#view-toggle").textContent = on ? "Phone view" : "Table display";
  });
  $("#code-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(CODE_KEY, $("#code").value.trim());
    try {
      await api("POST", "/api/code/check", {});
      $("#code-status").textContent = "✔ code accepted";
      $("#code-status").className = "small ok";
      clearError();
    } catch (error) {
      $("#code-status").textContent = error.status === 403 ? "✖ wrong code" : `✖ ${error.message}`;
      $("#code-status").className = "small bad";
    }
  });
  $("#press").addEventListener("click", () => act("/api/press"));
  $("#undo").addEventListener("click", () => act("/api/game/undo"));
  $("#repair").addEventListener("click", () => act("/api/game/repair"));
  $("#uno").addEventListener("click", async () => {
    const player = await pickPlayer("Who calls Uno?");
    if (player) act("/api/game/uno", { player });
  });
  $("#catch").addEventListener("click", () => act("/api/game/catch", { player: state.game.catchable }));
  $("#hint").addEventListener("click", async () => {
    const player = await pickPlayer("Who gave advice?");
    if (player) act("/api/game/hint", { player });
  });
  $("#first-attack").addEventListener("click", async () => {
    const color = await pickColor("The turned-up Wild Attack-Attack: which colour?");
    if (!color) return;
    const target = await pickPlayer("Which player is attacked?", state.game.turn);
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
    const response = await fetch("/api/qr.svg", { headers: { "X-Join-Code": code() } });
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
  const data = await api("POST", "/api/game/rules", {});
  for (const rs of data.rulesets) rules[rs.id] = rs;
  scorings = data.scorings;
  $("#new-rules").replaceChildren(...data.rulesets.map((rs) => el("option", { value: rs.id }, rs.id + (rs.default ? " (the 2023 box)" : ""))));
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
    else setLink(false, "⟳ reconnecting to launcher-web…");
    return;
  }
  setLink(true);
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
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/events`);
  socket.addEventListener("message", (message) => {
    const { event, params } = JSON.parse(message.data);
    if (event === "link") {
      setLink(params.connected);
      if (params.connected) scheduleRefresh();
      return;
    }
    if (event === "game/code_changed") {
      showError(new Error("The table's join code changed: enter the new one"));
      $("#code-status").textContent = "";
    }
    scheduleRefresh();
  });
  socket.addEventListener("close", () => {
    setLink(false, "⟳ reconnecting to launcher-web…");
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
  bind();
  if (params.get("view") === "table") $("#view-toggle").click();
  refresh();
  listen();
}

document.addEventListener("DOMContentLoaded", start);
