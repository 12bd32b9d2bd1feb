"""Builders for class mode: a question as stored, the class's answers as a tally, a spread, the roster, the
history and the export. Pure functions: answers in, tables, charts and sentences out (text from students is
data: escaped)."""

from __future__ import annotations

import re
import statistics
import time
from datetime import datetime
from fractions import Fraction
from typing import NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from viz import svg
from viz.arithmetic import text
from viz.exercises import Question, Shown
from viz.exports import to_csv
from viz.i18n import N_, decimal, language, nt, percent, sentences, t
from viz.labels import markdown_text
from viz.tables import markdown_table

BAR = "#0072b2"  # Okabe–Ito blue
RIGHT = "#009e73"  # Okabe–Ito bluish green: the right answer, after the reveal
REST = "#999999"  # grey: the options folded into one row of the projector's chart, together
NUMBER = re.compile(r"\s*([+\-−]?)(\d{0,6})(?:[.,](\d{0,6}))?\s*")  # "0.3", "0,3" (a comma decimal), ".3", "1"


def question_record(q: Question, translations: dict[str, Question] | None = None) -> dict:
    """A generated question as the class stores it (JSON): in English, and, under "texts", as each language in
    ``translations`` writes it (the same question built in that language: its prompt, explanation, options as shown
    and its numbers' title), so that each student reads it in their own language (``in_language``)."""
    record = _record(q)
    texts = {}
    for lang, other in (translations or {}).items():
        text = {"prompt": other.prompt, "explanation": other.explanation}
        if other.options != q.options and len(other.options) == len(q.options) and \
                other.options.index(other.answer) == q.options.index(q.answer):  # the same options in the same places
            text["labels"] = list(other.options)
        if other.shown is not None:
            text["shown"] = other.shown.title
        texts[lang] = text
    if texts:
        record["texts"] = texts
    return record


def in_language(question: dict) -> dict:
    """A stored question as the running language reads it: its prompt, explanation (when the reader may see it),
    numbers' title and options' labels from its "texts" in that language, else as stored (English, or a record
    stored before questions carried translations). Its options, answers and key stay as stored: an answer is the
    option as stored, whatever the language it was chosen in. A record is data from anyone: a part that is not
    well formed is left out."""
    text = question.get("texts", {}) if isinstance(question.get("texts"), dict) else {}
    text = text.get(language())
    if not isinstance(text, dict):
        return question
    read = dict(question)
    for key in ("prompt", "explanation"):
        if isinstance(text.get(key), str) and key in question:  # a student's copy holds no explanation until the reveal
            read[key] = text[key]
    labels = text.get("labels")
    if isinstance(labels, list) and all(isinstance(o, str) for o in labels) and \
            isinstance(question.get("options"), list) and len(labels) == len(question["options"]):
        read["labels"] = labels
    if isinstance(text.get("shown"), str) and isinstance(question.get("shown"), dict):
        read["shown"] = {**question["shown"], "title": text["shown"]}
    return read


def label_of(question: dict, option: str) -> str:
    """An option as the reader's language shows it (``in_language``'s labels), else as stored."""
    labels, options = question.get("labels"), question.get("options") or []
    return labels[options.index(option)] if labels and option in options else option


def _record(q: Question) -> dict:
    return {"key": q.key, "prompt": q.prompt, "options": list(q.options), "answer": q.answer, "also": list(q.also),
            "explanation": q.explanation, "low": q.low, "high": q.high, "step": q.step,
            "shown": None if q.shown is None else {"title": q.shown.title, "row": q.shown.row,
                                                   "columns": list(q.shown.columns), "values": list(q.shown.values)}}


def ask_list(questions: list[dict], step: int | None, every: bool = False) -> tuple[list[int], int, str]:
    """The teacher's "Ask the class" list on a lesson whose open step is ``step`` (None: a page without steps, or all
    steps on one page): the questions it offers (their indices), the one it opens on, and a line above it.

    The open step's questions when it has some (``every``: all of the lesson's, still opening on the step's first);
    when it has none, every step's, opening on the latest step before it that has some (its numbers were shown), else
    on the first."""
    everything = list(range(len(questions)))
    here = [k for k in everything if step_of(questions[k]) == step] if step is not None else []
    if step is None:
        return everything, 0, ""
    if here:
        return (everything if every else here), here[0], ""
    earlier = [k for k in everything if 0 < step_of(questions[k]) < step]
    latest = max((step_of(questions[k]) for k in earlier), default=None)
    opens = next((k for k in earlier if step_of(questions[k]) == latest), 0)
    return everything, opens, t("Step {step} asks no question of its own; these are the lesson's other steps'.",
                                step=step)


def stored_questions(state: object) -> tuple[int, list[dict], int | None]:
    """What a class's stored state (data from anyone: read from the database) offers the teacher's desk: how many of
    its questions an earlier version of the app stored (readable, without their step or numbers: the desk asks
    for the lesson to store them again), those that can be offered as they are (``current``), and the step its
    lesson had open (None when it is not a whole step number: a page without steps, all steps on one page, or a
    record that is not well formed). Records that are not questions at all are neither."""
    stored = state.get("questions") if isinstance(state, dict) else None
    stored = stored if isinstance(stored, list) else []
    step = state.get("open_step") if isinstance(state, dict) else None
    step = step if isinstance(step, int) and not isinstance(step, bool) and 0 < step < 100 else None
    records = [q for q in stored if isinstance(q, dict) and isinstance(q.get("prompt"), str)]
    offered = [q for q in records if current(q)]
    return len(records) - len(offered), offered, step


def step_of(question: dict) -> int:
    """The walkthrough step a stored question belongs to (0: any, or a record without one)."""
    step = question.get("step")
    return step if isinstance(step, int) and not isinstance(step, bool) else 0


def ask_label(question: dict, several_steps: bool) -> str:
    """A question as the teacher's list shows it: whole (its step first when the list spans several steps)."""
    step, prompt = step_of(question), in_language(question)["prompt"]
    return t("Step {step}: {question}", step=step, question=prompt) if several_steps and step else prompt


def shown_of(question: dict) -> Shown | None:
    """The numbers a stored question asks about (``Question.shown``, as the lesson's table showed them when it was
    asked), or None: a question without them (its prompt holds its numbers), or a record that is not well formed
    (a stored question is read as data from anyone)."""
    shown = question.get("shown")
    if not isinstance(shown, dict):
        return None
    title, row, columns, values = (shown.get(k) for k in ("title", "row", "columns", "values"))
    texts = [title, row, *(columns if isinstance(columns, list) else [None]),
             *(values if isinstance(values, list) else [None])]
    if not all(isinstance(t, str) for t in texts) or len(columns) != len(values) or not columns:
        return None
    return Shown(title, row, tuple(columns), tuple(values))


NEEDS_NUMBERS = ("-most", "-alpha", "-value")  # keys of questions about a row of a table


def needs_numbers(question: dict) -> bool:
    """Whether a stored question asks about numbers its prompt does not hold (a row of Z or α)."""
    return str(question.get("key", "")).endswith(NEEDS_NUMBERS)


def current(question: dict) -> bool:
    """Whether a stored question can be offered as it is: it was stored with its step and its numbers (a record
    written before issue 47's change has neither: the desk would say "Step 6 asks no question of its own" beside
    step 6's questions, and ask "From row 1 of Z …" without row 1 of Z), and its numbers are well formed when it
    needs some. A record whose key, prompt or options are not text (none a lesson wrote) is not offered: the
    teacher's list is keyed by the key and shows the prompt."""
    readable = all(isinstance(question.get(k), str) for k in ("key", "prompt")) and \
        isinstance(question.get("options"), list) and all(isinstance(o, str) for o in question["options"])
    with_step = step_of(question) > 0 or question.get("step") == 0
    return readable and with_step and "shown" in question and \
        (shown_of(question) is not None or not needs_numbers(question))


def shown_for(question: dict, stored: object) -> Shown | None:
    """The numbers to show under an asked question: its own; else, for a question asked before questions carried
    them, those of the class's lesson's question with the same key (the same lesson state gives the same key and the
    same numbers: ``viz.exercises.lesson_id``), once the lesson's page has stored its questions again."""
    shown = shown_of(question)
    if shown is not None or not needs_numbers(question) or not isinstance(stored, list):
        return shown
    same = (q for q in stored if isinstance(q, dict) and q.get("key") == question.get("key") and current(q))
    return next((shown_of(q) for q in same), None)


def numbers_table(shown: Shown) -> str:
    """Markdown: the numbers as one row of the lesson's table (the query's label, then a cell a key; escaped)."""
    frame = pd.DataFrame([list(shown.values)], index=pd.Index([shown.row], name=t("query")),
                         columns=list(shown.columns))
    return markdown_table(frame, decimals=None)


def parse_number(text: str) -> str | None:
    """A number answer as typed on a phone or a laptop, as the class stores it: "0,3" and "0.3" are 0.3 (a comma
    is a decimal comma: many keyboards write one), ".25" is 0.25; the digits as typed, never rounded; None for
    anything else."""
    found = NUMBER.fullmatch(text or "")
    if found is None or not (found[2] or found[3]):
        return None
    whole, part = (found[2] or "0").lstrip("0") or "0", (found[3] or "").rstrip("0")
    sign = "-" if found[1] in ("-", "−") and (whole != "0" or part) else ""
    return f"{sign}{whole}.{part}" if part else f"{sign}{whole}"


def in_range(question: dict, answer: str) -> bool:
    """Whether a number answer is one the question can take: an α is between 0 and 1."""
    try:
        value = float(answer)
    except ValueError:
        return False
    return 0.0 <= value <= 1.0 if not question.get("options") else True  # every number question asks for an α


def two_decimals(answer: str) -> bool:
    """Whether a parsed number answer (``parse_number``) has at most two decimals, as the question asks for: the
    form refuses one with more (0.115 was received, then revealed as "not right" under "anything from 0.11 to 0.12
    counts")."""
    return "." not in answer or len(answer.split(".", 1)[1]) <= 2


def is_right(question: dict, answer: str) -> bool:
    """As the lessons' exercises judge it: a chosen key (or an exactly tied one), or a number to two decimals
    that the question's range accepts (its explanation's "only A counts" / "an answer from A to B counts"). The
    box asks for two decimals and keeps the digits as typed: a number with more (0.234) is none of the answers
    that count, so it is not right (the lessons' own box takes two decimals only)."""
    q = _question(question)
    if q.options:
        return q.is_correct(answer)
    try:
        typed = Fraction(answer)
    except (ValueError, ZeroDivisionError):
        return False
    return (typed * 100).denominator == 1 and q.is_correct(float(answer))


def _question(question: dict) -> Question:
    """A stored question (JSON) as the lessons' exercises hold it."""
    return Question(question.get("key", ""), question["prompt"], tuple(question["options"]), question["answer"],
                    question.get("explanation", ""), tuple(question.get("also", ())), low=question.get("low"),
                    high=question.get("high"))


def answer_text(question: dict) -> str:
    """The right answer as the class is told it: an option, or a number (and the answers at two decimals that
    count, when rounded scores let more than one count)."""
    if question["options"]:
        return label_of(question, str(question["answer"]))
    first, last = _question(question).counted()
    answer = decimal(f"{float(question['answer']):.2f}")
    if first != last:
        return t("{answer} (anything from {first} to {last} counts)", answer=answer, first=first, last=last)
    return answer


def tally(question: dict, answers: list[str]) -> list[int]:
    """How many chose each option, in the question's order."""
    return [sum(a == option for a in answers) for option in question["options"]]


def tally_frame(question: dict, answers: list[str], revealed: bool) -> pd.DataFrame:
    """How many chose each option (and, after the reveal, which is right)."""
    frame = pd.DataFrame({t("answer"): [label_of(question, o) for o in question["options"]],
                          t("students"): tally(question, answers)})
    if revealed:
        frame[t("right")] = ["✓" if is_right(question, o) else "" for o in question["options"]]
    return frame.set_index(t("answer"))


def tally_figure(question: dict, answers: list[str], revealed: bool) -> svg.Svg:
    options, counts = question["options"], tally(question, answers)
    colours = [RIGHT if revealed and is_right(question, o) else BAR for o in options]
    top = max([*counts, 1])
    return svg.bars([label_of(question, o) for o in options],
                    [svg.Series("answers", counts, colours, [str(c) for c in counts])],
                    title=t("The class's answers ({count})", count=len(answers)), x_title=t("answer"),
                    y_title=t("students"),
                    y_range=(0, top * 1.15), whole=True)


PROJECTOR_SIZE = 28  # px: the projector chart's labels (the room's back row reads them)
PROJECTOR_WIDTH = 1100  # px: the projector chart's width (a 1280 px projector's page), wider only for long names
PROJECTOR_ROWS = 8  # rows at most (8 × 56 px + the title: 529 px, in a 1280 × 720 projector's screen)


class ProjectorRow(NamedTuple):
    """A row of the projector's chart: one option by name, or several folded into one (``folded`` of them)."""

    name: str
    count: int  # its answers (a folded row's: theirs together)
    right: bool  # right, once revealed (a folded row: all of its options are)
    folded: int = 0  # how many options the row holds when folded (0: one option, named)


def projector_rows(question: dict, answers: list[str], revealed: bool) -> list[ProjectorRow]:
    """The projector chart's rows, ``PROJECTOR_ROWS`` at most (issue 47: a "which key" question on 64 tokens drew 64
    rows, 3,666 px). Every option while they fit; else the options someone chose, the most chosen first while there
    is room, in the question's order, and the rest folded by kind, each row with their answers together: after the
    reveal "✓ 55 other right options" and "6 other options" (a word repeated ties many right keys), before it one
    row (keeping right options apart would give the answer away). A kind with one option left shows it by name."""
    rows = [ProjectorRow(label_of(question, str(o)), int(c), bool(revealed and is_right(question, o)))
            for o, c in zip(question["options"], tally(question, answers), strict=True)]
    if len(rows) <= PROJECTOR_ROWS:
        return rows

    def rest(kept: set[int]) -> list[ProjectorRow]:
        left = [k for k in range(len(rows)) if k not in kept]
        out = []
        for right in (True, False):
            kind = [k for k in left if rows[k].right == right]
            if len(kind) == 1:
                out.append(rows[kind[0]])
            elif kind:
                n = len(kind)
                if right:  # "other" beside right options shown by name
                    name = nt("{n} other right option", "{n} other right options", n) if any(
                        rows[j].right for j in kept) else nt("{n} right option", "{n} right options", n)
                else:
                    name = nt("{n} other option", "{n} other options", n) if kept or out else \
                        nt("all {n} option", "all {n} options", n)
                out.append(ProjectorRow(name, sum(rows[k].count for k in kind), right, len(kind)))
        return out

    kept: set[int] = set()
    for k in sorted((k for k, r in enumerate(rows) if r.count > 0), key=lambda k: -rows[k].count):
        if len(kept) + 1 + len(rest(kept | {k})) > PROJECTOR_ROWS:
            break
        kept.add(k)
    return [rows[k] for k in sorted(kept)] + rest(kept)


def projector_tally_figure(question: dict, answers: list[str], revealed: bool) -> svg.Svg:
    """The projector's chart of the class's answers: a row an option, its whole text at the left, large; after the
    reveal, a right option is marked "✓" as well as coloured (colour is never the only sign). Many options are
    folded (``projector_rows``): a folded row's count is theirs together ("20 answers"), in grey unless right."""
    rows = projector_rows(question, answers, revealed)
    colours = [RIGHT if r.right else (REST if r.folded else BAR) for r in rows]
    labels = [nt("{n} answer", "{n} answers", r.count) if r.folded else str(r.count) for r in rows]
    return svg.rows_of_bars([("✓ " if r.right else "") + r.name for r in rows], [r.count for r in rows], colours,
                            labels, title=t("The class's answers ({count})", count=len(answers)),
                            value_title=t("students"),
                            size=PROJECTOR_SIZE, width=PROJECTOR_WIDTH)


def guess_text(value: str) -> str:
    """A guess as the class's spread writes it: at two decimals at least, as the question asks for them and the
    answer is written ("0.5" is stored for a typed "0.50": "from 0.25 to 0.5, median 0.375" mixed precisions, the
    audit); never rounded (a guess stored with more decimals keeps them)."""
    whole, _, part = value.partition(".")
    return f"{whole}.{part.ljust(2, '0')}"


def median_text(values: list[str]) -> str:
    """The median of the answers as typed (up to six decimals), exactly: with as many decimals as the longest answer
    (two at least), one more when it falls halfway between two (the issue 44 audit: one guess of 0.123456 had
    "median 0.123", below the lowest guess)."""
    median = statistics.median(Fraction(v) for v in values)
    places = max(2, *(len(v.partition(".")[2]) for v in values))
    return f"{float(median):.{places}f}" if (median * 10**places).denominator == 1 else \
        f"{float(median):.{places + 1}f}"


def share_text(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a whole percent, rounded as every number on screen is (half away from zero): "0 %"
    and "100 %" only when it is none or all ("< 1 %", "> 99 %" between: 1 of 201 is not 0 %)."""
    if part in (0, whole):
        return percent("0" if part == 0 else "100")
    shown = text(100 * part / whole, 0)
    return percent("< 1") if shown == "0" else percent("> 99") if shown == "100" else percent(shown)


def spread_text(question: dict, answers: list[str], revealed: bool) -> str:
    """Markdown: a number question's guesses (the true value only after the reveal)."""
    if not answers:
        return t("No guesses yet.")
    values = sorted(answers, key=float)
    if float(values[0]) == float(values[-1]):  # one number, not a range from it to itself
        said = nt("{n} guess: {value}.", "{n} guesses, all {value}.", len(values), value=decimal(guess_text(values[0])))
    else:  # two guesses at least
        said = t("{n} guesses: from {low} to {high}, median {median}.", n=len(values),
                 low=decimal(guess_text(values[0])), high=decimal(guess_text(values[-1])),
                 median=decimal(median_text(values)))
    if revealed:
        right = sum(is_right(question, a) for a in answers)
        said = sentences(said, t("The answer is **{answer}**; right: {right} of {n}.", answer=answer_text(question),
                                 right=right, n=len(values)))
    return said


def right_text(question: dict, answers: list[str]) -> str:
    """Markdown after the reveal: the answer, the share of the class that was right, why."""
    right = sum(is_right(question, a) for a in answers)
    share = (t("{right} of {n} ({share})", right=right, n=len(answers), share=share_text(right, len(answers)))
             if answers else t("nobody answered"))
    return sentences(t("**Answer: {answer}**. Right: {share}.", answer=markdown_text(answer_text(question)),
                       share=share), markdown_text(question.get("explanation", "")))


def class_result_text(question: dict, answers: list[str], joined: int) -> str:
    """Markdown on each student's own device after the reveal (issue 44: the class's result was drawn only on the
    projector and the teacher's desk): how many answered, how many were right, and what the class answered, as the
    projector's chart has it (an option's count, right ones marked ✓, many options folded), or a number question's
    spread."""
    if not answers:
        return nt("**The class:** nobody answered, of {n} student.", "**The class:** nobody answered, of {n} students.",
                  joined)
    right = sum(is_right(question, a) for a in answers)
    said = nt("**The class:** {answered} of {n} student answered; {right} of {answered} ({share}) right.",
              "**The class:** {answered} of {n} students answered; {right} of {answered} ({share}) right.", joined,
              answered=len(answers), right=right, share=share_text(right, len(answers)))
    if question["options"]:
        rows = [r for r in projector_rows(question, answers, True) if r.count or r.right]
        counted = []
        for r in rows:
            mark, option = "✓ " if r.right else "", markdown_text(r.name)
            counted.append(t("{mark}{option}: {count} together", mark=mark, option=option, count=r.count) if r.folded
                           else f"{mark}{option}: {r.count}")
        said = sentences(said, t("Answers: {answers}.", answers=", ".join(counted)))
    else:
        values = sorted(answers, key=float)
        if float(values[0]) == float(values[-1]):  # "Guesses from 0.33 to 0.33, median 0.33" said one thing thrice
            said = sentences(said, nt("The guess: {value}.", "Every guess: {value}.", len(values),
                                      value=decimal(guess_text(values[0]))))
        else:
            said = sentences(said, t("Guesses from {low} to {high}, median {median}.",
                                     low=decimal(guess_text(values[0])), high=decimal(guess_text(values[-1])),
                                     median=decimal(median_text(values))))
    return said


def revealed_said(question: dict, number: int, mine: str | None) -> str:
    """Plain text a student's screen reader says once when the answer of question ``number`` is revealed (issue 44:
    the box's text changes above where the reader is): the answer, and whether the student's own ``mine`` (None:
    no answer) was right. The class's counts stay in the box, read when the student goes there."""
    said = t("Question {number}: the answer is {answer}.", number=number, answer=answer_text(question))
    if mine is None:
        return sentences(said, t("You did not answer it."))
    shown = label_of(question, mine) if question["options"] else decimal(mine)  # a number in the reader's writing
    if not is_right(question, mine):
        return sentences(said, t("You said {answer}: not right.", answer=shown))
    # a tied option counts as well (the box's explanation says why): "right" after another answer misled
    also = question["options"] and mine != str(question["answer"])
    return sentences(said, t("You said {answer}: right too, it counts as well.", answer=shown) if also else
                     t("You said {answer}: right.", answer=shown))


def clock(at: float, zone: str | None = None, form: str = "%H:%M:%S") -> str:
    """A time of day as the teacher reads it: in ``zone`` (the teacher's browser's, an IANA name such as
    "Europe/Paris"), else the server's (a deployment's server runs on UTC: a teacher in Paris read 10:00 at 11:00,
    the audit)."""
    try:
        return datetime.fromtimestamp(at, ZoneInfo(zone)).strftime(form) if zone else time.strftime(form,
                                                                                                   time.localtime(at))
    except (ZoneInfoNotFoundError, ValueError, OSError):  # a name no zone has ("America", 300 characters): the server's
        return time.strftime(form, time.localtime(at))


def roster_frame(students, zone: str | None = None) -> pd.DataFrame:
    """The class's students: nickname (or "—" for none), when they joined, whether they answered the open
    question (``ClassStore.roster``'s Students)."""
    return pd.DataFrame({t("nickname"): [s.nickname or "—" for s in students],
                         t("joined"): [clock(s.joined, zone) if s.joined else "" for s in students],
                         t("answered"): ["✓" if s.answered else "" for s in students],
                         t("more time"): [extra_label(s.extra) if s.extra else "" for s in students]},
                        index=pd.RangeIndex(1, len(students) + 1, name=t("student")))


def extra_label(seconds: float) -> str:
    """A student's extra time as the teacher chooses and reads it: "+60 s", or "none"."""
    return t("+{seconds} s", seconds=f"{seconds:.0f}") if seconds else t("none")


def student_label(student, number: int, zone: str | None = None) -> str:
    """A student as the teacher picks them from a list: their number in the roster's table (which tells two of one
    nickname apart, two who joined in the same second too), the nickname (or "no nickname") and when they joined
    (a roster's Student, the ``number``-th)."""
    return t("#{number} · {nickname}, joined {time}", number=number, nickname=student.nickname or t("(no nickname)"),
             time=clock(student.joined, zone))


def history_frame(questions: dict[int, dict], answers, zone: str | None = None) -> pd.DataFrame:
    """Every question asked, with how many answered and how many were right (the store's Answers)."""
    rows = []
    for number, q in questions.items():
        given = [a.answer for a in answers if a.question_no == number]
        right = sum(is_right(q, a) for a in given)
        # the share as the class's result writes it (half away from zero: ":.0f" wrote 1 of 8 as 12 %, that 13 %)
        rows.append({t("asked"): clock(q.get("asked", 0), zone) if q.get("asked") else "",
                     t("question"): in_language(q)["prompt"],
                     t("answers"): len(given),
                     t("right"): t("{right} ({share})", right=right, share=share_text(right, len(given)))
                     if given else "–"})
    return pd.DataFrame(rows, index=pd.Index(list(questions), name=t("no.")),
                        columns=[t("asked"), t("question"), t("answers"), t("right")])


EXPORT_COLUMNS = (N_("question"), N_("asked"), N_("prompt"), N_("right answer"), N_("nickname"), N_("student"),
                  N_("answer"), N_("answered"), N_("right"), N_("student's total right"))  # the export's, in order


def answers_csv(answers, questions: dict[int, dict], students, zone: str | None = None) -> str:
    """The class's export, a row for every question and every student (also those who did not answer): when the
    question was asked, its prompt and right answer, the student's nickname and a short id (two students may
    share a nickname), their answer and when, whether it was right, and the student's total right; spreadsheet-
    safe (a nickname "=HYPERLINK(…)" stays text)."""
    given = {(a.question_no, a.student): a for a in answers}
    totals = {s.id: sum(is_right(questions[a.question_no], a.answer) for a in answers
                        if a.student == s.id and a.question_no in questions) for s in students}
    rows = []
    for number, q in questions.items():
        for s in students:
            a = given.get((number, s.id))
            read = in_language(q)
            said = "" if a is None else label_of(read, a.answer) if read["options"] else decimal(a.answer)
            rows.append([number, _stamp(q.get("asked"), zone), read["prompt"], answer_text(read), s.nickname,
                         s.id[:8], said, _stamp(a.at, zone) if a else "",
                         (t("yes") if is_right(q, a.answer) else t("no")) if a else t("no answer"),
                         totals.get(s.id, 0)])
    columns = [t(name) for name in EXPORT_COLUMNS]
    return to_csv(pd.DataFrame(rows, columns=columns).set_index(columns[0]))



def _stamp(at: float | None, zone: str | None = None) -> str:
    return clock(at, zone, "%Y-%m-%d %H:%M:%S") if at else ""
