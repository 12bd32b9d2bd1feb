// formatNumber(x, decimals) for each [x, decimals] on standard input (JSON), as the browser writes them.
// Used by tests/test_tooltips.py to hold it to the server's viz.arithmetic.text.
import { readFileSync } from "node:fs";
import { formatNumber } from "../../static/tooltip.js";

const pairs = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(pairs.map(([x, d]) => formatNumber(x, d))));
