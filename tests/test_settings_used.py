"""The sidebar's shared settings that a page does not read are disabled there, and the sidebar says so
(ui.settings.USED_BY, issue 34). Each claim is checked: changing every setting a page does not read
leaves the page's content as it was, and changing one it reads changes it."""

from __future__ import annotations

import json

import pytest

from tests.driving import open_app
from tests.table_reading import view_panels
from ui.links import MODEL_LABELS
from ui.settings import SETTING_NAMES, USED_BY

# a value of each setting other than its default (and other than what a page shows by default)
CHANGED = {"sentence": "a dog ran to the river", "seed": "7", "d_model": "6", "positional": "true", "causal": "true"}
# The pages that read every setting, with a setting to check it by; the pages of USED_BY with theirs
READS_ALL = ("", "multihead", "relevance", "parts", "scaling")
PAGES = [page for page in USED_BY if page != "classmode"]
OPEN = {"": {"step": "7"}}  # the walkthrough on a step every setting changes (step 1's tokens have no seed)


def content(at) -> str:
    """What the page's main area shows: its texts, its buttons with their help, and every view's data (not the
    sidebar)."""
    texts = {kind: [e.value for e in getattr(at.main, kind)]
             for kind in ("title", "subheader", "markdown", "caption", "latex", "info", "warning", "error")}
    texts["button"] = [(b.label, b.help) for b in at.main.button]
    return json.dumps({"texts": texts, "panels": view_panels(at)}, sort_keys=True, default=str)


def sidebar_widgets(at) -> dict:
    return {"sentence": at.sidebar.text_input(key="sentence"), "seed": at.sidebar.number_input(key="seed"),
            "d_model": at.slider(key="d_model"), "positional": at.toggle(key="positional"),
            "causal": at.toggle(key="causal")}


@pytest.mark.parametrize("page", PAGES)
def test_settings_a_page_does_not_read_are_disabled_and_change_nothing(page):
    used = USED_BY[page]
    unused = [key for key in SETTING_NAMES if key not in used]
    at = open_app(page, **OPEN.get(page, {}))
    assert not at.exception
    for key, widget in sidebar_widgets(at).items():
        assert widget.disabled == (key not in used), key
    note = [c.value for c in at.sidebar.caption if "This page does not read" in c.value]
    assert len(note) == 1 and all(SETTING_NAMES[key] in note[0] for key in unused)
    assert not any(SETTING_NAMES[key] in note[0] for key in used)  # and only those
    # the line of values under the popover names the popover's settings the page reads, and no other
    status = [c.value for c in at.sidebar.caption if c.value.startswith(("d_model", "positional", "causal"))]
    named = {"d_model": "d_model ", "positional": "positional encodings ", "causal": "causal mask "}
    if used & set(named):
        assert len(status) == 1
        assert [key for key, words in named.items() if words in status[0]] == [k for k in named if k in used], status
    else:
        assert status == []
    changed = open_app(page, **OPEN.get(page, {}), **{key: CHANGED[key] for key in unused})
    assert not changed.exception
    assert content(changed) == content(at)


@pytest.mark.parametrize(("page", "key"), [(page, key) for page in PAGES for key in sorted(USED_BY[page])]
                         + [(page, key) for page in READS_ALL for key in SETTING_NAMES if key != "causal"]
                         + [("", "causal"), ("multihead", "causal")])
def test_a_setting_a_page_reads_changes_it(page, key):
    at = open_app(page, **OPEN.get(page, {}))
    assert sidebar_widgets(at)[key].disabled is False
    if page not in USED_BY:  # a page that reads every setting says nothing of the kind
        assert not any("This page does not read" in c.value for c in at.sidebar.caption)
    assert content(open_app(page, **OPEN.get(page, {}), **{key: CHANGED[key]})) != content(at)


@pytest.mark.parametrize("seed", ["7", "8"])
def test_smollm2s_page_reads_the_seed_and_minilms_does_not(seed):
    """The real model's page: the seed picks SmolLM2's induction demo; MiniLM's page has no use for it."""
    smollm2, minilm = {"rm_model": MODEL_LABELS["smollm2"]}, {"rm_model": MODEL_LABELS["minilm"]}
    smol, mini = open_app("real_model", **smollm2), open_app("real_model", **minilm)
    assert not sidebar_widgets(smol)["seed"].disabled and sidebar_widgets(mini)["seed"].disabled
    assert content(open_app("real_model", **smollm2, seed=seed)) != content(smol)
    assert content(open_app("real_model", **minilm, seed=seed)) == content(mini)


@pytest.mark.parametrize(("page", "shown"), [("", "This forum is awesome"), ("multihead", "This forum is awesome"),
                                             ("phonebook", None), ("learn", None)])
def test_a_phones_sentence_line_names_the_sentence_the_lesson_shows(page, shown):
    """The line at the top of a phone's page names the sentence the numbers come from: a sentence the lesson
    could not show (65 tokens) is not it; a page that reads no sentence has no such line."""
    def line(at):
        found = [c.value for c in at.main.caption if c.value.startswith("Sentence: “")]
        return found[0] if found else None

    fine = open_app(page, sentence="a dog ran")
    too_long = open_app(page, sentence="w " * 65)
    if shown is None:
        assert line(fine) is None and line(too_long) is None
        return
    assert line(fine).startswith("Sentence: “a dog ran”")
    assert line(too_long).startswith(f"Sentence: “{shown}”")



@pytest.mark.parametrize(("agent", "desktop"), [
    ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", True),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", True),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 "
     "Mobile/15E148 Safari/604.1", False),
    ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile "
     "Safari/537.36", False),
    ("Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
     False),  # an Android tablet: no "Mobile"
    ("", False),  # no header (AppTest): not known to be a desktop
])
def test_only_a_browser_not_known_as_a_desktop_gets_the_phone_line(monkeypatch, agent, desktop):
    """Issue 47: a desktop page's first paint flashed the phone-only line (its hiding rule arrives late); a browser
    whose User-Agent names no phone or tablet is not sent the line at all."""
    import ui.settings as S

    class Context:
        headers = {"User-Agent": agent} if agent else {}
    monkeypatch.setattr(S.st, "context", Context())
    assert S.on_a_desktop() is desktop
