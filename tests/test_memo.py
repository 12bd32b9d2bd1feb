"""viz/memo.py: a chart kept for every session is the chart its own arguments build, in its reader's language, and
never another's (issue 46: a class's students share the charts of the lesson they follow)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from viz import figures as F
from viz import i18n
from viz.memo import by_content, content


def chart(m, **options):
    n, d = np.shape(m)
    return dict(row_labels=[f"r{i}" for i in range(n)], col_labels=[f"c{j}" for j in range(d)], title="α",
                row_title="query", col_title="key", **options)


cells = arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)),
               elements=st.floats(-3, 3, allow_nan=False, width=32) | st.just(-np.inf))


@given(m=cells, weights=st.booleans(), decimals=st.integers(0, 4), language=st.sampled_from(["en", "fr", "zh"]))
def test_a_kept_chart_is_the_one_its_arguments_build_in_its_readers_language(m, weights, decimals, language):
    with i18n.speaking(language):
        kept = F.heatmap(m.copy(), **chart(m, weights=weights, decimals=decimals))
        again = F.heatmap(m.copy(), **chart(m, weights=weights, decimals=decimals))  # another array, the same numbers
        built = F.heatmap.__wrapped__(m, **chart(m, weights=weights, decimals=decimals))
    assert kept == built
    assert again is kept  # kept, not built again


def test_another_number_label_or_language_is_another_chart():
    m = np.array([[0.25, -1.5], [2.0, 0.125]])
    with i18n.speaking("en"):
        first = F.heatmap(m, **chart(m))
        changed = m.copy()
        changed[1, 1] = 0.126
        assert F.heatmap(changed, **chart(m, decimals=3)).markup != F.heatmap(m, **chart(m, decimals=3)).markup
        assert F.heatmap(m, **{**chart(m), "col_labels": ["c0", "x"]}).markup != first.markup
    with i18n.speaking("fr"):
        french = F.heatmap(m, **chart(m))
    assert "0,25" in french.markup and "0.25" in first.markup  # the reader's decimal sign, never the first reader's


def test_what_the_key_cannot_tell_apart_is_built_again_not_shared():
    assert content(np.array([0.0])) != content(np.array([-0.0]))
    assert content(np.array([1, 2])) != content(np.array([1.0, 2.0]))  # dtype
    assert content(np.zeros((2, 3))) != content(np.zeros((3, 2)))  # shape
    assert content([1, 2]) != content((1, 2)) and content(1) != content(1.0) and content(True) != content(1)
    calls = []

    @by_content(maxsize=4)
    def build(x, labels):
        calls.append(1)
        return len(labels)

    assert build(np.ones(2), labels={"a": 1}) == 1  # a type the key does not know, unhashable: built, not kept
    assert build(np.ones(2), labels={"a": 1}) == 1
    assert build(np.ones(2), labels=frozenset("a")) == 1  # hashable, but not a content the key knows: built too
    assert len(calls) == 3
    assert build(np.ones(2), labels=["a"]) == build(np.ones(2), labels=["a"]) == 1
    assert len(calls) == 4


@given(weights=arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(1, 4)).map(lambda s: (s[0], s[1], s[1])),
                      elements=st.floats(0, 1, width=32)),
       language=st.sampled_from(["en", "es", "zh"]), highlight=st.none() | st.integers(0, 3))
def test_the_heads_charts_kept_are_the_ones_their_weights_build(weights, language, highlight):
    from viz import heads as H
    tokens = tuple(f"w{k}" for k in range(weights.shape[1]))
    highlight = None if highlight is None or highlight >= len(tokens) else highlight
    with i18n.speaking(language):
        assert H.heads_heatmaps(weights.copy(), tokens) == H.heads_heatmaps.__wrapped__(weights, tokens)
        assert H.lines_view(weights.copy(), tokens, highlight=highlight) == \
            H.lines_view.__wrapped__(weights, tokens, highlight=highlight)
        assert H.heads_heatmaps(weights.copy(), tokens) is H.heads_heatmaps(weights.copy(), tokens)


def test_an_array_of_objects_is_keyed_by_its_items_and_the_cache_keeps_no_argument():
    import gc
    import weakref

    words = np.array(["a", "b"], dtype=object)
    assert content(words) == content(np.array(["a", "b"], dtype=object)) != content(np.array(["a", "c"], dtype=object))

    class Matrix(np.ndarray):  # an array a weak reference can name
        pass

    @by_content(maxsize=4)
    def build(m):
        return float(m.sum())

    m = np.ones((3, 3)).view(Matrix)
    alive = weakref.ref(m)
    assert build(m) == 9.0 and build(np.ones((3, 3))) == 9.0 and build.cache_info().hits == 1
    del m
    gc.collect()
    assert alive() is None  # the cache holds the digest of its numbers, not the array
