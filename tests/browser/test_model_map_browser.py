"""The model map and the bridge between random and trained heads (issue 36), in Debian's Chromium against
`streamlit run`: the map is under the open step of the walkthrough, the multi-head page and a real model, marks the
open step, and a click (or Enter) on each step's part opens that step; the bridge opens the same sentence and step
in a trained model, on the head the measure picks, and comes back."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attention.focus import most_informative_head
from attention.pretrained import load
from tests.browser.conftest import TIMEOUT_MS, param

pytestmark = pytest.mark.browser


def here(page, key: str) -> str | None:
    return page.locator(f".st-key-map-{key} [aria-current=step]").get_attribute("data-step")


def test_each_part_of_the_walkthroughs_map_opens_its_step(open_page):
    page = open_page("/", ".st-key-map-walkthrough nav")
    assert here(page, "walkthrough") == "1"
    expect(page.locator(".st-key-map-walkthrough .alm-faded")).to_have_count(0)  # folded until asked for (issue 47)
    page.locator(".st-key-map-walkthrough .alm-title").click()
    expect(page.locator(".st-key-map-walkthrough .alm-faded")).to_contain_text("What a full model adds")
    for step in range(2, 9):
        page.locator(f".st-key-map-walkthrough button[data-step='{step}']").click()
        expect(page.locator(f"#step-{step}")).to_be_visible()
        param(page, "step", str(step))
        expect(page.locator(f".st-key-map-walkthrough button[data-step='{step}']")).to_have_attribute(
            "aria-current", "step")
        expect(page.locator(f"#step-{step}")).to_be_focused()  # arrival: the heading, at the top, with the focus
        assert page.evaluate(f"document.getElementById('step-{step}').getBoundingClientRect().top") < 200
    page.locator(".st-key-map-walkthrough button[data-step='8']").focus()  # the open step's part: the map's Tab stop
    expect(page.locator(".st-key-map-walkthrough button[tabindex='0']")).to_have_count(1)
    for _ in range(5):  # the arrow keys move between the parts: 8 → 3
        page.keyboard.press("ArrowLeft")
    expect(page.locator(".st-key-map-walkthrough button[data-step='3']")).to_be_focused()
    page.keyboard.press("Enter")
    param(page, "step", "3")
    expect(page.locator("#step-3")).to_be_visible()


def test_the_multi_head_and_real_model_maps_open_their_steps(open_page):
    page = open_page("/multihead", ".st-key-map-multihead nav")
    assert here(page, "multihead") == "3"
    assert page.locator(".st-key-map-multihead button[data-step='1']").count() == 0  # the menu has steps 3–8
    page.locator(".st-key-map-multihead button[data-step='7']").click()
    param(page, "head_step", "7")
    expect(page.locator("#head-step-7")).to_be_visible()

    page = open_page("/real_model", ".st-key-map-real nav")
    expect(page.locator(".st-key-map-real nav")).to_contain_text("Layer 1 of 6, head 1 of 12")
    page.locator(".st-key-map-real button[data-step='7']").click()
    param(page, "rm_step", "7")
    expect(page.locator("#rm-step-7")).to_be_visible()
    assert here(page, "real") == "7"


def test_the_bridge_opens_the_same_sentence_and_step_in_a_trained_model_and_comes_back(open_page):
    sentence = "The cat sat on the mat because it was tired"
    page = open_page(f"/?step=7&sentence={sentence.replace(' ', '+')}", ".st-key-bridge_minilm button")
    page.locator(".st-key-bridge_minilm button").click()
    tokens, weights = load("minilm").attentions(sentence)
    n = len(tokens)
    best = most_informative_head(weights, np.ones((n, n), dtype=bool), [0, n - 1])
    page.wait_for_url("**/real_model?**", timeout=TIMEOUT_MS)
    param(page, "rm_step", "7")
    param(page, "rm_layer", str(best.layer + 1), default="1")
    param(page, "rm_head", str(best.head + 1), default="1")
    expect(page.get_by_text("From the walkthrough to MiniLM", exact=False)).to_be_visible()
    expect(page.locator(".st-key-sentence input")).to_have_value(sentence, timeout=TIMEOUT_MS)
    page.locator(".st-key-bridge_random button").click()
    page.wait_for_url(lambda url: "/real_model" not in url, timeout=TIMEOUT_MS)
    param(page, "step", "7")
    expect(page.get_by_text("From MiniLM to the walkthrough", exact=False)).to_be_visible()
    expect(page.locator("#step-7")).to_be_visible()


@pytest.mark.parametrize(("path", "key", "step"), [("/scaling", "scaling", 6), ("/phonebook", "phonebook", 5),
                                                   ("/relevance", "relevance", 3), ("/parts?stage=2", "parts", 8),
                                                   ("/cross", "cross", 4)])
def test_a_lessons_map_marks_its_topic_and_a_part_opens_that_step_in_the_walkthrough(open_page, path, key, step):
    page = open_page(f"{path}{'&' if '?' in path else '?'}sentence=one+two+three", f".st-key-map-{key} nav")
    expect(page.locator(f".st-key-map-{key} [aria-current=location]")).not_to_have_count(0)
    expect(page.locator(f".st-key-map-{key} [aria-current=step]")).to_have_count(0)  # no step is open here
    part = page.locator(f".st-key-map-{key} button[data-step='{step}']").first
    expect(part).to_have_attribute("title", f"Open step {step} in the walkthrough")
    part.click()
    expect(page.locator(f".st-key-map-walkthrough button[data-step='{step}']")).to_have_attribute(
        "aria-current", "step")
    param(page, "step", str(step), default="1")
    expect(page.locator(f"#step-{step}")).to_be_focused()  # arrival: the step's heading, with the focus
    expect(page.locator(".st-key-sentence input")).to_have_value("one two three")  # the same sentence


def test_the_learn_and_generate_maps_open_their_own_pages_steps(open_page):
    page = open_page("/learn?lt_run=true&seed=916", ".st-key-map-learn nav")  # a run no other test has
    assert here(page, "learn") == "7"  # α, the page's chart, until the panel opens on a step
    page.locator(".st-key-map-learn button[data-step='5']").click()
    expect(page.locator("#lt-head-step-5")).to_be_focused()
    assert here(page, "learn") == "5"
    page = open_page("/generate?gen_count=3", ".st-key-map-generate nav")
    assert page.locator(".st-key-map-generate button[data-step='3']").count() == 0  # the page draws 2 and 4 on
    page.locator(".st-key-map-generate button[data-step='8']").click()
    expect(page.locator("#gen-step-8")).to_be_focused()
    expect(page.locator(".st-key-map-generate nav")).to_contain_text("Where this is in SmolLM2")


def test_the_bridge_from_all_steps_on_one_page_comes_back_to_that_steps_heading(open_page):
    page = open_page("/?all_steps=true", ".st-key-bridge_minilm button")
    page.locator(".st-key-bridge_minilm button").click()
    page.wait_for_url("**/real_model?**", timeout=TIMEOUT_MS)
    page.locator(".st-key-bridge_random button").click()
    page.wait_for_url(lambda url: "/real_model" not in url, timeout=TIMEOUT_MS)
    param(page, "step", "7")
    expect(page.locator("#step-7")).to_be_focused()  # one step, its heading at the top, not the long page's scroll
    assert page.evaluate("document.getElementById('step-7').getBoundingClientRect().top") < 200
    expect(page.locator(".st-key-all_steps input")).not_to_be_checked()
