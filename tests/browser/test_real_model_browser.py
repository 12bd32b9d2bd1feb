"""A real model, in Debian's Chromium against `streamlit run`: the model's tokens, every head, one head
large and step by step, a gallery head one click away."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from attention.pretrained import load
from attention.pretrained.gallery import GALLERY, induction, induction_sentence
from tests.browser.conftest import TAKEN_UP, TIMEOUT_MS
from tests.browser.test_lessons_browser import full_screenshot
from tests.browser.test_walkthrough_browser import type_sentence, wait_for_chart, wait_for_table, wait_for_ticks
from viz.labels import format_number

pytestmark = pytest.mark.browser


def alpha_cells(weights) -> list[list[str]]:
    return [[format_number(a) for a in row] for row in weights]


def test_the_pronoun_head_from_the_gallery_with_screenshots(open_page, artifacts):
    page = open_page("/real_model", ".st-key-table-rm-head table")
    model = load("minilm")
    tokens, weights = model.attentions("This forum is awesome")
    wait_for_ticks(page, "rm-head", tokens)  # the model's own tokens label the head's axes
    wait_for_table(page, "rm-head", alpha_cells(weights[0, 0]))
    wait_for_chart(page, "rm-model-view", "ytick", [str(i) for i in range(1, 7)])  # the layers

    entry = next(k for k, g in enumerate(GALLERY) if (g.layer, g.head) == (5, 11))
    page.locator(f".st-key-rm_gallery_{entry} button").click()
    tokens, weights = model.attentions(GALLERY[entry].sentence)
    wait_for_table(page, "rm-head", alpha_cells(weights[5, 11]))
    expect(page.locator(".st-key-sentence input")).to_have_value(GALLERY[entry].sentence, timeout=TIMEOUT_MS)
    page.wait_for_function("() => location.search.includes('rm_layer=6') && location.search.includes('rm_head=12')")
    full_screenshot(page, artifacts / "real-model-full.png")
    page.set_viewport_size({"width": 1400, "height": 1500})
    page.locator("h3:has-text('Every head at once')").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('h3').scrollIntoView()")
    page.screenshot(path=artifacts / "real-model.png")


def test_a_sentence_the_model_cannot_take_keeps_the_page(open_page):
    page = open_page("/real_model", ".st-key-table-rm-head table")
    type_sentence(page, "word " * 150)
    page.get_by_text("at most 128 can be shown").wait_for()
    expect(page.locator(".st-key-sentence input")).to_have_value("word " * 150, timeout=TIMEOUT_MS)
    _, weights = load("minilm").attentions("This forum is awesome")
    wait_for_table(page, "rm-head", alpha_cells(weights[0, 0]))  # the last sentence that worked


def masked_cells(weights) -> list[list[str]]:
    """A decoder's α as its table shows it: the keys after the query are "—"."""
    return [[format_number(a) if j <= i else "—" for j, a in enumerate(row)] for i, row in enumerate(weights)]


def test_the_decoder_and_its_induction_demo(open_page, artifacts):
    decoder = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
    page = open_page(f"/real_model?rm_model={decoder}", ".st-key-table-rm-head table")
    model = load("smollm2")
    _, weights = model.attentions("This forum is awesome")
    wait_for_table(page, "rm-head", masked_cells(weights[0, 0]))
    page.locator(".st-key-rm_induction button").first.click()  # (the second button is its help)
    demo = induction_sentence(42)
    tokens, weights = model.attentions(demo)
    wait_for_table(page, "rm-head", masked_cells(weights[18, 6]))  # layer 19, head 7
    expect(page.locator(".st-key-sentence input")).to_have_value(demo, timeout=TIMEOUT_MS)
    assert induction(tokens, weights[18, 6]) >= 0.7
    page.get_by_text(model.next_tokens(demo)[0][0], exact=True).first.wait_for()  # the top next token is listed
    page.set_viewport_size({"width": 1400, "height": 1500})
    page.locator("h3:has-text('One head')").scroll_into_view_if_needed()
    page.evaluate("[...document.querySelectorAll('h3')].find(h => h.innerText.startsWith('One head')).scrollIntoView()")
    page.screenshot(path=artifacts / "real-model-decoder.png")


def test_a_scan_shows_its_progress_and_cancel_stops_it(open_page):
    """The scan of all 270 heads (seconds) runs beside the page (ui/background.py): a progress bar with the share
    of the work done, and Cancel. After Cancel the page says so and draws no scan; the job has stopped: a new scan
    is taken up by the server's one worker at once (with the old one still running it would wait)."""
    decoder = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
    page = open_page(f"/real_model?rm_model={decoder}&sentence=The+quick+brown+fox+jumps+over+the+lazy+dog+again",
                     ".st-key-table-rm-head table")
    progress = page.locator("[data-testid=stProgress]")
    cancel = page.locator(".st-key-rm_scan_cancel button")
    for _ in range(2):
        page.locator(".st-key-rm_scan button").click()
        expect(progress).to_contain_text(TAKEN_UP)  # taken up by the worker (not "waiting for …")
        cancel.click()
        expect(page.get_by_text("Scan cancelled.")).to_be_visible()
        expect(progress).to_have_count(0)
        expect(page.locator(".st-key-view-rm-scan")).to_have_count(0)


def test_sampling_the_decoders_next_token_round_trips_through_the_link(open_page, artifacts):
    """Temperature, top-k, top-p and the draw's seed from a link; Draw again moves to the next seed (in the link)
    and draws what the engine draws; the link the page then writes opens the same numbers."""
    import re

    from attention.sampling import Sampling, draw, processed
    from viz import sampling as S

    decoder = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
    page = open_page(f"/real_model?rm_model={decoder}&rm_temperature=0.7&rm_top_k=10&rm_top_p=0.9&rm_draw=3",
                     ".st-key-table-rm-sampling table")
    model = load("smollm2")
    result = processed(model.recent("This forum is awesome").logits, Sampling(0.7, 10, 0.9))

    def shown(seed: int) -> S.Sampled:  # the page's numbers (tests/test_sampling.py checks them against the engine)
        return S.sampled(result, draw(result.after, seed), lambda i: model.show(model.vocabulary[i]))
    frame = S.sampling_frame(shown(3))
    cells = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    wait_for_table(page, "rm-sampling", cells)
    wait_for_chart(page, "rm-sampling", "title", ["The next token's probabilities, before and after"])

    def drawn(seed: int) -> str:  # "u = 0.637", with the decimals the page writes it at
        return re.search(r"u = [0-9.]+", S.draw_text(shown(seed), seed)).group(0)
    page.get_by_text(drawn(3)).wait_for()
    page.locator(".st-key-rm_draw_again button").click()
    page.get_by_text(drawn(4)).wait_for()
    page.wait_for_function("() => new URLSearchParams(location.search).get('rm_draw') === '4'")
    link = urlsplit(page.url)
    shared = open_page(f"{link.path}?{link.query}", ".st-key-table-rm-sampling table")
    wait_for_table(shared, "rm-sampling", cells)
    shared.get_by_text(drawn(4)).wait_for()
    page.set_viewport_size({"width": 1280, "height": 800})
    page.locator(".st-key-fig-rm-sampling").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "real-model-sampling.png")
