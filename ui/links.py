"""Shareable links: every setting a link holds (``SETTINGS``), read once a session from the URL and
written into it at the end of every run; a check that says which parts of a link were ignored; the
"copy link" box.

The app owns its URL rather than binding widgets to it (``bind="query-params"``): a bound widget left its
default out of the URL by the default of the current call (a default that depended on another setting
reopened as another value: h = 1 came back as h = 2), and dropped its value from the URL whenever it was
not drawn (the chosen query off step 8). Here one function writes the link from the session's settings,
so the address bar, the share box and the lesson a class follows hold the same thing, and a test can read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode

import streamlit as st

from attention import MAX_CHARS, MAX_TOKENS
from attention.cross import EXAMPLE_PAIRS
from attention.phonebook import DEFAULT_BOOK
from attention.pretrained.common import MODELS
from attention.training import HEADS, LEARNING_RATES, RUN_LENGTHS, TASKS
from ui import background
from ui.i18n import LANG_STATE, OFFERED, acceptable
from ui.matrix_editor import LINK_PATTERN, LINK_STATE, MAX_EDITS_CHARS
from ui.settings import (
    BARE_VISIT,
    D_MODEL_RANGE,
    DEFAULT_D_MODEL,
    DEFAULT_SEED,
    DEFAULT_SENTENCE,
    EXAMPLES,
    MAX_SEED,
    SHOWN,
)
from viz.i18n import ENGLISH, N_, language, nt, sentences, t, whole
from viz.labels import markdown_text
from viz.pretrained import layer_pages

PRESET_LABELS = {"random": N_("Seeded random"), "identity": N_("Identity (W = I)")}  # the URL carries the label
CROSS_PRESET_LABELS = {"random": N_("Seeded random"), "aligned": N_("Aligned by a bilingual table (constructed)")}
TASK_LABELS = {name: task.title for name, task in TASKS.items()}  # the URL carries the title
OPTIMIZER_LABELS = {"adam": N_("Adam"), "sgd": N_("Plain SGD")}  # the URL carries the English
MODEL_LABELS = {name: info.title for name, info in MODELS.items()}
MODEL_NAMES = {title: name for name, title in MODEL_LABELS.items()}
# the √d_k lesson's d_k: powers of two, one slider stop each, as its charts' log axes space them (a linear
# slider over 1–512 put 13 where a learner aimed for 16, and 13's and 16's ticks overlapped; issue 34)
DK_CHOICES = tuple(2**k for k in range(10))
TEMPERATURES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
# sampling SmolLM2's next token: T, and top-p (1: off); top-k is a number (0: off)
SAMPLING_TEMPERATURES = (0.1, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 5.0)
TOP_PS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)
MAX_TOP_K = 1000
PHONEBOOK_TEMPERATURES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
PHONEBOOK_QUERY_CHARS = 200  # a name to look up; the box cuts a longer paste to this
PHONEBOOK_QUERY = "Jindrich"
BOOK_CELL_CHARS = 200  # a phonebook's name or number, in a link
MAX_BOOK_ROWS = 60  # rows of a phonebook in a link (the lookup reads the first 50 usable ones)
BOOK_STATE = "_pb_book"  # the session key of the phonebook's rows, as the link writes them
CROSS_SOURCE, CROSS_TARGET = EXAMPLE_PAIRS["fr"]  # the link's default pair (a reader of Spanish or Chinese opens on
# their language's, attention.cross.EXAMPLE_PAIRS, which the link then names)


def _ruled(message: str, **fields: object) -> Callable:
    """A check's rule, as a refused link's warning names it (``rule_of``): ``message`` (English, with its ``fields``)
    in the reader's language. The values in a rule are written as a link writes them ("0.25", never "0,25")."""
    def mark(check: Callable) -> Callable:
        check.__doc__ = message  # (its fields are filled where it is shown: rule_of)
        check.rule = (message, fields)
        return check
    return mark


def rule_of(check: Callable) -> str:
    """What a setting's text must be, in the running language ("a whole number from 0 to 999999 …")."""
    message, fields = check.rule
    return t(message, **{k: v() if callable(v) else v for k, v in fields.items()})


def _whole(low: int, high: int) -> Callable[[str], bool]:
    @_ruled(N_("a whole number from {low} to {high}, in the digits 0–9"), low=low, high=high)
    def check(text: str) -> bool:
        # ASCII digits only: "²", "٣", "+8", "--5", "1e400" and "inf" are refused here, before the bound
        # widget would raise on them (int("²") fails; int(float("inf")) overflows) or quietly re-read them.
        return re.fullmatch(r"[0-9]{1,7}", text) is not None and low <= int(text) <= high

    return check


def _one_of(options) -> Callable[[str], bool]:
    shown = [str(o) for o in options]  # exactly as the widget writes it: "0.5", not "0.50"

    @_ruled(N_("one of {options}"), options=", ".join(shown))
    def check(text: str) -> bool:
        return text in shown

    return check


@_ruled(N_("true or false"))
def _boolean(text: str) -> bool:
    return text.lower() in ("true", "false")


def _text(limit: int) -> Callable[[str], bool]:
    @_ruled(N_("text of at most {limit} characters"), limit=lambda: whole(limit))  # a count: "1,000" in English
    def check(text: str) -> bool:
        return len(text) <= limit

    return check


@_ruled(N_("a head such as L19 H7 (layer 1–30, head 1–12), or nothing"))
def _head(text: str) -> bool:
    found = re.fullmatch(r"L([0-9]{1,2}) H([0-9]{1,2})", text)
    return text == "" or (found is not None and 1 <= int(found[1]) <= 30 and 1 <= int(found[2]) <= 12)


@_ruled(N_("one of {options}"), options=", ".join(OFFERED))  # the languages a learner may choose (not the tests')
def _language(text: str) -> bool:
    return acceptable(text)


@_ruled(N_("a class code: 4–12 letters and digits"))
def _class_code(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9]{4,12}", text) is not None


@_ruled(N_("a teacher's key: 20–64 letters, digits, - and _"))
def _teacher_secret(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_-]{20,64}", text) is not None


@_ruled(N_("hand-edited cells such as Q1.1:5;K2.3:-0.5"))
def _edited_cells(text: str) -> bool:
    return len(text) <= MAX_EDITS_CHARS and LINK_PATTERN.fullmatch(text) is not None


@_ruled(N_("a token's position, such as 3 (or 3 · sat, as older links wrote it)"))
def _query(text: str) -> bool:
    found = re.fullmatch(r"([0-9]{1,2})( · .{0,100})?", text, flags=re.DOTALL)
    return found is not None and 1 <= int(found[1]) <= MAX_TOKENS


@_ruled(N_("a number from 0 to 5 in steps of 0.25"))
def _strength(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return re.fullmatch(r"[0-9.]{1,6}", text) is not None and 0 <= value <= 5 and (value * 4).is_integer()


@_ruled(N_("a phonebook: a JSON list of up to {rows} [name, number] pairs of text"), rows=MAX_BOOK_ROWS)
def _book(text: str) -> bool:
    try:
        rows = json.loads(text)
    except ValueError:
        return False
    return (isinstance(rows, list) and len(rows) <= MAX_BOOK_ROWS and all(
        isinstance(r, list) and len(r) == 2 and all(isinstance(c, str) and len(c) <= BOOK_CELL_CHARS for c in r)
        for r in rows))


ALWAYS = object()  # a setting whose default depends on other settings: written into the link whenever it is set


@dataclass(frozen=True)
class Setting:
    """One setting a link holds: what its text may be (``check``, whose docstring names it), how the text
    becomes the widget's value and back, and the default left out of the link (``ALWAYS``: never left
    out, for a default that depends on other settings, such as the number of heads).

    ``source``: the session key that holds the value, when it is not a widget's (the hand-edited cells,
    the phonebook's rows); ``many``: the link repeats it, one value each (heads switched off)."""

    check: Callable[[str], bool]
    read: Callable[[str], Any] = str
    show: Callable[[Any], str] = str
    default: Any = ALWAYS
    source: str | None = None
    many: bool = False

    def key_of(self, key: str) -> str:
        return self.source or key


def _flag(default: bool) -> Setting:
    return Setting(_boolean, lambda t: t.lower() == "true", lambda v: "true" if v else "false", default)


def _number(low: int, high: int, default: Any = ALWAYS) -> Setting:
    return Setting(_whole(low, high), int, lambda v: str(int(v)), default)


def _position(low: int, high: int, default: Any = 0) -> Setting:
    """A choice counted from 0 on the page (a token, a head, a page of layers) and from 1 in the link."""
    return Setting(_whole(low, high), lambda t: int(t) - 1, lambda v: str(int(v) + 1), default)


def _labelled(labels: dict[str, str], default: str) -> Setting:
    names = {label: name for name, label in labels.items()}
    return Setting(_one_of(tuple(labels.values())), names.__getitem__, labels.__getitem__, default)


def _choice(options: tuple, default: Any) -> Setting:
    kind = type(options[0])
    return Setting(_one_of(options), kind, str, default)


QUERY = Setting(_query, lambda t: int(re.match(r"[0-9]+", t)[0]) - 1, lambda v: str(int(v) + 1), 0)

# Every setting a link holds, in the order a link writes them. Keep in step with the widgets: a widget
# takes its default from here (``default``), and tests/test_links.py checks that every widget a page
# draws is a setting of that page or a display-only control (DISPLAY_ONLY).
SETTINGS: dict[str, Setting] = {
    # the sidebar, on every lesson
    "sentence": Setting(_text(MAX_CHARS), default=DEFAULT_SENTENCE),
    "seed": _number(0, MAX_SEED, DEFAULT_SEED),
    "d_model": _number(*D_MODEL_RANGE, DEFAULT_D_MODEL),
    "positional": _flag(False),
    "causal": _flag(False),
    # the walkthrough
    "d_k": _number(1, 16, 4),
    "preset": _labelled(PRESET_LABELS, "random"),
    "present": _flag(False),
    "step": _number(1, 8, 1),
    "all_steps": _flag(False),
    "query": QUERY,
    "w": Setting(_edited_cells, default=None, source=LINK_STATE),
    # attention from its parts
    "stage": _number(1, 3, 1),
    "parts_compare": _flag(True),
    # cross-attention
    "ca_source": Setting(_text(MAX_CHARS), default=CROSS_SOURCE),
    "ca_target": Setting(_text(MAX_CHARS), default=CROSS_TARGET),
    "ca_preset": _labelled(CROSS_PRESET_LABELS, "random"),
    "ca_dk": _number(1, 16, 8),
    # multi-head attention
    "heads": _number(1, 16),  # its default (2, or 1 for an odd d_model) depends on d_model: always written
    "open_head": _position(1, 16),
    "head_step": _number(3, 8, 3),
    "head-query": QUERY,
    # why √d_k
    "dk_demo": _choice(DK_CHOICES, 64),
    "temperature": _choice(TEMPERATURES, 1.0),
    # the phonebook
    "pb_query": Setting(_text(PHONEBOOK_QUERY_CHARS), default=PHONEBOOK_QUERY),
    "pb_temperature": _choice(PHONEBOOK_TEMPERATURES, 0.2),
    "book": Setting(_book, json.loads, lambda rows: json.dumps(rows, ensure_ascii=False, separators=(",", ":")),
                    default=[list(row) for row in DEFAULT_BOOK], source=BOOK_STATE),
    # similar is not relevant
    "rel_dk": _number(2, 8, 2),
    "rel_query": _position(1, MAX_TOKENS),
    "rel_target": _position(1, MAX_TOKENS, ALWAYS),  # its default, the third token, depends on the sentence
    "rel_strength": Setting(_strength, float, lambda v: f"{float(v):g}", 2.0),
    # watch a head learn
    "lt_task": _labelled(TASK_LABELS, "previous"),
    "lt_heads": _choice(HEADS, 1),
    "lt_opt": _labelled(OPTIMIZER_LABELS, "adam"),
    "lt_lr": _choice(LEARNING_RATES, 0.01),
    "lt_steps": _choice(RUN_LENGTHS, 300),
    "lt_run": _flag(False),
    "lt_step": _number(0, max(RUN_LENGTHS)),  # a step the run did not keep falls back to step 0
    "lt_example": _number(1, 6, 1),
    "lt_head": _number(1, max(HEADS), 1),  # a head the run does not have falls back to head 1
    "lt_head_step": _number(3, 8, 3),
    "lt-head-query": QUERY,
    # a real model
    "rm_model": _labelled(MODEL_LABELS, "minilm"),
    "rm_layers": _position(1, 5),
    "rm_layer": _number(1, max(info.layers for info in MODELS.values()), 1),
    "rm_head": _number(1, max(info.heads for info in MODELS.values()), 1),
    "rm_step": _number(1, 9),  # opens on the scores, step 5 or 6 (the decoder has a RoPE step): always written
    "rm_off": Setting(_head, default=[], many=True),  # ?rm_off=L19+H7&rm_off=L18+H4
    "rm_sink": _flag(False),
    "rm-query": QUERY,
    "rm_temperature": _choice(SAMPLING_TEMPERATURES, 1.0),
    "rm_top_k": _number(0, MAX_TOP_K, 0),
    "rm_top_p": _choice(TOP_PS, 1.0),
    "rm_draw": _number(0, MAX_SEED, 0),
    # writing with a cache
    "gen_count": _number(1, 20, 8),
    "gen_step": _number(1, 19),  # the last step by default: depends on what was written
    "gen_layer": _number(1, 30, 1),
    "gen_head": _number(1, 9, 1),
    # the reader's own, on every page: the language (None: the browser's); a class never follows it
    "lang": Setting(_language, default=None, source=LANG_STATE),
}
SHARED_SETTINGS = ("sentence", "seed", "d_model", "positional", "causal")
READER_SETTINGS = ("lang",)  # in every page's link, after the lesson's settings; never a class's lesson
PAGE_SETTINGS = {  # a page's own settings, by its address (ui.navigation.url_path)
    "": ("d_k", "preset", "present", "step", "all_steps", "query", "w"),
    "multihead": ("heads", "open_head", "head_step", "head-query"),
    "scaling": ("dk_demo", "temperature"),
    "phonebook": ("pb_query", "pb_temperature", "book"),
    "relevance": ("rel_dk", "rel_query", "rel_target", "rel_strength"),
    "parts": ("stage", "parts_compare"),
    "cross": ("ca_source", "ca_target", "ca_preset", "ca_dk"),
    "learn": ("lt_task", "lt_heads", "lt_opt", "lt_lr", "lt_steps", "lt_run", "lt_step", "lt_example", "lt_head",
              "lt_head_step", "lt-head-query"),
    "real_model": ("rm_model", "rm_layers", "rm_layer", "rm_head", "rm_step", "rm_off", "rm_sink", "rm-query",
                   "rm_temperature", "rm_top_k", "rm_top_p", "rm_draw"),
    "generate": ("gen_count", "gen_step", "gen_layer", "gen_head"),
    "classmode": (),
}
# Controls that change how a page is displayed, not its numbers: the link leaves them out, and the share
# box says so. Regular expressions over widget keys.
DISPLAY_ONLY = (
    r".*lines(-highlight|-view-highlight)?",  # the lines view of α and its highlighted token
    r"(.*-)?sums-(scores|softmax|output)", r"editor", r"lt-steps", r"ex-panel", r"mh-ex-panel",  # panels opened
    r"(mh-)?ex-.*",  # answers to the questions (the score is the session's)
    r"walkthrough_settings", r"shared_settings", r"share",  # the boxes the settings are in
    r"new_seed", r"prev_step", r"next_step", r"next_step_end", r"first_step_end",  # buttons that set a setting
    r"export_matrix", r"download-.*",  # downloads
    r"edit-.*", r"w_(q|k|v).*",  # the editor's grids and paste boxes: their result is the link's w
    r"book_editor",  # the phonebook's table: its rows are the link's book
    r"lang_menu",  # the language menu: its choice is the link's lang
    r"rm_scan_layers", r"rm_scan", r"rm_scan_cancel", r"rm_induction", r"rm_induction_off", r"rm_gallery_\d+",
    r"rm_back", r"rm_off_open", r"rm_draw_again", r"bridge_.*",  # bridge_*: to a trained model and back
    r"lt_next",  # the learn page's Next saved step (it sets lt_step, which is in the link)
    r"lt_train", r"lt_cancel", r"gen_measure", r"gen_measure_cancel", r"gen_write",  # actions: train, time the
    r"gen_cancel",  # steps, write (each with its Cancel),
    r"sentence_back",  # take one's sentence back
    r"cm_.*", r"FormSubmitter:cm_.*",  # class mode's own controls and its join form's button
    r"view-.*",  # the views' own state (a click sets a setting)
    r"(.*-)?play-(scores|softmax|output)", r"(.*-)?player-.*",  # a step's player: it plays in the browser
)
PRIVATE = {"teach"}
NOT_SETTINGS = {  # what else a link may hold: class mode's keys, never a lesson's setting
    "class": _class_code,  # a student's join link
    "teach": _teacher_secret,  # the teacher's link, to go on from another device; never in a shared link
    "projector": _class_code,  # the projector's page of a class (no key on it)
}
# Every query parameter a link may hold, and what it accepts
SPECS: dict[str, Callable[[str], bool]] = {key: s.check for key, s in SETTINGS.items()} | NOT_SETTINGS
LISTS = {key for key, s in SETTINGS.items() if s.many}


def check_link(params: dict[str, str | list[str]]) -> dict[str, str]:
    """For each query parameter the lessons can't use (unknown, invalid, or heads that don't divide
    d_model): a message, keyed by the parameter. The messages quote the link's text as plain text;
    escape them for the medium that shows them."""
    problems: dict[str, str] = {}
    for key, value in params.items():
        shown = _short(key)
        if key not in SPECS:
            problems[key] = t("“{parameter}” is not a setting of Attention Lab, so it was ignored.", parameter=shown)
            continue
        values = value if isinstance(value, list) else [value]
        check = SPECS[key]
        bad = next((text for text in (values if key in LISTS else values[-1:]) if not check(text)), None)
        if bad is not None:
            problems[key] = t("“{parameter}={value}” was ignored: {parameter} must be {rule}. The default is used.",
                              parameter=shown, value=_short(bad), rule=rule_of(check))
    heads = params.get("heads")
    if "heads" not in problems and isinstance(heads, str):
        d_model = params.get("d_model")
        d_model = int(d_model) if "d_model" not in problems and isinstance(d_model, str) else DEFAULT_D_MODEL
        if d_model % int(heads):
            divisors = ", ".join(str(h) for h in range(1, d_model + 1) if d_model % h == 0)
            problems["heads"] = t("“heads={heads}” was ignored: the number of heads must divide d_model = {d_model} "
                                  "({divisors}). The default is used.", heads=heads, d_model=d_model, divisors=divisors)
    page = params.get("rm_layers")
    if "rm_layers" not in problems and isinstance(page, str):  # a page of layers the link's model has
        model = params.get("rm_model")
        info = MODELS[MODEL_NAMES[model] if "rm_model" not in problems and isinstance(model, str) else "minilm"]
        pages = len(layer_pages(info))
        if int(page) > pages:
            problems["rm_layers"] = nt(
                "“rm_layers={page}” was ignored: {model} has {layers} layers, on {n} page of the every-head view. "
                "The first page is shown.",
                "“rm_layers={page}” was ignored: {model} has {layers} layers, on {n} pages of the every-head view. "
                "The first page is shown.", pages, page=page, model=info.title, layers=info.layers)
    return problems


def _short(text: str) -> str:
    return text if len(text) <= 30 else text[:29] + "…"


def clean_link() -> None:
    """Once a session, before any widget exists: remove from the URL every part a lesson can't use, say
    which, and set the session's settings from the rest (``SETTINGS``' ``read``).

    Only the session's first run reads the URL; from then on the session's settings are the truth and
    every run writes them into the URL (``write_link``). So a value that would make a widget raise
    (``?seed=inf``) never reaches one, and a setting is never dropped without a word.
    """
    first = not st.session_state.get("_link_read")
    st.session_state["_link_read"] = True
    # later runs check only class mode's own keys, which its pages write by hand (a typed class code)
    problems = check_link(url() if first else {k: v for k, v in url().items() if k in NOT_SETTINGS})
    for key in problems:
        del st.query_params[key]
    if first:
        st.session_state["_link_problems"] = problems
    elif background.result_run():  # the page drawing a long action's result (ui/background.py): no new state yet,
        problems = {**st.session_state.get("_link_problems", {}), **problems}  # so the link's warning stays
    if not first:
        _say(problems)
        return
    linked = st.session_state.setdefault("_linked", set())  # ui.components.forget_stale_choice names them
    # a visit whose link names no lesson setting (the app's address, perhaps with lang) opens on the reader's
    # language's example sentence; any other link is a state, whose sentence is the English example if it names none
    st.session_state[BARE_VISIT] = not any(key in SETTINGS and key not in READER_SETTINGS for key in url())
    for key, text in url().items():
        if key in SETTINGS:
            linked.add(key)
            read_into_session(key, text)
    _say(problems)


def read_into_session(key: str, text: str | list[str]) -> None:
    """A setting's text (a link's, or a class's lesson), checked, into the session where its widget reads it."""
    setting = SETTINGS[key]
    texts = text if isinstance(text, list) else [text]
    st.session_state[setting.key_of(key)] = [setting.read(t) for t in texts] if setting.many else \
        setting.read(texts[-1])


def _say(problems: dict[str, str]) -> None:
    if problems:
        st.warning(t("Some settings in this link could not be used:") + "\n\n"
                   + "\n".join(f"- {markdown_text(p)}" for p in problems.values()), icon=":material/link_off:")


def book_in_link(rows: list[tuple[object, object]]) -> bool:
    """Keep the phonebook's rows (the editor's, cells as typed) where the link reads them: rows with a name or a
    number, as text. False when the link had to cut some (more than MAX_BOOK_ROWS rows, or a longer cell)."""
    def text(cell: object) -> str:
        return "" if cell is None or (isinstance(cell, float) and cell != cell) else str(cell)
    kept = [[text(name), text(phone)] for name, phone in rows if text(name) or text(phone)]
    cut = [[name[:BOOK_CELL_CHARS], phone[:BOOK_CELL_CHARS]] for name, phone in kept[:MAX_BOOK_ROWS]]
    st.session_state[BOOK_STATE] = cut
    return cut == kept


def url() -> dict[str, str | list[str]]:
    """The URL's query as it is: each parameter a value, or (a repeated one, LISTS) its values."""
    return {k: st.query_params.get_all(k) if k in LISTS else v for k, v in st.query_params.to_dict().items()}


def default(key: str) -> Any:
    """A setting's default: the widget's default, and the value a link leaves out."""
    value = SETTINGS[key].default
    assert value is not ALWAYS, f"{key}'s default depends on other settings"
    return value


def link(page: str | None = None) -> dict[str, str | list[str]]:
    """The lesson's link: every setting of the sidebar and of ``page`` (this run's page when None) that the
    session holds, in ``SETTINGS``' order, each as the link writes it; a setting at its default is left out."""
    if page is None:
        page = st.session_state.get("_page", "")
    shown = st.session_state.get(SHOWN, {})  # a sentence the lesson could not show: the one it shows instead
    out: dict[str, str | list[str]] = {}
    for key in (*SHARED_SETTINGS, *PAGE_SETTINGS.get(page, ()), *READER_SETTINGS):
        setting = SETTINGS[key]
        held = shown[key] if key in shown else st.session_state.get(setting.key_of(key))
        if held is None or (setting.default is not ALWAYS and held == setting.default and not named(key)):
            continue
        if setting.many:
            if texts := [text for text in map(partial(_written, setting), held) if text is not None]:
                out[key] = texts
        elif (text := _written(setting, held)) is not None:
            out[key] = text
    return out


def named(key: str) -> bool:
    """Whether the link names ``key`` even at its default: a text whose example in the session's language is not the
    link's default (``ui.settings.EXAMPLES``: the sentence, cross-attention's target, the phonebook's book and name).
    A link without it means the English example to every reader (``ui.settings.first_example``), but a link that names
    nothing else opens on the reader's own language's example: a Spanish learner's "This forum is awesome" is named,
    so that their link reopens it (found by the review of the examples)."""
    default = SETTINGS[key].default
    return language() != ENGLISH and EXAMPLES.get(key, {}).get(language(), default) != default


def _written(setting: Setting, value: Any) -> str | None:
    """The value as the link writes it, or None when it is not a value of the setting (a link reopening it would
    refuse it): the link leaves it out rather than break the run that writes it. The pages keep their settings'
    values in range; this is the last guard (issue 43: a query menu's label, "1 · The", held as its value,
    crashed every run of the page)."""
    try:
        text = setting.show(value)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return text if setting.check(text) else None


def write_link() -> None:
    """At the end of a run: the URL becomes this run's link (class mode's own keys kept), so that the address
    bar, the share box and the lesson a class follows all hold exactly the settings the page shows."""
    current = url()
    wanted = {k: v for k, v in current.items() if k not in SETTINGS} | link()
    if wanted != current:
        st.query_params.from_dict(wanted)


SHOWN_NOTE = N_("Text the lesson could not show is not in it: the link holds the sentence the lesson shows.")
LINK_KEEPS = N_("The link keeps every setting that changes the numbers, the open step and the chosen query or head. "
                "It leaves out how the page is displayed (open panels, the lines view) and your answers.")


def lesson_url() -> str:
    """The current lesson's address with every setting in it (what the share box shows, and the handout
    prints)."""
    base = st.context.url or "http://127.0.0.1:8501/"
    query = urlencode({k: v for k, v in link().items() if k not in PRIVATE}, doseq=True)
    return base + ("?" + query if query else "")


def share_link() -> None:
    """The current lesson's link with every setting in it, in a box with a copy button."""
    # In a popover: its content is drawn only when opened, so the code box's syntax highlighter
    # (1.6 MB of JavaScript) loads only for a learner who wants the link (issue 9).
    with st.popover(t("Share this lesson"), icon=":material/share:", width="stretch", key="share"):
        st.caption(sentences(t(LINK_KEEPS), t("Copy it with the button on the right; the address bar holds it too.")))
        if st.session_state.get(SHOWN):
            st.caption(t(SHOWN_NOTE))
        st.code(lesson_url(), language=None, wrap_lines=True)
