"""Checks against PyTorch, run by hand (``make test`` must not need torch; see the README):

    python3 -m venv .venv-torch && .venv-torch/bin/pip install torch numpy==2.4.6
    PYTHONPATH=. .venv-torch/bin/python tests/by_hand/torch_checks.py

1. ``attention.training.gradients`` (the hand-written backward pass) against torch.autograd, in
   float64, for every parameter, every task and several sizes, head counts and seeds: to 1e-8.
2. ``attention.cross.trace_cross_attention`` against torch.nn.functional.scaled_dot_product_attention
   (queries from the target, keys and values from the source; α [i × i′]).
3. ``attention.trace_self_attention`` with a causal mask against the same function (is_causal=True).

Prints one line per case and the largest difference; exits 1 if any case is off.
"""

from __future__ import annotations

import sys

import numpy as np
import torch

from attention import trace_self_attention
from attention.cross import trace_cross_attention
from attention.embeddings import sinusoidal_positional_encoding
from attention.training import NO_ANSWER, TASKS, gradients, initial_parameters

TOLERANCE = 1e-8


def torch_loss(params: dict[str, torch.Tensor], x: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """The training model written with torch ops (an independent forward pass)."""
    heads, _, d_k = params["w_q"].shape
    q = torch.einsum("bnd,hde->bhne", x, params["w_q"])
    k = torch.einsum("bnd,hde->bhne", x, params["w_k"])
    v = torch.einsum("bnd,hde->bhne", x, params["w_v"])
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)  # [B, h, n, d_k]
    logits = out.transpose(1, 2).reshape(x.shape[0], x.shape[1], heads * d_k) @ params["w_o"] + params["b"]
    asked = answers != NO_ANSWER
    return torch.nn.functional.cross_entropy(logits[asked], answers[asked])


def check_gradients() -> float:
    worst = 0.0
    for task in TASKS:
        for d_model, heads, seed in ((4, 1, 0), (8, 2, 1), (8, 4, 2), (16, 1, 3), (16, 4, 4)):
            rng = np.random.default_rng(seed)
            spec = TASKS[task]
            batch = spec.sample(rng, 5)
            x = spec.table(rng, d_model)[batch.tokens] + sinusoidal_positional_encoding(spec.length, d_model)
            params = initial_parameters(rng, d_model, heads, len(spec.classes)).map(lambda a: a * 3)
            loss, grad = gradients(params, x, batch.answers)
            tensors = {name: torch.tensor(a, dtype=torch.float64, requires_grad=True) for name, a in params.items()}
            t_loss = torch_loss(tensors, torch.tensor(x), torch.tensor(batch.answers))
            t_loss.backward()
            diff = max(abs(loss - t_loss.item()),
                       *(float(np.abs(g - tensors[name].grad.numpy()).max()) for name, g in grad.items()))
            print(f"gradients  {task:8s} d_model {d_model:2d} heads {heads} seed {seed}: max |Δ| {diff:.1e}")
            worst = max(worst, diff)
    return worst


def check_cross_attention() -> float:
    worst = 0.0
    for target, source, d_k, preset in (("Ce forum est génial", "This forum is awesome", 4, "random"),
                                        ("le chat", "the cat sat on the mat", 8, "aligned"),
                                        ("a b c d e f", "x", 3, "random")):
        trace = trace_cross_attention(target, source, d_model=8, d_k=d_k, seed=42, preset=preset)
        q, k, v = (torch.tensor(m)[None] for m in (trace.q, trace.k, trace.v))
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)[0].numpy()
        diff = float(np.abs(out - trace.output).max())
        print(f"cross-attention {target!r} ← {source!r} ({preset}, d_k {d_k}): max |Δ| {diff:.1e}")
        worst = max(worst, diff)
    return worst


def check_causal_self_attention() -> float:
    trace = trace_self_attention("the cat sat on the mat", d_model=8, d_k=4, seed=42, causal=True)
    q, k, v = (torch.tensor(m)[None] for m in (trace.q, trace.k, trace.v))
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)[0].numpy()
    diff = float(np.abs(out - trace.output).max())
    print(f"causal self-attention: max |Δ| {diff:.1e}")
    return diff


if __name__ == "__main__":
    torch.set_default_dtype(torch.float64)
    print(f"torch {torch.__version__}, numpy {np.__version__}")
    worst = max(check_gradients(), check_cross_attention(), check_causal_self_attention())
    print(f"largest difference {worst:.1e} (tolerance {TOLERANCE:.0e}): {'OK' if worst <= TOLERANCE else 'FAILED'}")
    sys.exit(0 if worst <= TOLERANCE else 1)
