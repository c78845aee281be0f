"""`choose set` (ast.ChooseSet), the one writer of its question: its decision, the lines listing
its options (the machine's block, a straight function, the turn's options for a leading one) or
counting them (a straight run, where nothing but sizes restricts them), and the forms of its
test that the search recognises (engine/sets.py does the search; docs/design.md says why).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..engine.game import Decision
from ..engine.sets import CHAIN, DIFF, FEW, RUN, SAME, SUM, SetChoice, count_options, nth_option, set_options
from .domains import builtin, is_local
from .source import ENV, Src, named
from .tree import locals_read, sides, split

_MAX_ALTS = 32  # ways a test can be met, beyond which it is searched as a whole


class SetChooses:
    """The `choose set` writer of the Compiler (a part of it)."""

    def s_ChooseSet(self, s: ast.ChooseSet, b) -> None:
        slot = self.p.slots[id(s)]

        def sets(dec: Decision) -> None:
            """Its sizes and the ways its test can be met, compiled before the decision is added."""
            sizes = [self.part(x) for x in s.size or ()]
            alts = set_alts(self, s.cond, slot)
            self.set_ways[id(s)] = alts
            with named(ENV):
                ways, reads = alts_source(self, alts)
                # (the test as f(state, locals, the set), for options worked out outside a block: a save)
                test = self.source.function(self._set_test_src(s, slot), "st, env, _s") if s.cond is not None \
                    else None
            plain = len(alts) == 1 and not alts[0][0] and (s.cond is None or alts[0][3])
            ways = self.source.function(ways) if reads else _constant(eval(ways, self.source.names))
            dec.sets = SetChoice(_size_fn(sizes), test, ways, plain)

        dec = self.decision(s, "cards", sets)
        self.asked(s, b, dec, lambda: self.set_lines(s, "_p", "_v"), "[]")

    def _set_test_src(self, s: ast.ChooseSet, slot: int) -> str:
        return self.source.src(s.cond, {slot: Src("_s", reads=True)})

    def _set_args(self, s: ast.ChooseSet, chooser: str) -> tuple[list[str], str]:
        """Lines working out the sizes, and the arguments (cards, chooser, least, greatest size,
        the ways to meet the test)."""
        dec = self.choose_decisions[id(s)]
        inline = self.source.inline
        sizes = [self.expr_src(x) for x in s.size or ()]
        first = [f"_sz = {sizes[0]}"] if len(sizes) == 1 else []
        lo, hi = ("_sz", "_sz") if first else (sizes[0], sizes[1]) if sizes else ("None", "None")
        ways, reads = alts_source(self, self.set_ways[id(s)])
        if not reads:
            ways = self.source.const(dec.sets.alts(None, None))
        return first, f"{inline(dec.domain)}, {chooser}, {lo}, {hi}, {ways}"

    def set_lines(self, s: ast.ChooseSet, chooser: str, target: str) -> list[str]:
        """Lines setting `target` to the options (lists of cards) of `s`, asked of `chooser`."""
        dec = self.choose_decisions[id(s)]
        first, args = self._set_args(s, chooser)
        test = f"(lambda _s: {self._set_test_src(s, dec.slot)})" if s.cond is not None else "None"
        return [*first, f"{target} = {self.source.const(set_options)}(st, {args}, {test})"]

    def set_counted(self, s: ast.ChooseSet, chooser: str, count: str) -> tuple[list[str], str] | None:
        """For a straight run, where sizes alone restrict the options: lines setting `count` to
        their number, and the source of the `_k`-th (None where they must be listed)."""
        dec = self.choose_decisions[id(s)]
        if not dec.sets.plain:
            return None
        first, args = self._set_args(s, chooser)
        const = self.source.const
        return ([*first, f"_qc, _qlo, _qhi, {count} = {const(count_options)}(st, {args})"],
                f"{const(nth_option)}(_qc, _qlo, _qhi, _k)")


def _constant(value) -> Callable:
    return lambda st, env: value


def _size_fn(sizes: list) -> Callable:
    if not sizes:
        return lambda st, env: (None, None)
    lo, hi = sizes[0], sizes[-1]
    return lambda st, env: (lo(st, env), hi(st, env))


# -- the forms of a test (engine/sets.py searches each)
# A way to meet a test: (forms, least size, greatest size, exact); a form is (form, the table of
# A by card, least, most). A number is an int, None (no bound) or an expression worked out as the
# question is asked (one that cannot fail and does not read the set).
_ANY = ((), None, None, False)


def set_alts(c, cond: ast.Expr | None, slot: int) -> list[tuple]:
    """The ways `cond` (about the set in local `slot`) can be met: `or` gives one way a side,
    `and` combines the sides' ways; a term read as a form (`count(distinct(s.A)) OP N`,
    `consecutive(s.A)`, `consecutive(distinct(s.A))`, `count(distinct(s.A)) == count(s)`,
    `count(s) OP N`) is exact, any other term leaves its way to the test."""
    if cond is None:
        return [((), None, None, True)]
    alts = _alts(c, cond, slot, 0)
    return [_normal(a) for a in alts] if alts is not None else [_ANY]


def alts_source(c, alts: list[tuple]) -> tuple[str, bool]:
    """The ways as Python source, and whether it reads anything (else it is a constant)."""
    const, reads = c.source.const, False

    def num(x) -> str:
        nonlocal reads
        if isinstance(x, ast.Expr):
            reads = True
            return c.source.inline(c.part(x))
        return repr(x)

    def form(f: tuple) -> str:
        return f"({f[0]!r}, {const(f[1])}, {num(f[2])}, {num(f[3])})"

    ways = [f"(({''.join(form(f) + ', ' for f in forms)}), {num(lo)}, {num(hi)}, {exact})"
            for forms, lo, hi, exact in alts]
    return f"({''.join(w + ', ' for w in ways)})", reads


def _alts(c, e: ast.Expr, slot: int, depth: int) -> list | None:
    if depth > 8:
        return None
    if isinstance(e, ast.Binary) and e.op == "or":
        out = []
        for side in split(e, "or"):
            more = _alts(c, side, slot, depth + 1)
            if more is None or any(not a[0] and a[1] is None and a[2] is None for a in more):
                return None  # (a side that any set may meet: the whole search)
            out += more
        return out if len(out) <= _MAX_ALTS else None
    if isinstance(e, ast.Binary) and e.op == "and":
        out = [((), None, None, True)]
        for side in split(e, "and"):
            more = _alts(c, side, slot, depth + 1) or [_ANY]
            out = [_both(x, y) for x in out for y in more]
            if len(out) > _MAX_ALTS:
                return None
        return out
    ref = c.p.refs.get(id(e)) if isinstance(e, ast.Call) else None
    if ref is not None and ref[0] == "define" and len(e.args) == 1 and is_local(c, e.args[0], slot) \
            and (len(ref) < 3 or ref[2] is None):
        return _alts(c, c.p.defines[e.func].expr, 0, depth + 1)  # (a define's parameter is its local 0)
    one = _term(c, e, slot)
    return [one] if one is not None else [_ANY]


def _both(x: tuple, y: tuple) -> tuple:
    """Both ways at once: their forms, the tighter of their bounds (an expression's kept as is)."""
    return x[0] + y[0], _tighter(x[1], y[1], max), _tighter(x[2], y[2], min), x[3] and y[3]


def _tighter(a, b, pick):
    if isinstance(a, int) and isinstance(b, int):
        return pick(a, b)
    return a if b is None or isinstance(a, ast.Expr) else b  # (an expression kept, the other left to the test)


def _normal(a: tuple) -> tuple:
    """A way with its `same` forms first, then its `few` forms, and one other form at most (more
    are left to the test)."""
    forms, lo, hi, exact = a
    same = tuple(f for f in forms if f[0] == SAME)
    few = tuple(f for f in forms if f[0] in (FEW, SUM))
    other = tuple(f for f in forms if f[0] not in (SAME, FEW, SUM))
    return same + few + other[:1], lo, hi, exact and len(other) <= 1


def _term(c, e: ast.Expr, slot: int) -> tuple | None:
    if builtin(c, e, "consecutive"):  # (of distinct values: a chain; else a run)
        chain = builtin(c, e.args[0], "distinct")
        table = _attr_of_set(c, e.args[0].args[0] if chain else e.args[0], slot)
        return (((CHAIN if chain else RUN, table, None, None),), None, None, True) if table is not None else None
    for left, op, right in sides(e, ("==", "<=", ">=", "<", ">")):
        summed = _attr_of_set(c, left.args[0], slot) if builtin(c, left, "sum") else None
        bounds = _bounds(c, op, right, slot)
        if summed is not None and bounds is not None and all(type(v) is int or v is None for v in summed):
            return ((SUM, summed, *bounds),), None, None, True
        table = _distinct_count(c, left, slot)
        if table is not None and op == "==" and _count_of_set(c, right, slot):
            return ((DIFF, table, None, None),), None, None, True
        if bounds is None:
            continue
        if _count_of_set(c, left, slot):  # count(s) OP N: sizes
            return (), bounds[0], bounds[1], True
        if table is not None:
            if bounds == (1, 1):
                return ((SAME, table, None, None),), None, None, True
            return ((FEW, table, *bounds),), None, None, True
    return None


def _bounds(c, op: str, e: ast.Expr, slot: int) -> tuple | None:
    """(least, most) for `... OP e`: e a whole number, or for ==, <=, >= an expression that cannot
    fail and does not read the set (worked out as the question is asked)."""
    n = ast.whole_number(e)
    if n is not None:
        return {"==": (n, n), "<=": (None, n), ">=": (n, None), "<": (None, n - 1), ">": (n + 1, None)}[op]
    if op in ("==", "<=", ">=") and c.type(e) == "int" and slot not in locals_read(c.p.refs, e) \
            and c.source.safe(e):
        return {"==": (e, e), "<=": (None, e), ">=": (e, None)}[op]
    return None


def _count_of_set(c, e: ast.Expr, slot: int) -> bool:
    return builtin(c, e, "count") and is_local(c, e.args[0], slot)


def _attr_of_set(c, e: ast.Expr, slot: int) -> tuple | None:
    """The table of A by card, for `s.A` (the set's attribute A)."""
    if isinstance(e, ast.Attr) and is_local(c, e.obj, slot) and e.name in c.g.attrs:
        return c.source.shared(("set attr", e.name), lambda: tuple(c.g.attrs[e.name]))
    return None


def _distinct_count(c, e: ast.Expr, slot: int) -> tuple | None:
    """The table of A for `count(distinct(s.A))`."""
    if builtin(c, e, "count") and builtin(c, e.args[0], "distinct"):
        return _attr_of_set(c, e.args[0].args[0], slot)
    return None
