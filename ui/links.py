"""Shareable links: what a link may set, a check that says which parts of a link were ignored, and
the "copy link" box.

Streamlit's ``bind="query-params"`` keeps every setting in the URL and silently falls back to the
default for a value it can't use. ``check_link`` finds those values first, so the page can say
which parts of a tampered or outdated link it ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlencode

import streamlit as st
from streamlit.errors import StreamlitAPIException

from attention import MAX_CHARS
from attention.pretrained.common import MODELS
from attention.training import HEADS, LEARNING_RATES, RUN_LENGTHS, TASKS
from ui.matrix_editor import LINK_PATTERN, MAX_EDITS_CHARS
from ui.settings import DEFAULT_D_MODEL
from viz.labels import markdown_text

PRESET_LABELS = {"random": "Seeded random", "identity": "Identity (W = I)"}  # the URL carries the label
CROSS_PRESET_LABELS = {"random": "Seeded random", "aligned": "Aligned by a bilingual table (constructed)"}
TASK_LABELS = {name: task.title for name, task in TASKS.items()}  # the URL carries the title
OPTIMIZER_LABELS = {"adam": "Adam", "sgd": "Plain SGD"}
MODEL_LABELS = {name: info.title for name, info in MODELS.items()}
TEMPERATURES = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
PHONEBOOK_TEMPERATURES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
PHONEBOOK_QUERY_CHARS = 200  # a name to look up; the box cuts a longer paste to this


def _whole(low: int, high: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        # ASCII digits only: "²", "٣", "+8", "--5", "1e400" and "inf" are refused here, before the bound
        # widget would raise on them (int("²") fails; int(float("inf")) overflows) or quietly re-read them.
        return re.fullmatch(r"[0-9]{1,7}", text) is not None and low <= int(text) <= high

    check.__doc__ = f"a whole number from {low} to {high}, in the digits 0–9"
    return check


def _one_of(options) -> Callable[[str], bool]:
    shown = [str(o) for o in options]  # exactly as the widget writes it: "0.5", not "0.50"

    def check(text: str) -> bool:
        return text in shown

    check.__doc__ = "one of " + ", ".join(shown)
    return check


def _boolean(text: str) -> bool:
    """true or false"""
    return text.lower() in ("true", "false")


def _text(limit: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        return len(text) <= limit

    check.__doc__ = f"text of at most {limit:,} characters"
    return check


def _head(text: str) -> bool:
    """a head such as L19 H7 (layer 1–30, head 1–12), or nothing"""
    found = re.fullmatch(r"L([0-9]{1,2}) H([0-9]{1,2})", text)
    return text == "" or (found is not None and 1 <= int(found[1]) <= 30 and 1 <= int(found[2]) <= 12)


def _class_code(text: str) -> bool:
    """a class code: 4–12 letters and digits"""
    return re.fullmatch(r"[A-Za-z0-9]{4,12}", text) is not None


def _teacher_secret(text: str) -> bool:
    """a teacher's key: 20–64 letters, digits, - and _"""
    return re.fullmatch(r"[A-Za-z0-9_-]{20,64}", text) is not None


def _student_id(text: str) -> bool:
    """a student's id: 32 hexadecimal digits"""
    return re.fullmatch(r"[0-9a-f]{32}", text) is not None


def _edited_cells(text: str) -> bool:
    """hand-edited cells such as Q1.1:5;K2.3:-0.5"""
    return len(text) <= MAX_EDITS_CHARS and LINK_PATTERN.fullmatch(text) is not None


# Every query parameter a lesson binds, and what it accepts. Keep in step with the widgets.
SPECS: dict[str, Callable[[str], bool]] = {
    "sentence": _text(MAX_CHARS),
    "seed": _whole(0, 999_999),
    "d_model": _whole(2, 16),
    "positional": _boolean,
    "causal": _boolean,
    "d_k": _whole(1, 16),
    "preset": _one_of(tuple(PRESET_LABELS.values())),
    "present": _boolean,
    "step": _whole(1, 8),
    "all_steps": _boolean,
    "stage": _whole(1, 3),
    "parts_compare": _boolean,
    "ca_source": _text(MAX_CHARS),
    "ca_target": _text(MAX_CHARS),
    "ca_preset": _one_of(tuple(CROSS_PRESET_LABELS.values())),
    "ca_dk": _whole(1, 16),
    "query": _text(100),  # "3 · sat": the option as shown; Streamlit drops one that matches no token
    "heads": _whole(1, 16),
    "dk_demo": _whole(1, 512),
    "temperature": _one_of(TEMPERATURES),
    "pb_query": _text(PHONEBOOK_QUERY_CHARS),
    "pb_temperature": _one_of(PHONEBOOK_TEMPERATURES),
    "rel_dk": _whole(2, 8),
    "w": _edited_cells,
    "lt_task": _one_of(tuple(TASK_LABELS.values())),
    "lt_heads": _one_of(HEADS),
    "lt_opt": _one_of(tuple(OPTIMIZER_LABELS.values())),
    "lt_lr": _one_of(LEARNING_RATES),
    "lt_steps": _one_of(RUN_LENGTHS),
    "lt_run": _boolean,
    "lt_step": _whole(0, max(RUN_LENGTHS)),  # a step the run did not keep falls back to the last one
    "lt_example": _whole(1, 6),
    "lt_head": _whole(1, max(HEADS)),  # a head the run does not have falls back to head 1
    "rm_model": _one_of(tuple(MODEL_LABELS.values())),
    "rm_layer": _whole(1, max(info.layers for info in MODELS.values())),
    "rm_head": _whole(1, max(info.heads for info in MODELS.values())),
    "rm_step": _whole(1, 9),  # the decoder has a RoPE step
    "rm_off": _head,  # repeated: ?rm_off=L19+H7&rm_off=L18+H4 (a head the model lacks is dropped on its page)
    "rm_sink": _boolean,
    "gen_count": _whole(1, 20),
    "gen_step": _whole(1, 19),
    "gen_layer": _whole(1, 30),
    "gen_head": _whole(1, 9),
    "class": _class_code,  # a student's join link
    "teach": _teacher_secret,  # the teacher's link; never in a shared link (share_link leaves it out)
    "me": _student_id,  # a student in class mode (so a page that reconnects elsewhere is the same student)
    "follow": _boolean,  # a lesson in a student's class-mode frame: its sidebar starts closed
}
PRIVATE = {"teach", "me", "follow"}
LISTS = {"rm_off"}  # settings a link repeats, one value each; every value is checked


def check_link(params: dict[str, str | list[str]]) -> dict[str, str]:
    """For each query parameter the lessons can't use (unknown, invalid, or heads that don't divide
    d_model): a message, keyed by the parameter. The messages quote the link's text as plain text;
    escape them for the medium that shows them."""
    problems: dict[str, str] = {}
    for key, value in params.items():
        shown = _short(key)
        if key not in SPECS:
            problems[key] = f"“{shown}” is not a setting of Attention Lab, so it was ignored."
            continue
        values = value if isinstance(value, list) else [value]
        check = SPECS[key]
        bad = next((text for text in (values if key in LISTS else values[-1:]) if not check(text)), None)
        if bad is not None:
            problems[key] = f"“{shown}={_short(bad)}” was ignored: {key} must be {check.__doc__}. The default is used."
    heads = params.get("heads")
    if "heads" not in problems and isinstance(heads, str):
        d_model = params.get("d_model")
        d_model = int(d_model) if "d_model" not in problems and isinstance(d_model, str) else DEFAULT_D_MODEL
        if d_model % int(heads):
            divisors = ", ".join(str(h) for h in range(1, d_model + 1) if d_model % h == 0)
            problems["heads"] = (f"“heads={heads}” was ignored: the number of heads must divide d_model = {d_model} "
                                 f"({divisors}). The default is used.")
    return problems


def _short(text: str) -> str:
    return text if len(text) <= 30 else text[:29] + "…"


def clean_link() -> None:
    """Before any widget exists: remove from the URL every setting a lesson can't use, and say which.

    A bound widget is seeded from the URL before the page's code can look at the value, and some
    values make that raise (``?seed=inf``); others would be dropped without a word. Each run checks
    (a cheap look at a handful of strings); only a URL with a bad part gets a message.
    """
    problems = check_link(link())
    for key in list(problems):
        try:
            del st.query_params[key]
        except StreamlitAPIException:  # bound to a widget drawn in an earlier run: the URL follows the widget
            held = st.session_state.get(key)
            values = held if isinstance(held, list) else [held]
            if held is not None and all(SPECS[key](str(v).lower() if isinstance(v, bool) else str(v)) for v in values):
                del problems[key]  # the widget's own value is usable (a box that cut a long paste): the page says
            else:  # what it needs to; otherwise the widget starts again from its default
                st.session_state.pop(key, None)
    if problems:
        st.warning("Some settings in this link could not be used:\n\n"
                   + "\n".join(f"- {markdown_text(p)}" for p in problems.values()), icon=":material/link_off:")


def link() -> dict[str, str | list[str]]:
    """The URL's settings: each a value, or (a repeated one, LISTS) its values."""
    return {k: st.query_params.get_all(k) if k in LISTS else v for k, v in st.query_params.to_dict().items()}


def share_link() -> None:
    """The current lesson's link with every setting in it, in a box with a copy button."""
    base = st.context.url or "http://127.0.0.1:8501/"
    query = urlencode({k: v for k, v in link().items() if k in SPECS and k not in PRIVATE}, doseq=True)
    # In a popover: its content is drawn only when opened, so the code box's syntax highlighter
    # (1.6 MB of JavaScript) loads only for a learner who wants the link (issue 9).
    with st.popover("Share this lesson", icon=":material/share:", width="stretch", key="share"):
        st.caption("The link reproduces every setting (copy button on the right). The address bar holds it too.")
        st.code(base + ("?" + query if query else ""), language=None, wrap_lines=True)
