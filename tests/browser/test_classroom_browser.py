"""Issue 5 in Chromium: a link round trip, presenter mode, a CSV download."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from playwright.sync_api import expect

from attention import trace_self_attention
from tests.browser.conftest import wait_for_full_size_charts, wait_for_whole_tables
from tests.browser.test_issue4_browser import eventually_close
from tests.browser.test_walkthrough_browser import (
    read_table,
    toggle_setting,
    type_sentence,
    wait_for_table,
    wait_for_ticks,
)
from viz import tables as T

pytestmark = pytest.mark.browser


def open_downloads(page) -> None:
    """Open the walkthrough's download panel (closed, it is not even built), unless it is open."""
    if page.locator(".st-key-export_csv").count() == 0:
        page.get_by_text("Downloads: the handout, CSV and JSON").click()
    page.wait_for_selector(".st-key-export_csv button")


def student_warnings(page) -> list[str]:
    return [t for t in page.locator("[data-testid=stAlert]").all_inner_texts() if "could not be used" in t]


def test_link_round_trip_reproduces_the_numbers(page, open_page, artifacts):
    # A teacher prepares a lesson…
    type_sentence(page, "the cat sat on the mat")
    wait_for_ticks(page, "weights", ["the (1)", "cat", "sat", "on", "the (5)", "mat"])
    page.locator(".st-key-seed input").fill("7")
    page.locator(".st-key-seed input").press("Enter")
    toggle_setting(page, "causal")
    engine = trace_self_attention("the cat sat on the mat", seed=7, causal=True)
    alpha_cells = T.formatted(T.query_key_frame(engine, engine.weights, weights=True)).values.tolist()
    # the page has drawn the seed and the mask before the query menu is touched: a rerun still under way
    # redraws the menu and drops the choice (on a busy machine the link then never got its query)
    wait_for_table(page, "weights", alpha_cells)  # drawn by the run with both settings, so this waits for its end:
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    box = page.locator(".st-key-query input")
    box.click()
    box.fill("3 · sat")
    page.get_by_role("option", name="3 · sat").wait_for()
    page.keyboard.press("Enter")
    page.wait_for_function("() => location.search.includes('query=') && location.search.includes('causal=true') "
                           "&& location.search.includes('seed=7')")
    assert not student_warnings(page)
    output_cells = T.formatted(T.token_by_dim_frame(engine, engine.output).iloc[[2]]).values.tolist()
    wait_for_table(page, "output-row", output_cells)
    _, alpha = read_table(page, "weights")
    _, output = read_table(page, "output-row")
    link = page.url
    page.get_by_role("button", name="Share this lesson").click()  # the link box opens on demand
    shown_link = page.locator("[data-testid=stCode]").inner_text()
    assert "seed=7" in shown_link and "causal=true" in shown_link  # the copy-link box has the settings
    # …and a student opens the link in a fresh browser.
    student = open_page(link.replace(page.url.split("/?")[0], ""), ".st-key-table-output-row table")
    wait_for_ticks(student, "weights", ["the (1)", "cat", "sat", "on", "the (5)", "mat"])
    assert not student_warnings(student)  # a genuine link raises no complaint
    eventually_close(student, "weights", alpha)  # the same shown numbers (2 decimals: within 0.005 is equal)
    eventually_close(student, "output-row", output)
    np.testing.assert_allclose(output[0], engine.output[2], atol=0.005 + 1e-9)  # query 3, from the engine


# The number tables of each walkthrough step, by their keys
STEP_TABLES = {1: ["tokens"], 2: ["x"], 3: ["w_q", "w_k", "w_v"], 4: ["q", "k", "v"], 5: ["scores"], 6: ["scaled"],
               7: ["weights"], 8: ["alpha-row", "weighted-sum", "output-row", "output"]}


# and their charts
STEP_CHARTS = {**STEP_TABLES, 8: ["alpha-row", "weighted-sum", "output"]}


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (1024, 768)])  # projectors, with the sidebar open
def test_presenter_mode_walks_every_step_and_survives_a_reload(open_page, artifacts, width, height):
    page = open_page("/?present=true", "h3:has-text('Step 1 of 8')", width=width, height=height)
    wait_for_whole_tables(page, STEP_TABLES[1])
    wait_for_full_size_charts(page, STEP_CHARTS[1])
    shots = width == 1280  # the README's screenshot is the 1280 × 720 one
    if shots:
        page.screenshot(path=artifacts / "presenter-step-1.png")
    for n in range(2, 9):
        page.get_by_role("button", name="Next").click()
        page.wait_for_selector(f"h3:has-text('Step {n} of 8')")
        expect(page.locator("h3:has-text('of 8')")).to_have_count(1)  # one step a screen
        # in large type every table still shows every column (a table beside its heatmap goes under
        # it), and every chart is drawn at its own size
        wait_for_whole_tables(page, STEP_TABLES[n])
        wait_for_full_size_charts(page, STEP_CHARTS[n])
    expect(page.get_by_role("button", name="Next")).to_be_disabled()
    expect(page.get_by_role("button", name="Previous")).to_be_enabled()
    if shots:
        page.screenshot(path=artifacts / "presenter-step-8.png")
    page.get_by_role("button", name="Previous").click()
    page.wait_for_selector("h3:has-text('Step 7 of 8')")
    page.wait_for_function("() => location.search.includes('step=7')")
    page.reload()
    page.wait_for_selector("h3:has-text('Step 7 of 8')")  # the step is in the link
    wait_for_whole_tables(page, STEP_TABLES[7])
    expect(page.get_by_role("button", name="Next")).to_be_enabled()  # the buttons fit the step after a reload
    wait_for_ticks(page, "weights", ["This", "forum", "is", "awesome"])
    if shots:
        page.screenshot(path=artifacts / "presenter-step-7.png")


def test_csv_download_parses_back_to_the_engine_matrix(page):
    open_downloads(page)
    page.locator(".st-key-export_csv").scroll_into_view_if_needed()
    with page.expect_download() as info:
        page.locator(".st-key-export_csv button").click()
    text = open(info.value.path(), encoding="utf-8").read()
    frame = pd.read_csv(io.StringIO(text), index_col=0)
    engine = trace_self_attention("This forum is awesome", seed=42)
    assert list(frame.index) == list(frame.columns) == ["This", "forum", "is", "awesome"]
    np.testing.assert_array_equal(frame.to_numpy(), engine.weights)
