"""Hostile input through a real browser: every place that shows user text shows it literally.

Each payload is put into every input that reaches a message or label (links, the sentence, the
phonebook's names and query, the matrix editor's cells through the link), and the rendered page is
checked: no link, image, bold text or maths was made of it, and no request left for its URL.
"""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import expect

from attention import random_projections
from tests.browser.conftest import TIMEOUT_MS
from tests.browser.test_issue4_browser import settled_box, type_in_cell
from tests.browser.test_walkthrough_browser import wait_for_ticks
from ui.links import check_link
from ui.matrix_editor import MAX_EDITS_CHARS, NAMES, encode_edits

pytestmark = pytest.mark.browser

LINK = "[Sign in](//evil.example/x)"
BOLD = "**Your session expired**"
MATHS = r"$\rule{80em}{80em}$"
IMAGE = "![x](//evil.example/x.png)"
PAYLOADS = (LINK, BOLD, MATHS, IMAGE)


def watch_requests(page) -> list[str]:
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    return urls


def assert_inert(page, requests: list[str], *, shown: tuple[str, ...]) -> None:
    """Nothing on the page was made of a payload, and each of ``shown`` is on screen as typed."""
    assert page.locator("a[href*='evil.example']").count() == 0  # no link
    # no image: a chart is an <img> whose src is its SVG as a data: URI, and a name shown in a chart (a
    # legend naming the hard answer) is text inside it; an image made of a payload would load its URL
    assert page.locator("img[src*='evil.example']:not([src^='data:'])").count() == 0
    for tag in ("strong", "b", "em"):  # no fake system message
        assert page.locator(tag, has_text="session expired").count() == 0
        assert page.locator(tag, has_text="Session expired").count() == 0
    assert page.locator(".katex .rule").count() == 0  # no \rule drawn over the page
    assert page.locator("[data-testid=stAlertContainer] .katex").count() == 0  # no maths in a message
    assert not [u for u in requests if "evil.example" in u]  # the browser fetched nothing
    text = page.locator("[data-testid=stApp]").inner_text()
    for s in shown:
        assert s in text, s


def test_link_parameters_are_named_literally(open_page):
    query = urlencode({LINK: "1", BOLD: "1", IMAGE: "1", "seed": MATHS})
    page = open_page("/?" + query, ".st-key-table-tokens table")
    requests = watch_requests(page)
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('could not be used')")
    assert_inert(page, requests, shown=PAYLOADS)
    expect(page.locator(".st-key-seed input")).to_have_value("42", timeout=TIMEOUT_MS)  # the default seed, not a crash


def test_matrix_cells_from_a_link_are_refused_literally(open_page):
    cells = "Q1.1:**Session expired**;K1.1:[a](//evil.example);V1.1:$\\rule{9em}{9em}$"
    page = open_page("/?" + urlencode({"w": cells, "step": "3"}), ".st-key-table-w_q table")  # step 3: the editor
    requests = watch_requests(page)
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('is not a number')")
    assert_inert(page, requests, shown=("**Session expired**", "[a](//evil.example)", r"$\rule{9em}{9em}$"))


def test_sentence_and_phonebook_show_payloads_literally(open_page):
    page = open_page("/?" + urlencode({"sentence": f'{BOLD} say "hi"', "step": "7"}), ".st-key-table-weights table")
    requests = watch_requests(page)
    wait_for_ticks(page, "weights", ["* (1)", "* (2)", "Your", "session", "expired", "* (6)", "* (7)", "say",
                                     '" (9)', "hi", '" (11)'])  # a quote is drawn as ", never &quot;
    assert_inert(page, requests, shown=())

    page = open_page("/phonebook?" + urlencode({"pb_query": IMAGE}), ".st-key-table-pb-answers table")
    requests = watch_requests(page)
    page.wait_for_selector("p:has-text('Hard answer')")
    # type a name and a number into the book as a learner does (the grid is a canvas: cells by
    # geometry; the row markers take the first 33 px, then the name column)
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    grid = page.locator(".st-key-book canvas").first
    grid.scroll_into_view_if_needed()
    box = settled_box(page, grid)
    type_in_cell(page, box["x"] + 90, box["y"] + 35 + 17, "glide-cell-1-0", f"{LINK} {MATHS}")  # row 1, name
    page.wait_for_function("t => document.querySelector('.st-key-table-pb-lookup tbody')?.innerText.includes(t)",
                           arg=LINK)  # the lookup ran with the new name
    box = settled_box(page, grid)
    type_in_cell(page, box["x"] + box["width"] - 60, box["y"] + 35 + 17, "glide-cell-2-0", BOLD)  # its number
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('has no digits')")  # it quotes the name
    assert_inert(page, requests, shown=(f"{LINK} {MATHS}", IMAGE))


def test_the_longest_link_the_app_can_write_opens_again(open_page):
    # the longest sentence the box takes (1,000 four-byte characters) and every cell of three
    # 16 × 16 matrices edited, each with a long exact value: what the app would write into the link
    preset = random_projections(16, 16, 42)
    edited = {name: np.asarray(w) - 3.3333333333333335e-05 for name, w in zip(NAMES, preset, strict=True)}
    cells = encode_edits(edited, preset)
    sentence = "𝔸" * 1000  # 1,000 characters, 4 bytes each in UTF-8
    params = {"sentence": sentence, "d_model": "16", "d_k": "16", "w": cells, "step": "3"}
    assert len(cells) <= MAX_EDITS_CHARS and not check_link(params)
    page = open_page("/?" + urlencode(params), ".st-key-table-w_q table")  # step 3: the editor and its edits
    assert len(page.url) > 30_000
    # waited for, not read at once: on a busy machine the box can still be empty when the table is there
    expect(page.locator(".st-key-sentence input")).to_have_value(sentence, timeout=TIMEOUT_MS)
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('hand-edited matrices')")  # the edits are in use
    assert page.locator("[data-testid=stAlertContainer]:has-text('could not be used')").count() == 0


def test_cross_attention_shows_both_sentences_literally(open_page):
    params = {"ca_source": f"{LINK} {IMAGE}", "ca_target": f"{BOLD} {MATHS}",
              "ca_preset": "Aligned by a bilingual table (constructed)"}
    page = open_page("/cross?" + urlencode(params), ".st-key-table-ca-weights")  # a grid: over 400 cells
    requests = watch_requests(page)
    # the caption quotes the target's words
    page.wait_for_selector("[data-testid=stCaptionContainer]:has-text('No source word to pair with in the table for')")
    assert_inert(page, requests, shown=())
    box = page.locator(".st-key-ca_target input")
    box.fill("")
    box.press("Enter")  # an empty target: a message that quotes the last usable one, literally
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('Target:')")
    assert_inert(page, requests, shown=(f"{BOLD} {MATHS}",))


@pytest.mark.parametrize("model", ["", "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"])
def test_a_real_models_tokens_of_a_payload_stay_text(open_page, model):
    """The real models split the payloads into their own tokens ("[", "sign", "##in", "](", …); every
    table, label and caption shows them as text, with either model."""
    params = {"sentence": f"{LINK} {BOLD} {MATHS} {IMAGE}", **({"rm_model": model} if model else {})}
    page = open_page("/real_model?" + urlencode(params), ".st-key-table-rm-model-tokens table")
    requests = watch_requests(page)
    page.wait_for_selector(".st-key-fig-rm-head img")  # the head's α, drawn with the pieces as labels
    assert_inert(page, requests, shown=())
    cells = page.locator(".st-key-table-rm-model-tokens").inner_text()
    assert "evil" in cells and "rule" in cells  # the payloads' pieces are there, as plain text


def test_no_site_framing_the_app_may_send_it_commands(base_url):
    """The page learns from /_stcore/host-config which origins may steer it through postMessage
    (rerun, stop, an auth token) when it is framed. Streamlit's default names 16 Community Cloud
    domains; the app is not hosted there, so the list is empty and the page does not listen."""
    with urllib.request.urlopen(base_url + "/_stcore/host-config", timeout=TIMEOUT_MS / 1000) as answer:
        assert json.load(answer)["allowedOrigins"] == []


def test_a_link_with_a_stray_percent_opens_the_lesson_with_the_learners_text(open_page, base_url):
    """Issue 43: a link whose path holds a malformed percent-escape (/%ZZ: a mail client's stray %) opened a page of
    grey bars for good, with no sidebar, no lesson and no message ("URI malformed" in the console). The server
    now redirects it with the bad % written %25: the first lesson opens under Streamlit's "Page not found". A
    query's stray % (which Streamlit 1.67's page already read, as "100%") is redirected the same way, so the
    address a learner copies is well formed, and the lesson opens on the sentence as typed."""
    lost = open_page("/%ZZ", ".st-key-table-tokens table")
    expect(lost.get_by_text("Page not found")).to_be_visible()  # Streamlit's, over its first page (at /)
    assert lost.url == f"{base_url}/"
    expect(lost.locator(".st-key-sentence input")).not_to_have_value("")
    assert lost.locator("[data-testid=stSidebar]").count() == 1

    page = open_page("/?sentence=we+are+100%+sure&seed=5", ".st-key-table-tokens table")
    expect(page.locator(".st-key-sentence input")).to_have_value("we are 100% sure")
    assert "sentence=we+are+100%25+sure" in page.url and "seed=5" in page.url
    tokens = page.locator(".st-key-table-tokens table").inner_text()
    assert "100" in tokens and "%" in tokens and "sure" in tokens
