// Who this browser is, kept in its localStorage (ui/identity.py): an id, the class it joined and its
// nickname, the key of a class it teaches. Reports what it holds when it differs from what the server
// knows (one rerun after a page loads), and keeps what the server asks it to (`data.set`; null forgets).
// Nothing here is drawn, and nothing is read from the page.

const STORE = "attention-lab";

function newId() {  // 32 hexadecimal digits; crypto.getRandomValues works on a plain-http classroom server too
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export default function identity(component) {
  const { data, setStateValue } = component;
  let held = {};
  try {
    held = JSON.parse(window.localStorage.getItem(STORE) || "{}") || {};
  } catch (e) {
    held = {};  // storage blocked or corrupt: a fresh identity for this page
  }
  if (typeof held.browser !== "string" || !/^[0-9a-f]{32}$/.test(held.browser)) held.browser = newId();
  for (const [name, value] of Object.entries((data && data.set) || {})) {
    if (value === null) delete held[name];
    else held[name] = value;
  }
  try {
    window.localStorage.setItem(STORE, JSON.stringify(held));
  } catch (e) {
    // private browsing without storage: the identity lasts as long as the page
  }
  // A browser in no class that no page asks about (a learner on a lesson) keeps its id to itself: its report
  // would rerun the page for nothing, and a message the page said once (a link's bad setting) would vanish.
  const needed = (data && data.report) || "class" in held || "teach" in held || (data && data.known);
  if (needed && canonical(held) !== canonical((data && data.known) || null)) setStateValue("identity", held);
}

function canonical(value) {  // JSON with every object's keys sorted: the server's dict and ours may differ in order
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value && typeof value === "object") {
    return "{" + Object.keys(value).sort().map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value === undefined ? null : value);
}
