// After a navigation (Next, Previous, the step menu, a chosen query or head), bring what it opened into
// view: its heading at the top of the page, below Streamlit's header, and the keyboard's focus on it, so
// that a screen reader reads where the learner now is (ui/arrival.py). A navigation is a new `nonce`;
// a rerun for anything else (a new sentence, a hovered cell) leaves the scroll and the focus alone.

const SEEN = "__attentionLabArrival";  // the last nonce this page acted on (one page, however many mounts)
const WAIT_MS = 3000;  // the heading is drawn before this element; a busy browser may paint it late

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

export default function arrival(component) {
  const data = component.data || {};
  const nonce = data.nonce || "";
  if (!(SEEN in window)) {  // a page load: the browser opened it at its top, or at the link's #anchor,
    window[SEEN] = nonce;
    if (!data.load || !data.target || location.hash) return;  // unless the link named a step (data.load)
  } else {
    if (nonce === window[SEEN] || !data.target) return;
    window[SEEN] = nonce;
  }
  const started = performance.now();
  const go = () => {
    const heading = document.getElementById(data.target);
    if (!heading) {
      if (performance.now() - started < WAIT_MS) requestAnimationFrame(go);
      return;
    }
    const header = document.querySelector("[data-testid=stHeader]");
    heading.style.scrollMarginTop = ((header ? header.getBoundingClientRect().height : 0) + 8) + "px";
    heading.scrollIntoView({ block: "start" });
    if (!heading.hasAttribute("tabindex")) {
      heading.setAttribute("tabindex", "-1");  // focusable, not in the Tab order
      // no focus ring: a heading is not a control, and after the clicker's PageDown the browser drew a black box
      // around every step's heading on the projector; a screen reader still reads it, the next Tab starts there
      heading.style.outline = "none";
    }
    heading.focus({ preventScroll: true });
    keep(heading);
  };
  requestAnimationFrame(go);
}
