// Unit tests of static/player.js in Node (node --test tests/js/), run by make test: the frames of a played step end
// on the engine's numbers (the table's), every key in turn, masked keys left out; every sum, product and quotient is
// written with the decimals the server chose (viz/player.py, `dec`: "=" where they add up, else "≈" and six), a
// negative factor in parentheses on either side; the buttons say what they do without a glyph a font may lack.
// (tests/test_player.py runs the same frames on the server's own payloads and checks every one with a calculator.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import player, { ICONS, controls, frames as framesOf } from "../../static/player.js";

// the English texts the server sends with every payload (viz/player.py's player_texts(); tests/test_player.py checks
// this copy against it): the hand-made payloads below carry them as the server's do
const TEXTS = JSON.parse(readFileSync(new URL("player_texts.json", import.meta.url), "utf8"));
const frames = (data, i) => framesOf({ texts: TEXTS, ...data }, i);
const CONTROLS = controls({ texts: TEXTS });

const keys = ["This", "forum", "is"];

test("the scores: each key's terms appear one by one with their running sum, and the last frame is the engine's row", () => {
  // q·k by hand: row 1 = (1·1 + 2·0, 1·0 + 2·1, 1·2 + 2·2) = (1, 2, 6); its first terms 1·1, 1·0, 1·2
  const data = { kind: "scores", keys, queries: keys, q: [[1, 2], [0.5, -1], [0, 1]], k: [[1, 0], [0, 1], [2, 2]],
    values: [[1, 2, 6], [0.5, -1, -1], [0, 1, 2]], partial: [[[1], [0], [2]], [[0.5], [0], [1]], [[0], [0], [0]]],
    dec: [[[2, 2], [2, 2], [-6, -6]], [[2, 2], [2, 2], [2, 2]], [[2, 2], [2, 2], [2, 2]]] };
  const list = frames(data, 0);
  assert.equal(list.length, 3 * 2 + 1);  // d_k = 2 terms for each of 3 keys, then the row
  assert.equal(list[0].text, "s(This, This) so far (1 of 2 terms) = 1.00·1.00 = 1.00");
  assert.equal(list[1].text, "s(This, This) = q·k = 1.00·1.00 + 2.00·0.00 = 1.00");
  assert.equal(list[3].text, "s(This, forum) = q·k = 1.00·0.00 + 2.00·1.00 = 2.00");
  // where the server says no decimals add up (−6): six decimals and "≈"
  assert.equal(list[5].text, "s(This, is) = q·k = 1.000000·2.000000 + 2.000000·2.000000 ≈ 6.00");
  assert.deepEqual(list.at(-1).cells, { 0: 1, 1: 2, 2: 6 });
  assert.equal(list.at(-1).final, true);
});

test("a negative factor is in parentheses whichever side of the product it is on (issue 43: “+ −0.74 × 0.28”)", () => {
  // (−0.74)·0.28 = −0.2072 and 0.5·(−1) = −0.5: −0.7072, −0.71 at 2 decimals
  const data = { kind: "scores", keys: ["a"], queries: ["a"], q: [[-0.74, 0.5]], k: [[0.28, -1]], values: [[-0.7072]],
    partial: [[[-0.2072]]], dec: [[[2, 2]]] };
  const [first, done] = frames(data, 0);
  assert.equal(first.text, "s(a, a) so far (1 of 2 terms) = (−0.74)·0.28 = −0.21");
  assert.equal(done.text, "s(a, a) = q·k = (−0.74)·0.28 + 0.50·(−1.00) = −0.71");
});

test("beyond 8 terms (no running sums sent) a key's terms appear at once", () => {
  const q = [Array.from({ length: 9 }, () => 1)], k = [Array.from({ length: 9 }, () => 0.5)];
  const data = { kind: "scores", keys: ["a"], queries: ["a"], q, k, values: [[4.5]], dec: [[[2]]] };
  const list = frames(data, 0);
  assert.equal(list.length, 1 + 1);
  assert.equal(list[0].text, `s(a, a) = q·k = ${Array(9).fill("1.00·0.50").join(" + ")} = 4.50`);
});

const softmax = { kind: "softmax", keys, queries: keys, z: [[0.5, null, null], [0.2, 0.4, null], [0, 0, 0]],
  m: [0.5, 0.4, 0], e: [[1, null, null], [0.818731, 1, null], [1, 1, 1]], total: [1, 1.818731, 3],
  values: [[1, 0, 0], [0.450166, 0.549834, 0], [0.333333, 0.333333, 0.333333]],
  dec: { total: [3, 3, 3], alpha: [[3, 3, 3], [3, 3, 3], [3, 3, 3]], weights: [2, 2, 3] },
  weights_sum: [1, 1, 0.999999], table_sum: [1, 1, 0.99] };

test("the softmax: z and m, each exponential, their sum, each weight; a masked key takes no part", () => {
  const list = frames(softmax, 1);
  assert.equal(list.length, 1 + 2 + 1 + 2 + 1);
  assert.match(list[0].text, /m = 0\.40/);
  assert.equal(list[1].text, "e^(z − m) for “This”: e^(0.200 − 0.400) ≈ 0.819");
  assert.equal(list[3].text, "Their sum Σ = 0.819 + 1.000 = 1.819");  // 1.819 exactly
  assert.equal(list[4].text, "α for “This” = 0.819 / 1.819 = 0.45");  // 0.4502…
  assert.equal(list[5].text, "α for “forum” = 1.000 / 1.819 = 0.55");  // 0.5497…
  assert.equal(list.at(-1).text,
    "The step's table holds the same numbers; the weights of “forum” add up to 1: Σ α = 0.45 + 0.55 = 1.00");
  assert.deepEqual(list.at(-1).cells, { 0: 0.450166, 1: 0.549834 });
});

test("three equal weights: the table's 0.33 + 0.33 + 0.33 is 0.99, said so, and the weights written to add up to 1", () => {
  const list = frames(softmax, 2);
  assert.equal(list[4].text, "Their sum Σ = 1.000 + 1.000 + 1.000 = 3.000");
  assert.equal(list[5].text, "α for “This” = 1.000 / 3.000 = 0.33");
  assert.equal(list.at(-1).text, "The step's table holds the same numbers. Rounded to 2 decimals there, they add up "
    + "to 0.99; written with 3 decimals, the weights of “is” add up to 1: Σ α = 0.333 + 0.333 + 0.333 = 1.00");
});

test("a query that sees one key: no sum to write, its one weight is 1", () => {
  const list = frames(softmax, 0);
  assert.equal(list.length, 1 + 1 + 1 + 1 + 1);
  assert.equal(list[2].text, "One key, so their sum Σ is its one exponential: 1.000");
  assert.equal(list.at(-1).text, "“This” sees one key, so its one weight is 1.00; the step's table holds the same numbers.");
});

test("a negative m is in parentheses where it is taken away", () => {
  const data = { ...softmax, z: [[-0.5, -0.4, null]], m: [-0.4], e: [[0.904837, 1, null]] };
  assert.equal(frames(data, 0)[1].text, "e^(z − m) for “This”: e^(−0.500 − (−0.400)) ≈ 0.905");
});

test("the output: α·v added key by key, and the last frame is the engine's output row", () => {
  const data = { kind: "output", keys, queries: keys, dims: ["1", "2"], alpha: [[0.5, 0.5, null], [1, 0, 0], [0, 0, 1]],
    v: [[2, 0], [0, 2], [9, 9]], values: [[1, 1], [2, 0], [9, 9]] };
  const list = frames(data, 0);
  assert.equal(list.length, 2 + 1);  // key 3 is masked
  assert.equal(list[0].text, "+ α·v for “This”: 0.50·[2.00, 0.00]; the sum so far ≈ [1.00, 0.00]");
  assert.deepEqual(list[0].cells, { 0: 1, 1: 0 });
  assert.deepEqual(list[1].cells, { 0: 1, 1: 1 });
  assert.deepEqual(list.at(-1).cells, { 0: 1, 1: 1 });
  assert.ok(list.at(-1).final && list.at(-1).text.includes("the step's table holds the same numbers"));
});

test("the buttons: a drawn icon and a plain word; the step forward says it goes one frame forward (issue 43: “▶|”)", () => {
  assert.deepEqual(Object.keys(CONTROLS).sort(), ["back", "forward", "pause", "play"]);
  for (const control of Object.values(CONTROLS)) {
    // the visible word needs no glyph beyond ASCII (Debian's fonts-dejavu-core lacks ⏸); the icon is SVG, in no font
    assert.match(control.text, /^[A-Za-z0-9 ]+$/);
    assert.ok(ICONS[control.icon].startsWith("M"), control.icon);
    assert.ok(control.name.startsWith(control.text), "the accessible name begins with the visible word (WCAG 2.5.3)");
    assert.ok(control.title.startsWith(control.name));
  }
  assert.equal(CONTROLS.forward.name, "1 frame forward");
  assert.equal(CONTROLS.back.name, "1 frame back");
  assert.equal(CONTROLS.forward.keys, "ArrowRight");
  assert.equal(CONTROLS.back.keys, "ArrowLeft");
  assert.notEqual(ICONS.play, ICONS.forward);  // the step forward does not look like Play (nor like "to the end")
});

// --- the keyboard: the player's own handler on a stub DOM, then what a browser does with a key it was left ---------

class Stub {  // just enough of an element for player(): children, attributes, listeners
  constructor(tag) {
    this.tagName = tag.toUpperCase(); this.children = []; this.attrs = {}; this.listeners = {}; this.dataset = {};
    this.textContent = ""; this.value = "";
  }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  getAttribute(k) { return this.attrs[k]; }
  append(...c) { this.children.push(...c); }
  replaceChildren(...c) { this.children = c; }
  addEventListener(t, f) { (this.listeners[t] ||= []).push(f); }
  fire(t, e) { (this.listeners[t] || []).forEach((f) => f(e)); }
}

function openPlayer() {
  globalThis.document = { createElement: (t) => new Stub(t), createElementNS: (_, t) => new Stub(t) };
  globalThis.window = { matchMedia: () => ({ matches: false }) };
  const parent = new Stub("div");
  const cleanup = player({ data: { texts: TEXTS, ...softmax, title: "softmax", query: 1 }, parentElement: parent });
  const root = parent.children[0];
  const [queryField, back, play, forward, speedField] = root.children[0].children;
  const [query, speed] = [queryField, speedField].map((field) => field.children[1]);  // each after its label
  const counter = root.children[0].children[5];
  // a key pressed with the focus on ``target``: keydown, then keyup, each through the player (it listens on its root,
  // where the events bubble to); then what a browser does with a key the player left alone: Space's keyup presses a
  // focused button, ↑/↓/←/→/Home/End change a closed menu's choice (Chromium, Firefox)
  function press(key, target, extra = {}) {
    const prevented = { keydown: false, keyup: false };
    for (const type of ["keydown", "keyup"]) {
      root.fire(type, { key, target, ...extra, preventDefault() { prevented[type] = true; } });
    }
    if (target.tagName === "BUTTON" && key === " " && !prevented.keyup && !prevented.keydown) target.fire("click", {});
    if (target.tagName === "SELECT" && !prevented.keydown) {
      const r = Number(target.value) + ({ ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[key] || 0);
      if (r !== Number(target.value) && r >= 0 && r < target.children.length) {
        target.value = String(r);
        target.fire("change", {});
      }
    }
    return prevented;
  }
  const playing = () => play.getAttribute("aria-label") === "Pause";
  return { root, query, back, play, forward, speed, counter, press, playing, cleanup };
}

test("Space plays or pauses wherever the focus is in the player, a focused “1 frame” button included (issue 43)", () => {
  const p = openPlayer();
  try {
    p.forward.fire("click", {});  // a click on "1 frame" forward leaves the focus on it
    assert.equal(p.counter.textContent, "2 / 7");
    const prevented = p.press(" ", p.forward);
    assert.ok(prevented.keydown && prevented.keyup, "the browser would press the focused button");
    assert.ok(p.playing(), "Space on the focused “1 frame” button did not play");
    assert.equal(p.counter.textContent, "2 / 7");  // and did not step
    p.press(" ", p.forward);
    assert.ok(!p.playing(), "Space again did not pause");
    for (const target of [p.back, p.play, p.query, p.speed, p.root]) {
      p.press(" ", target);
      assert.ok(p.playing(), target.tagName);
      p.press(" ", target);
      assert.ok(!p.playing(), target.tagName);
    }
    p.press(" ", p.root);
    p.press(" ", p.root, { repeat: true });  // Space held down: played once, not on and off
    assert.ok(p.playing());
  } finally { p.cleanup(); }
});

test("← → Home End move the frames on the query menu too, and ↑ ↓ still change the query (issue 43)", () => {
  const p = openPlayer();
  try {
    assert.equal(p.query.value, "1");
    for (const menu of [p.query, p.speed]) {
      p.press("End", p.root);
      p.press("Home", menu);
      assert.equal(p.counter.textContent, "1 / 7");
      assert.ok(p.press("ArrowRight", menu).keydown);
      assert.equal(p.counter.textContent, "2 / 7");
      p.press("ArrowRight", menu);
      p.press("ArrowLeft", menu);
      assert.equal(p.counter.textContent, "2 / 7");
      p.press("End", menu);
      assert.equal(p.counter.textContent, "7 / 7");
      assert.equal(p.query.value, "1");  // the frames moved, the query stayed
      assert.equal(p.speed.value, "1");
    }
    assert.ok(!p.press("ArrowDown", p.query).keydown, "↓ on the query menu is the menu's own");
    assert.equal(p.query.value, "2");
    assert.equal(p.counter.textContent, "1 / 9");  // query 3's frames from its first: z and m, 3 e^, Σ, 3 α, the row
    assert.ok(!p.press("ArrowUp", p.query).keydown);
    assert.equal(p.query.value, "1");
  } finally { p.cleanup(); }
});

test("a key with Alt, Ctrl or Meta is the browser's (Alt+← goes back a page), and the player leaves it", () => {
  const p = openPlayer();
  try {
    p.press("ArrowRight", p.root);
    for (const modifier of ["altKey", "ctrlKey", "metaKey"]) {
      assert.ok(!p.press("ArrowLeft", p.root, { [modifier]: true }).keydown, modifier);
      assert.ok(!p.press(" ", p.root, { [modifier]: true }).keydown, modifier);
    }
    assert.equal(p.counter.textContent, "2 / 7");
    assert.ok(!p.playing());
  } finally { p.cleanup(); }
});
