// The moment: what it needs, and only what the rules allow now (game/status's choices).
"use strict";

// "launcher" (UNO Attack: presses), "dealer" (classic, Despicable Me 4: the launcher deals), "blaster".
function deviceOf(game) {
  const rs = game ? rules[game.ruleset] : null;
  if (rs && rs.device) return rs.device;
  if (game && ["classic", "despicable-me-4"].includes(game.ruleset)) return "dealer";
  return game && game.ruleset === "blast" ? "blaster" : "launcher";
}

// Whom a catch is offered against: a player the game knows may be on their last card without
// having said Uno (catchable_players), not merely the last one to play (catchable, older launcherd).
function catchTarget(game) {
  if (!game) return null;
  if (Array.isArray(game.catchable_players)) return game.catchable_players[0] || null;
  return game.catchable || null;
}

// The daemon's own "what now" when it says one (a newer launcherd), else the page's.
function daemonWhatNow(game) {
  for (const key of ["what_now", "now"]) {
    const value = game[key];
    if (typeof value === "string" && value) return value;
    if (value && typeof value.text === "string" && value.text) return value.text;
  }
  return null;
}

function momentText(game) {
  const spoken = daemonWhatNow(game);
  if (spoken) return spoken;
  const p = game.turn;
  const challenge = game.challenge || {};
  switch (game.awaiting) {
    case "challenge_or_accept": return t("nowChallenge", challenge.challenger || p, challenge.player || "?");
    case "challenge_result": return t("nowResult", challenge.challenger || p, challenge.player || "?");
    case "minions": return t("nowMinions", minionsPlayer(game));
    case "play_or_pass": return t("nowDrawn", p);
    default: break;
  }
  if (deviceOf(game) === "blaster") return t("nowBlast", p);
  if (game.top_card === null && !game.queue.length) return `${p}: ${t("nowTurnUp")}`;
  return t("nowDealer", p);
}

function minionsPlayer(game) {
  // Whoever played the Wild Mega Minions Power: the one before the player whose move it is.
  const names = game.players.map((x) => x.name);
  const at = names.indexOf(game.turn);
  const step = game.direction === "clockwise" ? -1 : 1;
  return names[(at + step + names.length) % names.length] || game.turn;
}

// The actions the moment allows: game/status's `choices` when launcherd says them, else derived
// from the ruleset and the state as launcherd checks them (controller/rules/classic.py, blast.py).
function choicesNow(game) {
  if (!game || game.match.match_over || game.round_over) return new Set();
  const device = deviceOf(game);
  const owed = game.queue.length > 0;
  if (Array.isArray(game.choices)) {
    const listed = new Set(game.choices.map((c) => String(typeof c === "string" ? c : (c.action || c.method || c.type || c.id || ""))
      .replace(/^game\//, "").replace(/_/g, "-").split(":")[0]));
    // Out of turn, whatever the moment: Uno, and catching the player launcherd marks.
    listed.add("uno");
    if (catchTarget(game)) listed.add("catch");
    // In a dealer game a draw is the button's press (the launcher deals exactly one card).
    if (device === "dealer" && listed.has("draw")) listed.add("press");
    if (device === "launcher" && owed && listed.has("play")) {  // presses owed: only a Hit answers a Mega Hit
      listed.delete("play");
      if (game.chain) listed.add("play-hit");
    }
    return listed;
  }
  const allowed = new Set(["uno"]);
  if (catchTarget(game)) allowed.add("catch");
  if (device === "launcher") {
    // Presses owed: nothing is played, but a Hit card answers an open Mega Hit (controller/rules/game.py).
    if (game.awaiting === "first-attack" || game.awaiting === "first_attack") allowed.add("first-attack");
    else if (!owed) allowed.add("play");
    else if (game.chain) allowed.add("play-hit");
    allowed.add("press");
    return allowed;
  }
  if (device === "blaster") {
    if (!owed) allowed.add("play");
    allowed.add("insert");
    if (game.top_card === null && !owed) allowed.add("turn-up");
    return allowed;
  }
  // dealer: a deal under way waits (a press restarts one an undo held); a decision pending is all there is
  if (owed) {
    if (state.launcher.state === "ready") allowed.add("press");  // not while it deals: it ignores a press then
    return allowed;
  }
  switch (game.awaiting) {
    case "challenge_or_accept": return new Set(["accept", "challenge"]);
    case "challenge_result": return new Set(["challenge-result"]);
    case "minions": return new Set(["minions"]);
    case "play_or_pass": allowed.add("play"); allowed.add("pass"); return allowed;  // no second draw
    default: break;
  }
  allowed.add("play");
  allowed.add("draw");
  allowed.add("press");
  if (game.top_card === null) allowed.add("turn-up");
  return allowed;
}

function button(id, label, onclick, extra = "") {
  return el("button", { type: "button", id, class: `wide ${extra}`.trim(), onclick }, label);
}

function renderMoment(game, allowed) {
  const box = $("#moment");
  const key = JSON.stringify([game && game.match_id, game && game.round, game && game.awaiting, game && game.top_card,
    game && game.queue.length, game && game.turn, game && game.challenge, [...allowed].sort(), lang]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const parts = [];
  if (!game) { box.replaceChildren(); return; }
  const challenge = game.challenge || {};
  if (allowed.has("turn-up")) {
    parts.push(button("turn-up", t(deviceOf(game) === "dealer" ? "turnUp" : "turnUpByHand"), turnUp, "accent"));
  }
  if (allowed.has("accept")) {
    parts.push(button("accept", t("accept", challenge.challenger || game.turn), () => act("/api/game/accept", {}, said("accept", challenge.challenger || game.turn)), "accent"));
  }
  if (allowed.has("challenge")) {
    const label = said("challenge", challenge.challenger || game.turn, challenge.player || "?");
    parts.push(button("challenge", partText(label), () => act("/api/game/challenge", {}, label), "accent"));
  }
  if (allowed.has("challenge-result")) {
    parts.push(button("legal", t("legal", challenge.challenger || game.turn), () => act("/api/game/challenge-result", { result: "legal" }), "accent"));
    parts.push(button("illegal", t("illegal", challenge.player || "?"), () => act("/api/game/challenge-result", { result: "illegal" }), "accent"));
  }
  if (allowed.has("minions")) {
    const by = minionsPlayer(game);
    const inputs = game.players.filter((x) => x.name !== by).map((x) => el("label", { class: "count" }, `${x.name} `,
      el("input", { type: "number", inputmode: "numeric", min: "0", max: "30", value: "0", name: x.name, required: "" })));
    const form = el("form", { id: "minions-form" }, el("p", { class: "prompt" }, t("minionsHelp")), ...inputs,
      el("button", { type: "submit", class: "wide accent" }, t("minionsGo")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const counts = {};
      for (const input of form.querySelectorAll("input")) counts[input.name] = Number(input.value) || 0;
      act("/api/game/minions", { counts });
    });
    parts.push(form);
  }
  if (allowed.has("draw")) parts.push(button("draw", t("draw"), () => act("/api/game/draw", {}, said("draw"))));
  if (allowed.has("pass")) parts.push(button("pass", t("pass"), () => act("/api/game/pass", {}, said("pass"))));
  if (allowed.has("insert") && !blasterFitted()) {
    const p = game.queue.length ? game.queue[0].player : game.turn;
    parts.push(button("insert-safe", t("insertSafe", p), () => act("/api/game/insert", { blast: false, cards: 0 })));
    parts.push(button("insert-blast", t("insertBlast", p), async () => {
      const n = await pick(t("howMany"), Array.from({ length: 12 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) })));
      if (n) act("/api/game/insert", { blast: true, cards: Number(n) });
    }));
  }
  box.replaceChildren(...parts);
}

function blasterFitted() { return Boolean(state && state.launcher && Array.isArray(state.launcher.slots)); }

async function turnUp() {
  // The launcher deals one card face up; then the table says which it is (an action card is
  // ignored by the rules: the button stays, for the next one).
  if (deviceOf(state.game) === "dealer" && !(await act("/api/turn-up", {}, said("turnUp")))) return;
  const rs = rules[state.game.ruleset];
  const card = await pick(t("whichFirst"), rs.cards.map((c) => ({ value: c.card, label: cardName(c.card) })));
  if (!card) return;
  const body = { card };
  const color = await pickColor(t("whichColour", cardName(card)));
  if (!color) return;
  body.color = color;
  act("/api/game/turn-up", body);
}

function renderNow(game) {
  // The launcher needs a person first (jammed, empty, lid open, halted, a motion waiting for a
  // press): said in the bar too, a tap away from its button.
  const advice = state.launcher_advice;
  const trouble = !["ready", "launching", "firing", "sleeping"].includes(advice.state) || Boolean(state.launcher.pending);
  const deal = dealReload(game);
  $("#now-launcher").hidden = !trouble && !deal;
  // "⚠", not a pause sign: a glyph the default fonts of Raspberry Pi OS (DejaVu) and phones have.
  if (trouble) $("#now-launcher").textContent = state.launcher.pending ? `⚠ ${state.launcher.pending_text}` : `${advice.symbol} ${advice.text}`;
  else if (deal) $("#now-launcher").textContent = t("nowReload", deal.wanted);
  const who = $("#now-who");
  const what = $("#now-what");
  if (!game) {
    who.textContent = t("noGame");
    what.textContent = t(joinFirst() ? "nowJoinFirst" : "nowNoGame");
    $("#now-said").hidden = true;
    lastChain = null;
    return;
  }
  who.textContent = $("#turn-name").textContent;
  const sentence = $("#turn-what").textContent;
  // "Bob: accept 4 cards, …" already names the player: the bar does not say it twice, and a
  // sentence whose subject is the player ("Ann starts once …") is said whole, without the name before it.
  const named = who.textContent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  what.textContent = sentence.replace(new RegExp(`^${named}\\s*:\\s*`), "");
  if (who.textContent && new RegExp(`^${named}\\s`).test(what.textContent)) who.textContent = "";
  // The daemon's latest word, unless the tap's answer says it already.
  const last = state.messages.length ? state.messages[state.messages.length - 1].text : "";
  const answered = $("#now-reply").hidden ? "" : $("#now-reply").textContent;
  // A Mega Hit chain whose target has pressed all it owed: say why the turn goes where it goes (the
  // match's option), until that player moves.
  const targetOwes = lastChain && game.queue.some((o) => o.player === lastChain.target);
  if (game.chain && game.chain.stacks) {
    lastChain = { ...game.chain, match: game.match_id };
  } else if (lastChain && (lastChain.match !== game.match_id || game.round_over)) {
    lastChain = null;
  } else if (lastChain && !targetOwes) {
    const resume = (game.options || {}).resume || "after_first_attacker";
    chainNote = { part: said("chainOver", lastChain.started_by, resume === "first_attacker", game.turn), turn: game.turn, match: game.match_id };
    lastChain = null;
  }
  if (chainNote && (chainNote.turn !== game.turn || chainNote.match !== game.match_id || game.owed)) chainNote = null;
  const note = chainNote ? partText(chainNote.part) : last;
  $("#now-said").textContent = note;
  $("#now-said").hidden = !note || (!chainNote && answered.includes(last));
}
let lastChain = null;
let chainNote = null;

// The deal's reload (issue #40): the game's dealing advice asks the table to load the rest of the
// deck into the launcher and reload the hopper. Until the hopper is reloaded (its count changes
// from when the advice was first seen, or it holds the count asked) or the round is under way,
// the bar and the launcher panel prompt it. Blast's deal loads no launcher.
// A dealer game's deck is the game's own word (load_deck), not this advice.
const DEAL_IDS = { dealing_advice: "rest", dealing_advice_any_deck: null };
let dealSeen = null;  // { n, hopper, done }

function dealReload(game) {
  if (!game || game.round_over || game.match.match_over || deviceOf(game) === "blaster") return null;
  // A dealer game waits for its whole deck in the hopper (game/status load_deck): the deck's size.
  if (game.load_deck) return { wanted: game.load_deck.cards };
  const advice = [...state.messages].reverse().find((m) => m.message && Object.hasOwn(DEAL_IDS, m.message.id));
  if (!advice) return null;
  const key = DEAL_IDS[advice.message.id];
  const wanted = key ? advice.message[key] : null;
  const hopper = state.launcher.hopper;
  if (!dealSeen || dealSeen.n !== advice.n) dealSeen = { n: advice.n, hopper, done: wanted !== null && hopper === wanted };
  else if (hopper !== dealSeen.hopper) dealSeen.done = true;
  const started = game.players.some((p) => p.cards_taken || p.presses) || (deviceOf(game) === "launcher" && game.top_card !== null);
  return dealSeen.done || started ? null : { wanted };
}

function reloadedForTheDeal() { if (dealSeen) dealSeen.done = true; }

function renderLauncher() {
  const advice = state.launcher_advice;
  const line = $("#launcher-state");
  line.textContent = `${advice.symbol} ${advice.text}`;
  line.classList.toggle("trouble", !["ready", "launching", "firing"].includes(advice.state));
  line.classList.toggle("is-ready", advice.state === "ready" && !state.launcher.pending);
  // Blast played without a blaster fitted: the launcher has no part in it (nobody presses, nothing
  // is loaded); the panel is the blaster's, its slots as the insertions told them.
  const game = state.game;
  const tableBlast = Boolean(game && deviceOf(game) === "blaster" && !blasterFitted());
  $("#launcher-title").textContent = t(game && deviceOf(game) === "blaster" ? "blaster" : "launcher");
  line.hidden = tableBlast && ["ready", "launching", "firing", "sleeping"].includes(advice.state);
  const burst = state.last_burst;
  // No press yet: nothing to say (a shorter page, #40).
  $("#last-burst").textContent = !burst ? ""
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
  const blaster = state.launcher.device === "blaster" || tableBlast;
  for (const id of ["#hopper", "#last-burst", "#reload-box"]) $(id).hidden = blaster;
  if (!burst) $("#last-burst").hidden = true;
  const deal = blaster ? null : dealReload(game);
  const needed = !blaster && ((reload && reload.reload) || advice.state === "empty" || Boolean(deal));
  $("#reload-text").textContent = !needed ? "" : deal ? t("reloadDeal", deal.wanted) : t("reloadNow");
  const input = $("#reload-cards");
  // Prefilled unless a person typed; the deck a deal waits for replaces a count proposed before.
  if (deal && deal.wanted !== null && !input.dataset.typed && (game.load_deck || !input.value)) input.value = deal.wanted;
  $("#reload-text").hidden = !needed;
  if (needed && !$("#reload-box").dataset.opened) {
    $("#reload-box").open = true;  // once: a reader who closes it keeps it closed
    $("#reload-box").dataset.opened = "1";
  }
  if (!needed) delete $("#reload-box").dataset.opened;
  $("#reload-proposed").textContent = proposedCount === null ? "" : t("proposed", proposedCount);
  $("#reload-proposed").hidden = Boolean(deal);  // the deal's own count is said above it
  if (deal) $("#hopper").hidden = true;  // the launcher's guess, which the reload replaces
  // The deck a deal waits for is the count to load; a refill's count is for a round under way.
  if ($("#reload-box").open && !(game && game.load_deck)) proposeRefill();
  // With a blaster fitted: its slots and what it did last (status/get's blaster keys).
  const slots = tableBlast ? Array.from({ length: 4 }, (_, i) => i < (game.blaster_cards || 0)) : state.launcher.slots;
  $("#blaster").hidden = !Array.isArray(slots);
  if (tableBlast) {
    $("#blaster-slots").replaceChildren(...slots.map((full, i) => el("span", { class: `slot ${full ? "full" : ""}`,
      "data-slot": i + 1, title: t("slot", i + 1, full), "aria-label": t("slot", i + 1, full) }, String(i + 1))));
    $("#blaster-last").textContent = `${t("blasterCards", game.blaster_cards || 0)}. ${t("blasterTable")}`;
  } else if (Array.isArray(slots)) {
    $("#blaster-slots").replaceChildren(...slots.map((full, i) => el("span", { class: `slot ${full ? "full" : ""}`,
      "data-slot": i + 1, title: t("slot", i + 1, full), "aria-label": t("slot", i + 1, full) }, String(i + 1))));
    const last = state.launcher.last;
    $("#blaster-last").textContent = last && last.outcome ? t("blasterLast", last) : "";
  }
}

let refillAsked = 0;
let proposedCount = null;  // the count game/refill-count proposed: said again in a new language
async function proposeRefill() {
  // The count the game proposes (game/refill-count): put in the input unless someone typed.
  const input = $("#reload-cards");
  if (input.dataset.typed || Date.now() - refillAsked < 1500 || !state.game || !code()) return;
  refillAsked = Date.now();
  try {
    const { cards } = await api("POST", "/api/game/refill-count", {});
    if (cards === null || cards === undefined || input.dataset.typed || (state.game && state.game.load_deck)) return;
    input.value = cards;
    proposedCount = cards;
    $("#reload-proposed").textContent = t("proposed", cards);
  } catch (error) { /* no code yet, or no round: the reader types the count */ }
}

// A hand as the game counts it (game/status's hand_sizes, else the player's hand_min/hand_max):
// one number when exact, "5–7" when a range, "?" when not counted.
function handText(game, seat) {
  const sizes = Array.isArray(game.hand_sizes) ? game.hand_sizes[seat] : null;
  const p = game.players[seat];
  const [low, high] = sizes || (p.hand_min !== undefined ? [p.hand_min, p.hand_max] : [null, null]);
  if (low === null || low === undefined) return "?";
  return low === high ? String(low) : `${low}–${high}`;
}

function renderPlayers(game) {
  const body = $("#players tbody");
  if (!game) { body.replaceChildren(); return; }
  const owed = owedBy(game);
  const totals = game.match.totals || {};
  // Blast: nobody presses a button; the column counts each player's insertions, and says so.
  const pressesHead = $("#players th.col-presses");
  pressesHead.dataset.i18n = deviceOf(game) === "blaster" ? "insertsCol" : "presses";
  pressesHead.textContent = t(pressesHead.dataset.i18n);
  body.replaceChildren(...game.players.map((p, seat) => el("tr", { class: p.name === game.turn ? "current" : "", "data-player": p.name },
    el("td", {}, p.name), el("td", { "data-hand": p.name, class: "hand-size", title: t("handTitle") }, handText(game, seat)),
    el("td", { "data-owes": p.name }, owed[p.name] === undefined ? "–" : owed[p.name]),
    el("td", { "data-cards": p.name, class: "col-taken", title: t("takenTitle") }, p.cards_taken),
    el("td", { class: "col-presses" }, p.presses), el("td", {}, totals[p.name] ?? 0))));
}

function renderActions(game) {
  const rs = game ? rules[game.ruleset] : null;
  const allowed = choicesNow(game);
  const hitsOnly = Boolean(game && !allowed.has("play") && allowed.has("play-hit"));
  const playing = Boolean(game && (allowed.has("play") || hitsOnly));
  // The sim's button: not while a decision is pending, and a blaster has none.
  // The opening deal waiting for its deck (load_deck): a person's press deals it once it is loaded.
  const pressDeals = Boolean(game && game.load_deck);
  $("#press").hidden = !state.sim || blasterFitted()
    || Boolean(game && !game.round_over && !game.match.match_over && !allowed.has("press") && !pressDeals);
  renderMoment(game, allowed);
  $("#players-panel").hidden = !game;
  $("#end-round").hidden = !game || game.match.match_over;
  // Where launcherd knows the hands (dealer games), "last card" only for a hand of one.
  const mover = game ? game.players.find((x) => x.name === game.turn) : null;
  const lastPossible = playing && !(mover && typeof mover.hand === "number" && mover.hand !== 1);
  $("#last-card-box").hidden = !lastPossible;
  if (!lastPossible) $("#last-card").checked = false;
  for (const button of document.querySelectorAll(".in-game")) button.hidden = !game;
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
      // What the card does, without the command-line options the notes name ("(--color)").
      const does = notes.map((n) => n.replace(/\s*\((?:--|game )[^)]*\)/g, "")).join("; ");
      return el("button", { type: "button", class: kinds.join(" "), "data-card": card, title: does,
        onclick: () => playCard(card) }, cardName(card));
    }));
  }
  if (!playing) delete box.dataset.ruleset;
  // The cards in the colour a tap plays them in (the pile's, as playCard sends it; a card like the
  // pile's top card or an answer to a Mega Hit asks its colour): they look like the cards in hand.
  box.dataset.color = playing && game.color && game.top_card && !game.chain ? game.color : "";
  for (const cardButton of box.querySelectorAll("button")) {
    cardButton.classList.toggle("asks", cardButton.dataset.card === (game && game.top_card));
  }
  for (const cardButton of box.querySelectorAll("button")) cardButton.hidden = hitsOnly && !cardButton.classList.contains("attack");
  $("#first-attack-box").hidden = !allowed.has("first-attack");
  const catchButton = $("#catch");
  // Catch only a player the daemon marks as on their last card without Uno.
  catchButton.hidden = !(catchTarget(game) && allowed.has("catch"));
  if (catchTarget(game)) catchButton.textContent = t("catchButton", catchTarget(game));
  $("#hint").hidden = !(rs && rs.hint_penalty && game && !game.round_over && !game.match.match_over);
  $("#uno").hidden = !(game && allowed.has("uno"));
}

function renderEndRound(game) {
  const winner = $("#winner");
  const hands = $("#hands");
  if (!game) { winner.replaceChildren(); hands.replaceChildren(); return; }
  const names = game.players.map((p) => p.name);
  const key = names.join("\n") + `#${game.round}#${lang}#${Boolean(rules[game.ruleset])}`;
  // The round is over: entering the hands is the step now, open once (a reader may fold it).
  const over = `${game.match_id}#${game.round}`;
  if (game.round_over && $("#end-round-box").dataset.opened !== over) {
    $("#end-round-box").dataset.opened = over;
    $("#end-round-box").open = true;
  }
  if (hands.dataset.key === key) {
    if (game.round_over && game.winner && winner.value !== game.winner) {
      winner.value = game.winner;
      updateHands();
    }
    return;
  }
  // What was typed stays through a switch of language (the names are read in either).
  const typed = Object.fromEntries([...hands.querySelectorAll("input")].map((i) => [i.name, i.value]));
  hands.dataset.key = key;
  winner.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
  winner.value = game.winner || names[0];
  // What to type, in the names the box prints (#40): a number, an action card and a wild of this
  // ruleset, as launcherd reads them in either language; never an id.
  const examples = handExamples(game.ruleset);
  $("#hands-help").textContent = t("handsHelp", examples);
  hands.replaceChildren(...names.map((n) => {
    const input = el("input", { name: n, autocomplete: "off", placeholder: t("handPlaceholder", examples) });
    input.value = typed[n] || "";
    // Tapping the ruleset's cards writes the hand by the cards' names (typed text is still accepted).
    const add = el("button", { type: "button", class: "add-card", "data-add-card": n, onclick: async () => {
      const rs = rules[game.ruleset];
      const card = await pick(t("whichCard", n), rs.cards.map((c) => ({ value: c.card, label: cardName(c.card) })));
      if (card) input.value = input.value.trim() ? `${input.value.trim()}, ${cardName(card)}` : cardName(card);
    } }, t("addCard"));
    const clear = el("button", { type: "button", class: "add-card", onclick: () => { input.value = ""; } }, t("clearHand"));
    return el("div", { "data-hand": n, class: "hand" }, el("label", {}, t("hand", n), input), el("div", { class: "row" }, add, clear));
  }));
  updateHands();
}

function handExamples(ruleset) {
  const cards = ((rules[ruleset] || {}).cards || []).map((c) => c.card);
  const number = cards.includes("7") ? "7" : cards.find((c) => /^\d+$/.test(c));
  const action = cards.find((c) => !/^\d+$/.test(c) && !c.startsWith("wild"));
  const wild = cards.find((c) => c.startsWith("wild"));
  return [number || "7", action, wild].filter(Boolean).map(cardName).join(", ");
}

function updateHands() {
  for (const hand of document.querySelectorAll("#hands [data-hand]")) {
    hand.hidden = hand.dataset.hand === $("#winner").value;
  }
}

function renderScores() {
  const table = $("#scores");
  const scores = state.scores;
  // Nothing scored yet: the panel waits for the first round's end (a shorter page, #40).
  $("#scores-panel").hidden = !scores || (!scores.rounds.length && !scores.match_over);
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
