// The model map (ui/model_map.py): where the open step sits in a whole model, "you are here" marked. Parts with a
// step are buttons (a click, or Enter, opens that step: the trigger value "chosen"); the others say what the rest of
// the model does; the arrow keys move between the parts (one Tab stop). Every text is inserted as text. The same data give the map's text alternative (mapText).
//
// Folded by default (issue 47): one line, the head's steps by name with the open step's shape, so that the step's
// chart stays in view under its heading; the title is a button that unfolds the whole map (every group, shapes,
// thumbnails, the faded rest of a full model) and folds it again. The choice is kept for the browser tab
// (sessionStorage): every map of every page, after every step and a reload, until the tab is closed.

const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);

// The map in words: its title, each group's parts in order with their shapes, the open step marked.
export function mapText(data) {
  const groups = (data.groups || []).map(
    (group) => `${group.name}: ${group.parts.map((part) => partText(part, data.current, data.texts)).join(" → ")}.`);
  return [`${data.title}.`, ...groups].join(" ");
}

// The words around the data's own come from the server, in the reader's language (viz/model_map.py's TEXTS)
const say = (texts, name, fields = {}) => (texts?.[name] ?? `[${name}]`)
  .replace(/\{(\w+)\}/g, (whole, field) => (field in fields ? String(fields[field]) : whole));

export function partText(part, current, texts) {
  const shape = part.shape ? ` ${part.shape}` : "";
  const note = part.note ? ` (${part.note})` : "";
  const here = !isHere(part, current) ? "" : " " + say(texts, part.step === current ? "youAreHere" : "thisLesson");
  return `${part.label}${shape}${note}${here}`;
}

// The open step (``current``), or a part the page is about (``here``: another lesson's topic in a head).
export function isHere(part, current) {
  return part.here === true || (part.step !== null && part.step !== undefined && part.step === current);
}


// A part's own numbers as a small picture (colours from viz/model_map.py's thumbnail, the heatmaps' scales);
// decoration beside its label and shape: hidden from a screen reader, which has the step's table.
export function thumbCell(thumb) {
  return Math.max(2, Math.min(6, Math.floor(36 / Math.max(thumb.rows, thumb.cols))));
}

function thumbnail(thumb) {
  const box = el("span", "alm-thumb");
  box.setAttribute("aria-hidden", "true");
  const cell = thumbCell(thumb);
  box.style.gridTemplateColumns = `repeat(${thumb.cols}, ${cell}px)`;
  box.style.gridAutoRows = `${cell}px`;
  for (const colour of thumb.colours) {
    const dot = el("span");
    dot.style.background = colour;
    box.append(dot);
  }
  return box;
}

// Whether the maps are unfolded in this tab (a stored "1"); storage refused (a private window) keeps the default.
const UNFOLDED = "attentionLab.mapUnfolded";
export function unfolded(storage) {
  try { return storage?.getItem(UNFOLDED) === "1"; } catch { return false; }
}
function keep(storage, open) {
  try { storage?.setItem(UNFOLDED, open ? "1" : "0"); } catch { /* not kept: the map still unfolds */ }
}

// The group a folded map shows: the one holding the open step (or the page's topic), else the first with steps.
export function mainGroup(data) {
  const groups = data.groups || [];
  return groups.find((g) => g.parts.some((part) => isHere(part, data.current)))
    || groups.find((g) => !g.faded && g.parts.some((part) => part.step !== null && part.step !== undefined))
    || groups[0];
}

function drawPart(part, data, choose, folded = false) {
  const clickable = part.step !== null && part.step !== undefined;
  const node = el(clickable ? "button" : "span", "alm-part");
  if (clickable) {
    node.type = "button";
    node.dataset.step = String(part.step);
    node.title = data.where ? say(data.texts, "openStepIn", { step: part.step, where: data.where })
      : say(data.texts, "openStep", { step: part.step });
    node.addEventListener("click", () => choose(part.step));
  } else if (part.note) {
    node.title = part.note;
  }
  if (isHere(part, data.current)) {
    node.classList.add("alm-here");
    node.setAttribute("aria-current", part.step === data.current ? "step" : "location");
  }
  const words = el("span", "alm-words");
  words.append(el("span", "alm-label", part.label));
  if (part.shape && (!folded || isHere(part, data.current))) words.append(el("span", "alm-shape", part.shape));
  else if (part.shape) node.title = `${node.title ? node.title + ": " : ""}${part.shape}`;
  node.append(words);
  if (part.thumb && !folded) node.append(thumbnail(part.thumb));
  return node;
}

// One Tab stop for the whole map (the open step's part, or the first), the arrow keys, Home and End move between
// its parts: eight stops on every step put the step's own grid eight Tabs further from its heading.
function rove(root) {
  const parts = [...root.querySelectorAll("button.alm-part")];
  if (!parts.length) return;
  const start = parts.find((b) => b.getAttribute("aria-current") === "step")
    || parts.find((b) => b.hasAttribute("aria-current")) || parts[0];
  parts.forEach((b) => { b.tabIndex = b === start ? 0 : -1; });
  root.addEventListener("keydown", (e) => {
    const at = parts.indexOf(document.activeElement);
    if (at < 0) return;
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0,
      End: parts.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = parts[Math.max(0, Math.min(parts.length - 1, to))];
    parts.forEach((b) => { b.tabIndex = b === next ? 0 : -1; });
    next.focus();
  });
}

function drawGroup(group, data, choose, folded) {
  const list = el("ol", "alm-parts");
  for (const part of group.parts) {
    const item = el("li");
    item.append(drawPart(part, data, choose, folded));
    list.append(item);
  }
  return list;
}

export default function modelMap(component) {
  const { data, parentElement, setTriggerValue } = component;
  const choose = (step) => setTriggerValue("chosen", step);
  const storage = (() => { try { return window.sessionStorage; } catch { return null; } })();
  const draw = (open) => {
    const root = el("nav", `alm${open ? "" : " alm-folded"}`);
    root.setAttribute("aria-label", data.title);
    // folded, the title names whose steps the line holds (issue 47's audit: "Where this is in a model" followed by a
    // head's eight steps read as a whole model): "One head of a model"; unfolded, the map shows every group by name
    const title = el("button", "alm-title", open ? data.title : data.folded || data.title);
    title.type = "button";
    title.setAttribute("aria-expanded", String(open));
    title.title = say(data.texts, open ? "fold" : "unfold");
    title.addEventListener("click", () => {
      keep(storage, !open);
      draw(!open);
      parentElement.querySelector("button.alm-title")?.focus();
    });
    root.append(el("p", "alm-alt", mapText(data)));  // the whole flow in one sentence, for a screen reader
    if (open) {
      root.append(title);
      const buttons = el("div", "alm-groups");
      for (const group of data.groups || []) {
        const box = el("div", `alm-group${group.faded ? " alm-faded" : ""}`);
        box.append(el("p", "alm-name", group.name));
        box.append(drawGroup(group, data, choose, false));
        buttons.append(box);
      }
      root.append(buttons);
    } else {
      const line = el("div", "alm-line");
      const main = mainGroup(data);
      line.append(title);
      if (main) {
        const list = drawGroup(main, data, choose, true);
        list.setAttribute("aria-label", main.name);
        line.append(list);
      }
      root.append(line);
    }
    rove(root);
    parentElement.replaceChildren(root);
  };
  draw(unfolded(storage));
  return () => parentElement.replaceChildren();
}
