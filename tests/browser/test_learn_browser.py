"""Watch a head learn, in Debian's Chromium against `streamlit run`: train, move through time, share."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from attention.training import TrainingConfig, head_trace, train
from tests.browser.conftest import TAKEN_UP, param
from tests.browser.test_lessons_browser import full_screenshot
from tests.browser.test_walkthrough_browser import wait_for_chart, wait_for_table
from viz.labels import MASKED_TEXT, format_number

pytestmark = pytest.mark.browser


def alpha_cells(config: TrainingConfig, snapshot: int, example: int = 0, head: int = 0) -> list[list[str]]:
    """The α table's cells as the page must show them: the engine's run, two decimals, "—" where masked."""
    trace = head_trace(train(config), snapshot, example, head)
    return [[format_number(a) if ok else MASKED_TEXT for a, ok in zip(row, allowed, strict=True)]
            for row, allowed in zip(trace.weights, trace.mask, strict=True)]


def test_train_then_watch_it_learn_and_share(open_page, artifacts):
    # 200 steps: a run no other test trains. A finished run is kept for every learner on the server, but a page
    # shows it only once its learner has pressed Train (or opened a link that trains), at step 0 (issue 47)
    page = open_page("/learn?lt_steps=200", ".st-key-lt_train button")
    page.locator(".st-key-lt_train button").click()
    trained = TrainingConfig(steps=200)  # the page's defaults but the steps
    wait_for_table(page, "lt-alpha", alpha_cells(trained, 0))  # step 0: before training, to watch it learn
    wait_for_chart(page, "lt-loss", "title", ["Loss (lower is better)"])
    wait_for_chart(page, "lt-accuracy", "title", ["Held-out accuracy"])
    page.locator(".st-key-lt_train").wait_for(state="hidden")  # the button makes way for the run
    param(page, "lt_run", "true")
    # the charts' numbers, a saved step a row; step 0 has no training batch, and its empty cell says so, not that a
    # causal mask hid it (as every empty cell's tooltip did)
    page.get_by_text("The numbers of the two charts").click()
    first = page.locator(".st-key-table-lt-curves td").first
    expect(first).to_have_text("—")
    first.hover()
    expect(page.locator(".alv-tip:not([hidden])")).to_contain_text("no training batch yet")
    expect(page.locator(".alv-tip:not([hidden])")).not_to_contain_text("causal")

    page.locator(".st-key-lt_step input").focus()  # the slider's thumb takes Home / End and arrows
    page.keyboard.press("End")
    wait_for_table(page, "lt-alpha", alpha_cells(trained, -1))  # at the end of training
    page.keyboard.press("Home")
    wait_for_table(page, "lt-alpha", alpha_cells(trained, 0))
    page.wait_for_function("() => new URLSearchParams(location.search).get('lt_step') === '0'")
    # Next saved step, by its accessible name: while a rerun draws the step, Streamlit can hold a second, stale copy
    # of the button under the same key (seen beside a second test run), which has none
    page.locator(".st-key-lt_next").get_by_role("button", name="Next saved step").click()
    wait_for_table(page, "lt-alpha", alpha_cells(trained, 1))  # the next saved step
    page.wait_for_function(  # in the link too: a saved step after step 0
        "() => !['0', null].includes(new URLSearchParams(location.search).get('lt_step'))")
    link = urlsplit(page.url)
    shared = open_page(f"{link.path}?{link.query}", ".st-key-table-lt-alpha table")
    wait_for_table(shared, "lt-alpha", alpha_cells(trained, 1))  # the same run, at the same step
    assert shared.locator("[data-testid=stAlertContentSuccess]").count() == 1


def test_another_task_and_head_from_a_link_with_a_screenshot(open_page, artifacts):
    config = TrainingConfig(task="first", heads=2)
    page = open_page("/learn?lt_run=true&lt_task=Find+the+first+occurrence&lt_heads=2&lt_example=2",
                     ".st-key-table-lt-alpha table")
    wait_for_table(page, "lt-alpha", alpha_cells(config, 0, example=1))  # it opens before training (issue 47)
    page.locator(".st-key-lt_step input").focus()
    page.keyboard.press("End")  # the trained head
    wait_for_table(page, "lt-alpha", alpha_cells(config, -1, example=1))
    page.locator(".st-key-lt_head [role=radiogroup] label").nth(1).click()  # head 2
    wait_for_table(page, "lt-alpha", alpha_cells(config, -1, example=1, head=1))
    page.wait_for_function("() => new URLSearchParams(location.search).get('lt_head') === '2'")  # in the link
    wait_for_chart(page, "lt-letters", "xtick", ["a", "b", "c", "d"])
    wait_for_chart(page, "lt-form", "title", ["W_Q·W_Kᵀ/√d_k  [12 × 12]"])
    full_screenshot(page, artifacts / "learn-full.png")
    page.set_viewport_size({"width": 1400, "height": 1600})  # the README's: the curves, then α
    page.locator(".st-key-lt_step").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('.st-key-lt_step').scrollIntoView()")
    wait_for_table(page, "lt-alpha", alpha_cells(config, -1, example=1, head=1))
    page.screenshot(path=artifacts / "learn-alpha.png")


def test_training_shows_its_progress_and_cancel_stops_it(open_page):
    """Training runs beside the page (ui/background.py, issue 35): a progress bar with the share of the steps
    trained, and Cancel. After Cancel the page says so, offers Train again, and the link no longer trains; the job
    has stopped: the next training is taken up by the server's one worker at once ("of the work done", not
    "waiting for another long computation"). 2000 steps at seed 77: a run no other test trains (~3.5 s quiet)."""
    page = open_page("/learn?lt_steps=2000&seed=77", ".st-key-lt_train button")
    progress = page.locator("[data-testid=stProgress]")
    for _ in range(2):
        page.locator(".st-key-lt_train button").click()
        expect(progress).to_contain_text(TAKEN_UP)
        page.locator(".st-key-lt_cancel button").click()
        expect(page.get_by_text("Training cancelled.")).to_be_visible()
        expect(progress).to_have_count(0)
        expect(page.locator(".st-key-lt_train button")).to_be_visible()
        expect(page.locator(".st-key-table-lt-alpha")).to_have_count(0)
        page.wait_for_function("() => new URLSearchParams(location.search).get('lt_run') !== 'true'")
