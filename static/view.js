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
// learner's sentence reaches this code only as data. The work is split by what it draws, each module imported with
// this file's own version (the ?v= of its URL), so that a browser never pairs files of two releases:
//   grid.js     the chart as an image and the ARIA grid over its cells (pointer, touch, keyboard)
//   table.js    the number table, in blocks of columns or scrolling
//   hover.js    the tooltip's placement and the lighting of linked panels
//   tooltip.js  what a tooltip says and how numbers are written (pure)
//   dom.js      the one DOM helper
// The pure parts are unit-tested in Node (tests/js/), the rest in Chromium (tests/browser/).

const { drawFigure } = await import(new URL("grid.js" + new URL(import.meta.url).search, import.meta.url).href);
const { drawTable } = await import(new URL("table.js" + new URL(import.meta.url).search, import.meta.url).href);
const { LINK_EVENT, hide, light } = await import(new URL("hover.js" + new URL(import.meta.url).search, import.meta.url).href);
const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);
const { useTexts } = await import(new URL("tooltip.js" + new URL(import.meta.url).search, import.meta.url).href);
const views = new WeakMap();  // parentElement -> {tip, focus}

export default function render(component) {
  const { data, parentElement, setTriggerValue } = component;
  useTexts(data.texts);  // the words of this page's views, in its language
  let view = views.get(parentElement);
  if (!view) {
    view = { host: null, tip: null, focus: null, onLink: null, onKey: null, observers: [] };
    views.set(parentElement, view);
  }
  view.parent = parentElement;  // in the page already: its computed style says how large the type is
  view.observers.forEach((o) => o.disconnect());  // the boxes of the last draw are gone
  view.observers = [];
  const root = document.createElement("div");
  root.className = "alv";
  const panels = el("div", "alv-panels");
  root.appendChild(panels);
  const drawn = (data.panels || []).map((panel) => drawPanel(unpacked(panel), view, setTriggerValue));
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
  // Escape hides the tooltip wherever the focus is (WCAG 1.4.13, dismissible): one shown by the mouse alone,
  // with the focus elsewhere, was not hidden by it, the key reaching the grid only when it had the focus
  if (view.onKey) document.removeEventListener("keydown", view.onKey);
  view.onKey = (event) => {
    if (event.key === "Escape" && view.tip && !view.tip.hidden && view.shown) hide(view, view.shown);
  };
  document.addEventListener("keydown", view.onKey);
  if (view.focus) {  // after a rerun, the keyboard stays where it was
    const index = drawn.findIndex((d) => d.id === view.focus.panel);
    const grid = index >= 0 && drawn[index].grid;
    if (grid && view.focus.r < grid.rows && view.focus.c < grid.cols) {
      grid.moveTo(Number(view.focus.r), Number(view.focus.c), true);
    }
  }
  const { onLink, onKey, observers } = view;  // this draw's own, whenever Streamlit calls the clean-up
  return () => {
    window.removeEventListener(LINK_EVENT, onLink);
    document.removeEventListener("keydown", onKey);
    observers.forEach((o) => o.disconnect());
  };
}

// ---- a panel: chart, grid over it, table ---------------------------------------------------------------

// A long table's cells come as their shown digits, integer counts of 10^−scale (ui/view.py): numbers again here,
// once, so that every reader of a panel (its table, tooltip and grid) sees the same numbers as from any panel.
function unpacked(panel) {
  if (panel.scale === undefined) return panel;
  const unit = 10 ** panel.scale;
  return { ...panel, values: panel.values.map((row) => row.map((k) => (k === null ? null : k / unit))) };
}

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
