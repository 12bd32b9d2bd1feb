"""Projection presets for W_Q, W_K and W_V."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]

PRESETS = ("random", "identity")


class Projections(NamedTuple):
    """The three learned matrices of one attention head, each [d_model, d_k]."""

    w_q: Matrix
    w_k: Matrix
    w_v: Matrix


def random_projections(d_model: int, d_k: int, seed: int) -> Projections:
    r"""W_Q, W_K, W_V with independent entries ~ N(0, 1/d_model).

    The standard deviation 1/\sqrt{d_model} (Xavier/LeCun scaling) keeps the entries of
    Q = X·W_Q near unit variance when the entries of X have unit variance, so that the raw scores
    q·k have variance about d_k and the scaled scores about 1. The same seed always gives the same
    matrices; they do not depend on the sentence.

    Returns
    -------
    Projections of three arrays, each [d_model, d_k]
    """
    _check_dims(d_model, d_k)
    rng = np.random.default_rng([seed, 0x5EED])  # a stream apart from the embeddings'
    w = rng.standard_normal((3, d_model, d_k)) / np.sqrt(d_model)  # [3, d_model, d_k]
    return Projections(w[0], w[1], w[2])


def identity_projections(d_model: int, d_k: int) -> Projections:
    """W_Q = W_K = W_V = I: Q = K = V = X, so the scores are raw dot products x_i·x_j.

    When d_k differs from d_model, I is the d_model × d_k matrix with ones on its diagonal: it keeps
    the first d_k coordinates of each embedding (and pads with zeros when d_k > d_model).

    Returns
    -------
    Projections of three arrays, each [d_model, d_k]
    """
    _check_dims(d_model, d_k)
    eye = np.eye(d_model, d_k)  # [d_model, d_k]
    return Projections(eye, eye.copy(), eye.copy())


def preset_projections(preset: str, d_model: int, d_k: int, seed: int) -> Projections:
    """The matrices of a named preset: "random" (seeded) or "identity"."""
    if preset == "random":
        return random_projections(d_model, d_k, seed)
    if preset == "identity":
        return identity_projections(d_model, d_k)
    raise ValueError(f"Unknown preset {preset!r}; choose one of {', '.join(PRESETS)}.")


def _check_dims(d_model: int, d_k: int) -> None:
    if d_model < 1 or d_k < 1:
        raise ValueError(f"d_model and d_k must be at least 1, got d_model={d_model}, d_k={d_k}.")


def random_output_projection(d_model: int, seed: int) -> Matrix:
    r"""W_O with entries ~ N(0, 1/d_model), seeded apart from W_Q, W_K and W_V.

    Returns
    -------
    ndarray, shape [d_model, d_model]
    """
    _check_dims(d_model, d_model)
    rng = np.random.default_rng([seed, 0x0])
    return rng.standard_normal((d_model, d_model)) / np.sqrt(d_model)
