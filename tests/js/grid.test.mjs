// Unit tests of static/grid.js in Node (node --test tests/js/), run by make test: what a screen reader says of a cell.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cellLabel } from "../../static/grid.js";
import { readFileSync } from "node:fs";
import { useTexts } from "../../static/tooltip.js";

// the English texts the server sends with every view (ui/view.py's texts(); tests/test_tooltips.py checks this copy)
useTexts(JSON.parse(readFileSync(new URL("view_texts.json", import.meta.url), "utf8")));

test("a cell's label names its row and column by number and token, and its value as the table writes it", () => {
  const panel = { rows: ["This", "forum"], cols: ["This", "forum"], values: [[1.234, null], [-0.5, 0.25]],
    decimals: 2, rowName: "query", colName: "key", masked: "−∞" };
  assert.equal(cellLabel(panel, 1, 0), "query 2 “forum”, key 1 “This”: −0.50");
  assert.equal(cellLabel(panel, 0, 1), "query 1 “This”, key 2 “forum”: masked, minus infinity");
  assert.equal(cellLabel({ ...panel, masked: "—", rowName: undefined }, 0, 1), "row 1 “This”, key 2 “forum”: masked");
});

test("a numbered axis (layers 2–6) is read by its numbers, a token axis by place and token (issue 43)", () => {
  const panel = { rows: ["2", "3", "4", "5", "6"], cols: ["1", "2", "3"], values: [[0, 0, 0], [0, 0, 0], [0, 0, 0],
    [0, 0, 0.25], [0, 0, 0]], decimals: 2, rowName: "layer", colName: "head", rowNumbered: true, colNumbered: true };
  assert.equal(cellLabel(panel, 3, 2), "layer 5, head 3: 0.25");
  assert.equal(cellLabel({ ...panel, rowNumbered: false, rowName: "query" }, 3, 2), "query 4 “5”, head 3: 0.25");
});
