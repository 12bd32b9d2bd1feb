// Play a step (ui/player.py): the scores, the softmax or the output of one query, computed before the learner's
// eyes on their own numbers, frame by frame, in the browser (no message to the server while it plays). It ends on
// the engine's numbers, the ones the step's table shows. Pause, step back and forth, speed, a query of one's own,
// and the keyboard (Space, ←, →, Home, End). With prefers-reduced-motion, Play shows every stage at once.
//
// frames() is pure (tested in Node, tests/js/player.test.mjs); the rest draws. Every text is inserted as text.

const { formatNumber } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);

const DECIMALS = 2;
const SPEEDS = [0.5, 1, 2, 4];
const FRAME_MS = 900;  // at 1×
const PER_TERM = 8;  // up to this d_k a score's terms appear one by one; beyond, a key's terms at once

const f = (x) => formatNumber(x, DECIMALS);
const wrapped = (text) => (text.startsWith("−") ? `(${text})` : text);  // a negative factor or subtrahend
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

// The frames of query i: each {cells, text, final}. ``cells`` are the row's cells shown so far (by column); ``text``
// says what this frame adds; the last frame's cells are the engine's numbers (the table's).
export function frames(data, i) {
  if (data.kind === "scores") return scoreFrames(data, i);
  if (data.kind === "softmax") return softmaxFrames(data, i);
  return outputFrames(data, i);
}

function scoreFrames(data, i) {
  const q = data.q[i], out = [], cells = {};
  const n = data.keys.length, d = q.length;
  for (let j = 0; j < n; j++) {
    const k = data.k[j];
    const terms = q.map((qc, c) => qc * k[c]);
    const shown = d <= PER_TERM ? terms.map((_, t) => t + 1) : [d];
    for (const upTo of shown) {
      // written at the table's decimals, so the sum of the written products is only about the score: "≈"
      const written = terms.slice(0, upTo).map((t, c) => `${f(q[c])} × ${wrapped(f(k[c]))}`).join(" + ");
      const done = upTo === d;
      if (done) cells[j] = data.values[i][j];
      out.push({ cells: { ...cells }, active: j, text: done
        ? `s(${data.queries[i]}, ${data.keys[j]}) = q·k = ${written} ≈ ${f(data.values[i][j])}`
        : `s(${data.queries[i]}, ${data.keys[j]}) = ${written} + … ≈ ${f(sum(terms.slice(0, upTo)))} so far` });
    }
  }
  out.push({ cells: { ...cells }, active: null, final: true,
    text: `The row of scores for “${data.queries[i]}”: the step's table holds the same numbers.` });
  return out;
}

function softmaxFrames(data, i) {
  const z = data.z[i], e = data.e[i], alpha = data.values[i], out = [];
  const keys = data.keys.map((_, j) => j).filter((j) => z[j] !== null);  // masked keys (null) take no part
  out.push({ cells: {}, active: null, text: `z for “${data.queries[i]}”: ${keys.map((j) => f(z[j])).join(", ")}; `
    + `its largest, m = ${f(data.m[i])}, is taken from each (the weights do not change, the exponentials stay small).` });
  const exps = {};
  for (const j of keys) {
    exps[j] = e[j];
    out.push({ cells: {}, exps: { ...exps }, active: j,
      text: `e^(z − m) for “${data.keys[j]}”: e^(${formatNumber(z[j], 3)} − ${wrapped(formatNumber(data.m[i], 3))}) ≈ `
        + formatNumber(e[j], 3) });
  }
  out.push({ cells: {}, exps: { ...exps }, active: null, total: data.total[i],
    text: `Their sum Σ = ${keys.map((j) => formatNumber(e[j], 3)).join(" + ")} ≈ ${formatNumber(data.total[i], 3)}` });
  const cells = {};
  for (const j of keys) {
    cells[j] = alpha[j];
    out.push({ cells: { ...cells }, exps: { ...exps }, total: data.total[i], active: j,
      text: `α for “${data.keys[j]}” = ${formatNumber(e[j], 3)} / ${formatNumber(data.total[i], 3)} ≈ ${f(alpha[j])}` });
  }
  out.push({ cells: { ...cells }, exps: { ...exps }, total: data.total[i], active: null, final: true,
    text: `The weights of “${data.queries[i]}” add up to 1; the step's table holds the same numbers.` });
  return out;
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
      text: `+ α·v for “${data.keys[j]}”: ${f(alpha[j])} × [${data.v[j].map(f).join(", ")}]; the sum so far ≈ `
        + `[${running.map(f).join(", ")}]` });
  }
  out.push({ cells: Object.fromEntries(data.values[i].map((x, c) => [c, x])), active: null, final: true,
    text: `The output of “${data.queries[i]}” = Σ α·v over every key it sees: the step's table holds the same numbers.` });
  return out;
}


function button(label, title, onClick) {
  const b = el("button", "alp-button", label);
  b.type = "button";
  b.title = title;
  b.setAttribute("aria-label", title);
  b.addEventListener("click", onClick);
  return b;
}

export default function player(component) {
  const { data, parentElement } = component;
  const still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const root = el("div", "alp");
  root.tabIndex = 0;
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", data.title);
  const head = el("div", "alp-controls");
  const query = el("select", "alp-query");
  query.setAttribute("aria-label", "Query");
  data.queries.forEach((label, r) => { const o = el("option", null, `query ${r + 1} · ${label}`); o.value = r; query.append(o); });
  query.value = String(data.query || 0);
  let i = Number(query.value), list = frames(data, i), at = 0, timer = null, speed = 1;
  const speedBox = el("select", "alp-speed");
  speedBox.setAttribute("aria-label", "Speed");
  SPEEDS.forEach((s) => { const o = el("option", null, `${s}×`); o.value = s; speedBox.append(o); });
  speedBox.value = "1";
  const play = button("▶ Play", "Play", () => (timer ? stop() : start()));
  const back = button("◀", "One frame back (←)", () => { stop(); go(at - 1); });
  const next = button("▶|", "One frame on (→)", () => { stop(); go(at + 1); });
  head.append(query, back, play, next, speedBox);
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
    columns.push([data.kind === "scores" ? "s" : data.kind === "softmax" ? "α" : (frame.final ? "output" : "sum so far ≈"),
      frame.cells, DECIMALS]);
    const head = el("tr");
    head.append(el("th", null, data.kind === "output" ? "dimension" : "key"));
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
    play.textContent = "⏸ Pause";
    play.title = "Pause";
    play.setAttribute("aria-label", "Pause");
    timer = setInterval(() => go(at + 1), FRAME_MS / speed);
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = "▶ Play";
    play.title = "Play";
    play.setAttribute("aria-label", "Play");
  }
  query.addEventListener("change", () => { stop(); i = Number(query.value); list = frames(data, i); stages.replaceChildren(); go(0); });
  speedBox.addEventListener("change", () => { speed = Number(speedBox.value); if (timer) { stop(); start(); } });
  root.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT") return;
    const moves = { ArrowLeft: () => { stop(); go(at - 1); }, ArrowRight: () => { stop(); go(at + 1); },
      Home: () => { stop(); go(0); }, End: () => { stop(); go(list.length - 1); },
      " ": () => (timer ? stop() : start()) };
    if (e.target.tagName === "BUTTON" && e.key === " ") return;  // a button's own Space
    if (moves[e.key]) { e.preventDefault(); moves[e.key](); }
  });
  go(0);
  return () => { stop(); parentElement.replaceChildren(); };
}
