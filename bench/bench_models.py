"""Real-model benchmark: our NumPy forward against Hugging Face transformers (eager attention, same CPU
threads) at 8, 32, 64 and 128 tokens, the models' load times, and the server's memory. Asserts nothing.

The comparison needs torch and transformers, which the app and ``make test`` do not install; run it
in the environment of tests/by_hand/make_golden.py:

    PYTHONPATH=. .venv-torch/bin/python bench/bench_models.py     # ratios to Hugging Face
    .venv/bin/python bench/bench_models.py                        # without torch: our times, and the
                                                                  # server's RSS with one and both models
Both forwards return every head's α (Hugging Face with output_attentions=True). Best of 15 runs, in turns.
Then what the lessons of issue 25 cost: the scan of "Which heads matter here?" (per head, every layer,
at 10 and 32 tokens), MiniLM with heads off, and writing with the cache (per token, cached against a
pass over the whole sequence, and Hugging Face's generate with its own cache).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention.pretrained import package_dir  # noqa: E402, RUF100
from attention.pretrained.minilm import MiniLM  # noqa: E402, RUF100
from attention.pretrained.smollm2 import GGUF_FILE, SmolLM2  # noqa: E402, RUF100
from attention.tokens import SentenceError  # noqa: E402, RUF100

SIZES = (8, 32, 64, 128)
THREADS = int(os.environ.get("OMP_NUM_THREADS", "2"))


def interleaved(ours, theirs, repeats: int = 15) -> tuple[float, float | None]:
    """The fastest of ``repeats`` runs of each, taken in turns, so that a busy moment of the machine
    slows both alike (this VM's timings wander by ±30 % from one second to the next)."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for k, fn in enumerate((ours, theirs)):
            if fn is not None:
                t0 = time.perf_counter()
                fn()
                best[k] = min(best[k], time.perf_counter() - t0)
    return best[0], (best[1] if theirs is not None else None)


def sentence_of(model, n: int) -> str:
    """A sentence that the model splits into exactly n tokens (specials included)."""
    for k in range(n, 0, -1):
        text = " ".join(["the"] * k)
        try:
            if len(model.tokenize(text)[0]) == n:
                return text
        except SentenceError:  # too long for the model
            continue
    raise ValueError(f"no sentence of {n} tokens")


def hugging_face(name: str):
    """(model, ids → forward) with eager attention, or None without torch."""
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
        return None
    import torch
    from transformers import AutoModelForCausalLM, BertModel

    torch.set_num_threads(THREADS)
    if name == "minilm":
        model = BertModel.from_pretrained(package_dir(name) / "model", attn_implementation="eager").eval()
    else:
        model = AutoModelForCausalLM.from_pretrained(package_dir(name), gguf_file=GGUF_FILE,
                                                     attn_implementation="eager", dtype=torch.float32).eval()

    def forward(ids: list[int]) -> None:
        with torch.no_grad():
            model(input_ids=torch.tensor([ids]), output_attentions=True)

    return forward


def main() -> None:
    print(f"threads: {THREADS} (OMP_NUM_THREADS); numpy {np.__version__}")
    for name, make in (("minilm", lambda: MiniLM(package_dir("minilm") / "model")),
                       ("smollm2", lambda: SmolLM2(package_dir("smollm2")))):
        t0 = time.perf_counter()
        ours = make()
        print(f"\n{name}: load {time.perf_counter() - t0:.2f} s in this process (SmolLM2: from the weights cache "
              "when it exists; the first load ever dequantizes the GGUF and writes it)")
        theirs = hugging_face(name)
        print(f"{'tokens':>7} {'ours ms':>9} {'HF eager ms':>12} {'ours/HF':>8}")
        for n in SIZES:
            sentence = sentence_of(ours, n)
            ids, _ = ours.tokenize(sentence)
            # forward, not attentions: attentions reuses the last passes (recent_forwards), which would time a lookup
            ours_s, theirs_s = interleaved(lambda sentence=sentence, ours=ours: ours.forward(sentence),
                                           None if theirs is None else lambda ids=ids, theirs=theirs: theirs(ids))
            line = f"{n:>7} {1000 * ours_s:>9.1f}"
            if theirs_s is not None:
                line += f" {1000 * theirs_s:>12.1f} {ours_s / theirs_s:>7.2f}×"
            else:
                line += f" {'(no torch)':>12}"
            print(line)
        if name == "smollm2":
            lessons(ours)
    if importlib.util.find_spec("playwright") is not None:
        server_memory()


def timed(call) -> float:
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def lessons(model: SmolLM2) -> None:
    """The scan per head, and the generation lesson per token (ours cached and recomputed; HF cached)."""
    print("\nscan, every head of every layer switched off in turn (270 heads), best of 3, and its ratio to one "
          "forward (best of 5) in the same run:")
    for n in (10, 32):
        sentence = sentence_of(model, n)
        model.recent(sentence)  # the page has the forward already
        forward = min(timed(lambda sentence=sentence: model.forward(sentence)) for _ in range(5))
        best = min(model.scan(sentence, range(30)).seconds for _ in range(3))
        print(f"  {n:>3} tokens: {best:6.2f} s, {1000 * best / 270:6.1f} ms a head; one forward "
              f"{1000 * forward:6.1f} ms; the scan is {best / forward:5.0f} forwards")
    prompt, count = "The capital of France is", 20
    gen = min((model.generate(prompt, count) for _ in range(3)), key=lambda g: sum(g.seconds_cached[1:]))
    steps = len(gen.seconds_cached) - 1
    print(f"\ngenerate {len(gen.written)} tokens after “{prompt}” ({gen.prompt} tokens), best of 3:")
    print(f"  prompt's pass            {1000 * gen.seconds_cached[0]:7.1f} ms")
    print(f"  cached, per token        {1000 * sum(gen.seconds_cached[1:]) / steps:7.1f} ms (mean of {steps})")
    print(f"  recomputed, per token    {1000 * sum(gen.seconds_recomputed[1:]) / steps:7.1f} ms")
    print(f"  multiply-adds, last token: {model.multiply_adds(len(gen.ids) - 2, cached=True):,} cached, "
          f"{model.multiply_adds(len(gen.ids) - 2, cached=False):,} recomputed")
    print(f"  largest logit difference {gen.logits_difference:.1e}, α {gen.weights_difference:.1e}")
    if importlib.util.find_spec("torch") is not None:
        import torch
        from transformers import AutoModelForCausalLM

        hf = AutoModelForCausalLM.from_pretrained(package_dir("smollm2"), gguf_file=GGUF_FILE,
                                                  attn_implementation="eager", dtype=torch.float32).eval()
        ids = torch.tensor([gen.ids[:gen.prompt]])
        best = float("inf")
        for _ in range(3):
            with torch.no_grad():
                t0 = time.perf_counter()
                hf.generate(input_ids=ids, max_new_tokens=1, do_sample=False, pad_token_id=0)
                prefill = time.perf_counter() - t0
                t0 = time.perf_counter()
                hf.generate(input_ids=ids, max_new_tokens=count, min_new_tokens=count, do_sample=False, pad_token_id=0)
                best = min(best, (time.perf_counter() - t0 - prefill) / (count - 1))
        print(f"  HF generate, cached, per token {1000 * best:7.1f} ms (eager; its prompt's pass taken off)")


def server_memory() -> None:
    """The streamlit server's RSS: started, after the real-model page with MiniLM, then with SmolLM2 too."""
    from playwright.sync_api import sync_playwright

    from tests.browser.server import launch_chromium, streamlit_server

    def rss(pid: int) -> float:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    decoder = "SmolLM2+%28SmolLM2-135M-Instruct%2C+a+Llama+decoder%29"
    with streamlit_server() as url, sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page()
        print("\nserver RSS (MB):")
        page.goto(url + "/?all_steps=true")
        page.wait_for_selector(".st-key-table-output table", timeout=120_000)
        print(f"  the walkthrough only        {rss(url.process.pid):7.0f}")
        page.goto(url + "/real_model")
        page.wait_for_selector(".st-key-table-rm-head table", timeout=120_000)
        print(f"  + MiniLM                    {rss(url.process.pid):7.0f}")
        page.goto(url + f"/real_model?rm_model={decoder}")
        page.wait_for_selector(".st-key-table-rm-head table", timeout=120_000)
        print(f"  + SmolLM2 (both loaded)     {rss(url.process.pid):7.0f}")
        page.goto(url + "/generate?gen_count=20")
        page.wait_for_selector(".st-key-table-gen-written table", timeout=120_000)
        print(f"  + the generation lesson     {rss(url.process.pid):7.0f}")
        browser.close()


if __name__ == "__main__":
    main()
