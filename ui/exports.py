"""The walkthrough's download panel: a CSV per matrix, the whole trace as JSON, and the handout: the lesson
with the learner's numbers as one HTML page."""

from __future__ import annotations

import streamlit as st

from attention import AttentionTrace
from ui import components as ui
from ui.links import lesson_url
from viz import exports as X
from viz.i18n import language, speaking, t


def export_panel(trace: AttentionTrace) -> None:
    """Every file is built only when its button is pressed (the JSON of a 64-token trace is MBs),
    not on each rerun of the lesson."""
    st.subheader(t("Take it with you"), divider="gray")
    # lazy: closed, the panel builds and sends nothing (its buttons cost a rerun ~0.1 s to draw, issue 9)
    with ui.lazy_expander(t("Downloads: the handout, CSV and JSON"), key="exports", icon=":material/download:") as box:
        if box.open:
            _downloads(trace)


def _downloads(trace: AttentionTrace) -> None:
    names = X.matrix_names(trace)  # the frames themselves are built only for a download
    left, middle, right = st.columns(3, vertical_alignment="bottom")
    with left:
        name = st.selectbox(t("Matrix"), names, index=names.index("weights"), key="export_matrix")
        st.download_button(t("{matrix} as CSV", matrix=name), lambda: X.to_csv(X.matrix(trace, name)),
                           file_name=f"{name.replace(' ', '_')}.csv",
                           mime="text/csv", key="export_csv", icon=":material/table:", on_click="ignore")
    with middle:
        st.download_button(t("The whole trace as JSON"), lambda: X.trace_json(trace), file_name="attention_trace.json",
                           mime="application/json", key="export_json", icon=":material/data_object:",
                           on_click="ignore")
    with right:
        # step 8's query and the link back, as this run shows them: the file itself is built on the click
        query, link, lang = int(st.session_state.get("query") or 0), lesson_url(), language()

        def handout() -> str:  # built in a later request, maybe outside this session's run: in this page's language
            with speaking(lang):
                return X.handout_html(trace, query=min(query, trace.n - 1), link=link)
        st.download_button(t("Handout (HTML): the lesson with your numbers"), handout,
                           file_name="attention_handout.html", mime="text/html", key="export_html",
                           icon=":material/description:", on_click="ignore")
    st.caption(t("CSV rows and columns carry the tables' labels (tokens, dimensions); a label that starts with =, +, - "
                 "or @ gets a ' in front (so that a spreadsheet does not run it as a formula); numbers keep full "
                 "precision. "
                 "The handout is the walkthrough as one page to print or keep: your sentence, the settings, each "
                 "step's text, figures and tables, and a link back here. It opens offline in any browser, and every "
                 "chart in it is an SVG image: “Save image as” in the browser saves it."))
