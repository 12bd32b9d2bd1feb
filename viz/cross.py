"""What the "aligned" preset of cross-attention built, in sentences computed from the trace. Pure:
a trace in, Markdown out (the learner's words escaped)."""

from __future__ import annotations

import numpy as np

from attention.cross import ALIGN_Z, BILINGUAL, CrossAttentionTrace
from viz.i18n import N_, decimal, enumeration, language, nt, sentences, t
from viz.labels import markdown_text


def _quoted(labels: list[str]) -> str:
    return enumeration([t("“{token}”", token=markdown_text(label)) for label in labels])


TABLE_TEXTS = {  # each table's words, the others named: a reader sees their language's table (French in English)
    "fr": N_("The table's {n} English → French pairs: {pairs}. The preset also pairs English words with their Spanish "
             "and Chinese translations, from tables not listed here."),
    "es": N_("The table's {n} English → Spanish pairs: {pairs}. The preset also pairs English words with their French "
             "and Chinese translations, from tables not listed here."),
    "zh": N_("The table's {n} English → Chinese pairs (a character each, as Chinese is split into tokens): {pairs}. "
             "The preset also pairs English words with their French and Spanish translations, from tables not listed "
             "here."),
}


def table_language() -> str:
    """The table a reader is shown, and whose example pair the lesson opens on: their language's, else French."""
    return language() if language() in BILINGUAL else "fr"


def table_words() -> str:
    """The reader's bilingual table itself (``table_language``), so that a learner can write a pair it knows.
    Markdown with inline HTML (our own words): each translation is marked with its language (`lang="fr"`), so that a
    screen reader says it in that language (WCAG 3.1.2)."""
    lang = table_language()
    pairs = enumeration([f'{english} → <span lang="{lang}">{word}</span>'
                         for english, word in sorted(BILINGUAL[lang].items())])
    return t(TABLE_TEXTS[lang], n=len(BILINGUAL[lang]), pairs=pairs)


def alignment_text(trace: CrossAttentionTrace) -> str:
    """How many pairs the bilingual table gave, how many got a direction, and why the others did not."""
    a = trace.alignment
    text = sentences(
        t("These W_Q and W_K were **constructed, not learned**: from small tables of English words and their "
          "translations, each translation pair is given its own direction, so that the target word's query meets its "
          "source word's key with a scaled score of {z}, and the keys of the other constructed pairs with 0.",
          z=decimal(f"{ALIGN_Z:g}")),
        t("The tables pair {n} of your target words with a source word, each with one of its own.", n=len(a.pairs)))
    if a.pairs:
        text = sentences(text, nt("{built} of these pairs got a direction ({n} direction made).",
                                  "{built} of these pairs got a direction ({n} directions made).", a.directions,
                                  built=len(a.built)))
    return sentences(text, t("A trained model learns such an alignment from millions of sentence pairs."))


def alignment_notes(trace: CrossAttentionTrace, t_labels: list[str], s_labels: list[str]) -> list[str]:
    """Captions: what was left out and why, words with no pair, copies that share a direction, and how
    many constructed pairs have their row's largest weight on the pair (measured)."""
    a, notes = trace.alignment, []
    d_model = trace.target.x.shape[1]
    if a.left_out:
        which = f"d_model = {d_model}" if d_model < trace.d_k else f"d_k = {trace.d_k}"
        listed = _quoted([f"{t_labels[i]} → {s_labels[j]}" for i, j in a.left_out])
        notes.append(t("Only min(d_model, d_k) = {limit} directions fit ({which} is the limit), so these pairs got "
                       "none and their weights mean nothing here: {listed}.", limit=a.limit, which=which,
                       listed=listed))
    if a.clashed:
        listed = _quoted([f"{t_labels[i]} → {s_labels[j]}" for i, j in a.clashed])
        notes.append(t("Without positional encodings the copies of a word are one vector, and one vector cannot point "
                       "two ways: these pairs share a word with a pair built before them, with another partner, so "
                       "they got no direction and their weights mean nothing here: {listed}. Switch positional "
                       "encodings on (sidebar) to tell the copies apart.", listed=listed))
    paired = {i for i, _ in a.pairs}
    unpaired = [t_labels[i] for i in range(len(t_labels)) if i not in paired]
    if unpaired:
        notes.append(t("No source word to pair with in the table for {words}: nothing was constructed for these "
                       "queries, so their weights mean nothing here.", words=_quoted(unpaired)))
    x = trace.target.x
    shared = [i for i, _ in a.built if sum(np.array_equal(x[i], x[k]) for k, _ in a.built) > 1]
    if shared:  # the same vector twice: the same word, without positional encodings
        words = sorted({trace.target.tokens[i] for i in shared})
        notes.append(nt("{words} occurs more than once: without positional encodings the copies are the same "
                        "vector, so they share one direction and each copy looks at every copy of its translation "
                        "alike. Switch positional encodings on (sidebar) to tell them apart.",
                        "{words} occur more than once: without positional encodings the copies are the same vector, "
                        "so they share one direction and each copy looks at every copy of its translation alike. "
                        "Switch positional encodings on (sidebar) to tell them apart.", len(words),
                        words=_quoted(words)))
    if a.built:
        peaks = sum(trace.weights[i, j] >= trace.weights[i].max() - 1e-12 for i, j in a.built)
        notes.append(t("Measured: {peaks} of the {built} constructed pairs have their row's largest weight on the "
                       "pair. Keys without a pair were not constructed and can score anything.", peaks=int(peaks),
                       built=len(a.built)))
    return notes
