"""Play a step (issue 36): the data static/player.js animates, from a trace: the scores of a query (its q, every k,
and the engine's row of scores), the softmax (the masked scaled scores, m, the exponentials, their sum and α) or the
output (α, V and the engine's output). The browser writes the frames in between; the last frame is these numbers.

Every sum, product or quotient a frame writes out adds up at the decimals it shows, or says "≈" (``viz.arithmetic``,
the one rule): the decimals each one needs are decided here and sent as ``dec``, as the tooltips' are
(viz/provenance.py), so the browser only writes them. The scores' running sums (q·k term by term, up to
``PER_TERM`` terms) are sent too: the browser recomputes nothing it writes beside "="."""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from attention import AttentionTrace
from viz import arithmetic as A
from viz.arithmetic import number
from viz.i18n import N_, decimal, language, numbers, speaking, t
from viz.labels import query_labels, token_labels

KINDS = ("scores", "softmax", "output")
MAX_TOKENS = 32  # beyond this a row is too long to watch, and the data too large to send for it
PER_TERM = 8  # up to this d_k a score's terms appear one by one (one frame a term); beyond, a key's terms at once
E_DECIMALS = 3  # the exponentials and their sum are written with 3 decimals at least (a small e at 2 would read 0.00)


def _rows(m: npt.ArrayLike) -> list:
    """Nested lists of numbers as the browser gets them (any depth); NaN (masked) as None."""
    return np.vectorize(number, otypes=[object])(np.asarray(m, dtype=np.float64)).tolist()


def _at_least(fewest: int, adds_up, shape: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """``A.decimals_for`` with inputs written with ``fewest`` decimals at least (still −6 for "≈")."""
    d = A.decimals_for(lambda d: adds_up(max(d, fewest)), shape)
    return np.sign(d) * np.maximum(np.abs(d), fewest)


def _scores(trace: AttentionTrace) -> dict:
    """q, k, s = q·k, and for each query i, key j and frame u the decimals of the products written in it: frame u
    writes the first u + 1 terms (one frame a term up to ``PER_TERM``), or all d_k at once beyond; ``partial`` holds
    the running sums of the frames before the last (the last is the engine's score)."""
    q, k, s = trace.q, trace.k, trace.scores
    d = trace.d_k
    ends = range(1, d + 1) if d <= PER_TERM else [d]
    running = np.cumsum(q[:, None, :] * k[None, :, :], axis=-1)  # [n_q, n_k, d_k]
    results = [s if t == d else running[..., t - 1] for t in ends]

    def adds_up(decimals: int) -> npt.NDArray[np.bool_]:  # [n_q, n_k, frames]
        return np.stack([A.products_add_up(q[:, None, :t], k[None, :, :t], r, decimals)
                         for t, r in zip(ends, results, strict=True)], axis=-1)

    # one key's frames write its terms with the same decimals, so that a term does not change as the next appear;
    # where no decimals serve them all, each frame its own (the fewest that add up, or "≈")
    steady = A.decimals_for(lambda d: adds_up(d).all(axis=-1), s.shape)
    own = A.decimals_for(adds_up, (*s.shape, len(ends)))
    dec = np.where(steady[..., None] > 0, steady[..., None], own)
    out = {"q": _rows(q), "k": _rows(k), "values": _rows(s), "dec": dec.tolist()}
    if d <= PER_TERM:
        out["partial"] = _rows(running[..., : d - 1])
    return out


def _softmax(trace: AttentionTrace, mask: npt.NDArray[np.bool_]) -> dict:
    """z, m, e = e^(z − m), Σ e, α; the decimals of Σ e (a row's one line), of each e / Σ = α, and of Σ α, the
    weights' own sum (the engine's, about 1), which the last frame writes beside the sum of the weights as the
    table rounds them (2 decimals)."""
    e = np.where(mask, trace.exp_scores, 0.0)
    total = e.sum(axis=-1)
    alpha = np.where(mask, trace.weights, 0.0)  # a masked key takes no part: its terms are 0
    n_q = alpha.shape[0]
    dec_total = _at_least(E_DECIMALS, lambda d: A.terms_add_up(e, total, d, result_decimals=E_DECIMALS), (n_q,))
    dec_alpha = _at_least(E_DECIMALS, lambda d: A.quotient_adds_up(e, total[:, None], trace.weights, d),
                          alpha.shape)
    weights_sum = alpha.sum(axis=-1)
    dec_weights = A.sums(alpha, weights_sum)
    table_sum = A.digits(A.held(alpha), 2).sum(axis=-1) / 100  # the weights as the table shows them, added up
    return {"z": _rows(np.where(mask, trace.masked_scores, np.nan)), "m": _rows(trace.row_max),
            "e": _rows(np.where(mask, trace.exp_scores, np.nan)), "total": _rows(total), "values": _rows(trace.weights),
            "dec": {"total": dec_total.tolist(), "alpha": dec_alpha.tolist(), "weights": dec_weights.tolist()},
            "weights_sum": _rows(weights_sum), "table_sum": _rows(table_sum)}


TITLES = {"scores": N_("Play the scores: q · k, key by key"),
          "softmax": N_("Play the softmax: exponentials, their sum, the division"),
          "output": N_("Play the output: α · v, key by key")}
# Every text static/player.js writes, as a template whose {fields} it fills (the browser holds no words of its own:
# each comes from the catalogs, in the reader's language). "sep" joins a list of numbers.
TEXTS = {
    "scoreSoFar": N_("{name} so far ({upTo} of {d} terms) = {written}{rel}{value}"),
    "scoreDone": N_("{name} = q·k = {written}{rel}{value}"),
    "scoreRow": N_("The row of scores for “{query}”: the step's table holds the same numbers."),
    "softmaxStart": N_("z for “{query}”: {z}; its largest, m = {m}, is taken from each (the weights do not change, the "
                       "exponentials stay small)."),
    "softmaxExp": N_("e^(z − m) for “{key}”: e^({z} − {m}) ≈ {e}"),
    "softmaxOneKey": N_("One key, so their sum Σ is its one exponential: {total}"),
    "softmaxSum": N_("Their sum Σ = {terms}{rel}{total}"),
    "softmaxAlpha": N_("α for “{key}” = {e} / {total}{rel}{alpha}"),
    "oneWeight": N_("“{query}” sees one key, so its one weight is {alpha}; the step's table holds the same numbers."),
    "addUp": N_("The step's table holds the same numbers; the weights of “{query}” add up to 1: {written}"),
    "addUpMore": N_("The step's table holds the same numbers. Rounded to {decimals} decimals there, they add up to "
                    "{table}; written with {places} decimals, the weights of “{query}” add up to 1: {written}"),
    "outputTerm": N_("+ α·v for “{key}”: {alpha}·[{v}]; the sum so far ≈ [{sum}]"),
    "outputRow": N_("The output of “{query}” = Σ α·v over every key it sees: the step's table holds the same numbers."),
    "frame": N_("1 frame"), "back": N_("1 frame back"), "backTitle": N_("1 frame back (←)"),
    "forward": N_("1 frame forward"), "forwardTitle": N_("1 frame forward (→)"),
    "play": N_("Play"), "playTitle": N_("Play (Space)"), "pause": N_("Pause"), "pauseTitle": N_("Pause (Space)"),
    "queryField": N_("Query"), "speedField": N_("Speed"), "queryOption": N_("query {number} · {label}"),
    "key": N_("key"), "dimension": N_("dimension"), "output": N_("output"), "sumSoFar": N_("sum so far ≈"),
}


def player_texts() -> dict[str, str]:
    """The player's texts in the running language, its list separator and its decimal sign (made once a language)."""
    return _player_texts(language())


@functools.cache
def _player_texts(lang: str) -> dict[str, str]:
    with speaking(lang):
        return {name: t(template) for name, template in TEXTS.items()} | {"sep": numbers(["", ""]),
                                                                          "decimal": decimal(".")}


def player_data(trace: AttentionTrace, kind: str, query: int = 0) -> dict:
    """What the player needs for ``kind``: rows are the trace's queries, columns its keys (or, for the output, the
    value's dimensions); a masked cell is None."""
    keys, queries = token_labels(trace.tokens), query_labels(trace)
    data = {"kind": kind, "keys": keys, "queries": queries, "query": min(query, len(queries) - 1),
            "title": t(TITLES[kind]), "texts": player_texts()}
    mask = trace.mask if trace.queries is None else np.ones(trace.scores.shape, dtype=bool)
    if kind == "scores":
        data |= _scores(trace)
    elif kind == "softmax":
        data |= _softmax(trace, mask)
    else:
        data |= {"alpha": _rows(np.where(mask, trace.weights, np.nan)), "v": _rows(trace.v),
                 "values": _rows(trace.output), "dims": [str(c + 1) for c in range(trace.d_k)]}
    return data
