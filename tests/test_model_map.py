"""The model map (issue 36, viz/model_map.py, ui/model_map.py): its parts' shapes come from the trace the page shows,
the open step is the one marked, every step is there once and in order, and the pages draw it under the open step."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from attention import trace_self_attention
from attention.pretrained import MODELS
from tests.claims.families import D_MODELS, SENTENCES
from tests.test_pages import APP, TIMEOUT, assert_no_exception
from ui.walkthrough import STEPS, steps_for
from viz.model_map import FULL_MODEL, lesson_map, real_map

TITLES = [title for title, _, _ in STEPS]


def parts(data: dict, group: int = 0) -> list[dict]:
    return data["groups"][group]["parts"]


@settings(max_examples=60, deadline=None)
@given(sentence=st.sampled_from(SENTENCES), d_model=st.sampled_from(D_MODELS), d_k=st.integers(1, 16),
       causal=st.booleans(), positional=st.booleans(), current=st.integers(1, 8))
def test_the_walkthroughs_map_has_the_traces_shapes_and_its_steps_in_order(sentence, d_model, d_k, causal,
                                                                          positional, current):
    trace = trace_self_attention(sentence, d_model=d_model, d_k=d_k, causal=causal, positional=positional)
    n = trace.n
    data = lesson_map(trace, TITLES, current)
    head = parts(data)
    assert [p["step"] for p in head] == list(range(1, 9)) and data["current"] == current
    assert head[0]["shape"] == f"{n} token{'s' if n != 1 else ''}"
    shown = {k: v for k, v in head[1].items() if k != "thumb"}
    assert shown == {"label": "X = E + P" if positional else "X", "shape": f"[{n} × {d_model}]", "step": 2,
                     "note": "", "here": False}
    assert head[2]["shape"] == f"[{d_model} × {d_k}] each" and head[3]["shape"] == f"[{n} × {d_k}] each"
    assert [p["shape"] for p in head[4:7]] == [f"[{n} × {n}]"] * 3
    assert head[5]["label"] == f"÷ √{d_k}" + (" + mask" if causal else "")
    assert head[7]["shape"] == f"[{n} × {d_k}]"
    full = data["groups"][-1]
    assert full["name"] == FULL_MODEL and full["faded"] and all(p["step"] is None for p in full["parts"])


@settings(max_examples=30, deadline=None)
@given(sentence=st.sampled_from(SENTENCES), heads=st.sampled_from([1, 2, 4, 8]), current=st.integers(3, 8))
def test_the_multi_head_map_opens_only_the_steps_its_menu_has_and_shows_concat_and_w_o(sentence, heads, current):
    from attention import trace_multi_head
    mh = trace_multi_head(sentence, d_model=8, n_heads=heads)
    trace = mh.heads[0]
    data = lesson_map(trace, TITLES, current, heads=heads, opens=range(3, 9))
    assert [p["step"] for p in parts(data)] == [None, None, 3, 4, 5, 6, 7, 8]
    layer = parts(data, 1)
    assert layer[1]["shape"] == f"[{trace.n} × {heads * trace.d_k}]"
    assert layer[2]["shape"] == f"[{heads * trace.d_k} × 8] → [{trace.n} × 8]"


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("layer", [0, 2, 5])
def test_a_real_models_map_has_its_own_layers_heads_and_shapes(name, layer, minilm, smollm2):
    model = {"minilm": minilm, "smollm2": smollm2}[name]
    info = MODELS[name]
    trace = model.head_trace("The cat sat on the mat because it was tired", layer, 1)
    titles = [title for title, _, _ in steps_for(trace)]
    data = real_map(trace, titles, 5, info, layer, 1)
    head = parts(data, 1)
    assert [p["step"] for p in head] == list(range(1, len(titles) + 1))
    assert ("RoPE on q, k" in [p["label"] for p in head]) == (info.kind == "decoder")
    assert head[2]["shape"] == f"[{info.d_model} × {info.d_head}] each"
    assert data["groups"][1]["name"] == f"Layer {layer + 1} of {info.layers}, head 2 of {info.heads}: this page's steps"
    assert data["folded"] == f"Head 2, layer {layer + 1} of {info.title.split(' (')[0]}"  # the same head, folded
    before = [p["label"] for p in parts(data, 0)]
    assert (f"Layers 1–{layer}" in before or "Layer 1" in before) == (layer > 0)
    after = [p["label"] for p in parts(data, 3)]
    assert after[-1] == ("Next-token probabilities" if info.kind == "decoder" else "Sentence embedding")


def maps(at: AppTest) -> dict[str, dict]:
    """The maps the page draws (static/map.js's data), by key."""
    found: dict[str, dict] = {}

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and getattr(proto, "component_name", "") == "attention_lab.model_map":
            found[proto.id.split("map-")[-1] if "map-" in proto.id else proto.id] = json.loads(proto.json)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


@pytest.mark.parametrize("step", range(1, 9))
def test_the_walkthrough_draws_the_map_under_the_open_step_with_its_own_shapes(step):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"step": str(step), "sentence": "the cat sat on the mat", "d_k": "3", "causal": "true"})
    at.run()
    assert_no_exception(at)
    [data] = maps(at).values()
    assert data["current"] == step
    assert parts(data)[4]["shape"] == "[6 × 6]" and parts(data)[5]["label"] == "÷ √3 + mask"


def test_all_steps_on_one_page_draw_one_map_with_no_step_marked():
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["all_steps"] = "true"
    at.run()
    [data] = maps(at).values()
    assert data["current"] is None


def test_the_multi_head_and_real_model_pages_draw_their_maps(minilm):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"head_step": "6"})
    at.switch_page("lessons/multihead.py").run()
    [data] = maps(at).values()
    assert data["current"] == 6 and len(data["groups"]) == 3
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"rm_layer": "4", "rm_head": "2", "rm_step": "7"})
    at.switch_page("lessons/real_model.py").run()
    [data] = maps(at).values()
    assert data["current"] == 7 and data["groups"][1]["name"].startswith("Layer 4 of 6, head 2 of 12")


# --- the map on the other lessons: each marks what its page is about, with the page's own shapes ------------------

def here(data: dict, group: int = 0) -> list[int]:
    return [p["step"] for p in parts(data, group) if p["here"]]


def open_lesson(page: str, **query) -> dict:
    """The one map ``page`` draws, after a run with ``query`` in its link."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.switch_page(f"lessons/{page}.py").run()
    assert_no_exception(at)
    [data] = maps(at).values()
    return data


@settings(max_examples=40, deadline=None)
@given(sentence=st.sampled_from(SENTENCES), d_model=st.sampled_from(D_MODELS), d_k=st.integers(1, 16),
       here_=st.sets(st.integers(1, 8)))
def test_a_lessons_map_marks_its_steps_and_opens_them_in_the_walkthrough(sentence, d_model, d_k, here_):
    trace = trace_self_attention(sentence, d_model=d_model, d_k=d_k)
    data = lesson_map(trace, TITLES, None, here=here_, name="this lesson", where="the walkthrough")
    assert here(data) == sorted(here_) and data["current"] is None and data["where"] == "the walkthrough"
    assert [p["shape"] for p in parts(data)] == [p["shape"] for p in parts(lesson_map(trace, TITLES, 1))]


def test_the_scaling_lessons_map_is_the_traces_its_page_draws_and_marks_the_scale_and_softmax():
    data = open_lesson("scaling", sentence="one two three", d_model="6", temperature="2.0")
    assert here(data) == [6, 7] and parts(data)[5]["label"] == "÷ (√4 · 2)"  # the page's trace: d_k 4, T 2
    assert data["groups"][0]["name"].startswith("A head on your sentence (d_k = 4 here, not the slider's 64;")
    assert "(d_k = 4;" in open_lesson("scaling", dk_demo="4")["groups"][0]["name"]  # the same: nothing to add
    assert open_lesson("scaling", sentence="one two three")["groups"][0]["parts"][5]["label"] == "÷ √4"  # T = 1
    assert parts(data)[4]["shape"] == "[3 × 3]" and parts(data)[1]["shape"] == "[3 × 6]"


@pytest.mark.parametrize("d_k", [2, 5, 8])
def test_the_relevance_lessons_map_has_the_experiments_d_k_and_marks_w_q_w_k_scores_and_alpha(d_k):
    data = open_lesson("relevance", sentence="the cat sat on the mat", rel_dk=str(d_k))
    assert here(data) == [3, 5, 7] and parts(data)[2]["shape"].startswith(f"[8 × {d_k}]")
    assert parts(data)[3]["shape"] == f"[6 × {d_k}] each"


@pytest.mark.parametrize(("stage", "marked", "named"), [(1, [2, 7, 8], "Q = K = V = X"),
                                                         (2, [3, 7, 8], "W_V random (a model learns it), W_Q = W"),
                                                         (3, [3, 7, 8], "W_Q, W_K, W_V random")])
def test_the_parts_lessons_map_marks_its_stages_ingredient(stage, marked, named):
    data = open_lesson("parts", stage=str(stage), sentence="a b c d e")
    assert here(data) == marked and named in data["groups"][0]["name"]
    assert parts(data)[2]["shape"] == "[8 × 8] each"  # each stage's W is d_model × d_model


def test_the_phonebooks_map_is_its_lookup_as_one_query_with_the_books_shapes():
    from attention.phonebook import lookup
    from ui.links import default
    book = default("book")
    result = lookup([n for n, _ in book], [p for _, p in book], default("pb_query"), temperature=1.0)
    data = open_lesson("phonebook")
    m, dim, digits = len(book), result.keys.shape[1], result.values.shape[1]
    assert here(data) == [2, 4, 4, 5, 6, 7, 8]  # every part: the lookup is the lesson
    assert parts(data)[0]["label"] == f"The name and the book's {m} names as trigram counts"
    assert [p["shape"] for p in parts(data)] == [f"[{m + 1} × {dim}]", f"[1 × {dim}]",
                                                 f"[{m} × {dim}], [{m} × {digits}]", f"[1 × {m}]", "", f"[1 × {m}]",
                                                 f"[1 × {digits}]"]
    data = open_lesson("phonebook", pb_query="   ")  # nothing looked up: the map, without shapes
    assert all(p["shape"] == "" for p in parts(data)) and here(data) == [2, 4, 4, 5, 6, 7, 8]


@pytest.mark.parametrize(("target", "source", "d_k"), [("I love you", "je t'aime bien", 3), ("a", "b c d e f", 16)])
def test_the_cross_attention_map_has_the_targets_rows_and_the_sources_columns(target, source, d_k):
    from attention.cross import trace_cross_attention
    trace = trace_cross_attention(target, source, d_model=8, d_k=d_k)
    i, j = len(trace.target.tokens), len(trace.source.tokens)
    data = open_lesson("cross", ca_target=target, ca_source=source, ca_dk=str(d_k))
    shapes = [p["shape"] for p in parts(data)]
    assert shapes[0] == f"[{i} × 8], [{j} × 8]"
    assert shapes[2] == f"[{i} × {d_k}], [{j} × {d_k}] ×2" and shapes[3:6] == [f"[{i} × {j}]"] * 3
    assert shapes[6] == f"[{i} × {d_k}]" and here(data) == [2, 3, 4, 5, 6, 7, 8] and data["groups"][1]["faded"]


def test_the_learn_lessons_map_is_the_trained_head_and_its_small_model():
    data = open_lesson("learn", lt_run="true", lt_heads="2", seed="914")  # seeds no other test trains: finished runs
    # are shared by every session, and another test's page must still wait for its Train
    assert data["current"] == 7 and [p["step"] for p in parts(data)] == [None, None, 3, 4, 5, 6, 7, 8]
    assert parts(data)[2]["shape"] == "[12 × 6] each"  # d_model 12, two heads of 6
    rest = parts(data, 1)
    assert rest[0]["label"] == "2 heads, concatenated" and rest[1]["shape"].startswith("[12 × ")
    assert data["groups"][0]["name"].startswith("Head 1 of 2: its steps")
    assert data["groups"][2]["faded"]
    data = open_lesson("learn", lt_run="true", lt_head_step="5", seed="915")
    assert data["current"] == 7  # the panel closed: α (the page's chart) marked


@pytest.mark.parametrize(("page", "folded"), [
    ("walkthrough", "One head of a model"), ("multihead", "One head of this layer"), ("scaling", "One head of a model"),
    ("relevance", "One head of a model"), ("parts", "One head of a model"), ("phonebook", "One query of one head"),
    ("cross", "One cross-attention head"), ("learn", "Head 1 of the small model's 2")])
def test_a_folded_map_says_whose_steps_it_holds(page, folded):
    """Issue 47's audit (#18): folded, the map read "Where this is in a model", then a head's eight steps: a whole
    model, to a learner. Folded, its title names the head (or the one query) whose steps follow; unfolded, the map
    names every group. Each page's map holds one head's steps (or one query's) first, as the title says."""
    data = open_lesson(page, lt_heads="2", seed="913") if page == "learn" else open_lesson(page)
    assert data["folded"] == folded
    first = data["groups"][0]["name"].lower()
    assert ("query" in first) if "query" in folded else ("head" in first), first
    if page == "learn":  # one head: the model's only one
        assert open_lesson(page, lt_heads="1", seed="913")["folded"] == "The small model's one head"


def test_the_generate_lessons_map_is_smollm2s_around_the_cached_step(smollm2):
    data = open_lesson("generate", gen_count="3")
    head = parts(data, 1)
    rest = [p["shape"] for group in (0, 2, 3) for p in parts(data, group) if p["shape"].endswith("× 576]")]
    assert rest and all(shape.startswith("[1 × ") for shape in rest)  # a cached step computes one row a layer
    assert [p["step"] for p in head] == [None, 2, None, 4, 5, 6, 7, 8, 9]  # the page draws steps 2 and 4 on
    assert head[5]["shape"].startswith("[1 × ")  # a cached step: the new token's row only
    assert data["title"] == "Where this is in SmolLM2"


@settings(max_examples=40, deadline=None)
@given(sentence=st.sampled_from(SENTENCES), d_k=st.integers(1, 14), causal=st.booleans())
def test_the_thumbnails_are_the_traces_own_numbers_where_they_fit(sentence, d_k, causal):
    import numpy as np

    from viz.svg import MASKED_FILL, colours
    trace = trace_self_attention(sentence, d_model=8, d_k=d_k, causal=causal)
    head = {p["label"].split(" ")[0]: p for p in parts(lesson_map(trace, TITLES, 1))}
    n = trace.n
    fits = n <= 12 and d_k <= 12
    assert (head["Output"]["thumb"] is not None) == fits and (head["α"]["thumb"] is not None) == (n <= 12)
    assert head["Tokens"]["thumb"] is None and head["W_Q,"]["thumb"] is None  # no matrix of its own to draw
    if n > 12:
        return
    alpha = head["α"]["thumb"]
    assert (alpha["rows"], alpha["cols"]) == (n, n)
    expected = colours("weights", np.where(trace.mask, trace.weights, np.nan) / trace.weights.max())
    assert alpha["colours"] == expected
    assert (np.array(alpha["colours"]) == MASKED_FILL).sum() == (~trace.mask).sum()
    # one scale: the division pales them; the scores have every cell (step 5 has no mask), the scaled scores grey
    # where the mask set them to −∞ (step 6)
    top = max(np.abs(trace.scores).max(), np.abs(trace.scaled_scores[trace.mask]).max())
    for label, shown in (("Scores", trace.scores), ("÷", np.where(trace.mask, trace.scaled_scores, np.nan))):
        want = colours("signed", (shown + top) / (2 * top)) if top > 0 else colours("signed", np.full(shown.shape, 0.5))
        assert head[label]["thumb"]["colours"] == want
    assert MASKED_FILL not in head["Scores"]["thumb"]["colours"]


STEP_PANELS = {"Embeddings X": "x", "Queries, keys and values": "q", "Scores Q·Kᵀ": "scores",
               "Scale by 1/√d_k": "scaled", "Softmax: attention weights α": "weights",
               "The output for one query": "output"}


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("sentence", ["a b c", "the cat sat on the mat", "hello", "x y", "😀 😀 🤗"])
def test_each_thumbnail_greys_the_cells_its_step_draws_grey(sentence, causal):
    """Issue 43: with the causal mask on, the scores' thumbnail greyed the masked cells, which step 5 shows as
    numbers (the mask comes at step 6). Each step's thumbnail on the map is grey exactly where that step's own
    heatmap on the page is grey: the scaled scores (−∞) and α (—) where masked, nothing else."""
    import numpy as np

    from tests.svg_reading import cell_fills
    from tests.table_reading import view_panels
    from viz.svg import MASKED_FILL
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"sentence": sentence, "all_steps": "true", "causal": str(causal).lower()})
    at.run()
    assert_no_exception(at)
    [data] = maps(at).values()
    panels = view_panels(at)
    n = len(sentence.split())
    for title, part in zip(TITLES, parts(data), strict=True):
        if title not in STEP_PANELS:
            assert part["thumb"] is None  # tokens, W_Q, W_K, W_V: nothing of the head's rows to draw
            continue
        shown = panels[STEP_PANELS[title]]["figure"]
        fig = type("Fig", (), {"markup": shown["svg"], "width": shown["width"], "height": shown["height"]})
        thumb = part["thumb"]
        shape = (thumb["rows"], thumb["cols"])
        drawn_grey = cell_fills(fig, shape) == MASKED_FILL  # the step's heatmap, as the page draws it
        assert ((np.array(thumb["colours"]).reshape(shape) == MASKED_FILL) == drawn_grey).all(), title
        assert drawn_grey.any() == (causal and n > 1 and title in {"Scale by 1/√d_k", "Softmax: attention weights α"})


def test_a_flat_matrixs_thumbnail_keeps_its_masked_cells_grey():
    import numpy as np

    from viz.model_map import thumbnail
    from viz.svg import MASKED_FILL
    shown = thumbnail(np.array([[0.0, np.nan], [0.0, 0.0]]))
    assert shown["colours"][1] == MASKED_FILL and shown["colours"][0] != MASKED_FILL
    assert thumbnail(np.zeros((13, 2))) is None and thumbnail(np.zeros((2, 13))) is None  # it does not fit


def test_before_a_run_the_learn_lessons_map_is_the_head_the_run_starts_from():
    from attention.training import TrainingConfig, head_trace, train
    from viz.model_map import training_map
    data = open_lesson("learn", lt_heads="2", seed="913")  # a seed no other test trains (finished runs are shared)
    assert [p["step"] for p in parts(data)] == [None] * 8 and data["current"] is None  # nothing to open yet
    assert "before training (step 0" in data["groups"][0]["name"]
    run = train(TrainingConfig(heads=2, seed=913))
    replayed = training_map(head_trace(run, 0, 0, 0), TITLES, None, head=0, heads=2, classes=len(run.task.classes),
                            trained=False)
    assert data == json.loads(json.dumps(replayed))  # the run's own step 0, replayed from its seed


def test_the_browsers_copy_of_the_maps_english_texts_is_the_servers():
    from viz.model_map import map_texts

    copy = json.loads((Path(__file__).resolve().parent / "js" / "map_texts.json").read_text(encoding="utf-8"))
    assert copy == map_texts()


def test_every_word_of_every_map_comes_from_the_catalogs():
    """Issue 45: in the pseudo-language every title, group name, part label with words, note and shape with words of
    every map is marked (the maths and sizes, "[4 × 8]", "LayerNorm", "α = softmax", are not words)."""
    from attention import trace_self_attention
    from attention.cross import trace_cross_attention
    from attention.phonebook import lookup
    from viz import model_map as M
    from viz.i18n import PSEUDO, speaking

    trace = trace_self_attention("This forum is awesome", seed=1, causal=True)
    titles = [title for title, _, _ in STEPS]
    with speaking(PSEUDO):
        maps = [M.lesson_map(trace, titles, 3), M.lesson_map(trace, titles, 3, heads=2),
                M.training_map(trace, titles, 3, head=0, heads=2, classes=3),
                M.training_map(trace, titles, 3, head=0, heads=1, classes=3, trained=False),
                M.lookup_map(None), M.lookup_map(lookup(["Anna", "Ben"], ["123", "456"], "Ann")),
                M.cross_map(trace_cross_attention("the cat", "le chat", seed=1))]
        # a real model's map from a head of the lesson's size (the map reads the trace's shapes and the model's sizes)
        maps += [M.real_map(trace, titles, 3, info, layer, 0) for info in MODELS.values()
                 for layer in (0, 1, info.layers - 2, info.layers - 1)]
    english = re.compile(r"[A-Za-z]{3,}")
    notation = {"LayerNorm", "RMSNorm", "MLP", "softmax"}  # names, not words
    for data in maps:
        texts = [data["title"], data["folded"], *data["texts"].values()]
        for group in data["groups"]:
            texts.append(group["name"])
            texts += [part[k] for part in group["parts"] for k in ("label", "shape", "note") if part[k]]
        for text in texts:
            words = [w for w in english.findall(re.sub(r"⟦[^⟧]*⟧", " ", text)) if w not in notation]
            assert not words, (text, words)
