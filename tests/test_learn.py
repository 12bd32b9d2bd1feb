"""Watch a head learn: the figure and table builders read back, and the page through AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention.training import (
    LEARNED,
    TASKS,
    TrainingConfig,
    bilinear_form,
    centred_rows,
    example_tokens,
    examples,
    head_trace,
    score_parts,
    train,
    verdict,
)
from tests import svg_reading as R
from tests.table_reading import readable, view_panels
from tests.test_pages import APP, TIMEOUT, assert_no_exception, table
from viz import training as V

PAGE = "lessons/learn.py"


@pytest.fixture(scope="module")
def run():
    return train(TrainingConfig(task="first", heads=2, steps=100))


# --- builders -------------------------------------------------------------------------------


def test_curves_show_the_runs_numbers_and_mark_the_step(run):
    loss, accuracy = V.curves_figures(run, 40)
    # loss: each batch's and the held-out set's; accuracy: the held-out set's and the best constant guess
    assert [len(line) for line in R.polylines(loss)] == [len(run.losses), len(run.snapshot_steps)]
    assert [len(line) for line in R.polylines(accuracy)] == [len(run.snapshot_steps), 2]
    for fig in (loss, accuracy):
        marks = [el for el in R.parse(fig).iter(f"{R.NS}line") if el.get("stroke-dasharray")
                 and el.get("class") != "swatch"]  # a dashed line's legend swatch is dashed too
        assert len(marks) == 1 and marks[0].get("x1") == marks[0].get("x2")  # a vertical line in each plot
    assert R.texts(loss, "title") == ["Loss (lower is better)"] and R.texts(accuracy, "title") == ["Held-out accuracy"]


def test_the_curves_put_each_number_at_its_height(run):
    """Pixel y is an affine, decreasing function of the value: so the points' heights are the run's numbers."""
    loss, accuracy = V.curves_figures(run, 0)
    (_, held_loss), (held_accuracy, guess) = R.polylines(loss), R.polylines(accuracy)
    for points, values in ((held_loss, run.held_out_loss), (held_accuracy, run.held_out_accuracy)):
        slope, offset = np.polyfit(values, points[:, 1], 1)
        assert slope < 0
        np.testing.assert_allclose(points[:, 1], slope * values + offset, atol=0.1)  # pixels: 1 decimal
    slope, offset = np.polyfit(run.held_out_accuracy, held_accuracy[:, 1], 1)
    assert guess[0, 1] == pytest.approx(slope * run.best_baseline[1] + offset, abs=0.1)  # the best without search


def test_alpha_figure_is_the_heads_trace(run):
    trace = head_trace(run, 5, 2, 1)
    fig = V.alpha_figure(trace, 1, 2, 50)
    expected = [[f"{a:.2f}" if allowed else "—" for a, allowed in zip(row, mrow, strict=True)]
                for row, mrow in zip(trace.weights, trace.mask, strict=True)]
    assert R.cell_texts(fig, (8, 8)).tolist() == expected
    assert R.texts(fig, "title")[0].startswith("α, head 2 at step 50")
    assert len(R.ticks(fig, "x")) == 8 and R.ticks(fig, "y") == R.ticks(fig, "x")


def test_part_figures_show_the_centred_rows_and_the_mask(run):
    positions, letters = score_parts(run, 3, 0)
    centred = centred_rows(positions.z, positions.allowed)
    cells = R.cell_texts(V.part_figure(positions), (8, 8))
    assert cells[0, 0] == "0.0" and (cells[0, 1:] == "−∞").all()  # a one-key row is its own mean
    assert cells[7, 2] == f"{centred[7, 2]:.1f}".replace("-", "−")
    frame = V.part_frame(letters)
    np.testing.assert_allclose(frame.to_numpy(), letters.z - letters.z.mean(axis=1, keepdims=True))
    assert list(frame.columns) == list("abcd") == R.ticks(V.part_figure(letters), "x")


def test_form_frame_is_w_q_w_k_transposed_over_root_d_k(run):
    params = run.snapshots[-1]
    frame = V.form_frame(run, len(run.snapshots) - 1, 1)
    np.testing.assert_allclose(frame.to_numpy(), params.w_q[1] @ params.w_k[1].T / np.sqrt(6))
    np.testing.assert_allclose(frame.to_numpy(), bilinear_form(params, 1))


def test_prediction_frame_marks_right_and_wrong(run):
    frame = V.prediction_frame(run, 0, 4)  # before training: mostly wrong
    assert list(frame.loc["token"]) == list(example_tokens(run, 4))
    right = [str(run.task.classes[a]) for a in run.held_out.answers[4]]
    assert list(frame.loc["right answer"]) == right  # "first": every position is asked
    said = list(frame.loc["the model says"])
    assert list(frame.loc["right?"]) == ["yes" if s == r else "no" for s, r in zip(said, right, strict=True)]


def test_examples_frame_puts_answers_under_tokens():
    task = TASKS["lookup"]
    batch = examples(task, 42)
    frame = V.examples_frame(task, batch.tokens, batch.answers)
    assert list(frame.index) == ["example 1", "answer 1", "example 2", "answer 2", "example 3", "answer 3"]
    row, answers = list(frame.loc["example 2"]), list(frame.loc["answer 2"])
    assert answers[:4] == ["—"] * 4 and row[4].startswith("?")
    assert f"{row[4][1:]}={answers[4]}" in row[:4]  # the answer is the digit stored under the asked name


@pytest.mark.parametrize(("config", "kind", "words"), [
    (TrainingConfig(), "learned", "**Learned**"),
    (TrainingConfig(optimizer="sgd", learning_rate=10.0), "diverged", "blew up at step"),
    (TrainingConfig(optimizer="sgd", learning_rate=0.001), "not learned", "still falling"),
    (TrainingConfig(task="lookup", learning_rate=3.0), "not learned", "the steps overshoot"),
])
def test_the_verdict_says_what_the_numbers_say(config, kind, words):
    result = train(config)
    judged = verdict(result)
    text = V.verdict_text(judged, result)
    assert judged.kind == kind and words in text
    assert f"held-out accuracy {100 * judged.accuracy:.0f} %" in text
    if kind != "learned":
        assert "Learned" not in text and judged.accuracy < LEARNED


# --- the page -------------------------------------------------------------------------------


def open_learn(**query) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(PAGE).run()


def test_the_page_waits_for_train_then_shows_the_runs_own_numbers():
    at = open_learn()
    assert_no_exception(at)
    assert any("Press **Train**" in i.value for i in at.info)
    assert "lt-alpha" not in view_panels(at)  # nothing trained, nothing drawn
    at.button(key="lt_train").click().run()
    assert_no_exception(at)
    run = train(TrainingConfig())  # the page's defaults: copy the previous token, Adam, η 0.01, 300 steps
    assert at.success[0].value == V.verdict_text(verdict(run), run)
    assert at.select_slider(key="lt_step").value == 0  # the head before training first: watch it learn (issue 47)
    at.select_slider(key="lt_step").set_value(300).run()
    expected = head_trace(run, len(run.snapshots) - 1, 0, 0).weights
    shown = table(at, "lt-alpha")
    allowed = np.tril(np.ones((8, 8), dtype=bool))
    np.testing.assert_allclose(shown[allowed], expected[allowed], atol=0.005 + 1e-9)
    assert np.isnan(shown[~allowed]).all()  # keys after the query: "—"


def test_a_newcomer_meets_the_untrained_head_though_another_session_trained_the_run():
    """Issue 47: runs are shared across sessions, and the page opened already trained (at its last step) for anyone
    after the first learner, skipping "watch it learn". A newcomer is asked to press Train; the kept run then
    answers at once, opening at step 0, the head before training, and Next saved step walks it forward."""
    first = open_learn(lt_run="true")  # another learner trains the default run
    assert_no_exception(first)
    run = train(TrainingConfig())
    newcomer = open_learn()
    assert_no_exception(newcomer)
    assert any("Press **Train**" in i.value for i in newcomer.info)
    assert "lt-alpha" not in view_panels(newcomer) and not newcomer.success
    newcomer.button(key="lt_train").click().run()
    assert newcomer.select_slider(key="lt_step").value == 0
    assert any("the head before any training" in c.value for c in newcomer.caption)
    np.testing.assert_allclose(np.nan_to_num(table(newcomer, "lt-alpha")), head_trace(run, 0, 0, 0).weights,
                               atol=0.005 + 1e-9)
    for k in run.snapshot_steps[1:3]:
        newcomer.button(key="lt_next").click().run()
        assert newcomer.select_slider(key="lt_step").value == k and f"step {k}" in newcomer.subheader[0].value
    assert not any("the head before any training" in c.value for c in newcomer.caption)


def test_moving_the_step_moves_alpha_back_in_time():
    at = open_learn(lt_run="true")
    at.select_slider(key="lt_step").set_value(0).run()
    assert_no_exception(at)
    run = train(TrainingConfig())
    np.testing.assert_allclose(np.nan_to_num(table(at, "lt-alpha")), head_trace(run, 0, 0, 0).weights,
                               atol=0.005 + 1e-9)
    assert "step 0" in at.subheader[0].value
    at.radio(key="lt_example").set_value(3).run()
    np.testing.assert_allclose(np.nan_to_num(table(at, "lt-alpha")), head_trace(run, 0, 2, 0).weights,
                               atol=0.005 + 1e-9)


def test_a_link_opens_the_same_run_at_its_step_task_and_heads():
    at = open_learn(lt_run="true", lt_task="Find the first occurrence", lt_heads="2", lt_step="60")
    assert_no_exception(at)
    assert at.select_slider(key="lt_step").value == 60
    at.radio(key="lt_head").set_value(2).run()
    run = train(TrainingConfig(task="first", heads=2))
    snapshot = run.snapshot_steps.index(60)
    np.testing.assert_allclose(np.nan_to_num(table(at, "lt-alpha")),
                               head_trace(run, snapshot, 0, 1).weights, atol=0.005 + 1e-9)
    np.testing.assert_allclose(table(at, "lt-form"), bilinear_form(run.snapshots[snapshot], 1), atol=0.05)


def test_a_blown_up_run_says_so_and_keeps_the_page_working():
    at = open_learn(lt_run="true", lt_opt="Plain SGD", lt_lr="10.0")
    assert_no_exception(at)
    assert "blew up" in at.error[0].value and not at.success
    run = train(TrainingConfig(optimizer="sgd", learning_rate=10.0))
    assert at.select_slider(key="lt_step").options[-1] == str(run.snapshot_steps[-1])
    assert "lt-alpha" in view_panels(at)


def test_changing_heads_keeps_a_valid_head_and_a_bad_link_is_named():
    at = open_learn(lt_run="true", lt_heads="4", lt_lr="0.02")
    assert_no_exception(at)
    shown = [readable(w.value) for w in at.warning]  # Markdown escaping undone
    assert any("lt_lr=0.02” was ignored" in w for w in shown)  # not a learning rate the page offers
    at.radio(key="lt_head").set_value(4).run()
    at.select_slider(key="lt_heads").set_value(1).run()
    assert_no_exception(at)
    assert at.radio(key="lt_head").value == 1


def test_a_step_the_new_run_did_not_keep_starts_again_at_its_beginning():
    at = open_learn(lt_run="true")
    at.select_slider(key="lt_step").set_value(150).run()
    at.select_slider(key="lt_steps").set_value(100).run()  # keeps steps 0, 4, 8, …: not 150
    assert_no_exception(at)
    # a new run is watched learning from its first state, as a first run is (issue 47)
    assert at.select_slider(key="lt_step").value == 0 and "step 0" in at.subheader[0].value
    assert any("Training step 150 no longer fits" in i.value and "Training step 0 is shown instead" in i.value
               for i in at.info)
    assert not [w.value for w in at.warning if "Session State" in w.value]  # nor a warning about it
    at.select_slider(key="lt_step").set_value(0).run()
    at.select_slider(key="lt_steps").set_value(300).run()  # step 0 is kept by every run: it stays
    assert at.select_slider(key="lt_step").value == 0


def test_the_head_opens_in_the_walkthroughs_steps_with_its_learned_matrices():
    run = train(TrainingConfig(task="lookup"))
    at = open_learn(lt_run="true", lt_task="Look up a value (a tiny phonebook)", lt_step=str(run.snapshot_steps[-1]))
    at.session_state["lt-steps"] = True  # open the expander
    at.run()
    trace = head_trace(run, len(run.snapshots) - 1, 0, 0)
    assert any("are **learned**" in m.value for m in at.markdown)  # step 3's text for a trained head
    assert not any("seeded random" in m.value for m in at.markdown)
    np.testing.assert_allclose(table(at, "lt-head-w_q"), trace.w_q, atol=0.005 + 1e-9)
    at.selectbox(key="lt_head_step").set_value(7).run()
    assert_no_exception(at)
    np.testing.assert_allclose(np.nan_to_num(table(at, "lt-head-weights")), trace.weights,
                               atol=0.005 + 1e-9)


def test_every_step_of_the_trained_head_renders():
    at = open_learn(lt_run="true", lt_task="Look up a value (a tiny phonebook)", lt_heads="4")
    at.session_state["lt-steps"] = True
    at.run()
    for step in range(3, 9):
        at.selectbox(key="lt_head_step").set_value(step).run()
        assert_no_exception(at)


def test_a_run_another_session_is_training_is_waited_for_not_trained_again(monkeypatch):
    """Class mode opens the teacher's link in every student's page at once: five sessions asking for one
    run while it trains get the one run, trained once; one student's Cancel does not stop it for the others,
    and it is kept for the next session."""
    import threading

    import ui.training as U

    config = TrainingConfig(task="first", seed=913)  # a run no other test keeps in the shared store
    trained = []
    release = threading.Event()

    def slow_train(config, on_progress=None):
        trained.append(config)
        release.wait(30)
        on_progress(config.steps)  # a report after a Cancel: stops the run only if nobody waits
        return object()

    monkeypatch.setattr(U, "train", slow_train)
    jobs = [U.training_job(config, who=f"student {k}") for k in range(5)]
    assert all(job is jobs[0] for job in jobs)
    assert U.finished_run(config) is None  # still training
    U.background.withdraw(("train", config), who="student 0")
    release.set()
    run = jobs[0].future.result(timeout=60)
    assert trained == [config] and not jobs[0].failed
    assert U.finished_run(config) is run and U.training_job(config, who="late").future.result() is run


def test_a_training_nobody_waits_for_any_more_stops_at_its_next_report(monkeypatch):
    """Cancel (the only session waiting withdraws): the run stops at its next saved state and is not kept."""
    import threading

    import ui.training as U

    config = TrainingConfig(task="first", seed=914)
    reported, release = threading.Event(), threading.Event()

    def endless_train(config, on_progress=None):
        step = 0
        while True:
            on_progress(step)
            reported.set()
            step += 1
            release.wait(0.001)

    monkeypatch.setattr(U, "train", endless_train)
    job = U.training_job(config, who="alone")
    assert reported.wait(60)
    U.background.withdraw(("train", config), who="alone")
    with pytest.raises(U.background.Cancelled):
        job.future.result(timeout=60)
    assert job.failed and U.finished_run(config) is None


def test_a_trainings_progress_is_the_share_of_its_steps_trained():
    """The bar's "% of the work done" while a head trains is step / steps at each saved state, and the whole at the
    end (the real training of 50 steps, every report recorded)."""
    import threading

    import ui.training as U

    config = TrainingConfig(task="first", steps=50, seed=915)
    release = threading.Event()
    U.background.start(("test", "the worker busy"), lambda job: release.wait(60), who="test")  # one worker: the
    job = U.training_job(config, who="alone")  # training waits until it is released, and is watched from its start
    reports: list[float] = []
    progress = job.progress
    job.progress = lambda done: reports.append(done) or progress(done)
    release.set()
    run = job.future.result(timeout=120)
    assert reports == [0.0] + [step / config.steps for step in run.snapshot_steps] and reports[-1] == 1.0
