"""Load benchmark: a classroom of learners on one `streamlit run` server, in real Chromium pages.

    python bench/bench_load.py [N ...]          (default: 10 30), then a soak of 200 learners
    LESSON=real_model SOAK=100 python bench/bench_load.py 10    the same on "A real model" (MiniLM)

For each N, N learners (each a fresh browser context, so its own Streamlit session) open the
walkthrough at the same moment; then, ROUNDS times, all of them type a new sentence at the same
moment. It prints:
- first paint for all N: from the first navigation until the last page has drawn (the walkthrough
  opened at step 7, the softmax: its α heatmap and table);
- interaction latency, p50 and p95 over every learner and round: from pressing Enter until that
  learner's page shows the new sentence in its α table and every chart has loaded;
- errors: pages showing an exception, waits that timed out, websocket reconnects;
- the server's RSS before the learners came and at its peak (sampled every 0.1 s).
The soak run opens 200 learners one after another (each closes before the next) and prints the
server's RSS every 25 learners: a per-session leak would make it climb without bound.

All browsers and the server share this machine's 2 cores, so the numbers include Chromium's own
drawing of N pages. Asserts nothing.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.async_api import async_playwright

from bench.bench_browser import DRAWN
from tests.browser.server import CHROMIUM, CHROMIUM_ARGS, streamlit_server

ROUNDS = 3
SENTENCES = ["the cat sat on the mat", "the dog sat on the cat", "a cat and a dog sat", "the mat sat on a cat"]
TIMEOUT_MS = 120_000
SOAK = int(os.environ.get("SOAK", 200))
# LESSON=real_model: the same classroom on "A real model" (MiniLM, a real head at its softmax step)
LESSON = os.environ.get("LESSON", "walkthrough")
PATH, TABLE = {"walkthrough": ("/?step=7", "weights"),  # the walkthrough at the softmax: α heatmap and table
               "real_model": ("/real_model?rm_step=7", "rm-weights")}[LESSON]
# the α table is there and the page is drawn (script finished, every chart image loaded)
PAINTED = f"() => !!document.querySelector('.st-key-table-{TABLE} table') && ({DRAWN})()"
# the α table shows every label of the new sentence, and the page is drawn
UPDATED = f"""labels => {{
  const t = document.querySelector('.st-key-table-{TABLE} table');
  return !!t && labels.every(l => t.innerText.includes(l)) && ({DRAWN})();
}}"""


def rss_mb(pid: int) -> float:
    """Resident memory of a process, in MB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class PeakRss:
    """Samples a process's RSS every 0.1 s in a thread; ``peak`` is the largest seen."""

    def __init__(self, pid: int):
        self.pid, self.peak, self._stop = pid, rss_mb(pid), threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, rss_mb(self.pid))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def labels_of(sentence: str) -> list[str]:
    """The labels the α table will show: our tokens', or the real model's."""
    from attention import tokenize
    from viz.labels import token_labels

    if LESSON == "real_model":
        from attention.pretrained import load

        return token_labels(load("minilm").tokenize(sentence)[1])
    return token_labels(tokenize(sentence))


async def learner(browser, base: str, errors: dict[str, int]):
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("console", lambda m: errors.__setitem__("reconnects", errors["reconnects"] + 1)
            if "WebSocket onclose" in m.text else None)
    return context, page


async def open_walkthrough(page, base: str, errors: dict[str, int]) -> float:
    start = time.perf_counter()
    try:
        await page.goto(base + PATH)
        await page.wait_for_function(PAINTED)
    except Exception:
        errors["timeouts"] += 1
    return time.perf_counter() - start


async def type_and_wait(page, sentence: str, errors: dict[str, int]) -> float | None:
    """Seconds from Enter until the page shows ``sentence``; None (and a timeout counted) if the page
    could not even be typed into, or did not catch up, within TIMEOUT_MS."""
    box = page.locator(".st-key-sentence input")
    try:
        await box.fill(sentence)
        start = time.perf_counter()
        await box.press("Enter")
        await page.wait_for_function(UPDATED, arg=labels_of(sentence))
    except Exception:  # a timeout or a closed page is what this counts
        errors["timeouts"] += 1
        return None
    return time.perf_counter() - start


async def classroom(n: int) -> dict:
    errors = {"exceptions": 0, "timeouts": 0, "reconnects": 0}
    with streamlit_server() as base:
        pid = base.process.pid
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            learners = [await learner(browser, base, errors) for _ in range(n)]
            before = rss_mb(pid)
            with PeakRss(pid) as rss:
                start = time.perf_counter()
                await asyncio.gather(*(open_walkthrough(page, base, errors) for _, page in learners))
                first_paint_all = time.perf_counter() - start
                latencies: list[float] = []
                for r in range(ROUNDS):
                    sentence = SENTENCES[r % len(SENTENCES)]
                    done = await asyncio.gather(*(type_and_wait(page, sentence, errors) for _, page in learners))
                    latencies += [t for t in done if t is not None]
            for _, page in learners:
                errors["exceptions"] += await page.locator("[data-testid=stException]").count()
            await browser.close()
    return {"n": n, "first_paint_all": first_paint_all, "latencies": latencies, "errors": errors,
            "rss_before": before, "rss_peak": rss.peak}


async def soak(total: int) -> list[tuple[int, float]]:
    samples = []
    with streamlit_server() as base:
        pid = base.process.pid
        samples.append((0, rss_mb(pid)))
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            errors = {"exceptions": 0, "timeouts": 0, "reconnects": 0}
            for k in range(1, total + 1):
                context, page = await learner(browser, base, errors)
                await open_walkthrough(page, base, errors)
                await type_and_wait(page, SENTENCES[k % len(SENTENCES)], errors)
                await context.close()
                if k % 25 == 0:
                    samples.append((k, rss_mb(pid)))
            await browser.close()
    return samples


def percentile(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[int(q) - 1] if len(xs) > 1 else float("nan")


def main(sizes: list[int]) -> None:
    print(f"{'learners':>8} | {'first paint, all':>16} | {'p50 interaction':>15} | {'p95 interaction':>15} | "
          f"{'errors (exc/timeout/reconnect)':>30} | {'RSS before → peak':>18}")
    for n in sizes:
        r = asyncio.run(classroom(n))
        e = r["errors"]
        counts = f"{e['exceptions']}/{e['timeouts']}/{e['reconnects']}"
        print(f"{n:>8} | {r['first_paint_all']:>15.1f}s | {percentile(r['latencies'], 50):>14.2f}s | "
              f"{percentile(r['latencies'], 95):>14.2f}s | {counts:>30} | "
              f"{r['rss_before']:>6.0f} → {r['rss_peak']:.0f} MB", flush=True)
    samples = asyncio.run(soak(SOAK))
    print(f"soak ({LESSON}), {SOAK} learners one after another: server RSS "
          + ", ".join(f"{k}: {mb:.0f} MB" for k, mb in samples))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 30])
