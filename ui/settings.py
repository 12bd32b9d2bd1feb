"""The settings every lesson shares, drawn once in the sidebar by app.py and kept in the link.

Widget keys are also the URL's query-parameter names (ui/links.py reads the URL into them once a
session and writes them back at the end of every run), so a copied link reproduces the lesson.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import streamlit as st
from streamlit.errors import StreamlitAPIException

from attention import MAX_CHARS, MAX_TOKENS, SentenceError, tokenize
from attention.cross import EXAMPLE_PAIRS
from attention.phonebook import EXAMPLE_BOOKS
from ui import i18n as session_language
from ui.components import resend_labels, said_cut, text_box
from viz.i18n import N_, language, listed, nt, said, t, whole
from viz.labels import markdown_text

DEFAULT_SENTENCE = "This forum is awesome"  # the link's default: a link without a sentence means this one
# The sentence a session starts with when its link names none, in the reader's language (issue 45); any other than
# DEFAULT_SENTENCE is written into the link, so a shared link or a class shows every reader the same sentence
EXAMPLE_SENTENCES = {"es": "Este foro es genial", "fr": "Ce forum est génial", "zh": "这个论坛很棒"}
# Every text a session opens on in its reader's language, by its setting's key (the link names it: ui.links.named)
EXAMPLES: dict[str, dict[str, Any]] = {
    "sentence": EXAMPLE_SENTENCES,
    "ca_source": {lang: source for lang, (source, _) in EXAMPLE_PAIRS.items()},  # English, for every reader
    "ca_target": {lang: target for lang, (_, target) in EXAMPLE_PAIRS.items()},
    "pb_query": {lang: query for lang, (query, _) in EXAMPLE_BOOKS.items()},
    "book": {lang: [list(row) for row in book] for lang, (_, book) in EXAMPLE_BOOKS.items()},
}
DEFAULT_SEED = 42
DEFAULT_D_MODEL = 8
MAX_SEED = 999_999
D_MODEL_RANGE = (2, 16)
_LAST_GOOD = "_last_good_sentence"  # not a widget key, so it outlives page switches
T = TypeVar("T")


@dataclass(frozen=True)
class Shared:
    sentence: str
    seed: int
    d_model: int
    positional: bool
    causal: bool


LESSON = "lesson"  # the keyed fragment app.py draws a learner's lesson in, with what reads it (the link, the share box)
FULL_RUN = "_full_run"  # a callback that changes what is drawn outside that fragment asks for a whole run here
SCOPED = True  # False: every edit runs the whole page (tests/test_lesson_fragment.py compares the two)


def rerun_lesson_only() -> None:
    """The sentence's and the seed's callback: a learner's typed edit reruns only the lesson fragment (app.py), not
    the sidebar, whose box already shows the new value and whose other parts do not depend on it (issue 46: an
    edit's run sends the lesson's elements alone). Where the last whole run drew no such fragment (a class's
    page, the class page) or the sidebar shows something an edit changes (an example's notice offering the learner's
    own sentence back; the message of a text cut under the box), the callback returns and the whole page runs, as for
    any other widget."""
    if not SCOPED or REPLACED in st.session_state or said_cut("sentence"):
        return
    try:
        st.rerun(LESSON)
    except StreamlitAPIException:  # no lesson fragment was drawn by the last whole run
        return


def rerun_whole_page() -> None:
    """For a callback whose change shows outside the lesson fragment (the sidebar's sentence box, the settings a page
    reads, another page): the lesson's next run, if it is the fragment's alone, runs the whole page instead."""
    st.session_state[FULL_RUN] = True


def current_shared() -> Shared:
    """The shared settings as the session holds them now (the widgets' values): what ``draw_shared_sidebar`` returned,
    for a run that does not draw the sidebar (the lesson fragment's own, a following student's)."""
    state = st.session_state
    return Shared(sentence=str(state.get("sentence", first_sentence()) or ""),
                  seed=int(state.get("seed", DEFAULT_SEED)),
                  d_model=int(state.get("d_model", DEFAULT_D_MODEL)),
                  positional=bool(state.get("positional", False)),
                  causal=bool(state.get("causal", False)))


def _new_seed() -> None:
    """"New random": a fresh seed, never the one already shown."""
    current = st.session_state.get("seed", DEFAULT_SEED)
    st.session_state["seed"] = random.choice([s for s in range(10_000) if s != current])


REPLACED = "_replaced_sentence"  # (the learner's sentence, the example that replaced it)


BARE_VISIT = "_bare_visit"  # the session's first link named no lesson setting (set by ui.links.clean_link)


def first_example(key: str, english: Any) -> Any:
    """What a session's ``key`` shows when it has none: the example in the running language (``EXAMPLES``) for a
    visit whose link named no lesson setting, else ``english``, the link's default (a link that names a state but
    not this means the English example, whoever reads it: a shared link shows every reader the same numbers)."""
    if not st.session_state.get(BARE_VISIT, True):
        return english
    return EXAMPLES[key].get(language(), english)


def first_sentence() -> str:
    """The sentence a session shows when it has none (``first_example``)."""
    return first_example("sentence", DEFAULT_SENTENCE)


def replace_sentence(example: str) -> None:
    """A callback's: put an example into the sentence box, and keep the learner's own sentence so that the
    sidebar can say what happened and offer it back (in every lesson: the sentence is shared)."""
    mine = st.session_state.get("sentence", first_sentence())
    if mine != example:
        earlier = st.session_state.get(REPLACED)
        # a second example after the first: the learner's sentence is still the one they typed
        own = earlier[0] if earlier and earlier[1] == mine else mine
        st.session_state[REPLACED] = (own, example)
    st.session_state["sentence"] = example
    rerun_whole_page()  # the sidebar's box and its notice show it


def _restore_sentence() -> None:
    own, _ = st.session_state.pop(REPLACED)
    st.session_state["sentence"] = own


def _replaced_notice(sb, sentence: str) -> None:
    """While the box holds an example a button put there: say so, and offer the learner's sentence back."""
    replaced = st.session_state.get(REPLACED)
    if not replaced:
        return
    own, example = replaced
    if sentence != example:  # the learner has typed since: their text is the sentence now
        del st.session_state[REPLACED]
        return
    sb.info(t("An example replaced your sentence, “{sentence}”, in every lesson.",
              sentence=markdown_text(_clipped(own, 80))), icon=":material/swap_horiz:")
    sb.button(t("Back to my sentence"), key="sentence_back", on_click=_restore_sentence, width="stretch")


SETTING_NAMES = {"sentence": N_("the sentence"), "seed": N_("the seed"), "d_model": N_("d_model"),
                 "positional": N_("positional encodings"), "causal": N_("the causal mask")}  # English: t() translates
# The shared settings each page reads (by its address; a page not named reads them all). The others are
# drawn disabled there, and the sidebar says which they are: a learner who changed the sentence on the
# phonebook page saw nothing happen (issue 34). Disabled, not hidden: the learner still sees the settings the
# other lessons use, and that this page ignores them.
# tests/test_settings_used.py checks each claim: changing a setting a page does not read leaves it as it was.
USED_BY = {
    "phonebook": frozenset(),  # its own phonebook, its own vectors
    "learn": frozenset({"seed"}),  # its own tasks and sequences
    "cross": frozenset({"seed", "d_model", "positional"}),  # its own two sentences; cross-attention has no mask
    "real_model": frozenset({"sentence"}),  # the model's own sizes (SmolLM2's induction demo reads the seed too)
    "generate": frozenset({"sentence"}),
    "classmode": frozenset(),
}


def settings_used(page: str) -> frozenset[str]:
    """The shared settings ``page`` (its address) reads, with the page's own choices as the session holds them."""
    if page == "real_model" and st.session_state.get("rm_model") == "smollm2":
        return frozenset({"sentence", "seed"})  # the seed picks the induction demo's words
    return USED_BY.get(page, frozenset(SETTING_NAMES))


# each language named in itself, never translated: a reader who cannot read the page's language finds their own
LANGUAGE_NAMES = {"en": "English", "es": "Español", "fr": "Français", "zh": "简体中文"}


def _language_menu(sb) -> None:
    """The language of the app, at the top of the sidebar, once more than one is offered (ui.i18n.OFFERED): the
    browser's until the learner or a link chooses (the link's lang). Every other setting is kept: the next run
    writes the same page, step and numbers in the chosen language."""
    offered = session_language.OFFERED  # (read at each run: a test offers more)
    if len(offered) < 2:
        return
    st.session_state[LANGUAGE_MENU] = language()  # the running language: the link's, the menu's or the browser's
    sb.selectbox(":material/translate: " + t("Language"), offered, key=LANGUAGE_MENU, format_func=LANGUAGE_NAMES.get,
                 on_change=_choose_language)


LANGUAGE_MENU = "lang_menu"


def _choose_language() -> None:
    """The menu's callback: the chosen language, for this run and the link (ui.i18n.begin reads it).

    Every setting and a question's chosen answer (a radio holding its option's place) are set again to their own
    values (``ui.components.resend_labels``), so that the next run sends each menu its label in the new language:
    else the browser sent back the old language's label ("Plain SGD", "0.003"), and the next click reset the menu
    to its default (found in Chromium by the review of the menu; AppTest does not pass labels)."""
    from ui.links import SETTINGS  # (ui.links reads this module's defaults: imported when the menu is used)

    state = st.session_state
    state[session_language.LANG_STATE] = state[LANGUAGE_MENU]
    answers = {key for key in state if isinstance(key, str) and key.startswith(QUESTION_PREFIXES)
               and isinstance(state[key], int) and not isinstance(state[key], bool)}
    resend_labels({setting.key_of(key) for key, setting in SETTINGS.items()} | answers)


QUESTION_PREFIXES = ("ex-", "mh-ex-")  # a question's radio (ui.exercises.question_box): its option's place


def draw_shared_sidebar(page: str = "", *, controls: bool = True) -> Shared:
    """The sentence, seed, d_model and positional-encoding controls, bound to the URL; those the ``page``
    (its address) does not read are disabled, and a caption names them. Without ``controls`` (a student following
    the class: the teacher's settings are applied on every change of the class's lesson) the settings as the session
    holds them, and a line that says whose they are."""
    sb = st.sidebar
    sb.title("Attention Lab")
    _language_menu(sb)
    if not controls:
        sb.caption(t("Your page follows your teacher's lesson: each change of it sets your sentence, seed, d_model, "
                     "positional encodings and causal mask to your teacher's."))
        shared_now = current_shared()
        # the sentence, where a lesson's button ("Show me") says it puts its example
        sb.caption(t("Sentence: “{sentence}”", sentence=markdown_text(_clipped(shared_now.sentence, 120))))
        return shared_now
    used = settings_used(page)
    sentence = text_box(  # longer text could never be shown, and would make links too long to open
        t("Sentence"), key="sentence", limit=MAX_CHARS, container=sb, value=first_sentence(), persist_state="session",
        on_change=rerun_lesson_only,
        help=t("Words and punctuation become tokens; at most {tokens} tokens and {chars} characters.",
               tokens=MAX_TOKENS, chars=whole(MAX_CHARS)),
        disabled="sentence" not in used,
    )
    _replaced_notice(sb, sentence)
    seed = sb.number_input(
        t("Seed"), min_value=0, max_value=MAX_SEED, value=DEFAULT_SEED, step=1, key="seed", persist_state="session",
        on_change=rerun_lesson_only,
        help=t("The same seed always gives the same embeddings and random matrices."), disabled="seed" not in used,
    )
    sb.button(t("New random seed"), key="new_seed", on_click=_new_seed, width="stretch", disabled="seed" not in used)
    sizes = {"d_model", "positional", "causal"}
    with settings_popover(t("Sizes, encodings and mask"), key="shared_settings", disabled=not sizes & used):
        d_model = st.slider(t("d_model (embedding size)"), *D_MODEL_RANGE, value=DEFAULT_D_MODEL, key="d_model",
                            persist_state="session", disabled="d_model" not in used)
        positional = st.toggle(
            t("Add positional encodings"), value=False, key="positional", persist_state="session",
            help=t("Sinusoidal encodings from the original Transformer paper, added to the embeddings."),
            disabled="positional" not in used,
        )
        causal = st.toggle(
            t("Causal mask (decoder)"), value=False, key="causal", persist_state="session",
            help=t("A decoder may not look at later tokens: query i attends only to tokens 1 … i."),
            disabled="causal" not in used,
        )
    # the values of the popover's settings this page reads (the cross page's status named a mask it has none of)
    status = {"d_model": t("d_model {d_model}", d_model=d_model),
              "positional": t("positional encodings {state}", state=t("on") if positional else t("off")),
              "causal": t("causal mask {state}", state=t("on") if causal else t("off"))}
    if sizes & used:
        sb.caption(" · ".join(said for key, said in status.items() if key in used))
    unused = [t(name) for key, name in SETTING_NAMES.items() if key not in used]
    if unused:
        sb.caption(nt("This page does not read this setting of the sidebar (it has its own, or none): {settings}. The "
                      "other lessons still use this setting.",
                      "This page does not read these settings of the sidebar (it has its own, or none): {settings}. "
                      "They are kept for the other lessons.", len(unused), settings=listed(unused)))
    return Shared(
        sentence=sentence or "", seed=int(seed), d_model=int(d_model), positional=bool(positional), causal=bool(causal)
    )


HANDHELD = ("Mobi", "Android", "iPhone", "iPad", "Tablet")  # words of a phone's or a tablet's User-Agent


def on_a_desktop() -> bool:
    """Whether the browser says it is a desktop one: a User-Agent that names no phone or tablet. (No header, as
    under AppTest: not known, so not a desktop.)"""
    agent = st.context.headers.get("User-Agent", "")
    return bool(agent) and not any(word in agent for word in HANDHELD)


def sentence_on_phones(page: str):
    """On a phone the sidebar starts closed, and the sentence every number comes from was hidden behind it:
    a line at the top of the page names it there (ui.components.TABLE_CSS shows it on narrow screens only).
    Returns a function to call once the lesson has run: it writes the sentence the lesson showed (the last
    one that worked, when the box holds text it could not show)."""
    # Not on a desktop browser's page: the rule that hides it on a wide screen (TABLE_CSS) comes through st.html,
    # whose code Streamlit loads only after the first paint, and a desktop page flashed the line meanwhile (issue
    # 47; Markdown's HTML is loaded late too). Every narrow page whose browser says it is a desktop goes without it:
    # a tablet that says so (iPadOS Safari), a phone asking for the "Desktop site" (Android's Chrome), a desktop
    # window 320 px wide or zoomed to 400 % with the sidebar closed. The sidebar's sentence is one tap away.
    if "sentence" not in settings_used(page) or on_a_desktop():
        return lambda **_: None
    box = st.container(key="phone-sentence")

    def write(*, drawn: bool = True, changeable: bool = True, teachers: str | None = None) -> None:
        """``drawn``: the lesson was drawn (a class's student sees none while paused or while a question is open);
        ``changeable``: this reader may change the sentence (not a student following the class, issue 47);
        ``teachers``: the sentence of the class's lesson, named as the teacher's only where it is the one shown (a
        lesson's own button, such as a real model's "Show me", may have put another since)."""
        if not drawn:
            return
        sentence = st.session_state.get(SHOWN, {}).get("sentence", shared().sentence)
        shown = markdown_text(_clipped(sentence, 120))
        if changeable:
            box.caption(t("Sentence: “{sentence}” (change it in the sidebar: » at the top left)", sentence=shown))
        elif sentence == teachers:
            box.caption(t("Sentence: “{sentence}” (your teacher's)", sentence=shown))
        else:
            box.caption(t("Sentence: “{sentence}”", sentence=shown))
    return write


def _clipped(text: str, limit: int) -> str:
    """``text``'s first ``limit`` characters, and "…" where it goes on."""
    return text[:limit] + ("…" if len(text) > limit else "")


def settings_popover(label: str, *, key: str, disabled: bool = False):
    """A sidebar button that opens these settings. Its widgets run on every rerun (their values and
    links stay), but the browser draws them only while it is open: each drawn widget cost a rerun
    10–20 ms, and the sidebar's nine took the walkthrough's interaction from 1.3× to 2× a bare page
    (issue 9). A caption under it shows the current values."""
    return st.sidebar.popover(label, key=key, icon=":material/tune:", width="stretch", disabled=disabled)


def shared() -> Shared:
    """The shared settings as app.py drew them in this run."""
    return st.session_state["_shared"]


def trace_or_explain(shared: Shared, trace: Callable[..., T], **options) -> T:
    """``trace(sentence, …)`` on the learner's sentence; if it can't be shown, say why and trace the
    last sentence that could.

    ``trace`` is an engine tracer (``trace_self_attention``, ``trace_multi_head``); it gets the
    shared settings and ``options``. The learner's text stays in the box untouched, and the rest of
    the page keeps working.
    """
    sentence = usable_sentence(shared.sentence, memory=_LAST_GOOD, default=first_sentence())
    return trace(sentence, d_model=shared.d_model, seed=shared.seed, positional=shared.positional,
                 causal=shared.causal, **options)


SHOWN = "_shown"  # a box's key -> the text the lesson shows this run, when that is not the box's (ui/links.py)


def usable_sentence(text: str, *, memory: str, default: str, label: str = "",
                    check: Callable[[str], object] = tokenize, box: str = "sentence") -> str:
    """``text`` if it can be shown; otherwise a message saying why, and the last text that could,
    remembered under the session key ``memory`` (``default`` before there was one). ``label`` names
    the box in the message when a page has more than one; ``check`` raises SentenceError for text it
    can't take (the lessons' tokenizer, or a real model's).

    The text shown is what the link holds for ``box`` (the box's key), so that a link reproduces the
    lesson on screen, not text it could not show; the share box says so."""
    try:
        check(text)
    except SentenceError as error:
        last = st.session_state.get(memory, default)
        message = error.message  # its example, the reader's language's (the engine names the English one)
        if "example" in message.values:
            message = message._replace(values={**message.values, "example": first_sentence()})
        why = markdown_text(said(message))
        why = t("{box}: {why}", box=t(label), why=why) if label else why
        until = t("Until then the lesson shows the last sentence that worked: “{sentence}”.",
                  sentence=markdown_text(last))
        st.warning(f"{why}\n\n{until}", icon="✏️")
        st.session_state.setdefault(SHOWN, {})[box] = last
        return last
    st.session_state[memory] = text
    return text
