"""The red team's findings of issue 26, each as a learner met it in Chromium, each failing on 0dd9ac2.

1. Learner text became live links: Streamlit's Markdown links a bare "https://…", "www.…" or
   "a@b.c" even when every punctuation mark is escaped, and draws "--" as a dash.
2. A long paste was dropped whole without a word (the box's max_chars; 1,000 emoji counted 2,000).
3. Crashes when the link check removed a URL setting bound to a widget.
4. SmolLM2's charts failed to load after a control character; a tab showed as an empty cell.
5. "--" showed as "—" in SmolLM2's token table (with 1).
6. A stale layer picker after switching models.
7. Link values dropped without a word (tests/test_red_team.py, through AppTest).
8. The editor: a refused cell quoted a 10,000-character entry; Reset, then a new sentence, closed it.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import TIMEOUT_MS, wait_for_full_size_charts
from tests.browser.test_hardening_browser import watch_requests
from tests.browser.test_issue4_browser import settled_box, type_in_cell
from tests.browser.test_walkthrough_browser import setting, type_sentence

pytestmark = pytest.mark.browser

URL = "https://evil.example/x"
ADDRESSES = f"{URL} www.evil.example a@evil.example"
SMOLLM2 = "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"
WORD_JOINER = "\u2060"


def assert_no_live_text(page, requests: list[str]) -> None:
    """No link made of learner text, no mail link, no request to its address."""
    assert page.locator("a[href*='evil.example']").count() == 0
    assert page.locator("a[href^='mailto:']").count() == 0
    assert not [u for u in requests if "evil.example" in u]


def shown(page) -> str:
    return page.locator("[data-testid=stApp]").inner_text().replace(WORD_JOINER, "")


def test_addresses_in_a_link_warning_stay_text(open_page):
    page = open_page("/?" + urlencode({URL: "1", "seed": URL}), ".st-key-table-tokens table")
    requests = watch_requests(page)
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('could not be used')")
    assert_no_live_text(page, requests)
    assert "“https://evil.example/x” is not a setting" in shown(page)


def test_addresses_in_the_last_good_sentence_stay_text(open_page):
    """√d_k and the real model quote the last sentence that worked when the new one can't be shown."""
    for path, ready, too_long in (("/scaling", ".st-key-table-temperature-weights table", "a " * 70),
                                  ("/real_model", ".st-key-table-rm-model-tokens table", "a " * 130)):
        page = open_page(path + "?" + urlencode({"sentence": ADDRESSES}), ready)
        requests = watch_requests(page)
        type_sentence(page, too_long)
        page.wait_for_selector("[data-testid=stAlertContainer]:has-text('last sentence that worked')")
        assert_no_live_text(page, requests)
        assert ADDRESSES in shown(page)


def test_addresses_in_cross_attention_messages_stay_text(open_page):
    params = {"ca_source": ADDRESSES, "ca_target": ADDRESSES}
    page = open_page("/cross?" + urlencode(params), ".st-key-table-ca-weights table")
    requests = watch_requests(page)
    for box in ("ca_source", "ca_target"):
        field = page.locator(f".st-key-{box} input")
        field.fill("a " * 70)  # 70 tokens: more than a sentence may have
        field.press("Enter")
        label = "Source" if box == "ca_source" else "Target"
        page.wait_for_selector(f"[data-testid=stAlertContainer]:has-text('{label}:')")
    assert_no_live_text(page, requests)
    assert ADDRESSES in shown(page)


def test_addresses_in_the_phonebook_stay_text(open_page):
    page = open_page("/phonebook?" + urlencode({"pb_query": URL}), ".st-key-table-pb-answers table")
    requests = watch_requests(page)
    page.wait_for_selector("p:has-text('Hard answer')")
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")
    grid = page.locator(".st-key-book canvas").first
    grid.scroll_into_view_if_needed()
    box = settled_box(page, grid)
    type_in_cell(page, box["x"] + 90, box["y"] + 35 + 17, "glide-cell-1-0", "www.evil.example")  # row 1's name
    page.wait_for_function("() => document.querySelector('.st-key-table-pb-lookup tbody')?.innerText"
                           ".replaceAll('\u2060', '').includes('www.evil.example')")
    assert_no_live_text(page, requests)
    expect(page.locator(".st-key-pb_query input")).to_have_value(URL)


def test_a_refused_cell_quotes_text_and_a_long_entry_briefly(open_page):
    page = open_page("/?" + urlencode({"step": "3"}), ".st-key-table-w_q table")
    requests = watch_requests(page)
    page.locator(".st-key-editor summary").click()
    grid = page.locator("[class*='st-key-edit-W_Q-'] canvas").first
    grid.wait_for()
    grid.scroll_into_view_if_needed()  # (below the step's model map, the grid starts under the window's edge)
    box = settled_box(page, grid)
    entry = f"**bold** [Sign in]({URL}) " + "9" * 3000
    type_in_cell(page, box["x"] + 60, box["y"] + 35 + 17, "glide-cell-1-0", entry)
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('is not a number')")
    assert_no_live_text(page, requests)
    message = page.locator("[data-testid=stAlertContainer]:has-text('is not a number')").inner_text()
    assert "**bold**" in message.replace(WORD_JOINER, "") and len(message) < 300  # quoted as text, and briefly


def test_a_long_paste_is_cut_with_a_message_not_dropped(open_page):
    page = open_page("/", ".st-key-table-tokens table")
    box = page.locator(".st-key-sentence input")
    pasted = "the cat sat " * 1000  # 12,000 characters
    box.fill(pasted)
    box.press("Enter")
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('keeps the first 1,000')")
    expect(box).to_have_value(pasted[:1000], timeout=TIMEOUT_MS)
    emoji = "😀" * 1000  # 1,000 characters, 2,000 UTF-16 units: the old box refused it
    box.fill(emoji)
    box.press("Enter")
    expect(box).to_have_value(emoji, timeout=TIMEOUT_MS)  # kept whole: too many tokens to show, and it says so
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('last sentence that worked')")

    page = open_page("/cross", ".st-key-table-ca-weights table")
    target = page.locator(".st-key-ca_target input")
    target.fill("le chat " * 200)  # 1,600 characters
    target.press("Enter")
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('Target: the text had 1,600 characters')")
    expect(target).to_have_value(("le chat " * 200)[:1000], timeout=TIMEOUT_MS)


def test_a_setting_that_stops_fitting_is_reset_not_a_crash(open_page):
    """heads = 8, then d_model 8 → 2 (found with 8 → 6): the link check removed the bound "heads" and
    Streamlit raised."""
    page = open_page("/multihead?heads=8", ".st-key-table-concat table")
    expect(page.locator(".st-key-heads input")).to_have_value("8", timeout=TIMEOUT_MS)
    setting(page, "shared_settings", "d_model").locator("input").focus()
    page.keyboard.press("Home")  # d_model 8 → 2 in one key press (two arrow presses raced a rerun when busy)
    page.wait_for_function("() => new URLSearchParams(location.search).get('d_model') === '2'")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('must divide d_model = 2')")
    expect(page.locator(".st-key-heads input")).to_have_value("2", timeout=TIMEOUT_MS)  # the default, drawn
    page.wait_for_selector(".st-key-table-concat table")
    assert page.locator("[data-testid=stException]").count() == 0

    page = open_page("/phonebook", ".st-key-table-pb-answers table")
    query = page.locator(".st-key-pb_query input")
    query.fill("Jindrich " * 40)  # 360 characters: the links allow 200
    query.press("Enter")
    page.wait_for_selector("[data-testid=stAlertContainer]:has-text('keeps the first 200')")
    page.wait_for_selector("p:has-text('Hard answer')")
    assert page.locator("[data-testid=stException]").count() == 0


def test_smollm2s_charts_load_and_control_characters_and_dashes_show(open_page):
    sentence = "a\x0cb\x01c\td -- e"
    page = open_page("/real_model?" + urlencode({"sentence": sentence, "rm_model": SMOLLM2}),
                     ".st-key-table-rm-model-tokens table")
    wait_for_full_size_charts(page, ["rm-model-view", "rm-head"])  # each image loaded (a broken SVG does not)
    cells = page.locator(".st-key-table-rm-model-tokens").inner_text().replace(WORD_JOINER, "")
    for symbol in ("␌", "␁", "␉", "␣--"):
        assert symbol in cells, symbol
    assert "—" not in cells


def test_switching_models_shows_the_layer_the_chart_shows(open_page):
    page = open_page("/real_model?" + urlencode({"rm_model": SMOLLM2, "rm_layer": "30"}),
                     ".st-key-table-rm-head table")
    expect(page.locator(".st-key-rm_layer input")).to_have_value("30", timeout=TIMEOUT_MS)
    page.locator(".st-key-rm_model label", has_text="MiniLM").click()
    page.wait_for_selector("h3:has-text('Layer 1, head')")
    expect(page.locator(".st-key-rm_layer input")).to_have_value("1", timeout=TIMEOUT_MS)


def test_reset_then_a_new_sentence_keeps_the_editor_open(open_page):
    page = open_page("/?" + urlencode({"w": "Q1.1:5", "step": "3"}), ".st-key-table-w_q table")  # step 3's editor
    reset = page.locator(".st-key-edit-reset button")
    reset.click()
    expect(reset).to_be_disabled(timeout=TIMEOUT_MS)
    type_sentence(page, "the dog ran home")
    page.wait_for_selector(".st-key-table-w_q table")
    page.wait_for_function("() => document.querySelector('.st-key-sentence input').value === 'the dog ran home'"
                           " && document.querySelector('[data-testid=stApp]').getAttribute('data-test-script-state')"
                           " === 'notRunning'")
    expect(page.locator(".st-key-edit-paste-apply button")).to_be_visible(timeout=TIMEOUT_MS)  # still open
