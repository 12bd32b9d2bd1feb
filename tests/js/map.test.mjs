// Unit tests of static/map.js in Node (node --test tests/js/), run by make test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { isHere, mainGroup, mapText, partText as partTextIn, thumbCell, unfolded } from "../../static/map.js";

// the English texts the server sends with every map (viz/model_map.py's map_texts(); tests/test_model_map.py checks
// this copy against it)
const TEXTS = JSON.parse(readFileSync(new URL("map_texts.json", import.meta.url), "utf8"));
const partText = (part, current) => partTextIn(part, current, TEXTS);

const data = {
  texts: TEXTS,
  title: "Where this is in a model",
  current: 5,
  groups: [
    { name: "One attention head: this lesson", faded: false, parts: [
      { label: "Tokens", shape: "4 tokens", step: 1, note: "" },
      { label: "Scores Q·Kᵀ", shape: "[4 × 4]", step: 5, note: "" },
    ] },
    { name: "What a full model adds (not computed in this lesson)", faded: true, parts: [
      { label: "More heads, concatenated, · W_O", shape: "[4 × 8]", step: null, note: "the multi-head page" },
      { label: "LayerNorm", shape: "", step: null, note: "" },
    ] },
  ],
};

test("the text alternative names every group and part in order, with shapes, and marks the open step", () => {
  assert.equal(mapText(data),
    "Where this is in a model. One attention head: this lesson: Tokens 4 tokens → Scores Q·Kᵀ [4 × 4] (you are here). "
    + "What a full model adds (not computed in this lesson): More heads, concatenated, · W_O [4 × 8] (the multi-head "
    + "page) → LayerNorm.");
});

test("only a part with the open step is here; a part without a step never is", () => {
  assert.equal(isHere({ step: 5 }, 5), true);
  assert.equal(isHere({ step: 4 }, 5), false);
  assert.equal(isHere({ step: null }, null), false);
  assert.equal(isHere({}, undefined), false);
  assert.equal(partText({ label: "LayerNorm", shape: "", step: null }, 5), "LayerNorm");
});

test("another lesson's topic is here whatever the open step, and says so in the text alternative", () => {
  const part = { label: "÷ √4", shape: "[4 × 4]", step: 6, note: "", here: true };
  assert.equal(isHere(part, null), true);
  assert.equal(isHere(part, 2), true);
  assert.equal(isHere({ ...part, here: false }, null), false);
  assert.equal(partText(part, null), "÷ √4 [4 × 4] (this lesson)");
  assert.equal(partText(part, 6), "÷ √4 [4 × 4] (you are here)");
});

test("a thumbnail's cells shrink with its matrix and stay between 2 and 6 px", () => {
  assert.equal(thumbCell({ rows: 3, cols: 4 }), 6);
  assert.equal(thumbCell({ rows: 12, cols: 12 }), 3);
  assert.equal(thumbCell({ rows: 1, cols: 12 }), 3);
  assert.equal(thumbCell({ rows: 40, cols: 40 }), 2);
});

test("a folded map shows the group holding the open step (or the page's topic), else the first one with steps", () => {
  const before = { name: "Before this layer", faded: false, parts: [{ label: "Embeddings", step: null }] };
  const head = { name: "Head 5 of 12", faded: false, parts: [{ label: "Q", step: 4 }, { label: "α", step: 7 }] };
  const rest = { name: "The rest", faded: true, parts: [{ label: "W_O", step: null, here: false }] };
  assert.equal(mainGroup({ groups: [before, head, rest], current: 7 }), head);
  assert.equal(mainGroup({ groups: [before, head, rest], current: null }), head);  // none here: the first with steps
  const topic = { ...rest, parts: [{ label: "÷ √d_k", step: null, here: true }] };
  assert.equal(mainGroup({ groups: [before, head, topic], current: null }), topic);
  assert.equal(mainGroup({ groups: [before], current: null }), before);  // no steps at all: the first
  assert.equal(mainGroup({ groups: [], current: 1 }), undefined);
});

test("the map is unfolded only where this tab said so; storage that refuses keeps it folded", () => {
  assert.equal(unfolded({ getItem: () => "1" }), true);
  assert.equal(unfolded({ getItem: () => "0" }), false);
  assert.equal(unfolded({ getItem: () => null }), false);
  assert.equal(unfolded({ getItem: () => { throw new Error("private window"); } }), false);
  assert.equal(unfolded(null), false);
});
