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
