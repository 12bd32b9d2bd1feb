// The model map (ui/model_map.py): where the open step sits in a whole model, "you are here" marked. Parts with a
// step are buttons (a click, or Enter, opens that step: the trigger value "chosen"); the others say what the rest of
// the model does; the arrow keys move between the parts (one Tab stop). Every text is inserted as text. The same data give the map's text alternative (mapText).

const { el } = await import(new URL("dom.js" + new URL(import.meta.url).search, import.meta.url).href);

// The map in words: its title, each group's parts in order with their shapes, the open step marked.
export function mapText(data) {
  const groups = (data.groups || []).map(
    (group) => `${group.name}: ${group.parts.map((part) => partText(part, data.current)).join(" → ")}.`);
  return [`${data.title}.`, ...groups].join(" ");
}

export function partText(part, current) {
  const shape = part.shape ? ` ${part.shape}` : "";
  const note = part.note ? ` (${part.note})` : "";
  return `${part.label}${shape}${note}${isHere(part, current) ? " (you are here)" : ""}`;
}

export function isHere(part, current) {
  return part.step !== null && part.step !== undefined && part.step === current;
}


function drawPart(part, data, choose) {
  const clickable = part.step !== null && part.step !== undefined;
  const node = el(clickable ? "button" : "span", "alm-part");
  if (clickable) {
    node.type = "button";
    node.dataset.step = String(part.step);
    node.title = `Open step ${part.step}`;
    node.addEventListener("click", () => choose(part.step));
  } else if (part.note) {
    node.title = part.note;
  }
  if (isHere(part, data.current)) {
    node.classList.add("alm-here");
    node.setAttribute("aria-current", "step");
  }
  node.append(el("span", "alm-label", part.label));
  if (part.shape) node.append(el("span", "alm-shape", part.shape));
  return node;
}

// One Tab stop for the whole map (the open step's part, or the first), the arrow keys, Home and End move between
// its parts: eight stops on every step put the step's own grid eight Tabs further from its heading.
function rove(root) {
  const parts = [...root.querySelectorAll("button.alm-part")];
  if (!parts.length) return;
  const start = parts.find((b) => b.getAttribute("aria-current") === "step") || parts[0];
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

export default function modelMap(component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = el("nav", "alm");
  root.setAttribute("aria-label", data.title);
  root.append(el("p", "alm-title", data.title));
  root.append(el("p", "alm-alt", mapText(data)));  // the whole flow in one sentence, for a screen reader
  const buttons = el("div", "alm-groups");
  for (const group of data.groups || []) {
    const box = el("div", `alm-group${group.faded ? " alm-faded" : ""}`);
    box.append(el("p", "alm-name", group.name));
    const list = el("ol", "alm-parts");
    for (const part of group.parts) {
      const item = el("li");
      item.append(drawPart(part, data, (step) => setTriggerValue("chosen", step)));
      list.append(item);
    }
    box.append(list);
    buttons.append(box);
  }
  root.append(buttons);
  rove(root);
  parentElement.replaceChildren(root);
  return () => parentElement.replaceChildren();
}
