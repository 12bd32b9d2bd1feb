// Unit tests of static/table.js in Node (node --test tests/js/), run by make test: how a table splits into blocks of
// columns that fit the room it has, and a cell's text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cellText, columnBlocks, columnWidths } from "../../static/table.js";
import { readFileSync } from "node:fs";
import { useTexts } from "../../static/tooltip.js";

// the English texts the server sends with every view (ui/view.py's texts(); tests/test_tooltips.py checks this copy)
useTexts(JSON.parse(readFileSync(new URL("view_texts.json", import.meta.url), "utf8")));

const panel = (rows, cols, value = 0.5) => ({
  rows: Array.from({ length: rows }, (_, r) => `t${r + 1}`),
  cols: Array.from({ length: cols }, (_, c) => String(c + 1)),
  values: Array.from({ length: rows }, () => Array(cols).fill(value)),
  decimals: 2,
});

// a square α over a sentence's tokens, as the lessons draw it
const alpha = (tokens) => ({
  rows: tokens, cols: tokens, decimals: 2, corner: "query \\ key",
  values: tokens.map(() => tokens.map(() => 1 / tokens.length)),
});

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const blockWidth = (widths, block) => widths.labels + sum(block.map((c) => widths.columns[c]));

// A seeded generator (mulberry32), so that a failure names its case and comes back on the next run
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const letters = "abcdefghijklmnopqrstuvwxyzWM ";
const word = (rand, most) => Array.from({ length: 1 + Math.floor(rand() * most) },
  () => letters[Math.floor(rand() * letters.length)]).join("");

test("issue 47's tables are one block in the room they had (12 × 12 and 8 × 8 α at 1280: 820 px)", () => {
  const twelve = alpha(["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "and", "soft"]);
  assert.deepEqual(columnBlocks(twelve, 1, 820), [Array.from({ length: 12 }, (_, c) => c)]);
  const eight = alpha(["This", "forum", "is", "awesome", "and", "I", "like", "it"]);
  assert.deepEqual(columnBlocks(eight, 1, 820), [[0, 1, 2, 3, 4, 5, 6, 7]]);
  // the √d_k table: the "512" column stays with the others
  const dk = { rows: ["d_k", "√d_k", "spread of s", "spread of s/√d_k"], cols: ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512"],
    values: Array.from({ length: 4 }, () => Array(10).fill(12.345)), decimals: 2 };
  assert.equal(columnBlocks(dk, 1, 820).length, 1);
  // the heads-off table: 12 heads in one block
  assert.equal(columnBlocks(panel(6, 12), 1, 820).length, 1);
});

test("a table too wide for its room splits into blocks that each fit, and a narrower room means more blocks", () => {
  const twelve = alpha(["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "warm", "and", "soft"]);
  const narrow = columnBlocks(twelve, 1, 420);
  assert.ok(narrow.length >= 2);
  const widths = columnWidths(twelve, 1);
  assert.ok(narrow.every((b) => blockWidth(widths, b) <= 420));
  assert.ok(columnBlocks(twelve, 1.5, 420).length >= narrow.length);  // presenter mode's larger type
  assert.ok(columnBlocks(twelve, 1, 300).length >= narrow.length);
});

test("property: one block exactly when the table's estimated width fits; else every block fits unless one column " +
     "alone does not, no block could take the next block's first column, every column once and in order", () => {
  for (let seed = 1; seed <= 3000; seed++) {
    const rand = random(seed);
    const rows = 1 + Math.floor(rand() * 16), cols = 1 + Math.floor(rand() * 70);
    const kind = rand();
    const cell = () => (kind < 0.5 ? (rand() - 0.5) * 10 ** Math.floor(rand() * 6) : kind < 0.6 ? null : word(rand, 24));
    const p = {
      rows: Array.from({ length: rows }, () => word(rand, rand() < 0.2 ? 30 : 10)),
      cols: Array.from({ length: cols }, () => word(rand, rand() < 0.2 ? 30 : 8)),
      values: Array.from({ length: rows }, () => Array.from({ length: cols }, cell)),
      decimals: Math.floor(rand() * 5),
      rowHeaders: rand() < 0.9 ? undefined : false,
      corner: rand() < 0.5 ? "query \\ key" : undefined,
    };
    const scale = [1, 1.25, 1.5][Math.floor(rand() * 3)];
    const room = 120 + Math.floor(rand() * 1500);
    const blocks = columnBlocks(p, scale, room);
    const widths = columnWidths(p, scale);
    const total = widths.labels + sum(widths.columns);
    const where = `seed ${seed}: ${rows} × ${cols}, scale ${scale}, room ${room}, width ${total.toFixed(1)}`;
    assert.equal(blocks.length === 1, total <= room || cols === 1, where);  // one column cannot split
    assert.deepEqual(blocks.flat(), Array.from({ length: cols }, (_, c) => c), where);
    blocks.forEach((block, k) => {
      assert.ok(block.length >= 1, where);
      assert.ok(blockWidth(widths, block) <= room || block.length === 1, `${where}: block ${k} too wide`);
      if (k + 1 < blocks.length) {
        assert.ok(blockWidth(widths, [...block, blocks[k + 1][0]]) > room, `${where}: block ${k} split early`);
      }
    });
  }
});

test("a label's or a cell's longer text makes its column wider, larger type everything wider", () => {
  const a = panel(3, 4), b = { ...panel(3, 4), rows: ["t1", "a much longer token", "t3"] };
  assert.ok(columnWidths(b, 1).labels > columnWidths(a, 1).labels);
  const c = { ...a, values: a.values.map((row, r) => row.map((v, k) => (r === 1 && k === 2 ? "a long text" : v))) };
  assert.ok(columnWidths(c, 1).columns[2] > columnWidths(a, 1).columns[2]);
  assert.deepEqual(columnWidths(c, 1).columns.filter((_, k) => k !== 2), columnWidths(a, 1).columns.filter((_, k) => k !== 2));
  assert.ok(columnWidths(a, 1.5).columns.every((w, k) => w > columnWidths(a, 1).columns[k]));
  assert.equal(columnWidths({ ...a, rowHeaders: false }, 1).labels, 0);
});

test("a cell is written as the server writes it; a masked one as the panel says", () => {
  assert.equal(cellText(panel(1, 1, 0.125), 0, 0), "0.13");
  assert.equal(cellText({ ...panel(1, 1, null), masked: "−∞" }, 0, 0), "−∞");
  assert.equal(cellText(panel(1, 1, null), 0, 0), "—");
  assert.equal(cellText(panel(1, 1, "cut"), 0, 0), "cut");
});
