"""The trainable attention layer: the tasks' answers, the forward pass against a naive loop, the
hand-written gradients against central finite differences (float64), the optimisers against hand
computation, and what a run says about itself."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.core import softmax
from attention.embeddings import sinusoidal_positional_encoding
from attention.training import (
    NO_ANSWER,
    TASKS,
    AdamState,
    Parameters,
    TrainingConfig,
    adam_step,
    bilinear_form,
    centred_rows,
    example_tokens,
    forward,
    gradients,
    head_trace,
    initial_parameters,
    loss_and_accuracy,
    predictions,
    score_parts,
    sgd_step,
    snapshot_steps,
    train,
    verdict,
)


def small_problem(task: str, d_model: int, heads: int, seed: int, batch: int = 3, scale: float = 3.0):
    """Inputs, answers and parameters large enough (×scale) that α is far from uniform."""
    rng = np.random.default_rng(seed)
    spec = TASKS[task]
    sample = spec.sample(rng, batch)
    x = spec.table(rng, d_model)[sample.tokens] + sinusoidal_positional_encoding(spec.length, d_model)
    params = initial_parameters(rng, d_model, heads, len(spec.classes)).map(lambda a: a * scale)
    return x, sample.answers, params


# --- the tasks ------------------------------------------------------------------------------


def test_each_task_asks_what_its_rule_says():
    """Answers recomputed from the tokens' text, by a separate plain loop per task."""
    rng = np.random.default_rng(0)
    for name, task in TASKS.items():
        batch = task.sample(rng, 50)
        assert batch.tokens.shape == batch.answers.shape == (50, task.length)
        for ids, answers in zip(batch.tokens, batch.answers, strict=True):
            words = [task.vocabulary[t] for t in ids]
            if name == "previous":
                expected = [None, *words[:-1]]
            elif name == "first":
                expected = [str(words.index(w) + 1) for w in words]
            else:  # "a=3 b=7 c=1 d=0 ?b" -> 7, nothing asked before the query
                book = dict(w.split("=") for w in words[:-1])
                assert len(book) == 4 and words[-1].startswith("?")
                expected = [None] * 4 + [book[words[-1][1:]]]
            shown = [None if a == NO_ANSWER else task.classes[a] for a in answers]
            assert shown == expected


# --- the forward pass -----------------------------------------------------------------------


def naive_logits(params: Parameters, x: np.ndarray) -> np.ndarray:
    """One sequence, one head and one query at a time, with Python loops."""
    n, _ = x.shape
    heads, _, d_k = params.w_q.shape
    out = np.zeros((n, heads * d_k))
    for h in range(heads):
        q, k, v = x @ params.w_q[h], x @ params.w_k[h], x @ params.w_v[h]
        for i in range(n):
            z = [float(q[i] @ k[j]) / np.sqrt(d_k) for j in range(i + 1)]  # keys j ≤ i only
            e = np.exp(np.array(z) - max(z))
            alpha = e / e.sum()
            out[i, h * d_k:(h + 1) * d_k] = sum(alpha[j] * v[j] for j in range(i + 1))
    return out @ params.w_o + params.b


@pytest.mark.parametrize(("task", "heads"), [("previous", 1), ("lookup", 2), ("first", 4)])
def test_forward_matches_a_naive_loop(task, heads):
    x, _, params = small_problem(task, 8, heads, seed=5)
    fwd = forward(params, x)
    for b in range(x.shape[0]):
        logits = naive_logits(params, x[b])
        expected = np.exp(logits - logits.max(axis=1, keepdims=True))
        np.testing.assert_allclose(fwd.probabilities[b], expected / expected.sum(axis=1, keepdims=True), atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(list(TASKS)), st.sampled_from([1, 2, 4]), st.integers(0, 10_000),
       st.floats(0.1, 1e3))
def test_weights_are_causal_distributions_even_for_huge_parameters(task, heads, seed, scale):
    x, _, params = small_problem(task, 8, heads, seed, scale=scale)
    a = forward(params, x).weights  # [B, h, n, n]
    assert np.isfinite(a).all()
    np.testing.assert_allclose(a.sum(axis=-1), 1.0, atol=1e-12)
    assert (a[..., ~np.tril(np.ones(a.shape[-2:], dtype=bool))] == 0).all()  # no key after the query


def test_loss_and_accuracy_count_only_asked_positions():
    x, answers, params = small_problem("lookup", 4, 1, seed=2, batch=6)
    fwd = forward(params, x)
    p_last = fwd.probabilities[:, -1]  # only the query position is asked in this task
    loss, accuracy = loss_and_accuracy(fwd, answers)
    rows = np.arange(6)
    assert loss == pytest.approx(-np.mean(np.log(p_last[rows, answers[:, -1]])))
    assert accuracy == pytest.approx(np.mean(p_last.argmax(axis=1) == answers[:, -1]))


# --- the gradients --------------------------------------------------------------------------


def central_differences(params: Parameters, x, answers, eps: float = 1e-6) -> Parameters:
    """(loss(θ + ε) − loss(θ − ε)) / 2ε for every entry of every parameter."""
    def loss_with(name, array):
        return loss_and_accuracy(forward(dataclasses.replace(params, **{name: array}), x), answers)[0]

    result = {}
    for name, array in params.items():
        numeric = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            up, down = array.copy(), array.copy()
            up[index] += eps
            down[index] -= eps
            numeric[index] = (loss_with(name, up) - loss_with(name, down)) / (2 * eps)
        result[name] = numeric
    return Parameters(**result)


@pytest.mark.parametrize(("task", "d_model", "heads", "seed"), [
    ("previous", 4, 1, 0), ("previous", 6, 3, 1), ("lookup", 4, 2, 2), ("lookup", 5, 1, 3),
    ("first", 4, 4, 4), ("first", 6, 2, 5),
])
def test_gradients_match_central_differences(task, d_model, heads, seed):
    """Every entry of ∂loss/∂W_Q, W_K, W_V, W_O and b, for several tasks, sizes, head counts and seeds."""
    x, answers, params = small_problem(task, d_model, heads, seed)
    _, grad = gradients(params, x, answers)
    numeric = central_differences(params, x, answers)
    for name, g in grad.items():
        expected = getattr(numeric, name)
        assert np.abs(expected).max() > 1e-4, f"∂loss/∂{name} is ~0 here, so this case would prove nothing"
        np.testing.assert_allclose(g, expected, rtol=0, atol=1e-7 * np.abs(expected).max(), err_msg=name)


# --- the optimisers -------------------------------------------------------------------------


def one_number(value: float) -> Parameters:
    return Parameters(*(np.array([value]) for _ in range(5)))


def test_sgd_step_is_theta_minus_eta_gradient():
    new = sgd_step(one_number(1.0), one_number(0.5), lr=0.1)
    assert new.w_q[0] == pytest.approx(0.95)


def test_adam_steps_by_hand():
    """Step 1: m̂ = g, v̂ = g², so θ moves by η·g/(|g| + ε) ≈ η·sign(g). Step 2 with g₂ computed by hand."""
    zero = one_number(0.0)
    params, state = adam_step(one_number(1.0), one_number(-4.0), 0.1, AdamState(zero, zero, 0))
    assert params.w_k[0] == pytest.approx(1.1, abs=1e-9)
    params, state = adam_step(params, one_number(2.0), 0.1, state)
    m = 0.9 * (0.1 * -4.0) + 0.1 * 2.0  # -0.16
    v = 0.999 * (0.001 * 16.0) + 0.001 * 4.0  # 0.019984
    after_one = 1.0 + 0.1 * 4.0 / (4.0 + 1e-8)
    expected = after_one - 0.1 * (m / (1 - 0.9**2)) / (np.sqrt(v / (1 - 0.999**2)) + 1e-8)
    assert params.b[0] == pytest.approx(expected, abs=1e-12)
    assert state.t == 2


# --- runs -----------------------------------------------------------------------------------


def test_a_run_is_reproducible_from_its_config():
    config = TrainingConfig(task="lookup", steps=40)
    a, b = train(config), train(config)
    np.testing.assert_array_equal(a.losses, b.losses)
    np.testing.assert_array_equal(a.snapshots[-1].w_q, b.snapshots[-1].w_q)
    other = train(dataclasses.replace(config, seed=7))
    assert not np.array_equal(a.losses, other.losses)


def test_snapshots_are_evenly_spaced_and_keep_both_ends():
    assert snapshot_steps(300) == tuple(range(0, 301, 10))
    steps = snapshot_steps(50)
    assert steps[0] == 0 and steps[-1] == 50 and len(steps) <= 32
    assert snapshot_steps(2000)[-1] == 2000


@pytest.mark.parametrize("task", list(TASKS))
def test_the_default_run_learns_each_task(task):
    """Adam, η = 0.01, 300 steps: each task is solved on sequences it never saw."""
    run = train(TrainingConfig(task=task))
    judged = verdict(run)
    assert judged.kind == "learned" and judged.accuracy >= 0.95
    assert judged.last_loss < judged.first_loss / 10
    assert run.held_out_accuracy[0] < 0.5  # and it did not know it before training


def test_a_blown_up_run_stops_and_says_so():
    run = train(TrainingConfig(optimizer="sgd", learning_rate=10.0))
    assert run.stopped_at is not None and run.stopped_at - 1 <= len(run.losses) <= run.stopped_at
    assert run.snapshot_steps[-1] < run.stopped_at and np.isfinite(run.losses).all()
    assert verdict(run).kind == "diverged"
    assert len(run.snapshots) == len(run.snapshot_steps) == len(run.held_out_accuracy)
    assert all(np.isfinite(p.w_q).all() for p in run.snapshots)


def test_too_small_a_learning_rate_is_not_called_learned():
    judged = verdict(train(TrainingConfig(optimizer="sgd", learning_rate=0.001)))
    assert judged.kind == "not learned" and judged.accuracy < 0.5


def test_the_verdict_follows_the_numbers_only():
    run = train(TrainingConfig(steps=50))
    at = dict(baselines=(("constant", 0.125), ("itself", 0.4)), stopped_at=None, held_out_loss=np.array([2.0, 1.0]),
              snapshot_steps=(0, 50))
    assert verdict(dataclasses.replace(run, held_out_accuracy=np.array([0.1, 0.949]), **at)).kind == "partly"
    assert verdict(dataclasses.replace(run, held_out_accuracy=np.array([0.1, 0.95]), **at)).kind == "learned"
    # "partly" is 10 points above the best strategy that needs no search, not above the constant guess
    assert verdict(dataclasses.replace(run, held_out_accuracy=np.array([0.1, 0.5]), **at)).kind == "partly"
    assert verdict(dataclasses.replace(run, held_out_accuracy=np.array([0.1, 0.49]), **at)).kind == "not learned"
    diverged = dataclasses.replace(run, held_out_accuracy=np.array([0.1, 0.99]), **{**at, "stopped_at": 3})
    assert verdict(diverged).kind == "diverged"


def test_a_heads_trace_is_the_models_own_head():
    """The α shown for a head at a snapshot equals the training forward pass's α for that head, and the
    bilinear form gives its scaled scores: z_ij = x_i·(W_Q W_Kᵀ/√d_k)·x_jᵀ."""
    run = train(TrainingConfig(task="first", heads=2, steps=50))
    snapshot, example = 3, 7
    fwd = forward(run.snapshots[snapshot], run.inputs(run.held_out.tokens[example:example + 1]))
    for head in range(2):
        trace = head_trace(run, snapshot, example, head)
        np.testing.assert_allclose(trace.weights, fwd.weights[0, head], atol=1e-12)
        form = bilinear_form(run.snapshots[snapshot], head)
        np.testing.assert_allclose(trace.x @ form @ trace.x.T, trace.scaled_scores, atol=1e-10)
        assert trace.tokens == example_tokens(run, example) and trace.causal
    np.testing.assert_array_equal(predictions(run, snapshot, example), fwd.probabilities[0].argmax(axis=1))


def test_score_parts_read_the_form_in_the_tasks_terms():
    run = train(TrainingConfig(task="previous", steps=50))
    form = bilinear_form(run.snapshots[2], 0)
    positions, letters = score_parts(run, 2, 0)
    assert positions.rows == positions.columns == [str(i) for i in range(1, 9)]
    assert positions.z[2, 1] == pytest.approx(run.positional[2] @ form @ run.positional[1])
    assert positions.allowed[2, 1] and not positions.allowed[1, 2]  # key 3 comes after query 2
    assert letters.rows == list("abcdefgh")
    assert letters.z[0, 3] == pytest.approx(run.table[0] @ form @ run.table[3])
    run = train(TrainingConfig(task="lookup", steps=50))
    (names,) = score_parts(run, 1, 0)
    assert names.rows[1] == "?b" and names.columns[3] == "d=·" and names.z.shape == (6, 6)
    entries_d = [run.task.vocabulary.index(f"d={k}") for k in range(10)]
    expected = run.table[run.task.vocabulary.index("?b")] @ bilinear_form(run.snapshots[1], 0) @ \
        run.table[entries_d].mean(axis=0)
    assert names.z[1, 3] == pytest.approx(expected)


def test_centring_rows_keeps_what_softmax_sees():
    """softmax over a centred row's allowed cells equals softmax over the raw row's; masked cells are −∞."""
    z = np.array([[1.0, 5.0, 2.0], [3.0, -1.0, 7.0], [0.5, 0.5, 9.0]])
    allowed = np.tril(np.ones((3, 3), dtype=bool))
    c = centred_rows(z, allowed)
    assert c[0, 0] == 0 and np.isneginf(c[0, 1:]).all()
    np.testing.assert_allclose(c[1, :2], [2.0, -2.0])
    np.testing.assert_allclose(softmax(c, axis=-1), softmax(np.where(allowed, z, -np.inf), axis=-1))
    np.testing.assert_allclose(centred_rows(z).sum(axis=1), 0, atol=1e-12)


def test_bad_configs_are_refused():
    with pytest.raises(ValueError, match="task"):
        train(TrainingConfig(task="sorting"))
    with pytest.raises(ValueError, match="optimizer"):
        train(TrainingConfig(optimizer="rmsprop"))
    with pytest.raises(ValueError, match="divide"):
        train(TrainingConfig(heads=5))


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.parametrize("heads", [1, 2, 4])
def test_the_head_before_training_is_the_runs_step_0_replayed_from_its_seed(task, heads):
    from attention.training import untrained_head_trace
    config = TrainingConfig(task=task, heads=heads, steps=10, seed=heads)
    run = train(config)
    for example in (0, 3):
        for head in {0, heads - 1}:
            before, kept = untrained_head_trace(config, example, head), head_trace(run, 0, example, head)
            assert before.tokens == kept.tokens
            np.testing.assert_array_equal(before.weights, kept.weights)
            np.testing.assert_array_equal(before.output, kept.output)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(sorted(TASKS)), st.integers(0, 2**16), st.integers(2, 30))
def test_the_curves_table_holds_each_saved_steps_losses_recomputed_from_its_batch(task, seed, steps):
    """The table beside the loss and accuracy charts (issue 44: a number table beside every chart): a row for each
    saved step; at step s the loss of step s's own training batch under the parameters before it (recomputed here
    from the batch and the saved parameters: with at most 30 steps every step is saved), none at step 0; the
    held-out loss and accuracy of the parameters saved at s, recomputed on the held-out set."""
    from viz.training import curves_frame

    batches = []
    run = train(TrainingConfig(task=task, seed=seed, steps=steps), on_batch=batches.append)
    frame = curves_frame(run)
    assert list(frame.index) == [str(s) for s in run.snapshot_steps] == [str(s) for s in range(len(batches) + 1)]
    assert np.isnan(frame.iloc[0, 0])
    for s, batch in enumerate(batches, 1):
        loss, _ = gradients(run.snapshots[s - 1], run.table[batch.tokens] + run.positional, batch.answers)
        assert frame.iloc[s, 0] == pytest.approx(loss, rel=1e-9)
    for k, params in enumerate(run.snapshots):
        x = run.table[run.held_out.tokens] + run.positional
        held_loss, held_accuracy = loss_and_accuracy(forward(params, x), run.held_out.answers)
        assert (frame.iloc[k, 1], frame.iloc[k, 2]) == pytest.approx((held_loss, held_accuracy), rel=1e-9)
