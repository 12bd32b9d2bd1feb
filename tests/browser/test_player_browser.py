"""Play a step (issue 36), in Debian's Chromium against `streamlit run`: the player runs in the browser (no websocket
frame while it plays), pauses and steps, ends on the numbers of the step's table, and with reduced motion shows
every stage at once; its buttons' icons are drawn (issue 43: the pause glyph ⏸ is in none of Debian's fonts)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attention import trace_self_attention
from tests import written
from tests.browser.conftest import TIMEOUT_MS
from viz.labels import format_number

pytestmark = pytest.mark.browser

SENTENCE = "the cat sat on"


def app_trace():
    """The walkthrough's trace of SENTENCE at the app's defaults."""
    from ui.settings import DEFAULT_D_MODEL, DEFAULT_SEED
    return trace_self_attention(SENTENCE, d_model=DEFAULT_D_MODEL, seed=DEFAULT_SEED, d_k=4)


def open_player(open_page, step: int, kind: str, **context):
    page = open_page(f"/?step={step}&sentence={SENTENCE.replace(' ', '+')}&query=3", f".st-key-play-{kind} input",
                     **context)
    page.locator(f".st-key-play-{kind} label").click()
    page.locator(f".st-key-player-{kind} .alp").wait_for()
    return page


def final_cells(page, kind: str) -> list[str]:
    player = page.locator(f".st-key-player-{kind} .alp")
    expect(player).to_have_attribute("data-final", "true", timeout=TIMEOUT_MS)
    rows = player.locator("table.alp-row tr")
    return [rows.nth(r).locator("td").last.inner_text() for r in range(1, rows.count())]  # the last column


@pytest.mark.parametrize("step,kind", [(5, "scores"), (7, "softmax"), (8, "output")])
def test_a_played_step_sends_nothing_and_ends_on_the_tables_numbers(open_page, step, kind):
    page = open_player(open_page, step, kind)
    frames: list = []
    page.on("websocket", lambda ws: (ws.on("framesent", frames.append), ws.on("framereceived", frames.append)))
    player = page.locator(f".st-key-player-{kind} .alp")
    expect(player.get_by_label("Query", exact=True)).to_have_value("2")  # step 8's query (3 · sat), from the link
    player.get_by_label("Speed", exact=True).select_option("4")  # each menu named by its visible label (3.3.2)
    for name in ("Query", "Speed"):
        expect(player.locator(".alp-field > label", has_text=name)).to_be_visible()
    sent_before = len(frames)
    player.get_by_role("button", name="Play").click()
    cells = final_cells(page, kind)
    assert len(frames) == sent_before, "the player talked to the server while it played"
    trace = app_trace()
    row = {"scores": trace.scores, "softmax": trace.weights, "output": trace.output}[kind][2]
    assert cells == [format_number(x) for x in row]


def test_the_player_pauses_steps_back_and_on_and_answers_the_keyboard(open_page):
    page = open_player(open_page, 7, "softmax")
    player = page.locator(".st-key-player-softmax .alp")
    player.get_by_role("button", name="Play").click()
    expect(player).not_to_have_attribute("data-frame", "0", timeout=TIMEOUT_MS)
    pause = player.get_by_role("button", name="Pause")
    box = pause.locator("svg.alp-icon").bounding_box()  # the icon is drawn: no font to lack it
    assert box and box["width"] > 4 and box["height"] > 4, box
    pause.click()
    paused = player.get_attribute("data-frame")
    page.wait_for_timeout(1500)  # (a pause is a state that does not change: it has to be seen not changing)
    assert player.get_attribute("data-frame") == paused
    player.get_by_role("button", name="1 frame back").click()
    expect(player).to_have_attribute("data-frame", str(int(paused) - 1))
    player.get_by_role("button", name="1 frame forward").click()
    expect(player).to_have_attribute("data-frame", paused)
    player.get_by_role("button", name="1 frame back").click()
    player.focus()
    page.keyboard.press("ArrowRight")
    expect(player).to_have_attribute("data-frame", paused)
    page.keyboard.press("End")
    expect(player).to_have_attribute("data-final", "true")
    page.keyboard.press("Home")
    expect(player).to_have_attribute("data-frame", "0")
    # the help: "Wherever the focus is in the player, Space plays or pauses" (issue 43: on the "1 frame" button a click
    # leaves focused, Space pressed that button instead), "← and → go 1 frame back or forward" on the query menu too,
    # where "↑ and ↓ change the choice"
    player.get_by_role("button", name="1 frame forward").click()
    expect(player).to_have_attribute("data-frame", "1")
    page.keyboard.press("Space")
    expect(player.get_by_role("button", name="Pause")).to_have_count(1)
    page.keyboard.press("Space")
    expect(player.get_by_role("button", name="Play")).to_have_count(1)
    query = player.locator(".alp-query")
    query.focus()
    page.keyboard.press("Home")
    expect(player).to_have_attribute("data-frame", "0")
    page.keyboard.press("ArrowRight")
    expect(player).to_have_attribute("data-frame", "1")
    expect(query).to_have_value("2")  # the frame moved, the query did not
    page.keyboard.press("Space")
    expect(player.get_by_role("button", name="Pause")).to_have_count(1)
    page.keyboard.press("Space")
    expect(player.get_by_role("button", name="Play")).to_have_count(1)
    page.keyboard.press("ArrowDown")
    expect(query).to_have_value("3")  # the menu's own key: the next query, from its first frame
    expect(player).to_have_attribute("data-frame", "0")


def test_with_reduced_motion_play_shows_every_stage_at_once(open_page):
    page = open_player(open_page, 7, "softmax", reduced_motion="reduce")
    player = page.locator(".st-key-player-softmax .alp")
    player.get_by_role("button", name="Play").click()
    expect(player).to_have_attribute("data-final", "true")
    trace = app_trace()
    stages = player.locator(".alp-stages li")
    expect(stages).to_have_count(1 + 4 + 1 + 4 + 1)  # z and m, four exponentials, Σ, four weights, the row
    # Σ e and, last, Σ α written out as they add up (a calculator reads them: tests/written.py)
    assert written.check(stages.nth(5).inner_text())[2] == format_number(trace.exp_scores[2].sum(), 3)
    assert written.check(stages.nth(10).inner_text())[2] == "1.00"
