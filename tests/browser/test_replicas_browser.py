"""More learners than one server: two `streamlit run` replicas behind deploy/'s nginx config.

Streamlit keeps a learner's session in the replica that holds its websocket, so each browser must
stick to one replica; when that replica dies, the page must come back on another one with the same
lesson, rebuilt from its link. Runs Debian's nginx on loopback (no Docker daemon here).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from attention import trace_self_attention
from tests.browser.conftest import TIMEOUT_MS
from tests.browser.server import nginx_in_front, streamlit_server
from tests.browser.test_classroom_browser import open_downloads
from tests.browser.test_walkthrough_browser import (
    nudge_d_k,
    toggle_setting,
    type_sentence,
    wait_for_table,
    wait_for_ticks,
)
from viz import tables as T

pytestmark = pytest.mark.browser
REPLICA = "x-attention-lab-replica"  # the header deploy/nginx/attention-lab.conf adds: who answered


@pytest.fixture(scope="module")
def replicas(artifacts):
    with streamlit_server() as a, streamlit_server() as b, nginx_in_front([a, b]) as front:
        yield front, {a.removeprefix("http://"): a, b.removeprefix("http://"): b}


def open_learner(browser, front: str):
    """A new learner's browser through nginx, and the replica its route cookie leads to."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    page.goto(front + "/?step=7")  # the softmax step: the α heatmap and its table
    page.wait_for_selector(".st-key-table-weights table")
    return context, page, replica_of(page, front)


def replica_of(page, front: str) -> str:
    """Which replica answers this browser now (a fresh request with its cookies, never the cache)."""
    return page.request.get(front + "/_stcore/health").headers[REPLICA]


def download_weights(page) -> pd.DataFrame:
    """The α CSV: Streamlit serves it from the memory of the replica that holds the session, so
    it arrives only if this browser's request reaches that replica."""
    open_downloads(page)
    page.locator(".st-key-export_csv").scroll_into_view_if_needed()
    with page.expect_download() as info:
        page.locator(".st-key-export_csv button").click()
    return pd.read_csv(info.value.path(), index_col=0)


def test_learners_stick_to_a_replica_and_survive_its_death(browser, replicas, artifacts):
    front, servers = replicas
    learners = []
    # learners are spread over both replicas (route ids are random: at most 20 tries, 2^-19 to fail)
    while len({home for _, _, home in learners}) < 2 and len(learners) < 20:
        learners.append(open_learner(browser, front))
    homes = {home for _, _, home in learners}
    assert homes == set(servers)
    default = trace_self_attention("This forum is awesome", seed=42).weights
    for _, page, home in learners:
        assert {replica_of(page, front) for _ in range(5)} == {home}  # every request, one replica
    for home in homes:  # the session's own files come back: the browser reached its session's replica
        page = next(p for _, p, h in learners if h == home)
        np.testing.assert_array_equal(download_weights(page).to_numpy(), default)

    # a learner prepares a lesson…
    _, page, home = learners[0]
    type_sentence(page, "the cat sat on the mat")
    page.locator(".st-key-seed input").fill("7")
    page.locator(".st-key-seed input").press("Enter")
    toggle_setting(page, "causal")
    page.wait_for_function("() => location.search.includes('seed=7') && location.search.includes('causal=true')"
                           " && location.search.includes('the+cat')")
    engine = trace_self_attention("the cat sat on the mat", seed=7, causal=True)
    alpha = T.formatted(T.query_key_frame(engine, engine.weights, weights=True)).values.tolist()
    wait_for_table(page, "weights", alpha)

    # …and its replica dies mid-lesson
    victim = servers[home].process
    victim.kill()
    victim.wait(timeout=10)
    status = page.locator("[data-testid=stStatusWidget]")
    status.wait_for()  # the learner is told the connection dropped
    page.screenshot(path=artifacts / "replica-failover-connecting.png")
    # the page reconnects through nginx to the other replica…
    expect(status).to_be_hidden()
    assert replica_of(page, front) != home
    # nothing lost
    expect(page.locator(".st-key-sentence input")).to_have_value("the cat sat on the mat", timeout=TIMEOUT_MS)
    expect(page.locator(".st-key-seed input")).to_have_value("7", timeout=TIMEOUT_MS)
    # …which now runs the lesson: the learner's next change is computed there, on the same sentence,
    # seed and mask (the page still showed the old numbers while it reconnected, so change something)
    nudge_d_k(page)
    page.wait_for_function("() => location.search.includes('d_k=5')")
    engine = trace_self_attention("the cat sat on the mat", seed=7, causal=True, d_k=5)
    new_alpha = T.formatted(T.query_key_frame(engine, engine.weights, weights=True)).values.tolist()
    wait_for_table(page, "weights", new_alpha)
    wait_for_ticks(page, "weights", ["the (1)", "cat", "sat", "on", "the (5)", "mat"])
    assert page.locator("[data-testid=stException]").count() == 0
    np.testing.assert_array_equal(download_weights(page).to_numpy(), engine.weights)  # the new replica holds it
    page.screenshot(path=artifacts / "replica-failover-after.png")
    for context, _, _ in learners:
        context.close()
