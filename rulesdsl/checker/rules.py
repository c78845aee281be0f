"""The bodies of the rules, once every name is declared: actions, hooks and procedures, initial
values, the ends of rounds and games, the ranking, statistics, invariants and scenarios."""

from __future__ import annotations

from .. import ast
from ..errors import did_you_mean
from .base import CheckerBase, Scope, Unit
from .expressions import _nodes
from .program import CodeInfo, ExprInfo, ScenarioInfo, VarInfo
from .types import ANY, BOOL, INT, NONE, PLAYER, coerce_param, compatible, describe, describe_param_type, type_of_value


class RuleBodies(CheckerBase):
    """Checks each rule's body with its own locals (a Unit) and makes its entry of the Program."""

    def _check_var_init(self, v: VarInfo) -> None:
        unit = Unit(v.name, "init")
        t = self.expr(v.init, Scope(), unit, in_game=False)
        if v.type == "?":
            if t in (NONE, ANY, "list[any]"):
                self.error(v.span, f"cannot tell the type of '{v.name}' from its value",
                           f"write `var {v.name}: cards = []` (or players, numbers)" if t == "list[any]"
                           else f"write `var {v.name}: player = none` (or card, int, bool)")
                v.type = ANY
            else:
                v.type = t
        elif not compatible(v.type, t):
            self.error(v.init.span, f"'{v.name}' holds {describe(v.type)}, but its initial value is {describe(t)}")
        if unit.nslots:
            self.error(v.init.span, "an initial value must be simple")

    def _actions(self, decls: list[ast.Action]) -> list[CodeInfo]:
        out: list[CodeInfo] = []
        for d in self._once_each(decls, "action"):
            info = CodeInfo(d.name, d.body, cond=d.cond, span=d.span)
            self._check_code(info, "action")
            out.append(info)
        return out

    def _hooks(self, decls: list[ast.Hook]) -> dict[str, CodeInfo]:
        out: dict[str, CodeInfo] = {}
        for d in decls:
            if d.when in out:
                self.error(d.span, f"`{d.when}` is declared twice")
                continue
            info = CodeInfo(d.when, d.body, span=d.span)
            self._check_code(info, d.when)
            out[d.when] = info
        return out

    def _check_code(self, info: CodeInfo, kind: str) -> None:
        unit = Unit(info.name, kind)
        scope = Scope()
        for name, t in info.params:
            unit.bind(scope, name, unit.new_slot(t), t)
        if info.cond is not None:
            self.want(info.cond, BOOL, scope, unit, "an action's `when` condition")
        self.block(info.body, Scope(scope), unit)
        info.nlocals = unit.nslots
        info.slot_types = dict(unit.slot_types)

    def _cond_expr(self, name: str, e: ast.Expr) -> ExprInfo:
        unit = Unit(name, "expr")
        self.want(e, BOOL, Scope(), unit, f"`{name}`")
        return ExprInfo(name, e, BOOL, nlocals=unit.nslots)

    def _rank(self, decls: list[ast.Rank]) -> list[tuple[str, ExprInfo]]:
        for extra in decls[1:]:
            self.error(extra.span, "the ranking is given twice")
        out = []
        for key in decls[0].keys if decls else ():
            unit = Unit("rank", "expr")
            scope = Scope()
            slot = unit.new_slot()
            scope.names["it"] = (slot, PLAYER)
            t = self.expr(key.key, scope, unit)
            if not compatible(INT, t) and not compatible(BOOL, t):
                self.error(key.key.span, f"a ranking key must be a number or a condition, not {describe(t)}")
            out.append((key.order, ExprInfo("rank", key.key, t, nlocals=unit.nslots, it_slot=slot)))
        return out

    def _winners(self, decls: list[ast.Winners]) -> ExprInfo | None:
        for extra in decls[1:]:
            self.error(extra.span, "`winners are` is given twice")
        if not decls:
            return None
        unit = Unit("winners", "expr")
        self.want(decls[0].expr, "list[player]", Scope(), unit, "`winners are`")
        return ExprInfo("winners", decls[0].expr, "list[player]", nlocals=unit.nslots)

    def _statistics(self, decls: list[ast.Statistic]) -> list[ExprInfo]:
        return self._named_exprs(decls, "statistic", "a number or yes/no", (INT, BOOL))

    def _invariants(self, decls: list[ast.Invariant]) -> list[ExprInfo]:
        return self._named_exprs(decls, "invariant", "yes or no", (BOOL,))

    def _named_exprs(self, decls: list, what: str, want: str, types: tuple[str, ...]) -> list[ExprInfo]:
        """`statistic NAME = EXPR` and `invariant NAME: EXPR`: named values of the whole table."""
        out = []
        for d in self._once_each(decls, what):
            unit = Unit(d.name, "expr")
            t = self.expr(d.expr, Scope(), unit)
            if not any(compatible(x, t) for x in types):
                self.error(d.expr.span, f"an {what} must be {want}, not {describe(t)}" if what[0] in "aeiou"
                           else f"a {what} must be {want}, not {describe(t)}")
            info = ExprInfo(d.name, d.expr, t if t in types else types[0], nlocals=unit.nslots)
            info.span = d.span
            out.append(info)
        return out

    def _scenarios(self, decls: list[ast.Scenario]) -> list[ScenarioInfo]:
        from ..engine.game import DEFAULT_NAMES

        out = []
        seen: set[str] = set()
        for d in decls:
            if d.name in seen:
                self.error(d.span, f"scenario '{d.name}' is declared twice")
            seen.add(d.name)
            info = ScenarioInfo(d.name, d.span, self.default_players, 1, {}, [])
            started = False
            for step in d.steps:
                if step.kind in ("players", "seed", "param"):
                    if started:
                        self.error(step.span, f"`{step.kind}` sets up the scenario: put it before the first move "
                                   "or check")
                    if step.kind == "players":
                        if not self.min_players <= step.value <= self.max_players:
                            self.error(step.span, f"this game is for {self.min_players} to {self.max_players} "
                                       f"players, not {step.value}")
                        else:
                            info.players = step.value
                    elif step.kind == "seed":
                        info.seed = step.value
                    else:
                        self._scenario_param(step, info)
                    continue
                started = True
            names = [n for n in DEFAULT_NAMES[: info.players]]
            self.scenario_players = {n: i for i, n in enumerate(names)}
            for step in d.steps:
                if step.kind in ("players", "seed", "param"):
                    continue
                info.steps.append((step, self._scenario_step(step)))
            self.scenario_players = {}
            out.append(info)
        return out

    def _scenario_param(self, step: ast.Step, info: ScenarioInfo) -> None:
        p = self.params.get(step.name)
        if p is None:
            self.error(step.span, f"unknown parameter '{step.name}'", did_you_mean(step.name, self.params))
            return
        value = coerce_param(step.value, p.default)
        if value is None or type_of_value(value) != type_of_value(p.default):
            self.error(step.span, f"parameter '{step.name}' takes {describe_param_type(p.default)}")
        elif p.low is not None and not p.low <= value <= p.high:
            self.error(step.span, f"parameter '{step.name}' must be in {p.low}..{p.high}")
        else:
            info.params[step.name] = value

    def _scenario_step(self, step: ast.Step) -> ExprInfo | None:
        unit = Unit("scenario", "expr")
        scope = Scope()
        if step.kind in ("put", "put_top"):
            self.zone_target(step.expr, scope, unit, "where the cards are put")
        elif step.kind == "turn":
            self.want(step.expr, PLAYER, scope, unit, "`turn`")
        elif step.kind == "expect":
            self.want(step.expr, BOOL, scope, unit, "what is expected")
        elif step.kind == "set":
            assign = ast.Assign(step.target, "=", step.expr, span=step.span)
            t = self.expr(step.expr, scope, unit)
            target = self._target(assign, scope, unit)
            if target is not None and not compatible(target, t):
                self.error(step.expr.span, f"'{'.'.join(step.target)}' holds {describe(target)}, not {describe(t)}")
            self.refs[id(step)] = self.refs.get(id(assign))
            self.step_assignments.append(assign)
        else:
            return None
        return ExprInfo(step.kind, step.expr, BOOL, nlocals=unit.nslots)

    def _asks_in_turn_hooks(self) -> bool:
        """Whether a turn hook (or a procedure) holds a `choose`: a game without actions plays
        each turn as its hooks, and is asked nothing else."""
        turn = [self.hooks[w].body for w in ("turn start", "turn end") if w in self.hooks]
        bodies = tuple(turn + [info.body for info in self.procedures.values()]) if turn else ()
        return any(isinstance(x, ast.Choose) for x in _nodes(bodies))

    def _whole_game(self, decls: list[ast.Decl]) -> None:
        where = decls[0].span if decls else None
        if not self.actions and not self._asks_in_turn_hooks():
            self.error(where, "the game has no actions", "declare what a player can do: `action NAME { ... }`")
        if not self.game_ends and not self.has_end_game:
            self.error(where, "the game never ends",
                       "add `game ends when CONDITION`, or an `end game` statement")
        if not self.rank and self.winners is None:
            self.error(where, "the game says nothing about who wins",
                       "add `rank by lowest SCORE` or `winners are PLAYERS`")
