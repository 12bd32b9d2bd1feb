"""What a builder made, kept for every session of this server: a chart is a function of its numbers, labels and the
reader's language, so a class whose hundred students follow one lesson builds each of its charts once (issue 46).

``functools.lru_cache`` keys by hash and equality, which arrays and lists lack; ``by_content`` wraps each argument in
``_Content``, whose hash and equality are its content's: an array's dtype, shape and bytes (their digest), a list's
items. The reader's language is part of the key, as a builder's words are written in it. What is kept must never be
changed by a caller: the charts (``viz.svg.Svg``) are frozen dataclasses of strings and numbers, in tuples.

Why not Streamlit's ``st.cache_data``: ``viz`` does not import Streamlit (the floors: attention → viz → ui → lessons),
and it pickles and copies what it returns on every call, which for a chart costs what drawing it does.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from viz import i18n

F = TypeVar("F", bound=Callable[..., Any])


def content(value: object) -> object:
    """A hashable stand-in for ``value`` equal to another's exactly when their contents are: an array by its dtype,
    shape and bytes (by a 256-bit BLAKE2 digest; −0.0 and 0.0, or two NaNs of other bits, differ: then the chart is
    drawn again, never wrongly shared; an array of objects by its items), a list or tuple by its items' contents, a
    number, string, bool or None by itself. Anything else raises TypeError (``by_content`` then builds, not keeps)."""
    if isinstance(value, np.ndarray) and value.dtype.hasobject:  # its bytes would be pointers: by its items
        return "ndarray", value.shape, content(value.tolist())
    if isinstance(value, np.ndarray):  # its bytes' 256-bit digest: a real model's [576 × 64] is 295 KB of them
        data = np.ascontiguousarray(value)
        return "ndarray", value.dtype.str, value.shape, hashlib.blake2b(data, digest_size=32).digest()
    if isinstance(value, list | tuple):
        return type(value).__name__, tuple(content(item) for item in value)
    if isinstance(value, float | int | str | bool | type(None) | np.generic):
        return type(value).__name__, value
    # a type this key does not know, even a hashable one (its hash may be its identity, and its content may change
    # after the call: the truth audit kept a sequence of labels whose first was changed since): built, not kept
    raise TypeError(f"not keyed by content: {type(value).__name__}")


class _Content:
    """An argument compared by its content (``content``), carrying the argument itself to the builder (and only until
    it has been built: the cache keeps the content, not the argument)."""

    __slots__ = ("_hash", "key", "value")

    def __init__(self, value: object) -> None:
        self.value, self.key = value, content(value)
        self._hash = hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Content) and self.key == other.key

    def __hash__(self) -> int:
        return self._hash


def by_content(maxsize: int) -> Callable[[F], F]:
    """Keep the last ``maxsize`` results of a builder, keyed by its arguments' contents and the reader's language."""
    def wrap(build: F) -> F:
        @functools.lru_cache(maxsize=maxsize)
        def kept(language: str, args: tuple[_Content, ...], options: tuple[tuple[str, _Content], ...]) -> Any:
            return build(*(a.value for a in args), **{name: option.value for name, option in options})

        @functools.wraps(build)
        def built(*args: Any, **options: Any) -> Any:
            try:
                key = tuple(map(_Content, args)), tuple(sorted((name, _Content(v)) for name, v in options.items()))
            except TypeError:  # an argument of a type ``content`` does not know: built, not kept
                return build(*args, **options)
            try:
                return kept(i18n.language(), *key)
            finally:  # the cache keeps the key, not the arguments it was made from
                for argument in (*key[0], *(option for _, option in key[1])):
                    argument.value = None

        built.cache_info = kept.cache_info  # type: ignore[attr-defined]
        built.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        return built  # type: ignore[return-value]
    return wrap
