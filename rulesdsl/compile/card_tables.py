"""Tables of each card's value, made when the rules load: what a loop would work out card by card
(a `where`'s test about the card alone, a define applied to a card), worked out once for all cards.

card_values is partial evaluation: it evaluates written source for every card, and reads that
source's Python syntax tree only to learn whether it reads nothing but the card and constants (so
that its value is the card's alone). It never edits source nor decides a form by its text."""

from __future__ import annotations

import ast as pyast

from .. import ast
from ..checker import ZONE
from ..engine.constants import GRID
from .source import env_list, grid_places, naming, paren
from .tree import _descendants_nodes

_VALUE_NODES = (pyast.Expression, pyast.BoolOp, pyast.Compare, pyast.Subscript, pyast.Name, pyast.Constant,
                pyast.Tuple, pyast.UnaryOp, pyast.BinOp, pyast.IfExp, pyast.NamedExpr, pyast.expr_context,
                pyast.boolop, pyast.cmpop, pyast.unaryop, pyast.operator)
_SCALARS = (int, str, float, type(None))


def _constant(value, table: bool) -> bool:
    """A value no rule changes: a scalar, a tuple or frozenset of them, or (`table`) a table the
    generated code never writes."""
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, (tuple, frozenset)) and all(isinstance(v, _SCALARS) for v in value):
        return True
    return table and isinstance(value, (list, tuple, dict))


class CardTables:
    """A part of SourceCompiler (a mixin: it writes with the compiler's `src`, which calls it back)."""

    def card_table(self, w: ast.Where, items, value) -> list | None:
        """`value(card, C holds for it)` for every card, for a `where` whose C is the card's alone."""
        g = self.c.g
        spec = self.zone_spec(w.seq)
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID or id(w) in self.hoisted:
            return None
        slot = self.c.p.slots[id(w)]
        var = f"_i{slot}"
        held = self.card_values(self.src(w.cond, {**items, slot: var}), var)
        return None if held is None else [value(c, bool(h)) for c, h in enumerate(held)]

    def inline_define(self, info, args: list[str], of_items: bool) -> str | None:
        """A define applied to loop items (`fits(c)` in a `where`) written in place, its parameters
        the items' sources: no call, no list of locals. Not where a loop inside it hides an item."""
        if not self.fast:
            return None  # (the plain reference calls the define's body)
        if not args or len(args) != len(info.params) or not of_items:
            return None
        if {f"_i{self.c.p.slots[id(n)]}" for n in _descendants_nodes(info.expr) if isinstance(n, ast.Where)} \
                & set(args):
            return None
        src, reads = self.reading(lambda: self.src(info.expr, dict(enumerate(args))))
        return paren(src) if not reads and len(src) < 2000 else None

    def each_define(self, info, e: ast.Call, spread: int, items) -> str:
        """A define applied to each item of a list (`value(p.row)`): one comprehension with the
        define written in place (one parameter), else one call of its body per item (`_each`)."""
        args = [self.src(a, items) for a in e.args]
        self.spread_vars += 1
        var = f"_i{100000 + self.spread_vars}"  # a name no loop of the define nor around it uses
        body = self.inline_define(info, [var], True) if len(args) == 1 else None
        if body is None:
            return f"_each({self.const(self.define_body(e.func))}, st, {env_list(args, info.nlocals)}, {spread})"
        seq = grid_places(args[0])  # (the loop below skips empty places itself)
        table = self.card_values(body, var) if self.type(e.args[0]) in (ZONE, "list[card]") else None
        if table is not None:  # (about the card alone: its value for every card, worked out now)
            return self.over(seq, lambda s: f"[{self.const(table)}[{var}] for {var} in {s} if {var} is not None]")
        return self.over(seq, lambda s: f"[{body} for {var} in {s} if {var} is not None]")

    def card_values(self, src: str, var: str) -> list | None:
        """The value of `src` for every card as `var`, if it reads nothing but the card, constants
        and its own `:=` names (no call, no state) and fails for no card; else None."""
        if not self.fast:
            return None
        try:
            tree = pyast.parse(src, mode="eval")
        except SyntaxError:
            return None
        nodes = list(pyast.walk(tree))
        names = naming().bound_consts(self.names)  # (`_K33` for `_k33` in a straight function)
        own = {n.target.id for n in nodes if isinstance(n, pyast.NamedExpr)}
        for n in nodes:
            if not isinstance(n, _VALUE_NODES):
                return None  # (a call, an attribute, a comprehension: not the card's alone)
            if isinstance(n, pyast.Name) and n.id != var and n.id not in own \
                    and not _constant(names.get(n.id, _constant), n.id.replace("_K", "_k", 1) in self.const_names):
                return None  # (a read of the state or of a local)
        try:
            f = eval(f"lambda {var}: ({src})", names)
            return [f(c) for c in range(self.c.g.ncards)]
        except Exception:  # (it fails for some card: left to the loop, which fails as it did)
            return None

    def sum_of(self, e: ast.Expr, items) -> str | None:
        """`e` as one pass over a zone adding up each card's share from a table (see shares)."""
        shares = self.shares(e, items)
        return None if shares is None else f"sum(map({self.const(tuple(shares[1]))}.__getitem__, {shares[0]}))"

    def shares(self, e: ast.Expr, items) -> tuple[str, list[int]] | None:
        """(zone, each card's share) if `e` adds up one zone's cards by what each is alone (a sum of
        `(Z where C).x`, a count of `Z where C`, sums and differences of them); else None."""
        if not self.fast or id(e) in self.hoisted:
            return None
        if isinstance(e, ast.Binary) and e.op in ("+", "-"):
            left, right = self.shares(e.left, items), self.shares(e.right, items)
            if left is None or right is None or left[0] != right[0]:
                return None
            sign = 1 if e.op == "+" else -1
            return left[0], [x + sign * y for x, y in zip(left[1], right[1], strict=True)]
        if not (isinstance(e, ast.Call) and len(e.args) == 1 and self.c.p.refs.get(id(e)) is None
                and id(e) not in self.joins):
            return None
        arg = e.args[0]
        if e.func == "count" and isinstance(arg, ast.Where):
            w, table = arg, self.card_table(arg, items, lambda c, keep: int(keep))
        elif e.func == "sum" and isinstance(arg, ast.Attr) and isinstance(arg.obj, ast.Where) \
                and self.type(arg.obj) in (ZONE, "list[card]") and id(arg) not in self.hoisted:
            values = self.c.g.attrs[arg.name]
            w, table = arg.obj, self.card_table(arg.obj, items, lambda c, keep: (values[c] or 0) if keep else 0)
        else:
            return None
        if table is None or not all(type(v) is int for v in table):
            return None
        return self.src(w.seq, items), table
