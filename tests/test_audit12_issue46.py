"""Truth audit 12 (issue 46's lesson fragment), its breaking inputs kept.

1. A gap of tests/test_lesson_fragment.py, closed (it passed on 77a1152). The equivalence test edits only
the sidebar's sentence and seed, from a default link; AppTest runs every other widget as a whole run, so a lesson
widget's own fragment run (Next, presenter mode, the heads menu, the model menu, an example button: the browser reruns
the lesson fragment alone for them) was never held to a whole run's page. Here the rerun names the lesson fragment, as
the browser's does, and the page is compared with a whole run's.
2. The equivalence test's pages are every page that reads the sentence or the seed (the writing page was missing)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import local_script_runner

from tests import driving as D
from tests.test_lesson_fragment import PAGES as EQUIVALENCE_PAGES
from tests.test_lesson_fragment import held, page
from ui.navigation import CLASS_PAGE, PAGES, url_path
from ui.settings import SETTING_NAMES, USED_BY

NONCE = re.compile(r'(\\"nonce\\": \\")[0-9a-f]{16}')  # the arrival's, new for each run


@pytest.fixture
def in_fragment(monkeypatch):
    made = local_script_runner.RerunData
    fragment: list[str] = []

    def rerun_data(*args, **kwargs):
        if fragment:
            kwargs.setdefault("fragment_id_queue", list(fragment))
        return made(*args, **kwargs)

    monkeypatch.setattr(local_script_runner, "RerunData", rerun_data)

    def run(at, act):
        fragment[:] = at._fragment_storage.resolve_target("lesson")[:1]
        try:
            return act(at)
        finally:
            fragment.clear()
    return run


def shown(at):
    return [(where, kind, NONCE.sub(r"\1…", proto)) for where, kind, proto in page(at)]


CASES = [  # (page, link, the lesson widget's action, whether the page then runs whole: rerun_whole_page)
    ("", {}, lambda at: at.button(key="next_step").click().run(), False),
    ("", {}, lambda at: at.toggle(key="present").set_value(True).run(), False),
    ("", {"step": "3"}, lambda at: at.slider(key="d_k").set_value(3).run(), False),
    ("multihead", {}, lambda at: at.selectbox(key="heads").set_value(4).run(), False),
    ("real_model", {}, lambda at: at.radio(key="rm_model").set_value("smollm2").run(), True),
    ("real_model", {"lang": "es"}, lambda at: at.button(key="rm_english").click().run(), True),
]


@pytest.mark.parametrize("address, query, act, whole", CASES)
def test_a_lesson_widgets_fragment_run_leaves_the_page_a_whole_run_draws(in_fragment, address, query, act, whole):
    alone, reference = D.open_app(address, **query), D.open_app(address, **query)
    alone = in_fragment(alone, act)
    reference = act(reference)
    assert not alone.exception and not reference.exception
    assert alone._tree._fragment_only == (not whole)
    assert shown(alone) == shown(reference)
    assert alone.query_params == reference.query_params and held(alone) == held(reference)


def test_the_equivalence_test_covers_every_page_that_reads_the_sentence_or_the_seed():
    reads = {url_path(script) for script, _, _ in PAGES if script != CLASS_PAGE
             and {"sentence", "seed"} & USED_BY.get(url_path(script), frozenset(SETTING_NAMES))}
    assert set(EQUIVALENCE_PAGES) == reads, sorted(reads - set(EQUIVALENCE_PAGES))
