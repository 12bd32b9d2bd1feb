"""The eight steps of the walkthrough, rendered from one trace. Used by the walkthrough page and,
for a single head, by the multi-head page ("open this head in the full step-by-step view") and by
"watch a head learn" (a trained head at a chosen training step).

Every key gets a prefix, so the same steps can appear twice in one app without clashing.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from attention import AttentionTrace
from ui import arrival, player, view
from ui import components as ui
from viz import figures as F
from viz import formulas as L
from viz import heads as H
from viz import provenance as P
from viz import tables as T
from viz.i18n import N_, bound, decimal, nt, sentences, t
from viz.labels import markdown_text, query_labels, significant, token_labels
from viz.steps import MASK_CAPTION, SIGNED_CAPTION, STEP_TEXTS, identity_note, lesson_parts

QK = (N_("query"), N_("key"))  # what a row and a column of an n × n matrix are, for the view's tooltips
TD = (N_("token"), N_("dimension"))


def _vectors(trace: AttentionTrace, p: str, name: str, key: str, m, **options) -> dict:
    """A matrix with a row a token (X, Q, K, V …) as a compact panel, its table under it."""
    return view.panel(f"{p}{key}", T.token_by_dim_frame(trace, m), F.token_by_dim_figure(trace, m, name, compact=True),
                      below=True, names=TD, **options)


def _tokens(trace: AttentionTrace, p: str) -> None:
    ui.matrix(F.tokens_figure(trace), T.token_frame(trace), f"{p}tokens", decimals=None, names=("", N_("position")))


def _choose_query(*, to_step_8: bool):
    """What a click on a query (a row, or a cell of it) does: that query is step 8's, and the
    walkthrough shown one step at a time opens step 8, where its output is built (the link follows at the
    end of the run, ui.links.write_link)."""
    def chosen(choice: dict) -> None:
        st.session_state["query"] = int(choice["row"])
        if to_step_8 and st.session_state.get("step") != len(STEPS):  # on step 8 already: the focus stays
            st.session_state["step"] = len(STEPS)
            arrival.go(f"step-{len(STEPS)}")
    return chosen


def _query_choice(trace: AttentionTrace, p: str) -> dict:
    """The view's options that let a learner choose a query by clicking its row (the walkthrough's own
    steps; a trained or a real head opened elsewhere keeps its own step menu)."""
    if p:
        return {}
    return {"choose": "row", "on_choice": _choose_query(to_step_8=not st.session_state.get("all_steps"))}


def _embeddings(trace: AttentionTrace, p: str) -> None:
    n = len(trace.query_positions)  # a cached step: the new token's row only
    if trace.positional_encoding is None:
        source = trace.x_is or r"\mathrm{Embed}(\text{tokens})"  # a real model: what this layer receives
        st.latex(rf"X = {source} \in \mathbb{{R}}^{{{n} \times {trace.d_model}}}")
        ui.matrix(F.token_by_dim_figure(trace, trace.x, "X"), T.token_by_dim_frame(trace, trace.x), f"{p}x", names=TD)
        return
    st.latex(L.positional_encoding(trace))
    sum_of = {"tip": P.embedding_sum(trace), "links": [{"panel": f"{p}{m}", "axis": "cell"} for m in "ep"]}
    parts = [(t("E (token embeddings)"), "e", trace.embeddings, {}),
             (t("P (positions)"), "p", trace.positional_encoding, {}), ("X = E + P", "x", trace.x, sum_of)]
    ui.matrices([_vectors(trace, p, name, key, m, **options) for name, key, m, options in parts], key=f"{p}embeddings")
    st.caption(sentences(t("Each cell of X is the sum of the cells at the same place in E and P; point at one for "
                           "the sum written out."), t(SIGNED_CAPTION)))


def _projections(trace: AttentionTrace, p: str) -> None:
    st.latex(rf"W_Q,\ W_K,\ W_V \in \mathbb{{R}}^{{d_{{model}} \times d_k}} = "
             rf"\mathbb{{R}}^{{{trace.d_model} \times {trace.d_k}}}")
    note = identity_note(trace)
    if note:
        st.info(note)
    parts = [("W_Q", "w_q", trace.w_q), ("W_K", "w_k", trace.w_k), ("W_V", "w_v", trace.w_v)]
    ui.matrices([view.panel(f"{p}{key}", T.projection_frame(w), F.projection_figure(w, name, compact=True),
                            below=True, names=(N_("input dimension"), N_("output dimension")))
                 for name, key, w in parts],
                key=f"{p}projections")
    if trace.rope is not None and trace.rope.group > 1:
        kv, group = trace.rope.kv_head, trace.rope.group
        st.info(t("**Grouped-query attention:** this model has fewer key/value heads than query heads. W_K and W_V "
                  "here belong to key/value head {kv}, which query heads {first}–{last} share: they ask different "
                  "questions of the same keys and values, and the model stores 1/{group} as many keys and values.",
                  kv=kv + 1, first=kv * group + 1, last=(kv + 1) * group, group=group), icon=":material/call_merge:")
    if trace.b_q is not None:
        st.markdown(t("The biases, one number per output dimension, added to every token's row:"))
        ui.table(T.bias_frame(trace), f"{p}biases")
    st.caption(t(SIGNED_CAPTION))


def _qkv(trace: AttentionTrace, p: str) -> None:
    if trace.cached:
        _cached_qkv(trace, p)
        return
    n = trace.n
    if trace.b_q is None:
        st.latex(L.apart([r"Q = X W_Q,", r"K = X W_K,", r"V = X W_V:"],
                         rf"[{n} \times {trace.d_model}] \cdot [{trace.d_model} \times {trace.d_k}] = "
                         rf"[{n} \times {trace.d_k}]"))
    else:
        st.latex(L.apart([r"Q = X W_Q + b_Q,", r"K = X W_K + b_K,", r"V = X W_V + b_V:"],
                         rf"[{n} \times {trace.d_model}] \cdot [{trace.d_model} \times {trace.d_k}] + [{trace.d_k}] = "
                         rf"[{n} \times {trace.d_k}]"))
    parts = [("Q", "q", trace.q), ("K", "k", trace.k), ("V", "v", trace.v)]
    ui.matrices([_vectors(trace, p, name, key, m, tip=P.projection(trace, key),
                          links=[{"panel": f"{p}x", "axis": "row", "from": "row"},
                                 {"panel": f"{p}w_{key}", "axis": "col", "from": "col"}])
                 for name, key, m in parts], key=f"{p}qkv")
    st.caption(sentences(t("One row per token."), t(SIGNED_CAPTION)))


def _cached_qkv(trace: AttentionTrace, p: str) -> None:
    """A cached step's step 4: the new token's q, k, v [1 × d_k]; K and V are the cache with k and v
    appended as their last row."""
    cached, d, n = trace.cached, trace.d_k, trace.n
    st.latex(L.apart([r"q = x W_Q,", r"k = x W_K,", r"v = x W_V:"],
                     rf"[1 \times {trace.d_model}] \cdot [{trace.d_model} \times {d}] = [1 \times {d}]"))
    st.latex(L.apart([r"K = \begin{bmatrix} K_{\text{cache}} \\ k \end{bmatrix},",
                      r"V = \begin{bmatrix} V_{\text{cache}} \\ v \end{bmatrix}:"],
                     rf"[({cached} + 1) \times {d}] = [{n} \times {d}]"))
    tip = P.cached(trace)
    parts = [("q", "q", trace.q, None), (t("K: the cache, then k"), "k", trace.k, tip),
             (t("V: the cache, then v"), "v", trace.v, tip)]
    ui.matrices([_vectors(trace, p, name, key, m, tip=cell_tip) for name, key, m, cell_tip in parts], key=f"{p}qkv")
    st.caption(sentences(nt("Only the token read is computed: its query, key and value. K's and V's first row "
                            "comes from the cache, where it was stored when that token was read; their last row is "
                            "the new k (after RoPE) and v, appended now.",
                            "Only the token read is computed: its query, key and value. K's and V's first {n} rows "
                            "come from the cache, where they were stored when those tokens were read; their last row "
                            "is the new k (after RoPE) and v, appended now.", cached), t(SIGNED_CAPTION)))


def _scores(trace: AttentionTrace, p: str) -> None:
    n, rows = trace.n, len(trace.query_positions)
    st.latex(L.apart(r"S = Q K^\top,", r"s_{ij} = q_i \cdot k_j:",
                     rf"[{rows} \times {trace.d_k}] \cdot [{trace.d_k} \times {n}] = [{rows} \times {n}]"))
    ui.matrix(F.query_key_figure(trace, trace.scores, t("scores S = Q·Kᵀ")), T.query_key_frame(trace, trace.scores),
              f"{p}scores", names=QK, tip=P.scores(trace), **_query_choice(trace, p),
              links=[{"panel": f"{p}q", "axis": "row", "from": "row"},
                     {"panel": f"{p}k", "axis": "row", "from": "col"}])
    player.offer(trace, p, "scores", _chosen_query(trace, p))


def _chosen_query(trace: AttentionTrace, p: str) -> int:
    """The query step 8 builds (the page's choice, in the link): the player opens on it."""
    i = st.session_state.get(f"{p}query") or 0
    return i if trace.queries is None and isinstance(i, int) and i < trace.n else 0


def _scale(trace: AttentionTrace, p: str) -> None:
    factor = L.factor(trace.scale)  # "= 0.5 ·" when 1/√d_k is exact at 3 decimals, "≈ 0.354 ·" when not
    if trace.temperature == 1:
        st.latex(L.apart([r"Z = \frac{S}{\sqrt{d_k}},",
                          rf"z_{{ij}} = \frac{{s_{{ij}}}}{{\sqrt{{{trace.d_k}}}}} {factor} \cdot s_{{ij}}"]))
    else:
        st.latex(L.apart([r"Z = \frac{S}{\sqrt{d_k}\,T},",
                          rf"z_{{ij}} = \frac{{s_{{ij}}}}{{\sqrt{{{trace.d_k}}} \cdot {L.plain(trace.temperature)}}} "
                          rf"{factor} \cdot s_{{ij}}"]))
    if trace.causal:
        st.latex(L.sentence("masked: {z} for {condition}", z=r"z_{ij} = -\infty", condition="j > i"))
    ui.matrix(F.query_key_figure(trace, trace.masked_scores, t("scaled scores Z = S/√d_k")),
              T.query_key_frame(trace, trace.masked_scores), f"{p}scaled", names=QK, masked="−∞",
              tip=P.scaled(trace), links=[{"panel": f"{p}scores", "axis": "cell"}], **_query_choice(trace, p))
    if trace.causal:
        st.caption(t("Causal mask on: the scaled scores of later tokens are set to −∞, so the softmax gives them "
                     "weight 0."))


def _softmax(trace: AttentionTrace, p: str) -> None:
    st.latex(L.apart(r"\alpha_{ij} = \operatorname{softmax}_j(z_{ij}) = \frac{e^{z_{ij}}}{\sum_{j'} e^{z_{ij'}}},",
                     r"\sum_j \alpha_{ij} = 1"))
    ui.matrix(F.query_key_figure(trace, trace.weights, t("α weights"), weights=True),
              T.query_key_frame(trace, trace.weights, weights=True), f"{p}weights", names=QK, tip=P.weights(trace),
              links=[{"panel": f"{p}scaled", "axis": "row", "from": "row"}], **_query_choice(trace, p))
    st.caption(markdown_text(T.row_sums_text(trace.weights, query_labels(trace), trace.mask)))
    if trace.causal:
        st.caption(t(MASK_CAPTION))
    player.offer(trace, p, "softmax", _chosen_query(trace, p))
    if trace.queries is None and st.toggle(t("Show α as lines (head view)"), key=f"{p}lines",
                 help=t("Queries on the left, keys on the right; the larger a weight, the darker and thicker its "
                        "line (none at 0.005 or less).")):
        lines_panel(trace.weights[None], trace.tokens, key=f"{p}lines")


def lines_panel(weights, tokens, *, key: str, head_names: list[str] | None = None) -> None:
    """The head view with a token picker that highlights only that token's lines."""
    labels = token_labels(tokens)
    named = {None: t("every token")} | {i: f"{i + 1} · {label}" for i, label in enumerate(labels)}
    ui.keep_menu_in_step(f"{key}-highlight", named, named.values(), default=None)  # its labels are the sentence's
    pick = st.selectbox(t("Highlight the lines of"), list(named), key=f"{key}-highlight",
                        format_func=bound(named.__getitem__))
    pick = pick if pick is None or pick < len(labels) else None
    views = H.lines_view(weights, tokens, highlight=pick, head_names=head_names)
    ui.chart_row([(fig, f"{key}-view-{k}") for k, fig in enumerate(views)])
    st.caption(t("Queries on the left, keys on the right. Each line joins query i to key j; the darker and thicker "
                 "the line, the larger α_ij. The numbers are in the α table."))


def _output(trace: AttentionTrace, p: str) -> None:
    n, labels, positions = trace.n, query_labels(trace), trace.query_positions
    # the query's menu beside the formula, not above it: the step's first chart stays in view (issue 47)
    pick, formula = st.columns([2, 3], vertical_alignment="center") if trace.queries is None else (None, st)
    if trace.queries is None:
        named = [f"{q + 1} · {labels[q]}" for q in range(n)]
        ui.keep_menu_in_step(f"{p}query", range(n), named, default=0)  # its labels change with the sentence
        i = pick.selectbox(
            t("Query token i"), options=range(n), format_func=named.__getitem__, key=f"{p}query",
            persist_state="session",  # part of the link, also while another step is open (ui/links.py)
            help=t("Pick the token whose output you want to build. Arrow keys work once the box has focus."),
        )
        i = i if i is not None and i < n else 0
    else:
        i = 0  # a cached step has one query: the token read
    qi = positions[i] + 1
    formula.latex(rf"\mathrm{{Att}}(q_{{{qi}}}, K, V) = \sum_j \alpha_{{{qi}j}}\, v_j")
    left, right = st.columns([3, 2], vertical_alignment="center")
    with left:
        ui.chart(F.alpha_bars(trace, i), f"{p}alpha-row")
    with right:
        ui.table(T.one_row(T.query_key_frame(trace, trace.weights, weights=True), i), f"{p}alpha-row", names=QK)
    decimals = T.weighted_sum_decimals(trace, i)
    ui.matrix(F.weighted_sum_figure(trace, i), T.weighted_sum_frame(trace, i), f"{p}weighted-sum", decimals=decimals,
              tip={"kind": "column", "dec": decimals[0].tolist()}, names=(N_("term"), N_("dimension")))
    st.caption(T.weighted_sum_caption(decimals))
    player.offer(trace, p, "output", i)
    left, _ = st.columns([3, 2])
    with left:
        st.markdown(nt("**Output for query {query} (“{token}”)**, a vector of d_k = {n} number:",
                       "**Output for query {query} (“{token}”)**, a vector of d_k = {n} numbers:", trace.d_k, query=qi,
                       token=markdown_text(labels[i])))
        ui.table(T.one_row(T.token_by_dim_frame(trace, trace.output), i), f"{p}output-row",
                 names=(N_("query"), N_("dimension")))

    st.markdown("##### " + t("The same numbers, written out"))
    st.caption(t("Inputs to a sum or a quotient carry as many decimals as it takes for them to give the shown "
                 "result; “≈” marks the rare line where the result sits exactly on a rounding boundary."))
    # on_change="rerun": a closed expander's formulas are not built or sent (64 tokens: 64 long lines)
    with ui.lazy_expander(t("1 · Scores: s_{query},j = q_{query}·k_j as a sum of products, then z = s ÷ √d_k",
                            query=qi),
                          key=f"{p}sums-scores", expanded=n <= 6) as part:
        if part.open:  # one formula element, not one a key: each element costs the browser a draw
            st.latex(L.one_alignment(L.dot_products(trace, i)))
    with ui.lazy_expander(t("2 · Softmax: exp / Σ exp (shifted by the row maximum m for numerical safety)"),
                          key=f"{p}sums-softmax", expanded=n <= 6) as part:
        if part.open:
            st.latex(L.softmax_row(trace, i))
    with ui.lazy_expander(t("3 · Weighted sum of the value vectors"), key=f"{p}sums-output", expanded=True) as part:
        if part.open:
            st.latex(L.weighted_sum(trace, i))

    if trace.queries is not None:  # a cached step: its one output row is above
        return
    st.markdown("##### " + t("Every query at once"))
    st.latex(L.apart(r"\mathrm{Att}(Q, K, V) = \alpha V:",
                     rf"[{n} \times {n}] \cdot [{n} \times {trace.d_k}] = [{n} \times {trace.d_k}]"))
    ui.matrix(F.token_by_dim_figure(trace, trace.output, t("output αV")), T.token_by_dim_frame(trace, trace.output),
              f"{p}output", names=(N_("query"), N_("dimension")), tip=P.output(trace),
              links=[{"panel": f"{p}weights", "axis": "row", "from": "row"},
                     {"panel": f"{p}v", "axis": "col", "from": "col"}], **_query_choice(trace, p))


# (title, lesson text in assets/, what the step draws from the trace): viz.steps holds the texts, so the
# handout (viz.exports) prints the same steps
STEPS: list[tuple[str, str, Callable[[AttentionTrace, str], None]]] = [
    (title, text, render) for (title, text), render in
    zip(STEP_TEXTS, (_tokens, _embeddings, _projections, _qkv, _scores, _scale, _softmax, _output), strict=True)
]


def _rope(trace: AttentionTrace, p: str) -> None:
    rope = trace.rope
    half = trace.d_k // 2
    st.latex(L.apart([r"q_i \leftarrow R(i)\,q_i,", r"k_j \leftarrow R(j)\,k_j:"],
                     rf"(x_c,\ x_{{c+{half}}}) \mapsto \allowbreak "
                     rf"(x_c \cos i\theta_c - x_{{c+{half}}} \sin i\theta_c,\ \allowbreak "
                     rf"x_c \sin i\theta_c + x_{{c+{half}}} \cos i\theta_c)"))
    k_after = trace.k[-rope.k_before.shape[0]:]  # a cached step rotates only the new key
    parts = [(t("Q before RoPE"), "q-before", rope.q_before), (t("Q after"), "q-after", trace.q),
             (t("K before RoPE"), "k-before", rope.k_before), (t("K after"), "k-after", k_after)]
    ui.matrices([_vectors(trace, p, name, key, m) for name, key, m in parts], key=f"{p}rope")
    st.caption(sentences(t("Position i counts from 0 here, as the model does; the first pair turns by {first} "
                           "radians per position, the last by {last}.", first=decimal(f"{rope.theta[0]:.2f}"),
                           last=significant(rope.theta[-1])), t(SIGNED_CAPTION)))


def steps_for(trace: AttentionTrace) -> list[tuple[str, str, Callable[[AttentionTrace, str], None]]]:
    """The walkthrough's eight steps, and for a decoder with rotary positions a RoPE step after Q, K, V."""
    if trace.rope is None:
        return STEPS
    return [*STEPS[:4], (N_("Rotary positions (RoPE)"), "walkthrough/04b_rope", _rope), *STEPS[4:]]


def render_steps(trace: AttentionTrace, *, prefix: str = "", first: int = 1, last: int = len(STEPS),
                 intro: bool = True, map_under: Callable[[int], None] | None = None) -> None:
    """Steps ``first`` … ``last`` (of ``steps_for(trace)``) for ``trace``; widget and element keys get
    ``prefix``. ``intro=False`` leaves out each step's header and lesson text (for a page that drew them);
    ``map_under(number)`` draws the model map under a step's header (ui/model_map.py)."""
    steps = steps_for(trace)
    for number, (_title, _text, render) in enumerate(steps, start=1):
        if first <= number <= last:
            if intro:
                slot = step_intro(number, prefix, preset="cached" if trace.queries is not None else trace.preset,
                                  steps=steps, map_slot=map_under is not None)
                if slot is not None:
                    with slot:
                        map_under(number)
            render(trace, prefix)


# Step texts that would not be true of a trained or a real model's head (they speak of seeded
# embeddings and presets), by the trace's preset
OWN_TEXTS = {
    "trained": {"walkthrough/03_projections": "walkthrough/03_projections_trained"},
    "pretrained": {"walkthrough/01_tokens": "walkthrough/01_tokens_pretrained",
                   "walkthrough/02_embeddings": "walkthrough/02_embeddings_pretrained",
                   "walkthrough/03_projections": "walkthrough/03_projections_pretrained"},
    "cached": {"walkthrough/01_tokens": "walkthrough/01_tokens_pretrained",  # a decoder's step with its cache
               "walkthrough/02_embeddings": "walkthrough/02_embeddings_cached",
               "walkthrough/03_projections": "walkthrough/03_projections_pretrained",
               "walkthrough/04_qkv": "walkthrough/04_qkv_cached", "walkthrough/04b_rope": "walkthrough/04b_rope_cached",
               "walkthrough/05_scores": "walkthrough/05_scores_cached",
               "walkthrough/08_output": "walkthrough/08_output_cached"},
}


def step_intro(number: int, prefix: str = "", *, preset: str = "", steps=STEPS, map_slot: bool = False,
               text: str = "whole"):
    """A step's header and its plain-language explanation (for a trace with this ``preset``); with ``map_slot``, a
    container between them for the model map, returned (the map needs the trace, which may come later). ``text``
    "lead" draws only the text's lead here, "none" none of it: the caller draws the rest under the step's charts
    (``step_more``)."""
    title, name, _ = steps[number - 1]
    ui.step(number, len(steps), title, anchor=f"{prefix}step-{number}")
    slot = st.container() if map_slot else None
    name = _own_text(name, preset)
    if text == "lead":
        st.markdown(lesson_parts(name)[0])
    elif text == "whole":
        ui.lesson(name)
    return slot


def _own_text(name: str, preset: str) -> str:
    """The text a step tells for a trace with this ``preset`` (``OWN_TEXTS``)."""
    return OWN_TEXTS.get(preset, {}).get(name, name)


def step_more(number: int, *, preset: str = "", steps=STEPS, whole: bool = False) -> None:
    """Under step ``number``'s charts: the rest of its text after its lead (``step_intro(text="lead")``), or the whole
    text (``whole``, after ``step_intro(text="none")``), for a trace with this ``preset`` as ``step_intro`` tells it."""
    lead, more = lesson_parts(_own_text(steps[number - 1][1], preset))
    if whole and lead:
        st.markdown(lead)
    if more:
        st.markdown(more)
