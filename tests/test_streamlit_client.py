"""The browser-less learner of the benchmarks (bench/streamlit_client.py) against a real server: its
messages are a real Chromium page's, and its edits give the page's own answer; and the real-model
page's memory stays bounded while learners type new sentences (the leak of issue 26)."""

from __future__ import annotations

import asyncio
import json
import statistics
from concurrent.futures import ThreadPoolExecutor

import pytest

from bench.soak import rss_mb, sentence
from bench.streamlit_client import Learner, calibrate, template_from
from tests.browser.server import streamlit_server

pytestmark = pytest.mark.browser


def in_a_thread(fn, *args):
    """Run ``fn`` in a thread of its own: the browser tests' Playwright keeps an event loop in this one,
    and neither asyncio.run nor Playwright's sync API may start inside a running loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


@pytest.fixture(scope="module")
def base():
    with streamlit_server() as url:
        yield url


def test_the_client_edits_as_a_chromium_page_does_and_gets_the_new_sentence(base):
    chromium = in_a_thread(calibrate, base, "/", ".st-key-table-tokens table")
    ids = [w.id for w in chromium.rerun_script.widget_states.widgets]
    assert any(i.endswith("-sentence") for i in ids) and chromium.rerun_script.page_script_hash

    async def run():
        learner = Learner(base, "/")
        opened = await learner.open()
        built = template_from(opened, base, "/")
        assert [w.id for w in built.rerun_script.widget_states.widgets] == [i for i in ids if i.endswith("-sentence")]
        assert built.rerun_script.page_script_hash == chromium.rerun_script.page_script_hash
        answers = [await learner.edit(template, text)
                   for template, text in ((chromium, "a red fox ran"), (built, "the old owl sat"))]
        await learner.close()
        return opened, answers

    opened, answers = in_a_thread(asyncio.run, run())
    assert not opened.exception and opened.finished == 0
    for answer, text in zip(answers, ("a red fox ran", "the old owl sat"), strict=True):
        views = [json.loads(t) for t in answer.markdown() if t.startswith("{")]
        tokens = next(p for v in views for p in v.get("panels", []) if p["id"] == "tokens")  # (the map has none)
        assert [row[1] for row in tokens["values"]] == text.split() and not answer.exception


def test_new_sentences_on_the_real_model_do_not_grow_the_servers_memory(base):
    """5 learners type 100 new sentences on "A real model" (MiniLM). On 0dd9ac2 each new sentence kept
    ~2.6 MB (+156 MB between the 20–45th and the 75–100th). Now the memory is a plateau once the caches are
    warm: the RSS's median over the last six samples is within 50 MB of its median over six samples after
    warm-up (medians: one sample taken while five runs hold their arrays, or before Python's own collection
    ran, once read 40 MB above its neighbours on a busy machine). Not timed."""

    async def run():
        learners = [Learner(base, "/real_model") for _ in range(5)]
        opened = [await learner.open() for learner in learners]
        template = template_from(opened[0], base, "/real_model")
        rss, done = {}, 0
        while done < 100:
            texts = [sentence(1000 + done + k) for k in range(5)]
            answers = await asyncio.gather(*(lr.edit(template, t) for lr, t in zip(learners, texts, strict=True)))
            assert not any(a.exception for a in answers)
            done += 5
            rss[done] = rss_mb(base.process.pid)
        for learner in learners:
            await learner.close()
        return rss

    rss = in_a_thread(asyncio.run, run())
    warm = statistics.median(rss[n] for n in range(20, 50, 5))
    last = statistics.median(rss[n] for n in range(75, 105, 5))
    assert last - warm < 50, rss
