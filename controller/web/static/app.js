// The table page: everything it shows comes from GET /api/state, refreshed on every event the
// launcher-web WebSocket relays; every action is one POST with the join code (docs/web.md).
// No framework and no build step: the page must work on a Pi with no internet at all.
"use strict";
//
// The scripts, loaded in order (index.html): texts.js, app.js (the page's state, small helpers, the
// picker), render.js (what is shown), moment.js (what the moment needs and allows), actions.js (every
// tap's request, and the live updates that start it all).

let state = null;       // the last /api/state
let rules = {};         // ruleset id -> its game/rules entry
let scorings = {};
let refreshTimer = null;
// What the page knows of the join code it holds: "ok" (accepted, or an action went through),
// "wrong" (refused), "unknown" (kept from an earlier visit, not yet used). Without a code, or with
// a refused one, the join step comes first (render.js placeSections).
let codeState = "unknown";

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

// What the page says of a tap (its answer under the bar, a refusal in the banner) is kept as what
// it is made of, not as text: the page's own words by their key, launcherd's and launcher-web's by
// their message objects. A switch of language says them again in the new one (sayAgain), never
// leaves them in the other (#40).
const said = (key, ...args) => ({ key, args });
// Message objects as rendered in each language: {lang: Map(JSON of the object -> text)}.
const renders = { en: new Map(), fr: new Map() };
let shownReply = null;  // { parts, bad }
let shownError = null;  // { parts, status }

// A part as a text in the page's language, or null when it is not known in it (yet).
function partText(part) {
  if (part.key) return t(part.key, ...part.args);
  if (part.object) {
    const rendered = renders[lang] && renders[lang].get(JSON.stringify(part.object));
    if (rendered !== undefined && rendered !== null) return rendered;
  }
  return part.lang === lang ? part.text : null;
}

// A text the API sent in the page's language, with its message object when it came with one.
function textPart(text, object) {
  if (object && typeof object.id === "string") {
    renders[lang] = renders[lang] || new Map();
    if (renders[lang].size > 200) renders[lang].clear();  // a long evening's answers: only a few are in view
    renders[lang].set(JSON.stringify(object), text);
    return { object, text, lang };
  }
  return { text, lang };
}

function errorParts(error) {
  const body = error.body && error.body.error;
  if (error.part) return [error.part];
  return [textPart(error.message, body ? body.message_object : null)];
}

function errorText(model) {
  const texts = model.parts.map(partText);
  if (texts.some((x) => x === null)) return null;
  const text = texts.join(" · ");
  if (model.status === 403) return t("refused", text);
  if (model.status === 503) return `⟳ ${text}`;
  return model.plain ? text : `✖ ${text}`;
}

function showError(error) {
  shownError = { parts: errorParts(error), status: error.status, plain: Boolean(error.part) };
  drawError();
}

function drawError() {
  const text = shownError ? errorText(shownError) : null;
  $("#banner-text").textContent = text || "";
  // A tap's refusal is said under the bar, which stays in view: not twice on a phone's first screen.
  const said = Boolean(shownReply && shownError && shownReply.parts === shownError.parts && !$("#now-reply").hidden);
  $("#banner").hidden = !text || said;
}

function clearError() { shownError = null; $("#banner").hidden = true; }

// Each tap is answered next to the "what now" bar, which stays in view: the daemon's own words
// when it says any (in the page's language), else the page's label for what was done.
function reply(parts, bad, extra = {}) {
  shownReply = parts && parts.length ? { parts, bad, ...extra } : null;
  drawReply();
}

function drawReply() {
  const line = $("#now-reply");
  let text = null;
  if (shownReply) {
    const texts = shownReply.parts.map(partText);
    if (!texts.some((x) => x === null)) {
      text = shownReply.bad ? errorText(shownReply) : t("said", texts.join(" · "));
    }
  }
  line.textContent = text || "";
  line.className = `now-reply ${shownReply && shownReply.bad ? "bad" : "ok"}`;
  line.hidden = !text;
  drawError();
}

function replyParts(answer, label) {
  const texts = answer && Array.isArray(answer.messages) ? answer.messages : [];
  const objects = answer && Array.isArray(answer.message_objects) ? answer.message_objects : [];
  const parts = texts.map((text, i) => (text ? textPart(text, objects[i]) : null)).filter(Boolean);
  if (parts.length) return parts;
  if (label) return [label];
  return [said("doneWord")];
}

// After a switch of language: the message objects of the answer and the refusal in view are
// rendered in the new language by launcher-web (POST /api/render), then said again. What cannot be
// said in it goes rather than stay in the other language.
async function sayAgain() {
  const parts = [...(shownReply ? shownReply.parts : []), ...(shownError ? shownError.parts : [])];
  renders[lang] = renders[lang] || new Map();
  const missing = parts.filter((p) => p.object && !renders[lang].has(JSON.stringify(p.object))).map((p) => p.object);
  drawReply();
  drawError();
  if (!missing.length) return;
  const asked = lang;
  try {
    const { texts } = await api("POST", `/api/render?lang=${asked}`, { messages: missing });
    missing.forEach((object, i) => renders[asked].set(JSON.stringify(object), texts[i]));
  } catch (error) { /* not said again: drawn as unknown, i.e. not at all */ }
  if (asked === lang) { drawReply(); drawError(); }
}

// The page's game taps (POST /api/game/...) are applied one at a time, in the order tapped: each is
// sent once the one before it is answered and the state that answer brought is drawn. Ann plays a
// red 5 and Bob taps Hit 2 at once: Hit 2 reaches launcherd after the 5, and is decided on the state
// the 5 brought (playCard waits for gameTaps), the pile's red, not on the state still drawn, whose
// empty pile asked a colour. The launcher's own requests are not queued: a press is answered with
// its outcome, which may wait for "Go on". applyTap never rejects: a refused tap does not stop the next.
let gameTaps = Promise.resolve();

function act(path, body, label) {
  if (!path.startsWith("/api/game/")) return applyTap(path, body, label);
  const applied = gameTaps.then(() => applyTap(path, body, label));
  gameTaps = applied;
  return applied;
}

async function applyTap(path, body, label) {
  try {
    const before = $("#moment").dataset.key;
    const answer = await api("POST", path, body === undefined ? {} : body);
    clearError();
    if (code()) codeState = "ok";
    reply(replyParts(answer, typeof label === "function" ? label(answer) : label), false);
    await refresh();
    // This tap brought a decision (accept or challenge, the Minions counts...): its buttons come
    // into view under the bar, wherever the tap was made.
    const moment = $("#moment");
    if (moment.dataset.key !== before && moment.querySelector(".accent")) moment.scrollIntoView({ block: "nearest" });
    return answer || {};
  } catch (error) {
    showError(error);
    reply(shownError.parts, true, { status: shownError.status, plain: shownError.plain });
    if (error.status === 403 && error.body && error.body.error && error.body.error.code === "join_code") {
      // Refused for the code: the join step comes up first, its field ready to type in.
      codeState = "wrong";
      if (state) render();
      // Its top under the "what now" bar, which stays over the page's top.
      window.scrollTo(0, Math.max(0, $("#join-panel").getBoundingClientRect().top + window.scrollY - $("#now").offsetHeight - 8));
      $("#code").focus({ preventScroll: true });
    }
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
const gameColors = () => (state && state.game && state.game.colors) || COLORS;
const pickColor = (title) => pick(title, gameColors().map((c) => ({ value: c, label: colorName(c), swatch: c })));

function pickPlayer(title, except) {
  const names = (state.game ? state.game.players.map((p) => p.name) : []).filter((n) => n !== except);
  return pick(title, names.map((name) => ({ value: name, label: name })));
}
