// Every action is one POST with the join code; the live updates refresh the page on each event.
"use strict";

// ---- actions ----------------------------------------------------------------------------------------

// A second tap on the same card this soon, in the same player's turn, is one finger's double tap,
// not a second wish: it is dropped (the card would be played for the next player too, or asked a
// colour of him). The next player's own tap of that card comes in a turn of their own.
const DOUBLE_TAP_MS = 400;
let lastCardTap = { key: "", at: -Infinity };

function doubleTap(card) {
  const key = `${card} ${state && state.game ? state.game.turn : ""}`;
  const at = performance.now();
  const again = key === lastCardTap.key && at - lastCardTap.at < DOUBLE_TAP_MS;
  lastCardTap = { key, at };
  return again;
}

async function playCard(card) {
  if (doubleTap(card)) return;  // at the tap: what it sends is decided once the taps before it are in
  // What the card asks and sends (the pile's colour, whom it names) is read from the state: the
  // state that the game taps before this one bring, not the one drawn when it was tapped.
  await gameTaps;
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
      // The last answer and refusal are said again in the new language (app.js sayAgain), as the
      // log, the moment and every label are drawn again in it.
      delete document.body.dataset.saidIn;
      // Drawn once the state is in the new language: launcherd's texts in it, not the old ones.
      await showLanguage(button.dataset.lang, false);
      rules = {};  // the rule set names in the new language
      await refresh();
      await sayAgain();
      document.body.dataset.saidIn = lang;  // everything in view is said in it now
    });
  }
  $("#banner-close").addEventListener("click", clearError);
  $("#view-toggle").addEventListener("click", () => {
    const on = document.body.classList.toggle("table-view");
    $("#view-toggle").setAttribute("aria-pressed", String(on));
    $("#view-toggle").dataset.i18n = on ? "phoneView" : "tableView";
    $("#view-toggle").textContent = t($("#view-toggle").dataset.i18n);
    if (state) renderTableCode();
  });
  $("#code-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    localStorage.setItem(CODE_KEY, $("#code").value.trim());
    try {
      await api("POST", "/api/code/check", {});
      $("#code-status").textContent = t("codeAccepted");
      $("#code-status").dataset.said = "codeAccepted";  // said again in a new language
      $("#code-status").className = "small ok";
      codeState = "ok";
      clearError();
      if (shownReply && shownReply.bad) reply(null);  // a refusal for want of the code is answered now
      if (state) render();
    } catch (error) {
      $("#code-status").textContent = error.status === 403 ? t("wrongCode") : `✖ ${error.message}`;
      $("#code-status").dataset.said = error.status === 403 ? "wrongCode" : "";
      $("#code-status").className = "small bad";
      if (error.status === 403) { codeState = "wrong"; if (state) render(); }
    }
  });
  $("#press").addEventListener("click", () => act("/api/press", {}, (answer) => (answer && Number.isInteger(answer.cards)
    ? said("pressedCards", answer.cards) : said("pressed"))));
  $("#resume").addEventListener("click", () => act("/api/resume"));
  $("#reset").addEventListener("click", () => act("/api/reset"));
  $("#undo").addEventListener("click", () => act("/api/game/undo"));
  $("#repair").addEventListener("click", () => act("/api/game/repair"));
  $("#uno").addEventListener("click", async () => {
    const player = await pickPlayer(t("whoUno"));
    if (player) act("/api/game/uno", { player });
  });
  $("#catch").addEventListener("click", () => act("/api/game/catch", { player: catchTarget(state.game) }));
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
    const cards = Number($("#reload-cards").value);
    act("/api/reload", { cards }, said("reloadedCards", cards)).then((ok) => {
      if (ok) { delete $("#reload-cards").dataset.typed; $("#reload-box").open = false; reloadedForTheDeal(); render(); }
    });
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
  $("#new-scoring").addEventListener("change", () => { $("#scoring-doc").textContent = scoringDoc($("#new-scoring").value); });
  $("#new-game-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = $("#new-players").value.split(",").map((n) => n.trim()).filter(Boolean);
    const options = {};
    for (const select of document.querySelectorAll("#new-options select")) options[select.name] = select.value;
    const body = { rules: $("#new-rules").value, players, options, scoring: $("#new-scoring").value,
      target: Number($("#new-target").value) || 500 };
    if ($("#new-force").checked) body.force = true;
    if (await act("/api/game/new", body)) {
      $("#new-game-box").open = false;
      window.scrollTo(0, 0);  // the next step (loading the cards, the first move) is at the top
    }
  });
  $("#stats-box").addEventListener("toggle", () => { if ($("#stats-box").open) loadStats(); });
  $("#qr-show").addEventListener("click", showQr);
  $("#abandon").addEventListener("click", async () => {
    if (await pick(t("abandonSure"), [{ value: "yes", label: t("yesAbandon") }])) act("/api/game/abandon", {}, said("abandon"));
  });
  $("#reload-cards").addEventListener("input", () => { $("#reload-cards").dataset.typed = "1"; });
  // The bar's prompt (a reload, the launcher's trouble) opens what it points at.
  $("#now-launcher").addEventListener("click", () => { if (!$("#reload-box").hidden && dealReload(state.game)) $("#reload-box").open = true; });
  $("#reload-box").addEventListener("toggle", () => { if ($("#reload-box").open) proposeRefill(); });
}

async function showQr() {
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
  $("#qr-show").hidden = true;
}

function renderOptions() {
  // Every option in plain words with a line of explanation (the page's wording table, in the page's
  // language); an option this page does not know yet shows the daemon's own line, without § numbers.
  const rs = rules[$("#new-rules").value];
  $("#rules-doc").textContent = rs ? ((t("rulesetDoc") || {})[rs.id] || rs.source || "") : "";
  const plain = (text) => String(text).replace(/\s*\((?:§\s*\d+|\d{3})\)/g, "").replace(/_/g, " ");
  $("#new-options").replaceChildren(...Object.entries(rs ? rs.options : {}).map(([name, option]) => {
    const [label, choices, help] = (t("options") || {})[name] || [plain(name), null, plain(option.doc)];
    const select = el("select", { name, "data-option": name },
      ...option.choices.map((c) => el("option", { value: c }, (choices && choices[c]) || plain(c))));
    select.value = option.default;
    return el("label", { class: "option" }, el("span", {}, label), select, el("span", { class: "small help" }, help));
  }));
}

function scoringDoc(id) { return (t("scoringDoc") || {})[id] || scorings[id] || ""; }

async function loadRules() {
  // In English whatever the page's language: the card buttons read what each card does from its notes.
  const data = await api("POST", "/api/game/rules?lang=en", {});
  for (const rs of data.rulesets) rules[rs.id] = rs;
  scorings = data.scorings;
  const chosen = $("#new-rules").value;  // a reader's choice outlives a switch of language
  $("#new-rules").replaceChildren(...data.rulesets.map((rs) => el("option", { value: rs.id },
    ((t("rulesetName") || {})[rs.id] || rs.id))));
  if (chosen && rules[chosen]) $("#new-rules").value = chosen;
  $("#new-scoring").replaceChildren(...Object.keys(scorings).map((s) => el("option", { value: s }, (t("scoringName") || {})[s] || s)));
  $("#scoring-doc").textContent = scoringDoc($("#new-scoring").value);
  $("#new-target").value = data.target;
  renderOptions();
}

// ---- live updates -------------------------------------------------------------------------------

let linkEvents = 0;  // link events seen: a state asked before the last one may be older than it

async function refresh() {
  const asked = linkEvents;
  try {
    const fresh = await api("GET", "/api/state");
    if (asked !== linkEvents) { scheduleRefresh(); return; }  // the link changed meanwhile: ask again
    state = fresh;
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
  // The link went down (or came back) while the language or the rules loaded: the state just drawn
  // is older than that, and would say "ready" of a launcher that is not reachable.
  if (asked !== linkEvents) scheduleRefresh();
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
      linkEvents += 1;
      setLink(params.connected);
      if (params.connected) scheduleRefresh();
      return;
    }
    if (event === "game/code_changed") {
      showError(Object.assign(new Error(""), { part: said("codeChanged") }));
      reply([said("codeChanged")], true, { plain: true });
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
