"""Issue 44: after an edit, one polite sentence to a screen reader (ui/arrival.py's ``announcement``); never after a
first load, a navigation (its heading takes the focus and is read), a move to another page or a rerun that changed
nothing the link holds."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ui.arrival import announcement

SETTINGS = st.dictionaries(st.sampled_from(["sentence", "seed", "d_k", "step", "causal"]), st.text(max_size=5),
                           max_size=4)


@given(st.sampled_from(["", "multihead", "phonebook"]), SETTINGS, SETTINGS, st.text(max_size=4),
       st.text(max_size=4), st.none() | st.text(min_size=1, max_size=20))
def test_only_an_edit_on_the_same_page_is_announced_with_the_learners_sentence(page, before, now, nonce, other,
                                                                                sentence):
    said = announcement((page, before, nonce), page, now, nonce, sentence)
    if before == now:
        assert said == ""
    else:
        assert said == (f"The numbers are updated for “{sentence}”." if sentence else "The numbers are updated.")
    assert announcement(None, page, now, nonce, sentence) == ""  # a first run
    assert announcement((page + "x", before, nonce), page, now, nonce, sentence) == ""  # another page
    if other != nonce:
        assert announcement((page, before, other), page, now, nonce, sentence) == ""  # a navigation
