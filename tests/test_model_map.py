"""The model map (issue 36, viz/model_map.py, ui/model_map.py): its parts' shapes come from the trace the page shows,
the open step is the one marked, every step is there once and in order, and the pages draw it under the open step."""

from __future__ import annotations

import json

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
    assert head[1] == {"label": "X = E + P" if positional else "X", "shape": f"[{n} × {d_model}]", "step": 2,
                       "note": ""}
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
