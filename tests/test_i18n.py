"""Issue 45's foundation: a session's language (never the process's), the catalogs, numbers as a language writes
them, the language in the link, and the pseudo-language that finds text which did not pass through a catalog."""

from __future__ import annotations

import re
import threading
import tomllib
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from tests.driving import open_app
from ui.classmode import lesson_state
from ui.i18n import OFFERED
from ui.links import SETTINGS, check_link
from ui.navigation import PAGES, url_path
from viz import i18n
from viz.labels import format_number

ROOT = Path(__file__).resolve().parents[1]
FIELD = re.compile(r"\{[^{}]*\}")
# a translation may be the English text: a name of the maths written as the formulas write it; a word French shares
SAME_AS_ENGLISH = {(lang, message) for lang in ("es", "fr", "zh") for message in ("d_model", "d_model {d_model}")}
SAME_AS_ENGLISH |= {("fr", "Question {number}"), ("fr", "question"), ("es", "no"), ("es", "{right} ({share})"),
                    ("fr", "{right} ({share})"), ("zh", "“{option}”"), ("zh", "“{token}”"),
                    ("zh", "{weight}·k(“{token}”)"),
                    ("zh", "“{key}” {value}"), ("fr", "Pause"), ("fr", "dimension")}
SAME_AS_ENGLISH |= {(lang, message) for lang in ("es", "fr", "zh")  # maths, or a name and a label, only
                    for message in ("{name} = q·k = {written}{rel}{value}", "{kind} {label}",
                                    "d_k {d_k} · W_Q, W_K, W_V: {how}")}
# joining punctuation: Spanish writes it as English does; French spaces its colon, Chinese writes "：" and "。"
SAME_AS_ENGLISH |= {("es", "{axis}: {labels}"), ("es", "{title}: {picture}"), ("es", "{lesson}: {sentence}"),
                    ("es", "{name}: {values}."), ("es", "{answers}."), ("fr", "{answers}.")}
SAME_AS_ENGLISH |= {(lang, "id") for lang in ("es", "fr", "zh")}  # a token's id in the vocabulary
SAME_AS_ENGLISH |= {(lang, "Adam") for lang in ("es", "fr", "zh")}  # an optimiser's name
SAME_AS_ENGLISH |= {("es", "{marked}: {tiles}."), ("es", "{joined}; {alone}."), ("fr", "token ↓ · dimension →")}
SAME_AS_ENGLISH |= {("es", "{doing}… {share} ({seconds} s)"), ("fr", "{doing}… {share} ({seconds} s)"),
                    ("es", "{strategy}: {share}")}  # a progress bar's line; a name and its number
SAME_AS_ENGLISH |= {("es", "{measure}, {side}"), ("fr", "{measure}, {side}"), ("es", "{box}: {why}"),
                    ("fr", "q·k (variance {variance})"), ("fr", "q·k / √d_k (variance {variance})"),
                    ("fr", "K (source)"), ("fr", "V (source)"), ("fr", "Source"), ("fr", "score")}
SAME_AS_ENGLISH |= {("fr", "dimensions"), ("fr", "position i"), ("fr", "scores S = Q·Kᵀ"), ("fr", "figure"),
                    ("fr", "score q·k")}
SAME_AS_ENGLISH |= {("es", "Tokens"), ("fr", "Tokens"), ("fr", "Scores Q·Kᵀ"),
                    ("fr", "Scores q·Kᵀ"), ("es", "Embeddings X"), ("fr", "Embeddings X"), ("es", "token"),
                    ("fr", "token"), ("zh", "token"), ("fr", "position")}  # words shared with English
# the shared sidebar's controls, on every page
SIDEBAR_KEYS = ("sentence", "seed", "new_seed", "d_model", "positional", "causal")


def code_messages() -> set[str]:
    """Every message the code names: the first argument of each ``t("…")`` and ``N_("…")`` (Babel's extractor)."""
    found = set()
    for folder in ("attention", "viz", "ui", "lessons", "classmode"):
        for _, _, message, _, _ in extract_from_dir(ROOT / folder, keywords={"t": None, "N_": None, "ClassError": None,
                                                                      "sentence": None,
                                                                      "named": None, "nt": (1, 2)},
                                                    comment_tags=()):
            found.add(message)  # a plural message: (singular, plural)
    return found


def fields(text: str) -> set[str]:
    return set(FIELD.findall(text))


def test_no_message_is_named_inside_an_f_string():
    """Babel's extractor reads a Python 3.11 f-string as one string: a ``t("…")`` inside one is never checked against
    the catalogs (the projector's "Join: {code}" showed in English in every language, found by the native read)."""
    import tokenize

    inside = re.compile(r"\b(?:n?t|N_)\(")
    found = []
    for folder in ("attention", "viz", "ui", "lessons", "classmode"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            with path.open("rb") as source:
                for token in tokenize.tokenize(source.readline):
                    prefix = re.match(r"[A-Za-z]*", token.string)[0].lower()
                    if token.type == tokenize.STRING and "f" in prefix and inside.search(token.string):
                        found.append(f"{path.relative_to(ROOT)}:{token.start[0]}")
    assert not found, found


def test_the_code_names_the_sidebars_messages():
    """The extractor the catalog tests rely on sees the code's messages (a test that finds none would pass all)."""
    messages = code_messages()
    assert {"Seed", "New random seed", "the causal mask"} <= messages and len(messages) >= 20


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH])
def test_every_catalog_holds_every_message_the_code_names_with_the_same_fields_and_no_other(language):
    """A catalog per language, each as complete as English: a message the code adds without its translations fails
    here, and so does a translation that drops or renames a {field} (its str.format would raise, or say less)."""
    catalog = i18n.catalog(language)
    everything = code_messages()
    messages = {m for m in everything if isinstance(m, str)}
    assert not messages - set(catalog), f"{language}.po lacks {sorted(messages - set(catalog))}"
    assert not set(catalog) - messages, f"{language}.po holds messages the code no longer names"
    for message, text in catalog.items():
        assert fields(text) == fields(message), (language, message, text)
        assert text != message or (language, message) in SAME_AS_ENGLISH, (language, message)
    # a plural message: every form the language has (French two, Chinese one), each with the message's fields
    forms, _ = i18n.plurals(language)
    plural = {m for m in everything if isinstance(m, tuple)}
    assert {m[0] for m in plural} == set(forms), (language, {m[0] for m in plural} ^ set(forms))
    count = {"es": 2, "fr": 2, "zh": 1}[language]
    for singular, many in plural:
        assert len(forms[singular]) == count and all(fields(f) == fields(many) for f in forms[singular]), singular


def test_a_message_is_english_without_a_catalog_and_in_the_speakers_language_with_one():
    assert i18n.t("Seed") == "Seed" and i18n.language() == i18n.ENGLISH  # outside a session: English
    with i18n.speaking("fr"):
        assert i18n.t("Seed") == "Graine"
        assert i18n.t("causal mask {state}", state="non") == "masque causal\u00a0: non"
        with i18n.speaking("zh"):
            assert i18n.t("Seed") == "随机种子"
        assert i18n.t("A message no catalog has") == "A message no catalog has"
    with i18n.speaking("xx"):  # a language nobody offers: English
        assert i18n.language() == i18n.ENGLISH


def test_two_threads_in_two_languages_at_once_never_read_each_others():
    """Sessions are threads of one process: a language set for one never leaks into another (gettext.install would)."""
    expected = {"en": "Seed", "es": "Semilla", "fr": "Graine", "zh": "随机种子", "qps": i18n.pseudo("Seed")}
    barrier = threading.Barrier(len(expected))
    wrong: list[tuple[str, str]] = []

    def session(lang: str) -> None:
        with i18n.speaking(lang):
            barrier.wait()  # every thread in its language before any reads
            for _ in range(2000):
                if (said := i18n.t("Seed")) != expected[lang]:
                    wrong.append((lang, said))

    threads = [threading.Thread(target=session, args=(lang,)) for lang in expected]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong


@settings(max_examples=60, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 4))
def test_a_number_is_written_with_its_languages_decimal_sign_and_the_same_digits(x, decimals):
    english = format_number(x, decimals)
    for lang, sign in (("es", ","), ("fr", ","), ("zh", "."), ("en", ".")):
        with i18n.speaking(lang):
            written = format_number(x, decimals)
        assert written == english.replace(".", sign)
        assert written.count(sign) == (decimals > 0 and "×" not in english and english.count(".") == 1)


def test_lists_and_whole_numbers_as_each_language_writes_them():
    for lang, joined, either, thousands in (
            ("en", "a, b and c", "a or b", ("2,000", "20,000")),  # no serial comma, as the lessons write English
            ("es", "a, b y c", "a o b", ("2000", "20.000")),  # CLDR: Spanish groups from five digits
            ("fr", "a, b et c", "a ou b", ("2\u202f000", "20\u202f000")),
            ("zh", "a、b和c", "a或b", ("2,000", "20,000"))):
        with i18n.speaking(lang):
            assert (i18n.listed(["a", "b", "c"]), i18n.listed(["a", "b"], "or")) == (joined, either)
            assert (i18n.whole(2000), i18n.whole(20000)) == thousands
            assert i18n.whole(999) == "999"
    with i18n.speaking(i18n.PSEUDO):
        assert i18n.listed(["a", "b"]) == "a" + i18n.pseudo(" and ") + "b"  # its word from the pseudo-language too


def test_a_share_of_the_class_is_written_as_each_language_writes_a_percentage():
    """The class's result: "60 %" in this app's English, the sign kept on the number's line by a no-break space in
    Spanish and French, no space in Chinese (a space there read as a gap)."""
    from viz.classmode import share_text
    for lang, sixty, little in (("en", "60 %", "< 1 %"), ("es", "60\u00a0%", "< 1\u00a0%"),
                                ("fr", "60\u00a0%", "< 1\u00a0%"), ("zh", "60%", "< 1%")):
        with i18n.speaking(lang):
            assert (share_text(3, 5), share_text(1, 201)) == (sixty, little), lang


def test_the_pseudo_language_marks_wraps_and_stretches_a_message_and_keeps_its_fields():
    text = i18n.pseudo("at most {tokens} tokens and **{chars}** characters")
    assert text.startswith("⟦") and text.endswith("⟧") and "{tokens}" in text and "**{chars}**" in text
    assert len(text) > len("at most {tokens} tokens and **{chars}** characters") * 1.3
    assert not re.search(r"[aceinorsuy]", FIELD.sub("", text))  # every such letter accented: nothing reads as English
    kept = "[the paper](https://arxiv.org/abs/1706.03762) :material/info: $\\sqrt{d_k}$"  # a link, an icon, maths
    assert all(part in i18n.pseudo(kept) for part in ("](https://arxiv.org/abs/1706.03762)", ":material/info:",
                                                       "$\\sqrt{d_k}$"))


def test_a_links_language_is_the_readers_and_a_class_never_follows_it():
    assert not check_link({"lang": "qps"}) and not check_link({"lang": "en"})
    assert set(OFFERED) == set(i18n.LANGUAGES)  # every catalog is offered
    for lang in ("de", "zh-TW", "EN"):  # a language without a catalog is refused (a catalog still being written too)
        assert "lang" in check_link({"lang": lang})
        assert i18n.PSEUDO not in check_link({"lang": lang})["lang"]  # the warning names only what a learner may use
    assert SETTINGS["lang"].default is None  # no lang in a link: the browser's
    assert lesson_state("multihead", {"heads": "2", "lang": "qps"})["query"] == {"heads": "2"}


PAGE_ADDRESSES = [url_path(script) for script, _, _ in PAGES]


@pytest.mark.parametrize("page", PAGE_ADDRESSES)
def test_the_shared_sidebar_speaks_the_sessions_language_on_every_page_beside_a_session_in_english(page):
    """Two sessions of one server, one in the pseudo-language: every label, help and caption of the shared sidebar's
    controls comes from the catalog in the first, and is English in the second, run after run."""
    with i18n.speaking(i18n.PSEUDO):  # AppTest applies a list's format_func again in the test's thread, each run
        pseudo = open_app(page, lang="qps")
    english = open_app(page)
    for _ in range(2):
        for at, wrapped in ((pseudo, True), (english, False)):
            with i18n.speaking(i18n.PSEUDO if wrapped else i18n.ENGLISH):
                at.run()
            assert not at.exception
            widgets = [w for kind in ("text_input", "number_input", "button", "slider", "toggle") for w in
                       getattr(at.sidebar, kind) if w.key in SIDEBAR_KEYS]
            assert sorted(w.key for w in widgets) == sorted(SIDEBAR_KEYS)
            for w in widgets:
                assert w.label.startswith("⟦") == wrapped, (page, w.key, w.label)
                if w.help:
                    assert w.help.startswith("⟦") == wrapped, (page, w.key, w.help)
            # the sidebar's own captions: its sizes ("d_model 8 · …") or the settings a page does not read (every page
            # has one or both), picked out in either language
            captions = [c.value for c in at.sidebar.caption if re.search(r"d_m[oö]d[eé][lļ] \d|[sš][iî]d[eé]b[aå][rŕ]",
                                                                         c.value)]
            assert captions and all(c.startswith("⟦") == wrapped for c in captions), (page, captions)
    assert pseudo.query_params.get("lang") == ["qps"] or pseudo.query_params.get("lang") == "qps"
    assert "lang" not in english.query_params


def test_a_links_warnings_the_share_box_and_the_phones_sentence_line_speak_the_sessions_language():
    """The frame every page has, in the pseudo-language: each sentence of a refused link's warning (its rule too),
    the share box's captions and the sentence line a phone shows above the lesson (AppTest sends no User-Agent, so
    the page draws it, as for a phone)."""
    at = open_app("", lang="qps", seed="1e400", foo="1", heads="3", book="[1]")
    assert not at.exception
    warning = re.sub(r"\\(.)", r"\1", next(w.value for w in at.warning if "⟦" in w.value))  # Markdown's escapes off
    lines = [line.removeprefix("- ") for line in warning.split("\n") if line.strip()]
    assert len(lines) == 5 and all(line.startswith("⟦") and line.endswith("⟧") for line in lines), lines
    rule = i18n.pseudo("a whole number from {low} to {high}, in the digits 0–9").format(low=0, high=999_999)
    assert rule in warning  # the rule inside the sentence is the catalog's too
    captions = [c.value for c in at.caption]
    assert any(c.startswith("⟦") and "This forum is awesome" in c for c in captions), captions  # the phone's line
    share = [c.value for c in at.sidebar.caption if "⟦Ţhé ļîñk" in c.value]
    assert share, [c.value for c in at.sidebar.caption]
    english = open_app("", seed="1e400")
    assert any("“seed=1e400” was ignored: seed must be a whole number from 0 to 999999, in the digits 0–9." in w
               for w in (re.sub(r"\\(.)", r"\1", w.value) for w in english.warning))


def test_sentences_follow_one_another_as_their_language_writes_them():
    """The native read: Chinese "…4 × 4。 在答题…" had a space after its full stop."""
    with i18n.speaking("zh"):
        assert i18n.sentences("已收到。", "", "答题结束前你都可以修改答案。") == "已收到。答题结束前你都可以修改答案。"
    with i18n.speaking("fr"):
        assert i18n.sentences("Reçue.", "", "Tu peux la modifier.") == "Reçue. Tu peux la modifier."


def _a_page_that_writes_seed() -> None:
    import streamlit as st

    from viz.i18n import t

    st.button(t("Seed"), key="b", on_click=lambda: st.session_state.update(said=t("Seed")))
    st.write(st.session_state.get("said", ""))


def test_a_session_that_never_chose_a_language_reads_english_after_one_in_the_pseudo_language_ran():
    """The review: the run's language was once kept by session id, which AppTest gives every session alike; a session
    run after a pseudo-language one (its script, and its callback) read that language. Kept on each run's context."""
    open_app("", lang="qps")
    other = AppTest.from_function(_a_page_that_writes_seed).run()
    assert other.button(key="b").label == "Seed"
    other = other.button(key="b").click().run()
    assert other.markdown[0].value == "Seed"


def test_a_count_takes_its_languages_plural_form():
    one, many = "**The class:** nobody answered, of {n} student.", "**The class:** nobody answered, of {n} students."
    said = {}
    for lang in ("en", "es", "fr", "zh"):
        with i18n.speaking(lang):
            said[lang] = [i18n.nt(one, many, n) for n in (0, 1, 2)]
    assert said["en"][1].endswith("1 student.") and said["en"][0].endswith("0 students.")
    assert said["fr"][0].endswith("0 élève.") and said["fr"][2].endswith("2 élèves.")  # French: 0 is singular
    assert said["es"][0].endswith("0 estudiantes.") and said["es"][1].endswith("1 estudiante.")
    assert len({text.replace(str(n), "") for n, text in enumerate(said["zh"])}) == 1  # Chinese: one form


def test_the_projectors_folded_rows_and_labels_take_their_languages_plural():
    """The second audit: "9 other options" stayed English in the class's result of another language."""
    from viz.classmode import projector_rows

    labels = [f"w{k}" for k in range(30)]
    question = {"options": labels, "answer": "w0", "also": []}
    answers = [f"w{k}" for k in range(30)]
    with i18n.speaking("fr"):
        names = [r.name for r in projector_rows(question, answers, revealed=False) if r.folded]
    assert names and all(re.fullmatch(r"\d+ autres options|les \d+ options", n) for n in names), names


@pytest.mark.parametrize(("locale", "language"), [
    ("es-ES", "es"), ("es_419", "es"), ("fr-CA", "fr"), ("zh-CN", "zh"), ("zh", "zh"), ("zh-Hans-SG", "zh"),
    ("zh-TW", "en"), ("zh-HK", "en"), ("zh-MO", "en"), ("zh-Hant", "en"), ("zh-Hant-TW", "en"), ("de-DE", "en"),
    ("", "en"), ("-", "en")])
def test_a_browsers_locale_picks_its_language_and_traditional_chinese_is_not_given_the_simplified_catalog(
        monkeypatch, locale, language):
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", ("en", "es", "fr", "zh"))  # as once every language is offered
    assert ui.i18n.offered_for(locale) == language


ASSETS = ROOT / "assets"
SYMBOL = re.compile(r"\$[^$]+\$|[A-Za-z]+_[A-Za-z0-9]+|[αβγσ√Σ]|\d+(?:[.,]\d+)?")  # maths, names like W_Q, numbers


def translated_assets() -> list[tuple[str, Path]]:
    return [(lang, path) for lang in i18n.LANGUAGES if lang != i18n.ENGLISH
            for path in sorted((ASSETS / lang).rglob("*.md"))]


def test_there_are_translated_lesson_texts_to_check():
    """The next test checks every translated lesson text; it checks something."""
    assert {lang for lang, _ in translated_assets()} == {"es", "fr", "zh"}


@pytest.mark.parametrize(("lang", "path"), translated_assets(), ids=lambda v: str(v).split("assets/")[-1])
def test_a_translated_lesson_text_has_its_englishs_maths_names_and_numbers_and_its_own_words(lang, path):
    """A lesson text in another language (assets/<lang>/<name>.md) translates an English one: the same maths, the same
    names of matrices and sizes and the same numbers (a number written in words in one language is a number lost), and
    words of its own (not English left in place); and the page reads it (``viz.steps.lesson_text``)."""
    from viz.steps import lesson_markdown, lesson_text

    name = path.relative_to(ASSETS / lang).with_suffix("").as_posix()
    english = (ASSETS / f"{name}.md").read_text(encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    point = re.compile(r"(\d),(\d)")  # 0,25 and 0.25 are one number; "(Q, K, V)" keeps its commas
    grouped = re.compile(r"(\d)[\u202f\u00a0](\d{3})\b")  # French thousands: 30 522 (a narrow no-break space)
    numbers = grouped.sub(r"\1,\2", text)
    assert set(SYMBOL.findall(point.sub(r"\1.\2", numbers))) == set(SYMBOL.findall(point.sub(r"\1.\2", english))), name
    assert text.count("**") == english.count("**") and text.count("](") == english.count("]("), name
    assert text != english and lesson_text(name, lang) == text
    with i18n.speaking(lang):
        assert lesson_markdown(name).strip() == text.replace("\n<!-- more -->\n", "\n").strip()


def test_a_lesson_text_in_the_pseudo_language_marks_every_line_of_words_and_keeps_its_markdown():
    from viz.steps import lesson_text

    for name in ("multihead/00_intro", "walkthrough/07_softmax", "phonebook/00_intro"):
        english, marked = lesson_text(name, "en"), lesson_text(name, i18n.PSEUDO)
        for plain, line in zip(english.split("\n"), marked.split("\n"), strict=True):
            if plain.strip() and not plain.strip().startswith(("$$", "<!--", "|")) and not plain.strip().endswith("$$"):
                assert "⟦" in line and line.split("⟦")[0] == re.match(r"\s*(?:#{1,6} |[-*+] |\d+\. |> )?",
                                                                        plain)[0], (name, line)
            else:
                assert line == plain
    assert lesson_text("multihead/00_intro", "de") == lesson_text("multihead/00_intro", "en")  # no such catalog


def test_a_formulas_numbers_take_the_decimal_comma_braced_so_tex_does_not_space_it():
    """LaTeX reads "0,25" as the list "0, 25": a decimal comma in a formula is written {,} (the review)."""
    from viz.formulas import num, plain

    with i18n.speaking("es"):
        assert (plain(0.25), num(-0.5), plain(1234.5, 1)) == ("0{,}25", "(-0{,}50)", "1234{,}5")
    with i18n.speaking("zh"):
        assert (plain(0.25), num(-0.5)) == ("0.25", "(-0.50)")
    assert plain(0.25) == "0.25"


def test_french_puts_a_no_break_space_before_its_high_punctuation():
    """French typography: a no-break space before ":", ";", "?" and "!" (a plain space let a line break leave the sign
    alone at the start of the next line), in every French message; none where the sign follows a field or a symbol
    with no space at all (e.g. "α_1,1")."""
    wrong = [(message, text) for message, text in i18n.catalog("fr").items()
             if re.search(r" [:;?!]", text)]
    forms, _ = i18n.plurals("fr")
    wrong += [(message, text) for message, texts in forms.items() for text in texts if re.search(r" [:;?!]", text)]
    assert not wrong, wrong


def term_list(lang: str) -> dict:
    with (ROOT / "locales" / f"{lang}.terms.toml").open("rb") as f:
        return tomllib.load(f)


def names_term(english: str, term: str) -> bool:
    """Whether an English text names a term (its plural too), its {fields} aside: "{query}" is a field, not the word."""
    consonant_y = re.search(r"[^aeiou]y$", term) is not None  # query → queries; key → keys
    stem = re.escape(term[:-1]) + "(?:y|ies)" if consonant_y else re.escape(term) + "(?:s|es)?"
    return re.search(rf"\b{stem}\b", FIELD.sub(" ", english), re.IGNORECASE) is not None


def uses_term(text: str, forms: list[str]) -> bool:
    return any(form.lower() in text.lower() for form in forms)


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH])
def test_every_language_names_each_term_of_the_lesson_one_way_in_its_catalog_and_its_lesson_texts(lang):
    """A term list a language (locales/<lang>.terms.toml): a message or a lesson text whose English names a term uses
    that language's term for it, so "key" is never "clave" on one page and "llave" on the next; one English list for
    every language, so a language cannot leave a term out."""
    terms = term_list(lang)
    assert set(terms["terms"]) == set(term_list("es")["terms"]) and len(terms["terms"]) >= 15
    other = terms.get("other_senses", {})
    catalog = i18n.catalog(lang)
    wrong = [(term, message, text) for message, text in catalog.items() for term, forms in terms["terms"].items()
             if names_term(message, term) and not uses_term(text, forms) and message not in other.get(term, ())]
    assert not wrong, wrong
    for term, messages in other.items():  # an exception is a message the catalog holds and names the term
        assert all(m in catalog and names_term(m, term) for m in messages), term
    for path in sorted((ASSETS / lang).rglob("*.md")):
        english = (ASSETS / path.relative_to(ASSETS / lang)).read_text(encoding="utf-8")
        for name in terms.get("names", ()):  # a name the language translates whole ("rotary position embedding")
            english = re.sub(re.escape(name), " ", english, flags=re.IGNORECASE)
        text = path.read_text(encoding="utf-8")
        missing = [term for term, forms in terms["terms"].items()
                   if names_term(english, term) and not uses_term(text, forms)]
        assert not missing, (path.name, missing)


def test_the_term_check_finds_a_term_named_otherwise_and_reads_fields_as_fields():
    """The check above can fail: "llave" for key is caught; "{query}" is no query; "queries" is."""
    forms = term_list("es")["terms"]["key"]
    assert names_term("Each key is a vector", "key") and not uses_term("Cada llave es un vector", forms)
    assert not names_term("“{query}” sees {keys} tokens", "query") and not names_term("keyboard", "key")
    assert names_term("Two queries", "query") and names_term("the scores", "score") and names_term("the keys", "key")


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != i18n.ENGLISH])
def test_every_bold_text_of_a_catalog_renders_bold_with_a_sentence_after_it(lang):
    """CommonMark closes ** only where it is right-flanking: after a full stop "。" and before a letter it is not, and
    the learner read "**MiniLM 主要是在英语文本上训练的。**它的…" with its asterisks (the truth audit of session 10).
    Chinese joins sentences with no space (``viz.i18n.sentences``): each message is rendered with one after it."""
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").render
    after = "它" if lang == "zh" else " Next"
    broken = []
    for text in i18n.catalog(lang).values():
        if "**" in text:
            filled = re.sub(r"\{[^{}]*\}", "x", text) + after
            if "**" in render(filled):
                broken.append(text)
    assert not broken, broken
