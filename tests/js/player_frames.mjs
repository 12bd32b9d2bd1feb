// Every frame's text of the players on standard input (JSON: a list of viz/player.py payloads), for every query:
// [payload][query] → the texts, as static/player.js writes them. Used by tests/test_player.py, which checks the
// arithmetic each frame writes as a learner with a calculator would (tests/written.py).
import { readFileSync } from "node:fs";
import { frames } from "../../static/player.js";

const payloads = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(payloads.map((data) => data.queries.map((_, i) => frames(data, i).map((f) => f.text)))));
