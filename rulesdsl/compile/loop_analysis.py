"""What may be worked out before a loop, and whether a loop is short and cheap: what the loop
writer (loops.py) decides by, read off the syntax tree and its types, never off source."""

from __future__ import annotations

from .. import ast
from ..checker import CARD, INT, PLAYER, ZONE
from ..engine.constants import STACK
from .tree import _children, _descendants_nodes, _worth_caching

CHEAP_CALLS = {"abs", "min", "max", "any", "empty", "count", "top", "last", "first", "bottom"}  # (no loop of their own)
SAFE_CALLS = {"count", "any", "empty", "top", "bottom", "first", "last", "distinct", "owner", "place", "zone_of",
              "knows"}  # (never raise: a part using only them may be worked out first)


class LoopAnalysis:
    """A part of SourceCompiler (a mixin: define_parts asks the writer whether an argument is an item)."""

    def short(self, w: ast.Where) -> bool:
        """Does `w` go over a short list (a hand, a grid, the players) with a cheap test that
        cannot fail? Then testing every item costs less than stopping at the first match."""
        g, refs, spec = self.c.g, self.c.p.refs, self.zone_spec(w.seq)
        if spec is not None:
            short = g.zone_shape[g.zone_base[spec]] != STACK
        else:
            short = isinstance(w.seq, ast.PlayersExpr) or refs.get(id(w.seq)) == ("builtin", "others")
        if not (self.fast and short and self.safe(w.cond, frozenset([self.c.p.slots[id(w)]]))):
            return False
        return not any(isinstance(n, ast.Where) or (isinstance(n, ast.Call) and n.func not in CHEAP_CALLS)
                       or (isinstance(n, ast.Name) and (refs.get(id(n)) or ("",))[0] == "define")
                       for n in _descendants_nodes(w.cond))

    def zone_spec(self, e: ast.Expr) -> int | None:
        """The zone spec of an expression that is a zone itself (`pile`, `me.hand`), else None."""
        g = self.c.g
        if isinstance(e, ast.Name):
            ref = self.c.p.refs.get(id(e))
            return ref[1] if ref is not None and ref[0] == "zone" else None
        if isinstance(e, ast.Attr) and e.name in g.zone_spec_names and self.type(e) == ZONE \
                and self.type(e.obj) == PLAYER:
            spec = g.zone_spec_names.index(e.name)
            return spec if g.zone_spec_per_player[spec] else None
        return None

    def invariant_parts(self, cond: ast.Expr, slot: int) -> list[ast.Expr]:
        """The largest parts of a loop's test that do not depend on its item (in `slot`), worth
        working out once, before the loop (`wanted` in `it.number == wanted`)."""
        refs, slots = self.c.p.refs, self.c.p.slots
        varying = {slot} | {slots[id(n)] for n in _descendants_nodes(cond) if isinstance(n, ast.Where)}
        out: list[ast.Expr] = []

        def walk(node) -> set[int]:
            """What node depends on: the item, inner items read outside their own `where`, or
            chance (-1). Empty: invariant."""
            kids = list(_children(node))
            deps = [walk(k) for k in kids]
            ref = refs.get(id(node)) if isinstance(node, ast.Name) else None
            free = set().union(*deps)
            if ref is not None and ref[0] == "local" and ref[1] in varying:
                free.add(ref[1])
            if isinstance(node, ast.Call) and node.func == "random":
                free.add(-1)
            if isinstance(node, ast.Where) and id(node) in slots:
                free.discard(slots[id(node)])
            if free:
                out.extend(k for k, d in zip(kids, deps, strict=True) if not d and _worth_caching(k, refs))
            return free

        if not walk(cond) and _worth_caching(cond, refs):
            out.append(cond)
        return out

    def define_parts(self, cond: ast.Expr, inner: dict[int, str]) -> list[ast.Expr]:
        """The parts worked out first of the defines applied to items in `cond` (written in place):
        each define's are the plan's (lower.py)."""
        hoisted = self.c.plan.define_hoisted
        out: list[ast.Expr] = []

        def visit(node) -> None:
            if isinstance(node, ast.Where):
                return  # its own loop hoists its own
            ref = self.c.p.refs.get(id(node)) if isinstance(node, ast.Call) else None
            if ref is not None and ref[0] == "define" and (len(ref) < 3 or ref[2] is None):
                info = self.c.p.defines[node.func]
                if len(info.params) == 1 and len(node.args) == 1 and self.item(node.args[0], inner):
                    out.extend(hoisted.get(node.func, ()))
            for k in _children(node):
                visit(k)

        visit(cond)
        return out

    def safe(self, e: ast.Expr, items: frozenset[int] = frozenset()) -> bool:
        """Can this part be worked out before the loop with no risk of failing? (`items`: never none)"""
        if isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit, ast.Name, ast.PlayersExpr)):
            return True
        if isinstance(e, ast.Attr):
            if self.type(e.obj) in (CARD, ZONE, "list[card]"):
                return self.safe(e.obj, items)
            if self.type(e.obj) == "list[player]" and e.name in self.c.g.counter_layout:
                return self.safe(e.obj, items)  # `(players where ...).score`: none are skipped
            # `me.hand`, `me.tokens`: the current player is never none; nor is an item
            return self.some_player(e.obj, items)
        if isinstance(e, ast.Call):
            ref = self.c.p.refs.get(id(e))
            if ref is not None and ref[0] == "define":
                return False
            if e.func in ("min", "max") and len(e.args) == 1:  # of a list: none skipped, none if empty
                return self.safe(e.args[0], items)
            return e.func in SAFE_CALLS and all(self.safe(a, items) for a in e.args)
        if isinstance(e, ast.Where):
            return self.safe(e.seq, items) and self.safe(e.cond, items)
        if isinstance(e, ast.IsKind):
            return self.safe(e.operand, items)
        if isinstance(e, ast.Binary):
            if e.op in ("<", "<=", ">", ">=", "+", "-", "*"):  # on numbers that are never none
                return self.number(e.left, items) and self.number(e.right, items)
            return e.op in ("==", "!=", "and", "or", "in") and self.safe(e.left, items) and self.safe(e.right, items)
        if isinstance(e, ast.Unary):
            return e.op == "not" and self.safe(e.operand, items)
        return False

    def some_player(self, e: ast.Expr, items: frozenset[int]) -> bool:
        """Is `e` a player that is never none: `me`, or an item of a loop over players?"""
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        return ref == ("builtin", "me") or (ref is not None and ref[0] == "local" and ref[1] in items)

    def number(self, e: ast.Expr, items: frozenset[int]) -> bool:
        """Is `e` an int that is never none and cannot fail (a literal, a counter, a count, a sum)?"""
        if self.type(e) != INT:
            return False
        if isinstance(e, ast.IntLit):
            return True
        if isinstance(e, ast.Name):
            ref = self.c.p.refs.get(id(e)) or ("",)
            return ref[0] == "counter" or (ref[0] == "const" and isinstance(ref[1], int)) \
                or ref in (("builtin", "round"), ("builtin", "turn"), ("builtin", "player_count"))
        if isinstance(e, ast.Attr):
            return e.name in self.c.g.counter_layout and self.some_player(e.obj, items)
        if isinstance(e, ast.Call):
            return e.func == "count" and self.c.p.refs.get(id(e)) is None and self.safe(e, items)
        if isinstance(e, ast.Binary):
            return e.op in ("+", "-", "*") and self.number(e.left, items) and self.number(e.right, items)
        if isinstance(e, ast.Unary):
            return e.op == "-" and self.number(e.operand, items)
        return False
