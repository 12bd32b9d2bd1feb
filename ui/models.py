"""The real models for "A real model": loaded once per server, their results cached per sentence.

These live in a module, not in the page: a function defined in a page script keeps that run's globals
(its trace, α, figures) in a reference cycle (function → its globals → the function), which only a full
garbage collection frees, and Streamlit's collection after each run is off here (.streamlit/config.toml).
With the functions in the page, the server's memory grew by ~2.6 MB for every new sentence (issue 26).

Every cache is bounded by entries and by bytes (Streamlit's pickled size), and a classroom shares them.
"""

from __future__ import annotations

import streamlit as st

from attention.pretrained import MODELS, load
from attention.pretrained.gallery import INDUCTION_HEAD, INDUCTION_HEADS, induction_prompt
from attention.sampling import Sampling, draw, processed
from ui import arrival, background
from ui.settings import MAX_SEED, replace_sentence, rerun_whole_page
from viz import i18n
from viz import pretrained as P
from viz import sampling as S
from viz.i18n import nt, t

LAYERS_PER_PAGE = P.LAYERS_PER_PAGE  # the every-head view of the decoder's 30 layers, a page at a time


def model_named(name: str):
    """The model ``name``, loaded once per server. A session's first call may be the load itself (seconds): it
    says so in the reader's language, after Streamlit's half-second delay; later calls send nothing."""
    if st.session_state.get(f"_has_{name}"):
        return _loaded(name)
    with st.spinner(t("Loading the model (once per server)…")):
        model = _loaded(name)
    st.session_state[f"_has_{name}"] = True
    return model


@st.cache_resource(show_spinner=False)  # (a cache's own spinner text is fixed when the module loads: English)
def _loaded(name: str):
    return load(name)


# SmolLM2's α at 128 tokens is 18 MB and a head's trace at 128 tokens 16 MB (its per-term arrays);
# short sentences take far less, so the byte bounds are what bind in a class typing long ones.
@st.cache_data(max_entries=12, max_size="150MB", show_spinner=False)
def attentions_of(name: str, sentence: str):
    return _loaded(name).attentions(sentence)


@st.cache_data(max_entries=8, max_size="100MB", show_spinner=False)
def head_of(name: str, sentence: str, layer: int, head: int):
    return _loaded(name).head_trace(sentence, layer, head)


@st.cache_data(max_entries=32, max_size="30MB", show_spinner=False)
def model_view_of(name: str, sentence: str, first: int, stop: int, off: frozenset = frozenset(),
                  sink_hidden: bool = False, lang: str = i18n.ENGLISH):
    """The every-head picture (30–50 ms to draw): a class on one sentence draws it once, in each language it is read
    in (``lang``, the running language: its title and text alternative are words; cached across sessions, a
    picture drawn for one reader's language was shown to the next, found by the pseudo-language test)."""
    return P.model_view(attentions_of(name, sentence).weights, MODELS[name], range(first, stop), off=off,
                        sink_hidden=sink_hidden)


@st.cache_data(max_entries=64, max_size="2MB", show_spinner=False)
def next_of(name: str, sentence: str):
    return _loaded(name).next_tokens(sentence)


@st.cache_data(max_entries=64, max_size="4MB", show_spinner=False)
def sampled_of(name: str, sentence: str, sampling: Sampling, seed: int) -> S.Sampled:
    """The decoder's next-token distribution after ``sampling`` and one draw with ``seed``, as the page shows them
    (a few numbers: not the 49,152 logits)."""
    model = _loaded(name)
    result = processed(model.recent(sentence).logits, sampling)
    return S.sampled(result, draw(result.after, seed), lambda i: model.show(model.vocabulary[i]))


def draw_again() -> None:
    """The Draw again button's callback: the next seed."""
    st.session_state["rm_draw"] = (int(st.session_state.get("rm_draw") or 0) + 1) % (MAX_SEED + 1)


def open_head(sentence: str, model: str, layer: int, head: int) -> None:
    """A button's callback: the sentence into the sidebar box (the learner's own is kept, and the sidebar
    offers it back: ui.settings), the head (from 0) into the pickers."""
    replace_sentence(sentence)
    open_model(model)
    pick_head(layer, head)


MODEL_SHOWN = "_rm_model_shown"  # the model the real-model page drew last: the heads switched off are its own
_HEADS_OFF_OF = "_rm_off_of"  # the heads switched off in each model the learner left, by model
_LAYERS_OF = "_rm_layers_of"  # the page of layers each model the learner left showed, by model


def open_model(name: str) -> None:
    """The model ``name`` on the real-model page (a callback: the model menu's, a button's). Heads switched off
    belong to the model they were switched off in: MiniLM's layer 2, head 9 is no head of SmolLM2's (issue 43:
    they stayed off, and SmolLM2's tables were computed without its own L2 H9). So the heads switched off in the
    model the page showed are kept aside for it, and ``name`` gets back its own (none the first time); the link
    holds the open model's. A link or a class's lesson sets the model and its heads together, and is left as
    it is."""
    shown = st.session_state.get(MODEL_SHOWN)
    if shown is not None and shown != name:
        kept = st.session_state.setdefault(_HEADS_OFF_OF, {})
        kept[shown] = list(st.session_state.get("rm_off") or [])
        st.session_state["rm_off"] = kept.pop(name, [])
        pages = st.session_state.setdefault(_LAYERS_OF, {})  # its page of layers too: SmolLM2's 19–24 comes back
        pages[shown] = st.session_state.get("rm_layers") or 0
        st.session_state["rm_layers"] = pages.pop(name, 0)
        st.session_state[MODEL_SHOWN] = name
    st.session_state["rm_model"] = name


def model_chosen() -> None:
    """The model menu's on_change: its new model opened (``open_model``); the whole page runs, as the sidebar's
    settings in use change with the model (SmolLM2's demo reads the seed)."""
    open_model(st.session_state.get("rm_model") or "minilm")
    rerun_whole_page()


def same_step(steps, model: str) -> None:
    """Before the real model's step picker: after a switch of model, open the step with the same name as
    the one shown (the decoder has a RoPE step after Q, K, V, so a step's number means another step
    there); where the other model has no such step (RoPE), its scores. ``_rm_step_of`` is (model, title)
    of the step the page showed last."""
    shown = st.session_state.get("_rm_step_of")
    if not shown or shown[0] == model:
        return
    titles = [title for title, _, _ in steps]
    scores = next(k for k, title in enumerate(titles) if title.startswith("Scores"))
    st.session_state["rm_step"] = (titles.index(shown[1]) if shown[1] in titles else scores) + 1


def pick_head(layer: int, head: int) -> None:
    """The head (from 0) into the pickers, and the every-head view turned to its page of layers."""
    st.session_state["rm_layer"] = layer + 1
    st.session_state["rm_head"] = head + 1
    st.session_state["rm_layers"] = layer // LAYERS_PER_PAGE
    arrival.go("one-head")


@st.cache_data(max_entries=16, max_size="20MB", show_spinner=False)
def ablated_next_of(name: str, sentence: str, off: frozenset):
    """The five likeliest next tokens with the heads in ``off`` switched off (the decoder)."""
    return _loaded(name).next_tokens_without(sentence, off)


@st.cache_data(max_entries=8, max_size="60MB", show_spinner=False)
def ablated_run_of(name: str, sentence: str, off: frozenset):
    """The encoder's run with the heads in ``off`` switched off: every layer's α and the sentence embedding."""
    return _loaded(name).ablated(sentence, off)


def head_options(info) -> list[str]:
    return [P.head_label(layer, head) for layer in range(info.layers) for head in range(info.heads)]


def toggle_head_off(label: str) -> None:
    """A button's callback: switch the head ``label`` ("L19 H7") off, or back on if it is off."""
    chosen = list(st.session_state.get("rm_off") or [])
    st.session_state["rm_off"] = [c for c in chosen if c != label] if label in chosen else [*chosen, label]


def heads_switched_off(info) -> frozenset:
    """The heads switched off: the multiselect "rm_off" drawn further down the page (bound to the link
    as "L19 H7" labels), read now so that the every-head view can mark them. Labels this model does not
    have are left out."""
    chosen = st.session_state.get("rm_off")  # a link's, set by ui.links before the widget exists
    options = set(head_options(info))
    return frozenset(P.head_of_label(c) for c in chosen or [] if c in options)


def switch_off_induction_heads(seed: int) -> None:
    """A button's callback: SmolLM2, an induction prompt (the seed picks its words) in the sidebar (the
    learner's own sentence is kept, and offered back), and the five induction heads switched off; the
    every-head view turned to the demo head's layers."""
    replace_sentence(induction_prompt(seed)[0])
    open_model("smollm2")
    st.session_state["rm_off"] = [P.head_label(layer, head) for layer, head in INDUCTION_HEADS]
    st.session_state["rm_layers"] = INDUCTION_HEAD[0] // LAYERS_PER_PAGE  # the view shows the demo head's layer


def scanned_head(layers: tuple[int, ...]):
    """What a click on the scan's map does: open that head in the pickers above."""
    def chosen(choice: dict) -> None:
        pick_head(layers[int(choice["row"])], int(choice["col"]))
    return chosen


def scan_job(name: str, sentence: str, layers: tuple[int, ...]) -> background.Job:
    """Every head of ``layers`` switched off in turn (seconds), in the background (ui/background.py): a class on
    one sentence scans it once. Its progress is the share of the work done, reported after every layer the
    variants run through (layer ℓ's nine variants run layers ℓ … last again)."""
    model = _loaded(name)

    def scan(job: background.Job):
        return model.scan(sentence, layers, lambda done, total: job.progress(done / total))
    return background.start(("scan", name, sentence, layers), scan)


def cancel_scan() -> None:
    """Cancel's callback: the page no longer asks for the scan, and says it was cancelled."""
    st.session_state.pop("_rm_scan", None)
    st.session_state["_rm_scan_cancelled"] = True


GENERATIONS_KEPT = 4  # a generation of 20 tokens after a long prompt holds ~20 MB (its cache, every step's logits)


def generation_job(prompt: str, count: int) -> background.Job:
    """SmolLM2 writing ``count`` tokens after ``prompt`` with its cache, checked against recomputing (seconds on a
    busy server), in the background (ui/background.py): its progress, Cancel, and one run for a class.

    Greedy writing is deterministic, so a text written already after the same prompt is used: a longer one holds
    this one, its first ``count`` tokens are the answer at once (``Generation.first``; issue 43: 5 tokens after 8
    were all written again); a shorter one stopped by an end-of-text token is the answer too; else the writing goes
    on from the longest shorter one, its cache and checks kept (``continuing``; issue 46: 13 tokens after 8 were all
    written again). That one is chosen when the worker takes the job up (a text asked for before may have been
    written by then), and the job says how many tokens it went on from (``job.about``)."""
    key = ("generate", prompt, count)
    model = _loaded("smollm2")
    if (kept := _kept_answer(model, prompt, count, _shorter(prompt, count))) is not None:
        return background.finished(key, kept)

    def write(job: background.Job):
        # again, when the worker takes it up: a text asked for before may be written by now, a longer one too (5
        # tokens asked for while 8 were written wrote all 5 again)
        shorter = _shorter(prompt, count)
        if (kept := _kept_answer(model, prompt, count, shorter)) is not None:
            return kept
        job.about = len(shorter.written) if shorter is not None else 0
        return model.generate(prompt, count, job.progress, continuing=shorter)

    return background.start(key, write, kept=GENERATIONS_KEPT)


def _kept_answer(model, prompt: str, count: int, shorter):
    """A kept text that is the answer to ``count`` tokens after ``prompt`` without writing, else None: the first
    ``count`` tokens of the longest longer one, or ``shorter`` (the longest shorter one) if it stopped at an
    end-of-text token (writing more stops there too)."""
    from attention.pretrained.smollm2 import MAX_WRITTEN  # here: the module needs the model packages' tokenizers

    longer = next((done for more in range(MAX_WRITTEN, count, -1)
                   if (done := background.result(("generate", prompt, more))) is not None), None)
    if longer is not None:
        return longer.first(count)
    return shorter if shorter is not None and shorter.written[-1] in model.end_of_text else None


def _shorter(prompt: str, count: int):
    """The longest text written after ``prompt`` with fewer than ``count`` tokens, if one is kept, else None."""
    return next((done for fewer in range(count - 1, 0, -1)
                 if (done := background.result(("generate", prompt, fewer))) is not None), None)


def writing_text(job: background.Job, count: int) -> str:
    """What a writing job's progress bar says it does: all ``count`` tokens, or the ones it adds to a text written
    already (known once the worker has taken it up)."""
    if job.about:
        return nt("Writing {n} more token ({about} of the {count} written already), and checking each against a pass "
                  "over the whole sequence", "Writing {n} more tokens ({about} of the {count} written already), and "
                  "checking each against a pass over the whole sequence", count - job.about, about=job.about,
                  count=count)
    return nt("Writing {n} token, and checking each against a pass over the whole sequence",
              "Writing {n} tokens, and checking each against a pass over the whole sequence", count)


def follow_last_step(last: int) -> None:
    """Before the generation step menu (``gen_step``) of a text with ``last`` cached steps: a menu left on the last
    step of the text drawn before moves to the last step of this one, without a word (it opens on the last step;
    a shorter text written again is not the learner asking for a step it lacks, issue 43); a step the learner
    picked keeps its number, or is named by the page if this text lacks it."""
    before = st.session_state.get("_gen_last")
    st.session_state["_gen_last"] = last
    if before is not None and before != last and st.session_state.get("gen_step") == before:
        st.session_state["gen_step"] = last


def generation_of(prompt: str, count: int):
    """The finished generation (the page asks once ``generation_job`` has finished)."""
    return generation_job(prompt, count).future.result()


def cancel_writing(prompt: str, count: int) -> None:
    """Cancel's callback: the page no longer writes ``count`` tokens after ``prompt`` until Write is pressed."""
    st.session_state["_gen_cancelled"] = (prompt, count)


@st.cache_data(max_entries=8, max_size="40MB", show_spinner=False)
def step_trace_of(prompt: str, count: int, step: int, layer: int, head: int):
    return _loaded("smollm2").step_trace(generation_of(prompt, count), step, layer, head)


TIMED_LENGTHS = (1, 2, 4, 8, 16, 32, 64, 128)  # tokens read; 128 is the most the lesson's model reads here


def timing_job() -> background.Job:
    """SmolLM2's cached step and whole pass timed at each of TIMED_LENGTHS on this server (~5 s on an idle 2-core
    machine), beside the page: measured once a process, and shown to every learner who asks (the
    page says when). Its progress is the share of the tokens measured (a length's passes cost about its tokens)."""
    model = _loaded("smollm2")

    def measure(job: background.Job) -> list[tuple[float, float]]:
        seconds = []
        for k, length in enumerate(TIMED_LENGTHS):
            job.progress(sum(TIMED_LENGTHS[:k]) / sum(TIMED_LENGTHS))
            seconds.append(model.step_seconds(length))
        return seconds
    return background.start(("timing",), measure, kept=1)
