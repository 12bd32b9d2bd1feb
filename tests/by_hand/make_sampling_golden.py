"""Write tests/golden/sampling.npz: Hugging Face's logits processors (TemperatureLogitsWarper, TopKLogitsWarper,
TopPLogitsWarper, chained as ``generate(do_sample=True)`` chains them) on SmolLM2's real next-token logits and on
made-up ones with ties, for a grid of temperature, top-k and top-p. ``attention.sampling`` must give the same
distribution (tests/test_sampling.py).

Run by hand in an environment with torch and transformers (``make test`` needs neither):

    python3 -m venv .venv-torch
    .venv-torch/bin/pip install torch transformers==5.23.0 numpy==2.4.6
    .venv-torch/bin/python tests/by_hand/make_sampling_golden.py

The logits are SmolLM2's on the sentences of tests/golden/smollm2.npz (written by make_golden.py from
transformers' own forward), so this script needs no model. For each input and setting it stores the kept tokens'
ids and their probabilities (float32, as torch computes them), or, where more than KEEP_AT_MOST are kept, the
KEEP_AT_MOST likeliest and the count.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import torch
from transformers.generation.logits_process import (
    LogitsProcessorList,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
TEMPERATURES = (0.3, 0.7, 1.0, 1.5)
TOP_KS = (0, 1, 3, 10, 50)
TOP_PS = (1.0, 0.95, 0.8, 0.5, 0.1)
KEEP_AT_MOST = 2000


def made_up() -> list[np.ndarray]:
    """Logits a real model rarely gives: ties at every rank, one token far ahead, all equal."""
    ties = np.repeat(np.array([3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0, -1.0, -1.0], dtype=np.float32), 3)
    ahead = np.zeros(500, dtype=np.float32)
    ahead[17] = 12.0
    return [ties, ahead, np.zeros(40, dtype=np.float32)]


def processors(temperature: float, top_k: int, top_p: float) -> LogitsProcessorList:
    """As transformers' GenerationMixin._get_logits_processor builds them for sampling (min_tokens_to_keep 1)."""
    chain = LogitsProcessorList()
    if temperature != 1.0:
        chain.append(TemperatureLogitsWarper(temperature))
    if top_k != 0:
        chain.append(TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    if top_p < 1.0:
        chain.append(TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    return chain


def main() -> None:
    smollm2 = np.load(GOLDEN / "smollm2.npz")
    inputs = [smollm2[f"{k}/logits"] for k in range(3)] + made_up()
    settings = list(itertools.product(TEMPERATURES, TOP_KS, TOP_PS))
    arrays: dict[str, np.ndarray] = {"settings": np.array(settings, dtype=np.float64)}
    for i, logits in enumerate(inputs):
        arrays[f"{i}/logits"] = logits
        scores = torch.from_numpy(logits.astype(np.float32))[None, :]
        for j, (temperature, top_k, top_p) in enumerate(settings):
            out = processors(temperature, int(top_k), top_p)(torch.zeros((1, 1), dtype=torch.long), scores.clone())
            p = torch.softmax(out, dim=-1)[0].numpy()
            kept = np.flatnonzero(np.isfinite(out[0].numpy()))
            ranked = kept[np.lexsort((kept, -p[kept]))][:KEEP_AT_MOST]
            arrays[f"{i}/{j}/count"] = np.array(kept.size)
            arrays[f"{i}/{j}/ids"] = ranked
            arrays[f"{i}/{j}/p"] = p[ranked]
    np.savez_compressed(GOLDEN / "sampling.npz", **arrays)
    print(f"{len(inputs)} inputs × {len(settings)} settings → {GOLDEN / 'sampling.npz'}")


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
