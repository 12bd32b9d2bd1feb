// Unit tests of static/hover.js's lighting in Node (node --test tests/js/), run by make test: what a panel's lit
// cells become when another panel's pointer leaves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { light } from "../../static/hover.js";

function cells() {
  const made = new Map();
  for (const key of ["0,0", "1,0"]) {
    const classes = new Set();
    const [r, c] = key.split(",");
    made.set(key, { dataset: { r, c }, classList: { add: (...n) => n.forEach((x) => classes.add(x)),
      remove: (...n) => n.forEach((x) => classes.delete(x)), has: (x) => classes.has(x) } });
  }
  return made;
}

test("a pointer leaving one panel leaves the keyboard's lit cell in another alone, and clears its own", () => {
  const panel = { id: "gen-q" };
  const parts = { cells: cells(), grid: null };
  light(panel, parts, { source: "gen-q", links: [{ panel: "gen-q", axis: "cell", r: 1, c: 0, source: "gen-q" }] });
  assert.equal(parts.cells.get("1,0").classList.has("alv-here"), true);
  light(panel, parts, { source: "gen-x", links: [] });  // gen-x's pointer left: not gen-q's light to put out
  assert.equal(parts.cells.get("1,0").classList.has("alv-here"), true);
  light(panel, parts, { source: "gen-q", links: [] });  // gen-q's own leave puts it out
  assert.equal(parts.cells.get("1,0").classList.has("alv-here"), false);
});

test("a new source's lights replace the last source's", () => {
  const panel = { id: "gen-q" };
  const parts = { cells: cells(), grid: null };
  light(panel, parts, { source: "gen-q", links: [{ panel: "gen-q", axis: "cell", r: 1, c: 0, source: "gen-q" }] });
  light(panel, parts, { source: "gen-k", links: [{ panel: "gen-q", axis: "row", index: 0 }] });
  assert.equal(parts.cells.get("1,0").classList.has("alv-here"), false);
  assert.equal(parts.cells.get("0,0").classList.has("alv-lit"), true);
});
