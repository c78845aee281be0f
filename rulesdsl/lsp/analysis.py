"""What the language server knows about one rules file: its diagnostics (those `rulesdsl check`
gives), the names it declares and uses, and where each use leads. No protocol here: server.py
turns this into LSP messages, so the analysis can be tested and measured on its own.

A file is read as `check` reads it (imports and extends followed, inside the same roots), except
that open editors' texts take the place of the files on disk, and a file already parsed is not
parsed again (its imports rarely change while its importer is edited). A file that does not
parse is split into declarations (as the parser's error recovery does) and the ones that parse
still give symbols, hovers and definitions.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import itertools
import os
import re
from collections.abc import Iterator
from pathlib import Path

import attrs

from .. import ast
from ..checker import Checker
from ..checker.base import TooManyErrors
from ..checker.types import BUILTIN_FUNCS, BUILTIN_VALUES, describe, type_of_value
from ..errors import Diagnostic, RulesError
from ..loader import Roots, _Loader, _real
from ..parser import DECL_WORDS, _split_decls, parse_text

WORD = r"[A-Za-z_][A-Za-z0-9_]*"
# A value's namespace: what an expression's bare name may be. Card kinds, attributes and the
# other declarations (actions, statistics, ...) are named only where their own place is.
VALUE_KINDS = ("param", "zone", "counter", "var", "define", "procedure")
# How a declaration begins, up to its name (the name is the first word after this).
DECL_HEADS: dict[type, tuple[str, str]] = {
    ast.Param: ("param", r"param"), ast.CardKind: ("card", r"card"), ast.Zone: ("zone", r"zone"),
    ast.Counter: ("counter", r"counter"), ast.Var: ("var", r"var"), ast.Define: ("define", r"define"),
    ast.Procedure: ("procedure", r"procedure"), ast.Action: ("action", r"action"),
    ast.Statistic: ("statistic", r"statistic"), ast.Invariant: ("invariant", r"invariant"),
}
DECL_LINE = re.compile(rf"^(?:{'|'.join(DECL_WORDS)})\b", re.M)
# How many parsed files the server keeps (each keyed by its path and text).
PARSE_CACHE = 64
PART_CACHE = 4096  # declarations of files being edited, each keyed by its text and line


@attrs.define(eq=False)
class Symbol:
    """A declared name: a game's (zone, define, ...) or a local (let, for each, choose, parameter)."""

    name: str
    kind: str
    span: ast.Span  # the name where it is declared (ast.NOWHERE for a built-in name)
    node: ast.Node | None
    doc: str = ""
    detail: str = ""
    replaces: bool = False  # declared by `replace` in a variant

    @property
    def key(self) -> tuple:
        """Which declarations are one name: a game's by namespace and name, a local by itself."""
        if self.kind in VALUE_KINDS:
            return ("value", self.name)
        if self.kind in ("local", "parameter"):
            return ("local", id(self))
        return (self.kind, self.name)


@attrs.define
class Use:
    span: ast.Span
    symbol: Symbol
    node: ast.Node | None = None  # the expression, whose type the checker may know


@attrs.define
class Analysis:
    path: str
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    decls: list[ast.Decl]  # the file's own declarations (those that parsed)
    symbols: list[Symbol]  # every declaration of every file read
    uses: list[Use]
    types: dict[int, str] = attrs.Factory(dict)
    attr_values: dict[str, list] = attrs.Factory(dict)
    checker: Checker | None = None
    reads: set[str] = attrs.Factory(set)  # the real paths of the files it read (or tried to)

    def at(self, path: str, line: int, col: int) -> Use | None:
        """The name under (line, col) (1-based), the narrowest that holds it."""
        best = None
        for u in self.uses:
            s = u.span
            if s.file == path and _inside(s, line, col) and (best is None or _width(s) < _width(best.span)):
                best = u
        return best

    def declarations(self, sym: Symbol) -> list[Symbol]:
        same = [s for s in self.symbols if s.key == sym.key] or [sym]  # (a built-in name is in no file)
        return sorted(same, key=lambda s: s.replaces)  # (the base's first: a `replace` leads to it)

    def references(self, sym: Symbol) -> list[Use]:
        return [u for u in self.uses if u.symbol.key == sym.key]


def _inside(s: ast.Span, line: int, col: int) -> bool:
    return (s.line, s.column) <= (line, col) <= (s.end_line, s.end_column)


def _width(s: ast.Span) -> tuple[int, int]:
    return (s.end_line - s.line, s.end_column - s.column)


class _Lines:
    """A source's line starts, to go between (line, column) and offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.rows = text.split("\n")

    def offset(self, line: int, col: int) -> int:
        if line < 1 or line > len(self.starts):
            return len(self.text)
        return min(self.starts[line - 1] + max(col - 1, 0), len(self.text))

    def span(self, path: str, start: int, end: int) -> ast.Span:
        def pos(o: int) -> tuple[int, int]:
            k = bisect.bisect_right(self.starts, o) - 1
            return k + 1, o - self.starts[k] + 1

        (l1, c1), (l2, c2) = pos(start), pos(end)
        return ast.Span(path, l1, c1, l2, c2)


class Workspace:
    """The texts of open editors and the files parsed so far, shared by every analysis."""

    def __init__(self, allow_paths: tuple[str, ...] = ()):
        self.open: dict[str, str] = {}  # real path -> text not yet saved
        self.parsed: dict[tuple[str, str], ast.RulesFile | RulesError] = {}
        self.parts: dict[tuple[str, int, str], tuple[ast.Decl, ...] | RulesError] = {}
        self.allow_paths = allow_paths

    def parse(self, text: str, path: str) -> ast.RulesFile:
        return self._cached(self.parsed, (path, text), PARSE_CACHE, lambda: parse_text(text, path))

    def parse_edited(self, text: str, path: str) -> ast.RulesFile:
        """`parse` for a file being edited: each top-level declaration parsed on its own, where it
        stands, and kept, so that an edit parses again only the declarations it touched. The
        grammar is a sequence of declarations with nothing between them, so when every one
        parses alone, together they are the file's parse; when one does not, the whole file is
        parsed, for the errors `check` gives."""
        key = (path, text)
        if key in self.parsed:
            return self.parse(text, path)
        decls: list[ast.Decl] = []
        above = at = 0
        for start, end in _split_decls(text):
            above += text.count("\n", at, start)
            at = start
            try:
                decls.extend(self.parse_part(text[start:end], above, path))
            except RulesError:
                return self.parse(text, path)
        whole = ast.RulesFile(path, text, tuple(decls), span=ast.Span(path, 1, 1, 1, 1))
        return self._cached(self.parsed, key, PARSE_CACHE, lambda: whole)

    def parse_part(self, part: str, above: int, path: str) -> tuple[ast.Decl, ...]:
        """The declarations of `part`, a piece of a file that begins at a line's start after
        `above` lines."""
        return self._cached(self.parts, (path, above, part), PART_CACHE,
                            lambda: parse_text("\n" * above + part, path).decls)

    @staticmethod
    def _cached(cache: dict, key: tuple, most: int, make):
        """make() once for a key (its RulesError too), the oldest of `most` keys forgotten."""
        got = cache.get(key)
        if got is None:
            try:
                got = make()
            except RulesError as e:
                got = e
            if len(cache) >= most:
                cache.pop(next(iter(cache)))
            cache[key] = got
        if isinstance(got, RulesError):
            raise RulesError(got.diagnostics, got.sources)
        return got

    def analyze(self, path: str, text: str) -> Analysis:
        return _Analyzer(self, path, text).run()


class _ServerLoader(_Loader):
    """The loader of `check`, reading open editors' texts first and parsing through the cache."""

    def __init__(self, roots: Roots, ws: Workspace):
        super().__init__(roots)
        self.ws = ws
        self.files: dict[str, ast.RulesFile] = {}
        self.top: tuple[str, str] | None = None  # (real path, text) of the file being analysed
        self.paths: set[str] = set()  # the real paths of every file it tried to read


    def read(self, path: Path, via: ast.Decl | None, what: str) -> tuple[Path, str]:
        real = _real(path)
        self.paths.add(str(real))
        text = self.top[1] if self.top is not None and self.top[0] == str(real) else self.ws.open.get(str(real))
        if text is not None and str(path).endswith(".rules") and self.roots.holds(real):
            self.reads += 1
            self.left -= len(text.encode("utf-8", "surrogatepass"))
            if self.left < 0:  # (what `check` reads in all is bounded: so is what the editors hold)
                span = via.span if via is not None else ast.Span(str(path), 1, 1, 1, 2)
                raise RulesError([Diagnostic(span, f"cannot {what} '{path}': the files read before it leave "
                                             f"too little of the {self.roots.max_bytes} bytes one load may read")])
            return real, text
        return super().read(path, via, what)

    def parse(self, text: str, path: str) -> ast.RulesFile:
        f = self.ws.parse(text, path)
        self.files[path] = f
        return f


class _Analyzer:
    def __init__(self, ws: Workspace, path: str, text: str):
        self.ws = ws
        self.path = path
        self.text = text
        self.diags: list[Diagnostic] = []
        self.symbols: list[Symbol] = []
        self.uses: list[Use] = []
        self.lines: dict[str, _Lines] = {}
        self.globals: dict[tuple, list[Symbol]] = {}
        self.checker: Checker | None = None
        self.quoted: dict[str, str] = {}  # the texts the errors quote (a file that did not parse)

    def run(self) -> Analysis:
        top = Path(os.path.normpath(self.path))
        loader = _ServerLoader(Roots.of(top, self.ws.allow_paths), self.ws)
        loader.top = (str(_real(top)), self.text)  # (an unsaved file is read from here)
        decls: list[ast.Decl] = []
        sources = {self.path: self.text}
        size = len(self.text.encode("utf-8", "surrogatepass"))
        if size > loader.roots.max_bytes:  # (as `check` refuses it: parsing it would take too long)
            self.diags.append(Diagnostic(ast.Span(self.path, 1, 1, 1, 2), f"cannot read '{self.path}': it is too "
                                         f"large ({size} bytes; the limit is {loader.roots.max_bytes})"))
            return Analysis(self.path, self.diags, sources, [], [], [])
        try:
            own = self.ws.parse_edited(self.text, self.path)
            decls = list(own.decls)
        except RulesError as e:
            self._failed(e)
            decls = self._partial()
            for d in decls:  # the imports of what parsed still give their names
                if isinstance(d, (ast.Import, ast.Extends)):
                    with contextlib.suppress(RulesError):
                        loader.follow(d, top, {}, ())
        else:
            self._check(loader, top)
        files = {self.path: decls}
        for p, f in loader.files.items():
            files.setdefault(p, list(f.decls))
            sources.setdefault(p, f.source)
        for p, src in self.quoted.items():
            sources.setdefault(p, src)
        for p, src in sources.items():
            self.lines[p] = _Lines(src)
        attr_values = self._index(files)
        self._files_read(loader, decls, top)
        types = self.checker.types if self.checker is not None else {}
        return Analysis(self.path, self.diags, sources, decls, self.symbols, self.uses, types, attr_values,
                        self.checker, loader.paths)

    def _files_read(self, loader: _ServerLoader, decls: list[ast.Decl], top: Path) -> None:
        """An `import` or `extends` leads to the file it reads (go to definition opens it)."""
        for d in decls:
            if not isinstance(d, (ast.Import, ast.Extends)):
                continue
            try:
                found = loader.prelude(d) if isinstance(d, ast.Import) and d.prelude else \
                    loader.locate(d.path, top.parent)
            except RulesError:
                continue
            if found.is_file():
                verb = "extends" if isinstance(d, ast.Extends) else "imports"
                where = self._name_span(d.span, r"(?:import(?:\s+prelude)?|extends)", d.path)
                self._add(d.path, "file", where, d, f"{verb} {found}", doc_span=d.span)
                self.symbols[-1].span = ast.Span(str(found), 1, 1, 1, 1)

    def _failed(self, e: RulesError) -> None:
        self.diags.extend(e.diagnostics)
        self.quoted.update(e.sources)

    def _partial(self) -> list[ast.Decl]:
        """The declarations of a file that does not parse, those that parse alone."""
        out: list[ast.Decl] = []
        for s, e in _split_decls(self.text):
            try:
                out.extend(self._parse_at(s, e))
            except RulesError:  # (an unclosed brace swallows what follows: split at each line
                # that begins with a declaration's word, the way the games are laid out)
                cuts = [s, *(m.start() for m in DECL_LINE.finditer(self.text, s + 1, e)), e]
                for a, b in itertools.pairwise(cuts):
                    with contextlib.suppress(RulesError):
                        out.extend(self._parse_at(a, b))
        return out

    def _parse_at(self, start: int, end: int) -> tuple[ast.Decl, ...]:
        """The declarations of text[start:end], parsed where they stand (lines above kept)."""
        return self.ws.parse_part(self.text[start:end], self.text.count("\n", 0, start), self.path)

    def _check(self, loader: _ServerLoader, top: Path) -> None:
        """What `rulesdsl check` says of the file: load, check, compile (all errors and warnings)."""
        from ..compile import compile_program

        try:
            files = loader.resolve(top, None, ()).files()
        except RulesError as e:
            self._failed(e)
            return
        self.checker = Checker(files, None, None)
        try:
            program = self.checker.run()
        except TooManyErrors:
            self.diags.extend(self.checker.diags)
            return
        except RulesError as e:
            self.diags.extend(e.diagnostics)
            return
        try:
            compile_program(program)
        except RulesError as e:
            self.diags.extend(e.diagnostics)
        self.diags.extend(program.warnings)

    # ------------------------------------------------------------ names

    def _index(self, files: dict[str, list[ast.Decl]]) -> dict[str, list]:
        for p, decls in files.items():
            for d in decls:
                self._declare(p, d)
        for syms in self.globals.values():
            syms.sort(key=lambda s: s.replaces)
        for p, decls in files.items():
            for d in decls:
                self._walk_decl(p, d)
        return self._attr_values(files)

    def _name_span(self, span: ast.Span, head: str, name: str) -> ast.Span:
        """Where `name` is written after the words `head` at the start of `span`."""
        lines = self.lines.get(span.file)
        if lines is None or span.line <= 0:
            return span
        start = lines.offset(span.line, span.column)
        end = lines.offset(span.end_line, span.end_column)
        m = re.compile(rf"(?:{head})\s*(?:#[^\n]*\s+)*").match(lines.text, start, end)
        at = m.end() if m else start
        w = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])").search(lines.text, at, max(end, at))
        if w is None:
            return span
        return lines.span(span.file, w.start(), w.end())

    def _doc(self, span: ast.Span) -> str:
        """The comment lines just above a declaration, and the comment ending its first line."""
        lines = self.lines.get(span.file)
        if lines is None or span.line <= 0:
            return ""
        text_lines = lines.rows
        above: list[str] = []
        k = span.line - 2
        while 0 <= k < len(text_lines) and text_lines[k].strip().startswith("#"):
            above.insert(0, text_lines[k].strip().lstrip("#").strip())
            k -= 1
        first = text_lines[span.line - 1] if span.line - 1 < len(text_lines) else ""
        tail = re.search(r'#([^"\n]*)$', first)
        if tail and not first.lstrip().startswith("#"):
            above.append(tail.group(1).strip())
        return "\n".join(x for x in above if x)

    def _add(self, name: str, kind: str, span: ast.Span, node: ast.Node, detail: str = "",
             replaces: bool = False, doc_span: ast.Span | None = None) -> Symbol:
        doc = self._doc(doc_span or span)
        about = getattr(node, "about", None)
        if about is not None:  # (its `about "..."`: what it is, in player language, first)
            words = "".join(p if isinstance(p, str) else "{" + getattr(p, "id", "...") + "}" for p in about.parts)
            doc = words + ("\n" + doc if doc else "")
        if getattr(node, "display", None):
            doc = f'shown at the table as "{node.display}"' + ("\n" + doc if doc else "")
        sym = Symbol(name, kind, span, node, doc, detail, replaces)
        self.symbols.append(sym)
        self.uses.append(Use(span, sym))
        return sym

    def _declare(self, path: str, d: ast.Decl, replaces: bool = False) -> None:
        if isinstance(d, ast.Replace):
            self._declare(path, d.decl, replaces=True)
            return
        head = DECL_HEADS.get(type(d))
        if head is None:
            return
        kind, words = head
        sym = self._add(d.name, kind, self._name_span(d.span, words, d.name), d, self._detail(d), replaces, d.span)
        self.globals.setdefault(sym.key, []).append(sym)
        if isinstance(d, ast.CardKind) and d.attrs:
            for a in d.attrs:
                span = self._name_span(d.span, rf"card\s+{re.escape(d.name)}\s*\((?:[^)]*?)", a)
                attr = Symbol(a, "attribute", span, d, "", f"attribute of card {d.name}")
                self.symbols.append(attr)
                self.uses.append(Use(span, attr))
                self.globals.setdefault(attr.key, []).append(attr)

    def _detail(self, d: ast.Decl) -> str:
        """A declaration's one-line signature, for hovers and the outline."""
        c = self.checker
        if isinstance(d, ast.Param):
            rng = f" in {d.low}..{d.high}" if d.low is not None else ""
            return f"param {d.name}: {describe(type_of_value(d.value))} = {literal_text(d.value)}{rng}"
        if isinstance(d, ast.Zone):
            per = " per player" if d.per_player else ""
            return f"zone {d.name}{per}: " + ", ".join(_zone_option(o) for o in d.options)
        if isinstance(d, (ast.Counter, ast.Var)):
            word = "counter" if isinstance(d, ast.Counter) else "var"
            info = c.var_by_name.get(d.name) if c is not None and hasattr(c, "var_by_name") else None
            t = info.type if info is not None else (d.type if isinstance(d, ast.Var) and d.type else None)
            per = " per player" if d.per_player else ""
            return f"{word} {d.name}{per}" + (f": {describe(t)}" if t else "")
        if isinstance(d, (ast.Define, ast.Procedure)):
            word = "define" if isinstance(d, ast.Define) else "procedure"
            params = "" if d.params is None else "(" + ", ".join(f"{p.name}: {p.type}" for p in d.params) + ")"
            info = c.defines.get(d.name) if c is not None and isinstance(d, ast.Define) and hasattr(c, "defines") \
                else None
            return f"{word} {d.name}{params}" + (f": {describe(info.type)}" if info is not None else "")
        if isinstance(d, ast.CardKind):
            return f"card {d.name}" + (f"({', '.join(d.attrs)})" if d.attrs else "")
        return f"{DECL_HEADS[type(d)][0]} {d.name}"

    def _attr_values(self, files: dict[str, list[ast.Decl]]) -> dict[str, list]:
        """Each card attribute's values, as the `cards in` lists give them."""
        kinds = {d.name: d.attrs for ds in files.values() for d in _unwrapped(ds) if isinstance(d, ast.CardKind)}
        out: dict[str, list] = {}
        for d in (d for ds in files.values() for d in _unwrapped(ds)):
            if isinstance(d, ast.Cards):
                for cc in d.counts:
                    for a, v in zip(kinds.get(cc.kind, ()), cc.values, strict=False):
                        if v not in out.setdefault(a, []):
                            out[a].append(v)
        return out

    # ------------------------------------------------------------ uses

    def _use(self, span: ast.Span, key: tuple, node: ast.Node | None = None, scope: dict | None = None) -> None:
        sym = (scope or {}).get(key[1]) if key[0] == "value" else None
        if sym is None:
            found = self.globals.get(key) or self._builtin(key)
            sym = found[0] if found else None
        if sym is not None:
            self.uses.append(Use(span, sym, node))

    def _builtin(self, key: tuple) -> list[Symbol]:
        """The language's own value or function of that name, as a symbol declared nowhere."""
        what = builtin_names().get(key[1]) if key[0] == "value" else None
        if what is None:
            return []
        sym = Symbol(key[1], "builtin", ast.NOWHERE, None, "", f"{key[1]}: {what}")
        self.globals[("builtin", key[1])] = [sym]
        self.globals[key] = [sym]
        return [sym]

    def _local(self, path: str, scope: dict, name: str, span: ast.Span, head: str, node: ast.Node,
               kind: str = "local") -> None:
        at = self._name_span(span, head, name)
        sym = Symbol(name, kind, at, node)  # (no doc: the comments near it are its statement's)
        self.symbols.append(sym)
        self.uses.append(Use(at, sym))
        scope[name] = sym

    def _walk_decl(self, path: str, d: ast.Decl) -> None:
        if isinstance(d, ast.Replace):
            self._walk_decl(path, d.decl)
            return
        scope: dict[str, Symbol] = {}
        if isinstance(d, (ast.Define, ast.Procedure)):
            head = rf"{DECL_HEADS[type(d)][1]}\s+{re.escape(d.name)}\s*\((?:[^)]*?)"
            for p in d.params or ():
                self._local(path, scope, p.name, d.span, head, p, "parameter")
        if isinstance(d, ast.CardKind):
            for a in d.attrs:
                found = [s for s in self.globals.get(("attribute", a), []) if s.node is d]
                if found:
                    scope[a] = found[0]
            if d.shown is not None:
                self._expr(d.shown, scope)
            return
        if isinstance(d, ast.Cards):
            self._use(d.zone_span, ("value", d.zone))
            for cc in d.counts:
                self._use(self._name_span(cc.span, r"[0-9]+", cc.kind), ("card", cc.kind))
            return
        if isinstance(d, ast.Zone):
            for o in d.options:
                if o.source:
                    self._use(self._name_span(o.span, r"refill\s+from", o.source), ("value", o.source))
            return
        if isinstance(d, ast.Remove):
            kind = d.key[0]
            if len(d.key) > 1 and isinstance(d.key[1], str):
                key = ("value", d.key[1]) if kind in VALUE_KINDS else (kind, d.key[1])
                self._use(self._name_span(d.span, r"remove\s+\w+(?:\s+in)?", d.key[1]), key)
            return
        if isinstance(d, ast.Scenario):
            for step in d.steps:
                if step.target:
                    self._target(step.span, step.target, scope, r"set")
                self._children(step, scope)
            return
        self._children(d, scope)

    def _children(self, node: ast.Node, scope: dict) -> None:
        """Walk the expressions and statements a node holds, in order."""
        for f in attrs.fields(type(node)):
            v = getattr(node, f.name)
            for x in _nodes(v):
                if isinstance(x, ast.Stmt):
                    self._stmt(x, scope)
                elif isinstance(x, (ast.Expr, ast.Template, ast.RankKey)):
                    self._expr(x, scope)

    def _block(self, body, scope: dict) -> None:
        inner = dict(scope)
        for s in body:
            self._stmt(s, inner)

    def _target(self, span: ast.Span, target: tuple[str, ...], scope: dict, head: str = "") -> None:
        first = self._name_span(span, head, target[0]) if head else _word_at(span, target[0])
        self._use(first, ("value", target[0]), None, scope)
        lines = self.lines.get(span.file)
        at = first
        for name in target[1:]:
            if lines is None:
                break
            o = lines.offset(at.end_line, at.end_column)
            m = re.compile(rf"\s*\.\s*({re.escape(name)})").match(lines.text, o)
            if m is None:
                break
            at = lines.span(span.file, m.start(1), m.end(1))
            self._attr_name(at, name)

    def _attr_name(self, span: ast.Span, name: str, node: ast.Node | None = None) -> None:
        per_player = [s for s in self.globals.get(("value", name), ()) if s.kind in ("zone", "counter", "var")]
        if per_player:
            self.uses.append(Use(span, per_player[0], node))
        else:
            self._use(span, ("attribute", name), node)

    def _stmt(self, s: ast.Stmt, scope: dict) -> None:
        if isinstance(s, ast.Let):
            self._expr(s.value, scope)
            self._local(s.span.file, scope, s.name, s.span, r"let", s)
        elif isinstance(s, (ast.ForEach, ast.Race)):  # (a race binds its seat as a loop does)
            self._expr(s.seq, scope)
            inner = dict(scope)
            self._local(s.span.file, inner, s.name, s.span, r"for\s+each", s)
            self._block(s.body, inner)
        elif isinstance(s, ast.Choose):  # (the name is bound in its own domain: `choose c in h where f(c)`)
            self._local(s.span.file, scope, s.name, s.span, r"(?:may\s+)?choose", s)
            for e in (s.domain, s.by, s.label_text, s.pass_text):
                if e is not None:
                    self._expr(e, scope)
        elif isinstance(s, ast.If):
            for cond, body in s.branches:
                self._expr(cond, scope)
                self._block(body, scope)
            if s.orelse is not None:
                self._block(s.orelse, scope)
        elif isinstance(s, (ast.While, ast.Repeat)):
            self._expr(s.cond if isinstance(s, ast.While) else s.count, scope)
            self._block(s.body, scope)
        elif isinstance(s, ast.Assign):
            self._expr(s.value, scope)
            self._target(s.span, s.target, scope)
        elif isinstance(s, ast.CallStmt):
            self._use(_word_at(s.span, s.func), ("value", s.func), s)
            for a in s.args:
                self._expr(a, scope)
        elif isinstance(s, ast.Deal):
            self._children(s, scope)
            self._use(s.zone_span, ("value", s.zone))
        else:
            self._children(s, scope)

    def _expr(self, e: ast.Node, scope: dict) -> None:
        if isinstance(e, ast.Name):
            self._use(e.span, ("value", e.id), e, scope)
        elif isinstance(e, ast.Call):
            self._use(_word_at(e.span, e.func), ("value", e.func), e)
            for a in e.args:
                self._expr(a, scope)
        elif isinstance(e, ast.Attr):
            self._expr(e.obj, scope)
            self._attr_name(e.name_span, e.name, e)
        elif isinstance(e, ast.IsKind):
            self._expr(e.operand, scope)
            self._use(e.kind_span, ("card", e.kind))
        elif isinstance(e, ast.Where):
            self._expr(e.seq, scope)
            self._expr(e.cond, {k: v for k, v in scope.items() if k != "it"})
        else:
            self._children(e, scope)


def _nodes(v) -> Iterator[ast.Node]:
    if isinstance(v, ast.Node):
        yield v
    elif isinstance(v, tuple):
        for x in v:
            yield from _nodes(x)


def _unwrapped(decls: list[ast.Decl]) -> Iterator[ast.Decl]:
    for d in decls:
        yield d.decl if isinstance(d, ast.Replace) else d


def _word_at(span: ast.Span, word: str) -> ast.Span:
    """A name written at the start of a span (a call's function, an assignment's target)."""
    return ast.Span(span.file, span.line, span.column, span.line, span.column + len(word))


def literal_text(v: object) -> str:
    """A value as a rules file writes it."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    return f'"{v}"' if isinstance(v, str) else str(v)


def _zone_option(o: ast.ZoneOption) -> str:
    if o.word != "refill":
        return o.word
    return f"refill from {o.source}" + (f" keeping {o.keep}" if o.keep else "")


@functools.cache
def builtin_names() -> dict[str, str]:
    """The language's own names (values and functions), each with what it is."""
    out = {n: f"built-in value: {describe(t)}" for n, t in BUILTIN_VALUES.items()}
    out.update({n: "built-in function" for n in BUILTIN_FUNCS})
    return out
