// Unit tests of static/tooltip.js in Node (node --test tests/js/), run by make test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cellDecimals, decimalsAt, explain, formatNumber } from "../../static/tooltip.js";
import { readFileSync } from "node:fs";
import { useTexts } from "../../static/tooltip.js";

// the English texts the server sends with every view (ui/view.py's texts(); tests/test_tooltips.py checks this copy)
useTexts(JSON.parse(readFileSync(new URL("view_texts.json", import.meta.url), "utf8")));

test("numbers are rounded half away from zero from their six held decimals, as the server writes them", () => {
  // floating-point toFixed would write 0.125 as 0.13 but 1.005 as 1.00 (its binary value is below)
  assert.equal(formatNumber(0.125, 2), "0.13");
  assert.equal(formatNumber(-0.125, 2), "−0.13");
  assert.equal(formatNumber(1.005, 2), "1.01");
  assert.equal(formatNumber(0.145, 2), "0.15");
  assert.equal(formatNumber(-0.001, 2), "0.00");  // never −0.00
  assert.equal(formatNumber(2.5, 0), "3");
  assert.equal(formatNumber(-Infinity, 2), "−∞");
  assert.equal(formatNumber(null, 2), "");
  assert.equal(formatNumber("text", 2), "text");
});

test("a panel's decimals are one number, one a column or one a cell; a ≈ marker counts by its size", () => {
  assert.equal(decimalsAt({ decimals: 2 }, 1, 1), 2);
  assert.equal(decimalsAt({ decimals: [2, 3, -6] }, 0, 2), 6);
  assert.equal(decimalsAt({ decimals: [[2, 3], [4, 5]] }, 1, 0), 4);
  assert.deepEqual(cellDecimals({ dec: -6 }, 0, 0), { places: 6, rel: " ≈ " });
  assert.deepEqual(cellDecimals({}, 0, 0), { places: 2, rel: " = " });
});

const text = (line) => line.pieces.map((p) => (typeof p === "string" ? p : p.sub ?? p.sup)).join("");

test("a score's tooltip writes q·k with the decimals the server chose for that cell", () => {
  const panel = { values: [[-3.98]], rows: ["This"], cols: ["This"], rowName: "query", colName: "key",
    tip: { kind: "dot", sym: "s", aSym: "q", bSym: "k", a: [[2.1234, 0.7789]], b: [[-1.3911, 1.0234]], dec: 3 } };
  const lines = explain(panel, 0, 0);
  assert.equal(text(lines[0]), "query “This” (1) · key “This” (1)");
  assert.equal(text(lines[1]), "s1,1 = q1·k1 = 2.123·(−1.391) + 0.779·1.023 = −3.98");
});

test("the softmax tooltip writes e^(z−m) as a superscript, not a subscript", () => {
  const panel = { values: [[0.5]], rows: ["a"], cols: ["b"], tip: { kind: "softmax", e: [[1]], sums: [2], m: [0], dec: 3 } };
  const pieces = explain(panel, 0, 0)[1].pieces;
  assert.ok(pieces.some((p) => p.sup === "z−m"));
  assert.ok(!pieces.some((p) => p.sub === "z−m"));
});

test("a sum too long to write is cut to its 3 largest terms and says how many it left out", () => {
  const a = [[1, 2, 3, 4, 5, 6, 7, 8, 9]], b = [[1, 1, 1, 1, 1, 1, 1, 1, 1]];
  const panel = { values: [[45]], rows: ["a"], cols: ["b"], tip: { kind: "dot", sym: "s", aSym: "q", bSym: "k", a, b } };
  assert.match(text(explain(panel, 0, 0)[1]), /= 9\.00·1\.00 \+ 8\.00·1\.00 \+ 7\.00·1\.00 \+ … \(6 more terms\) = 45\.00$/);
});

test("a ≈ cell says ≈ and writes six decimals", () => {
  const panel = { values: [[0.13]], rows: ["a"], cols: ["b"], tip: { kind: "scaled", s: [[1]], div: 8, divText: "√64", dec: -6 } };
  assert.equal(text(explain(panel, 0, 0)[1]), "z1,1 = s1,1 / √64 = 1.000000 / 8.000000 ≈ 0.13");
});

test("labels reach the tooltip as text, never as markup", () => {
  const evil = "<img src=x onerror=alert(1)>";
  const panel = { values: [[1]], rows: [evil], cols: ["b"], decimals: 2 };
  assert.ok(text(explain(panel, 0, 0)[0]).includes(evil));  // the DOM side inserts it with createTextNode
});

test("the vectors a cell comes from are named with their numbers, a long one by its first eight", async () => {
  const { sources, vector } = await import("../../static/tooltip.js");
  const dot = { values: [[0.5]], rows: ["a"], cols: ["b"],
    tip: { kind: "dot", sym: "s", aSym: "q", bSym: "k", a: [[1.234, -0.5]], b: [[0.25, 2]] } };
  const lines = sources(dot, 0, 0).map(text);
  assert.deepEqual(lines, ["Computed from (not drawn here):", "q1 = (1.23, −0.50), row 1 of Q",
    "k1 = (0.25, 2.00), row 1 of K"]);
  assert.equal(vector(Array.from({ length: 64 }, (_, k) => k / 100)),
    "(0.00, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, … 56 more)");
  const out = { values: [[0, 0], [0, 0]], rows: ["a", "b"], cols: ["1", "2"],
    tip: { kind: "sum", w: [[1, 0], [0.4, 0.6]], v: [[1, 2], [3, 4]] } };
  assert.deepEqual(sources(out, 1, 1).slice(1).map(text), ["α2,: = (0.40, 0.60), row 2 of α", "v:,2 = (2.00, 4.00), column 2 of V"]);
  const qkv = { values: [[0]], rows: ["a"], cols: ["1"], tip: { kind: "matmul", sym: "q", wSym: "W_Q", x: [[1, 2]], w: [[3], [4]] } };
  assert.deepEqual(sources(qkv, 0, 0).slice(1).map(text), ["x1 = (1.00, 2.00), row 1 of X", "W_Q:,1 = (3.00, 4.00), column 1 of W_Q"]);
  assert.deepEqual(sources({ values: [[1]], rows: ["a"], cols: ["b"], tip: { kind: "note" } }, 0, 0), []);
});

test("a table of layers 2–6 names its row by the layer's number, not as a token (issue 43)", () => {
  // the heads-off table starts at the first layer switched off: its fourth row is layer 5 ("layer “5” (4)" before)
  const panel = { values: [[0], [0], [0], [0.25], [0]], rows: ["2", "3", "4", "5", "6"], cols: ["1", "2", "3"],
    rowName: "layer", colName: "head", rowNumbered: true, colNumbered: true, decimals: 2 };
  assert.equal(text(explain(panel, 3, 2)[0]), "layer 5 · head 3");
  // a token that is a number is still a token: "5" at position 4 of a sentence
  const tokens = { ...panel, rowName: "query", colName: "key", rowNumbered: undefined, colNumbered: undefined };
  assert.equal(text(explain(tokens, 3, 2)[0]), "query “5” (4) · key 3");
});

test("a chosen query's row alone is named by the query's number in the sentence, not its place in the table", () => {
  const row = { values: [[0.5, 0.5, 0, null]], rows: ["is"], cols: ["This", "forum", "is", "awesome"], rowAt: [3],
    rowName: "query", colName: "key", masked: "—", decimals: 2 };
  assert.equal(text(explain(row, 0, 3)[0]), "query “is” (3) · key “awesome” (4)");
  assert.match(text(explain(row, 0, 3)[1]), /causal mask hides key 4 from query 3, so its weight is exactly 0/);
  assert.equal(text(explain({ ...row, rowAt: undefined }, 0, 0)[0]), "query “is” (1) · key “This” (1)");
});

test("an empty cell is a causal mask's only where its panel says nothing else of it", () => {
  const panel = { values: [[null]], rows: ["0"], cols: ["loss"], rowName: "step", colName: "column" };
  assert.match(text(explain(panel, 0, 0)[1]), /causal mask hides key 1 from query 1, so its weight is exactly 0/);
  const said = explain({ ...panel, blank: "no training batch yet" }, 0, 0).map(text);
  assert.deepEqual(said.slice(1), ["no training batch yet"]);
  assert.ok(!said.join(" ").includes("causal"));
});

test("numbers are written with the reader's decimal sign the server sends (a comma in Spanish and French)", async () => {
  const { useDecimal } = await import("../../static/tooltip.js");
  useDecimal(",");
  try {
    assert.equal(formatNumber(0.25, 2), "0,25");
    assert.equal(formatNumber(-1.005, 2), "−1,01");
    assert.equal(formatNumber(0, 3), "0,000");
    assert.equal(formatNumber(12, 0), "12");
  } finally {
    useDecimal(".");
  }
  assert.equal(formatNumber(0.25, 2), "0.25");
});
