"""The phonebook lookup: keys are not values. A hard lookup and attention's soft lookup side by side."""

import pandas as pd
import streamlit as st

from attention.phonebook import clean_book, lookup
from ui import components as ui
from ui import model_map
from ui.links import BOOK_CELL_CHARS, BOOK_STATE, MAX_BOOK_ROWS, PHONEBOOK_QUERY_CHARS, book_in_link, default
from ui.links import PHONEBOOK_TEMPERATURES as TEMPERATURES
from ui.settings import first_example
from viz import formulas as L
from viz import phonebook as P
from viz.i18n import decimal, said, t
from viz.labels import markdown_text

st.title(t("The phonebook: keys are not values"))
first_query = first_example("pb_query", default("pb_query"))  # the box's name when it has none: the reader's example
ui.lesson("phonebook/00_intro", query=markdown_text((st.session_state.get("pb_query") or "").strip() or first_query))
map_slot = st.container()  # filled once the book and the query are read

left, right = st.columns([3, 2])
with left:
    # The editor's rows start from the link's (or, back on this page, the session's last) and the page keeps
    # the edited rows where the link reads them: the editor itself keeps only its changes, while drawn.
    if "book" not in st.session_state:
        st.session_state["_pb_base"] = st.session_state.get(BOOK_STATE, first_example("book", default("book")))
    book = st.data_editor(
        pd.DataFrame(st.session_state["_pb_base"], columns=["name", "phone"]), num_rows="dynamic", key="book",
        width="stretch",
        column_config={"name": st.column_config.TextColumn(t("name (key)")),
                       "phone": st.column_config.TextColumn(t("phone number (value)"))},
        hide_index=True,
    )
with right:
    query = ui.text_box(t("Look up the name"), key="pb_query", limit=PHONEBOOK_QUERY_CHARS,
                        value=first_query, persist_state="session")
    temperature = st.select_slider(t("Temperature T"), TEMPERATURES, value=default("pb_temperature"),
                                   key="pb_temperature", persist_state="session")

rows = list(zip(book["name"], book["phone"], strict=True))
if not book_in_link(rows):
    st.caption(t("The link keeps the first {rows} rows, and the first {chars} characters of a name or number.",
                 rows=MAX_BOOK_ROWS, chars=BOOK_CELL_CHARS))
names, phones, problems, table_rows = clean_book(rows)
for problem in problems:
    st.warning(markdown_text(said(problem)), icon="📒")
# No st.stop(): it would also stop app.py, which draws the share-link box after the page.
result = lookup(names, phones, query, temperature=temperature) if names and query.strip() else None
with map_slot:
    model_map.phonebook(result)
if not names:
    st.info(t("The phonebook is empty. Add a row with a name and a number to look something up."))
elif not query.strip():
    st.info(t("Type a name to look up."))
else:
    st.subheader(t("Hard lookup and soft lookup"), divider="gray")
    ui.lesson("phonebook/01_hard_soft")
    hard, soft = P.key_bars(result, soft=False), P.key_bars(result, soft=True)
    left, right = ui.wrapping_row([hard.width, soft.width])  # two columns shrank them to 0.7 at 1280
    with left:
        ui.chart(hard, "pb-scores")
        st.markdown(P.hard_answer(result, table_rows))
    with right:
        ui.chart(soft, "pb-weights")
        st.markdown(P.soft_answer(result))
    weight_decimals = abs(P.weight_decimals(result))
    ui.table(P.lookup_frame(result), "pb-lookup", decimals=[0, 0, 0, 3, weight_decimals])
    ui.matrix(P.answers_figure(result), P.answers_frame(result), "pb-answers", side_by_side=False, decimals=2)

    st.subheader(t("Temperature: from soft to hard"), divider="gray")
    ui.lesson("phonebook/02_temperature")
    st.latex(L.apart(L.words(t("soft")) + r" = \operatorname{softmax}\!\left(\frac{q \cdot K^\top}{T}\right) V,",
                     "T = " + decimal(f"{temperature:g}").replace(",", "{,}") + ",",
                     rf"\max_j \alpha_j = {L.plain(result.weights.max(), weight_decimals)}"))
    ui.lesson("phonebook/03_back_to_attention")
