"""Put on PYTHONPATH by tests/browser/test_language_menu_browser.py for a server of its own: that app offers every
language that has a catalog (``ui.i18n.OFFERED``), as it will once they are all offered, so that a browser can drive
the language menu. Python imports this module as it starts (``site``), before the app."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository, as `streamlit run` puts it there

import ui.i18n
from viz import i18n

ui.i18n.OFFERED = (*i18n.LANGUAGES,)
