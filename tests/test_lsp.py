"""The language server, driven through the protocol over stdio as an editor drives it (pygls's
client against `python -m rulesdsl.lsp`): diagnostics of a broken file and of unsaved texts,
hover, go to definition and references across imports and extends, completion, the outline; and
the fuzzing inputs of tests/test_fuzz_rules.py, through which the server must keep answering."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from rulesdsl.errors import RulesError
from rulesdsl.lsp.analysis import Workspace, builtin_names

from .conftest import GRAMMAR_TEXTS
from .test_fuzz_rules import generated_dir, grammar_strategy, mutate

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
TAMALO = GAMES / "tamalo.rules"
# What a small game needs besides its zone and action, so that it checks.
REST = "card coin\ncards in deck { 4 coin }\ngame ends when empty(deck)\nwinners are players\n"
WAIT = 120  # seconds before a missing answer counts as a hang (not a timing: a server that died)


class Editor:
    """A client that opens documents and waits for their diagnostics, as an editor would."""

    def __init__(self) -> None:
        self.client = LanguageClient("test-editor", "1")
        self.diagnostics: dict[str, lsp.PublishDiagnosticsParams] = {}
        self.logs: list[str] = []
        self.versions: dict[str, int] = {}
        self.count: dict[str, int] = {}  # publications per document
        self.changed = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = params
            self.count[params.uri] = self.count.get(params.uri, 0) + 1
            self.changed.set()

        @self.client.feature(lsp.WINDOW_LOG_MESSAGE)
        def logged(params: lsp.LogMessageParams) -> None:
            self.logs.append(params.message)

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "rulesdsl.cli", "lsp")
        await asyncio.wait_for(self.client.initialize_async(lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=from_fs_path(str(ROOT)))), WAIT)
        self.client.initialized(lsp.InitializedParams())

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), WAIT)
        self.client.exit(None)
        await self.client.stop()

    async def open(self, path: Path, text: str | None = None) -> list[lsp.Diagnostic]:
        uri = from_fs_path(str(path))
        self.versions[uri] = 1
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(
            uri, "rules", 1, path.read_text(encoding="utf-8") if text is None else text)))
        return await self.published(uri, 1)

    async def change(self, path: Path, text: str) -> list[lsp.Diagnostic]:
        uri = from_fs_path(str(path))
        self.versions[uri] += 1
        v = self.versions[uri]
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(v, uri), [lsp.TextDocumentContentChangeWholeDocument(text)]))
        return await self.published(uri, v)

    async def published(self, uri: str, version: int, after: int = 0) -> list[lsp.Diagnostic]:
        """The diagnostics of `version` of a document, once more than `after` were published."""
        async def arrived():
            while not (uri in self.diagnostics and self.diagnostics[uri].version == version
                       and self.count[uri] > after):
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(arrived(), WAIT)
        return list(self.diagnostics[uri].diagnostics)

    def where(self, path: Path, line: int, character: int) -> dict:
        return {"text_document": lsp.TextDocumentIdentifier(from_fs_path(str(path))),
                "position": lsp.Position(line, character)}

    async def hover(self, path, line, character) -> str | None:
        h = await self.client.text_document_hover_async(lsp.HoverParams(**self.where(path, line, character)))
        return h.contents.value if h else None

    async def definition(self, path, line, character):
        return await self.client.text_document_definition_async(
            lsp.DefinitionParams(**self.where(path, line, character)))

    async def references(self, path, line, character):
        return await self.client.text_document_references_async(lsp.ReferenceParams(
            context=lsp.ReferenceContext(include_declaration=True), **self.where(path, line, character)))

    async def complete(self, path, line, character) -> dict[str, lsp.CompletionItem]:
        got = await self.client.text_document_completion_async(
            lsp.CompletionParams(**self.where(path, line, character)))
        return {i.label: i for i in got.items}

    async def symbols(self, path) -> list[lsp.DocumentSymbol]:
        return await self.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
            lsp.TextDocumentIdentifier(from_fs_path(str(path)))))


    async def forget(self) -> None:
        """Close every document this session opened, and wait until the server has handled it (a
        document opened and closed after them is answered in order), so that the next session
        meets a server with no document open and no diagnostics of this one on their way."""
        for uri in self.versions:
            self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
        mark = ROOT / "tests" / "lsp-session-end-unsaved.rules"  # (never written)
        await self.open(mark, "")
        uri = from_fs_path(str(mark))
        before = self.count[uri]
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
        await asyncio.wait_for(self._published_more(uri, before), WAIT)
        self.diagnostics, self.count, self.versions = {}, {}, {}

    async def _published_more(self, uri: str, before: int) -> None:
        while self.count.get(uri, 0) <= before:
            self.changed.clear()
            await self.changed.wait()


# One server for the module's sessions, in one event loop: starting a server costs about a second
# of processor time, and an editor keeps one server for all its documents too. Each session
# closes what it opened; a session that leaves the server dead makes the next one start another.
_LOOP: asyncio.AbstractEventLoop | None = None
_EDITOR: Editor | None = None


def session(scenario) -> None:
    """Run one editor session against the module's server (started at the first session)."""
    global _LOOP, _EDITOR
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()

    async def run():
        global _EDITOR
        if _EDITOR is None:
            editor = Editor()
            await editor.start()
            _EDITOR = editor
        editor = _EDITOR
        editor.logs = []
        try:
            await scenario(editor)
            await editor.forget()
        except BaseException:
            _EDITOR = None  # (a server in an unknown state: the next session starts its own)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(editor.stop(), 10)
            raise
        assert not [m for m in editor.logs if "internal error" in m], editor.logs
    _LOOP.run_until_complete(run())


@pytest.fixture(scope="module", autouse=True)
def _stop_the_server():
    yield
    global _LOOP, _EDITOR
    if _LOOP is not None:
        if _EDITOR is not None:
            _LOOP.run_until_complete(_EDITOR.stop())
        _LOOP.close()
    _LOOP, _EDITOR = None, None


def position_of(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, character) of the nth occurrence of `needle` (0-based, as the protocol counts)."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    return line, at - (text.rfind("\n", 0, at) + 1)


# ---------------------------------------------------------------- diagnostics


def test_a_syntax_error_is_reported_on_its_span_and_the_rest_still_has_symbols(tmp_path):
    text = TAMALO.read_text(encoding="utf-8").replace("setup {", "setup {{", 1)
    unsaved = tmp_path / "broken.rules"  # never written: the editor's text is what is read

    async def scenario(e: Editor):
        diags = await e.open(unsaved, text)
        assert len(diags) == 1
        d = diags[0]
        assert d.severity == lsp.DiagnosticSeverity.Error
        assert d.message.startswith("unexpected '{'") and "hint: expected" in d.message
        assert (d.range.start.line, d.range.start.character) == position_of(text, "{{")[:1] + (7,)
        names = {s.name for s in await e.symbols(unsaved)}
        # declarations before the error and after it are in the outline; the broken one is not
        assert {"deck", "points", "take", "snap", "turn end", "game end"} <= names
        assert "setup" not in names

    session(scenario)


def test_every_error_of_check_with_its_hint_on_the_span_and_they_go_when_fixed(tmp_path):
    text = TAMALO.read_text(encoding="utf-8")
    bad = text.replace("shuffle deck", "shuffle dek", 1).replace("caller = me", "caller = 3", 1)
    path = tmp_path / "tamalo.rules"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "prelude").mkdir()
    (tmp_path / "prelude" / "standard52.rules").write_text(
        (GAMES / "prelude" / "standard52.rules").read_text(encoding="utf-8"), encoding="utf-8")

    async def scenario(e: Editor):
        assert await e.open(path) == []
        diags = await e.change(path, bad)  # not saved: the server reads the editor's text
        by_message = {d.message.split("\n")[0]: d for d in diags}
        unknown = by_message["unknown zone 'dek'"]
        assert "hint: did you mean 'deck'?" in unknown.message
        line, col = position_of(bad, "dek")
        assert (unknown.range.start.line, unknown.range.start.character) == (line, col)
        assert (unknown.range.end.line, unknown.range.end.character) == (line, col + 3)
        assert len(diags) == 2
        assert await e.change(path, text) == []

    session(scenario)


def test_an_error_in_an_imported_file_shows_on_the_line_that_imports_it(tmp_path):
    (tmp_path / "shared.rules").write_text("define bonus = 1 +\n", encoding="utf-8")
    game = ('game "G"\nplayers 2\nimport "shared.rules"\nzone deck: stack, hidden\n' + REST +
            'action pass { end turn }\n')
    path = tmp_path / "game.rules"

    async def scenario(e: Editor):
        diags = await e.open(path, game)
        assert len(diags) == 1
        assert diags[0].range.start.line == 2  # the import
        assert "shared.rules:1" in diags[0].message and "unexpected end of file" in diags[0].message
        assert diags[0].related_information[0].location.uri.endswith("shared.rules")
        # the shared file, opened and fixed in the editor, fixes the game at once
        uri = from_fs_path(str(path))
        before = e.count[uri]
        shared = await e.open(tmp_path / "shared.rules", "define bonus = 1 + 2\n")
        assert [d.message.split("\n")[0] for d in shared] == [
            "this file declares no game (no `game`, `players` or actions)"]
        assert await e.published(uri, 1, before) == []
        # closed unsaved, it is read from the disk again, where it is still broken
        before = e.count[uri]
        e.client.text_document_did_close(lsp.DidCloseTextDocumentParams(
            lsp.TextDocumentIdentifier(from_fs_path(str(tmp_path / "shared.rules")))))
        [again] = await e.published(uri, 1, before)
        assert "unexpected end of file" in again.message

    session(scenario)


def test_warnings_of_check_are_warnings(tmp_path):
    game = ('game "G"\nplayers 2\nzone deck: stack, hidden\nzone hand per player: hand, private\n'
            + REST +
            'action play {\n    choose c in me.hand as "play {c"\n    move c to deck\n}\n')

    async def scenario(e: Editor):
        diags = await e.open(tmp_path / "g.rules", game)
        assert [d.severity for d in diags] == [lsp.DiagnosticSeverity.Warning]
        assert "a `{` with no `}`" in diags[0].message

    session(scenario)


# ---------------------------------------------------------------- names


def test_hover_shows_kind_type_and_doc_comment_and_an_attribute_its_values():
    text = TAMALO.read_text(encoding="utf-8")

    async def scenario(e: Editor):
        await e.open(TAMALO)
        line, col = position_of(text, "define points")
        shown = await e.hover(TAMALO, line, col + len("define p"))
        assert "define points(c: card): a number" in shown
        assert "M9: card points; an empty place scores nothing." in shown
        line, col = position_of(text, "var caller")
        assert "var caller: a player" in await e.hover(TAMALO, line, col + 5)
        line, col = position_of(text, "c.rank")
        shown = await e.hover(TAMALO, line, col + 3)
        assert "attribute of card playing" in shown
        assert 'values: "A", "2", "3"' in shown and '"K"' in shown
        assert "standard52.rules" in shown  # where it comes from
        line, col = position_of(text, "rank: text")
        assert "parameter rank: a text" in await e.hover(TAMALO, line, col)
        line, col = position_of(text, "count(deck)")
        shown = await e.hover(TAMALO, line, col)
        assert "count: built-in function" in shown and "here: a number" in shown
        assert await e.hover(TAMALO, 0, 0) is None  # a comment: nothing to say

    session(scenario)


def test_definition_and_references_across_an_import():
    text = TAMALO.read_text(encoding="utf-8")
    prelude = GAMES / "prelude" / "standard52.rules"

    async def scenario(e: Editor):
        await e.open(TAMALO)
        line, col = position_of(text, "c.rank")
        [loc] = await e.definition(TAMALO, line, col + 3)
        assert loc.uri == from_fs_path(str(prelude))
        card_line = prelude.read_text(encoding="utf-8").split("\n")[loc.range.start.line]
        assert card_line.startswith("card playing(rank")
        assert (loc.range.start.character, loc.range.end.character) == (len("card playing("), len("card playing(rank"))
        # the import leads to the file
        line, col = position_of(text, 'import "prelude/standard52.rules"')
        [loc] = await e.definition(TAMALO, line, col + 10)
        assert loc.uri == from_fs_path(str(prelude)) and loc.range.start.line == 0
        # `deck` is declared in the game and filled by the prelude's `cards in deck`

        line, col = position_of(text, "zone deck")
        refs = await e.references(TAMALO, line, col + 6)
        assert {r.uri for r in refs} == {from_fs_path(str(TAMALO)), from_fs_path(str(prelude))}
        code = "\n".join(line.split("#")[0] for line in text.split("\n"))
        assert len([r for r in refs if r.uri == from_fs_path(str(TAMALO))]) == len(re.findall(r"\bdeck\b", code))

    session(scenario)


def test_a_variants_replace_leads_to_what_it_replaces():
    variant = GAMES / "variants" / "tamalo-caller-unprotected.rules"
    text = variant.read_text(encoding="utf-8")

    async def scenario(e: Editor):
        assert await e.open(variant) == []
        line, col = position_of(text, "targets")
        [loc] = await e.definition(variant, line, col + 1)
        assert loc.uri == from_fs_path(str(TAMALO))
        assert TAMALO.read_text(encoding="utf-8").split("\n")[loc.range.start.line].startswith("define targets")

    session(scenario)


def test_completion_offers_the_keywords_the_grammar_allows_and_the_names_in_scope(tmp_path):
    text = TAMALO.read_text(encoding="utf-8")

    async def scenario(e: Editor):
        await e.open(TAMALO)
        line, _ = position_of(text, "    shuffle deck")
        got = await e.complete(TAMALO, line, 4)  # a statement begins here
        assert {"move", "draw", "shuffle", "if", "choose", "deck", "square_size", "points"} <= set(got)
        assert got["points"].kind == lsp.CompletionItemKind.Function
        assert got["deck"].kind == lsp.CompletionItemKind.Variable
        assert "action" not in got and "setup" not in got  # declarations do not begin inside a block
        line, _ = position_of(text, "setup {")
        top = await e.complete(TAMALO, line, 0)  # a declaration begins here
        assert {"zone", "action", "define", "procedure", "setup", "import"} <= set(top)
        assert "shuffle" not in top and "deck" not in top
        # after a dot: the card's attributes and the players' zones and counters
        edited = text.replace("c.rank", "c.", 1)
        await e.change(TAMALO, edited)
        line, col = position_of(edited, "c.")
        after_dot = await e.complete(TAMALO, line, col + 2)
        assert {"rank", "suit", "value", "square", "score"} <= set(after_dot)
        assert "move" not in after_dot
        # a local is offered after it is bound, not before
        line, col = position_of(text, "choose spot in")
        inside = text.index("\n", text.index("choose spot in"))
        line2 = text.count("\n", 0, inside) + 1
        assert "spot" in await e.complete(TAMALO, line2, 4)
        assert "spot" not in await e.complete(TAMALO, line, 4)

    session(scenario)


def test_document_symbols_are_the_outline():
    text = TAMALO.read_text(encoding="utf-8")

    async def scenario(e: Editor):
        await e.open(TAMALO)
        symbols = {s.name: s for s in await e.symbols(TAMALO)}
        assert symbols["deck"].kind == lsp.SymbolKind.Array
        assert symbols["take"].kind == lsp.SymbolKind.Event  # an action
        assert symbols["setup"].kind == lsp.SymbolKind.Event  # a hook
        assert symbols["points"].kind == lsp.SymbolKind.Function
        line, col = position_of(text, "zone deck")
        assert (symbols["deck"].selection_range.start.line, symbols["deck"].selection_range.start.character) == \
            (line, col + 5)
        assert list(symbols).index("deck") < list(symbols).index("take")  # in the file's order

    session(scenario)


# ---------------------------------------------------------------- never crashes


def fuzz_texts(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """The mutated seed games of tests/test_fuzz_rules.py: (name, text)."""
    rng = random.Random(seed)
    sources = sorted(p for p in GAMES.rglob("*.rules"))
    out = []
    for i in range(n):
        src = rng.choice(sources)
        out.append((f"{src.stem}-{i}", mutate(src.read_text(encoding="utf-8"), rng)))
    return out


def test_the_fuzzing_inputs_through_the_protocol_never_stop_the_server(tmp_path):
    async def scenario(e: Editor):
        path = GAMES / "variants" / "fuzz-unsaved.rules"  # never written: a variant's place, unsaved
        texts = fuzz_texts(40)
        await e.open(path, texts[0][1])
        for _, text in texts[1:]:
            diags = await e.change(path, text)
            for d in diags:
                assert d.range.start.line >= 0 and d.message
            await e.symbols(path)
            await e.complete(path, random.Random(len(text)).randrange(text.count("\n") + 1), 0)
            await e.hover(path, 3, 3)
        assert await e.change(path, TAMALO.read_text(encoding="utf-8").replace("prelude/", "../prelude/")) == []

    session(scenario)


def with_spans(node: object) -> object:
    """A parse as data, positions included, to compare two parses exactly."""
    import attrs

    from rulesdsl import ast

    if isinstance(node, (list, tuple)):
        return tuple(with_spans(x) for x in node)
    if isinstance(node, ast.Node):
        return (type(node).__name__, *(with_spans(getattr(node, f.name)) for f in attrs.fields(type(node))))
    return node


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.long)])
def test_parsing_a_file_declaration_by_declaration_is_parsing_it_whole(seed):
    """The server parses an edited file one declaration at a time (and keeps each): the same
    declarations at the same places as the parser's, or the same errors, on the games, their
    mutations, and each mutation edited again (the cache then answers for the untouched parts)."""
    ws = Workspace()
    rng = random.Random(seed)
    texts = [p.read_text(encoding="utf-8") for p in sorted(GAMES.rglob("*.rules"))]
    texts += [t for _, t in fuzz_texts(80, seed)]
    texts += [mutate(t, rng) for t in texts[-20:]]
    for text in texts:
        assert_parsed_alike(ws, text)


def assert_parsed_alike(ws: Workspace, text: str) -> None:
    from rulesdsl.parser import parse_text

    try:
        whole = parse_text(text, "x.rules")
    except RulesError as e:
        with pytest.raises(RulesError) as got:
            ws.parse_edited(text, "x.rules")
        assert got.value.diagnostics == e.diagnostics
        return
    assert with_spans(ws.parse_edited(text, "x.rules")) == with_spans(whole)


@pytest.mark.fuzz
@settings(max_examples=GRAMMAR_TEXTS, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.deferred(lambda: grammar_strategy()))
def test_parsing_declaration_by_declaration_is_parsing_whole_on_files_from_the_grammar(text):
    assert_parsed_alike(Workspace(), text)


def every_request(ws: Workspace, path: str, text: str) -> None:
    """What the handlers do for a text: its diagnostics, and at lines through it, hover,
    definitions, references, completion; formatting. Any exception fails the test."""
    from rulesdsl.fmt import format_text
    from rulesdsl.lsp import server

    a = ws.analyze(path, text)
    for d in a.diagnostics:
        server.to_lsp_diagnostic(d, a)
    for line in range(1, text.count("\n") + 2, 5):
        for col in (1, 5, 12):
            use = a.at(a.path, line, col)
            if use is not None:
                server.hover_text(a, use)
                server.definitions(a, use)
                a.references(use.symbol)
        server.completions(a, text, line, 5)
    try:
        format_text(text, path)
    except RulesError as e:
        assert not any("internal error" in d.message for d in e.diagnostics)


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", [0, *(pytest.param(k, marks=pytest.mark.long) for k in (1, 2))])
def test_every_request_on_every_fuzzing_input_answers(seed):
    """The same inputs (more of them) straight through the handlers, at lines through each."""
    ws = Workspace()
    for name, text in fuzz_texts(60, seed):
        every_request(ws, str(GAMES / f"{name}.rules"), text)


@pytest.mark.fuzz
@settings(max_examples=GRAMMAR_TEXTS * 3 // 4, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.deferred(lambda: grammar_strategy()))
def test_every_request_on_files_generated_from_the_grammar_answers(text):
    every_request(Workspace(), str(generated_dir() / "_lsp.rules"), text)


def test_without_pygls_the_command_says_which_extra_to_install(monkeypatch):
    import io

    from rulesdsl.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)  # (an import of it fails, as when it is not installed)
    err = io.StringIO()
    assert main(["lsp"], stderr=err) == 2
    assert err.getvalue() == "rulesdsl lsp: error: rulesdsl lsp needs pygls: pip install 'rulesdsl[lsp]'\n"


def test_the_speed_benchmark_runs(capsys):
    """bench/lsp_speed.py keeps working (its figures are reported in bench/RESULTS.md, not tested)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("lsp_speed", ROOT / "bench" / "lsp_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--edits", "2"]) == 0
    out = capsys.readouterr().out
    assert "| didChange to publishDiagnostics, over stdio (CPU: the server's) | 2 |" in out


def test_formatting_gives_the_house_style_and_nothing_for_a_file_that_does_not_parse(tmp_path):
    messy = 'game "G"\nplayers 2\nzone deck : stack,hidden   \n' + REST + 'action pass {\nend turn\n}\n\n\n'
    path = tmp_path / "g.rules"

    async def scenario(e: Editor):
        await e.open(path, messy)
        params = lsp.DocumentFormattingParams(lsp.TextDocumentIdentifier(from_fs_path(str(path))),
                                              lsp.FormattingOptions(4, True))
        [edit] = await e.client.text_document_formatting_async(params)
        assert (edit.range.start.line, edit.range.start.character) == (0, 0)
        assert (edit.range.end.line, edit.range.end.character) == (messy.count("\n"), 0)
        assert "zone deck: stack, hidden\n" in edit.new_text and "action pass {\n    end turn\n}\n" in edit.new_text
        await e.change(path, edit.new_text)
        assert not await e.client.text_document_formatting_async(params)
        await e.change(path, messy + "action {")
        assert await e.client.text_document_formatting_async(params) is None

    session(scenario)


def test_a_text_too_large_for_check_is_refused_as_check_refuses_it(tmp_path):
    from rulesdsl.loader import MAX_BYTES

    big = 'game "G"\n' + "# " + "x" * MAX_BYTES + "\n"
    [d] = Workspace().analyze(str(tmp_path / "big.rules"), big).diagnostics
    assert f"it is too large ({len(big)} bytes; the limit is {MAX_BYTES})" in d.message


@pytest.mark.parametrize("path", sorted(GAMES.rglob("*.rules")), ids=lambda p: str(p.relative_to(GAMES)))
def test_every_name_and_use_found_in_the_games_stands_where_its_name_is_written(path):
    """Each declaration's name and each use the server links point at the name as written, and
    every name of a game's code is linked (but the built-in ones and a scenario's players)."""
    a = Workspace().analyze(str(path), path.read_text(encoding="utf-8"))
    assert not [d for d in a.diagnostics if d.severity == "error"] or path.parent.name == "prelude"  # (no game)
    lines = {p: src.split("\n") for p, src in a.sources.items()}
    for use in a.uses:
        s = use.span
        assert s.line == s.end_line, use
        assert lines[s.file][s.line - 1][s.column - 1: s.end_column - 1] == use.symbol.name, (s, use.symbol.name)
    linked = {(u.span.line, u.span.column) for u in a.uses if u.span.file == str(path)}
    unlinked = [n for n in names_in(a.decls) if (n.span.line, n.span.column) not in linked
                and n.id not in builtin_names() and n.id not in ("it", "alice", "bob", "carol", "dave", "erin")]
    assert not unlinked, [(n.id, str(n.span)) for n in unlinked]


def names_in(node) -> list:
    """Every name written in an expression, at any depth."""
    import attrs

    from rulesdsl import ast

    if isinstance(node, (list, tuple)):
        return [n for x in node for n in names_in(x)]
    if not isinstance(node, ast.Node):
        return []
    own = [node] if isinstance(node, ast.Name) else []
    return own + [n for f in attrs.fields(type(node)) if f.name != "span" for n in names_in(getattr(node, f.name))]


def test_completion_offers_nothing_in_a_comment_or_a_text_but_names_in_its_values():
    from rulesdsl.lsp import server

    text = TAMALO.read_text(encoding="utf-8")
    a = Workspace().analyze(str(TAMALO), text)
    line, col = position_of(text, "# M2: turn the top card")
    assert server.completions(a, text, line + 1, col + 8) == []
    line, col = position_of(text, '"look" else "skip"')
    assert server.completions(a, text, line + 1, col + 3) == []
    edited = text.replace('"look" else "skip"', '"look at {sq', 1)
    names = {i.label for i in server.completions(a, edited, line + 1, col + len('"look at {sq') + 1)}
    assert "square_size" in names and "move" not in names


def test_imports_may_read_the_folders_of_allow_path(tmp_path):
    """`rulesdsl lsp --allow-path DIR`, as `check --allow-path DIR`."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "deck.rules").write_text("card coin\ncards in deck { 4 coin }\n", encoding="utf-8")
    game = tmp_path / "game" / "g.rules"
    game.parent.mkdir()
    text = (f'game "G"\nplayers 2\nimport "{shared / "deck.rules"}"\nzone deck: stack, hidden\n'
            "game ends when empty(deck)\nwinners are players\naction pass { end turn }\n")
    [refused] = Workspace().analyze(str(game), text).diagnostics
    assert "outside the folders rules may be read from" in refused.message
    assert Workspace((str(shared),)).analyze(str(game), text).diagnostics == []


def test_hover_shows_a_declarations_description_and_display_name():
    text = TAMALO.read_text(encoding="utf-8")

    async def scenario(e: Editor):
        await e.open(TAMALO)
        line, col = position_of(text, "zone deck")
        shown = await e.hover(TAMALO, line, col + 6)
        assert "zone deck: stack, hidden" in shown and 'shown at the table as "draw pile"' in shown
        assert "face down. When it is empty and a card must be drawn" in shown
        line, col = position_of(text, "action call")
        assert "call Tamalo: your whole turn" in await e.hover(TAMALO, line, col + 8)

    session(scenario)
