"""Screenshots of what a learner sees on arriving at each walkthrough step (issue 47): the viewport after Next, at a
laptop's 1280 × 800 and 1024 × 768, presenter mode at 1280 × 720 and 1024 × 768, and a phone, in light and dark.
Pictures to look at as a learner and as the back row of a class, not a test: written to test-artifacts/screens/.

    .venv/bin/python bench/screens.py                 # a server of this tree
    .venv/bin/python bench/screens.py --url http://127.0.0.1:8501 --sizes phone --schemes dark
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from tests.browser.chart_in_view import SIZES, settled_chart_top
from tests.browser.conftest import PHONE
from tests.browser.server import launch_chromium, streamlit_server

OUT = Path(__file__).resolve().parents[1] / "test-artifacts" / "screens"
STEPS = 8
SCREENS = {**{name.replace(" × ", "x").replace(" ", "-"): (w, h, p) for name, (w, h, p) in SIZES.items()},
           "phone-390x844": (390, 844, False)}


def shoot(browser, base: str, name: str, scheme: str) -> None:
    width, height, presenting = SCREENS[name]
    options = PHONE if name.startswith("phone") else {"viewport": {"width": width, "height": height}}
    context = browser.new_context(**options, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(base + ("/?present=true" if presenting else "/"))
    page.wait_for_selector("#step-1")
    settled_chart_top(page, 1, focused=False)
    page.screenshot(path=OUT / f"{name}-{scheme}-step1.png")
    for step in range(2, STEPS + 1):
        page.locator(".st-key-next_step button").click()
        settled_chart_top(page, step)
        page.screenshot(path=OUT / f"{name}-{scheme}-step{step}.png")
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url")
    parser.add_argument("--sizes", nargs="*", default=list(SCREENS), choices=list(SCREENS))
    parser.add_argument("--schemes", nargs="*", default=["light", "dark"], choices=["light", "dark"])
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        with (streamlit_server() if args.url is None else contextlib.nullcontext(args.url.rstrip("/"))) as base:
            for name in args.sizes:
                for scheme in args.schemes:
                    shoot(browser, base, name, scheme)
                    print(name, scheme, "done", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
