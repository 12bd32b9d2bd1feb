"""Issue 45: the walkthrough, and the lessons done since, in every language. Every word a learner reads on its eight
steps (the page's own words, its charts' titles, axes and text alternatives, its tables' headers) and in its handout
comes from a catalog: in the pseudo-language each is marked ⟦…⟧, and what is left is the learner's sentence, the
maths and the app's name."""

from __future__ import annotations

import html
import re

import pytest

from attention import trace_self_attention
from tests.driving import open_app
from tests.table_reading import view_panels
from tests.test_classmode_pages import shown_texts
from ui.links import CROSS_SOURCE, CROSS_TARGET
from ui.settings import LANGUAGE_NAMES
from viz import figures as F
from viz import i18n, svg
from viz import tables as T
from viz.exports import handout_html

SENTENCE = "This forum is awesome"
# what may stay as it is: the sentences (cross-attention's English → French pair), the app's name, the maths' names
# and the formats' (d_model, W_Q, softmax …)
KEPT = [*SENTENCE.split(), *CROSS_SOURCE.split(), *CROSS_TARGET.split(), "Attention Lab", "d_model", "d_k", "W_Q",
        "W_K", "W_V", "softmax", "Embed", "Attention", "Att", "RoPE", "CSV", "JSON", "HTML", "MiniLM", "SmolLM2",
        "LayerNorm", "ij", "mathrm", "operatorname", "frac", "sqrt", "left", "right", "top", "qps",
        *LANGUAGE_NAMES.values()]  # the language menu names each language in itself, never translated
WORD = re.compile(r"[A-Za-z]{2,}")


def english_left(text: str) -> list[str]:
    """The English words of a text in the pseudo-language that no catalog marked: ⟦…⟧ removed from the inside out
    (a message's field may hold another message), then the sentence, maths and names of ``KEPT``."""
    text = re.sub(r"\$\$.*?\$\$|\$[^$]*\$|https?://\S+|:material/[a-z_]+:", " ", text, flags=re.S)
    while (shorter := re.sub(r"⟦[^⟦⟧]*⟧", " ", text)) != text:
        text = shorter
    words = WORD.findall(text)
    return [w for w in words if not any(w in kept for kept in KEPT)]


def page_texts(at) -> list[str]:
    """Every text the page's elements show (``shown_texts``), and its title and metrics."""
    metrics = [text for m in at.metric for text in (m.label, m.value, m.proto.help) if isinstance(text, str)]
    return shown_texts(at) + [e.value for e in at.title] + metrics


def panel_texts(at) -> list[str]:
    """What the view draws of each panel in words: its chart's text alternative, title and SVG text, its table's
    corner and column names, the names of its axes."""
    out = []
    for panel in view_panels(at).values():
        fig = panel.get("figure") or {}
        out += [fig.get("alt", ""), fig.get("title", ""), panel.get("corner", ""), panel.get("rowName", ""),
                panel.get("colName", ""), *map(str, panel.get("cols", []))]
        out += [html.unescape(text) for text in re.findall(r"<text[^>]*>([^<]*)</text>", fig.get("svg", ""))]
    return out


def test_every_step_of_the_walkthrough_reads_only_catalog_text_in_the_pseudo_language():
    """Steps 1 to 8 one at a time, with the causal mask on and a hand-edited cell (step 3's editor opens with the link's
    edits; the other steps say they use them): no word that bypassed the catalogs, on the page or in the charts and
    tables the browser draws."""
    with i18n.speaking(i18n.PSEUDO):  # AppTest applies format_funcs again in this thread: in the page's language
        at = open_app("", lang="qps", causal="true", w="Q1.1:0.5")  # hand-edited: the editor and its captions
        found = {}
        for step in range(1, 9):
            at.session_state["step"] = step
            at = at.run()
            assert not at.exception
            texts = page_texts(at) + panel_texts(at)
            for text in texts:
                if left := english_left(text):
                    found[text[:120]] = (step, left)
            editing = "Using your hand-edited W_Q, W_K, W_V (step 3 has the editor)." if step != 3 else \
                "Reset to the preset"  # the editor is drawn, the others say its edits are in use
            assert i18n.pseudo(editing) in texts, step
    assert not found, found


def test_the_handout_in_the_pseudo_language_marks_every_word_and_declares_its_language():
    trace = trace_self_attention(SENTENCE, d_model=8, d_k=4, causal=True, temperature=0.5)
    with i18n.speaking(i18n.PSEUDO):
        page = handout_html(trace, query=1, link="http://127.0.0.1:8501/?lang=qps")
    assert '<html lang="qps"' in page
    body = re.sub(r"<style>.*?</style>|src=\"[^\"]*\"", " ", page.split("<body>", 1)[1], flags=re.S)
    alts = [html.unescape(a) for a in re.findall(r'alt="([^"]*)"', body)]
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    assert not english_left(text) and not [a for a in alts if english_left(a)], (english_left(text), alts)
    for lang, tag in (("es", "es"), ("fr", "fr"), ("zh", "zh-Hans")):
        with i18n.speaking(lang):
            page = handout_html(trace, query=1)
        assert f'<html lang="{tag}"' in page and "{,}" not in page  # a plain-text formula: no TeX comma


@pytest.mark.parametrize("lang", ["en", "es", "fr", "zh"])
def test_a_folded_heatmaps_text_alternative_keeps_its_whole_picture_and_the_view_its_title(lang):
    """A [1 × 576] row is drawn folded, its text alternative built from the unfolded one's picture: whatever a
    language writes between a title and its picture (French "\u00a0:", Chinese "："), none of the picture is cut; and
    the view's title of a chart is its title, not its whole description."""
    from ui.view import figure

    trace = trace_self_attention(SENTENCE, d_model=8, d_k=4)
    row = trace.x[:1].repeat(72, axis=1)  # [1 × 576]
    with i18n.speaking(lang):
        fig = F.token_by_dim_figure(trace, row, "X")
        heatmap = i18n.t("a heatmap, {rows} ({row_names}) by {columns} ({column_names}); {colours}{masked}{numbers}.")
        first_words = heatmap.split("{rows}")[0].strip()
        assert first_words and first_words in fig.alt, fig.alt
        whole = F.token_by_dim_figure(trace, trace.x, "X")
        assert figure(whole)["alt"].startswith(whole.alt) and whole.alt.startswith(svg.titled("X  [4 × 8]", ""))
    from ui.view import panel
    with i18n.speaking(lang):
        data = panel("x", T.token_by_dim_frame(trace, trace.x), whole)
    assert data["figure"]["title"] == "X  [4 × 8]"


def test_a_tables_words_are_translated_and_a_token_never_is():
    """The step-1 table's columns and the Σ row are the catalog's words; a token spelt "token", "id" or "term" is
    the learner's and stays as typed, in a row or a column."""
    trace = trace_self_attention("token id term", d_model=8, d_k=4)
    with i18n.speaking("es"):
        assert T.column_names(T.token_frame(trace)) == ["posición i", "token", "id"]
        keys = T.query_key_frame(trace, trace.weights)
        assert T.column_names(keys) == ["token", "id", "term"] and T.row_names(keys) == ["token", "id", "term"]
        assert T.header(keys.index.name) == "consulta ↓ · clave →"
        assert T.row_names(T.weighted_sum_frame(trace, 0))[-1] == "Σ = salida"
    assert T.row_names(T.weighted_sum_frame(trace, 0))[-1] == "Σ = output"


# a short run trained (a link with a step the run did not save, and a head it lacks: the page's notes that it could
# not use them)
LEARNED = {"lt_run": "true", "lt_steps": "50"}


@pytest.mark.parametrize(("page", "link"), [("multihead", {}), ("phonebook", {}), ("parts", {}),
                                            ("parts", {"stage": "2"}), ("parts", {"stage": "3"}), ("scaling", {}),
                                            ("scaling", {"dk_demo": "1"}), ("cross", {}), ("relevance", {}),
                                            ("relevance", {"rel_dk": "4", "causal": "true"}),
                                            ("cross", {"ca_preset": "Aligned by a bilingual table (constructed)"}),
                                            ("learn", {}), ("learn", LEARNED),
                                            # the engine's messages: a book's rows left out, a sentence too long
                                            ("phonebook", {"book": '[["Anna", "12"], ["", "34"], ["Bob", "x"], '
                                                                   '["anna", "56"]]'}),
                                            ("multihead", {"sentence": "a " * 70}),
                                            ("learn", {**LEARNED, "lt_task": "Look up a value (a tiny phonebook)",
                                                       "lt_heads": "2", "lt_step": "7", "lt_head": "3"})])
def test_a_lesson_in_every_language_reads_only_catalog_text_in_the_pseudo_language(page, link):
    """The lessons whose every text is in the catalogs (the others follow, issue 45): every word on the page and in
    its charts and tables was marked by a catalog."""
    with i18n.speaking(i18n.PSEUDO):
        at = open_app(page, lang="qps", **link)
        assert not at.exception
        if page == "learn" and link:  # and its panel "This head, step by step" open, as the map's parts open it
            at.session_state["lt-steps"] = True
            at.run()
            assert not at.exception and any("lt-head-" in key for key in view_panels(at))
        found = {text[:120]: left for text in page_texts(at) + panel_texts(at) if (left := english_left(text))}
    assert not found, found


@pytest.mark.parametrize("lang", ["es", "fr", "zh"])
def test_every_page_opens_in_every_language(lang, monkeypatch):
    """Each language's numbers and words on every page, before it is offered: a page that parsed its own shown number
    back ("0,974") failed in Spanish and French only (the scaling lesson)."""
    import ui.i18n
    from tests.driving import SCRIPTS

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    failed = {}
    with i18n.speaking(lang):
        for page in SCRIPTS:
            at = open_app(page, lang=lang)
            if at.exception:
                failed[page or "walkthrough"] = at.exception[0].message
    assert not failed, failed


@pytest.mark.parametrize("lang", ["es", "fr", "zh"])
def test_a_trained_run_writes_its_numbers_as_each_language_does(lang, monkeypatch):
    """The learn page after training, in each language: its verdict's losses with the language's decimal sign and its
    shares with the language's percent sign, the held-out table's numbers in the language's words."""
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    with i18n.speaking(lang):
        at = open_app("learn", lang=lang, **LEARNED)
        assert not at.exception
        verdict = [e.value for e in [*at.success, *at.warning, *at.error]][-1]
        losses = re.findall(r"\d+[.,]\d\d\b", verdict)
        shares = re.findall(r"\d+(?:\u00a0%|%| %)", verdict)
        assert losses and all(("," in x) == (lang != "zh") for x in losses), verdict
        assert len(shares) == 2 and all(x.endswith("%" if lang == "zh" else "\u00a0%") for x in shares), verdict
        assert not (lang == "zh" and any(" %" in x or "\u00a0%" in x for x in shares)), verdict
        assert "held-out" not in verdict  # its words: the catalog's


SMOLLM2 = "SmolLM2 (SmolLM2-135M-Instruct, a Llama decoder)"


@pytest.mark.parametrize(("page", "link"), [
    ("real_model", {}), ("real_model", {"rm_off": "L2 H3", "rm_sink": "true"}),
    ("real_model", {"rm_model": SMOLLM2, "rm_top_k": "5", "rm_top_p": "0.9", "rm_off": "L3 H2"}),
    ("real_model", {"rm_model": SMOLLM2, "rm_top_p": "0.5"}), ("generate", {}),
    ("generate", {"gen_count": "1"})])
def test_a_real_model_page_reads_only_catalog_text_in_the_pseudo_language(page, link):
    """The real models' pages: every word but the model's own tokens (a table's row labels, as the model splits the
    sentence and writes) was marked by a catalog."""
    with i18n.speaking(i18n.PSEUDO):
        at = open_app(page, lang="qps", **link)
        assert not at.exception
        tokens = {word for panel in view_panels(at).values() for row in panel.get("rows", [])
                  for word in WORD.findall(str(row))}
        found = {text[:120]: left for text in page_texts(at) + panel_texts(at)
                 if (left := [w for w in english_left(text) if w not in tokens])}
    assert not found, found


def test_the_language_menu_changes_the_language_and_keeps_the_page_its_settings_and_the_link(monkeypatch):
    """Once languages are offered, the sidebar's menu chooses one: the next run writes the same step of the same
    sentence in it, and the link says so (lang=…); the browser's language until then."""
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    at = open_app("", sentence="Hola mundo", step="5")
    menu = at.selectbox(key="lang_menu")
    assert menu.value == "en" and "lang" not in at.query_params  # the browser's (English under AppTest)
    menu.set_value("fr").run()
    assert not at.exception
    assert at.selectbox(key="lang_menu").value == "fr"
    with i18n.speaking("fr"):
        assert at.title[0].value == i18n.t("Self-attention, step by step") != "Self-attention, step by step"
    assert at.session_state["step"] == 5 and at.session_state["sentence"] == "Hola mundo"
    assert at.query_params["lang"] == "fr"
    at.selectbox(key="lang_menu").set_value("en").run()  # and back: English, named in the link
    assert at.title[0].value == "Self-attention, step by step" and at.query_params["lang"] == "en"


def test_no_language_menu_while_english_is_the_only_language_offered(monkeypatch):
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (i18n.ENGLISH,))  # as the app was until every language was ready
    at = open_app("")
    assert not [s for s in at.selectbox if s.key == "lang_menu"]
    monkeypatch.undo()
    assert [s for s in open_app("").selectbox if s.key == "lang_menu"]  # offered: the menu


def test_a_picture_cached_across_sessions_is_drawn_in_each_readers_language(monkeypatch):
    """The every-head picture is cached across sessions (a class draws it once): a Spanish reader's picture was
    shown to the next reader in another language (its title and text alternative), found by the pseudo-language
    test when a Spanish test happened to run first."""
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    titles = {}
    for lang in ("es", "en"):
        with i18n.speaking(lang):
            at = open_app("real_model", lang=lang, sentence="Ceci est un test")
            assert not at.exception
            titles[lang] = view_panels(at)["rm-model-view"]["figure"]["title"]
    with i18n.speaking("es"):
        assert titles["es"] == i18n.t("Every head's α, layers {first}–{last}", first=1, last=6)
    assert titles["en"] == "Every head's α, layers 1–6"


@pytest.mark.parametrize(("lang", "tokens"), [("es", ["Este", "foro", "es", "genial"]),
                                              ("fr", ["Ce", "forum", "est", "génial"]),
                                              ("zh", ["这", "个", "论", "坛", "很", "棒"]), ("en", SENTENCE.split())])
def test_a_new_session_starts_on_its_languages_example_and_its_link_names_it(lang, tokens, monkeypatch):
    """A visit whose link names no lesson setting opens on the example sentence in the reader's language; a session
    that does not read English names its sentence in its link, so that a shared link or a class shows every reader,
    in any language, the same sentence and numbers."""
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    with i18n.speaking(lang):
        at = open_app("", lang=lang)
        assert not at.exception
        assert at.text_input(key="sentence").value == ("".join(tokens) if lang == "zh" else " ".join(tokens))
        assert [row[1] for row in view_panels(at)["tokens"]["values"]] == tokens  # step 1's table
        link = dict(at.query_params)
    assert ("sentence" in link) == (lang != "en")
    with i18n.speaking("en"):  # the link, opened by an English reader: the same sentence
        again = open_app("", **{**link, "lang": "en"})
        assert again.text_input(key="sentence").value == at.text_input(key="sentence").value


@pytest.mark.parametrize(("lang", "source", "target"), [
    ("en", "the black cat sleeps", "le chat noir dort"), ("es", "the black cat sleeps", "el gato negro duerme"),
    ("fr", "the black cat sleeps", "le chat noir dort"), ("zh", "he sleeps at home", "他在家睡觉")])
def test_cross_attention_opens_on_a_translation_into_the_readers_language(lang, source, target, monkeypatch):
    """The cross lesson's example pair: the English source and its translation into the reader's language (French for
    an English reader), aligned by the reader's table; a reader whose pair is not the link's default names the target
    in the link, and an English reader who opens that link sees the same pair and numbers."""
    import ui.i18n
    from attention.cross import BILINGUAL

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    with i18n.speaking(lang):
        at = open_app("cross", lang=lang)  # a bare visit, then the aligned preset chosen on the page
        assert (at.text_input(key="ca_source").value, at.text_input(key="ca_target").value) == (source, target)
        at.radio(key="ca_preset").set_value("aligned").run()
        assert not at.exception
        table = "fr" if lang == "en" else lang
        assert f'<span lang="{table}">{BILINGUAL[table]["cat"]}</span>' in " ".join(c.value for c in at.caption)
        link = dict(at.query_params)
    assert ("ca_target" in link) == (target != CROSS_TARGET)  # named where not the link's default
    assert ("ca_source" in link) == (source != CROSS_SOURCE)
    with i18n.speaking("en"):
        again = open_app("cross", **{**link, "lang": "en"})
        assert (again.text_input(key="ca_source").value, again.text_input(key="ca_target").value) == (source, target)
        assert view_panels(again)["ca-weights"]["values"] == view_panels(at)["ca-weights"]["values"]


@pytest.mark.parametrize("lang", ["es", "fr", "zh", "en"])
def test_the_phonebook_opens_on_its_languages_names_and_its_link_reopens_them(lang, monkeypatch):
    """Spanish and French readers open the phonebook on their language's book and name (Chinese and English readers on
    the Czech one: attention.phonebook.EXAMPLE_BOOKS says why); the link names them, so an English reader who opens
    it sees the same book, name and weights."""
    import ui.i18n
    from attention.phonebook import DEFAULT_BOOK, EXAMPLE_BOOKS
    from ui.links import PHONEBOOK_QUERY

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    query, book = EXAMPLE_BOOKS.get(lang, (PHONEBOOK_QUERY, DEFAULT_BOOK))
    with i18n.speaking(lang):
        at = open_app("phonebook", lang=lang)
        assert not at.exception
        assert at.text_input(key="pb_query").value == query
        assert [tuple(row) for row in at.session_state["_pb_book"]] == list(book)
        link = dict(at.query_params)
    assert ("book" in link) == ("pb_query" in link) == (lang in EXAMPLE_BOOKS)
    with i18n.speaking("en"):
        again = open_app("phonebook", **{**link, "lang": "en"})
        assert again.text_input(key="pb_query").value == query
        numbers = [[row[0], row[1], *row[3:]] for row in view_panels(at)["pb-lookup"]["values"]]  # not the words
        assert [[row[0], row[1], *row[3:]] for row in view_panels(again)["pb-lookup"]["values"]] == numbers


def test_a_missing_models_message_names_the_model_and_its_licence_in_the_readers_language(monkeypatch):
    """The engine names a missing model by its English title; the page writes the title and licence as the reader's
    language does, its size with the language's digits, and the command as it is."""
    import importlib.util

    from attention.pretrained import ModelMissing, package_dir

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelMissing) as missing:
        package_dir("minilm")
    assert "MiniLM (all-MiniLM-L6-v2, a BERT encoder)" in str(missing.value)  # the log's English
    with i18n.speaking("es"):
        text = i18n.said(missing.value.message)
        assert i18n.t("MiniLM (all-MiniLM-L6-v2, a BERT encoder)") in text
        assert i18n.t("Apache-2.0 (model card; the package says MIT)") in text and "requirements-models.txt" in text
    assert "BERT encoder" not in text and "model card" not in text


@pytest.mark.parametrize("lang", ["es", "zh"])
def test_a_link_that_names_a_state_but_no_sentence_means_the_english_example_to_every_reader(lang, monkeypatch):
    """An English learner's link at step 5 leaves the sentence out: a Spanish or Chinese reader sees the same sentence
    and numbers, not their own example; and a learner reading Spanish who types the English example keeps it in
    their link (found by the review: both opened on "Este foro es genial")."""
    import ui.i18n

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    english = open_app("", step="5")
    assert "sentence" not in english.query_params
    with i18n.speaking(lang):
        reader = open_app("", lang=lang, **dict(english.query_params))
        assert reader.text_input(key="sentence").value == SENTENCE
        assert view_panels(reader)["scores"]["values"] == view_panels(english)["scores"]["values"]
        mine = open_app("", lang=lang)
        mine.text_input(key="sentence").input(SENTENCE).run()
        link = dict(mine.query_params)
        assert link["sentence"] == SENTENCE
        assert open_app("", **link).text_input(key="sentence").value == SENTENCE


@pytest.mark.parametrize("lang", ["es", "qps"])
def test_a_cut_paste_is_told_in_the_readers_language_with_its_numbers(lang, monkeypatch):
    """A paste over the box's limit is cut, and the message under the box is the catalog's, with the counts written
    as the language groups thousands (1.200 is not grouped in Spanish: CLDR's minimum grouping)."""
    import ui.i18n
    from attention import MAX_CHARS

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    with i18n.speaking(lang):
        at = open_app("", lang=lang)
        at.text_input(key="sentence").input("ab " * 4000).run()
        assert not at.exception
        message = next(w.value for w in at.warning if "1000" in w.value or "1,000" in w.value)
        assert len(at.text_input(key="sentence").value) == MAX_CHARS
        if lang == "qps":
            assert not english_left(message), message
        else:
            assert message.endswith("; el cuadro conserva los primeros 1000.") and "12.000 caracteres" in message, \
                message


@pytest.mark.parametrize("lang", ["es", "fr", "zh"])
@pytest.mark.parametrize("model", ["minilm", "smollm2"])
def test_a_real_model_says_it_learned_english_and_splits_the_readers_example_with_its_own_tokenizer(lang, model,
                                                                                                  monkeypatch):
    """A reader of another language reads that the model was trained mostly on English, and how its own tokenizer
    splits their language's example and the English one (the tokenizer's tokens and counts, [CLS] and [SEP]
    included as the tokens table shows them); a button puts the English example in the box, and the sidebar offers
    the reader's sentence back."""
    import ui.i18n
    from attention.pretrained import MODELS
    from ui.models import model_named
    from ui.settings import DEFAULT_SENTENCE, EXAMPLE_SENTENCES
    from viz.labels import markdown_text

    monkeypatch.setattr(ui.i18n, "OFFERED", (*i18n.LANGUAGES,))
    example = EXAMPLE_SENTENCES[lang]
    with i18n.speaking(lang):
        at = open_app("real_model", lang=lang)
        at.radio(key="rm_model").set_value(model).run()
        assert not at.exception and at.text_input(key="sentence").value == example  # a bare visit: their example
        tokenizer = model_named(model)
        heading = i18n.t("**{model} was trained mostly on English text.**", model=MODELS[model].short)
        note = next(c.value for c in at.caption if c.value.startswith(heading))
        counts = []
        for sentence in (example, DEFAULT_SENTENCE):
            pieces = tokenizer.tokenize(sentence)[1]
            assert ' | '.join(markdown_text(piece) for piece in pieces) in note, (pieces, note)
            counts.append(len(pieces))
        said = i18n.t("Its tokenizer splits “{example}” into {n} tokens ({tokens}) and “{english}” into {m} "
                      "({english_tokens}).")  # the reader's words, its counts read from where they stand
        pattern = re.escape(said).replace(r"\{n\}", r"(\d+)").replace(r"\{m\}", r"(\d+)")
        pattern = re.sub(r"\\\{[a-z_]+\\\}", ".*", pattern)
        assert [int(x) for x in re.search(pattern, note).groups()] == counts, note
        at.button(key="rm_english").click().run()
        assert not at.exception
        assert at.text_input(key="sentence").value == DEFAULT_SENTENCE
        assert "rm_english" not in [b.key for b in at.button]  # the English example needs no button to it
        assert example in at.sidebar.info[0].value and at.sidebar.button(key="sentence_back")
