"""A table is one block whenever it fits the room it has (issue 47), in Debian's Chromium against `streamlit run`:
a 12 × 12 α was drawn as 7 + 5 columns at 1280 px (618 px side by side, 820 px of room), judged against a fixed
550 px. The room is the view's own width, followed as it changes."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

TWELVE = "/?step=7&sentence=the+cat+sat+on+the+mat+because+it+was+warm+and+soft"

# JS: the α table's blocks (each its header's column count and its drawn width) and the room: the view's element
BLOCKS = """() => { const box = document.querySelector('.st-key-table-weights');
  if (!box) return null;
  const room = box.closest('.alv').parentElement.parentElement.clientWidth;
  const tables = Array.from(box.querySelectorAll('table'));
  return { room, blocks: tables.map(t => ({ columns: t.querySelectorAll('thead th').length - 1,
                                            width: t.getBoundingClientRect().width })) } }"""


def state(page) -> dict:
    return page.evaluate(BLOCKS)


def wait_for_blocks(page, one: bool) -> dict:
    """Wait until the α table is one block (``one``) or several, every block within the room, 12 columns in all."""
    page.wait_for_function(f"""() => {{ const s = ({BLOCKS})(); if (!s || !s.room) return false;
      return s.blocks.reduce((n, b) => n + b.columns, 0) === 12 && (s.blocks.length === 1) === {str(one).lower()}
        && s.blocks.every(b => b.width <= s.room + 0.5) }}""")
    return state(page)


def test_a_twelve_token_alpha_is_one_block_at_1280_and_blocks_follow_the_room(open_page):
    page = open_page(TWELVE, ".st-key-table-weights table", width=1280, height=800)
    one = wait_for_blocks(page, one=True)  # 12 columns side by side in the room at 1280
    assert one["blocks"][0]["width"] <= one["room"]
    page.set_viewport_size({"width": 1024, "height": 768})  # the sidebar open: less room than the table
    narrow = wait_for_blocks(page, one=False)
    assert narrow["room"] < one["blocks"][0]["width"]  # it does not fit: blocks, each within the room
    page.set_viewport_size({"width": 1280, "height": 800})  # and back: one block again
    wait_for_blocks(page, one=True)
