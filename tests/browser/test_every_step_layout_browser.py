"""Issue 34, on every step of every lesson: no chart drawn below 0.85 of its own width and no table scrolled
sideways (or running past its box), on a laptop (1280 × 800) and on a tablet or projector (1024 × 768), with
the sidebar open. Class mode's pages are out of scope (they show the lessons' own steps).

A case is one lesson opened once at one screen size, then moved through its states in the page (a step
menu, Next, a toggle), as a learner would: each move is one rerun, not a new session. Every state is
audited whole and every culprit is named, with its measurements (a chart's drawn and natural width, a
table's scrollWidth and clientWidth); a failing state is screenshot, one picture a culprit, into
test-artifacts/layout-audit/, and every state's findings go to culprits.jsonl there. Waits are for
states (the run over, the state's own keys drawn, the layout the same two frames running), never times.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote_plus

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attention.pretrained import MODELS
from tests.browser.conftest import ARTIFACTS, TIMEOUT_MS
from tests.browser.test_lessons_browser import SCREENS, SCROLLS_ON_A_TABLET
from tests.browser.test_walkthrough_browser import setting, type_sentence
from ui.walkthrough import STEPS

pytestmark = pytest.mark.browser

AUDIT = ARTIFACTS / "layout-audit"
FIRST_LOAD_MS = 3 * TIMEOUT_MS  # a page's first run may load a model and write with it, on 2 busy cores
WALKTHROUGH_KEYS = ("tokens", "x", "w_q", "q", "scores", "scaled", "weights", "output")  # each step's last panel
STEP_TITLES = [title for title, _, _ in STEPS]
ROPE = "Rotary positions (RoPE)"
TWELVE = "the cat sat on the mat and the dog lay by the door"
SMOLLM2 = quote_plus(MODELS["smollm2"].title)

# Tables allowed to scroll sideways, by design (each is still measured and written to culprits.jsonl):
# - a table of more than ui.view.MAX_TABLE_CELLS (400) cells is drawn in a box of its own that scrolls both
#   ways (static/view.js: class "alv-scroll"; a real model's X is [n × 384] or [n × 576], its W_Q [384 × 64]).
#   conftest's CUT_OFF_TABLES does not exclude them: with ui.components.TABLE_CSS the <table> in the box is
#   a block as wide as the box that its rows overflow (the box scrolls, not the table), so its scrollWidth
#   exceeds its clientWidth. Here the class "alv-scroll" excludes them;
# - on a tablet, SCROLLS_ON_A_TABLET (test_lessons_browser.py): the trained head's 12 × 12 form, lt-form.
ALLOWED = {"laptop": (), "tablet": SCROLLS_ON_A_TABLET}

# JS: everything on the page that breaks issue 34, measured, by the same tests as conftest's SHRUNK_CHARTS and
# CUT_OFF_TABLES, and one more: a chart or a table whose right edge is past the page's content box (a row of
# columns wider than the page: not shrunk, not scrolled, but past the page's margin or off the screen). Elements
# not on screen (a closed expander, another tab) are left out: their width is 0.
CULPRITS = r"""allowed => {
  const keyOf = (el, prefix) => ((el && el.className.match(new RegExp(prefix + '(\\S+)'))) || [])[1] || '?';
  const onScreen = el => el.getClientRects().length > 0;
  const main = document.querySelector('[data-testid=stMainBlockContainer]');
  const right = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
  const left = main.getBoundingClientRect().left + parseFloat(getComputedStyle(main).paddingLeft);
  const sidebar = document.querySelector('[data-testid=stSidebar]');
  const out = {shrunk: [], offPage: [], cutOff: [], scrollsByDesign: [], hidden: 0, content: Math.round(right - left),
               sidebar: Math.round(sidebar ? sidebar.getBoundingClientRect().width : 0)};
  const scroller = document.querySelector('[data-testid=stMain]');  // the page itself, scrolled sideways
  out.page = {scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth};
  for (const img of document.querySelectorAll('[class*="st-key-fig-"] img')) {
    if (!onScreen(img)) { out.hidden++; continue; }
    const box = img.getBoundingClientRect(), key = keyOf(img.closest('[class*="st-key-fig-"]'), 'st-key-fig-');
    const ratio = +(box.width / img.naturalWidth).toFixed(2);
    const width = Math.round(box.width), natural = img.naturalWidth;
    if (box.width < 0.85 * natural) out.shrunk.push({key, width, natural, ratio});
    if (box.right > right + 1) out.offPage.push({key, right: Math.round(box.right), contentRight: Math.round(right)});
  }
  for (const table of document.querySelectorAll('[class*="st-key-table-"] table')) {
    if (!onScreen(table)) { out.hidden++; continue; }
    const box = table.closest('[class*="st-key-table-"]'), key = keyOf(box, 'st-key-table-');
    const edge = table.closest('[data-testid=stElementContainer]').getBoundingClientRect().right;
    const past = table.getBoundingClientRect().right - edge;
    if (table.getBoundingClientRect().right > right + 1) out.offPage.push(
      {key, table: true, right: Math.round(table.getBoundingClientRect().right), contentRight: Math.round(right)});
    if (table.scrollWidth <= table.clientWidth && past <= 1) continue;
    const found = {key, scrollWidth: table.scrollWidth, clientWidth: table.clientWidth,
                   pastBox: Math.round(Math.max(0, past)), columns: table.querySelectorAll('thead th').length};
    if (box.classList.contains('alv-scroll')) out.scrollsByDesign.push({...found, why: 'over 400 cells: its own box'});
    else if (allowed.includes(key)) out.scrollsByDesign.push({...found, why: 'allowed on this screen'});
    else out.cutOff.push(found);
  }
  return out;
}"""

# JS: the state is drawn and settled: the run is over with the fonts loaded, the share box (app.py draws it after
# the lesson) is there and nothing is stale, the link holds ``param`` ([name, value] or null), each of ``keys``
# (a table's or a chart's) is drawn, every view has drawn its panels, every chart's box holds its image (st.image
# puts it in a moment after the run) and every image has loaded, every table has our table CSS, the view's own
# stylesheet has loaded (static/view.css, fetched by the first view: before it, a chart is not yet capped at
# the page's width; seen on a busy machine), and the layout (CULPRITS) is the same as one frame ago.
SETTLED = f"""([keys, param, allowed]) => {{
  const app = document.querySelector('[data-testid=stApp]');
  const ready = app?.getAttribute('data-test-script-state') === 'notRunning' && document.fonts.status === 'loaded'
    && !!document.querySelector('.st-key-share') && !document.querySelector('[data-stale=true]')
    && (!param || new URLSearchParams(location.search).getAll(param[0]).join('&') === param[1])
    && keys.every(k => !!document.querySelector(`.st-key-table-${{k}} table, .st-key-fig-${{k}} img`))
    && [...document.querySelectorAll('[class*="st-key-view-"]')].every(v => !!v.querySelector('.alv'))
    && [...document.querySelectorAll('[class*="st-key-fig-"]')].every(f => !!f.querySelector('img'))
    && [...document.querySelectorAll('[data-testid=stMain] img')].every(i => i.complete && i.naturalWidth > 0)
    && [...document.querySelectorAll('[class*="st-key-table-"] table')]
      .every(t => getComputedStyle(t).display === 'block')
    && [...document.querySelectorAll('link[data-attention-lab]')].every(l => !!l.sheet);
  const layout = ready ? JSON.stringify(({CULPRITS})(allowed)) : null;
  const same = ready && layout === window.__layoutAudit;
  window.__layoutAudit = layout;
  return same;
}}"""
# JS: scroll the page (vertically only: a page that scrolls sideways stays where the learner has it) so that the
# element is in the middle of the screen
SCROLL_TO = """e => document.querySelector('[data-testid=stMain]')
  .scrollBy(0, e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2 - innerHeight / 2)"""
# JS: what a state still waits for, for the message of a state that never came
MISSING = """([keys, param]) => ({
  script: document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state'),
  link: location.search, param,
  missing: keys.filter(k => !document.querySelector(`.st-key-table-${k} table, .st-key-fig-${k} img`)),
  exception: [...document.querySelectorAll('[data-testid=stException]')].map(e => e.innerText.slice(0, 300))})"""


@dataclass(frozen=True)
class State:
    """One state of a lesson: ``go`` reaches it from the state before (None: the page as opened); it is there
    when the link holds ``param`` and ``keys`` (tables or charts, its own) are drawn."""

    name: str
    keys: tuple[str, ...]
    go: Callable | None = None
    param: tuple[str, str] | None = None
    timeout: float | None = None  # to settle, in ms: TIMEOUT_MS (FIRST_LOAD_MS for the page as opened)


@dataclass(frozen=True)
class Case:
    path: str
    states: list[State] = field(default_factory=list)


def choose(key: str, option: str, *, starts: bool = False) -> Callable:
    """Pick ``option`` in the select box ``key``, by keyboard as a learner can: focus, type, Enter (``starts``:
    the option whose name starts so, as the cache lesson's "1 · reads “…”, writes “…”")."""
    def go(page) -> None:
        box = page.locator(f".st-key-{key} input")
        name = re.compile("^" + re.escape(option)) if starts else option
        found = page.get_by_role("option", name=name, exact=not starts).first
        for attempt in range(CHOOSE_TRIES):  # a rerun that redraws the menu closes its list (seen beside a test run)
            page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
            box.click()
            box.fill(option)
            try:
                found.wait_for(timeout=TIMEOUT_MS / CHOOSE_TRIES)
                break
            except PlaywrightTimeout:
                if attempt == CHOOSE_TRIES - 1:
                    raise
                page.keyboard.press("Escape")  # then open the list again, once the run is over
        page.keyboard.press("Enter")
    return go


CHOOSE_TRIES = 4


def click(selector: str, **options) -> Callable:
    def go(page) -> None:
        page.locator(selector).first.click(**options)
    return go


def stage(name: str) -> Callable:
    """Choose a stage of "Attention from its parts" (its radio input is hidden: click it where it is)."""
    def go(page) -> None:
        page.locator(".st-key-stage").get_by_role("radio", name=name).click(force=True)
    return go


def flip_shared(key: str) -> Callable:
    """Flip a shared setting in the sidebar's popover, then close the popover."""
    def go(page) -> None:
        setting(page, "shared_settings", key).locator("label").click()
        page.keyboard.press("Escape")
    return go


def steps_menu(menu: str, keys: list, titles: list[str], first: int) -> list[State]:
    """States: the steps after ``first`` of a step menu (options "k · title", the link's ``menu=k``), each reached
    by choosing it; ``keys[k - 1]``: a panel step k draws."""
    return [State(f"step {k} · {titles[k - 1]}", (keys[k - 1],), choose(menu, f"{k} · {titles[k - 1]}"), (menu, str(k)))
            for k in range(first + 1, len(titles) + 1)]


def real_model_case(name: str, path: str) -> Case:
    titles = [*STEP_TITLES[:4], ROPE, *STEP_TITLES[4:]] if name == "smollm2" else STEP_TITLES
    keys = ["rm-" + k for k in WALKTHROUGH_KEYS]
    keys = [*keys[:4], "rm-k-after", *keys[4:]] if name == "smollm2" else keys
    extra = ("rm-next-tokens",) if name == "smollm2" else ()
    off = ("rm-off-next",) if name == "smollm2" else ("rm-off-change",)
    return Case(path, [
        State(f"step 1 · {titles[0]}", ("rm-model-tokens", "rm-model-view", "rm-head", "rm-tokens", *extra),
              param=("rm_step", "1")),
        # what the page draws beside the steps (these stay on while the steps are walked)
        State("step 1, α as lines (head view)", ("rm-head-lines-view-view-0",), click(".st-key-rm-head-lines label")),
        State("step 1, attention sink hidden", ("rm-head",), click(".st-key-rm_sink label"), ("rm_sink", "true")),
        State("step 1, head L1 H1 switched off", off, choose("rm_off", "L1 H1"), ("rm_off", "L1 H1")),
        *steps_menu("rm_step", keys, titles, 1),
    ])


def generate_case(path: str, last: int) -> Case:
    cached = ("gen-x", "gen-q", "gen-k-after", "gen-scores", "gen-scaled", "gen-weights", "gen-alpha-row",
              "gen-weighted-sum", "gen-output-row")
    return Case(path, [State(f"cached step {last} (the last): steps 2, 4–9", ("gen-written", "gen-cache-k", *cached),
                             param=("gen_step", str(last)))])


CASES: dict[str, Case] = {
    "walkthrough-one-step": Case("/", [State("step 1 · Tokens (the default page)", ("tokens",))]),
    "walkthrough-all-steps": Case("/?all_steps=true", [
        State("all 8 steps, 4 tokens", (*WALKTHROUGH_KEYS, "alpha-row", "weighted-sum", "output-row")),
        State("step 7's α as lines (head view)", ("lines-view-0",), click(".st-key-lines label")),
        State("all 8 steps, 6 tokens", ("weights",), lambda page: type_sentence(page, "the cat sat on the mat"),
              ("sentence", "the cat sat on the mat")),
        State("all 8 steps, positional encodings (step 2: E, P, X = E + P)", ("e", "p", "x"), flip_shared("positional"),
              ("positional", "true")),
    ]),
    # the widest the walkthrough gets: d_model = d_k = 16 and twelve tokens (17 columns of numbers, 12 × 12 α)
    "walkthrough-widest": Case(f"/?all_steps=true&d_model=16&d_k=16&sentence={quote_plus(TWELVE)}", [
        State("all 8 steps, d_model = d_k = 16, 12 tokens",
              (*WALKTHROUGH_KEYS, "alpha-row", "weighted-sum", "output-row")),
    ]),
    "multihead-widest": Case(f"/multihead?d_model=16&heads=2&head_step=8&sentence={quote_plus(TWELVE)}", [
        State("d_model = 16, 12 tokens, head 1 at step 8", ("heads-0", "concat", "w_o", "mh-output", "head-output")),
    ]),
    "walkthrough-presenter": Case("/?present=true", [
        State("presenter, step 1 · Tokens", ("tokens",)),
        *[State(f"presenter, step {k} · {STEP_TITLES[k - 1]}", (WALKTHROUGH_KEYS[k - 1],),
                click(".st-key-next_step button"), ("step", str(k))) for k in range(2, 9)],
    ]),
    "multihead": Case("/multihead", [
        State("2 heads, head 1 open at step 3", ("heads-0", "heads-1", "mh-lines-view-0", "concat", "w_o", "mh-output",
                                                 "head-w_q")),
        *steps_menu("head_step", [None, None, *("head-" + k for k in WALKTHROUGH_KEYS[2:])], STEP_TITLES, 3),
        State("4 heads (head 1 at step 8)", ("heads-3", "mh-lines-view-3", "head-output"), choose("heads", "4"),
              ("heads", "4")),
        State("8 heads (head 1 at step 8)", ("heads-7", "mh-lines-view-7", "head-output"), choose("heads", "8"),
              ("heads", "8")),
    ]),
    "scaling": Case("/scaling", [State("the whole page", (
        "dots", "saturation-max-weight", "saturation-jacobian", "saturation-no-gradient", "saturation-stats",
        "row-raw", "row-scaled", "temperature-row", "temperature-weights"))]),
    "phonebook": Case("/phonebook", [State("the whole page", ("pb-scores", "pb-weights", "pb-lookup", "pb-answers"))]),
    "relevance": Case("/relevance", [State("the whole page", (
        "sim-weights", "rel-before", "rel-after", "arrows", "arrow-scores"))]),
    "parts": Case("/parts", [
        State("stage 1", ("parts-weights-1", "parts-output-1")),
        State("stage 2 beside stage 1", ("parts-weights-2", "parts-weights-1", "parts-output-2"),
              stage("2"), ("stage", "2")),
        State("stage 3 beside stage 2", ("parts-weights-3", "parts-weights-2", "parts-output-3"),
              stage("3"), ("stage", "3")),
        State("stage 3 alone", ("parts-weights-3", "parts-output-3"), click(".st-key-parts_compare label"),
              ("parts_compare", "false")),
    ]),
    "cross": Case("/cross", [State("the whole page", ("ca-q", "ca-k", "ca-v", "ca-weights", "ca-output"))]),
    "learn": Case("/learn?lt_run=true", [
        State("trained (300 steps), the whole page", (
            "lt-examples", "lt-loss", "lt-accuracy", "lt-prediction", "lt-alpha", "lt-form"), param=("lt_run", "true")),
        State("the head step by step: step 3", ("lt-head-w_q",), click(".st-key-lt-steps summary")),
        *steps_menu("lt_head_step", [None, None, *("lt-head-" + k for k in WALKTHROUGH_KEYS[2:])], STEP_TITLES, 3),
    ]),
    "real-model-minilm": real_model_case("minilm", "/real_model?rm_step=1"),
    "real-model-smollm2": real_model_case("smollm2", f"/real_model?rm_model={SMOLLM2}&rm_step=1"),
    # the cached step the page opens on (the last) draws steps 2 and 4–9 of the walkthrough for it at once
    "generate-8-tokens": Case("/generate", [
        *generate_case("/generate", 7).states,
        State("cached step 1 (the first)", ("gen-x", "gen-k-after", "gen-output-row"),
              choose("gen_step", "1 · reads", starts=True), ("gen_step", "1")),
        State("a step's time measured", ("gen-timing",), click(".st-key-gen_measure button"),
              timeout=2 * FIRST_LOAD_MS),  # three runs at each of 8 lengths up to 128 tokens: ~5 s idle, but it
        # measures on whatever cores are left, and took 110 s beside two other test runs (it never settled in 180 s)
    ]),
    "generate-20-tokens": generate_case("/generate?gen_count=20", 19),
}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def audit(page, case: str, screen: str, state: State, timeout: float, seen: dict) -> str | None:
    """Wait for ``state`` to settle, then find every culprit on the page. ``seen`` collects them across the case's
    states, (kind, key) → {what was measured → [states]}; a culprit new to the case is screenshot in its place on
    the page. Every state's findings, culprits or not, go to culprits.jsonl. Returns why the state never came."""
    arg = [list(state.keys), list(state.param) if state.param else None, list(ALLOWED[screen])]
    page.evaluate("window.__layoutAudit = null")  # settled: the same layout twice in this state
    try:
        page.wait_for_function(SETTLED, arg=arg, timeout=timeout)
    except PlaywrightTimeout:
        return f"  {state.name}: never settled: {page.evaluate(MISSING, arg[:2])}"
    found = page.evaluate(CULPRITS, arg[2])
    assert found["sidebar"] > 200, f"the sidebar is not open: {found['sidebar']} px"
    with open(AUDIT / "culprits.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"case": case, "screen": screen, "state": state.name, "url": page.url, **found}) + "\n")
    culprits = [("chart", c["key"], f"drawn {c['width']} px of its {c['natural']} ({c['ratio']})")
                for c in found["shrunk"]]
    culprits += [("table" if c.get("table") else "chart", c["key"], f"runs past the page's content to x = "
                  f"{c['right']} (> {c['contentRight']})") for c in found["offPage"]]
    culprits += [("table", t["key"], f"{t['columns']} columns, scrollWidth {t['scrollWidth']} > clientWidth "
                  f"{t['clientWidth']}" + (f", {t['pastBox']} px past its box" if t["pastBox"] else ""))
                 for t in found["cutOff"]]
    if found["page"]["scrollWidth"] > found["page"]["clientWidth"]:
        culprits.append(("page", "main", f"scrolls sideways: scrollWidth {found['page']['scrollWidth']} > clientWidth "
                                         f"{found['page']['clientWidth']}"))
    for kind, key, measured in culprits:
        if (kind, key) not in seen and kind != "page":  # a picture of each, in its place on the page
            target = page.locator(f".st-key-fig-{key} img" if kind == "chart" else f".st-key-table-{key}").first
            target.evaluate(SCROLL_TO)
            page.screenshot(path=AUDIT / f"{case}-{screen}-{slug(state.name)}-{kind}-{key}.png")
        seen.setdefault((kind, key), {}).setdefault(measured, []).append(state.name)
    return None


@pytest.mark.timeout(900)  # a case is a page and all its states; the first opens a model
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("screen", SCREENS)
def test_every_step_fits_a_laptop_and_a_tablet(open_page, artifacts, screen, case):
    """Every state of the lesson at this screen size: no chart below 0.85 of its width, none past the page's
    edge, no table scrolled sideways or past its box (but those ALLOWED); every culprit named once, with each
    state it is in and its measurements there."""
    AUDIT.mkdir(exist_ok=True)
    width, height = SCREENS[screen]
    lesson = CASES[case]
    page = open_page(lesson.path, ".st-key-sentence input", width=width, height=height)  # this size from the start
    seen: dict = {}
    never = []
    for number, state in enumerate(lesson.states):
        if state.go is not None:
            state.go(page)
        never.append(audit(page, case, screen, state, state.timeout or (FIRST_LOAD_MS if number == 0 else TIMEOUT_MS),
                           seen))
    content = page.evaluate(CULPRITS, [])["content"]
    lines = [f"  {kind} {key}: " + "; ".join(f"{measured} in {', '.join(states)}" for measured, states in found.items())
             for (kind, key), found in seen.items()]
    failures = [line for line in never if line] + lines
    assert not failures, f"{case} at {screen} {width} × {height} (the page's content {content} px wide):\n" + \
        "\n".join(failures)
