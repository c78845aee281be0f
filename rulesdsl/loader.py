"""From a path to the declarations of one game: imports followed, variants resolved.

`import "FILE"` brings another file's declarations in. `extends "FILE"` makes this file a variant:
the base's declarations come first, then this file's, where `replace DECL` takes the place of
the base's declaration of the same thing and `remove ...` drops it. Replacing or removing what
the base lacks, or declaring again what it has without `replace`, is a located error.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs

from . import ast
from .errors import Diagnostic, RulesError, did_you_mean
from .parser import parse_file

# Declarations a variant may simply write again: its own name and player counts win.
HEADERS = ("game", "players")
# Declarations a game may have several of: a variant's own adds one more (`replace` swaps them all).
ADDITIVE = ("ends", "cards")


@attrs.define
class Resolved:
    """One game's declarations, in order, with the variant's own declarations marked."""

    path: str
    decls: list[ast.Decl]
    sources: dict[str, str]
    own: list[ast.Decl] = attrs.Factory(list)  # what the variant itself says (for `explain --diff`)
    removed: list[ast.Remove] = attrs.Factory(list)
    base: str | None = None

    def files(self) -> list[ast.RulesFile]:
        """The checker's input: the merged declarations, then the other files (for their sources)."""
        main = ast.RulesFile(self.path, self.sources[self.path], tuple(self.decls), span=ast.NOWHERE)
        rest = [ast.RulesFile(p, s, (), span=ast.NOWHERE) for p, s in self.sources.items() if p != self.path]
        return [main, *rest]


def resolve(path: str | Path) -> Resolved:
    return _resolve(Path(path), None, ())


def _resolve(path: Path, via: ast.Decl | None, chain: tuple[Path, ...]) -> Resolved:
    path = Path(os.path.normpath(path))  # games/variants/../base.rules -> games/base.rules
    key = path.resolve()
    if key in chain:
        verb = "extends" if isinstance(via, ast.Extends) else "imports"
        raise RulesError([Diagnostic(via.span if via else None,
                                     f"'{path}' {verb} itself (through {len(chain)} files)")])
    if via is not None and not path.exists():
        what = "extend" if isinstance(via, ast.Extends) else "import"
        raise RulesError([Diagnostic(via.span, f"cannot {what} '{via.path}': no such file ({path})")])
    f = parse_file(path)
    sources = {f.path: f.source}
    own: list[ast.Decl] = []
    extends: list[ast.Extends] = []
    errors: list[Diagnostic] = []
    for d in f.decls:
        if isinstance(d, ast.Extends):
            extends.append(d)
        elif isinstance(d, ast.Import):
            sub = _resolve(path.parent / d.path, d, (*chain, key))
            own.extend(sub.decls)
            sources.update(sub.sources)
        else:
            own.append(d)
    for extra in extends[1:]:
        errors.append(Diagnostic(extra.span, "a variant extends one file", f"it already extends '{extends[0].path}'"))
    if not extends:
        for d in own:
            if isinstance(d, (ast.Replace, ast.Remove)):
                word = "replace" if isinstance(d, ast.Replace) else "remove"
                errors.append(Diagnostic(d.span, f"`{word}` changes a base game, and this file extends none",
                                         'begin the file with `extends "BASE.rules"`'))
        if errors:
            raise RulesError(errors, sources)
        return Resolved(f.path, own, sources, own=own)
    base = _resolve(path.parent / extends[0].path, extends[0], (*chain, key))
    sources.update(base.sources)
    merged, removed = _apply(base, own, errors)
    if errors:
        raise RulesError(errors, sources)
    return Resolved(f.path, merged, sources, own=[d for d in own if not isinstance(d, ast.Remove)],
                    removed=removed, base=base.path)


def _apply(base: Resolved, own: list[ast.Decl], errors: list[Diagnostic]) -> tuple[list[ast.Decl], list[ast.Remove]]:
    merged: list[ast.Decl | None] = list(base.decls)
    removed: list[ast.Remove] = []

    def where(key: tuple) -> list[int]:
        return [i for i, d in enumerate(merged) if d is not None and ast.decl_key(d) == key]

    def missing(node: ast.Decl, word: str, key: tuple) -> None:
        same_kind = [ast.decl_key(d) for d in merged if d is not None and (ast.decl_key(d) or ("",))[0] == key[0]]
        names = [k[1] for k in same_kind if len(k) > 1]
        hint = did_you_mean(key[1], names) if len(key) > 1 else None
        errors.append(Diagnostic(node.span, f"cannot {word} {ast.key_words(key)}: {base.path} has none", hint))

    for d in own:
        if isinstance(d, ast.Replace):
            key = ast.decl_key(d.decl)
            spots = where(key) if key else []
            if not spots:
                missing(d, "replace", key or ("declaration",))
                continue
            new = d.decl
            old = merged[spots[0]]
            if isinstance(new, ast.Param) and new.low is None and isinstance(old, ast.Param):
                new = attrs.evolve(new, low=old.low, high=old.high)  # a new default keeps the range
            merged[spots[0]] = new
            for i in spots[1:]:
                merged[i] = None
        elif isinstance(d, ast.Remove):
            spots = where(d.key)
            if not spots:
                missing(d, "remove", d.key)
                continue
            for i in spots:
                merged[i] = None
            removed.append(d)
        else:
            key = ast.decl_key(d)
            spots = where(key) if key and key[0] not in ADDITIVE else []
            if spots and key[0] in HEADERS:
                merged[spots[0]] = d
            elif spots:
                first = merged[spots[0]]
                errors.append(Diagnostic(d.span, f"{ast.key_words(key)} is already in {base.path}",
                                         f"to change it, write `replace` before it (the base's is at {first.span})"))
            else:
                merged.append(d)
    return [d for d in merged if d is not None], removed


def source_of(decl: ast.Decl, sources: dict[str, str], comments: bool = True) -> str:
    """A declaration as written (with the comment lines just above it), for `rulesdsl explain`."""
    s = decl.span
    text = sources.get(s.file)
    if text is None or s.line <= 0:
        return ""
    lines = text.splitlines()
    body = lines[s.line - 1 : s.end_line]
    if body:
        body[-1] = body[-1][: s.end_column - 1] if s.end_line > s.line else body[-1][s.column - 1 : s.end_column - 1]
        if s.end_line > s.line:
            body[0] = body[0][s.column - 1 :]
    # A comment at the end of the last line belongs to the declaration too.
    tail = lines[s.end_line - 1][s.end_column - 1 :] if s.end_line - 1 < len(lines) else ""
    if tail.strip().startswith("#"):
        body[-1] += tail
    above: list[str] = []
    k = s.line - 2
    while comments and k >= 0 and lines[k].strip().startswith("#"):
        above.insert(0, lines[k])
        k -= 1
    return "\n".join(above + body)
