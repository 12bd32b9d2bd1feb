// static/countdown.js's text (node --test tests/js/, run by make test).
import { test } from "node:test";
import assert from "node:assert/strict";
import { leftText } from "../../static/countdown.js";

test("seconds left are whole, rounded up, and the end says so", () => {
  assert.equal(leftText(30), "30 s left");
  assert.equal(leftText(29.2), "30 s left");
  assert.equal(leftText(0.2), "1 s left");
  assert.equal(leftText(0), "time is up");
  assert.equal(leftText(-3), "time is up");
});

test("the words come from the reader's language, the seconds filled in", () => {
  const french = { left: "plus que {seconds} s", up: "le temps est écoulé" };
  assert.equal(leftText(29.2, french), "plus que 30 s");
  assert.equal(leftText(0, french), "le temps est écoulé");
});

test("drawn again with new data (each run), the countdown keeps one timer: the newest time, never two in turns", () => {
  // a parent element and a span as the DOM would give them, and timers that run only when told
  const timers = new Map();
  let next = 1;
  const saved = { setInterval: globalThis.setInterval, clearInterval: globalThis.clearInterval,
                  document: globalThis.document, now: performance.now };
  globalThis.setInterval = (f) => { timers.set(next, f); return next++; };
  globalThis.clearInterval = (id) => { timers.delete(id); };
  const span = { className: "", textContent: "" };
  globalThis.document = { createElement: () => span };
  const parent = { querySelector: () => (parent.child || null), appendChild: (c) => { parent.child = c; } };
  let clock = 0;
  performance.now = () => clock;
  return import("../../static/countdown.js").then(({ default: countdown }) => {
    try {
      countdown({ parentElement: parent, data: { left: 5 } });
      countdown({ parentElement: parent, data: { left: 35 } });  // a teacher gave 30 s more: the next run's data
      assert.equal(timers.size, 1);
      clock = 1000;
      for (const tick of timers.values()) tick();
      assert.equal(span.textContent, "34 s left");
    } finally {
      Object.assign(globalThis, { setInterval: saved.setInterval, clearInterval: saved.clearInterval,
                                  document: saved.document });
      performance.now = saved.now;
    }
  });
});
