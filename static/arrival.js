// After a navigation (Next, Previous, the step menu, a chosen query or head), bring what it opened into
// view: its heading at the top of the page, below Streamlit's header, and the keyboard's focus on it, so
// that a screen reader reads where the learner now is (ui/arrival.py). A navigation is a new `nonce`;
// a rerun for anything else (a new sentence, a hovered cell) leaves the scroll and the focus alone.

const SEEN = "__attentionLabArrival";  // the last nonce this page acted on (one page, however many mounts)
// Two states the page's tests wait for (tests/browser/conftest.py's ARRIVED), since this script runs a moment after its
// element (a file it imports, ui/view.py's loader): a pass over the scrolling boxes waiting for its frame, and a
// navigation whose heading has not yet taken the focus (its nonce; null once it has, or the wait has stopped).
const CHECKING = "__attentionLabChecking";
const LANDING = "__attentionLabLanding";
// The heading is usually drawn before this element, but a busy browser may draw it much later (a class's new
// question: its heading came after 3 s under load, and a 3 s wait gave up, leaving the page scrolled down): the page
// waits for it until it comes, a newer navigation replaces it, or the learner moves (or, at the latest, a minute).
const GIVE_UP_MS = 60000;

// Until the learner moves (a wheel, a key, a touch, a click) or KEEP_MS have passed, the heading is put back at the
// top whenever the page's height changes: the charts under it load after the scroll, and a page still too short to
// scroll that far (a link's first load) left the heading, and the step's chart, lower down (issue 47).
const KEEP_MS = 4000;
const MOVES = ["wheel", "keydown", "touchstart", "pointerdown"];
let stopKeeping = null;

function keep(heading) {
  stopKeeping?.();
  const main = document.querySelector("[data-testid=stMain]") || document.body;
  const content = main.firstElementChild || main;
  const again = () => heading.isConnected && heading.scrollIntoView({ block: "start" });
  const watcher = new ResizeObserver(again);
  watcher.observe(content);
  const timer = setTimeout(() => stopKeeping?.(), KEEP_MS);
  stopKeeping = () => {
    watcher.disconnect();
    clearTimeout(timer);
    MOVES.forEach((name) => window.removeEventListener(name, stopKeeping, true));
    stopKeeping = null;
  };
  MOVES.forEach((name) => window.addEventListener(name, stopKeeping, { capture: true, passive: true }));
}

// A formula or a class question's row of numbers wider than its box scrolls sideways (the written-out sums, four
// products a line, on a phone; 64 keys' numbers): the box is made reachable and scrollable with the keyboard (WCAG
// 2.1.1; issue 44), as a table's scrolling box is (static/table.js). Watched once a page: they come with later runs.
const REACHABLE = "__attentionLabReachable";
const SCROLLERS = [
  [".katex-display", "Formula: it scrolls sideways (arrow keys)"],
  // a table keeps its role (a screen reader reads it as a table), named by its title
  [".st-key-cm-numbers table, .st-key-cm-desk-numbers table, .st-key-projector-numbers table", null],
];

function reachable() {
  for (const [selector, label] of SCROLLERS) {
    for (const box of document.querySelectorAll(selector)) {
      const scrolls = box.scrollWidth > box.clientWidth + 2;  // KaTeX's box is 2 px short of its content, always
      // a box its content overflows by those 2 px scrolls them and no more: Chrome makes such a box a Tab stop of
      // its own, with no name (found by walking every lesson with Tab), which tabindex −1 takes out of the order
      const state = scrolls ? "scrolls" : box.scrollWidth > box.clientWidth ? "still" : undefined;
      if (box.dataset.reachable === state) continue;
      if (scrolls) {
        box.dataset.reachable = state;
        box.tabIndex = 0;
        if (label) box.setAttribute("role", "region");
        // a table is named by the title drawn above it, "Row 2 of Z (the query “cat”)" (ui/classmode.py)
        const title = label ? null : box.closest("[class*='-numbers']")?.querySelector("strong")?.textContent;
        if (label || title) box.setAttribute("aria-label", label || title);
      } else {
        ["tabindex", "role", "aria-label"].forEach((name) => box.removeAttribute(name));
        if (state) {
          box.dataset.reachable = state;
          box.tabIndex = -1;
        } else delete box.dataset.reachable;
      }
    }
  }
}

// Streamlit sets the theme's colour scheme on the app, not on the document: a popover, drawn outside the app, took
// light-dark()'s light colour on a dark theme (ui/components.py's CSS). The document takes the app's scheme.
function sameScheme() {
  const app = document.querySelector("[data-testid=stApp]");
  const scheme = app && getComputedStyle(app).colorScheme;
  const root = document.documentElement.style;
  if (scheme && root.colorScheme !== scheme) root.colorScheme = scheme;
}

// Once a page: boxes are measured again after a run changes the page and after a resize; the scheme is copied again
// when the app's own class changes (a theme switch), not on every class change under it (a hovered cell's)
function watchScrollers() {
  if (window[REACHABLE]) return;
  window[REACHABLE] = true;
  const app = document.querySelector("[data-testid=stApp]") || document.body;
  let pending = 0;
  const soon = () => {
    cancelAnimationFrame(pending);
    window[CHECKING] = true;
    pending = requestAnimationFrame(() => { reachable(); window[CHECKING] = false; });
  };
  new MutationObserver(soon).observe(app, { childList: true, subtree: true });
  new MutationObserver(sameScheme).observe(app, { attributes: true, attributeFilter: ["class"] });
  window.addEventListener("resize", soon);
  soon();
  sameScheme();
}

// After an edit that changed the page's numbers (not a navigation: its heading takes the focus and is read), one
// polite sentence in a live region (ui/arrival.py's `announcement`), not the whole page (issue 44). The region is
// made once a page, empty, before anything is said in it (a region added with its text is not read by every
// screen reader); each announcement has its own token, so the same words after a second edit are said again.
const SAID = "__attentionLabSaid";
// Streamlit's front end reruns the page on the single key "R" wherever the focus is not in an input, a menu or
// editable text, and has no setting to turn that off: a character key shortcut a learner, or speech input, can set
// off by accident (WCAG 2.1.4). Its "C" (Clear caches) and "A" (the "source file changed" prompt) are already
// without effect under .streamlit/config.toml, and stopped too. Those keys, with no modifier, stop at the page's
// body, once a page: every control and chart under it (the data editor's cells, a heatmap's grid, the player) has
// had the key already, and Streamlit's own listener (on the document, bubbling) never sees it.
const CHARACTER_KEYS = "__attentionLabCharacterKeys";
const STREAMLITS_KEYS = ["r", "c", "a"];

function swallowCharacterKeys() {
  if (window[CHARACTER_KEYS]) return;
  window[CHARACTER_KEYS] = true;
  document.body.addEventListener("keydown", (e) => {
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey;
    if (plain && STREAMLITS_KEYS.includes(String(e.key).toLowerCase())) e.stopPropagation();
  });
}

export const REGION_ID = "attention-lab-announce";

export function announce(text, token) {
  let region = document.getElementById(REGION_ID);
  if (!region) {
    region = document.createElement("div");
    region.id = REGION_ID;
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    // seen by assistive technology only (the usual visually hidden box)
    Object.assign(region.style, { position: "absolute", width: "1px", height: "1px", margin: "-1px", padding: "0",
      overflow: "hidden", clip: "rect(0 0 0 0)", whiteSpace: "nowrap", border: "0" });
    document.body.appendChild(region);
  }
  if (!text || !token || window[SAID] === token) return;
  window[SAID] = token;
  region.textContent = "";
  requestAnimationFrame(() => { region.textContent = text; });  // as text: the sentence is the learner's
}

// Until ``go`` finds its heading (it returns true), tried again whenever the app's page changes; given up when a
// newer navigation has come (``nonce`` is no longer the last), the learner moves, or GIVE_UP_MS pass.
function awaitHeading(nonce, go) {
  const app = document.querySelector("[data-testid=stApp]") || document.body;
  const stop = () => {
    landed(nonce);
    watcher.disconnect();
    clearTimeout(timer);
    MOVES.forEach((name) => window.removeEventListener(name, stop, true));
  };
  const watcher = new MutationObserver(() => { if (window[SEEN] !== nonce || go()) stop(); });
  const timer = setTimeout(stop, GIVE_UP_MS);
  // a heading drawn inside a part still closed (an expander opening: its content is `inert` until it is open) is
  // ready when that part opens: an attribute's change, not a new element
  watcher.observe(app, { childList: true, subtree: true, attributes: true, attributeFilter: ["inert", "open"] });
  MOVES.forEach((name) => window.addEventListener(name, stop, { capture: true, passive: true }));
}

function landed(nonce) {
  if (window[LANDING] === nonce) window[LANDING] = null;
}

export default function arrival(component) {
  watchScrollers();
  swallowCharacterKeys();
  const data = component.data || {};
  if (data.lang && document.documentElement.lang !== data.lang) document.documentElement.lang = data.lang;  // WCAG 3.1.1
  announce(data.say, data.said);
  const nonce = data.nonce || "";
  if (!(SEEN in window)) {  // a page load: the browser opened it at its top, or at the link's #anchor,
    window[SEEN] = nonce;
    if (!data.load || !data.target || location.hash) return;  // unless the link named a step (data.load)
  } else {
    if (nonce === window[SEEN] || !data.target) return;
    window[SEEN] = nonce;
  }
  window[LANDING] = nonce;
  let scrolled = false;  // once a navigation: a heading that refuses the focus is not scrolled to again on each change
  const go = () => {
    const heading = document.getElementById(data.target);
    // not yet drawn, or drawn where it cannot take the focus: inside an expander the same run opens, whose content
    // stays `inert` until its frame opens it (focus() there does nothing: under load, a map's part opened the learn
    // page's panel, its step's heading came first, and the focus was lost; CI, 2026-12-04)
    if (!heading || heading.closest("[inert], details:not([open])")) return false;
    const header = document.querySelector("[data-testid=stHeader]");
    const top = (header ? header.getBoundingClientRect().height : 0);
    heading.style.scrollMarginTop = (top + 8) + "px";
    const box = heading.getBoundingClientRect();
    // gentle (a class's new question): a heading already in view stays where it is, and is not held there after
    const moved = !(data.gentle && box.top >= top && box.bottom <= window.innerHeight);
    if (moved && !scrolled) heading.scrollIntoView({ block: "start" });
    scrolled = true;
    if (!heading.hasAttribute("tabindex")) {
      heading.setAttribute("tabindex", "-1");  // focusable, not in the Tab order
      // no focus ring: a heading is not a control, and after the clicker's PageDown the browser drew a black box
      // around every step's heading on the projector; a screen reader still reads it, the next Tab starts there
      heading.style.outline = "none";
    }
    heading.focus({ preventScroll: true });
    if (document.activeElement !== heading) return false;  // refused for another reason: tried again on a change
    if (!data.gentle) keep(heading);
    return true;
  };
  requestAnimationFrame(() => { if (go()) landed(nonce); else awaitHeading(nonce, go); });
}
