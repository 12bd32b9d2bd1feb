// The view's grid over a chart (static/view.js): the server's SVG as an image, and over it an ARIA grid whose one
// active cell the pointer, a finger and the keyboard move; hover and focus show the tooltip, a click or Enter chooses.
// Every module of the view is imported with this file's own version (the ?v= of its URL), so that a browser never
// pairs one file of a release with another's.

const { decimalsAt, formatNumber, say } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);
const { hide, show } = await import(new URL("hover.js" + new URL(import.meta.url).search, import.meta.url).href);

// The grid over a chart is an ARIA grid with one rendered cell, the active one (aria-rowindex and
// aria-colindex say where it is): the pointer is mapped to a cell by its position, and the keyboard moves
// the cell. A 64 × 64 heatmap is then one element, not 4,096 laid out and painted on every rerun.
export function drawFigure(panel, view, parts, chooseCell) {
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
  grid.setAttribute("aria-label", (fig.title || panel.id) + (panel.choose ? ". " + say("enterChooses") : ""));
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
  // A touch: the first tap shows the tooltip, a second tap on the same cell chooses when the finger is lifted there,
  // so that a finger put down by mistake can slide off and choose nothing (WCAG 2.5.2, pointer cancellation).
  let tapped = null, pressed = null;  // the cell whose tooltip a tap showed; the cell a second tap is down on
  grid.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    const p = at(e);
    if (!p) return;
    e.preventDefault();
    if (same(tapped, ...p)) { pressed = p; return; }
    tapped = p;
    moveTo(...p, true);
  });
  grid.addEventListener("pointerup", (e) => {
    if (e.pointerType !== "touch" || !pressed) return;
    const p = at(e), down = pressed;
    pressed = null;
    if (p && same(down, ...p)) { tapped = null; choose(...p); }
  });
  grid.addEventListener("pointercancel", () => { pressed = null; });
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

// What a screen reader says of a cell: its row and column, by number and label, and its value as the table writes it
export function cellLabel(panel, r, c) {
  const v = panel.values && panel.values[r] ? panel.values[r][c] : undefined;
  const value = v === null ? say(panel.masked === "−∞" ? "maskedInfinity" : "masked") :
    formatNumber(v, decimalsAt(panel, r, c));
  const name = (kind, labels, k, numbered) => (numbered ? say("numbered", { kind, label: labels[k] }) :
    say("cellNamed", { kind, at: k + 1, label: labels[k] }));
  return `${name(panel.rowName || say("row"), panel.rows, r, panel.rowNumbered)}, ` +
    `${name(panel.colName || say("column"), panel.cols, c, panel.colNumbered)}: ${value}`;
}
