"""Claims of cross-attention (assets/cross/*.md, lessons/cross.py, viz/cross.py), one test each, over
families of sentence pairs, sizes, seeds and the positional switch."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention import SentenceError, trace_self_attention
from attention.cross import ALIGN_Z, BILINGUAL, EXAMPLE_PAIRS, trace_cross_attention
from tests.claims.families import D_MODELS, SEEDS, SENTENCES
from tests.claims.test_real_model_claims import APP
from viz import cross as C
from viz.labels import token_labels

PAIRS = [("Ce forum est génial", "This forum is awesome"), ("le chat assis sur le tapis", "the cat sat on the mat"),
         ("le chien et le chat", "the dog and the cat"), ("je vous aime", "i love you"),
         ("nous lisons un bon livre", "we read a good book"), ("le le le", "the the"),
         ("chat", "the cat sat on the mat"),
         ("attention", "attention is good"), ("génial forum", "This forum is awesome"),
         ("le chat et le chien et le forum", "the cat and the dog and the forum and the book"),
         ("bonjour", "hello"), ("un livre, un chien", "a book, a dog"), ("Le Chat", "THE CAT"),
         ("le chat assis sur le tapis le chien", "the cat sat on the mat the dog"),
         ("nous aimons le bon livre", "we love the good book"), ("ce ce ce", "this"),
         ("forum forum", "forum forum forum"), ("je lisons", "i read"), ("tapis chat le", "the cat mat"),
         ("et et", "and and and and"),
         # Spanish and Chinese targets, and a target mixing the three tables' words
         ("el gato negro duerme", "the black cat sleeps"), ("黑猫在睡觉", "the black cat sleeps"),
         ("este foro es genial", "This forum is awesome"), ("这个论坛很棒", "This forum is awesome"),
         ("el perro y el gato", "the dog and the cat"), ("我爱你", "i love you"), ("el chat 狗", "the cat dog"),
         ("un un", "a a a")]


def aligned_family():
    for (target, source), d_model, d_k, positional, seed in itertools.product(
            PAIRS, D_MODELS, (2, 4, 8, 16), (False, True), SEEDS[:2]):
        yield trace_cross_attention(target, source, d_model=d_model, d_k=d_k, seed=seed, preset="aligned",
                                    positional=positional)


def test_the_table_pairs_each_word_once_with_the_kth_copy_of_its_translation():
    """"The tables pair N of your target words with a source word, each with one of its own": one-to-one,
    in order (0dd9ac2 counted every combination: "8 pairs found" for 6 target words)."""
    for t in aligned_family():
        pairs = t.alignment.pairs
        assert len({i for i, _ in pairs}) == len({j for _, j in pairs}) == len(pairs) <= len(t.target.tokens)
        for i, j in pairs:
            assert t.target.tokens[i].lower() in [table.get(t.source.tokens[j].lower()) for table in BILINGUAL.values()]
            target, source = [w.lower() for w in t.target.tokens], [w.lower() for w in t.source.tokens]
            before = [k for k in range(i) if target[k] == target[i]]
            copies = [k for k in range(len(source)) if source[k] == source[j]]
            assert copies.index(j) == len(before)  # the k-th copy pairs with the k-th copy
        text = C.alignment_text(t)
        assert f"The tables pair {len(pairs)} of your target word" in text


def test_each_constructed_pair_meets_at_the_stated_score_and_other_pairs_keys_at_zero():
    """"the target word's query meets its source word's key with a scaled score of 4, and the keys of the
    other constructed pairs with 0", for every pair that got a direction."""
    checked = 0
    for t in aligned_family():
        built = t.alignment.built
        for i, j in built:
            checked += 1
            assert t.scaled_scores[i, j] == pytest.approx(ALIGN_Z, abs=1e-6)
            for _, j2 in built:
                same = np.array_equal(t.source.x[j2], t.source.x[j])
                assert t.scaled_scores[i, j2] == pytest.approx(ALIGN_Z if same else 0.0, abs=1e-6)
    assert checked > 1000


def test_at_most_min_d_model_d_k_directions_fit_and_the_limit_is_named():
    """"Only min(d_model, d_k) = … directions fit (d_model = 2 is the limit)": the pairs left out are
    exactly those beyond the limit, named with the limit that bound (0dd9ac2 said "at most d_k = 8 fit" at
    d_model 2 and called words "absent" from the table that were in it)."""
    for t in aligned_family():
        a, d_model = t.alignment, t.target.x.shape[1]
        assert a.directions <= a.limit == min(d_model, t.d_k)
        assert set(a.built) | set(a.left_out) == set(a.pairs) and not set(a.built) & set(a.left_out)
        notes = " ".join(C.alignment_notes(t, token_labels(t.target.tokens), token_labels(t.source.tokens)))
        if a.left_out:
            assert a.directions == a.limit
            limit = f"d_model = {d_model}" if d_model < t.d_k else f"d_k = {t.d_k}"
            assert f"min(d_model, d_k) = {a.limit} directions fit ({limit} is the limit)" in notes
        else:
            assert "directions fit" not in notes


def test_words_without_a_pair_are_named_and_only_they():
    """"No source word to pair with in the table for …": the named target words are exactly those the
    table left without a partner."""
    for t in aligned_family():
        labels = token_labels(t.target.tokens)
        notes = " ".join(C.alignment_notes(t, labels, token_labels(t.source.tokens)))
        unpaired = [labels[i] for i in range(len(labels)) if i not in {i for i, _ in t.alignment.pairs}]
        if unpaired:
            assert "No source word to pair with in the table for" in notes
        else:
            assert "No source word" not in notes


def test_copies_of_a_word_share_a_direction_without_positional_encodings():
    """"without positional encodings the copies are the same vector, so they share one direction and each
    copy looks at every copy of its translation alike" (0dd9ac2: each "le" row [0.29, 0.11, …, 0.29] and
    no word about it); with the encodings on each copy gets its own."""
    t = trace_cross_attention("le chat assis sur le tapis", "the cat sat on the mat", d_model=8, d_k=8, seed=42,
                              preset="aligned")
    assert t.alignment.pairs == ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)) and t.alignment.directions == 5
    np.testing.assert_allclose(t.weights[0], t.weights[4])
    assert t.weights[0, 0] == pytest.approx(t.weights[0, 4])
    assert any("share one direction" in n for n in C.alignment_notes(t, token_labels(t.target.tokens),
                                                                       token_labels(t.source.tokens)))
    on = trace_cross_attention("le chat assis sur le tapis", "the cat sat on the mat", d_model=8, d_k=8, seed=42,
                               preset="aligned", positional=True)
    assert on.alignment.directions == 6 and on.scaled_scores[0, 4] == pytest.approx(0, abs=1e-6)
    assert not any("share one direction" in n for n in C.alignment_notes(on, token_labels(on.target.tokens),
                                                                            token_labels(on.source.tokens)))


def test_the_measured_share_of_pairs_whose_row_peaks_on_the_pair_is_counted():
    """"Measured: N of the M constructed pairs have their row's largest weight on the pair": the count is
    α's, and over the family it is not always all of them (so the page does not promise it)."""
    short = 0
    for t in aligned_family():
        notes = C.alignment_notes(t, token_labels(t.target.tokens), token_labels(t.source.tokens))
        if t.alignment.built:
            peaks = sum(int(abs(t.weights[i, j] - t.weights[i].max()) <= 1e-12)  # a tie between copies counts
                        for i, j in t.alignment.built)
            assert f"Measured: {peaks} of the {len(t.alignment.built)} constructed pairs" in notes[-1]
            short += peaks < len(t.alignment.built)
    assert short > 0


def test_the_same_text_in_both_boxes_gives_the_walkthroughs_numbers_with_the_random_preset_and_no_mask():
    """"with the seeded random preset, type the same text in both boxes and the numbers become the
    walkthrough's at the same seed and d_k, with the walkthrough's causal mask off": over the family
    (0dd9ac2 did not name the preset or the mask; the aligned preset and the causal mask break it)."""
    for sentence, d_model, seed, positional in itertools.product(SENTENCES, (4, 8), SEEDS[:2], (False, True)):
        try:
            cross = trace_cross_attention(sentence, sentence, d_model=d_model, d_k=4, seed=seed, positional=positional)
        except SentenceError:
            continue
        walk = trace_self_attention(sentence, d_model=d_model, d_k=4, seed=seed, positional=positional)
        np.testing.assert_allclose(cross.weights, walk.weights, atol=1e-12)
        np.testing.assert_allclose(cross.output, walk.output, atol=1e-12)
    masked = trace_self_attention("the cat sat", d_model=8, d_k=4, seed=1, causal=True)
    assert not np.allclose(trace_cross_attention("the cat sat", "the cat sat", d_model=8, d_k=4, seed=1).weights,
                           masked.weights)


def test_the_aligned_page_names_its_counts_and_limit():
    """The page shows the sentences above, computed from its own trace: d_model 2, d_k 8 (0dd9ac2: "2 pairs
    found (at most d_k = 8 fit)" and "No pair in the table for est, génial")."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"d_model": "2", "ca_preset": "Aligned by a bilingual table (constructed)"})
    at = at.switch_page("lessons/cross.py").run()
    assert not at.exception
    text = " ".join(c.value for c in at.caption) + " ".join(i.value for i in at.info)
    assert "The tables pair 4 of your target words" in text and "2 of these pairs got a direction" in text
    assert "(d_model = 2 is the limit)" in text and "No source word" not in text


@pytest.mark.parametrize(("lang", "table"), [("en", "fr"), ("fr", "fr"), ("es", "es"), ("zh", "zh")])
def test_the_tables_pairs_listed_on_the_page_are_the_pairs_the_alignment_builds(lang, table):
    """"The table's N English → French pairs: …" (the reader's language's table; French to an English reader): every
    pair listed, each once, each translation marked with its language, and each one a pair the aligned preset builds
    when its two words are the sentences (so a learner who writes a listed pair sees it work)."""
    from viz import i18n
    with i18n.speaking(lang):
        shown = C.table_words()
    assert sorted(re.findall(rf'<span lang="{table}">([^<]*)</span>', shown)) == sorted(BILINGUAL[table].values())
    words = re.sub(rf'<span lang="{table}">([^<]*)</span>', r"\1", shown)
    listed = re.split(r"[:：]\s*", words, maxsplit=1)[1]
    listed = re.split(r"[.。]", listed)[0].split("、" if lang == "zh" else ", ")
    assert len(listed) == len(set(listed)) == len(BILINGUAL[table])
    if lang == "en":
        assert words.startswith(f"The table's {len(BILINGUAL[table])} English → French pairs")
    for pair in listed:
        english, word = pair.split(" → ")
        t = trace_cross_attention(word, english, d_k=8, seed=0, preset="aligned")
        assert t.alignment.built == ((0, 0),), pair


def test_no_word_translates_two_english_words():
    """The preset pairs a target word with a source word that any table translates to it: so no word may be the
    translation of two English words across the tables (it would pair with either)."""
    meaning: dict[str, str] = {}
    for table in BILINGUAL.values():
        for english, word in table.items():
            assert meaning.setdefault(word, english) == english, word


@pytest.mark.parametrize("lang", sorted(EXAMPLE_PAIRS))
def test_the_default_pair_reorders_so_the_aligned_weights_are_no_diagonal(lang):
    """Each language's example pair puts its words in different orders (a plain diagonal is what self-attention of a
    sentence with itself can look like): every target word the tables pair peaks on its own source word, and some off
    the diagonal, at every seed and d_k ≥ 4. The English reader's pair is the link's default."""
    from ui.links import CROSS_SOURCE, CROSS_TARGET
    assert (CROSS_SOURCE, CROSS_TARGET) == EXAMPLE_PAIRS["fr"]
    source, target = EXAMPLE_PAIRS[lang]
    for seed, d_k in itertools.product(SEEDS, (4, 8, 16)):
        t = trace_cross_attention(target, source, d_k=d_k, seed=seed, preset="aligned")
        pairs = t.alignment.built
        assert len(pairs) >= 3 and pairs == t.alignment.pairs
        assert all(t.weights[i].argmax() == j for i, j in pairs)
        assert any(i != j for i, j in pairs)
