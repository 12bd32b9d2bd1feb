"""Where each walkthrough step's first chart starts (issue 47), at the four sizes of the rule: a laptop at 1280 × 800
and 1024 × 768, presenter mode at 1280 × 720 and 1024 × 768, the sidebar open.

Steps 2–8 are opened with Next (the button at the top), step 1 with "Back to step 1" at the end of step 8; then
every step is opened again from a link (``/?step=N``, a fresh browser). Prints a Markdown table of the first chart's
y (px from the viewport's top) and the 60 % line, for docs/benchmarks.md. Measures positions, not times.

    .venv/bin/python bench/chart_in_view.py            # a server of this tree
    .venv/bin/python bench/chart_in_view.py --url http://127.0.0.1:8501
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from tests.browser.chart_in_view import SHARE, SIZES, settled_chart_top
from tests.browser.server import launch_chromium, streamlit_server

STEPS = 8
TIMEOUT_MS = 90_000


def _page(browser, url: str, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    return context, page


def by_next(browser, base: str, width: int, height: int, presenting: bool) -> dict[int, float]:
    """Step 1 → 8 by Next, then back to step 1 by the button at the end of step 8."""
    context, page = _page(browser, base + ("/?present=true" if presenting else "/"), width, height)
    page.wait_for_selector("#step-1")
    tops = {}
    for step in range(2, STEPS + 1):
        page.locator(".st-key-next_step button").click()
        tops[step] = settled_chart_top(page, step)
    if presenting:  # presenter mode has no button at the end of a step: the menu
        page.locator(".st-key-step input").click()
        page.locator(".st-key-step input").fill("1 · To")
        page.get_by_role("option", name="1 · Tokens", exact=True).click()
    else:
        page.get_by_role("button", name="Back to step 1").click()
    tops[1] = settled_chart_top(page, 1)
    context.close()
    return tops


def by_link(browser, base: str, width: int, height: int, presenting: bool) -> dict[int, float]:
    """Each step opened from a link, in a fresh browser: the chart's top once the page has settled."""
    tops = {}
    for step in range(1, STEPS + 1):
        query = f"step={step}" + ("&present=true" if presenting else "")
        context, page = _page(browser, f"{base}/?{query}", width, height)
        page.wait_for_selector(f"#step-{step}")
        try:  # a page that brings a link's step into view moves the focus to its heading
            tops[step] = settled_chart_top(page, step, timeout=15_000)
        except AssertionError:  # one that does not (before issue 47): where the page opened
            tops[step] = settled_chart_top(page, step, focused=False)
        context.close()
    return tops


def table(rows: dict[str, dict[int, float]]) -> str:
    lines = ["| size | 60 % line | " + " | ".join(f"step {s}" for s in range(1, STEPS + 1)) + " |",
             "| --- | --- |" + " --- |" * STEPS]
    for name, tops in rows.items():
        height = SIZES[name.split(": ")[-1]][1]
        cells = [f"**{tops[s]:.0f}**" if tops[s] > SHARE * height else f"{tops[s]:.0f}" for s in range(1, STEPS + 1)]
        lines.append(f"| {name} | {SHARE * height:.0f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start one of this tree)")
    parser.add_argument("--no-links", action="store_true", help="only Next")
    args = parser.parse_args()
    with sync_playwright() as p:
        browser = launch_chromium(p)
        with (streamlit_server() if args.url is None else contextlib.nullcontext(args.url.rstrip("/"))) as base:
            nexts, links = {}, {}
            for name, (width, height, presenting) in SIZES.items():
                nexts[f"Next: {name}"] = by_next(browser, base, width, height, presenting)
                print(name, "Next", nexts[f"Next: {name}"], flush=True, file=sys.stderr)
                if not args.no_links:
                    links[f"link: {name}"] = by_link(browser, base, width, height, presenting)
                    print(name, "link", links[f"link: {name}"], flush=True, file=sys.stderr)
        browser.close()
    print(table(nexts))
    if links:
        print()
        print(table(links))


if __name__ == "__main__":
    main()
