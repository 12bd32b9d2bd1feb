"""Builders for class mode: a question as stored, the class's answers as a tally, a spread and a CSV.
Pure functions: answers in, tables, charts and sentences out (text from students is data: escaped)."""

from __future__ import annotations

import statistics

import pandas as pd

from viz import svg
from viz.exercises import Question
from viz.exports import to_csv
from viz.labels import markdown_text

BAR = "#0072b2"  # Okabe–Ito blue
RIGHT = "#009e73"  # Okabe–Ito bluish green: the right answer, after the reveal


def question_record(q: Question) -> dict:
    """A generated question as the class stores it (JSON)."""
    return {"key": q.key, "prompt": q.prompt, "options": list(q.options), "answer": q.answer, "also": list(q.also),
            "explanation": q.explanation, "low": q.low, "high": q.high}


def is_right(question: dict, answer: str) -> bool:
    """As the lessons' exercises judge it: a chosen key (or an exactly tied one), or a number to two decimals."""
    q = Question(question.get("key", ""), question["prompt"], tuple(question["options"]), question["answer"],
                 question.get("explanation", ""), tuple(question.get("also", ())), low=question.get("low"),
                 high=question.get("high"))
    return q.is_correct(answer if q.options else float(answer))


def tally_frame(question: dict, answers: list[str], revealed: bool) -> pd.DataFrame:
    """How many chose each option (and, after the reveal, which is right)."""
    counts = [sum(a == option for a in answers) for option in question["options"]]
    frame = pd.DataFrame({"answer": question["options"], "students": counts})
    if revealed:
        frame["right"] = ["✓" if is_right(question, o) else "" for o in question["options"]]
    return frame.set_index("answer")


def tally_figure(question: dict, answers: list[str], revealed: bool) -> svg.Svg:
    frame = tally_frame(question, answers, revealed)
    counts = list(frame["students"])
    colours = [RIGHT if revealed and is_right(question, o) else BAR for o in frame.index]
    top = max([*counts, 1])
    return svg.bars(list(frame.index), [svg.Series("answers", counts, colours, [str(c) for c in counts])],
                    title=f"The class's answers ({len(answers)})", x_title="answer", y_title="students",
                    y_range=(0, top * 1.15))


def spread_text(question: dict, answers: list[str], revealed: bool) -> str:
    """Markdown: a number question's guesses (the true value only after the reveal)."""
    if not answers:
        return "No guesses yet."
    values = sorted(float(a) for a in answers)
    said = (f"{len(values)} guesses: from {values[0]:.2f} to {values[-1]:.2f}, median "
            f"{statistics.median(values):.2f}.")
    if revealed:
        right = sum(is_right(question, a) for a in answers)
        said += f" The true value is **{float(question['answer']):.2f}**; {right} of {len(values)} are within 0.005."
    return said


def right_text(question: dict, answers: list[str]) -> str:
    """Markdown after the reveal: the answer, the share of the class that was right, why."""
    right = sum(is_right(question, a) for a in answers)
    share = f"{right} of {len(answers)} ({100 * right / len(answers):.0f} %)" if answers else "nobody answered"
    answer = question["answer"] if question["options"] else f"{float(question['answer']):.2f}"
    return (f"**Answer: {markdown_text(str(answer))}**. Right: {share}. "
            f"{markdown_text(question.get('explanation', ''))}")


def answers_csv(rows: list[tuple[int, str, str]], questions: dict[int, dict]) -> str:
    """The class's pooled answers, a row each (question number, its prompt, nickname, answer, right),
    spreadsheet-safe: a nickname "=HYPERLINK(…)" stays text."""
    frame = pd.DataFrame([{"question": n, "prompt": questions.get(n, {}).get("prompt", ""), "nickname": name,
                           "answer": answer, "right": (is_right(questions[n], answer) if n in questions else "")}
                          for n, name, answer in rows],
                         columns=["question", "prompt", "nickname", "answer", "right"])
    return to_csv(frame.set_index("question"))
