// Play a step (ui/player.py): the scores, the softmax or the output of one query, computed before the learner's
// eyes on their own numbers, frame by frame, in the browser (no message to the server while it plays). It ends on
// the engine's numbers, the ones the step's table shows. Pause, step back and forth, speed, a query of one's own,
// and the keyboard (Space, ←, →, Home, End, wherever the focus is in the player). With prefers-reduced-motion, Play
// shows every stage at once.
//
// Every sum, product and quotient a frame writes out adds up at the decimals it shows, or says "≈": the server
// decides the decimals (viz/player.py, by viz/arithmetic.py's rule) and sends the scores' running sums.
//
// frames() is pure (tested in Node, tests/js/player.test.mjs, and on the server's payloads by tests/test_player.py);
// the rest draws. Every text is inserted as text. Every word comes from the server, in the reader's language
// (data.texts: viz/player.py's templates, whose {fields} ``say`` fills); the browser holds none of its own.

const { formatNumber, paren, useDecimal } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);

const DECIMALS = 2;
const E_DECIMALS = 3;  // the exponentials and their sum (viz/player.py, E_DECIMALS)
const SPEEDS = [0.5, 1, 2, 4];
const FRAME_MS = 900;  // at 1×

const f = (x) => formatNumber(x, DECIMALS);
// The one rule (viz/arithmetic.py): the server sends, for each written-out sum, product or quotient, the decimals
// its inputs are written with so that they give the shown result; a negative number: none do, write "≈" and six.
const rule = (dec) => ({ places: Math.abs(dec), rel: dec < 0 ? " ≈ " : " = " });
// a product as the tooltips write it (static/tooltip.js): a·b, a negative factor in parentheses, both sides
const times = (a, b, places) => `${paren(a, places)}·${paren(b, places)}`;

// A template of data.texts with its {fields} filled (a field the template lacks is left out, one it names and
// ``fields`` lacks stays as written)
export function say(data, name, fields = {}) {
  return (data.texts?.[name] ?? `[${name}]`).replace(/\{(\w+)\}/g, (whole, field) => (field in fields ? String(fields[field]) : whole));
}

// The frames of query i: each {cells, text, final}. ``cells`` are the row's cells shown so far (by column); ``text``
// says what this frame adds; the last frame's cells are the engine's numbers (the table's).
export function frames(data, i) {
  if (data.kind === "scores") return scoreFrames(data, i);
  if (data.kind === "softmax") return softmaxFrames(data, i);
  return outputFrames(data, i);
}

// q·k term by term: with ``data.partial`` (d_k up to 8) one frame a term, each writing the terms so far and their
// running sum (the server's); without, one frame a key, all its terms at once
function scoreFrames(data, i) {
  const q = data.q[i], out = [], cells = {};
  const n = data.keys.length, d = q.length;
  for (let j = 0; j < n; j++) {
    const k = data.k[j], name = `s(${data.queries[i]}, ${data.keys[j]})`, sep = data.texts.sep;
    data.dec[i][j].forEach((dec, u) => {
      const upTo = data.partial ? u + 1 : d, done = upTo === d;
      const { places, rel } = rule(dec);
      const written = q.slice(0, upTo).map((qc, c) => times(qc, k[c], places)).join(" + ");
      if (done) cells[j] = data.values[i][j];
      out.push({ cells: { ...cells }, active: j, text: done
        ? say(data, "scoreDone", { name, written, rel, value: f(data.values[i][j]) })
        : say(data, "scoreSoFar", { name, upTo, d, written, rel, value: f(data.partial[i][j][u]) }) });
    });
  }
  out.push({ cells: { ...cells }, active: null, final: true,
    text: say(data, "scoreRow", { query: data.queries[i] }) });
  return out;
}

function softmaxFrames(data, i) {
  const z = data.z[i], e = data.e[i], alpha = data.values[i], total = data.total[i], dec = data.dec, out = [];
  const query = data.queries[i];
  const keys = data.keys.map((_, j) => j).filter((j) => z[j] !== null);  // masked keys (null) take no part
  out.push({ cells: {}, active: null,
    text: say(data, "softmaxStart", { query, z: keys.map((j) => f(z[j])).join(data.texts.sep), m: f(data.m[i]) }) });
  const exps = {};
  for (const j of keys) {
    exps[j] = e[j];
    out.push({ cells: {}, exps: { ...exps }, active: j,  // an exponential is not exact: "≈"
      text: say(data, "softmaxExp", { key: data.keys[j], z: formatNumber(z[j], 3), m: paren(data.m[i], 3),
        e: formatNumber(e[j], E_DECIMALS) }) });
  }
  const sigma = rule(dec.total[i]);
  out.push({ cells: {}, exps: { ...exps }, active: null, total, text: keys.length === 1
    ? say(data, "softmaxOneKey", { total: formatNumber(total, E_DECIMALS) })
    : say(data, "softmaxSum", { terms: keys.map((j) => formatNumber(e[j], sigma.places)).join(" + "), rel: sigma.rel,
      total: formatNumber(total, E_DECIMALS) }) });
  const cells = {};
  for (const j of keys) {
    cells[j] = alpha[j];
    const { places, rel } = rule(dec.alpha[i][j]);
    out.push({ cells: { ...cells }, exps: { ...exps }, total, active: j,
      text: say(data, "softmaxAlpha", { key: data.keys[j], e: formatNumber(e[j], places),
        total: formatNumber(total, places), rel, alpha: f(alpha[j]) }) });
  }
  out.push({ cells: { ...cells }, exps: { ...exps }, total, active: null, final: true, text: weightsAddUp(data, i, keys) });
  return out;
}

// The last frame of the softmax: the weights add up to 1, written out at the decimals that show it; where the
// table's own 2 decimals do not (0.33 + 0.33 + 0.33), it says what they add up to there
function weightsAddUp(data, i, keys) {
  const alpha = data.values[i], query = data.queries[i];
  if (keys.length === 1) return say(data, "oneWeight", { query, alpha: f(alpha[keys[0]]) });
  const { places, rel } = rule(data.dec.weights[i]);
  const written = `Σ α = ${keys.map((j) => formatNumber(alpha[j], places)).join(" + ")}${rel}${f(data.weights_sum[i])}`;
  if (places === DECIMALS) return say(data, "addUp", { query, written });
  return say(data, "addUpMore", { decimals: DECIMALS, table: f(data.table_sum[i]), places, query, written });
}

function outputFrames(data, i) {
  const alpha = data.alpha[i], out = [];
  const d = data.v[0].length;
  const running = new Array(d).fill(0);
  const keys = data.keys.map((_, j) => j).filter((j) => alpha[j] !== null);
  for (const j of keys) {
    const term = data.v[j].map((x) => alpha[j] * x);
    term.forEach((x, c) => { running[c] += x; });
    out.push({ cells: Object.fromEntries(running.map((x, c) => [c, x])), term, active: j, approx: true,
      text: say(data, "outputTerm", { key: data.keys[j], alpha: f(alpha[j]), v: data.v[j].map(f).join(data.texts.sep),
        sum: running.map(f).join(data.texts.sep) }) });
  }
  out.push({ cells: Object.fromEntries(data.values[i].map((x, c) => [c, x])), active: null, final: true,
    text: say(data, "outputRow", { query: data.queries[i] }) });
  return out;
}

// The buttons: an icon drawn as SVG (no font can lack it: the pause glyph ⏸ is in none of Debian's fonts-dejavu-core)
// beside a plain word; the accessible name starts with the visible text (WCAG 2.5.3) and says the whole of it
export function controls(data) {
  const word = (name) => say(data, name);
  return {
    back: { icon: "back", text: word("frame"), name: word("back"), keys: "ArrowLeft", title: word("backTitle") },
    play: { icon: "play", text: word("play"), name: word("play"), keys: "Space", title: word("playTitle") },
    pause: { icon: "pause", text: word("pause"), name: word("pause"), keys: "Space", title: word("pauseTitle") },
    forward: { icon: "forward", text: word("frame"), name: word("forward"), keys: "ArrowRight",
      title: word("forwardTitle"), iconAfter: true },
  };
}
export const ICONS = {  // 16 × 16, filled with the text's colour
  play: "M4 2.5v11l9.5-5.5z",
  pause: "M3.5 3h3v10h-3zM9.5 3h3v10h-3z",
  back: "M1 8l6-5.5V6h8v4H7v3.5z",
  forward: "M15 8L9 2.5V6H1v4h8v3.5z",
};

function icon(name) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "alp-icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(ns, "path");
  path.setAttribute("d", ICONS[name]);
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

function label(b, control) {  // the button's icon, word, name and tooltip
  const word = el("span", null, control.text);
  b.replaceChildren(...(control.iconAfter ? [word, icon(control.icon)] : [icon(control.icon), word]));
  b.title = control.title;
  b.setAttribute("aria-label", control.name);
  b.setAttribute("aria-keyshortcuts", control.keys);
}

function button(control, onClick) {
  const b = el("button", "alp-button");
  b.type = "button";
  label(b, control);
  b.addEventListener("click", onClick);
  return b;
}

let fields = 0;
function field(text, select) {  // a menu after its visible label, which names it (WCAG 3.3.2): a label beside it,
  // not around it, whose name would be its text and the menu's value ("Query query 3 · sat")
  const box = el("span", "alp-field");
  const name = el("label", null, text);
  select.id = `alp-field-${++fields}`;
  name.htmlFor = select.id;
  box.append(name, select);
  return box;
}

export default function player(component) {
  const { data, parentElement } = component;
  useDecimal(data.texts?.decimal);  // the reader's decimal sign, for every number the player writes
  const still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const root = el("div", "alp");
  root.tabIndex = 0;
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", data.title);
  const head = el("div", "alp-controls");
  const query = el("select", "alp-query");
  data.queries.forEach((label, r) => {
    const o = el("option", null, say(data, "queryOption", { number: r + 1, label })); o.value = r; query.append(o);
  });
  const CONTROLS = controls(data);
  query.value = String(data.query || 0);
  let i = Number(query.value), list = frames(data, i), at = 0, timer = null, speed = 1;
  const speedBox = el("select", "alp-speed");
  SPEEDS.forEach((s) => { const o = el("option", null, `${s}×`); o.value = s; speedBox.append(o); });
  speedBox.value = "1";
  const play = button(CONTROLS.play, () => (timer ? stop() : start()));
  const back = button(CONTROLS.back, () => { stop(); go(at - 1); });
  const next = button(CONTROLS.forward, () => { stop(); go(at + 1); });
  head.append(field(say(data, "queryField"), query), back, play, next, field(say(data, "speedField"), speedBox));
  const counter = el("span", "alp-counter");
  head.append(counter);
  const table = el("table", "alp-row");
  const text = el("p", "alp-text");
  text.setAttribute("aria-live", "polite");
  const stages = el("ol", "alp-stages");  // reduced motion: every stage at once
  root.append(head, table, text, stages);
  parentElement.replaceChildren(root);

  // one line a key (a dimension, for the output), so that a long row never runs past the page: it grows downwards
  const lines = data.kind === "output" ? data.dims : data.keys;
  function drawRow(frame) {
    const columns = [];
    if (frame.exps) columns.push(["e^(z − m)", frame.exps, 3]);
    if (frame.term) columns.push([`α·v (${data.keys[frame.active]})`, frame.term, DECIMALS]);
    columns.push([data.kind === "scores" ? "s" : data.kind === "softmax" ? "α"
      : say(data, frame.final ? "output" : "sumSoFar"),
      frame.cells, DECIMALS]);
    const head = el("tr");
    head.append(el("th", null, say(data, data.kind === "output" ? "dimension" : "key")));
    columns.forEach(([label]) => head.append(el("th", null, label)));
    const rows = lines.map((name, r) => {
      const tr = el("tr", r === frame.active && data.kind !== "output" ? "alp-active" : null);
      tr.append(el("th", null, name));
      columns.forEach(([, values, digits]) => tr.append(el("td", null,
        values[r] === undefined || values[r] === null ? "" : formatNumber(values[r], digits))));
      return tr;
    });
    table.replaceChildren(head, ...rows);
  }
  function go(k) {
    at = Math.max(0, Math.min(list.length - 1, k));
    const frame = list[at];
    drawRow(frame);
    text.textContent = frame.text;
    counter.textContent = `${at + 1} / ${list.length}`;
    root.dataset.frame = String(at);
    root.dataset.final = frame.final ? "true" : "false";
    if (frame.final) stop();
  }
  function start() {
    if (still) {  // no motion: every stage, listed
      stages.replaceChildren(...list.map((frame) => el("li", null, frame.text)));
      go(list.length - 1);
      return;
    }
    if (at >= list.length - 1) go(0);
    label(play, CONTROLS.pause);
    timer = setInterval(() => go(at + 1), FRAME_MS / speed);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    label(play, CONTROLS.play);
  }
  query.addEventListener("change", () => { stop(); i = Number(query.value); list = frames(data, i); stages.replaceChildren(); go(0); });
  speedBox.addEventListener("change", () => { speed = Number(speedBox.value); if (timer) { stop(); start(); } });
  // The keys the help (ui/player.py) names do what it says wherever the focus is in the player: Space on a focused
  // button plays or pauses (it does not press that button: a click on "1 frame" leaves the focus there, and Space
  // then has to play), ← → Home End on a menu move the frames (they do not change the query). What the player leaves
  // alone stays native: ↑ ↓ (and a letter) change a menu's choice, Alt+↓ opens it, Enter presses a button, Tab
  // moves on; a key with Alt, Ctrl or Meta is the browser's.
  const moves = { ArrowLeft: () => { stop(); go(at - 1); }, ArrowRight: () => { stop(); go(at + 1); },
    Home: () => { stop(); go(0); }, End: () => { stop(); go(list.length - 1); },
    " ": () => (timer ? stop() : start()) };
  const ours = (e) => Boolean(moves[e.key]) && !(e.altKey || e.ctrlKey || e.metaKey);
  root.addEventListener("keydown", (e) => {
    if (!ours(e)) return;
    e.preventDefault();  // a button's Space, a menu's arrows, the page's scrolling: the player's key instead
    if (e.key === " " && e.repeat) return;  // Space held down plays once, not on and off
    moves[e.key]();
  });
  // a browser presses a focused button on Space's keyup: the keydown above already played or paused
  root.addEventListener("keyup", (e) => { if (e.key === " " && ours(e)) e.preventDefault(); });
  go(0);
  return () => { stop(); parentElement.replaceChildren(); };
}
