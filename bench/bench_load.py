"""Load benchmark: a classroom of learners on one `streamlit run` server, in real Chromium pages.

    python bench/bench_load.py [N ...]          (default: 10 30), then a soak of 200 learners
    LESSON=softmax SOAK=0 python bench/bench_load.py 10 30      the walkthrough opened at step 7
    LESSON=real_model SOAK=100 python bench/bench_load.py 10    the same on "A real model" (MiniLM)
    LESSON=bare SOAK=0 python bench/bench_load.py 10 30         the floor: the bare page, same machine

For each N, N learners (each a fresh browser context, so its own Streamlit session) open the
walkthrough (or LESSON, below) at the same moment; then, ROUNDS times, all of them type a new
sentence at the same moment. It prints:
- first paint for all N: from the first navigation until the last page has drawn (its table there,
  the script finished, every chart image loaded; noticed within POLLING ms);
- interaction latency, p50 and p95 over every learner and round: from pressing Enter until the
  frame after that learner's page shows the new sentence in its table with every chart loaded,
  timed by the page's own clock (so the benchmark's asking does not round it, see WATCH);
- the server's answer, p50 and p95: from the rerun request leaving the browser until the server's
  "script finished" arriving (the server's share of the interaction, what a class whose laptops
  draw their own pages would wait for before drawing);
- errors: pages showing an exception, waits that timed out, websocket reconnects;
- the server's RSS before the learners came and at its peak (sampled every 0.1 s);
- the CPU-seconds the server, Chromium and the benchmark itself used during the typing rounds, so
  that one can see whose work the latency is.
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
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.bench_browser import BARE, DRAWN
from tests.browser.server import launch_chromium, streamlit_server

ROUNDS = 3
SENTENCES = ["the cat sat on the mat", "the dog sat on the cat", "a cat and a dog sat", "the mat sat on a cat"]
TIMEOUT_MS = 120_000
# How often the benchmark asks each page whether it has caught up, in ms. Each ask is a DevTools
# round trip through Chromium's browser process: Playwright's default, every animation frame, cost
# Chromium about a fifth of its CPU with 30 pages (56.5 against 46.9 CPU-seconds for 3 rounds of 30),
# and every 100 ms still a tenth (28.7 against 25.8 at every 1,000 ms). The interaction latency is
# timed inside the page (see WATCH), so this only decides how soon the benchmark notices.
POLLING = os.environ.get("POLLING", "500")
POLLING = POLLING if POLLING == "raf" else float(POLLING)
SOAK = int(os.environ.get("SOAK", 200))
# LESSON picks the page the class opens and the table whose labels show that a page caught up:
# walkthrough: as it opens (step 1, the tokens table); softmax: the walkthrough at step 7 (the α
# heatmap and table); real_model: "A real model" (MiniLM, a real head at its softmax step);
# bare: the bare page (bench/bare_app.py: one text box and one st.write), the floor that N Chromium
# pages and one Streamlit server reach on this machine whatever the lesson draws.
LESSON = os.environ.get("LESSON", "walkthrough")
SCRIPT, PATH, TABLE = {"walkthrough": ("app.py", "/", "tokens"),
                       "softmax": ("app.py", "/?step=7", "weights"),
                       "real_model": ("app.py", "/real_model?rm_step=7", "rm-weights"),
                       "bare": ("bench/bare_app.py", "/", None)}[LESSON]
if TABLE is None:
    PAINTED = f"() => ({BARE.ready})() && ({DRAWN})()"
    # textContent, not innerText: it is checked on every change of the page, and innerText lays it out
    UPDATED = f"labels => document.body.textContent.includes('You typed: ' + labels.join(' ')) && ({DRAWN})()"
else:
    # the table is there and the page is drawn (script finished, every chart image loaded)
    PAINTED = f"() => !!document.querySelector('.st-key-table-{TABLE} table') && ({DRAWN})()"
    # the table shows every label of the new sentence, and the page is drawn
    UPDATED = f"""labels => {{
  const t = document.querySelector('.st-key-table-{TABLE} table');
  return !!t && labels.every(l => t.textContent.includes(l)) && ({DRAWN})();
}}"""
# Installed in a page before each round: from the Enter key going down until the first animation
# frame after the page caught up (UPDATED, checked on every change of the page, every image load and
# font load), timed with the page's own clock; the result lands in window.__answered for round ``id``.
WATCH = f"""([labels, id]) => {{
  const caughtUp = {UPDATED};
  let start = null;
  const enter = e => {{ if (e.key === 'Enter' && start === null) start = performance.now(); }};
  const check = () => {{
    if (start === null || !caughtUp(labels)) return;
    observer.disconnect();  // this round's watch ends here: nothing of it stays for the next round
    window.removeEventListener('keydown', enter, true);
    document.removeEventListener('load', check, true);
    document.fonts.removeEventListener('loadingdone', check);
    requestAnimationFrame(() => {{ window.__answered = {{id, seconds: (performance.now() - start) / 1000}}; }});
  }};
  const observer = new MutationObserver(check);
  observer.observe(document.documentElement, {{subtree: true, childList: true, attributes: true, characterData: true}});
  window.addEventListener('keydown', enter, true);
  document.addEventListener('load', check, true);
  document.fonts.addEventListener('loadingdone', check);
}}"""


def cpu_seconds() -> dict[str, float]:
    """CPU time (user + system) so far of the live processes, grouped: the Streamlit server (python
    running streamlit), Chromium (all its processes), and the rest of this benchmark (Playwright's
    driver and this Python). Read from /proc; processes that have exited are not counted."""
    tick = os.sysconf("SC_CLK_TCK")
    groups = {"server": 0.0, "chromium": 0.0, "benchmark": 0.0}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
        if "streamlit run" in cmdline:
            groups["server"] += seconds
        elif "chrom" in cmdline.split(" ", 1)[0]:
            groups["chromium"] += seconds
        elif "playwright" in cmdline or proc.name == str(os.getpid()):
            groups["benchmark"] += seconds
    return groups


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
    """What the table will show: the sentence (bare page), our tokens (step 1's table), their labels
    (an α table), or the real model's token labels."""
    from attention import tokenize
    from viz.labels import token_labels

    if LESSON == "bare":
        return [sentence]
    if LESSON == "walkthrough":
        return tokenize(sentence)
    if LESSON == "real_model":
        from attention.pretrained import load

        return token_labels(load("minilm").tokenize(sentence)[1])
    return token_labels(tokenize(sentence))


class Wire:
    """When a page's websocket carried a rerun request out (BackMsg rerun_script) and the server's
    "script finished" back (ForwardMsg script_finished): the server's share of an interaction, as
    the browser's network layer saw it, apart from the time the page then takes to draw."""

    def __init__(self, page):
        self.sent: list[float] = []
        self.finished: list[float] = []
        page.on("websocket", lambda ws: (
            ws.on("framesent", lambda data: self._note(data, BackMsg, "rerun_script", self.sent)),
            ws.on("framereceived", lambda data: self._note(data, ForwardMsg, "script_finished", self.finished))))

    @staticmethod
    def _note(data: bytes | str, message_type, kind: str, times: list[float]) -> None:
        """Append the time now to ``times`` if the frame ``data`` is a ``message_type`` of ``kind``."""
        if isinstance(data, bytes):
            msg = message_type()
            msg.ParseFromString(data)
            if msg.WhichOneof("type") == kind:
                times.append(time.perf_counter())

    def answer_after(self, start: float) -> float | None:
        """Seconds from the first rerun request sent after ``start`` to the next "script finished"."""
        sent = next((t for t in self.sent if t >= start), None)
        if sent is None:
            return None
        done = next((t for t in self.finished if t >= sent), None)
        return None if done is None else done - sent


async def learner(browser, base: str, errors: dict[str, int]):
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("console", lambda m: errors.__setitem__("reconnects", errors["reconnects"] + 1)
            if "WebSocket onclose" in m.text else None)
    page.wire = Wire(page)
    return context, page


async def open_walkthrough(page, base: str, errors: dict[str, int]) -> float:
    start = time.perf_counter()
    try:
        await page.goto(base + PATH)
        await page.wait_for_function(PAINTED, polling=POLLING)
    except Exception:
        errors["timeouts"] += 1
    return time.perf_counter() - start


async def type_and_wait(page, sentence: str, errors: dict[str, int]) -> tuple[float, float | None] | None:
    """Seconds from Enter until the page shows ``sentence`` and is drawn (timed in the page, see
    WATCH), and the server's answer time within it (see Wire); None (and a timeout counted) if the
    page could not even be typed into, or did not catch up, within TIMEOUT_MS."""
    box = page.locator(".st-key-sentence input")
    round_id = f"{sentence} {time.perf_counter()}"
    try:
        await box.fill(sentence)
        await page.evaluate(WATCH, [labels_of(sentence), round_id])
        start = time.perf_counter()
        await box.press("Enter")
        answered = await page.wait_for_function("id => window.__answered?.id === id && window.__answered.seconds",
                                                arg=round_id, polling=POLLING)
        seconds = await answered.json_value()
    except Exception:  # a timeout or a closed page is what this counts
        errors["timeouts"] += 1
        return None
    return seconds, page.wire.answer_after(start)


async def classroom(n: int) -> dict:
    errors = {"exceptions": 0, "timeouts": 0, "reconnects": 0}
    with streamlit_server(SCRIPT) as base:
        pid = base.process.pid
        async with async_playwright() as p:
            browser = await launch_chromium(p)
            learners = [await learner(browser, base, errors) for _ in range(n)]
            before = rss_mb(pid)
            with PeakRss(pid) as rss:
                start = time.perf_counter()
                await asyncio.gather(*(open_walkthrough(page, base, errors) for _, page in learners))
                first_paint_all = time.perf_counter() - start
                latencies: list[float] = []
                answers: list[float] = []
                cpu_before = cpu_seconds()
                rounds_start = time.perf_counter()
                for r in range(ROUNDS):
                    sentence = SENTENCES[r % len(SENTENCES)]
                    done = await asyncio.gather(*(type_and_wait(page, sentence, errors) for _, page in learners))
                    latencies += [t[0] for t in done if t is not None]
                    answers += [t[1] for t in done if t is not None and t[1] is not None]
                cpu = {k: v - cpu_before[k] for k, v in cpu_seconds().items()}
                print(f"  {n} learners, {ROUNDS} rounds in {time.perf_counter() - rounds_start:.1f} s; CPU s: "
                      + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()), flush=True)
            for _, page in learners:
                errors["exceptions"] += await page.locator("[data-testid=stException]").count()
            await browser.close()
    return {"n": n, "first_paint_all": first_paint_all, "latencies": latencies, "answers": answers, "errors": errors,
            "rss_before": before, "rss_peak": rss.peak}


async def soak(total: int) -> list[tuple[int, float]]:
    samples = []
    with streamlit_server(SCRIPT) as base:
        pid = base.process.pid
        samples.append((0, rss_mb(pid)))
        async with async_playwright() as p:
            browser = await launch_chromium(p)
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
          f"{'p50 / p95 server answer':>23} | {'errors (exc/timeout/reconnect)':>30} | {'RSS before → peak':>18}")
    for n in sizes:
        r = asyncio.run(classroom(n))
        e = r["errors"]
        counts = f"{e['exceptions']}/{e['timeouts']}/{e['reconnects']}"
        print(f"{n:>8} | {r['first_paint_all']:>15.1f}s | {percentile(r['latencies'], 50):>14.2f}s | "
              f"{percentile(r['latencies'], 95):>14.2f}s | "
              f"{percentile(r['answers'], 50):>11.2f}s / {percentile(r['answers'], 95):.2f}s | {counts:>30} | "
              f"{r['rss_before']:>6.0f} → {r['rss_peak']:.0f} MB", flush=True)
    samples = asyncio.run(soak(SOAK))
    print(f"soak ({LESSON}), {SOAK} learners one after another: server RSS "
          + ", ".join(f"{k}: {mb:.0f} MB" for k, mb in samples))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10, 30])
