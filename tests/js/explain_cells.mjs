// Every cell's tooltip, as plain text, for the panels on standard input (JSON: a list of view panels as
// ui/view.py makes them). Used by tests/test_tooltips.py, which checks the arithmetic each tooltip writes
// as a learner with a calculator would. Subscripts are written _{…}, superscripts ^{…}.
import { readFileSync } from "node:fs";
import { explain } from "../../static/tooltip.js";
import { useTexts } from "../../static/tooltip.js";

// the English texts the server sends with every view (ui/view.py's texts(); tests/test_tooltips.py checks this copy)
useTexts(JSON.parse(readFileSync(new URL("view_texts.json", import.meta.url), "utf8")));

const flat = (line) => line.pieces.map((p) => (typeof p === "string" ? p : p.sub !== undefined ? `_{${p.sub}}` :
  `^{${p.sup}}`)).join("");
const panels = JSON.parse(readFileSync(0, "utf8"));
const out = panels.map((panel) => panel.values.map((row, r) => row.map((_, c) =>
  explain(panel, r, c).map((line) => ({ cls: line.cls, text: flat(line) })))));
process.stdout.write(JSON.stringify(out));
