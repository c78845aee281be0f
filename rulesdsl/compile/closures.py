"""Expressions as closures (the fallback where no source is written)."""

from __future__ import annotations

from collections.abc import Callable

from .. import ast
from ..checker import CARD, ZONE, is_list
from ..engine.state import (
    GRID,
    State,
)
from ..errors import Diagnostic, RulesError, RulesRuntimeError
from .runtime import (
    _UNSET,
    Fn,
)
from .source import NoSource
from .tree import (
    MAX_RANGE,
    _children,
    _worth_caching,
)


class Closures:
    """The expressions of the Compiler (a part of it)."""

    # ------------------------------------------------------------ expressions
    def type(self, e: ast.Expr) -> str:
        return self.p.types.get(id(e), "any")

    def zone(self, e: ast.Expr) -> Fn:
        """A function giving the zone instance index an expression names."""
        g = self.g
        if isinstance(e, ast.Name):
            ref = self.p.refs.get(id(e))
            if ref and ref[0] == "zone":
                zi = g.zone_base[ref[1]]
                return lambda st, env: zi
        if isinstance(e, ast.Attr):
            spec = g.zone_spec_names.index(e.name)
            base = g.zone_base[spec]
            owner = self.expr(e.obj)
            if hasattr(owner, "src"):  # one function, the owner's expression written in it
                return eval(f"lambda st, env: {self._owned_zone_src(e, owner)}", self.source.names)

            def f(st, env):
                p = owner(st, env)
                if p is None:
                    raise RulesRuntimeError(f"the owner of '{e.name}' is none")
                return base + p

            return f
        raise RulesError([Diagnostic(e.span, "expected a zone")], self.p.files)

    def expr(self, e: ast.Expr) -> Fn:
        cached = self.hoist.get(id(e))
        if cached is not None:
            return self._cached_reader(e, *cached)
        if self.codegen and not self.hoist:
            try:
                return self.source.compile(e)
            except NoSource:
                pass  # this expression runs as closures
            except SyntaxError:
                self.refused.append(e.span)  # generated source Python refused: a bug to look into

        return getattr(self, "e_" + type(e).__name__)(e)

    def _cached_reader(self, e: ast.Expr, cache: list, i: int) -> Fn:
        del self.hoist[id(e)]
        compute = self.expr(e)
        self.hoist[id(e)] = (cache, i)

        def read(st, env):
            v = cache[i]
            if v is _UNSET:
                v = cache[i] = compute(st, env)
            return v

        return read

    def e_IntLit(self, e):
        v = e.value
        return lambda st, env: v

    e_StrLit = e_IntLit

    e_BoolLit = e_IntLit

    def e_NoneLit(self, e):
        return lambda st, env: None

    def e_Name(self, e: ast.Name):
        ref = self.p.refs[id(e)]
        kind = ref[0]
        g, n = self.g, self.n
        if kind == "local":
            slot = ref[1]
            return lambda st, env: env[slot]
        if kind == "const":
            v = ref[1]
            return lambda st, env: v
        if kind == "counter":
            slot = g.counter_layout[self.p.counters[ref[1]].name][0]
            return lambda st, env: st.counters[slot]
        if kind == "var":
            slot = g.var_layout[self.p.vars[ref[1]].name][0]
            return lambda st, env: st.vars[slot]
        if kind == "zone":
            zi = g.zone_base[ref[1]]
            if g.zone_shape[zi] == GRID:
                return lambda st, env: [c for c in st.zones[zi] if c is not None]
            return lambda st, env: st.zones[zi]
        if kind == "define":
            return self._define_fn(ref[1])
        if kind == "builtin":
            name = ref[1]
            if name == "me":
                return lambda st, env: st.current
            if name == "others":
                return lambda st, env: [(st.current + st.direction * k) % n for k in range(1, n)]
            if name == "round":
                return lambda st, env: st.round
            if name == "turn":
                return lambda st, env: st.turn
            if name == "direction":
                return lambda st, env: st.direction
            if name == "clockwise":
                return lambda st, env: 1
            if name == "counterclockwise":
                return lambda st, env: -1
            if name == "player_count":
                return lambda st, env: n
            if name == "winners":
                return lambda st, env: st.winners
            if name == "game_over":
                return lambda st, env: st.over
            if name == "decider":
                return lambda st, env: None if st.over or st.chooser < 0 else st.chooser
        raise AssertionError(ref)

    def _define_fn(self, name: str) -> Fn:
        cache = self.__dict__.setdefault("_define_cache", {})
        if name in cache:
            return cache[name]
        info = self.p.defines[name]
        nlocals = info.nlocals
        cell: list = [None]
        cache[name] = lambda st, env: cell[0](st, [None] * nlocals)
        body = self.expr(info.expr)
        cell[0] = body
        if nlocals == 0:
            cache[name] = lambda st, env: body(st, env)
        return cache[name]

    def _define_body(self, name: str) -> Fn:
        """A define's body, compiled once: f(state, locals) with its parameters in the first slots."""
        cache = self.__dict__.setdefault("_body_cache", {})
        if name not in cache:
            cache[name] = None  # defines are not recursive (the checker says so)
            cache[name] = self.expr(self.p.defines[name].expr)
        return cache[name]

    def _show_fn(self, name: str) -> Fn:
        if name in self.p.defines:
            return self._define_fn(name)
        if name in self.g.counter_layout:
            slot = self.g.counter_layout[name][0]
            return lambda st, env: st.counters[slot]
        slot = self.g.var_layout[name][0]
        return lambda st, env: st.vars[slot]

    def _show_type(self, name: str) -> str:
        if name in self.p.defines:
            return self.p.defines[name].type
        return next(v for v in self.p.vars + self.p.counters if v.name == name).type

    def e_PlayersExpr(self, e: ast.PlayersExpr):
        n = self.n
        if e.start is None:
            seats = list(range(n))
            return lambda st, env: seats
        start = self.expr(e.start)

        def f(st, env):
            s = start(st, env)
            if s is None:
                raise RulesRuntimeError("`players from` a player who is none")
            d = st.direction
            return [(s + d * k) % n for k in range(n)]

        return f

    def e_ListLit(self, e: ast.ListLit):
        items = [self.expr(x) for x in e.items]
        return lambda st, env: [f(st, env) for f in items]

    def e_Attr(self, e: ast.Attr):
        t = self.type(e.obj)
        obj = self.expr(e.obj)
        g = self.g
        if t in (CARD, ZONE, "list[card]"):
            table = g.attrs[e.name]
            if t == CARD:
                return lambda st, env: None if (c := obj(st, env)) is None else table[c]
            return lambda st, env: [table[c] for c in obj(st, env) if c is not None]
        # a player's attribute (or a list of players')
        name = e.name
        if name == "seat":
            one = lambda st, p: p + 1  # seats count from 1, as on the command line
        elif name in g.zone_spec_names and g.zone_spec_per_player[g.zone_spec_names.index(name)]:
            base = g.zone_base[g.zone_spec_names.index(name)]
            if g.zone_shape[base] == GRID:
                one = lambda st, p: [c for c in st.zones[base + p] if c is not None]
            else:
                one = lambda st, p: st.zones[base + p]
        elif name in g.counter_layout:
            base = g.counter_layout[name][0]
            one = lambda st, p: st.counters[base + p]
        else:
            base = g.var_layout[name][0]
            one = lambda st, p: st.vars[base + p]
        getter = one
        if t == "list[player]":
            if self.type(e) == "list[card]":
                return lambda st, env: [c for p in obj(st, env) if p is not None for c in getter(st, p)]
            return lambda st, env: [getter(st, p) for p in obj(st, env) if p is not None]

        def f(st, env):
            p = obj(st, env)
            if p is None:
                raise RulesRuntimeError(f"cannot read '{name}' of a player who is none")
            return getter(st, p)

        return f

    def e_Call(self, e: ast.Call):
        ref = self.p.refs.get(id(e))
        if ref is not None and ref[0] == "define":
            info = self.p.defines[e.func]
            body = self.expr(info.expr)
            args = [self.expr(a) for a in e.args]
            nlocals = info.nlocals
            k = len(args)
            spread = ref[2] if len(ref) > 2 else None

            def call(st, env):
                new = [None] * nlocals
                for i in range(k):
                    new[i] = args[i](st, env)
                return body(st, new)

            if spread is None:
                return call
            if self.codegen and k == 1 and hasattr(args[0], "src"):
                each_src = self._each_src(info.expr, spread, args[0])
                if each_src is not None:
                    return each_src

            def each(st, env):
                # One call per item of the list argument: `points(me.square)` is the list of points.
                new = [None] * nlocals
                for i in range(k):
                    new[i] = args[i](st, env)
                out = []
                for item in new[spread]:
                    if item is None:
                        continue
                    one = new[:]
                    one[spread] = item
                    out.append(body(st, one))
                return out

            return each
        args = [self.expr(a) for a in e.args]
        a = args[0]
        f = e.func
        n = self.n
        if f == "count":
            return lambda st, env: len(a(st, env))
        if f == "sum":
            return lambda st, env: sum([v for v in a(st, env) if v is not None])  # (a list: quicker than a generator)
        if f in ("min", "max"):
            pick = min if f == "min" else max
            if len(args) == 2:
                b = args[1]
                return lambda st, env: pick(a(st, env), b(st, env))
            return lambda st, env: pick([v for v in a(st, env) if v is not None], default=None)
        if f == "any":
            return lambda st, env: bool(a(st, env))
        if f == "empty":
            return lambda st, env: not a(st, env)
        if f in ("top", "last"):
            return lambda st, env: s[-1] if (s := a(st, env)) else None
        if f in ("bottom", "first"):
            return lambda st, env: s[0] if (s := a(st, env)) else None
        if f == "random":
            return lambda st, env: s[st.randbelow(len(s))] if (s := a(st, env)) else None
        if f in ("next", "previous"):
            sign = 1 if f == "next" else -1

            def step(st, env):
                p = a(st, env)
                if p is None:
                    raise RulesRuntimeError(f"{f}() of a player who is none")
                return (p + sign * st.direction) % n

            return step
        if f == "distinct":
            return lambda st, env: list(dict.fromkeys(a(st, env)))
        if f == "sorted":
            return lambda st, env: sorted(v for v in a(st, env) if v is not None)
        if f == "abs":
            return lambda st, env: abs(a(st, env))
        g = self.g
        if f == "knows":
            b = args[1]
            return lambda st, env: (p := a(st, env)) is not None and (c := b(st, env)) is not None \
                and bool(st.known[c] >> p & 1)
        if f == "owner":
            return lambda st, env: None if (c := a(st, env)) is None or g.zone_owner[st.loc[c]] < 0 \
                else g.zone_owner[st.loc[c]]
        if f == "place":
            return lambda st, env: None if (c := a(st, env)) is None else st.zones[st.loc[c]].index(c) + 1
        if f == "zone_of":
            return lambda st, env: None if (c := a(st, env)) is None else g.zone_spec_names[g.zone_spec[st.loc[c]]]
        raise AssertionError(f)

    def _each_src(self, body: ast.Expr, slot: int, arg: Fn) -> Fn | None:
        """A one-parameter define applied to each item of a list, as one comprehension: the
        body's source with the parameter read from the loop's variable."""
        var = f"_i{slot}"
        try:
            src = self.source.src(body, {slot: var})
            if "env[" in src:
                return None  # the body reads other locals of its own
            return eval(f"lambda st, env: [{src} for {var} in {self.source.inline(arg)} if {var} is not None]",
                        self.source.names)
        except (NoSource, SyntaxError):
            return None

    def e_Unary(self, e: ast.Unary):
        f = self.expr(e.operand)
        if e.op == "not":
            return lambda st, env: not f(st, env)
        return lambda st, env: -f(st, env)

    def e_Binary(self, e: ast.Binary):
        a, b = self.expr(e.left), self.expr(e.right)
        op = e.op
        if op == "and":
            return lambda st, env: a(st, env) and b(st, env)
        if op == "or":
            return lambda st, env: a(st, env) or b(st, env)
        if op == "+":
            if is_list(self.type(e.left)):
                return lambda st, env: list(a(st, env)) + list(b(st, env))
            return lambda st, env: a(st, env) + b(st, env)
        simple = {
            "-": lambda st, env: a(st, env) - b(st, env),
            "*": lambda st, env: a(st, env) * b(st, env),
            "/": lambda st, env: a(st, env) // b(st, env),
            "%": lambda st, env: a(st, env) % b(st, env),
            "==": lambda st, env: a(st, env) == b(st, env),
            "!=": lambda st, env: a(st, env) != b(st, env),
            "<": lambda st, env: a(st, env) < b(st, env),
            "<=": lambda st, env: a(st, env) <= b(st, env),
            ">": lambda st, env: a(st, env) > b(st, env),
            ">=": lambda st, env: a(st, env) >= b(st, env),
            "in": lambda st, env: a(st, env) in b(st, env),
        }
        return simple[op]

    def e_IsKind(self, e: ast.IsKind):
        f = self.expr(e.operand)
        k = self.g.kind_names.index(e.kind)
        kinds = self.g.card_kind
        if e.negate:
            return lambda st, env: (c := f(st, env)) is None or kinds[c] != k
        return lambda st, env: (c := f(st, env)) is not None and kinds[c] == k

    def e_Range(self, e: ast.Range):
        lo, hi = self.expr(e.low), self.expr(e.high)

        def f(st, env):
            a, b = lo(st, env), hi(st, env)
            if b - a > MAX_RANGE:
                raise RulesRuntimeError(f"the range {a}..{b} is too long (at most {MAX_RANGE} numbers)")
            return list(range(a, b + 1))

        return f

    def e_Where(self, e: ast.Where):
        seq, test = self._filter_parts(e)

        def f(st, env):
            out = []
            for x in seq(st, env):
                if x is not None and test(st, env, x):
                    out.append(x)
            return out

        return f

    def _filter_parts(self, e: ast.Where) -> tuple[Fn, Callable[[State, list, object], bool]]:
        """The list a `where` filters, and a test(state, locals, item).

        Parts of the condition that do not depend on the item (`current_number` in
        `it.number == current_number`) are hoisted: worked out at most once per filtering,
        lazily, so a value that is never needed is never computed (and cannot fail).
        """
        seq = self.expr(e.seq)
        slot = self.p.slots[id(e)]
        parts = self._invariant_parts(e.cond, slot)
        cache: list = [_UNSET] * len(parts)
        for i, node in enumerate(parts):
            self.hoist[id(node)] = (cache, i)
        cond = self.expr(e.cond)
        for node in parts:
            del self.hoist[id(node)]

        def test(st, env, x):
            env[slot] = x
            return cond(st, env)

        if not parts:
            return seq, test
        fresh = list(cache)

        def seq_reset(st, env):
            cache[:] = fresh
            return seq(st, env)

        return seq_reset, test

    def _invariant_parts(self, cond: ast.Expr, slot: int) -> list[ast.Expr]:
        """The largest sub-expressions of cond that do not depend on the item and are worth caching."""
        varying = {slot}

        def binders(node) -> None:
            if isinstance(node, ast.Where):
                varying.add(self.p.slots[id(node)])
            for k in _children(node):
                binders(k)

        binders(cond)
        out: list[ast.Expr] = []

        def walk(node) -> set[int]:
            """What node depends on: the item, inner binders it reads outside their own `where`
            (an inner `where` as a whole does not depend on its own binder: `min((players where
            it != me).score)` is the same for every item), or chance (-1). Empty: invariant."""
            kids = list(_children(node))
            deps = [walk(k) for k in kids]
            ref = self.p.refs.get(id(node)) if isinstance(node, ast.Name) else None
            free = set().union(*deps)
            if ref is not None and ref[0] == "local" and ref[1] in varying:
                free.add(ref[1])
            if isinstance(node, ast.Call) and node.func == "random":
                free.add(-1)
            if isinstance(node, ast.Where) and id(node) in self.p.slots:
                free.discard(self.p.slots[id(node)])
            if free:
                out.extend(k for k, d in zip(kids, deps, strict=True) if not d and _worth_caching(k, self.p.refs))
            return free

        if not walk(cond) and _worth_caching(cond, self.p.refs):
            out.append(cond)
        return out

    def e_Match(self, e: ast.Match):
        subject = self.expr(e.subject)
        table = {value: self.expr(result) for value, result in reversed(e.cases)}
        default = self.expr(e.default) if e.default is not None else (lambda st, env: None)

        def f(st, env):
            case = table.get(subject(st, env))
            return (case or default)(st, env)

        return f

    def e_IfExpr(self, e: ast.IfExpr):
        c, a, b = self.expr(e.cond), self.expr(e.then), self.expr(e.orelse)
        return lambda st, env: a(st, env) if c(st, env) else b(st, env)
