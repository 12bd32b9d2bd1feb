"""Figures, tables and sentences of a training run ("watch a head learn"). Pure: a Run in, an Svg,
a DataFrame or a string out; every number is the run's own.

Every word is in the running language (``viz.i18n``), the frames' too: no page offers them as CSV, and a test reads
them in English."""

from __future__ import annotations

import numpy as np
import pandas as pd

from attention.training import (
    NO_ANSWER,
    Array,
    NeededWeight,
    Run,
    ScorePart,
    Task,
    Verdict,
    bilinear_form,
    centred_rows,
    example_tokens,
    predictions,
    row_spread,
)
from viz import svg
from viz.arithmetic import average
from viz.figures import HEAD_COLOURS, heatmap, query_key_figure
from viz.i18n import N_, clauses, decimal, nt, numbers, t
from viz.i18n import percent as percent_sign
from viz.labels import dim_labels, format_number
from viz.tables import matrix_frame

NOT_ASKED = "—"
CURVE_WIDTH = 430  # pixels: two side by side fit a laptop's page (820 px at 1280); on a narrower one they wrap
TRAIN_COLOUR, HELD_OUT_COLOUR, GUESS_COLOUR = HEAD_COLOURS[0], HEAD_COLOURS[1], "#777777"


def examples_frame(task: Task, tokens: np.ndarray, answers: np.ndarray) -> pd.DataFrame:
    """Example sequences and, under each token, the answer the model must give there ("—": not asked)."""
    rows = {}
    for k, (seq, ans) in enumerate(zip(tokens, answers, strict=True), start=1):
        rows[t("example {k}", k=k)] = [task.vocabulary[token] for token in seq]
        rows[t("answer {k}", k=k)] = [NOT_ASKED if a == NO_ANSWER else task.classes[a] for a in ans]
    return pd.DataFrame.from_dict(rows, orient="index", columns=[str(i + 1) for i in range(task.length)])


def prediction_frame(run: Run, snapshot: int, example: int) -> pd.DataFrame:
    """Held-out sequence ``example``: its tokens, the right answers, and what the model at ``snapshot`` says."""
    answers = run.held_out.answers[example]
    said = predictions(run, snapshot, example)
    classes = run.task.classes
    asked = answers != NO_ANSWER
    return pd.DataFrame(
        [list(example_tokens(run, example)),
         [classes[a] if ok else NOT_ASKED for a, ok in zip(answers, asked, strict=True)],
         [classes[s] if ok else NOT_ASKED for s, ok in zip(said, asked, strict=True)],
         [(t("yes") if s == a else t("no")) if ok else NOT_ASKED
          for s, a, ok in zip(said, answers, asked, strict=True)]],
        index=[t("token"), t("right answer"), t("the model says"), t("right?")],
        columns=[str(i + 1) for i in range(run.task.length)],
    )


def curves_figures(run: Run, at_step: int) -> list[svg.Svg]:
    """Loss (each training batch; the held-out set at each snapshot) and held-out accuracy, two charts
    with a dotted line at the chosen step (two, not one image of both, so that they wrap on a narrow
    page instead of shrinking together: ``ui.components.chart_row``)."""
    steps = list(range(1, len(run.losses) + 1))
    kept = list(run.snapshot_steps)
    last = max(kept[-1], 1)
    loss = svg.plot(svg.Plot(
        t("Loss (lower is better)"), t("training step"), t("cross-entropy"),
        lines=[svg.Line(t("training batch"), steps, run.losses.tolist(), TRAIN_COLOUR, markers=False),
               svg.Line(t("held-out"), kept, run.held_out_loss.tolist(), HELD_OUT_COLOUR)],
        x_range=(0, last), y_range=(0.0, max(float(np.max(run.held_out_loss)),
                                             float(np.max(run.losses, initial=0.0))) * 1.08 or 1.0),
        marks=(at_step,)), width=CURVE_WIDTH, height=260)
    accuracy = svg.plot(svg.Plot(
        t("Held-out accuracy"), t("training step"), t("share right"),
        lines=[svg.Line(t("held-out"), kept, run.held_out_accuracy.tolist(), HELD_OUT_COLOUR),
               svg.Line(t("best without search"), [0, last], [run.best_baseline[1]] * 2, GUESS_COLOUR,
                        markers=False, dash=svg.DASH)],  # a line of reference, dashed: not told by colour alone
        x_range=(0, last), y_range=(0.0, 1.0), marks=(at_step,)), width=CURVE_WIDTH, height=260)
    return [loss, accuracy]


CURVES_BLANK = N_("no training batch yet: step 0 is the head before training, whose first batch is step 1's")


def curves_frame(run: Run) -> pd.DataFrame:
    """The two charts' numbers at each saved step (the rows): the loss on that step's training batch (none at step 0,
    before any batch), the held-out loss and the held-out accuracy, the values the lines pass through there."""
    steps = list(run.snapshot_steps)
    batch = [float(run.losses[s - 1]) if 1 <= s <= len(run.losses) else None for s in steps]
    frame = pd.DataFrame({t("training batch's loss"): batch, t("held-out loss"): run.held_out_loss.astype(float),
                          t("held-out accuracy"): run.held_out_accuracy.astype(float)}, index=[str(s) for s in steps])
    frame.index.name = t("step")
    return frame


def alpha_figure(trace, head: int, heads: int, step: int) -> svg.Svg:
    """α of one head at one step, rows the queries; keys after the query are masked (grey)."""
    name = (t("α, head {head} at step {step}", head=head + 1, step=step) if heads > 1 else
            t("α at step {step}", step=step))
    return query_key_figure(trace, trace.weights, name, weights=True, top=1.0)


def form_figure(run: Run, snapshot: int, head: int) -> svg.Svg:
    """B = W_Q·W_Kᵀ/√d_k [d_model × d_model] at a snapshot: z_ij = x_i·B·x_jᵀ."""
    form = bilinear_form(run.snapshots[snapshot], head)
    d = form.shape[0]
    labels = dim_labels(d)
    return heatmap(form, row_labels=labels, col_labels=labels, title=f"W_Q·W_Kᵀ/√d_k  [{d} × {d}]",
                   row_title=t("query side: dimension of x_i"), col_title=t("key side: dimension of x_j"), decimals=1)


def form_frame(run: Run, snapshot: int, head: int) -> pd.DataFrame:
    form = bilinear_form(run.snapshots[snapshot], head)
    labels = dim_labels(form.shape[0])
    return matrix_frame(form, rows=labels, columns=labels, rows_name=t("query dim"))


PART_TITLES = {  # (title, query side, key side)
    "positions": (N_("Positions: p_i·B·p_jᵀ"), N_("query position i"), N_("key position j")),
    "letters": (N_("Letters: e_a·B·e_bᵀ"), N_("query letter"), N_("key letter")),
    "names": (N_("Names: e(?a)·B·e(b=·)ᵀ"), N_("query token"), N_("key: an entry with that name")),
}


def part_figure(part: ScorePart) -> svg.Svg:
    """One part of the learned scores, each row minus its mean (softmax ignores a row's constant)."""
    title, row_title, col_title = PART_TITLES[part.name]
    return heatmap(centred_rows(part.z, part.allowed), row_labels=part.rows, col_labels=part.columns,
                   title=t(title), row_title=t(row_title), col_title=t(col_title), decimals=1, allowed=part.allowed)


def part_frame(part: ScorePart) -> pd.DataFrame:
    """The numbers of ``part_figure``; a masked score shows −∞, as in the walkthrough."""
    return matrix_frame(centred_rows(part.z, part.allowed), rows=part.rows, columns=part.columns,
                        rows_name=t(PART_TITLES[part.name][1]))


def percent(x: float) -> str:
    """A share as a whole percent, written as the running language writes one ("73 %", "73%")."""
    return percent_sign(f"{100 * x:.0f}")


def two(x: float) -> str:
    """A loss at two decimals, with the running language's decimal sign."""
    return format_number(x, 2)


def baselines_text(run: Run) -> str:
    """The strategies that need no search, with their held-out accuracy, best first."""
    ranked = sorted(run.baselines, key=lambda b: -b[1])
    return clauses([t("{strategy}: {share}", strategy=t(name), share=percent(accuracy)) for name, accuracy in ranked])


def verdict_text(judged: Verdict, run: Run) -> str:
    """What the numbers say about the run, never more. The page picks the box's colour from ``kind``.
    A hint is given only where the curve reads clearly (``attention.training.steadily_falling``), and
    each hint is held by a test over a family of runs (tests/test_claims.py)."""
    name, best = judged.baseline
    numbers = t("held-out accuracy {accuracy} (the best strategy that needs no search, {strategy}, gets {best}); "
                "held-out loss {first} before training, {last} after", accuracy=percent(judged.accuracy),
                strategy=t(name), best=percent(best), first=two(judged.first_loss), last=two(judged.last_loss))
    steps = run.snapshot_steps[-1]
    if judged.kind == "diverged":
        return t("**Not learned: the training blew up at step {stopped}.** The loss stopped being a number, so "
                 "training stopped; the last usable state is step {step}: {numbers}. The learning rate is too high "
                 "for this optimiser: a smaller one on the menu trains without blowing up.",
                 stopped=run.stopped_at, step=steps, numbers=numbers)
    if judged.kind == "learned":
        return t("**Learned** on sequences it never trained on: {numbers}.", numbers=numbers)
    losses = run.held_out_loss
    if judged.unstable:
        hint = t("The held-out loss rose on the way (its lowest was {lowest}, its highest {highest}): the steps "
                 "overshoot, which a smaller learning rate usually calms.", lowest=two(losses.min()),
                 highest=two(losses.max()))
    elif judged.falling:
        half = losses[np.array(run.snapshot_steps) >= steps / 2]
        hint = t("The held-out loss was still falling steadily at the end ({start} → {end} over the run's second "
                 "half): more steps will likely take it further.", start=two(half[0]), end=two(half[-1]))
    else:
        hint = t("The held-out loss is no longer falling steadily: more of the same steps will not get much further. "
                 "Try another learning rate or optimiser.")
    if judged.kind == "partly":
        return nt("**Partly learned** after {n} step: {numbers}. {hint}",
                  "**Partly learned** after {n} steps: {numbers}. {hint}", steps, numbers=numbers, hint=hint)
    return nt("**Not learned** after {n} step: {numbers}. {hint}", "**Not learned** after {n} steps: {numbers}. {hint}",
              steps, numbers=numbers, hint=hint)


def needed_weight_text(run: Run, reading: NeededWeight, start: NeededWeight, step: int, head: int, heads: int) -> str:
    """What the α table shows on this sequence, measured: the weight on the key each answer needs."""
    # the averages of the α as the table shows them (two decimals), so that the table's cells give them
    values = dict(step=step, head=head + 1, weight=decimal(average(reading.weights)), needed=t(run.task.looks_at),
                  largest=reading.largest, start=decimal(average(start.weights)), evenly=two(reading.evenly))
    if heads > 1:
        return nt("Measured on this sequence at step {step}: head {head}'s rows put on average **{weight}** of their "
                  "weight on {needed}, the key that holds the answer, and {largest} of {n} asked row put its largest "
                  "weight there. At step 0: {start}; spreading evenly over the keys each row may see would give "
                  "{evenly}.",
                  "Measured on this sequence at step {step}: head {head}'s rows put on average **{weight}** of their "
                  "weight on {needed}, the key that holds the answer, and {largest} of {n} asked rows put their "
                  "largest weight there. At step 0: {start}; spreading evenly over the keys each row may see would "
                  "give {evenly}.", reading.rows, **values)
    return nt("Measured on this sequence at step {step}: the rows put on average **{weight}** of their weight on "
              "{needed}, the key that holds the answer, and {largest} of {n} asked row put its largest weight there. "
              "At step 0: {start}; spreading evenly over the keys each row may see would give {evenly}.",
              "Measured on this sequence at step {step}: the rows put on average **{weight}** of their weight on "
              "{needed}, the key that holds the answer, and {largest} of {n} asked rows put their largest weight "
              "there. At step 0: {start}; spreading evenly over the keys each row may see would give {evenly}.",
              reading.rows, **values)


SPLIT_SHOWN = {  # the parts of z the heatmaps above show, and how
    "previous": (("p·B·pᵀ", "e·B·eᵀ"), N_("the positions heatmap is p·B·pᵀ and the letters heatmap e·B·eᵀ")),
    "first": (("p·B·pᵀ", "e·B·eᵀ"), N_("the positions heatmap is p·B·pᵀ and the letters heatmap e·B·eᵀ")),
    "lookup": (("e·B·eᵀ",), N_("the names heatmap is the name part of e·B·eᵀ, each entry averaged over its digits")),
}


def score_split_text(run: Run, split: dict[str, Array], example: int) -> str:
    """Which of the four parts of z the heatmaps show, and how large each is on this sequence (the
    largest spread within a row over the keys it may see: what softmax sees)."""
    n = run.task.length
    allowed = np.tril(np.ones((n, n), dtype=bool))
    shown, how = SPLIT_SHOWN[run.task.name]
    spreads = {name: row_spread(z, allowed) for name, z in split.items()}
    said = numbers([f"{name} {two(spreads[name])}" for name in split if name in shown])  # "; " beside 0,73
    left = numbers([f"{name} {two(spreads[name])}" for name in split if name not in shown])
    return t("Since x = e + p, each score has four parts: z = e·B·eᵀ + e·B·pᵀ + p·B·eᵀ + p·B·pᵀ. Of these, {how}; the "
             "others are not drawn. How much each part moves the scores within a row (its largest spread over the keys "
             "a row may see), measured on held-out sequence {example}: drawn, {drawn}; not drawn, {left}.",
             how=t(how), example=example + 1, drawn=said, left=left)
