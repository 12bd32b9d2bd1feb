"""Render helpers: a heatmap with its number table beside it, lesson text from assets/."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ui import view
from viz.i18n import enumeration, t, whole
from viz.labels import markdown_text
from viz.steps import lesson_markdown
from viz.svg import Svg

SIDE_BY_SIDE_MAX_COLUMNS = 6
MAX_TABLE_CELLS = 400
# Our own static CSS (no user text), drawn once a run by app.py:
# - columns that hold a table are as wide as their content and wrap, instead of taking fixed shares
#   of the page: a table stays beside its heatmap while both fit and goes under it when they don't.
#   With fixed shares the α table of a 6-token sentence needed 430 px in a 370 px column at 1400 px
#   (320 at 1280), and its last columns were out of view;
# - a Markdown table wider than the whole page scrolls sideways inside it (as st.table did) instead
#   of running past the page's edge;
# - cells are as compact as st.table's, one line each (a label never wraps into a tall row);
# - Previous and Next show their keys (PageUp, PageDown: a presentation clicker's) only where the button has
#   room for them (at 1024 px in presenter mode "Previous" was cut to "Prev…") and a keyboard is likely: a
#   phone's touch screen has no PageUp;
# - the sentence is named at the top of a page on a phone or a small tablet, whose sidebar starts closed
#   (Streamlit closes it up to 768 px; ui.settings);
# - text meets WCAG 2.1 AA's 4.5:1 on the backgrounds of both themes (issue 44; tests/browser/axe.py): Streamlit's
#   captions and the buttons' key hints are the text's colour at 60 % opacity (on light, 3.9:1 on white and 3.8:1 on
#   the sidebar's grey), now 75 % (5.7:1 and more on light, 7.4:1 and more on dark, a popover's included, since the
#   text's own colour follows the theme); a slider's value keeps Streamlit's red on light (#c53948, 5.2:1 on white)
#   and was 3.9:1 on dark, now #ff7a7a (7.2:1); a chosen segment ("Follow me") was red on its pink, 4.2:1 (3.2:1 on
#   dark), now #a3303c (5.6:1) and #ff8a8a (6.6:1). light-dark() reads the page's colour scheme, which Streamlit
#   sets on the app but not on a popover (drawn outside it): static/arrival.js copies the app's scheme to the
#   document;
# - a table of over 400 cells scrolls both ways in its own box (static/table.js makes the box reachable by keyboard):
#   the table in it overflows the box rather than scrolling sideways on its own, where no key reached it (a 64-token
#   α). It stays a block as wide as the box, so that what it draws never changes the box's size (as a table, its
#   width followed the rows drawn, and a real model's page never settled);
# - a learner's own text spacing (WCAG 1.4.12: line height 1.5, letter spacing 0.12 em, word spacing 0.16 em,
#   paragraphs 2 em apart) cuts no text: the sidebar's lesson names wrap rather than end in "…" ("Phonebook: keys
#   vs values" did), and tabs ("head 1") and a segmented control's buttons (a real model's layers "13–18") grow
#   taller rather than cut their labels' tops; at the usual spacing each keeps its height (the min-heights);
# - a class question's numbers (a row of Z or α, ui.classmode) scroll inside their box, as the lessons' tables do:
#   a 64-token row was 5,431 px wide and scrolled the whole projector's page sideways; the sentence under the table
#   holds every number, wrapped (static/arrival.js makes a scrolling one reachable by keyboard);
# - a display formula written with viz.formulas.apart wraps between its parts where the screen is too narrow for it
#   (a phone), instead of running past the page's edge. KaTeX keeps a display formula on one line (nowrap); let wrap,
#   it would break after any relation or operator at its top level, and apart braces each part, so that its
#   \allowbreak are the only such places;
# - a learner who asked their system for reduced motion gets none: no transition, animation or smooth scroll, the
#   app's or Streamlit's (an expander's opening, a button's fade, a spinner: WCAG 2.3.3, issue 44); the player stops
#   its own Play (static/player.js).
TABLE_CSS = """<style>
[data-testid="stHorizontalBlock"]:has([class*="st-key-table-"]) > [data-testid="stColumn"] {
  flex: 1 1 auto; width: auto;
}
[class*="st-key-table-"] table, .st-key-cm-numbers table, .st-key-cm-desk-numbers table,
.st-key-projector-numbers table { display: block; max-width: 100%; overflow-x: auto; }
[class*="st-key-table-"].alv-scroll table { max-width: none; overflow: visible; }
[class*="st-key-table-"] th, [class*="st-key-table-"] td { padding: 0.25rem 0.5rem; white-space: nowrap; }
.st-key-prev_step, .st-key-next_step { container-type: inline-size; }
@container (max-width: 190px) { .st-key-prev_step kbd, .st-key-next_step kbd { display: none; } }
@media (pointer: coarse) { .st-key-prev_step kbd, .st-key-next_step kbd { display: none; } }
@media (min-width: 769px) { .st-key-phone-sentence { display: none; } }
.katex-display > .katex:has(.allowbreak) { white-space: normal; }
[data-testid="stCaptionContainer"], .st-key-prev_step kbd, .st-key-next_step kbd { opacity: 0.75; }
[data-testid="stSliderThumbValue"] p { color: light-dark(#c53948, #ff7a7a); }
[data-variant="segmented_control"][aria-checked="true"] p { color: light-dark(#a3303c, #ff8a8a); }
[data-testid="stSidebarNavLink"] { height: auto; min-height: 2rem; }
[data-testid="stSidebarNavLink"] span, [data-testid="stSidebarNavLink"] [data-testid="stMarkdownContainer"] {
  white-space: normal; overflow: visible; text-overflow: clip; height: auto; }
[data-testid="stTabs"] [role="tablist"], [data-testid="stTabs"] [role="tab"] { height: auto; min-height: 2.5rem; }
[data-testid="stButtonGroup"] button { height: auto; min-height: 2rem; }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: 0.01ms !important; animation-iteration-count: 1 !important;
    transition-duration: 0.01ms !important; scroll-behavior: auto !important; }
}
</style>"""


def in_a_class() -> bool:
    """Whether this session is a class's student's, whose pages follow the teacher (ui.classmode)."""
    return st.session_state.get("_cm_student") is not None


def lesson(name: str, **fields: str) -> None:
    """Show a lesson text from assets/<name>.md (our own text, never user input), each ``{field}`` in it replaced by
    the Markdown given (escape a learner's text: ``viz.labels.markdown_text``), so that the text names what the page
    shows ("people whose name is like “Anna”", the name in the box).

    On a class's student's page (ui.classmode) a lesson's intro is folded away, so that the page opens
    on what the teacher is showing, not on the text above it."""
    text = lesson_markdown(name)
    for field, value in fields.items():  # not str.format: the texts' TeX has braces of its own
        text = text.replace("{" + field + "}", value)
    if name.endswith("/00_intro") and in_a_class():
        with st.expander(t("About this lesson"), icon=":material/info:"):
            st.markdown(text)
    else:
        st.markdown(text)


def step(number: int, total: int, title: str, *, anchor: str | None = None) -> None:
    st.subheader(t("Step {number} of {total} · {title}", number=number, total=total, title=t(title)),
                 anchor=anchor or f"step-{number}", divider="gray")


def lazy_expander(label: str, *, key: str, expanded: bool = False, **options):
    """An expander whose ``.open`` says whether it is open; put its content under ``if ….open:`` so
    that nothing is built or sent while it is closed (opening it reruns the page)."""
    return st.expander(label, expanded=expanded, key=key, on_change="rerun", **options)


def _cut(key: str, limit: int, then: Callable[[], None] | None = None) -> None:
    """on_change of a text box: keep the first ``limit`` characters, and note how long the text was; else ``then()``
    (the box's own callback: it may rerun only a fragment, as the box already shows what was typed)."""
    text = st.session_state.get(key) or ""
    if len(text) > limit:
        st.session_state[key] = text[:limit]
        st.session_state[f"_cut_{key}"] = len(text)
    elif then is not None:
        then()


def said_cut(key: str) -> bool:
    """Whether the text box ``key`` shows, since the last whole run, that it cut a text (only a whole run takes the
    message away)."""
    return bool(st.session_state.get(f"_cut_said_{key}"))


def text_box(label: str, *, key: str, limit: int, area: bool = False, container=None,
             on_change: Callable[[], None] | None = None, **options) -> str:
    """A text box that never drops what a learner pastes: text over ``limit`` characters is cut to its
    first ``limit``, and a message under the box says so (after a whole run: ``on_change`` is called only for text
    that was not cut).

    Not Streamlit's ``max_chars``: with it the browser refuses a longer paste whole and leaves the box
    as it was, with only the counter to tell (and it counts UTF-16 units, so 1,000 emoji, 2,000 units,
    were refused too; issue 26). Here characters are Python's, as the lessons count them.
    """
    box = container or st
    cut = st.session_state.pop(f"_cut_{key}", None)
    st.session_state[f"_cut_said_{key}"] = bool(cut)  # its message under the box, until a whole run (said_cut)
    widget = box.text_area if area else box.text_input
    value = widget(label, key=key, on_change=_cut, args=(key, limit, on_change), **options)
    if cut:
        name = label.split(" (")[0].split("（")[0]  # the box's name without its explanation, in any language
        box.warning(t("{box}: the text had {count} characters; the box keeps the first {limit}.", box=name,
                      count=whole(cut), limit=whole(limit)), icon=":material/content_cut:")
    return value or ""


_MENU_LABELS = "_menu_labels"  # per menu (a selectbox's key): the labels it was last drawn with


def resend_labels(keys) -> None:
    """Set each widget of ``keys`` the session holds to its own value, so that the next run sends the browser its
    label again. Streamlit passes a menu's choice between browser and server as its label, not its option, and sends
    the browser no new label when the chosen option keeps its place: when the labels change (a new sentence's tokens,
    another language), the browser would send the old label back, which no option names any more."""
    state = st.session_state
    for key in set(keys) & set(state.keys()):
        state[key] = state[key]


def keep_menu_in_step(key: str, options: Sequence, labels: Sequence[str], *, default) -> None:
    """Before drawing the selectbox ``key`` whose options are shown by ``labels`` (one each, "3 · sat": a
    number and " · " first, as this app's menus are) when those labels change with other settings (a query
    menu names the sentence's tokens, a generation step what it reads).

    After a new sentence the browser kept "1 · The" where the menu now said "1 · This" (``resend_labels`` says
    why), sent it back, and a later run read it against labels that lacked it, as the value itself: text where the
    page holds a number (the link crashed on int("1 · The"), issue 43). So when the labels change, the choice is
    set again here; a label held as the value is read back as the option its number names now (the place the
    learner chose), or ``default`` if there is none."""
    options, labels = list(options), list(labels)
    drawn = st.session_state.setdefault(_MENU_LABELS, {})
    before, drawn[key] = drawn.get(key), labels
    if key not in st.session_state:
        return
    held = st.session_state[key]
    if isinstance(held, str) and held not in options:  # a label, not an option
        number = held.split(" · ", 1)[0]
        st.session_state[key] = next((o for o, label in zip(options, labels, strict=True)
                                      if label.split(" · ", 1)[0] == number), default)
    elif before is not None and before != labels and held in options:
        resend_labels([key])


def forget_stale_choice(key: str, options, *, label: str, why: str, default) -> None:
    """Before drawing the widget ``key`` whose options depend on other settings (a model's layers, a
    run's saved steps): a value in the session or in the link that is no longer an option is replaced
    by ``default`` (the widget's own default), and the page says so, with ``why`` (a link's value that
    no option matches was dropped without a word, issue 26; a choice another setting made impossible, as
    well). A link's value is named as the link writes it ("rm_layer=30"); a choice made on the page, by the
    control's ``label`` as the learner reads it ("Layer 30"; issue 43: "gen_step=7" named a key no learner
    sees).

    Set, not deleted: a deleted value left the browser showing the old choice ("30" in MiniLM's layer
    box after SmolLM2's layer 30) while the page drew layer 1. The widget still gets its default
    argument, the same on every run (config.toml silences Streamlit's log line about both)."""
    linked = linked_keys()
    from_link = key in linked  # the session's first look at a value its link set
    linked.discard(key)
    if key not in st.session_state or st.session_state[key] in list(options):
        return
    held = str(st.session_state[key])
    held = held if len(held) <= 30 else held[:29] + "…"
    if from_link:
        st.warning(t("“{setting}” could not be used: {why}. The default is shown.",
                     setting=markdown_text(f"{key}={held}"), why=markdown_text(why)), icon=":material/link_off:")
    else:  # another setting changed under it (d_model under the heads, the model under its layer)
        st.info(t("{label} {held} no longer fits: {why}. {label} {default} is shown instead.",
                  label=markdown_text(label), held=markdown_text(held), why=markdown_text(why),
                  default=markdown_text(str(default))), icon=":material/info:")
    st.session_state[key] = default


def linked_keys() -> set[str]:
    """The settings the session's link set and no one has looked at since (ui.links.clean_link fills it;
    ``forget_stale_choice`` takes each out as it checks it, so a later change is not blamed on the link)."""
    return st.session_state.setdefault("_linked", set())


def forget_stale_choices(key: str, options, *, why: str) -> None:
    """``forget_stale_choice`` for a multiselect: before drawing it, the chosen values (in the session or
    the link) that are no longer options are dropped, and the page says which, with ``why`` (a head
    "L19 H7" chosen for SmolLM2, with MiniLM's six layers)."""
    allowed = set(options)
    chosen = list(st.session_state.get(key) or [])
    stale = [c for c in chosen if c and c not in allowed]
    if stale:
        st.warning(t("{choices} could not be used: {why}.", choices=markdown_text(enumeration(stale[:5])),
                     why=markdown_text(why)), icon=":material/link_off:")
        st.session_state[key] = [c for c in chosen if c in allowed]


def chart(fig: Svg, key: str, *, width: int | Literal["stretch"] = "stretch") -> None:
    """A chart drawn on the server, shown as an image (no script, nothing for the browser to lay out);
    ``.st-key-fig-<key>`` (a box ``width`` wide) finds it in the browser, and "Save image as" saves
    the SVG."""
    with st.container(key=f"fig-{key}", width=width):
        st.image(fig.markup, width="content", alt=fig.alt or None)  # alt: what a screen reader says


def wrapping_row(widths: Sequence[float]) -> list[DeltaGenerator]:
    """Boxes of these widths (pixels), side by side where they fit and one under the other where
    they don't (a row that wraps). For charts drawn at their own size: one image holding them all,
    or st.columns, would scale them down, labels too, wherever the page is narrower than all of them."""
    row = _row()
    return [row.container(width=round(w)) for w in widths]


def _row() -> DeltaGenerator:
    return st.container(horizontal=True, wrap=True, gap=16)  # pixels: three 300 px charts fit a row at 1400 px


def chart_row(charts: Sequence[tuple[Svg, str]]) -> None:
    """Charts ``(figure, key)`` side by side where they fit at full size, one under the other where
    they don't, as in a ``wrapping_row``; each chart's own box is the row's box (one layout block a
    chart fewer: each costs the browser a little on every rerun)."""
    with _row():
        for fig, key in charts:
            chart(fig, key, width=round(fig.width))


def table(frame: pd.DataFrame, key: str, decimals: int | None = 2, blank: str | None = None,
          names: tuple[str, str] = ("row", "column")) -> None:  # English: ui.view.panel translates
    """The frame's numbers as a table (``.st-key-table-<key>`` in the view ``.st-key-view-<key>``), drawn by the view
    (ui/view.py): the browser writes the cells as text, and a cell answers the pointer with its row and
    column. Beyond 400 cells the table scrolls in a box of its own. ``blank``: what an empty cell's tooltip says;
    ``names``: what a row and a column are (("query", "key"))."""
    view.show([view.panel(key, frame, decimals=decimals, blank=blank, names=names)], key=key)


def matrix(
    fig: Svg, frame: pd.DataFrame, key: str, *, side_by_side: bool = True, decimals: int | None = 2, **answers
) -> None:
    """A heatmap and, beside it, the table of the same numbers, as one element of the view: its cells
    answer hover, focus and the arrow keys in the browser. ``answers`` are the view's panel options
    (``tip``, ``links``, ``choose``, ``names``, ``masked``; see ``ui.view.panel``) and ``on_choice``.

    The table goes under the heatmap in narrow columns (``side_by_side=False``) and when it has more
    than SIDE_BY_SIDE_MAX_COLUMNS columns, which would not fit beside it; side by side, the two wrap
    onto two lines when the page is narrower than both.
    """
    on_choice = answers.pop("on_choice", None)
    below = not side_by_side or len(frame.columns) > SIDE_BY_SIDE_MAX_COLUMNS
    view.show([view.panel(key, frame, fig, decimals=decimals, below=below, **answers)], key=key,
              on_choice=on_choice)


def matrices(panels: Sequence[dict], key: str, on_choice=None) -> None:
    """Several panels (``ui.view.panel``) as one element: a step's Q, K and V side by side where they fit."""
    view.show(panels, key=key, on_choice=on_choice)
