"""Attention built up from its parts, one ingredient a stage, in the order it is usually motivated.

1. similarity: α = softmax(X·Xᵀ / √d), output = α·X: each token a weighted sum of the inputs themselves;
2. values: output = α·(X·W_V): retrieve something other than what was searched by;
3. relevance: α = softmax((X·W_Q)(X·W_K)ᵀ / √d): scores measure relevance, not similarity.

Each stage is the previous one with one projection made learnable (here: seeded random), so the
traces differ in exactly that ingredient. d_k = d_model throughout, so that W = I leaves X as it is.
"""

from __future__ import annotations

import numpy as np

from attention.projections import Projections, random_projections

STAGES = ("similarity", "values", "relevance")  # stage 1, 2, 3


def stage_projections(stage: int, d_model: int, seed: int) -> Projections:
    """W_Q, W_K, W_V of ``stage`` (1-based): identity except the projections that stage has added.

    Stage 1: W_Q = W_K = W_V = I.  Stage 2: W_V seeded random.  Stage 3: W_Q, W_K, W_V seeded random.
    The random matrices are the walkthrough's (``random_projections(d_model, d_model, seed)``), so
    stage 3 is exactly the walkthrough at d_k = d_model.
    """
    if stage not in (1, 2, 3):
        raise ValueError(f"There are stages 1, 2 and 3, not {stage}.")
    eye = np.eye(d_model)  # [d_model, d_model]
    learned = random_projections(d_model, d_model, seed)
    w_v = eye if stage == 1 else learned.w_v
    w_q, w_k = (eye, eye.copy()) if stage < 3 else (learned.w_q, learned.w_k)
    return Projections(w_q, w_k, w_v)
