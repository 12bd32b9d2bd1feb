// Attention Lab's view of matrices (mounted by ui/view.py through st.components.v2).
//
// It draws, for each panel of its data: the server-made chart as an <img> (so "Save image as" and the
// text alternative stay), a grid of focusable cells laid exactly over the chart's cells, and the
// number table. It answers the pointer and the keyboard itself, sending nothing to the server: a
// tooltip names the row and column and shows where the value comes from, from this trace's numbers
// (s = q·k term by term, z = s/√d_k, α = e^(z−m)/Σ, the output's sum); the panels and tables it
// links to light up, in this view and in the page's others. Only a choice (a click, Enter) reaches
// the server, as the trigger value "chosen".
//
// Every text from the data (tokens, labels) is inserted with textContent, never as HTML: the
// learner's sentence reaches this code only as data.

const TERMS_SHOWN = 8;  // a sum of up to this many terms is written in full, a longer one by its 3 largest
const LINK_EVENT = "attention-lab:link";
const views = new WeakMap();  // parentElement -> {tip, focus}

export default function render(component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = views.get(parentElement);
  if (!view) {
    view = { host: null, tip: null, focus: null, onLink: null };
    views.set(parentElement, view);
  }
  const root = document.createElement("div");
  root.className = "alv";
  const panels = el("div", "alv-panels");
  root.appendChild(panels);
  const drawn = (data.panels || []).map((panel) => drawPanel(panel, view, setTriggerValue));
  drawn.forEach((d) => panels.appendChild(d.box));
  if (!view.tip) {
    view.tip = el("div", "alv-tip");
    view.tip.id = "alv-tip-" + Math.random().toString(36).slice(2);
    view.tip.setAttribute("role", "tooltip");
    view.tip.hidden = true;
  }
  root.appendChild(view.tip);
  // our own box inside the element: Streamlit keeps the component's stylesheet beside it
  if (!view.host || !view.host.isConnected) {
    view.host = el("div");
    parentElement.appendChild(view.host);
  }
  view.host.replaceChildren(root);
  // lighting from other views (and this one): a window event, so that a score in step 5 can light up
  // Q in step 4 when both are on the page
  if (view.onLink) window.removeEventListener(LINK_EVENT, view.onLink);
  view.onLink = (event) => drawn.forEach((d) => d.light(event.detail));
  window.addEventListener(LINK_EVENT, view.onLink);
  if (view.focus) {  // after a rerun, the keyboard stays where it was
    const again = parentElement.querySelector(`[data-panel="${CSS.escape(view.focus.panel)}"] .alv-grid`);
    const cell = again && again.querySelector(`[data-r="${view.focus.r}"][data-c="${view.focus.c}"]`);
    if (cell) cell.focus({ preventScroll: true });
  }
  return () => window.removeEventListener(LINK_EVENT, view.onLink);
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- numbers, as the server writes them (viz.labels.format_number) -------------------------------------

export function formatNumber(x, decimals) {
  if (x === null || x === undefined) return "";
  if (typeof x === "string") return x;
  if (x === -Infinity) return "−∞";
  if (Number.isNaN(x)) return "";
  if (decimals === null || decimals === undefined) return String(x);
  const text = x.toFixed(decimals);
  return Number(text) === 0 ? (0).toFixed(decimals) : text.replace("-", "−");
}

function fmt(x) {
  return formatNumber(x, 2);
}

function paren(x) {  // a factor in a product: negative numbers in parentheses
  const t = fmt(x);
  return x < 0 ? `(${t})` : t;
}

function sumOfTerms(terms) {  // "a·b + c·d + … = " pieces: every term, or the 3 largest when many
  const shown = terms.length <= TERMS_SHOWN ? terms :
    [...terms].sort((p, q) => Math.abs(q.value) - Math.abs(p.value)).slice(0, 3);
  let text = shown.map((t) => t.text).join(" + ");
  if (shown.length < terms.length) text += ` + … (${terms.length - shown.length} more terms)`;
  return text;
}

// ---- a panel: chart, grid over it, table ---------------------------------------------------------------

function drawPanel(panel, view, setTriggerValue) {
  const box = el("div", "alv-panel" + (panel.below ? " alv-below" : ""));
  box.dataset.panel = panel.id;
  const parts = { grid: null, rows: [], cells: new Map() };
  const choose = (r, c) => {
    if (panel.choose) setTriggerValue("chosen", { panel: panel.id, row: r, col: c });
  };
  if (panel.figure) box.appendChild(drawFigure(panel, view, parts, choose));
  if (panel.table !== false && panel.rows) box.appendChild(drawTable(panel, view, parts, choose));
  return { box, light: (detail) => light(panel, parts, detail) };
}

function drawFigure(panel, view, parts, choose) {
  const fig = panel.figure;
  const box = el("div", "alv-figure st-key-fig-" + panel.id);
  const img = document.createElement("img");
  img.src = fig.src;  // a data: URI of an SVG image: an image runs no script
  img.alt = fig.alt || "";
  img.width = fig.width;
  img.style.width = fig.width + "px";
  box.appendChild(img);
  if (!fig.grid) return box;
  const g = fig.grid;
  const grid = el("div", "alv-grid");
  grid.setAttribute("role", "grid");
  grid.setAttribute("aria-label", (fig.title || panel.id) + (panel.choose ? ". Enter chooses." : ""));
  grid.setAttribute("aria-rowcount", g.rows);
  grid.setAttribute("aria-colcount", g.cols);
  for (let r = 0; r < g.rows; r++) {
    const row = el("div");
    row.setAttribute("role", "row");
    for (let c = 0; c < g.cols; c++) {
      const cell = el("div", "alv-cell" + (panel.choose ? " alv-choose" : ""));
      cell.setAttribute("role", "gridcell");
      cell.dataset.r = r;
      cell.dataset.c = c;
      cell.tabIndex = r === 0 && c === 0 ? 0 : -1;
      cell.style.left = (100 * (g.x + c * g.px) / fig.width) + "%";
      cell.style.top = (100 * (g.y + r * g.py) / fig.height) + "%";
      cell.style.width = (100 * g.w / fig.width) + "%";
      cell.style.height = (100 * g.h / fig.height) + "%";
      cell.setAttribute("aria-label", cellLabel(panel, r, c));
      row.appendChild(cell);
    }
    grid.appendChild(row);
  }
  const at = (cell) => [Number(cell.dataset.r), Number(cell.dataset.c)];
  grid.addEventListener("pointerover", (e) => {
    const cell = e.target.closest(".alv-cell");
    if (cell) show(panel, view, parts, cell, ...at(cell));
  });
  grid.addEventListener("pointerleave", (e) => {  // a finger lifted leaves too: its tooltip stays until focus moves
    if (e.pointerType !== "touch") hide(view, panel);
  });
  grid.addEventListener("focusin", (e) => {
    const cell = e.target.closest(".alv-cell");
    if (!cell) return;
    grid.querySelectorAll(".alv-cell[tabindex='0']").forEach((x) => { x.tabIndex = -1; });
    cell.tabIndex = 0;
    view.focus = { panel: panel.id, r: cell.dataset.r, c: cell.dataset.c };
    show(panel, view, parts, cell, ...at(cell));
  });
  grid.addEventListener("focusout", (e) => {
    if (!grid.contains(e.relatedTarget)) { hide(view, panel); view.focus = null; }
  });
  let tapped = null;  // a touch: the first tap shows the tooltip, a second tap on the same cell chooses
  grid.addEventListener("pointerdown", (e) => {
    const cell = e.target.closest(".alv-cell");
    if (!cell) return;
    if (e.pointerType === "touch") {
      e.preventDefault();
      if (tapped === cell) { choose(...at(cell)); tapped = null; return; }
      tapped = cell;
      cell.focus({ preventScroll: true });
    }
  });
  grid.addEventListener("click", (e) => {
    const cell = e.target.closest(".alv-cell");
    if (cell && e.pointerType !== "touch") choose(...at(cell));
  });
  grid.addEventListener("keydown", (e) => {
    const cell = e.target.closest(".alv-cell");
    if (!cell) return;
    let [r, c] = at(cell);
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      r = Math.min(g.rows - 1, Math.max(0, r + moves[e.key][0]));
      c = Math.min(g.cols - 1, Math.max(0, c + moves[e.key][1]));
    } else if (e.key === "Home") c = 0;
    else if (e.key === "End") c = g.cols - 1;
    else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(r, c); return; }
    else if (e.key === "Escape") { hide(view, panel); return; }
    else return;
    e.preventDefault();
    const next = grid.querySelector(`[data-r="${r}"][data-c="${c}"]`);
    if (next) next.focus();
  });
  box.appendChild(grid);
  parts.grid = grid;
  return box;
}

function drawTable(panel, view, parts, choose) {
  const box = el("div", "alv-table st-key-table-" + panel.id + (panel.scroll ? " alv-scroll" : ""));
  const table = el("table");
  if (panel.caption) table.appendChild(el("caption", null, panel.caption));
  const head = el("thead");
  const hr = el("tr");
  if (panel.rowHeaders !== false) hr.appendChild(el("th", null, panel.corner || ""));
  panel.cols.forEach((c) => { const th = el("th", null, c); th.scope = "col"; hr.appendChild(th); });
  head.appendChild(hr);
  table.appendChild(head);
  const body = el("tbody");
  panel.rows.forEach((label, r) => {
    const tr = el("tr");
    if (panel.rowHeaders !== false) {
      const th = el("th", panel.choose ? "alv-choose" : null, label);
      th.scope = "row";
      if (panel.choose) th.addEventListener("click", () => choose(r, null));
      tr.appendChild(th);
    }
    panel.values[r].forEach((value, c) => {
      const shown = value === null ? (panel.masked || "—") : formatNumber(value, panel.decimals);
      const numeric = typeof value === "number" || value === null || /^[−-]?[0-9]/.test(value);
      const td = el("td", numeric ? "alv-num" : null, shown);
      td.dataset.r = r;
      td.dataset.c = c;
      tr.appendChild(td);
      parts.cells.set(r + "," + c, td);
    });
    parts.rows.push(tr);
    body.appendChild(tr);
  });
  body.addEventListener("pointerover", (e) => {
    const td = e.target.closest("td");
    if (td) show(panel, view, parts, td, Number(td.dataset.r), Number(td.dataset.c));
  });
  body.addEventListener("pointerleave", () => hide(view, panel));
  table.appendChild(body);
  box.appendChild(table);
  return box;
}

function cellLabel(panel, r, c) {
  const v = panel.values && panel.values[r] ? panel.values[r][c] : undefined;
  const value = v === null ? (panel.masked === "−∞" ? "masked, minus infinity" : "masked") :
    formatNumber(v, panel.decimals);
  return `${panel.rowName || "row"} ${r + 1} “${panel.rows[r]}”, ${panel.colName || "column"} ${c + 1} ` +
    `“${panel.cols[c]}”: ${value}`;
}

// ---- tooltip and lighting ---------------------------------------------------------------------------

function show(panel, view, parts, anchor, r, c) {
  const tip = view.tip;
  tip.replaceChildren(...explain(panel, r, c));
  tip.hidden = false;
  const box = anchor.getBoundingClientRect();
  const width = Math.min(tip.offsetWidth || 320, window.innerWidth - 16);
  let left = box.left + box.width / 2 - width / 2;
  left = Math.max(8, Math.min(left, window.innerWidth - width - 8));
  let top = box.bottom + 8;
  if (top + tip.offsetHeight > window.innerHeight - 8) top = Math.max(8, box.top - tip.offsetHeight - 8);
  tip.style.left = left + "px";
  tip.style.top = top + "px";
  anchor.setAttribute("aria-describedby", tip.id);
  const links = (panel.links || []).map((l) => (l.axis === "cell" ? { panel: l.panel, axis: "cell", r, c } :
    { panel: l.panel, axis: l.axis, index: l.from === "col" ? c : r }));
  window.dispatchEvent(new CustomEvent(LINK_EVENT, {
    detail: { source: panel.id, r, c, links: [{ panel: panel.id, axis: "cell", r, c, source: panel.id }, ...links] },
  }));
}

function hide(view, panel) {
  if (view.tip) view.tip.hidden = true;
  window.dispatchEvent(new CustomEvent(LINK_EVENT, { detail: { source: panel.id, links: [] } }));
}

function light(panel, parts, detail) {
  parts.cells.forEach((td) => td.classList.remove("alv-lit", "alv-here"));
  if (parts.grid) parts.grid.querySelectorAll(".alv-lit").forEach((x) => x.classList.remove("alv-lit"));
  for (const l of detail.links || []) {
    if (l.panel !== panel.id) continue;
    if (l.axis === "cell") {
      const td = parts.cells.get(l.r + "," + l.c);
      if (td) td.classList.add("alv-here");
      const cell = parts.grid && l.source !== panel.id &&
        parts.grid.querySelector(`.alv-cell[data-r="${l.r}"][data-c="${l.c}"]`);
      if (cell) cell.classList.add("alv-lit");
      continue;
    }
    const key = l.axis === "row" ? "r" : "c";
    parts.cells.forEach((td) => { if (Number(td.dataset[key]) === l.index) td.classList.add("alv-lit"); });
    if (parts.grid) {
      parts.grid.querySelectorAll(`.alv-cell[data-${key}="${l.index}"]`).forEach((x) => x.classList.add("alv-lit"));
    }
  }
}

function sub(text) {
  const s = document.createElement("sub");
  s.textContent = text;
  return s;
}

function line(...pieces) {  // a line of text and subscripts: strings are text, [x] is a subscript
  const p = el("div", "alv-math");
  for (const piece of pieces) p.appendChild(Array.isArray(piece) ? sub(piece[0]) : document.createTextNode(piece));
  return p;
}

function explain(panel, r, c) {
  const out = [];
  const v = panel.values[r][c];
  const name = (kind, labels, k) => (labels[k] === String(k + 1) ? `${kind} ${k + 1}` :
    `${kind} “${labels[k]}” (${k + 1})`);  // a numbered row ("layer 6") needs no quotes
  out.push(el("div", "alv-head", `${name(panel.rowName || "row", panel.rows, r)} · ` +
    `${name(panel.colName || "column", panel.cols, c)}`));
  const tip = panel.tip;
  const i = String(r + 1), j = String(c + 1), ij = `${r + 1},${c + 1}`;
  if (v === null) {
    out.push(line(`masked: the causal mask hides key ${c + 1} from query ${r + 1}` +
      (panel.masked === "−∞" ? ", so its score is −∞" : ", so its weight is exactly 0")));
    return out;
  }
  if (!tip) {
    out.push(line(formatNumber(v, panel.decimals)));
    return out;
  }
  if (tip.kind === "dot") {  // s_ij = q_i · k_j
    const a = tip.a[r], b = tip.b[c];
    const terms = a.map((x, k) => ({ value: x * b[k], text: `${paren(x)}·${paren(b[k])}` }));
    out.push(line(tip.sym, [ij], " = ", tip.aSym, [i], "·", tip.bSym, [j], " = ", sumOfTerms(terms), " = ", fmt(v)));
  } else if (tip.kind === "scaled") {  // z_ij = s_ij / √d_k
    out.push(line("z", [ij], " = s", [ij], ` / ${tip.divText} = ${fmt(tip.s[r][c])} / ${fmt(tip.div)} = ${fmt(v)}`));
  } else if (tip.kind === "softmax") {  // α_ij = e^(z_ij − m_i) / Σ_j′ e^(z_ij′ − m_i)
    out.push(line("α", [ij], " = e", ["z−m"], " / Σ e", ["z−m"], ` = ${formatNumber(tip.e[r][c], 3)} / ` +
      `${formatNumber(tip.sums[r], 3)} = ${fmt(v)}`));
    out.push(line(`m = ${fmt(tip.m[r])}, the row's largest scaled score; row ${r + 1} adds up to 1`));
  } else if (tip.kind === "sum") {  // out_ic = Σ_j α_ij v_jc
    const w = tip.w[r];
    const terms = w.map((a, k) => ({ value: a * tip.v[k][c], text: `${paren(a)}·${paren(tip.v[k][c])}` }))
      .filter((t, k) => w[k] !== 0);
    out.push(line("out", [ij], " = Σ", ["j"], " α", [`${i},j`], " v", [`j,${j}`], " = ", sumOfTerms(terms), " = ", fmt(v)));
  } else if (tip.kind === "matmul") {  // q_ic = Σ_d x_id w_dc (+ b_c)
    const x = tip.x[r];
    const terms = x.map((a, k) => ({ value: a * tip.w[k][c], text: `${paren(a)}·${paren(tip.w[k][c])}` }));
    const bias = tip.b ? ` + ${paren(tip.b[c])}` : "";
    out.push(line(tip.sym, [ij], " = x", [i], "·", tip.wSym, [`:,${j}`], bias ? " + b" : "", bias ? [j] : "",
      " = ", sumOfTerms(terms), bias, " = ", fmt(v)));
  } else if (tip.kind === "note") {
    out.push(line(formatNumber(v, panel.decimals)));
    const note = tip.notes && tip.notes[`${r},${c}`];
    if (note) out.push(el("div", null, note));
  }
  if (tip.caption) out.push(el("div", null, tip.caption));
  return out;
}
