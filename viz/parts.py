"""What one ingredient changed between two stages of "attention from its parts", in a sentence."""

from __future__ import annotations

import numpy as np

from attention import AttentionTrace


def diagonal_share(trace: AttentionTrace) -> float:
    """The mean weight a token gives itself, mean_i α_ii."""
    return float(np.mean(np.diag(trace.weights)))


def what_changed(before: AttentionTrace, after: AttentionTrace, stage: int) -> str:
    """Stage 2 keeps α and changes the output; stage 3 changes α. Said with the numbers on the page."""
    same_alpha = np.allclose(before.weights, after.weights)
    moved = float(np.abs(after.output - before.output).max())
    if stage == 2:
        return (f"α is {'exactly the same' if same_alpha else 'different'} as in stage 1; only what is summed changed: "
                f"the output moved by up to {moved:.2f} per entry, because it now adds up values x_j·W_V instead of "
                "the inputs x_j.")
    was, now = diagonal_share(before), diagonal_share(after)
    way = "more" if now > was else "less" if now < was else "as much"
    return (f"α {'is the same' if same_alpha else 'changed'}: a token's weight on itself averages {was:.2f} in stage 2 "
            f"and {now:.2f} now ({way} here), because the scores compare a query with keys in a projected space "
            "instead of an embedding with itself.")
