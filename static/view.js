// Attention Lab's view of matrices (mounted by ui/view.py through st.components.v2).
//
// It draws, for each panel of its data: the server-made chart as an <img> (so "Save image as" and the
// text alternative stay), an ARIA grid over the chart's cells (the pointer and the keyboard move its one
// active cell), and the number table. It answers the pointer and the keyboard itself, sending nothing to the server: a
// tooltip names the row and column and shows where the value comes from, from this trace's numbers
// (s = q·k term by term, z = s/√d_k, α = e^(z−m)/Σ, the output's sum); the panels and tables it
// links to light up, in this view and in the page's others. Only a choice (a click, Enter) reaches
// the server, as the trigger value "chosen".
//
// Every text from the data (tokens, labels) is inserted with textContent, never as HTML: the
// learner's sentence reaches this code only as data. What a tooltip says, and how numbers are written,
// is static/tooltip.js (pure, tested in Node); it is imported with this file's own version, so that a
// browser never pairs a new view with an old tooltip.

const { decimalsAt, explain, formatNumber, sources } = await import(new URL("tooltip.js" + new URL(import.meta.url).search,
                                                       import.meta.url).href);
const LINK_EVENT = "attention-lab:link";
const views = new WeakMap();  // parentElement -> {tip, focus}

export default function render(component) {
  const { data, parentElement, setTriggerValue } = component;
  let view = views.get(parentElement);
  if (!view) {
    view = { host: null, tip: null, focus: null, onLink: null, observers: [] };
    views.set(parentElement, view);
  }
  view.parent = parentElement;  // in the page already: its computed style says how large the type is
  view.observers.forEach((o) => o.disconnect());  // the boxes of the last draw are gone
  view.observers = [];
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
    const index = drawn.findIndex((d) => d.id === view.focus.panel);
    const grid = index >= 0 && drawn[index].grid;
    if (grid && view.focus.r < grid.rows && view.focus.c < grid.cols) {
      grid.moveTo(Number(view.focus.r), Number(view.focus.c), true);
    }
  }
  const { onLink, observers } = view;  // this draw's own, whenever Streamlit calls the clean-up
  return () => {
    window.removeEventListener(LINK_EVENT, onLink);
    observers.forEach((o) => o.disconnect());
  };
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- a panel: chart, grid over it, table ---------------------------------------------------------------

function drawPanel(panel, view, setTriggerValue) {
  const box = el("div", "alv-panel" + (panel.below ? " alv-below" : ""));
  box.dataset.panel = panel.id;
  const parts = { grid: null, cells: new Map(), detail: null };
  const choose = (r, c) => {
    if (panel.choose) setTriggerValue("chosen", { panel: panel.id, row: r, col: c });
  };
  if (panel.figure) box.appendChild(drawFigure(panel, view, parts, choose));
  if (panel.table !== false && panel.rows) box.appendChild(drawTable(panel, view, parts, choose));
  return { box, id: panel.id, grid: parts.grid, light: (detail) => light(panel, parts, detail) };
}

// The grid over a chart is an ARIA grid with one rendered cell, the active one (aria-rowindex and
// aria-colindex say where it is): the pointer is mapped to a cell by its position, and the keyboard moves
// the cell. A 64 × 64 heatmap is then one element, not 4,096 laid out and painted on every rerun.
function drawFigure(panel, view, parts, chooseCell) {
  const fig = panel.figure;
  const box = el("div", "alv-figure st-key-fig-" + panel.id);
  const img = document.createElement("img");
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(fig.svg);  // an image runs no script
  img.alt = fig.alt || "";
  img.width = fig.width;
  img.style.setProperty("--alv-w", fig.width + "px");  // its own size (view.css); presenter mode enlarges it
  box.appendChild(img);
  if (!fig.grid) return box;
  const g = fig.grid;
  // A one-row matrix drawn folded (viz/figures.py: rows of g.fold cells): drawn cell (r, c) is its column
  // r·fold + c. The grid moves over the drawn cells; the tooltip, the labels and a choice speak of the data's.
  const data = (r, c) => (g.fold ? [0, r * g.fold + c] : [r, c]);
  const drawn = (r, c) => (g.fold ? [Math.floor(c / g.fold), c % g.fold] : [r, c]);
  const choose = (r, c) => chooseCell(...data(r, c));
  const grid = el("div", "alv-grid");
  grid.setAttribute("role", "grid");
  grid.setAttribute("aria-label", (fig.title || panel.id) + (panel.choose ? ". Enter chooses." : ""));
  grid.setAttribute("aria-rowcount", g.rows);
  grid.setAttribute("aria-colcount", g.cols);
  grid.dataset.cells = JSON.stringify({ ...g, width: fig.width, height: fig.height });  // for the tests' pointer
  const place = (node, r, c, rows = 1, cols = 1) => {  // over cells r … r + rows − 1, c … c + cols − 1
    node.style.left = (100 * (g.x + c * g.px) / fig.width) + "%";
    node.style.top = (100 * (g.y + r * g.py) / fig.height) + "%";
    node.style.width = (100 * ((cols - 1) * g.px + g.w) / fig.width) + "%";
    node.style.height = (100 * ((rows - 1) * g.py + g.h) / fig.height) + "%";
  };
  const row = el("div");
  row.setAttribute("role", "row");
  grid.appendChild(row);
  const bands = el("div");  // what another panel lights up here (a row, a column, a cell)
  bands.setAttribute("aria-hidden", "true");
  grid.appendChild(bands);
  let cell = null;
  const moveTo = (r, c, focus) => {  // a new element each move, so that a screen reader reads it
    const next = el("div", "alv-cell" + (panel.choose ? " alv-choose" : ""));
    next.setAttribute("role", "gridcell");
    next.setAttribute("aria-colindex", c + 1);
    next.setAttribute("aria-label", cellLabel(panel, ...data(r, c)));
    next.dataset.r = r;
    next.dataset.c = c;
    next.tabIndex = 0;
    place(next, r, c);
    row.setAttribute("aria-rowindex", r + 1);
    const old = cell;
    const hadFocus = old && document.activeElement === old;
    row.appendChild(next);
    cell = next;
    if (focus || hadFocus) next.focus({ preventScroll: true });
    if (old) old.remove();
    return next;
  };
  moveTo(0, 0, false);
  const at = (e) => {  // the cell under the pointer, or null (outside the cells, or in a gap between two)
    const rect = grid.getBoundingClientRect();
    const x = (e.clientX - rect.left) * fig.width / rect.width - g.x;
    const y = (e.clientY - rect.top) * fig.height / rect.height - g.y;
    const r = Math.floor(y / g.py), c = Math.floor(x / g.px);
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols || x - c * g.px > g.w || y - r * g.py > g.h) return null;
    return [r, c];
  };
  const same = (p, r, c) => p && p[0] === r && p[1] === c;
  let hovered = null;
  grid.addEventListener("pointermove", (e) => {
    if (e.pointerType === "touch") return;
    const p = at(e);
    if (!p) { if (hovered) { hovered = null; hide(view, panel); } return; }
    if (same(hovered, ...p)) return;
    hovered = p;
    show(panel, view, parts, same([Number(cell.dataset.r), Number(cell.dataset.c)], ...p) ? cell : moveTo(...p, false),
      ...data(...p));
  });
  grid.addEventListener("pointerleave", (e) => {  // a finger lifted leaves too: its tooltip stays until focus moves
    if (e.pointerType !== "touch") { hovered = null; hide(view, panel); }
  });
  grid.addEventListener("focusin", (e) => {
    if (!e.target.classList.contains("alv-cell")) return;
    view.focus = { panel: panel.id, r: e.target.dataset.r, c: e.target.dataset.c };
    show(panel, view, parts, e.target, ...data(Number(e.target.dataset.r), Number(e.target.dataset.c)));
  });
  grid.addEventListener("focusout", (e) => {
    if (!grid.contains(e.relatedTarget)) { hide(view, panel); view.focus = null; }
  });
  let tapped = null;  // a touch: the first tap shows the tooltip, a second tap on the same cell chooses
  grid.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    const p = at(e);
    if (!p) return;
    e.preventDefault();
    if (same(tapped, ...p)) { choose(...p); tapped = null; return; }
    tapped = p;
    moveTo(...p, true);
  });
  grid.addEventListener("click", (e) => {
    const p = at(e);
    if (p && e.pointerType !== "touch") choose(...p);
  });
  grid.addEventListener("keydown", (e) => {
    if (!e.target.classList.contains("alv-cell")) return;
    let r = Number(e.target.dataset.r), c = Number(e.target.dataset.c);
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
    moveTo(r, c, true);
  });
  box.appendChild(grid);
  parts.grid = { moveTo, bands, rows: g.rows, cols: g.cols, fold: g.fold, placeDrawn: place,
                 place: (node, r, c, rows = 1, cols = 1) => place(node, ...drawn(r, c), rows, cols) };
  return box;
}

const ROW_MARGIN = 12;  // a long table draws the rows in its box and this many above and below
// A table wider than the page is drawn as blocks of columns, one under another, each with the rows' labels:
// a real model's [4 × 64] Q ran past the page at column 18, and the cache lesson's table of seven columns
// of text past a 1024 px screen's (issue 34). A block holds at most BLOCK_COLUMNS columns and about
// BLOCK_WIDTH pixels (the page beside the sidebar at 1024 px is 564), judged from the texts' lengths.
export const BLOCK_COLUMNS = 8;
const BLOCK_WIDTH = 550;
const CHAR_PX = 7.5;  // a character of the table's 14 px type, about its average (digits are 7.8, most letters less)
const CELL_PADDING_PX = 17;

// A cell's text as the table writes it
function cellText(panel, r, c) {
  const v = panel.values[r][c];
  return v === null ? (panel.masked || "—") : formatNumber(v, decimalsAt(panel, r, c));
}

// ``scale``: the table's type against its usual 14 px (presenter mode's is larger: ui/presenter.py sets
// --alv-table-scale)
function columnBlocks(panel, scale) {
  const text = (r, c) => cellText(panel, r, c);
  const width = (texts) => (Math.max(0, ...texts.map((t) => String(t).length)) * CHAR_PX + CELL_PADDING_PX) * scale;
  const labels = panel.rowHeaders !== false ? width([panel.corner || "", ...panel.rows]) : 0;
  const blocks = [];
  let block = [], used = labels;
  panel.cols.forEach((name, c) => {
    const w = width([name, ...panel.rows.map((_, r) => text(r, c))]);
    if (block.length && (block.length >= BLOCK_COLUMNS || used + w > BLOCK_WIDTH)) {
      blocks.push(block);
      block = [];
      used = labels;
    }
    block.push(c);
    used += w;
  });
  blocks.push(block);
  return blocks;
}

// A table of up to 400 cells is drawn whole. A longer one scrolls in a box of its own and draws only the
// rows in view (spacer rows stand for the others), as Streamlit's own grid did: a 64-token α has 4,096
// cells, and laying every one out cost a rerun ~0.4 s in Chromium.
function drawTable(panel, view, parts, choose) {
  const box = el("div", "alv-table st-key-table-" + panel.id + (panel.scroll ? " alv-scroll" : ""));
  const n = panel.rows.length;
  // a few long rows (a cached step's x, 576 numbers; a real model's Q of 7 tokens, [7 × 64]) stand in their
  // scrolling box, a row of the table a column of the box: it scrolls down, never sideways
  const standing = panel.scroll && n <= BLOCK_COLUMNS && panel.cols.length > n;
  const all = panel.cols.map((_, c) => c);
  // the columns of each block: all of them in a scrolling box, else as many as fit the page (columnBlocks)
  const scale = parseFloat(getComputedStyle(view.parent || document.body).getPropertyValue("--alv-table-scale")) || 1;
  const blocks = panel.scroll ? [all] : columnBlocks(panel, scale);
  const drawRow = (r, columns) => {
    const tr = el("tr");
    if (panel.rowHeaders !== false) {
      const th = el("th", panel.choose ? "alv-choose" : null, panel.rows[r]);
      th.scope = "row";
      if (panel.choose) th.addEventListener("click", () => choose(r, null));
      tr.appendChild(th);
    }
    columns.forEach((c) => {
      const value = panel.values[r][c];
      const numeric = typeof value === "number" || value === null || /^[−-]?[0-9]/.test(value);
      const td = el("td", numeric ? "alv-num" : null, cellText(panel, r, c));
      td.dataset.r = r;
      td.dataset.c = c;
      tr.appendChild(td);
      parts.cells.set(r + "," + c, td);
    });
    return tr;
  };
  const bodies = blocks.map((columns, k) => {
    const table = el("table");
    if (panel.caption && k === 0) table.appendChild(el("caption", null, panel.caption));
    const head = el("thead");
    const hr = el("tr");
    if (standing) {
      hr.appendChild(el("th", null, panel.colName || ""));
      panel.rows.forEach((name) => { const th = el("th", null, name); th.scope = "col"; hr.appendChild(th); });
    } else {
      if (panel.rowHeaders !== false) hr.appendChild(el("th", null, panel.corner || ""));
      columns.forEach((c) => { const th = el("th", null, panel.cols[c]); th.scope = "col"; hr.appendChild(th); });
    }
    head.appendChild(hr);
    table.appendChild(head);
    const body = el("tbody");
    table.appendChild(body);
    box.appendChild(table);
    body.addEventListener("pointerover", (e) => {
      const td = e.target.closest("td");
      if (td && td.dataset.r !== undefined) show(panel, view, parts, td, Number(td.dataset.r), Number(td.dataset.c));
    });
    body.addEventListener("pointerleave", () => hide(view, panel));
    return body;
  });
  if (!panel.scroll) {
    blocks.forEach((columns, k) => { for (let r = 0; r < n; r++) bodies[k].appendChild(drawRow(r, columns)); });
  } else {
    const body = bodies[0];
    const count = standing ? panel.cols.length : n;  // the rows drawn: the table's, or the one row's columns
    const drawLine = standing ? (c) => {
      const tr = el("tr");
      const th = el("th", null, panel.cols[c]);
      th.scope = "row";
      tr.appendChild(th);
      panel.rows.forEach((_, r) => {
        const td = el("td", "alv-num", cellText(panel, r, c));
        td.dataset.r = r;
        td.dataset.c = c;
        tr.appendChild(td);
        parts.cells.set(r + "," + c, td);
      });
      return tr;
    } : (r) => drawRow(r, all);
    const spacer = () => {
      const tr = el("tr", "alv-spacer");
      const td = el("td");
      td.colSpan = standing ? n + 1 : panel.cols.length + (panel.rowHeaders !== false ? 1 : 0);
      tr.appendChild(td);
      return tr;
    };
    const above = spacer(), below = spacer();
    let rowHeight = 29, shown = null;
    const update = () => {
      const first = Math.max(0, Math.floor(box.scrollTop / rowHeight) - ROW_MARGIN);
      const last = Math.min(count, first + Math.ceil((box.clientHeight || 420) / rowHeight) + 2 * ROW_MARGIN);
      if (shown && shown[0] === first && shown[1] === last) return;
      shown = [first, last];
      parts.cells.clear();
      const rows = [];
      for (let r = first; r < last; r++) rows.push(drawLine(r));
      body.replaceChildren(above, ...rows, below);
      above.firstChild.style.height = first * rowHeight + "px";
      below.firstChild.style.height = (count - last) * rowHeight + "px";
      above.hidden = first === 0;
      below.hidden = last === count;
      if (parts.detail) light(panel, parts, parts.detail);
    };
    let pending = false;
    box.addEventListener("scroll", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; update(); });
    }, { passive: true });
    update();
    // Once laid out, and whenever the box changes size (the stylesheet that caps its height can arrive
    // after the first draw on a busy machine): the rows' true height and the rows in view.
    const relayout = () => {
      const drawn = body.querySelector("tr:not(.alv-spacer)");
      if (drawn && drawn.offsetHeight && drawn.offsetHeight !== rowHeight) {
        rowHeight = drawn.offsetHeight;
        shown = null;
      }
      update();
    };
    requestAnimationFrame(relayout);
    const observer = new ResizeObserver(() => requestAnimationFrame(relayout));
    observer.observe(box);
    view.observers.push(observer);
  }
  return box;
}

function cellLabel(panel, r, c) {
  const v = panel.values && panel.values[r] ? panel.values[r][c] : undefined;
  const value = v === null ? (panel.masked === "−∞" ? "masked, minus infinity" : "masked") :
    formatNumber(v, decimalsAt(panel, r, c));
  return `${panel.rowName || "row"} ${r + 1} “${panel.rows[r]}”, ${panel.colName || "column"} ${c + 1} ` +
    `“${panel.cols[c]}”: ${value}`;
}

// ---- tooltip and lighting ---------------------------------------------------------------------------

function show(panel, view, parts, anchor, r, c) {
  const tip = view.tip;
  // a panel it links to that is not on the page (one step at a time, or a head's X that its page does not
  // draw): its numbers in the tooltip instead
  const away = (panel.links || []).some((l) => l.panel !== panel.id && !document.querySelector(
    `[data-panel="${CSS.escape(l.panel)}"]`));
  tip.replaceChildren(...drawLines([...explain(panel, r, c), ...(away ? sources(panel, r, c) : [])]));
  tip.hidden = false;
  const box = anchor.getBoundingClientRect();
  // inside the main area, never under the sidebar (which is drawn above the page): from its left edge
  // to the window's right (a phone's open sidebar covers the whole page, and then the window is the bound)
  const main = document.querySelector("[data-testid=stMain]");
  const edge = main ? Math.max(0, main.getBoundingClientRect().left) : 0;
  const room = window.innerWidth - edge > 200 ? edge : 0;
  const width = Math.min(tip.offsetWidth || 320, window.innerWidth - room - 16);
  let left = box.left + box.width / 2 - width / 2;
  left = Math.max(room + 8, Math.min(left, window.innerWidth - width - 8));
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
  parts.detail = detail;  // a long table lights the rows it draws later, as it scrolls
  parts.cells.forEach((td) => td.classList.remove("alv-lit", "alv-here"));
  if (parts.grid) parts.grid.bands.replaceChildren();
  for (const l of detail.links || []) {
    if (l.panel !== panel.id) continue;
    const band = () => {
      const b = el("div", "alv-band");
      parts.grid.bands.appendChild(b);
      return b;
    };
    if (l.axis === "cell") {
      const td = parts.cells.get(l.r + "," + l.c);
      if (td) td.classList.add("alv-here");
      if (parts.grid && l.source !== panel.id) {
        const b = band();
        b.dataset.r = l.r;
        b.dataset.c = l.c;
        parts.grid.place(b, l.r, l.c);
      }
      continue;
    }
    const key = l.axis === "row" ? "r" : "c";
    parts.cells.forEach((td) => { if (Number(td.dataset[key]) === l.index) td.classList.add("alv-lit"); });
    if (parts.grid) {
      const b = band();
      b.dataset[key] = l.index;
      if (parts.grid.fold) {  // one data row drawn folded: the row is the whole picture, a column one cell
        if (l.axis === "row") parts.grid.placeDrawn(b, 0, 0, parts.grid.rows, parts.grid.cols);
        else parts.grid.place(b, 0, l.index);
      } else if (l.axis === "row") parts.grid.place(b, l.index, 0, 1, parts.grid.cols);
      else parts.grid.place(b, 0, l.index, parts.grid.rows, 1);
    }
  }
}

// A tooltip's lines (static/tooltip.js) as elements: text, subscripts and superscripts, never HTML
function drawLines(lines) {
  return lines.map(({ cls, pieces }) => {
    const p = el("div", cls);
    for (const piece of pieces) {
      if (typeof piece === "string") p.appendChild(document.createTextNode(piece));
      else p.appendChild(el(piece.sub !== undefined ? "sub" : "sup", null, piece.sub ?? piece.sup));
    }
    return p;
  });
}
