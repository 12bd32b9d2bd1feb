"""Issue 45: each offered language in a real browser. In Spanish, French and Chinese every lesson and the walkthrough's
steps 1, 4 and 8 meet WCAG 2.1 AA (axe: the page declares its language, its longer texts keep their contrast and their
names), and after each Next the walkthrough's open step's first chart starts in the upper 60 % of a 1280 × 800
laptop, as it does in English (the French texts are the longest). The English pages' own checks, in both colour
schemes and on a phone, are in test_accessibility_browser.py and test_chart_in_view_browser.py; the colours do not
depend on the language."""

from __future__ import annotations

import pytest

from tests.browser.axe import assert_accessible
from tests.browser.chart_in_view import in_view
from tests.browser.test_accessibility_browser import LESSONS, SETTLED, context, settle
from viz import i18n

pytestmark = pytest.mark.browser


def with_language(path: str, lang: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}lang={lang}"


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH])
def test_every_page_meets_wcag_21_aa_in_each_language_and_the_open_steps_chart_is_in_view(browser, base_url, lang):
    with i18n.speaking(lang):
        declared = i18n.html_lang()  # "zh-Hans": the script too
    made, page = context(browser, "light")
    try:
        page.goto(base_url + with_language("/", lang))
        settle(page)
        assert page.evaluate("document.documentElement.lang") == declared
        assert_accessible(page, f"{lang}: step 1")
        for step in range(2, 9):  # one step at a time, by Next, as a learner goes
            page.locator(".st-key-next_step button").click()
            in_view(page, step, f"Next, in {lang}")
            if step in (4, 8):  # a step's whole frame (the English steps are each checked, in both schemes)
                page.wait_for_function(SETTLED)
                assert_accessible(page, f"{lang}: step {step}")
        assert f"lang={lang}" in page.url  # Next kept the language in the link
        for path in LESSONS:  # the learn page untrained: its trained texts are tests/test_walkthrough_languages.py's
            path = path.replace("/learn?lt_run=true", "/learn")
            page.goto(base_url + with_language(path, lang))
            settle(page)
            assert page.evaluate("document.documentElement.lang") == declared, path
            assert_accessible(page, f"{lang}: {path}")
    finally:
        made.close()
