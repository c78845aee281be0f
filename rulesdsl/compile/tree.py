"""Facts read off the syntax tree before anything is written: what a body may do (decide, end, recurse),
an expression's parts, and a rule's own text for messages."""

from __future__ import annotations

import functools

import attrs

from .. import ast

MAX_RANGE = 10_000


def _source(files: dict[str, str], span: ast.Span) -> str:
    """The text of the source between a span's ends (for messages that quote a rule)."""
    text = files.get(span.file)
    if text is None or span.line <= 0:
        return ""
    lines = text.splitlines()[span.line - 1 : span.end_line]
    lines[-1] = lines[-1][: span.end_column - 1]  # (the end first: on one line, the start shifts it)
    lines[0] = lines[0][span.column - 1 :]
    return lines[0] if len(lines) == 1 else " ".join(x.strip() for x in lines)


def _statements(body: tuple[ast.Stmt, ...]):
    """Every statement of a body, those nested in ifs and loops included."""
    for s in body:
        yield s
        if isinstance(s, ast.If):
            for _, branch in s.branches:
                yield from _statements(branch)
            if s.orelse:
                yield from _statements(s.orelse)
        elif isinstance(s, (ast.ForEach, ast.While, ast.Repeat, ast.Secretly, ast.Race)):
            yield from _statements(s.body)


def split(node: ast.Expr, op: str = "and", whole=()) -> list[ast.Expr]:
    """The terms of `a op b op c` (a node whose id is in `whole` is one term)."""
    if isinstance(node, ast.Binary) and node.op == op and id(node) not in whole:
        return split(node.left, op, whole) + split(node.right, op, whole)
    return [node]


def locals_read(refs: dict, e: ast.Expr) -> set[int]:
    """The slots of the locals an expression reads."""
    return {refs[id(n)][1] for n in _descendants_nodes(e)
            if isinstance(n, ast.Name) and (refs.get(id(n)) or ("",))[0] == "local"}


def reads_any_local(refs: dict, e: ast.Expr, but: int) -> bool:
    """Does `e` read a local other than slot `but` (or a player-dependent name)?"""
    found = [refs.get(id(x)) for x in _descendants_nodes(e) if isinstance(x, ast.Name)]
    return any(r is None or r[0] == "builtin" or (r[0] == "local" and r[1] != but) for r in found)


_SWAP = {">=": "<=", ">": "<", "<=": ">=", "<": ">", "==": "==", "!=": "!="}


def sides(x: ast.Expr, ops=_SWAP) -> list[tuple[ast.Expr, str, ast.Expr]]:
    """(a, op, b) for comparison `x` (of `ops`) read either way round, `a op b`; none if not one."""
    if not (isinstance(x, ast.Binary) and x.op in ops):
        return []
    return [(x.left, x.op, x.right), (x.right, _SWAP[x.op], x.left)]


def _never_decides(body: tuple[ast.Stmt, ...], leaves: set[str]) -> bool:
    """No `choose` in the body, and every procedure it calls is one of `leaves`."""
    return all(not isinstance(s, ast.Choose) and (not isinstance(s, ast.CallStmt) or s.func in leaves)
               for s in _statements(body))


def _may_end(body: tuple[ast.Stmt, ...], ending: set[str]) -> bool:
    """An `end` in the body, or a call of one of `ending`."""
    return any(isinstance(s, ast.End) or (isinstance(s, ast.CallStmt) and s.func in ending) for s in _statements(body))


def _recursive(procedures: dict) -> set[str]:
    """The procedures that may call themselves, through others or not: a cycle of the call graph."""
    reach = {name: {s.func for s in _statements(info.body) if isinstance(s, ast.CallStmt)} & procedures.keys()
             for name, info in procedures.items()}
    for via in reach:  # (Warshall's closure: what `via` reaches, whoever reaches `via` reaches too)
        for calls in reach.values():
            if via in calls:
                calls |= reach[via]
    return {name for name, calls in reach.items() if name in calls}


def ends_hook(unit: str, what: str) -> bool:
    """Whether `end <what>` in a unit (a hook's name, "procedure" or "action") ends that hook alone,
    as a `return`: every `end` in `game end`, and all but `end game` in `round end`."""
    return unit == "game end" or (unit == "round end" and what != "game")


def _literal(src: str) -> int | None:
    """The number a generated expression's source is, if it is one written out (`(5)`, `5`)."""
    text = src.strip("()")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None


def _grow(procedures: dict, holds) -> set[str]:
    """The procedures whose body `holds(body, names)`, given the names found so far, until no more."""
    found: set[str] = set()
    while new := {name for name, info in procedures.items() if name not in found and holds(info.body, found)}:
        found |= new
    return found


def _children(node):
    for name in _field_names(type(node)):
        v = getattr(node, name)
        if isinstance(v, ast.Expr):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, ast.Expr))


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    """A node type's fields, in order (attrs.fields is asked once per type: walks ask it per node)."""
    return tuple(f.name for f in attrs.fields(kind))


def _worth_caching(node: ast.Expr, refs: dict) -> bool:
    if isinstance(node, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)):
        return False
    if isinstance(node, ast.Name):
        return (refs.get(id(node)) or ("",))[0] == "define"
    return True


def _descendants_nodes(node) -> list:
    out = [node]
    for k in _children(node):
        out += _descendants_nodes(k)
    return out
