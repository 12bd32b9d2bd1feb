"""Attention Lab's engine: self-attention in NumPy, one small function per step of the math.

Public API (other code, the tests and the benchmarks rely on these names):
    softmax, scaled_dot_product_attention, multi_head_attention, trace_self_attention,
    tokenize, embed, sinusoidal_positional_encoding, random_projections, identity_projections.
"""

from attention.core import apply_mask, attention_scores, causal_mask, scaled_dot_product_attention, softmax
from attention.embeddings import embed, sinusoidal_positional_encoding, token_embedding
from attention.multihead import (
    MultiHeadTrace,
    concat_heads,
    head_dim,
    multi_head_attention,
    split_heads,
    trace_multi_head,
)
from attention.projections import (
    PRESETS,
    Projections,
    identity_projections,
    preset_projections,
    random_output_projection,
    random_projections,
)
from attention.scaling import dot_product_samples, gradient_size, softmax_jacobian
from attention.stages import STAGES, stage_projections
from attention.tokens import MAX_CHARS, MAX_TOKENS, SentenceError, token_ids, tokenize
from attention.trace import AttentionTrace, Embedded, embed_sentence, trace_attention, trace_self_attention

__all__ = [
    "MAX_CHARS",
    "MAX_TOKENS",
    "PRESETS",
    "STAGES",
    "AttentionTrace",
    "Embedded",
    "MultiHeadTrace",
    "Projections",
    "SentenceError",
    "apply_mask",
    "attention_scores",
    "causal_mask",
    "concat_heads",
    "dot_product_samples",
    "embed",
    "embed_sentence",
    "gradient_size",
    "head_dim",
    "identity_projections",
    "multi_head_attention",
    "preset_projections",
    "random_output_projection",
    "random_projections",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
    "softmax",
    "softmax_jacobian",
    "split_heads",
    "stage_projections",
    "token_embedding",
    "token_ids",
    "tokenize",
    "trace_attention",
    "trace_multi_head",
    "trace_self_attention",
]
