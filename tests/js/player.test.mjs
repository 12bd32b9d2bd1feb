// Unit tests of static/player.js in Node (node --test tests/js/), run by make test: the frames of a played step end
// on the engine's numbers (the table's), every key in turn, masked keys left out.
import { test } from "node:test";
import assert from "node:assert/strict";
import { frames } from "../../static/player.js";

const keys = ["This", "forum", "is"];

test("the scores: each key's terms appear one by one, and the last frame is the engine's row", () => {
  const data = { kind: "scores", keys, queries: keys, q: [[1, 2], [0.5, -1], [0, 1]], k: [[1, 0], [0, 1], [2, 2]],
    values: [[1, 2, 6], [0.5, -1, -1], [0, 1, 2]] };
  const list = frames(data, 0);
  assert.equal(list.length, 3 * 2 + 1);  // d_k = 2 terms for each of 3 keys, then the row
  assert.equal(list[0].text, "s(This, This) = 1.00 × 1.00 + … ≈ 1.00 so far");
  assert.equal(list[1].text, "s(This, This) = q·k = 1.00 × 1.00 + 2.00 × 0.00 ≈ 1.00");
  assert.equal(frames(data, 1)[1].text, "s(forum, This) = q·k = 0.50 × 1.00 + −1.00 × 0.00 ≈ 0.50");
  assert.match(frames(data, 0)[3].text, /1\.00 × 0\.00 \+ 2\.00 × 1\.00/);
  assert.deepEqual(list.at(-1).cells, { 0: 1, 1: 2, 2: 6 });
  assert.equal(list.at(-1).final, true);
});

test("the softmax: z and m, each exponential, their sum, each weight; a masked key takes no part", () => {
  const data = { kind: "softmax", keys, queries: keys, z: [[0.5, null, null], [0.2, 0.4, null], [0, 0, 0]],
    m: [0.5, 0.4, 0], e: [[1, null, null], [0.818731, 1, null], [1, 1, 1]], total: [1, 1.818731, 3],
    values: [[1, 0, 0], [0.450166, 0.549834, 0], [0.333333, 0.333333, 0.333333]] };
  const list = frames(data, 1);
  assert.equal(list.length, 1 + 2 + 1 + 2 + 1);
  assert.match(list[0].text, /m = 0\.40/);
  assert.equal(list[1].text, "e^(z − m) for “This”: e^(0.200 − 0.400) ≈ 0.819");
  assert.equal(list[3].text, "Their sum Σ = 0.819 + 1.000 ≈ 1.819");
  assert.deepEqual(list.at(-1).cells, { 0: 0.450166, 1: 0.549834 });
});

test("the output: α·v added key by key, and the last frame is the engine's output row", () => {
  const data = { kind: "output", keys, queries: keys, dims: ["1", "2"], alpha: [[0.5, 0.5, null], [1, 0, 0], [0, 0, 1]],
    v: [[2, 0], [0, 2], [9, 9]], values: [[1, 1], [2, 0], [9, 9]] };
  const list = frames(data, 0);
  assert.equal(list.length, 2 + 1);  // key 3 is masked
  assert.deepEqual(list[0].cells, { 0: 1, 1: 0 });
  assert.deepEqual(list[1].cells, { 0: 1, 1: 1 });
  assert.deepEqual(list.at(-1).cells, { 0: 1, 1: 1 });
  assert.ok(list.at(-1).final && list.at(-1).text.includes("the step's table holds the same numbers"));
});
