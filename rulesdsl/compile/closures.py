"""Expressions as functions: each one's source (exprs.py) made a function, and the texts that
show values."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..engine.state import State
from ..errors import Diagnostic, RulesError
from .runtime import Fn


class Closures:
    """The expressions of the Compiler (a part of it)."""

    # ------------------------------------------------------------ expressions
    def type(self, e: ast.Expr) -> str:
        return self.p.types.get(id(e), "any")

    def zone(self, e: ast.Expr) -> Fn:
        """A function giving the zone instance index an expression names."""
        ref = self.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if (ref is not None and ref[0] == "zone") or isinstance(e, ast.Attr):
            return self.source.function(self.zone_src(e))
        raise RulesError([Diagnostic(e.span, "expected a zone")], self.p.files)

    def expr(self, e: ast.Expr) -> Fn:
        """The expression as one function of (state, locals), written once as source (exprs.py)."""
        return self.source.compile(e)

    def value_of(self, name: str) -> Callable[[State], object]:
        """The value of a define without parameters, a counter or a variable (for a `show`, and
        the game's defines), f(state)."""
        if name in self.p.defines:
            info = self.p.defines[name]
            return self.source.function(self.source.standalone(info.expr), "st", info.nlocals)
        layout = self.g.counter_layout if name in self.g.counter_layout else self.g.var_layout
        kind = "counters" if name in self.g.counter_layout else "vars"
        return self.source.function(f"st.{kind}[{layout[name][0]}]", "st")

    def _show_type(self, name: str) -> str:
        if name in self.p.defines:
            return self.p.defines[name].type
        return next(v for v in self.p.vars + self.p.counters if v.name == name).type

