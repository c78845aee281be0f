"""Syntax tree to a checked program: names resolved, types inferred, parameters bound.

The checker turns "a file that parsed" into "a game that makes sense", and collects every error
it finds (with did-you-mean hints) instead of stopping at the first. Its output, `Program`, is
what the compiler reads: the declarations plus side tables keyed by node identity (the type of
each expression, what each name refers to, the local slot of each binder).

Its parts, one module each: types.py (the types and built-in names), program.py (the output),
declarations.py (the game's names), rules.py (the rules' bodies), statements.py, expressions.py;
base.py holds what they share. They are one Checker, since each part calls the others.
"""

from __future__ import annotations

import attrs

from .. import ast
from ..errors import Diagnostic, RulesError
from .base import TooManyErrors
from .declarations import Declarations
from .descriptions import Descriptions
from .expressions import Expressions
from .program import CardInfo, CodeInfo, ExprInfo, KindInfo, ParamInfo, Program, ScenarioInfo, VarInfo, ZoneInfo
from .rules import RuleBodies
from .statements import Statements
from .types import (
    ANY,
    BOOL,
    CARD,
    DIRECTION,
    INT,
    NONE,
    PLAYER,
    SCALARS,
    STR,
    TYPE_NAMES,
    ZONE,
    coerce_param,
    compatible,
    describe,
    elem,
    is_list,
    list_of,
    unify,
)

# What the compiler, the tools and the tests read: the types (types.py) and the checked program.
__all__ = [
    "ANY", "BOOL", "CARD", "DIRECTION", "INT", "NONE", "PLAYER", "SCALARS", "STR", "TYPE_NAMES", "ZONE",
    "CardInfo", "Checker", "CodeInfo", "ExprInfo", "KindInfo", "ParamInfo", "Program", "ScenarioInfo", "VarInfo",
    "ZoneInfo", "check", "coerce_param", "compatible", "describe", "elem", "is_list", "list_of", "unify",
]


class Checker(RuleBodies, Statements, Expressions, Declarations, Descriptions):
    """One check of a game's files: declarations first, then every body, then the whole game."""

    def run(self) -> Program:
        decls = [d for f in self.files for d in f.decls]
        by_type: dict[type, list] = {}
        for d in decls:
            by_type.setdefault(type(d), []).append(d)

        if not any(by_type.get(t) for t in (ast.GameName, ast.Players, ast.Action, ast.EndsWhen, ast.Rank)):
            first = self.files[0]
            raise RulesError([Diagnostic(
                ast.Span(first.path, 1, 1, 1, 2), "this file declares no game (no `game`, `players` or actions)",
                "a file of shared declarations (a prelude) is used by a game with `import \"FILE\"`",
            )], self.sources)
        self.name = self._game_name(by_type.get(ast.GameName, []))
        self._players(by_type.get(ast.Players, []))
        self._params(by_type.get(ast.Param, []))
        self._kinds(by_type.get(ast.CardKind, []))
        self._zones(by_type.get(ast.Zone, []))
        self._cards(by_type.get(ast.Cards, []))
        self.global_names: dict[str, ast.Span] = {}
        for group in (self.params, self.zone_by_name):
            for name, info in group.items():
                self.global_names.setdefault(name, info.span)
        self._vars(by_type.get(ast.Counter, []) + by_type.get(ast.Var, []))
        self._collect_defines(by_type.get(ast.Define, []))
        self._collect_procedures(by_type.get(ast.Procedure, []))

        # Bodies, now that every name is known.
        for d in self.defines.values():
            self._check_define(d)
        for v in self.counters + self.vars:
            self._check_var_init(v)
        self.shows = self._shows(by_type.get(ast.Show, []))
        for p in self.procedures.values():
            self._check_code(p, "procedure")
        self.actions = self._actions(by_type.get(ast.Action, []))
        self.hooks = self._hooks(by_type.get(ast.Hook, []))
        self.round_ends = [self._cond_expr("round ends when", e.cond) for e in by_type.get(ast.EndsWhen, [])
                           if e.what == "round"]
        self.game_ends = [self._cond_expr("game ends when", e.cond) for e in by_type.get(ast.EndsWhen, [])
                          if e.what == "game"]
        self.rank = self._rank(by_type.get(ast.Rank, []))
        self.winners = self._winners(by_type.get(ast.Winners, []))
        self.statistics = self._statistics(by_type.get(ast.Statistic, []))
        self.invariants = self._invariants(by_type.get(ast.Invariant, []))
        self.scenarios = self._scenarios(by_type.get(ast.Scenario, []))
        self._whole_game(decls)
        self._descriptions(decls)
        for v in self.race_vars:  # (each race's hidden answers: cells no rule can name)
            v.index = len(self.vars)
            self.vars.append(v)
        if self.diags:  # (the warnings go with the errors: each is worth knowing while fixing them)
            raise RulesError(self.diags + self.warnings, self.sources)
        # (the Program's fields are the checker's own, but for two names)
        own = {"files": "sources", "players": "n_players"}
        return Program(**{f.name: getattr(self, own.get(f.name, f.name)) for f in attrs.fields(Program)})


def check(files: list[ast.RulesFile], players: int | None = None, params: dict[str, object] | None = None) -> Program:
    """Check parsed files (a game and what it imports). Raises RulesError with every error (up to
    errors.MAX_ERRORS, then a note)."""
    checker = Checker(files, players, params)
    try:
        return checker.run()
    except TooManyErrors:
        raise RulesError(checker.diags, checker.sources) from None
