// What a view's tooltip says, as data: numbers written as the server writes them, and where a value comes
// from in this trace's numbers (s = q·k term by term, z = s/√d_k, α = e^(z−m)/Σ, the output's sum, …).
//
// Pure: no DOM. static/view.js turns the lines into elements (text only, never HTML); the tests run
// these functions in Node (tests/js/) on the server's own payloads (viz/provenance.py).
//
// The one rule for written-out arithmetic is the server's (viz/arithmetic.py): each payload that writes
// a sum, product or quotient carries `dec`, the decimals its inputs are written with in each cell so
// that they give the shown result; a negative number means no decimals do, and the line says "≈".

// Every word the view writes comes from the server, in the reader's language (ui/view.py's TEXTS, sent with each view's
// data): ``useTexts`` keeps the page's, ``say`` fills a template's {fields}. A page speaks one language.
let TEXTS = {};
let DECIMAL = ".";  // the reader's decimal sign ("," in Spanish and French): every number this page's code writes
export function useTexts(texts) {
  if (texts) TEXTS = texts;
  useDecimal(texts?.decimal);
}
export function useDecimal(sign) {
  if (sign) DECIMAL = sign;
}
export function say(name, fields = {}) {
  const template = TEXTS[name] ?? `[${name}]`;  // a text the server did not send shows its name, never breaks the view
  return template.replace(/\{(\w+)\}/g, (whole, field) => (field in fields ? String(fields[field]) : whole));
}

export const TERMS_SHOWN = 8;  // a sum of up to this many terms is written in full, a longer one by its 3 largest
const HELD = 1e6;  // every number is held at six decimals (viz.arithmetic.HELD)
const JS_EXACT = 2 ** 52 / HELD;

// ---- numbers, as the server writes them (viz.arithmetic.text) --------------------------------------

// x at `decimals` decimals: the six-decimal number k = round(x·10⁶) rounded half away from zero, in
// integers (toFixed rounds the binary value instead: 0.125 would be "0.13" here and "0.12" in Python's
// format, and the two must agree). A true minus sign; a number that shows as zero has none.
export function formatNumber(x, decimals) {
  if (x === null || x === undefined) return "";
  if (typeof x === "string") return x;
  if (x === -Infinity) return "−∞";
  if (Number.isNaN(x)) return "";
  if (decimals === null || decimals === undefined) return String(x);
  if (!Number.isFinite(x) || Math.abs(x) >= JS_EXACT) return x.toFixed(decimals).replace("-", "−").replace(".", DECIMAL);
  const k = Math.round(x * HELD);
  const q = 10 ** (6 - decimals);
  const s = Math.abs(k) + Math.floor(q / 2);
  const n = (s - (s % q)) / q;  // exact: whole numbers below 2^53
  if (n === 0) return (0).toFixed(decimals).replace(".", DECIMAL);
  const p = 10 ** decimals;
  const whole = (n - (n % p)) / p;
  const sign = k < 0 ? "−" : "";
  return decimals > 0 ? `${sign}${whole}${DECIMAL}${String(n % p).padStart(decimals, "0")}` : `${sign}${whole}`;
}

export function paren(x, decimals = 2) {  // a factor in a product: negative numbers in parentheses (the player's too)
  const t = formatNumber(x, decimals);
  return t.startsWith("−") ? `(${t})` : t;
}

// The decimals a table cell is written with: one number for the panel, one a column, or one a cell
// (a negative one is a "≈" marker of viz.arithmetic; its magnitude is the decimals)
export function decimalsAt(panel, r, c, signed = false) {
  const d = panel.decimals;
  if (!Array.isArray(d)) return d;
  const x = Array.isArray(d[0]) ? d[r][c] : d[c];
  return signed ? x : Math.abs(x);
}

// The decimals a cell's inputs are written with, and its relation: {places, rel}; `dec` is one number,
// one a column or one a cell, as a panel's decimals are
export function cellDecimals(tip, r, c) {
  const d = tip.dec === undefined ? 2 : decimalsAt({ decimals: tip.dec }, r, c, true);
  return { places: Math.abs(d), rel: d < 0 ? " ≈ " : " = " };
}

// "a·b + c·d + …": every term, or the 3 largest (at 2 decimals) when there are more than TERMS_SHOWN
function sumOfTerms(terms, places) {
  if (terms.length <= TERMS_SHOWN) return { text: terms.map((t) => t.text(places)).join(" + "), full: true };
  const shown = [...terms].sort((p, q) => Math.abs(q.value) - Math.abs(p.value)).slice(0, 3);
  return { text: shown.map((t) => t.text(2)).join(" + ") + " + " + say("moreTerms", { count: terms.length - shown.length }),
           full: false };
}

function product(a, b) {
  return { value: a * b, text: (d) => `${paren(a, d)}·${paren(b, d)}` };
}

// ---- what a cell's tooltip says --------------------------------------------------------------------

// Row r's number: its place in the table, or the panel's ``rowAt`` (a chosen query's row alone, a cached step's
// query: its number in the sentence)
const rowNumber = (panel, r) => (panel.rowAt ? panel.rowAt[r] : r + 1);

// Lines of pieces: a string is text, {sub: "…"} a subscript, {sup: "…"} a superscript.
// Each line is {cls, pieces}: cls "alv-head" (the cell's row and column), "alv-math", or null (prose).
export function explain(panel, r, c) {
  const out = [];
  const text = (cls, ...pieces) => out.push({ cls, pieces });
  const v = panel.values[r][c];
  const fmt = (x) => formatNumber(x, 2);
  // a numbered row ("layer 6") needs no quotes: its label is its number (rowNumbered: layers 2–6 of a table whose
  // first row is layer 2), or it is numbered from 1 as the table counts
  const name = (kind, labels, k, numbered, at = k + 1) => (numbered || labels[k] === String(at) ?
    say("numbered", { kind, label: labels[k] }) : say("named", { kind, label: labels[k], at }));
  const row = rowNumber(panel, r);
  text("alv-head", `${name(panel.rowName || say("row"), panel.rows, r, panel.rowNumbered, row)} · ` +
    `${name(panel.colName || say("column"), panel.cols, c, panel.colNumbered)}`);
  const tip = panel.tip;
  const i = String(row), j = String(c + 1), ij = `${row},${c + 1}`;
  if (v === null) {  // an empty cell: what the panel says of it (ui/view.py's ``blank``), else a causal mask's
    if (panel.blank) text("alv-math", panel.blank);
    else text("alv-math", say(panel.masked === "−∞" ? "maskedScore" : "maskedWeight", { key: c + 1, query: row }));
    return out;
  }
  if (!tip) {
    text("alv-math", formatNumber(v, decimalsAt(panel, r, c)));
    return out;
  }
  const { places, rel } = cellDecimals(tip, r, c);
  const ending = (sum) => (sum.full ? rel : " = ");  // "… (n more terms) = v": nothing to add up
  if (tip.kind === "dot") {  // s_ij = q_i · k_j
    const sum = sumOfTerms(tip.a[r].map((x, k) => product(x, tip.b[c][k])), places);
    text("alv-math", tip.sym, { sub: ij }, " = ", tip.aSym, { sub: i }, "·", tip.bSym, { sub: j }, " = ", sum.text,
      ending(sum), fmt(v));
  } else if (tip.kind === "scaled") {  // z_ij = s_ij / √d_k
    text("alv-math", "z", { sub: ij }, " = s", { sub: ij }, ` / ${tip.divText} = ${formatNumber(tip.s[r][c], places)} / ` +
      `${formatNumber(tip.div, places)}${rel}${fmt(v)}`);
  } else if (tip.kind === "softmax") {  // α_ij = e^(z_ij − m_i) / Σ_j′ e^(z_ij′ − m_i)
    text("alv-math", "α", { sub: ij }, " = e", { sup: "z−m" }, " / Σ e", { sup: "z−m" },
      ` = ${formatNumber(tip.e[r][c], places)} / ${formatNumber(tip.sums[r], places)}${rel}${fmt(v)}`);
    text("alv-math", say("softmaxM", { m: fmt(tip.m[r]), row }));
  } else if (tip.kind === "sum") {  // out_ic = Σ_j α_ij v_jc
    const w = tip.w[r];
    const terms = w.map((a, k) => product(a, tip.v[k][c])).filter((t, k) => w[k] !== 0);
    const sum = sumOfTerms(terms, places);
    text("alv-math", "out", { sub: ij }, " = Σ", { sub: "j" }, " α", { sub: `${i},j` }, " v", { sub: `j,${j}` }, " = ",
      sum.text, ending(sum), fmt(v));
  } else if (tip.kind === "matmul") {  // q_ic = Σ_d x_id w_dc (+ b_c)
    const sum = sumOfTerms(tip.x[r].map((a, k) => product(a, tip.w[k][c])), places);
    const bias = tip.b ? ` + ${paren(tip.b[c], sum.full ? places : 2)}` : "";
    text("alv-math", tip.sym, { sub: ij }, " = x", { sub: i }, "·", tip.wSym, { sub: `:,${j}` },
      ...(bias ? [" + b", { sub: j }] : []), " = ", sum.text, bias, ending(sum), fmt(v));
  } else if (tip.kind === "add") {  // x_ic = e_ic + p_ic
    text("alv-math", "x", { sub: ij }, " = e", { sub: ij }, " + p", { sub: ij },
      ` = ${formatNumber(tip.e[r][c], places)} + ${paren(tip.p[r][c], places)}${rel}${fmt(v)}`);
  } else if (tip.kind === "column") {  // a table whose last row adds up the rows above (step 8's Σ)
    const last = panel.values.length - 1;
    if (r < last) {
      text("alv-math", formatNumber(v, decimalsAt(panel, r, c)));
      text(null, say("columnTerm", { row: panel.rows[r], column: j }));
    } else {
      const terms = panel.values.slice(0, last).map((row) => paren(row[c], places));
      text("alv-math", say("columnSum", { row: panel.rows[r], column: j, terms: terms.join(" + "), rel, value: fmt(v) }));
    }
  } else if (tip.kind === "cache") {  // a cached step's K and V
    text("alv-math", formatNumber(v, decimalsAt(panel, r, c)));
    text(null, r < tip.cached ? say("cached", { token: r + 1 }) : say("computedNow"));
  } else if (tip.kind === "note") {
    text("alv-math", formatNumber(v, decimalsAt(panel, r, c)));
    const note = tip.notes && tip.notes[`${r},${c}`];
    if (note) text(null, note);
  }
  if (tip.caption) text(null, tip.caption);
  return out;
}

// ---- the vectors a cell is computed from, for a page that does not draw them ----------------------------

export const VECTOR_SHOWN = 8;  // a longer vector is written by its first entries and how many more it has

export function vector(values) {
  const shown = values.slice(0, VECTOR_SHOWN).map((x) => formatNumber(x, 2)).join(TEXTS.sep ?? ", ");
  return `(${values.length > VECTOR_SHOWN ? say("vectorMore", { shown, count: values.length - VECTOR_SHOWN }) : shown})`;
}

// Lines naming the rows and columns a cell's value is computed from, with their numbers: shown when the panels
// that would light up are not on the page (one step at a time, a score's Q and K are on another step).
export function sources(panel, r, c) {
  const tip = panel.tip;
  if (!tip) return [];
  const out = [];
  const i = String(rowNumber(panel, r)), j = String(c + 1);
  const line = (...pieces) => out.push({ cls: "alv-math", pieces });
  const column = (m) => m.map((row) => row[c]);
  if (tip.kind === "dot") {
    line(tip.aSym, { sub: i }, " = " + say("rowOf", { vector: vector(tip.a[r]), row: i, matrix: tip.aSym.toUpperCase() }));
    line(tip.bSym, { sub: j }, " = " + say("rowOf", { vector: vector(tip.b[c]), row: j, matrix: tip.bSym.toUpperCase() }));
  } else if (tip.kind === "matmul") {
    line("x", { sub: i }, " = " + say("rowOf", { vector: vector(tip.x[r]), row: i, matrix: "X" }));
    line(tip.wSym, { sub: `:,${j}` }, " = " + say("columnOf", { vector: vector(column(tip.w)), column: j,
      matrix: tip.wSym }));
  } else if (tip.kind === "sum") {
    line("α", { sub: `${i},:` }, " = " + say("rowOf", { vector: vector(tip.w[r]), row: i, matrix: "α" }));
    line("v", { sub: `:,${j}` }, " = " + say("columnOf", { vector: vector(column(tip.v)), column: j, matrix: "V" }));
  }
  if (out.length) out.unshift({ cls: null, pieces: [say("computedFrom")] });
  return out;
}
