"""Browser benchmark: every lesson against a bare Streamlit page, all measured in this run.

The bare page (bench/bare_app.py: one text_input and one st.write) runs on its own Streamlit
server beside the app, on the same machine at the same time. For each lesson, medians of ROUNDS
samples, each in a fresh Chromium (a page in a background tab is throttled):
- first paint: from navigation until the lesson is drawn: its marker element is there, the script
  has finished, every image (chart) has loaded and every Plotly chart (older versions) has drawn;
- interaction: from pressing Enter on a new text until the page shows the change and is drawn;
- bytes per rerun: what the server sent over the websocket during that interaction.
Printed as one table of ratios to the bare page. Asserts nothing; targets from issue 9 in the notes.

A second baseline, the floor (bench/floor_app.py: the app's frame, its navigation and sentence box,
and step 1's token table), shows how much of a lesson's ratio no change to the lesson's content can
remove.

    python bench/bench_browser.py            # every lesson, 5 rounds
    ROUNDS=3 python bench/bench_browser.py   # quicker
    ONLY=walkthrough python bench/bench_browser.py   # the cases whose name starts so, and the baselines
    ONLY="walkthrough,multi-head" python bench/bench_browser.py   # several prefixes
    APP=/path/to/other/checkout/app.py python bench/bench_browser.py   # measure another version
    BEFORE=/path/to/other/checkout/app.py python bench/bench_browser.py  # both versions, in one run
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402, RUF100

from tests.browser.server import launch_chromium, streamlit_server  # noqa: E402, RUF100

ROUNDS = int(os.environ.get("ROUNDS", "5"))
APP = os.environ.get("APP", "app.py")
BEFORE = os.environ.get("BEFORE")  # another version's app.py, measured in the same run for a before/after
SIX = "the cat sat on the mat"


def words(n: int, last: str) -> str:
    """A sentence of n tokens (distinct words, so every label is plain), ending in ``last``."""
    return " ".join([f"w{k}" for k in range(n - 1)] + [last])


# True once the page has finished a run and drawn it: no script running, no element still a grey
# placeholder (Streamlit shows an stSkeleton while an element's code loads: images, widgets), every
# web font (KaTeX's) loaded, every chart image loaded, every Plotly chart (before issue 9) drawn.
DRAWN = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid=stSkeleton]') || document.fonts.status !== 'loaded') return false;
  const images = Array.from(document.querySelectorAll('[data-testid=stImage] img, .alv-figure img'));
  if (!images.every(i => i.complete && i.naturalWidth > 0)) return false;
  // every view (ui/view.py), model map and player has drawn: its code has loaded and run
  if (Array.from(document.querySelectorAll('[data-testid=stBidiComponentRegular]'))
      .some(v => !v.querySelector('.alv, .alm, .alp'))) return false;
  return Array.from(document.querySelectorAll('.stPlotlyChart')).every(p => p.querySelector('.main-svg'));
}"""


def table_has(key: str, text: str) -> str:
    """JS: the table ``key`` shows ``text`` (in a cell or a row label)."""
    return f"() => !!document.querySelector('.st-key-table-{key} table')?.innerText.includes({text!r})"


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # on the app's server ("" = the bare page's server)
    ready: str  # JS: the lesson's content is on the page
    box: str  # the widget key of the text box typed into
    text: str  # typed, then Enter (or, with ``click``, nothing)
    changed: str  # JS: the page shows what was typed
    click: str = ""  # the widget key of a button clicked instead of typing (Next on the walkthrough)
    press: str = ""  # or a CSS selector clicked instead of typing (a model's radio option)


BARE = Case("bare page", "", "() => document.body.innerText.includes('You typed:')", "sentence", SIX,
            f"() => document.body.innerText.includes('You typed: {SIX}')")
# bench/floor_app.py: the app's frame and step 1's token table, nothing else (see its docstring)
FLOOR = Case("floor", "", table_has("tokens", "awesome"), "sentence", SIX, table_has("tokens", "mat"))
# bench/controls_app.py: the floor plus the walkthrough's controls, the least a walkthrough that keeps them can draw
CONTROLS = Case("controls floor", "", table_has("tokens", "awesome"), "sentence", SIX, table_has("tokens", "mat"))
# each on its own server, measured once a round
BASELINES = {BARE: "bench/bare_app.py", FLOOR: "bench/floor_app.py", CONTROLS: "bench/controls_app.py"}
ONLY = os.environ.get("ONLY")  # only the cases whose name starts with this, or one of these (comma-separated)


def shows(word: str) -> str:
    """JS: the lesson shows ``word`` (a token label in a table, a grid's caption, …)."""
    return f"() => document.querySelector('[data-testid=stMain]')?.innerText.includes({word!r})"


def walkthrough(name: str, step: int | None, n: int | None = None) -> Case:
    """The walkthrough at ``step`` (None: as it opens), on an n-token sentence, then its last word changed."""
    params = {"step": step} if step else {}
    if not n:
        key = {None: "tokens", 1: "tokens", 7: "weights", 8: "output"}[step]  # a table of the step with the tokens
        return Case(name, "/?" + urlencode(params), table_has(key, "awesome"), "sentence", SIX, table_has(key, "mat"))
    params["sentence"] = words(n, "zebra")  # words no lesson text uses
    return Case(name, "/?" + urlencode(params), shows("zebra"), "sentence", words(n, "yak"), shows("yak"))


def part(map_key: str, step: int) -> str:
    """The button of the map ``map_key``'s part that opens ``step``."""
    return f".st-key-map-{map_key} button.alm-part[data-step='{step}']"


def arrived(anchor: str, present: str = "") -> str:
    """JS: the page arrived at the heading ``anchor`` (arrival.js focuses it), or the element ``present`` is there."""
    if present:
        return f"() => document.querySelector({present!r}) !== null"
    return f"() => document.activeElement?.id === {anchor!r}"


NEXT_TOKENS = "() => document.querySelector('.st-key-table-rm-next-tokens table') !== null"  # the decoder's
SMOLLM2 = "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"  # the model radio's label, as links write it

CASES = [
    BARE,
    FLOOR,
    CONTROLS,
    walkthrough("walkthrough", None),
    walkthrough("walkthrough, step 7", 7),
    walkthrough("walkthrough, step 8", 8),
    walkthrough("16 tokens, step 1", 1, 16),
    walkthrough("16 tokens, step 7", 7, 16),
    walkthrough("16 tokens, step 8", 8, 16),
    walkthrough("64 tokens, step 1", 1, 64),
    walkthrough("64 tokens, step 7", 7, 64),
    walkthrough("64 tokens, step 8", 8, 64),
    Case("walkthrough, Next", "/?step=3", "() => document.querySelector('#step-3') !== null", "", "",
         "() => document.querySelector('#step-4') !== null", click="next_step"),
    Case("walkthrough, Previous", "/?step=3", "() => document.querySelector('#step-3') !== null", "", "",
         "() => document.querySelector('#step-2') !== null", click="prev_step"),
    Case("presenter", "/?present=true", table_has("tokens", "awesome"), "sentence", SIX, table_has("tokens", "mat")),
    Case("multi-head", "/multihead", table_has("mh-output", "awesome"), "sentence", SIX, table_has("mh-output", "mat")),
    Case("√d_k", "/scaling", table_has("temperature-weights", "awesome"), "sentence", SIX,
         table_has("temperature-weights", "mat")),
    Case("phonebook", "/phonebook", table_has("pb-lookup", "Jindřich"), "pb_query", "Anna",
         "() => document.body.innerText.includes('an exact match')"),
    Case("relevance", "/relevance", table_has("sim-weights", "awesome"), "sentence", SIX,
         table_has("sim-weights", "mat")),
    Case("from its parts", "/parts", table_has("parts-weights-1", "awesome"), "sentence", SIX,
         table_has("parts-weights-1", "mat")),
    Case("cross-attention", "/cross", table_has("ca-weights", "awesome"), "ca_source", SIX,
         table_has("ca-weights", "mat")),
    Case("real model (MiniLM)", "/real_model", table_has("rm-model-tokens", "awesome"), "sentence", SIX,
         table_has("rm-model-tokens", "mat")),
    # a switch of model once both are loaded (the warming round loads them, once a process): the default sentence
    Case("real model, MiniLM → SmolLM2", "/real_model", table_has("rm-model-tokens", "awesome"), "", "",
         NEXT_TOKENS, press=".st-key-rm_model [role=radiogroup] label >> nth=1"),
    Case("real model, SmolLM2 → MiniLM", "/real_model?" + urlencode({"rm_model": SMOLLM2}), NEXT_TOKENS, "", "",
         f"() => !({NEXT_TOKENS})() && ({table_has('rm-model-tokens', 'awesome')})()",
         press=".st-key-rm_model [role=radiogroup] label >> nth=0"),
    # a click on a part of the model map (issue 46: ≤ 1 s on a quiet machine): the page reruns on that step
    Case("map: walkthrough 3 → 4", "/?step=3", "() => document.querySelector('#step-3') !== null", "", "",
         arrived("step-4"), press=part("walkthrough", 4)),
    Case("map: MiniLM 5 → 3", "/real_model", arrived("", "#rm-step-5"), "", "", arrived("rm-step-3"),
         press=part("real", 3)),
    Case("map: MiniLM 3 → 5", "/real_model?rm_step=3", arrived("", "#rm-step-3"), "", "", arrived("rm-step-5"),
         press=part("real", 5)),
    Case("map: SmolLM2 6 → 3", "/real_model?" + urlencode({"rm_model": SMOLLM2}), arrived("", "#rm-step-6"), "", "",
         arrived("rm-step-3"), press=part("real", 3)),
    Case("map: cache → step 6", "/generate", arrived("", "#gen-step-2"), "", "", arrived("gen-step-6"),
         press=part("generate", 6)),
    # a trained head (a link's run: trained once a process, in the warming round) opens "This head, step by step"
    Case("map: learn → step 5", "/learn?lt_run=true", arrived("", part("learn", 5)), "", "",
         arrived("lt-head-step-5"), press=part("learn", 5)),
]
# "Watch a head learn" has no text to type: its cost is the training run, in bench/bench_training.py.
if ONLY:
    CASES = [c for c in CASES if c in BASELINES or c.name.startswith(tuple(ONLY.split(",")))]


def drawn(page, predicate: str) -> None:
    page.wait_for_function(f"() => ({predicate})() && ({DRAWN})()")


def sample(playwright, base: str, case: Case) -> tuple[float, float, int]:
    browser = launch_chromium(playwright)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(int(os.environ.get("BENCH_TIMEOUT_MS", "180000")))
        received = [0]
        page.on("websocket", lambda ws: ws.on("framereceived", lambda data: received.__setitem__(
            0, received[0] + len(data))))
        t0 = time.perf_counter()
        page.goto(base + case.path)
        drawn(page, case.ready)
        first_paint = time.perf_counter() - t0
        clicked = case.press or (f".st-key-{case.click} button" if case.click else "")
        target = page.locator(clicked or f".st-key-{case.box} input")
        if not clicked:
            target.fill(case.text)
        sent_before = received[0]
        t0 = time.perf_counter()
        target.click() if clicked else target.press("Enter")
        drawn(page, case.changed)
        return first_paint, time.perf_counter() - t0, received[0] - sent_before
    finally:
        browser.close()


def table(title: str, med: dict[str, tuple[float, float, float]]) -> None:
    bare_fp, bare_it, _ = med[BARE.name]
    print(f"{title}: medians of {ROUNDS} rounds, each in a fresh Chromium; ratios to the bare page "
          f"(first paint {bare_fp:.2f} s, interaction {bare_it:.3f} s)")
    print(f"| {'lesson':<20} | first paint | interaction | KB per rerun | first paint s | interaction s |")
    print(f"|{'-' * 22}|-------------|-------------|--------------|---------------|---------------|")
    for name, (fp, it, sent) in med.items():
        print(f"| {name:<20} | {fp / bare_fp:>10.2f}× | {it / bare_it:>10.2f}× | {sent / 1000:>12.1f} | "
              f"{fp:>13.2f} | {it:>13.3f} |")


def main() -> None:
    """Every case on the app (and on BEFORE's app, if given) and the bare page, interleaved."""
    apps = {APP: APP, **({f"before: {BEFORE}": BEFORE} if BEFORE else {})}
    with contextlib.ExitStack() as servers, sync_playwright() as p:
        baselines = {case: servers.enter_context(streamlit_server(script)) for case, script in BASELINES.items()}
        urls = {label: servers.enter_context(streamlit_server(script)) for label, script in apps.items()}
        # the baselines, measured once a round, serve every app's table
        runs = [(APP, case, url) for case, url in baselines.items()] + [
            (label, case, urls[label]) for case in CASES if case not in BASELINES for label in apps]
        for label, case, url in runs:  # warm every server (imports, caches)
            print(f"warming: {label}, {case.name}", file=sys.stderr)
            sample(p, url, case)
        results: dict[tuple[str, str], list[tuple[float, float, int]]] = {(lb, c.name): [] for lb, c, _ in runs}
        for _ in range(ROUNDS):  # interleaved, so that every case sees the same machine load
            for label, case, url in runs:
                results[label, case.name].append(sample(p, url, case))
    for label in apps:
        rows = {c.name: results[APP if c in BASELINES else label, c.name] for c in CASES}
        table(label, {name: tuple(statistics.median(r[k] for r in rs) for k in range(3)) for name, rs in rows.items()})
    print("targets (issue 9): walkthrough ≤ 1.5× both; 16 tokens interaction ≤ 2×; 64 tokens ≤ 3×; other lessons "
          "≤ 2× both; ≤ 150 KB per rerun at 16 tokens")
    print("targets (issue 35, interaction): walkthrough ≤ 1.5×, step 7 at 64 tokens ≤ 2.0×, multi-head ≤ 2.0×, a real "
          "model ≤ 3.0×, Next / Previous ≤ 1.3×; first paint ≤ 1.5× everywhere")


if __name__ == "__main__":
    main()
