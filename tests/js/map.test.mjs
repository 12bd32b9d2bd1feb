// Unit tests of static/map.js in Node (node --test tests/js/), run by make test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isHere, mapText, partText, thumbCell } from "../../static/map.js";

const data = {
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
