"""A real model: a trained encoder's heads on the learner's sentence, and one real head step by step.

The model runs in NumPy (``attention.pretrained``); it is loaded once per server process, and its
results are cached per sentence. Every number shown is the model's.
"""

import streamlit as st

from attention.pretrained import MODELS, ModelMissing, installed, load
from attention.pretrained.gallery import GALLERY
from ui import components as ui
from ui.links import MODEL_LABELS
from ui.settings import DEFAULT_SENTENCE, shared, usable_sentence
from ui.walkthrough import STEPS, lines_panel, render_steps
from viz import figures as F
from viz import pretrained as P
from viz import tables as T
from viz.labels import markdown_text

st.title("A real model")
ui.lesson("real_model/00_intro")
settings = shared()


@st.cache_resource(show_spinner="Loading the model (once per server)…")
def model_named(name: str):
    return load(name)


@st.cache_data(max_entries=64, show_spinner=False)
def attentions_of(name: str, sentence: str):
    return model_named(name).attentions(sentence)


@st.cache_data(max_entries=64, show_spinner=False)
def head_of(name: str, sentence: str, layer: int, head: int):
    return model_named(name).head_trace(sentence, layer, head)


def show_gallery_head(index: int) -> None:
    """A gallery button: its sentence into the sidebar box, its head into the pickers."""
    entry = GALLERY[index]
    st.session_state["sentence"] = entry.sentence
    st.session_state["rm_model"] = entry.model
    st.session_state["rm_layer"] = entry.layer + 1
    st.session_state["rm_head"] = entry.head + 1


name = st.radio("Model", list(MODELS), format_func=MODEL_LABELS.get, key="rm_model", bind="query-params",
                horizontal=True) or "minilm"
info = MODELS[name]
if not installed(name):
    try:
        load(name)
    except ModelMissing as missing:
        st.error(str(missing), icon=":material/download:")
    st.stop()
model = model_named(name)
sentence = usable_sentence(settings.sentence, memory=f"_last_rm_sentence_{name}", default=DEFAULT_SENTENCE,
                           check=model.tokenize)
tokens, weights = attentions_of(name, sentence)
n = len(tokens)

st.subheader("The model's tokens", divider="gray")
ui.lesson("real_model/01_tokens")
ids, _ = model.tokenize(sentence)
ui.table(P.tokens_frame(tokens, tuple(ids)), "rm-tokens", decimals=None)
unknown = tokens.count("[UNK]")
if unknown:
    st.caption(f"{unknown} [UNK]: characters the vocabulary of {info.title} does not have.")

st.subheader("Every head at once", divider="gray")
ui.chart(P.model_view(weights, info, range(info.layers)), "rm-model-view")
st.caption(f"{info.layers} layers × {info.heads} heads, each an α of [{n} × {n}] on one colour scale from 0 to 1. "
           "Pick one below to see it large, with its numbers.")

st.subheader("One head", divider="gray")
left, right = st.columns(2)
layer = (left.selectbox("Layer", range(1, info.layers + 1), key="rm_layer", bind="query-params") or 1) - 1
head = (right.selectbox("Head", range(1, info.heads + 1), key="rm_head", bind="query-params") or 1) - 1
trace = head_of(name, sentence, layer, head)
ui.matrix(F.query_key_figure(trace, trace.weights, f"α, layer {layer + 1}, head {head + 1}", weights=True),
          T.query_key_frame(trace, trace.weights, weights=True), "rm-head")
if st.toggle("Show α as lines (head view)", key="rm-head-lines"):
    lines_panel(trace.weights[None], trace.tokens, key="rm-head-lines-view")

st.subheader(f"Layer {layer + 1}, head {head + 1}, step by step", divider="gray")
step = st.selectbox("Step", range(1, len(STEPS) + 1), format_func=lambda k: f"{k} · {STEPS[k - 1][0]}",
                    key="rm_step", bind="query-params", index=2,
                    help="The walkthrough's eight steps on this head's real numbers.")
render_steps(trace, prefix="rm-", first=step or 3, last=step or 3)

st.subheader("Heads with a job", divider="gray")
st.markdown("Heads whose behaviour was found by looking, and is checked by a test on the sentence shown. "
            "**Show me** puts the sentence into the sidebar and opens the head.")
for index, entry in enumerate(GALLERY):
    if entry.model != name:
        continue
    found_tokens, found = attentions_of(name, entry.sentence)
    value = entry.measure(found_tokens, found[entry.layer, entry.head])
    text, button = st.columns([5, 1], vertical_alignment="center")
    text.markdown(f"**Layer {entry.layer + 1}, head {entry.head + 1}.** {entry.job} "
                  f"On “{markdown_text(entry.sentence)}”: {entry.measured} {value:.2f}.")
    button.button("Show me", key=f"rm_gallery_{index}", on_click=show_gallery_head, args=(index,))
