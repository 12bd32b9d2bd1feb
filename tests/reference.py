"""Independent reference implementations: plain Python loops and math, no NumPy linear algebra.

They are written from the formulas, not from the engine, so agreeing with them is evidence.
"""

from __future__ import annotations

import math


def naive_attention(q, k, v, mask=None, scale=None):
    """out_i = Σ_j α_ij v_j,  α_ij = exp(s_ij) / Σ_j' exp(s_ij'),  s_ij = scale · Σ_c q_ic k_jc."""
    n_q, n_k, d_k, d_v = len(q), len(k), len(q[0]), len(v[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    weights, output = [], []
    for i in range(n_q):
        allowed = [j for j in range(n_k) if mask is None or mask[i][j]]
        s = {j: scale * sum(q[i][c] * k[j][c] for c in range(d_k)) for j in allowed}
        top = max(s.values())
        z = sum(math.exp(s[j] - top) for j in allowed)
        row = [math.exp(s[j] - top) / z if j in s else 0.0 for j in range(n_k)]
        weights.append(row)
        output.append([sum(row[j] * v[j][c] for j in range(n_k)) for c in range(d_v)])
    return output, weights


def matmul(a, b):
    return [[sum(a[i][t] * b[t][j] for t in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def naive_multi_head(x, w_q, w_k, w_v, w_o, n_heads, causal=False):
    """Each head h: columns h·d_k … (h+1)·d_k of X·W; concatenate the head outputs; times W_O."""
    n, d_model = len(x), len(x[0])
    d_k = d_model // n_heads
    q, k, v = matmul(x, w_q), matmul(x, w_k), matmul(x, w_v)
    mask = [[j <= i for j in range(n)] for i in range(n)] if causal else None
    concat = [[] for _ in range(n)]
    all_weights = []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        out, weights = naive_attention([r[cols] for r in q], [r[cols] for r in k], [r[cols] for r in v], mask)
        for i in range(n):
            concat[i].extend(out[i])
        all_weights.append(weights)
    return matmul(concat, w_o), all_weights
