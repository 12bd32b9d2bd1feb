"""Figures and tables of a real model: every head at once (the model view), the next tokens. Pure.

Words are in the running language (``viz.i18n``); a frame's column names are English words (``viz.tables.HEADERS``,
``WORD_COLUMNS``), which the table shows translated; numbers in a sentence are written with the language's decimal
sign."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention.pretrained.common import ModelInfo, Off, Scan, alpha_change, without_first_token
from attention.pretrained.gallery import GalleryHead, pronoun_target, pronoun_weight
from viz import arithmetic as A
from viz import svg
from viz.figures import heatmap
from viz.i18n import N_, decimal, enumeration, listed, nt, sentences, t
from viz.labels import markdown_text, token_labels
from viz.tables import MASKED, WORD_COLUMNS

LAYERS_PER_PAGE = 6  # the every-head view of the decoder's 30 layers, a page at a time


def layer_pages(info: ModelInfo) -> list[range]:
    """The every-head view's pages of layers (from 0): MiniLM's 6 layers are one page, SmolLM2's 30 five."""
    return [range(start, min(start + LAYERS_PER_PAGE, info.layers)) for start in range(0, info.layers, LAYERS_PER_PAGE)]


def model_view(weights: np.ndarray, info: ModelInfo, layers: range, *, off: Off = frozenset(),
               sink_hidden: bool = False) -> svg.Svg:
    """α of every head in ``layers`` [layers, heads, n, n] as small multiples on one scale 0 … 1: rows
    are layers, columns heads (both counted from 1, under the titles "layer" and "head"); in each tile,
    rows are queries, columns keys. 40-pixel tiles: a 12-head model (651 px) fits the page beside the
    sidebar on a 1024 px tablet or projector (564 px) at 0.87, labels legible (72-pixel tiles and
    "layer 1" labels were shrunk to 0.76 even at 1280 px). The heads in ``off`` are marked; with
    ``sink_hidden`` each tile is α without the first key, rows renormalised (``without_first_token``)."""
    shown = weights[layers.start:layers.stop]
    if sink_hidden:
        shown = without_first_token(shown)
        title = t("Every head's α, layers {first}–{last}, first token hidden (a view)", first=layers.start + 1,
                  last=layers.stop)
    else:
        title = t("Every head's α, layers {first}–{last}", first=layers.start + 1, last=layers.stop)
    return svg.tiles(shown, row_labels=[str(i + 1) for i in layers],
                     col_labels=[str(h + 1) for h in range(info.heads)], title=title, row_title=t("layer"),
                     col_title=t("head (in each tile: rows are queries, columns keys)"), zmax=1.0, tile=40,
                     marked=sorted((layer - layers.start, head) for layer, head in off if layer in layers),
                     marked_as=t("Switched off"),
                     name_of=lambda layer, head: t("layer {layer}, head {head}", layer=layer, head=head))


def head_label(layer: int, head: int) -> str:
    """A head as the pickers and the link write it, counted from 1: "L19 H7"."""
    return f"L{layer + 1} H{head + 1}"


def head_of_label(label: str) -> tuple[int, int]:
    """(layer, head) from 0, from a label "L19 H7"."""
    layer, head = label.split()
    return int(layer[1:]) - 1, int(head[1:]) - 1


SINK_CAPTION = N_("The first token hidden: its column is left out and each row's other weights are scaled to add up "
                "to 1 again. A view, not the model: the model's α is unchanged, and a row with nothing left (the "
                "decoder's first row sees only the first token) is empty.")
OFF_CAPTION = N_("A head switched off writes nothing: its output α·V is set to zero before W_O, at every position "
               "(zero-ablation). The layers before it run as they did; the later layers get what is left.")


def before_after_frame(before: list[tuple[str, float]], after: list[tuple[str, float]]) -> pd.DataFrame:
    """The five likeliest next tokens with every head on, beside the five with the chosen heads off."""
    frame = pd.DataFrame({"every head on": [token for token, _ in before], "p": [p for _, p in before],
                          "heads switched off": [token for token, _ in after], "p ": [p for _, p in after]},
                         index=pd.RangeIndex(1, len(before) + 1, name="rank"))
    frame.attrs[WORD_COLUMNS] = True
    return frame


def layer_head_frame(values: np.ndarray, layers) -> pd.DataFrame:
    """A number a head [len(layers), heads]: rows the layers, columns the heads (both counted from 1)."""
    return pd.DataFrame(values, index=pd.Index([str(layer + 1) for layer in layers], name="layer"),
                        columns=[str(h + 1) for h in range(values.shape[1])])


def layer_head_figure(frame: pd.DataFrame, title: str, **scale) -> svg.Svg:
    """``layer_head_frame``'s numbers as a layers × heads heatmap (``scale``: heatmap's colour options)."""
    return heatmap(frame.to_numpy(), row_labels=list(frame.index), col_labels=list(frame.columns), title=title,
                   row_title=t("layer"), col_title=t("head"), **scale)


def scan_frame(scan: Scan) -> pd.DataFrame:
    """The scan's drops in log-probability: rows layers, columns heads (both from 1)."""
    return layer_head_frame(scan.drops, scan.layers)


def scan_figure(scan: Scan) -> svg.Svg:
    """The drops as a layers × heads heatmap on a signed scale (blue: switching the head off lowers the
    likeliest token's log-probability, it helped; red: raises it)."""
    return layer_head_figure(scan_frame(scan), t("Drop in log p(likeliest token) with the head switched off"))


def scan_text(scan: Scan, token: str, threshold: float = 0.1) -> str:
    """Markdown, measured on the learner's sentence: which head the likeliest token needs most, and how
    many heads matter (the token escaped: the model's text from the learner's)."""
    flat = np.argmax(scan.drops)
    k, head = divmod(int(flat), scan.drops.shape[1])
    drop = float(scan.drops[k, head])
    p = float(np.exp(scan.log_p))
    after = p * float(np.exp(-drop))
    d = _decimals_for_drop(p, drop, after)
    near = "" if d > 0 else f"{A.APPROX} "  # no decimals make p·e^(−drop) give p after: say so
    d = abs(d)
    shown = A.shown(scan.drops, 3)  # counted as the map and the ranking show them (three decimals)
    helped, hurt = int((shown > threshold).sum()), int((shown < -threshold).sum())
    head_words = dict(token=markdown_text(token), p=decimal(A.text(p, 3)))
    if drop > 0:
        first = t("Measured on your sentence: the likeliest next token is “{token}” (p = {p}). Switching off layer "
                  "{layer}, head {head} lowers its log-probability most, by {drop} (p {before} → {after}).",
                  layer=scan.layers[k] + 1, head=head + 1, drop=decimal(A.text(drop, d)),
                  before=decimal(A.text(p, max(d, 3))), after=near + decimal(A.text(after, max(d, 3))), **head_words)
    else:  # every head scanned, switched off alone, leaves it as likely or likelier
        first = t("Measured on your sentence: the likeliest next token is “{token}” (p = {p}). Switching off any one "
                  "of the heads scanned does not lower its log-probability.", **head_words)
    shown_threshold = decimal(str(threshold))
    return sentences(first, t("Of the {count} heads scanned, {helped} and {hurt}; the rest change it less.",
                              count=scan.drops.size,
                              helped=nt("{n} lowers it by more than {threshold}",
                                        "{n} lower it by more than {threshold}", helped, threshold=shown_threshold),
                              hurt=nt("{n} raises it by more than {threshold}",
                                      "{n} raise it by more than {threshold}", hurt, threshold=shown_threshold)))


def _decimals_for_drop(p: float, drop: float, after: float) -> int:
    """The decimals (2 … 6; p and p after at least 3) at which p · e^(−drop) of the shown p and drop gives the
    shown p after, strictly within its rounding interval (an exponential: a float check with room to spare);
    −6 where none do."""
    for d in range(A.FEWEST, A.MOST + 1):
        e = max(d, 3)
        given = float(A.shown(p, e)) * np.exp(-float(A.shown(drop, d)))
        if abs(given - float(A.shown(after, e))) < 0.5 * 10.0**-e * (1 - 1e-9):
            return d
    return -A.MOST


def scan_ranking(scan: Scan, k: int = 10) -> pd.DataFrame:
    """The k heads whose switching off lowers the likeliest token's log-probability most."""
    order = np.argsort(-scan.drops, axis=None)[:k]
    heads = [divmod(int(i), scan.drops.shape[1]) for i in order]
    p = float(np.exp(scan.log_p))
    frame = pd.DataFrame({"head": [head_label(scan.layers[r], h) for r, h in heads],
                          "drop in log p": [float(scan.drops[r, h]) for r, h in heads],
                          "p with it off": [p * float(np.exp(-scan.drops[r, h])) for r, h in heads]},
                         index=pd.RangeIndex(1, len(heads) + 1, name="rank"))
    frame.attrs[WORD_COLUMNS] = True
    return frame


def next_token_frame(top: list[tuple[str, float]]) -> pd.DataFrame:
    """The likeliest next tokens and their probabilities, most likely first."""
    frame = pd.DataFrame({"next token": [token for token, _ in top], "probability": [p for _, p in top]},
                         index=pd.RangeIndex(1, len(top) + 1, name="rank"))
    frame.attrs[WORD_COLUMNS] = True
    return frame


def gallery_reading(entry: GalleryHead, tokens: list[str], alpha: np.ndarray) -> str:
    """Markdown: the entry's measure on the learner's sentence (its tokens and this head's α), and
    whether the head does its job there. Tokens are escaped: they are the learner's text."""
    value = entry.measure(tokens, alpha)
    if value is None:
        return t("On your sentence: nothing to measure; it needs {needs}.",
                 needs=t(entry.needs or N_("two or more tokens")))
    if entry.measure is pronoun_weight:
        j, _ = pronoun_target(tokens, alpha)
        return t("On your sentence, “it” looks most at “{token}” ({weight}). Is that a noun, and is it the one “it” "
                 "refers to?", token=markdown_text(tokens[j]), weight=decimal(f"{value:.2f}"))
    values = dict(measured=t(entry.measured), value=decimal(A.text(value, A.beside(value, entry.at_least))),
                  threshold=decimal(str(entry.at_least)))
    if value >= entry.at_least:
        return t("On your sentence: {measured} {value}, at least {threshold}: it does its job here.", **values)
    return t("On your sentence: {measured} {value}, below {threshold}: **it does not do this job on your sentence.**",
             **values)


QUANTIZED = N_("SmolLM2's package ships its weights quantized: the attention and feed-forward matrices as 4-bit "
               "numbers (Q4_1), the token embeddings as 8-bit (Q8_0), the norms as float32. They are turned back into "
               "float32 here, so every α and next-token probability on this page is the quantized model's.")


def unknown_text(words: list[str]) -> str:
    """Markdown: which parts of the learner's sentence MiniLM replaced by [UNK] (escaped: the learner's text)."""
    if not words:
        return t("Measured on your sentence: no [UNK]; the vocabulary has a piece for every word.")
    listed = enumeration([t("“{token}”", token=markdown_text(w)) for w in words])
    return t("Measured on your sentence: {count} [UNK], each a whole word with a character the vocabulary lacks: "
             "{words}.", count=len(words), words=listed)


def english_note(model: str, example: str, tokens: list[str], english: str, english_tokens: list[str]) -> str:
    """Markdown, for a reader of another language: the model learned mostly from English, and how its tokenizer
    splits that language's example and the English one (its own tokens, escaped, counted as its tokens table counts
    them: [CLS] and [SEP] included)."""
    def split(pieces: list[str]) -> str:
        return " | ".join(markdown_text(piece) for piece in pieces)

    return sentences(
        t("**{model} was trained mostly on English text.**", model=model),
        t("Its tokenizer splits “{example}” into {n} tokens ({tokens}) and “{english}” into {m} ({english_tokens}).",
          example=markdown_text(example), n=len(tokens), tokens=split(tokens), english=markdown_text(english),
          m=len(english_tokens), english_tokens=split(english_tokens)),
        t("Its heads learned from English, so the English example shows them on the kind of text they know."))


def spaces_text(joined: int, alone: list[str | None]) -> str:
    """Markdown: how the learner's spaces were tokenized (``SmolLM2.spaces``: spaces that start a token with more in
    it, and the token after each token made of spaces alone; the tokens escaped)."""
    said = nt("Measured on your sentence: {n} space belongs to the token after it",
              "Measured on your sentence: {n} spaces belong to the token after them", joined)
    if not alone:
        return t("{joined}, and no token is made of spaces alone.", joined=said)
    after = listed([t("“{token}”", token=markdown_text(token)) if token is not None else t("the end of the sentence")
                    for token in alone])
    return t("{joined}; {alone}.", joined=said,
             alone=nt("{n} token is made of spaces alone (before {tokens})",
                      "{n} tokens are made of spaces alone (before {tokens})", len(alone), tokens=after))


def tile_notes(name: str, layers: range, gallery, off: Off = frozenset()) -> dict[str, str]:
    """The every-head view's tooltips: for a head of the gallery, its job; for a head switched off, that;
    keyed "row,col" of the tiles."""
    notes = {f"{entry.layer - layers.start},{entry.head}": t("{job} (one of the heads with a job, below).",
                                                             job=t(entry.name))
             for entry in gallery if entry.model == name and entry.layer in layers}
    for layer, head in off:
        if layer in layers:
            key = f"{layer - layers.start},{head}"
            notes[key] = sentences(t("Switched off (below)."), notes.get(key, ""))
    return notes


def sink_hidden_frame(trace) -> pd.DataFrame:
    """A head's α without the first key, rows renormalised: rows queries, columns the keys after the
    first; a row with nothing left to show is masked."""
    hidden = without_first_token(trace.weights)  # [n, n − 1]
    labels = token_labels(trace.tokens)
    frame = pd.DataFrame(np.nan_to_num(hidden), index=pd.Index(labels, name=N_("query ↓ · key →")),
                         columns=labels[1:])
    frame.attrs[MASKED] = pd.DataFrame(np.isnan(hidden), index=frame.index, columns=frame.columns)
    return frame


def sink_hidden_figure(trace, title: str) -> svg.Svg:
    hidden = without_first_token(trace.weights)
    labels = token_labels(trace.tokens)
    return heatmap(np.nan_to_num(hidden), row_labels=labels, col_labels=labels[1:], title=f"{title}  [{len(labels)} × "
                   f"{len(labels) - 1}]", row_title=t("query i (row)"),
                   col_title=t("key j (column), the first left out"), weights=True, allowed=~np.isnan(hidden))


def off_text(before: list[tuple[str, float]], after: list[tuple[str, float]], count: int) -> str:
    """Markdown, measured on the learner's sentence: what switching the heads off did to the likeliest
    next token (tokens escaped)."""
    token, p = before[0]
    p_after = next((q for other, q in after if other == token), None)
    values = dict(token=markdown_text(token), p=decimal(f"{p:.3f}"))
    if p_after is None:
        return nt("Measured on your sentence: with this head switched off, “{token}” (p = {p} with every head on) "
                  "drops out of the five likeliest.", "Measured on your sentence: with these {n} heads switched off, "
                  "“{token}” (p = {p} with every head on) drops out of the five likeliest.", count, **values)
    values["after"] = decimal(f"{p_after:.3f}")
    if after[0][0] == token:
        return nt("Measured on your sentence: with this head switched off, “{token}” goes from p = {p} to {after}; it "
                  "is still the likeliest.", "Measured on your sentence: with these {n} heads switched off, “{token}” "
                  "goes from p = {p} to {after}; it is still the likeliest.", count, **values)
    return nt("Measured on your sentence: with this head switched off, “{token}” goes from p = {p} to {after}; the "
              "likeliest is now “{now}” ({now_p}).", "Measured on your sentence: with these {n} heads switched off, "
              "“{token}” goes from p = {p} to {after}; the likeliest is now “{now}” ({now_p}).", count,
              now=markdown_text(after[0][0]), now_p=decimal(f"{after[0][1]:.3f}"), **values)


def downstream_text(embedding: np.ndarray, changed: np.ndarray, off: Off) -> str:
    """Markdown, measured: the encoder's sentence embedding with the heads off against the original."""
    cosine = float(np.dot(embedding, changed))  # both unit length
    return nt("MiniLM predicts no next token: what it makes is a sentence embedding (the last layer's output, "
              "averaged over the tokens). Measured on your sentence: with this head switched off, its cosine "
              "similarity to the original is **{cosine}** (1 would be unchanged). Below: how far each later head's α "
              "moved.",
              "MiniLM predicts no next token: what it makes is a sentence embedding (the last layer's output, "
              "averaged over the tokens). Measured on your sentence: with these {n} heads switched off, its cosine "
              "similarity to the original is **{cosine}** (1 would be unchanged). Below: how far each later head's α "
              "moved.",
              len(off), cosine=decimal(f"{cosine:.4f}"))


def change_frame(before: np.ndarray, after: np.ndarray, layers: range) -> pd.DataFrame:
    """Each head's α change (``alpha_change``) in ``layers``: rows layers, columns heads (from 1)."""
    return layer_head_frame(alpha_change(before[layers.start:layers.stop], after[layers.start:layers.stop]), layers)


def change_figure(before: np.ndarray, after: np.ndarray, layers: range) -> svg.Svg:
    title = t("How far each head's α moved (½·Σ|Δα| a row, averaged)")
    return layer_head_figure(change_frame(before, after, layers), title, weights=True, top=1.0)


TILE_NUMBER = N_("The number: this head's mean weight on the first token, over every row but the first (a decoder's "
               "first row can only look at the first token). Click to open it.")


def first_token_share(weights: np.ndarray, layers: range) -> list[list[float | None]]:
    """Each tile's mean weight on the first token (over the rows after the first: TILE_NUMBER), for its tooltip."""
    w = np.asarray(weights[layers.start:layers.stop], dtype=np.float64)  # [layers, heads, n, n]
    if w.shape[-1] < 2:
        return [[None] * w.shape[1] for _ in range(w.shape[0])]
    return np.round(w[:, :, 1:, 0].mean(axis=-1), 6).tolist()
