"""`rulesdsl lsp`: the Language Server Protocol over stdio (pygls), on top of analysis.py.

Every request is answered from the last analysis of its document, made when the document was
opened or changed; an analysis that fails inside (a bug) is logged to the editor and leaves the
server running, since an editor whose server died shows nothing at all.
"""

from __future__ import annotations

import os
import re
import traceback
from pathlib import Path

from lark.exceptions import LarkError
from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__, ast
from ..checker.types import CARD_BUILTIN_ATTRS, PLAYER_BUILTIN_ATTRS, TYPE_NAMES, describe, elem
from ..errors import Diagnostic, RulesError
from ..fmt import TOKEN
from ..parser import _split_decls, lark_parser
from .analysis import WORD, Analysis, Symbol, Use, Workspace, builtin_names, literal_text

KIND_OF_SYMBOL = {
    "param": lsp.SymbolKind.Constant, "card": lsp.SymbolKind.Class, "zone": lsp.SymbolKind.Array,
    "counter": lsp.SymbolKind.Variable, "var": lsp.SymbolKind.Variable, "define": lsp.SymbolKind.Function,
    "procedure": lsp.SymbolKind.Function, "action": lsp.SymbolKind.Event, "hook": lsp.SymbolKind.Event,
    "statistic": lsp.SymbolKind.Property, "invariant": lsp.SymbolKind.Boolean, "scenario": lsp.SymbolKind.Module,
    "file": lsp.SymbolKind.File,
}
KIND_OF_COMPLETION = {
    "param": lsp.CompletionItemKind.Constant, "zone": lsp.CompletionItemKind.Variable,
    "counter": lsp.CompletionItemKind.Variable, "var": lsp.CompletionItemKind.Variable,
    "define": lsp.CompletionItemKind.Function, "procedure": lsp.CompletionItemKind.Function,
    "local": lsp.CompletionItemKind.Variable, "parameter": lsp.CompletionItemKind.Variable,
    "attribute": lsp.CompletionItemKind.Field, "card": lsp.CompletionItemKind.Class,
}
HOOK_NAMES = {"setup": "setup", "round_start": "round start", "round_end": "round end",
              "turn_start": "turn start", "turn_end": "turn end", "game_end": "game end"}


class RulesServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("rulesdsl", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.ws = Workspace()
        self.analyses: dict[str, Analysis] = {}  # uri -> its last analysis

    def path_of(self, uri: str) -> str:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if not path:  # an editor's buffer never saved: read as if in the current folder
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", uri.rsplit("/", 1)[-1]) or "untitled"
            path = os.path.join(os.getcwd(), name if name.endswith(".rules") else name + ".rules")
        return os.path.normpath(path)

    def refresh(self, uri: str) -> None:
        """Analyse a document again and publish its diagnostics; then the open documents that read it."""
        self._analyse(uri)
        self.readers_again(_real(self.path_of(uri)), uri)

    def readers_again(self, path: str, but: str | None = None) -> None:
        """Analyse again the open documents that read `path` (but the one named)."""
        for other, a in list(self.analyses.items()):
            if other != but and path in a.reads:
                self._analyse(other)

    def _analyse(self, uri: str) -> None:
        doc = self.workspace.get_text_document(uri)
        path = self.path_of(uri)
        try:
            a = self.ws.analyze(path, doc.source)
        except Exception:  # a bug, never the user's mistake: say so, and keep serving
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error,
                                                         "rulesdsl: internal error\n" + traceback.format_exc()))
            return
        self.analyses[uri] = a
        diags = [to_lsp_diagnostic(d, a) for d in a.diagnostics]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags,
                                                                            version=doc.version))


server = RulesServer()


def guarded(fn):
    """A request handler that answers None rather than fail (see the module's docstring)."""

    def run(ls: RulesServer, params):
        try:
            return fn(ls, params)
        except Exception:
            ls.window_log_message(lsp.LogMessageParams(lsp.MessageType.Error,
                                                       "rulesdsl: internal error\n" + traceback.format_exc()))
            return None

    run.__name__ = fn.__name__
    return run


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
    ls.ws.open[_real(ls.path_of(params.text_document.uri))] = params.text_document.text
    ls.refresh(params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.ws.open[_real(ls.path_of(uri))] = ls.workspace.get_text_document(uri).source
    ls.refresh(uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    closed = _real(ls.path_of(uri))
    ls.ws.open.pop(closed, None)
    ls.analyses.pop(uri, None)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    ls.readers_again(closed)  # (they read the file on disk now, not its unsaved text)


def _real(path: str) -> str:
    return str(Path(path).resolve())


# ---------------------------------------------------------------- positions


def to_lsp_position(sources: dict[str, str], path: str, line: int, col: int) -> lsp.Position:
    """A 1-based (line, column in characters) as LSP's 0-based (line, UTF-16 units)."""
    text = sources.get(path, "")
    lines = text.split("\n")
    line = max(line, 1)
    src = lines[line - 1] if line - 1 < len(lines) else ""
    prefix = src[: max(col - 1, 0)]
    return lsp.Position(line - 1, len(prefix.encode("utf-16-le")) // 2 + max(col - 1 - len(src), 0))


def from_lsp_position(text: str, pos: lsp.Position) -> tuple[int, int]:
    lines = text.split("\n")
    src = lines[pos.line] if pos.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(src):
        if units >= pos.character:
            return pos.line + 1, i + 1
        units += 2 if ord(ch) > 0xFFFF else 1
    return pos.line + 1, len(src) + 1 + max(pos.character - units, 0)


def to_range(span: ast.Span, sources: dict[str, str]) -> lsp.Range:
    if span.line <= 0:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1))
    end_line, end_col = (span.end_line, span.end_column) if span.end_line > 0 else (span.line, span.column + 1)
    return lsp.Range(to_lsp_position(sources, span.file, span.line, span.column),
                     to_lsp_position(sources, span.file, end_line, end_col))


def to_location(span: ast.Span, sources: dict[str, str]) -> lsp.Location:
    return lsp.Location(from_fs_path(os.path.abspath(span.file)) or span.file, to_range(span, sources))


def to_lsp_diagnostic(d: Diagnostic, a: Analysis) -> lsp.Diagnostic:
    """A diagnostic on the document; one found in a file it reads stands on the line that reads it."""
    severity = lsp.DiagnosticSeverity.Warning if d.severity == "warning" else lsp.DiagnosticSeverity.Error
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    span = d.span
    related = None
    if span is None or span.line <= 0:
        span = ast.Span(a.path, 1, 1, 1, 2)
    elif span.file != a.path:
        related = [lsp.DiagnosticRelatedInformation(to_location(span, a.sources), d.message)]
        message = f"{span.file}:{span.line}:{span.column}: {message}"
        span = _reading_line(a, span.file)
    return lsp.Diagnostic(to_range(span, a.sources), message, severity=severity, source="rulesdsl",
                          related_information=related)


def _reading_line(a: Analysis, other: str) -> ast.Span:
    """The `import` or `extends` of the document through which it reads `other`."""
    reads = [d for d in a.decls if isinstance(d, (ast.Import, ast.Extends))]
    name = os.path.basename(other)
    direct = [d for d in reads if os.path.basename(d.path) == name or os.path.basename(d.path) + ".rules" == name]
    d = (direct or reads or [None])[0]
    return d.span if d is not None else ast.Span(a.path, 1, 1, 1, 2)


# ---------------------------------------------------------------- requests


def _use_at(ls: RulesServer, uri: str, pos: lsp.Position) -> tuple[Analysis, Use] | None:
    a = ls.analyses.get(uri)
    if a is None:
        return None
    line, col = from_lsp_position(a.sources.get(a.path, ""), pos)
    use = a.at(a.path, line, col)
    return (a, use) if use is not None else None


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@guarded
def hover(ls: RulesServer, params: lsp.HoverParams) -> lsp.Hover | None:
    found = _use_at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    a, use = found
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, hover_text(a, use)),
                     to_range(use.span, a.sources))


def hover_text(a: Analysis, use: Use) -> str:
    """A name's kind, type and doc comment; a card attribute's values."""
    sym = use.symbol
    head = sym.detail or f"{sym.kind} {sym.name}"
    t = _type_of(a, use)
    if t and ":" not in head:
        head += f": {describe(t)}"
    out = [f"```rulesdsl\n{head}\n```"]
    if sym.kind == "attribute" and a.attr_values.get(sym.name):
        values = ", ".join(literal_text(v) for v in a.attr_values[sym.name])
        out.append(f"values: {values}")
    elif t and sym.kind not in ("local", "parameter") and describe(t) not in head:
        out.append(f"here: {describe(t)}")  # (a define's call over a list gives a list)
    if sym.doc:
        out.append(sym.doc)
    decl = a.declarations(sym)[0] if sym.kind not in ("local", "parameter") else sym
    if decl.span.file != a.path and decl.span.line > 0:
        where = os.path.relpath(decl.span.file, os.path.dirname(a.path)) if os.path.isabs(decl.span.file) else \
            decl.span.file
        out.append(f"declared in {where}:{decl.span.line}:{decl.span.column}")
    return "\n\n".join(out)


def _type_of(a: Analysis, use: Use) -> str | None:
    """The type the checker gave this use, or (on a local's declaration) one of its uses."""
    if use.node is not None and id(use.node) in a.types:
        return a.types[id(use.node)]
    sym = use.symbol
    if sym.kind in ("local", "parameter"):
        if isinstance(sym.node, ast.TypedParam):
            return TYPE_NAMES.get(sym.node.type, sym.node.type)
        for u in a.references(sym):
            if u.node is not None and id(u.node) in a.types:
                return a.types[id(u.node)]
        if isinstance(sym.node, ast.Let) and id(sym.node.value) in a.types:
            return a.types[id(sym.node.value)]
        if isinstance(sym.node, ast.ForEach) and id(sym.node.seq) in a.types:
            return elem(a.types[id(sym.node.seq)])
    return None


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@guarded
def definition(ls: RulesServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
    return _locations(ls, params, lambda a, use: [s.span for s in definitions(a, use)])


def _locations(ls: RulesServer, params, spans) -> list[lsp.Location] | None:
    """The places `spans(analysis, use)` gives for the name under the cursor."""
    found = _use_at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    a, use = found
    return [to_location(span, a.sources) for span in spans(a, use)] or None


def definitions(a: Analysis, use: Use) -> list[Symbol]:
    """Where a name is declared: a `replace` leads to what it replaces; a use to the declaration
    in force first (a variant's replacement), then the base's."""
    sym = use.symbol
    decls = [s for s in a.declarations(sym) if s.span.line > 0]  # (a built-in name is declared nowhere)
    if use.span == sym.span and sym.replaces:
        return [s for s in decls if not s.replaces] or decls
    return sorted(decls, key=lambda s: not s.replaces)


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@guarded
def references(ls: RulesServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
    def spans(a: Analysis, use: Use) -> list[ast.Span]:
        declared = {id(s.span) for s in a.declarations(use.symbol)}
        return [u.span for u in a.references(use.symbol)
                if params.context.include_declaration or id(u.span) not in declared]

    return _locations(ls, params, spans)


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def document_symbols(ls: RulesServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
    a = ls.analyses.get(params.text_document.uri)
    if a is None:
        return None
    out = []
    names = {id(s.node): s for s in a.symbols if s.span.file == a.path and s.kind not in ("attribute",)}
    for d in a.decls:
        inner = d.decl if isinstance(d, ast.Replace) else d
        sym = names.get(id(inner))
        if sym is not None:
            name, kind, sel, detail = sym.name, sym.kind, sym.span, sym.detail
        elif isinstance(inner, ast.Hook):
            name, kind, sel, detail = HOOK_NAMES.get(inner.when, inner.when), "hook", inner.span, ""
        elif isinstance(inner, ast.Scenario):
            name, kind, sel, detail = f'scenario "{inner.name}"', "scenario", inner.span, ""
        else:
            continue
        rng = to_range(d.span, a.sources)
        sel_rng = to_range(sel, a.sources) if sel.file == a.path and sel.line >= d.span.line else rng
        out.append(lsp.DocumentSymbol(name or "?", KIND_OF_SYMBOL[kind], rng, sel_rng, detail=detail or None))
    return out


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
@guarded
def formatting(ls: RulesServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
    """`rulesdsl fmt` on the editor's text: one edit for the whole text, none if it does not parse."""
    from ..fmt import format_text

    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    try:
        new = format_text(text, ls.path_of(uri))
    except RulesError:
        return None
    if new == text:
        return []
    lines = text.split("\n")
    end = to_lsp_position({"": text}, "", len(lines), len(lines[-1]) + 1)
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), new)]


# ---------------------------------------------------------------- completion


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
@guarded
def completion(ls: RulesServer, params: lsp.CompletionParams) -> lsp.CompletionList | None:
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    a = ls.analyses.get(uri)
    if a is None:
        return None
    return lsp.CompletionList(False, completions(a, text, *from_lsp_position(text, params.position)))


def completions(a: Analysis, text: str, line: int, col: int) -> list[lsp.CompletionItem]:
    """After a `.`: attributes. Else the keywords the grammar allows here, and the names in scope."""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    at = min(starts[min(line, len(starts)) - 1] + col - 1, len(text))
    word = re.search(WORD + r"$", text[:at])
    before = text[: at - len(word.group(0))] if word else text[:at]
    if before.rstrip().endswith(".") and not before.rstrip().endswith(".."):
        return _attributes(a)
    last = TOKEN.findall(before[before.rfind("\n") + 1 :]) or [""]
    if last[-1].startswith("#"):
        return []  # (in a comment)
    if last[-1].startswith('"') and (len(last[-1]) == 1 or not last[-1].endswith('"')):
        hole = last[-1].rfind("{") > last[-1].rfind("}")
        return _names_in_scope(a, line, col) if hole else []  # (in a text: names only in a `{...}`)
    allowed = _allowed_terminals(before)
    items = [lsp.CompletionItem(k, kind=lsp.CompletionItemKind.Keyword) for k in sorted(_keywords(allowed))]
    if allowed is None or "NAME" in allowed:
        items.extend(_names_in_scope(a, line, col))
    return items


def _attributes(a: Analysis) -> list[lsp.CompletionItem]:
    seen: dict[str, lsp.CompletionItem] = {}
    for s in a.symbols:
        if s.kind == "attribute" or (s.kind in ("zone", "counter", "var") and _per_player(s.node)):
            seen.setdefault(s.name, lsp.CompletionItem(s.name, kind=KIND_OF_COMPLETION[s.kind], detail=s.detail))
    for name, t in {**PLAYER_BUILTIN_ATTRS, **CARD_BUILTIN_ATTRS}.items():
        seen.setdefault(name, lsp.CompletionItem(name, kind=lsp.CompletionItemKind.Field,
                                                 detail=f"built-in attribute: {describe(t)}"))
    return list(seen.values())


def _per_player(node: ast.Node) -> bool:
    return bool(getattr(node, "per_player", False))


def _names_in_scope(a: Analysis, line: int, col: int) -> list[lsp.CompletionItem]:
    here = next((d.span for d in a.decls if (d.span.line, d.span.column) <= (line, col)
                 <= (d.span.end_line, d.span.end_column)), None)
    items: dict[str, lsp.CompletionItem] = {}
    for s in a.symbols:
        if s.kind in ("local", "parameter"):
            if here is None or s.span.file != a.path or not (
                    (here.line, here.column) <= (s.span.line, s.span.column) < (line, col)):
                continue
        elif s.kind not in KIND_OF_COMPLETION or s.kind == "attribute":
            continue
        items.setdefault(s.name, lsp.CompletionItem(s.name, kind=KIND_OF_COMPLETION[s.kind],
                                                    detail=s.detail or s.kind,
                                                    documentation=s.doc or None))
    for name, what in builtin_names().items():
        kind = lsp.CompletionItemKind.Function if what.endswith("function") else lsp.CompletionItemKind.Constant
        items.setdefault(name, lsp.CompletionItem(name, kind=kind, detail=what))
    return list(items.values())


def _allowed_terminals(before: str) -> set[str] | None:
    """The terminals the parser accepts after `before` (from the start of its declaration), or
    None when that text does not parse so far (then every keyword may be meant)."""
    start = _split_decls(before)[-1][0] if before else 0
    try:
        ip = lark_parser().parse_interactive(before[start:], start="start")
        ip.exhaust_lexer()
        return set(ip.accepts())
    except (LarkError, RecursionError):
        return None


def _keywords(allowed: set[str] | None) -> set[str]:
    """The words of the language among `allowed` terminals (all of them for None)."""
    out = set()
    for t in lark_parser().terminals:
        p = t.pattern
        if p.type == "str" and re.fullmatch(WORD, p.value) and (allowed is None or t.name in allowed):
            out.add(p.value)
    return out


def main(allow_paths: tuple[str, ...] = ()) -> None:
    """Serve over stdio; `allow_paths`: more folders imports may read (as `check --allow-path`)."""
    server.ws.allow_paths = tuple(allow_paths)
    server.start_io()
