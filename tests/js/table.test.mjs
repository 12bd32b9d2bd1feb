// Unit tests of static/table.js in Node (node --test tests/js/), run by make test: how a table splits into blocks of
// columns that fit the page, and a cell's text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BLOCK_COLUMNS, cellText, columnBlocks } from "../../static/table.js";

const panel = (rows, cols, value = 0.5) => ({
  rows: Array.from({ length: rows }, (_, r) => `t${r + 1}`),
  cols: Array.from({ length: cols }, (_, c) => String(c + 1)),
  values: Array.from({ length: rows }, () => Array(cols).fill(value)),
  decimals: 2,
});

test("a real model's [4 × 64] Q stands in blocks of eight columns, each column once and in order", () => {
  const blocks = columnBlocks(panel(4, 64), 1);
  assert.equal(blocks.length, 8);
  assert.ok(blocks.every((b) => b.length === BLOCK_COLUMNS));
  assert.deepEqual(blocks.flat(), Array.from({ length: 64 }, (_, c) => c));
});

test("wide texts make narrower blocks (the page beside the sidebar at 1024 px), larger type narrower still", () => {
  const words = { ...panel(3, 7), values: Array.from({ length: 3 }, () => Array(7).fill("a rather long token text")) };
  const blocks = columnBlocks(words, 1);
  assert.ok(blocks.length >= 2 && blocks.every((b) => b.length >= 1));
  assert.deepEqual(blocks.flat(), [0, 1, 2, 3, 4, 5, 6]);
  assert.ok(columnBlocks(words, 1.5).length >= blocks.length);  // presenter mode's type
  assert.deepEqual(columnBlocks(panel(2, 3), 1), [[0, 1, 2]]);  // a small table is one block
});

test("a cell is written as the server writes it; a masked one as the panel says", () => {
  assert.equal(cellText(panel(1, 1, 0.125), 0, 0), "0.13");
  assert.equal(cellText({ ...panel(1, 1, null), masked: "−∞" }, 0, 0), "−∞");
  assert.equal(cellText(panel(1, 1, null), 0, 0), "—");
  assert.equal(cellText(panel(1, 1, "cut"), 0, 0), "cut");
});
