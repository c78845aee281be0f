"""Checks of a value as it is stored, placed only where they can fire: a number that may grow
without bound, a list joined with `+`, none stored where a number is expected (limits.py)."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..checker import BOOL, INT, PLAYER, ZONE, is_list
from .runtime import _list_guard, _number_guard
from .source import UNKNOWN
from .tree import _children


class Bounds:
    """The checks of stored values of the Compiler (a part of it, with Statements)."""

    def _guard(self, e: ast.Expr, kind: str, op_text: str = "=", target_type: str | None = None) -> Callable | None:
        """The check of a value as it is stored (see the module), or None where none can fire (most
        assignments: `x += 1`, `loser = me`)."""
        t = target_type or self.type(e)
        if t in (INT, BOOL):
            grows = t == INT and (not self._constant(e) if op_text != "=" else self._grows(e, set()))
            grows = grows or self._too_long(e)
            # (a counter or variable holds a number or yes/no, never none)
            none = kind != "local" and op_text == "=" and not isinstance(e, ast.NoneLit) and self._may_be_none(e, set())
            return _number_guard(self.g.limits["digits"], none) if grows or none else None
        if is_list(t) and t != ZONE and self._joins(e, set()):
            return _list_guard(self.g.limits["list"])
        return None

    def _too_long(self, e: ast.Expr) -> bool:
        """A number known now (a literal, a parameter) that has more digits than the limit already."""
        value = self.source.known_int(e)
        return value is not None and abs(value) >= 10 ** self.g.limits["digits"]

    def _constant(self, e: ast.Expr) -> bool:
        """A value known now (a literal, a parameter, minus one): one that never grows."""
        return self.source.fixed_value(e) is not UNKNOWN

    def _sub_defines(self, e: ast.Expr, seen: set) -> list[ast.Expr]:
        """The bodies of the defines `e` uses directly, each once."""
        name = e.id if isinstance(e, ast.Name) else e.func if isinstance(e, ast.Call) else None
        if name in self.p.defines and name not in seen:
            seen.add(name)
            return [self.p.defines[name].expr]
        return []

    def _somewhere(self, e: ast.Expr, test: Callable[[ast.Expr], bool], seen: set) -> bool:
        """Whether `test` holds for `e`, a part of it, or the body of a define it uses (each once)."""
        return test(e) or any(self._somewhere(x, test, seen) for x in (*_children(e), *self._sub_defines(e, seen)))

    def _grows(self, e: ast.Expr, seen: set) -> bool:
        """Arithmetic that may grow without bound once stored and read again: a product, a sum or
        difference of two values that are not constants (`c + c` doubles), a `sum`."""
        def here(x: ast.Expr) -> bool:
            if isinstance(x, ast.Binary):
                return x.op == "*" or (x.op in ("+", "-") and not self._constant(x.left)
                                       and not self._constant(x.right) and self.type(x) == INT)
            return isinstance(x, ast.Call) and x.func == "sum" and self._reads_numbers(x, set())

        return self._somewhere(e, here, seen)

    def _may_be_none(self, e: ast.Expr, seen: set) -> bool:
        """Whether a number or yes/no expression may be none (an attribute of a card that may be
        none, a variable or local that may hold none); arithmetic, comparisons, counts are not."""
        if isinstance(e, ast.Binary):
            return e.op in ("and", "or") and (self._may_be_none(e.left, seen) or self._may_be_none(e.right, seen))
        if isinstance(e, ast.IfExpr):
            return self._may_be_none(e.then, seen) or self._may_be_none(e.orelse, seen)
        kind = (self.p.refs.get(id(e)) or ("",))[0] if isinstance(e, ast.Name) else None
        call = e.func if isinstance(e, ast.Call) else None
        if kind in ("counter", "const") or call in ("sum", "count", "any", "all", "empty") \
                or isinstance(e, (ast.IntLit, ast.BoolLit, ast.Unary, ast.IsKind)):
            return False
        if kind == "define" or call in self.p.defines:
            return any(self._may_be_none(x, seen) for x in self._sub_defines(e, seen))
        return True

    def _reads_numbers(self, e: ast.Expr, seen: set) -> bool:
        """Whether `e` reads a counter, a variable or a local (which a rule may have made large),
        not only cards' attributes and constants (a `sum` of those is as small as the deck)."""
        def here(x: ast.Expr) -> bool:
            if self.type(x) not in (INT, "list[int]"):
                return False
            if isinstance(x, ast.Name):
                return (self.p.refs.get(id(x)) or ("",))[0] in ("counter", "var", "local")
            # a player's counter or variable (`p.score`, `players.score`)
            return isinstance(x, ast.Attr) and self.type(x.obj) in (PLAYER, "list[player]")

        return self._somewhere(e, here, seen)

    def _joins(self, e: ast.Expr, seen: set) -> bool:
        """Lists joined with `+` somewhere in `e` (the one way a list grows)."""
        return self._somewhere(
            e, lambda x: isinstance(x, ast.Binary) and x.op == "+" and is_list(self.type(x.left)), seen)
