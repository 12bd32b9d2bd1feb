"""Browser benchmark: the walkthrough against a bare Streamlit page, both measured in this run.

Two numbers, each printed as a ratio to the bare page (bench/bare_app.py: one text_input and one
st.write) served by the same Streamlit on the same machine at the same time:
- first paint: from navigation until the page's content is all drawn (for the walkthrough: every
  figure has drawn its plot and the last table is there);
- interaction: from pressing Enter on a new sentence until every figure that shows tokens carries
  the new sentence's labels (bare page: until st.write shows the new text).
The walkthrough in presenter mode (one step a screen; step 1 has one figure) is measured too.
Each sample uses its own browser (a page in a background tab is throttled). Medians of ROUNDS.
Asserts nothing. Targets from the issue: interaction ≤ 2×, first paint ≤ 1.9×.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402, RUF100

from tests.browser.server import launch_chromium, streamlit_server  # noqa: E402, RUF100

ROUNDS = 7
NEW_SENTENCE = "the cat sat on the mat"
NEW_LABELS = ["the (1)", "cat", "sat", "on", "the (5)", "mat"]
TOKEN_FIGURES = ["tokens", "x", "q", "k", "v", "scores", "scaled", "weights", "alpha-row", "output"]

WALKTHROUGH_PAINTED = """() => {
  const figs = document.querySelectorAll('[class*="st-key-fig-"]');
  return figs.length >= 12 && Array.from(figs).every(f => f.querySelector('.main-svg .xtick text'))
      && !!document.querySelector('.st-key-table-output table');
}"""

WALKTHROUGH_UPDATED = """([figs, labels]) => figs.every(key => {
  const root = `.st-key-fig-${key}`;
  const texts = Array.from(document.querySelectorAll(
    `${root} .xtick text, ${root} .ytick text, ${root} text.textpoint, ${root} .textpoint text`
  )).map(e => e.textContent);
  return labels.every(l => texts.includes(l))
    || (key === 'tokens' && document.querySelectorAll('.st-key-fig-tokens .xtick text').length === labels.length);
})"""


PRESENTER_PAINTED = """() => !!document.querySelector('.st-key-fig-tokens .main-svg .xtick text')
    && !!document.querySelector('.st-key-table-tokens table')"""


def presenter_painted(page) -> None:
    page.wait_for_function(PRESENTER_PAINTED)


def presenter_updated(page) -> None:  # step 1's figure shows the new tokens (positions 1 … 6)
    page.wait_for_function(
        "n => document.querySelectorAll('.st-key-fig-tokens .xtick text').length === n", arg=len(NEW_LABELS)
    )


def bare_painted(page) -> None:
    page.wait_for_function("() => document.body.innerText.includes('You typed:')")


def walkthrough_painted(page) -> None:
    page.wait_for_function(WALKTHROUGH_PAINTED)


def bare_updated(page) -> None:
    page.wait_for_function(f"() => document.body.innerText.includes('You typed: {NEW_SENTENCE}')")


def walkthrough_updated(page) -> None:
    page.wait_for_function(WALKTHROUGH_UPDATED, arg=[TOKEN_FIGURES, NEW_LABELS])


def sample(playwright, url, painted, updated) -> tuple[float, float]:
    browser = launch_chromium(playwright)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60_000)
        t0 = time.perf_counter()
        page.goto(url)
        painted(page)
        first_paint = time.perf_counter() - t0
        page.wait_for_timeout(300)  # let the page settle before the interaction
        box = page.locator(".st-key-sentence input")
        box.fill(NEW_SENTENCE)
        t0 = time.perf_counter()
        box.press("Enter")
        updated(page)
        return first_paint, time.perf_counter() - t0
    finally:
        browser.close()


def main() -> None:
    with (
        streamlit_server("app.py") as app_url,
        streamlit_server("bench/bare_app.py") as bare_url,
        sync_playwright() as p,
    ):
        pages = {
            "bare": (bare_url, bare_painted, bare_updated),
            "walkthrough": (app_url, walkthrough_painted, walkthrough_updated),
            "presenter": (app_url + "/?present=true", presenter_painted, presenter_updated),
        }
        for args in pages.values():  # warm the servers' caches
            sample(p, *args)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in pages}
        for _ in range(ROUNDS):  # interleaved, so all see the same machine load
            for name, args in pages.items():
                results[name].append(sample(p, *args))
    med = {name: (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs))
           for name, rs in results.items()}
    print(f"medians of {ROUNDS} rounds, each in a fresh Chromium")
    print(f"{'page':<12} {'first paint s':>14} {'interaction s':>14}")
    for name, (fp, it) in med.items():
        print(f"{name:<12} {fp:>14.3f} {it:>14.3f}")
    for name in ("walkthrough", "presenter"):
        fp_ratio = med[name][0] / med["bare"][0]
        it_ratio = med[name][1] / med["bare"][1]
        print(f"{name:<12} first paint {fp_ratio:.2f}× bare (target ≤ 1.9×), interaction {it_ratio:.2f}× bare "
              "(target ≤ 2×)")


if __name__ == "__main__":
    main()
