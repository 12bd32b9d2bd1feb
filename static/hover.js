// The view's tooltip and lighting (static/view.js): where the tooltip stands (inside the main area, never under
// the sidebar), what it says (static/tooltip.js's lines, drawn as elements), and the panels a cell depends on lit up,
// in this view and in the page's others, through one window event.
// Every module of the view is imported with this file's own version (the ?v= of its URL), so that a browser never
// pairs one file of a release with another's.

const { explain, sources } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);

export const LINK_EVENT = "attention-lab:link";

export function show(panel, view, parts, anchor, r, c) {
  const tip = view.tip;
  // a panel it links to that is not on the page (one step at a time, or a head's X that its page does not
  // draw): its numbers in the tooltip instead
  const away = (panel.links || []).some((l) => l.panel !== panel.id && !document.querySelector(
    `[data-panel="${CSS.escape(l.panel)}"]`));
  tip.replaceChildren(...drawLines([...explain(panel, r, c), ...(away ? sources(panel, r, c) : [])]));
  tip.hidden = false;
  view.shown = panel;  // the panel whose tooltip this is (static/view.js: Escape hides it)
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

export function hide(view, panel) {
  if (view.tip) view.tip.hidden = true;
  window.dispatchEvent(new CustomEvent(LINK_EVENT, { detail: { source: panel.id, links: [] } }));
}

export function light(panel, parts, detail) {
  // A pointer leaving one panel puts out its own lights, not another source's: the page scrolling under a resting
  // pointer (a keyboard moving in another chart) made the old chart's "leave" clear the keyboard's lit cell.
  if (!(detail.links || []).length && parts.detail && parts.detail.source !== detail.source) return;
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
