"""What one ingredient changed between two stages of "attention from its parts", in a sentence."""

from __future__ import annotations

import numpy as np

from attention import AttentionTrace
from viz import arithmetic as A


def diagonal_share(trace: AttentionTrace) -> float:
    """The mean weight a token gives itself, mean_i α_ii."""
    return float(np.mean(np.diag(trace.weights)))


def what_changed(before: AttentionTrace, after: AttentionTrace, stage: int) -> str:
    """Stage 2 keeps α and changes the output; stage 3 changes α. Said with the numbers on the page."""
    same_alpha = np.allclose(before.weights, after.weights)
    if stage == 2:
        # the largest difference between the two output tables as shown (two decimals): what a learner gets
        moved = float(np.abs(A.shown(after.output) - A.shown(before.output)).max())
        return (f"α is {'exactly the same' if same_alpha else 'different'} as in stage 1; only what is summed changed: "
                f"the output's entries moved by up to {A.text(moved)} (the largest difference between the two output "
                "tables), because it now adds up values x_j·W_V instead of the inputs x_j.")
    # the averages of the diagonal cells as the α tables show them (two decimals), compared as shown
    was, now = (float(A.shown(np.diag(t.weights)).mean()) for t in (before, after))
    way = "more" if now > was else "less" if now < was else "as much at the tables' two decimals"
    return (f"α {'is the same' if same_alpha else 'changed'}: a token's weight on itself (the diagonal of the α "
            f"tables) averages {A.average(np.diag(before.weights))} in stage 2 and {A.average(np.diag(after.weights))} "
            f"now ({way} here), because the scores compare a query with keys in a projected space instead of an "
            "embedding with itself.")
