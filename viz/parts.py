"""What one ingredient changed between two stages of "attention from its parts", in a sentence."""

from __future__ import annotations

import numpy as np

from attention import AttentionTrace
from viz import arithmetic as A
from viz.i18n import decimal, t


def diagonal_share(trace: AttentionTrace) -> float:
    """The mean weight a token gives itself, mean_i α_ii."""
    return float(np.mean(np.diag(trace.weights)))


def what_changed(before: AttentionTrace, after: AttentionTrace, stage: int) -> str:
    """Stage 2 keeps α and changes the output; stage 3 changes α. Said with the numbers on the page."""
    same_alpha = np.allclose(before.weights, after.weights)
    if stage == 2:
        # the largest difference between the two output tables as shown (two decimals): what a learner gets
        moved = decimal(A.text(float(np.abs(A.shown(after.output) - A.shown(before.output)).max())))
        if same_alpha:
            return t("α is exactly the same as in stage 1; only what is summed changed: the output's entries moved "
                     "by up to {moved} (the largest difference between the two output tables), because it now adds up "
                     "values x_j·W_V instead of the inputs x_j.", moved=moved)
        return t("α is different from stage 1's, and what is summed changed too: the output's entries moved by up to "
                 "{moved} (the largest difference between the two output tables), because it now adds up values "
                 "x_j·W_V instead of the inputs x_j.", moved=moved)
    # the averages of the diagonal cells as the α tables show them (two decimals), compared as shown
    was, now = (float(A.shown(np.diag(trace.weights)).mean()) for trace in (before, after))
    averages = {"before": decimal(A.average(np.diag(before.weights))),
                "now": decimal(A.average(np.diag(after.weights)))}
    way = (t("more here") if now > was else t("less here") if now < was
           else t("as much here at the tables' two decimals"))
    if same_alpha:
        return t("α is the same: a token's weight on itself (the diagonal of the α tables) averages {before} in stage "
                 "2 and {now} now ({way}).", way=way, **averages)
    return t("α changed: a token's weight on itself (the diagonal of the α tables) averages {before} in stage 2 and "
             "{now} now ({way}), because the scores compare a query with keys in a projected space instead of an "
             "embedding with itself.", way=way, **averages)
