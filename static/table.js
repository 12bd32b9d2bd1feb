// The view's number table (static/view.js): a panel's values as the server would write them, in one block or in
// blocks of columns that fit the room the view has, or, past 400 cells, in a box of its own that scrolls and draws
// only the rows in view.
// Every module of the view is imported with this file's own version (the ?v= of its URL), so that a browser never
// pairs one file of a release with another's.

const { decimalsAt, formatNumber, say } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);
const { hide, light, show } = await import(new URL("hover.js" + new URL(import.meta.url).search, import.meta.url).href);

const ROW_MARGIN = 4;  // a long table draws the rows in its box and this many above and below (a scroll redraws them
// each frame; 12 laid out 3 × 24 × 64 cells more on a real model's step 3, W_Q, W_K and W_V: issue 46's map click)
// A table wider than the room it has is drawn as blocks of columns, one under another, each with the rows'
// labels: a real model's [4 × 64] Q ran past the page at column 18, and the cache lesson's table of seven columns
// of text past a 1024 px screen's (issue 34). A table is one block whenever its estimated width fits the room (the
// width of the view's element, measured in the browser and followed as it changes); else each block holds as many
// columns as fit, in order, and only a column wider than the room alone stands in a block wider than it (issue 47:
// a fixed 550 px and at most 8 columns split a 12 × 12 α into 7 + 5 at 1280, with 820 px of room).
// BLOCK_COLUMNS is now only the most rows a scrolling table may have to stand a row to a column.
export const BLOCK_COLUMNS = 8;
export const FALLBACK_ROOM = 550;  // before the view is laid out (or while it is hidden): the page beside the sidebar at 1024 px is 564
const CHAR_PX = 7.5;  // a character of the table's 14 px type, about its average (digits are 7.8, most letters less)
const CELL_PADDING_PX = 17;

// A cell's text as the table writes it
export function cellText(panel, r, c) {
  const v = panel.values[r][c];
  return v === null ? (panel.masked || "—") : formatNumber(v, decimalsAt(panel, r, c));
}

// The estimated widths in pixels of the rows' labels (0 without them) and of each column, from the texts' lengths.
// ``scale``: the table's type against its usual 14 px (presenter mode's is larger: ui/presenter.py sets
// --alv-table-scale)
export function columnWidths(panel, scale) {
  const width = (texts) => (Math.max(0, ...texts.map((t) => String(t).length)) * CHAR_PX + CELL_PADDING_PX) * scale;
  return {
    labels: panel.rowHeaders !== false ? width([panel.corner || "", ...panel.rows]) : 0,
    columns: panel.cols.map((name, c) => width([name, ...panel.rows.map((_, r) => cellText(panel, r, c))])),
  };
}

// The columns of each block for a room of ``room`` pixels: a block takes columns in order while they fit
export function columnBlocks(panel, scale, room) {
  const { labels, columns } = columnWidths(panel, scale);
  const blocks = [];
  let block = [], used = labels;
  columns.forEach((w, c) => {
    if (block.length && used + w > room) {
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
export function drawTable(panel, view, parts, choose) {
  const box = el("div", "alv-table st-key-table-" + panel.id + (panel.scroll ? " alv-scroll" : ""));
  if (panel.scroll) {  // a box that scrolls is reached and scrolled with the keyboard too (WCAG 2.1.1; issue 44)
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", say("tableScrolls"));
  }
  const n = panel.rows.length;
  // a few long rows (a cached step's x, 576 numbers; a real model's Q of 7 tokens, [7 × 64]) stand in their
  // scrolling box, a row of the table a column of the box: it scrolls down, never sideways
  const standing = panel.scroll && n <= BLOCK_COLUMNS && panel.cols.length > n;
  const all = panel.cols.map((_, c) => c);
  // the columns of each block: all of them in a scrolling box, else as many as fit the room (columnBlocks)
  const scale = parseFloat(getComputedStyle(view.parent || document.body).getPropertyValue("--alv-table-scale")) || 1;
  // The room: the view's element, or, inside columns, the outermost row of columns: a column that holds a table
  // is as wide as its content (ui/components.py's TABLE_CSS) and wraps under its neighbour when it does not fit
  // beside it, so its own width follows the table and would feed the blocks back into the next measure
  const roomBox = () => {
    let box = view.parent;
    for (let e = view.parent; e; e = e.parentElement) if (e.dataset && e.dataset.testid === "stHorizontalBlock") box = e;
    return box;
  };
  const roomNow = () => (view.parent && roomBox().clientWidth) || FALLBACK_ROOM;
  let blocks = panel.scroll ? [all] : columnBlocks(panel, scale, roomNow());
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
  const drawBlocks = () => blocks.map((columns, k) => {
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
  const bodies = drawBlocks();
  if (!panel.scroll) {
    const fill = (into) => blocks.forEach((columns, k) => { for (let r = 0; r < n; r++) into[k].appendChild(drawRow(r, columns)); });
    fill(bodies);
    // The room (roomBox) is known once the view is laid out and followed as it changes (a window resized, the
    // sidebar opened, presenter mode). The blocks depend on that width alone, never on what they draw, so a
    // redraw cannot feed back into the next measure. The first measure also corrects the estimate by the real
    // width of the drawn first block (a token of wide letters), once, clamped.
    if (view.parent && typeof ResizeObserver !== "undefined") {
      const { labels, columns } = columnWidths(panel, scale);
      const estimate = (cols) => labels + cols.reduce((sum, c) => sum + columns[c], 0);
      let factor = null;
      const relayout = () => {
        const room = roomBox().clientWidth;
        if (!room || !box.isConnected) return;
        if (factor === null) {
          const first = box.querySelector("table");
          if (!first || !first.offsetWidth) return;
          factor = Math.min(1.5, Math.max(0.75, first.offsetWidth / estimate(blocks[0])));
        }
        const next = columnBlocks(panel, scale * factor, room);
        if (JSON.stringify(next) === JSON.stringify(blocks)) return;
        blocks = next;
        parts.cells.clear();
        box.replaceChildren();
        fill(drawBlocks());
        if (parts.detail) light(panel, parts, parts.detail);
      };
      let width = null;
      const observed = roomBox();
      const observer = new ResizeObserver(() => {
        const now = observed.clientWidth;
        if (now === width) return;
        width = now;
        requestAnimationFrame(relayout);
      });
      observer.observe(observed);
      view.observers.push(observer);
    }
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
