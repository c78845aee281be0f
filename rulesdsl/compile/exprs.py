"""Expressions to Python source, compiled once: the fast path of the compiler.

A closure per node costs a Python call per node per evaluation; here an expression becomes one
Python expression instead (as Jinja turns templates into Python source). A `where` becomes a
comprehension whose loop variable is the item, so `hand where it is plain and it.number == n`
runs as `[c for c in hand if kinds[c] == 3 and number[c] == n]`. Parts of a condition that do not
depend on the item are worked out once, before the loop, when that cannot fail. Every expression
is written here, and only here: the other writers (blocks, straight runs, options) put this
source in their own lines, and what runs outside the machine (a define's value, a `show`, a rank
key, an invariant) is a function made from it (SourceCompiler.function).
"""

from __future__ import annotations

import ast as pyast
import itertools
import operator
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .. import ast
from ..checker import BOOL, CARD, INT, PLAYER, STR, ZONE, is_list
from ..engine.state import GRID, LOCATED, STACK, bad_pick
from ..errors import RulesRuntimeError
from .runtime import _leaf_error
from .source import _STRING, env_list
from .tree import MAX_RANGE, _children, _descendants, _descendants_nodes, _worth_caching

LITERALS = (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)
# Built-ins that cost no loop of their own when their argument is no `where`.
CHEAP_CALLS = {"abs", "min", "max", "any", "empty", "count", "top", "last", "first", "bottom"}


# Built-ins that never raise on their own (so a part using only them may be hoisted).
SAFE_CALLS = {"count", "any", "empty", "top", "bottom", "first", "last", "distinct", "owner", "place", "zone_of",
              "knows"}


def _last(s):
    return s[-1] if s else None


def _first(s):
    return s[0] if s else None


def _card_attr(table, c):
    return None if c is None else table[c]


def _last_attr(table, s):
    return table[s[-1]] if s and s[-1] is not None else None


def _first_attr(table, s):
    return table[s[0]] if s and s[0] is not None else None


def _end_of(src: str) -> tuple[str | None, str]:
    """("_last", "S") if src is the one call `_last(S)` or `(S or [None])[-1]` (or `_first`,
    `[0]`), else (None, "")."""
    if not src.startswith(("_last(", "_first(", "(")):
        return None, ""
    try:
        tree = pyast.parse(src, mode="eval").body
    except SyntaxError:
        return None, ""
    if isinstance(tree, pyast.Call) and isinstance(tree.func, pyast.Name) and len(tree.args) == 1 \
            and not tree.keywords and tree.func.id in ("_last", "_first"):
        return tree.func.id, pyast.get_source_segment(src, tree.args[0]) or ""
    if isinstance(tree, pyast.Subscript) and isinstance(tree.value, pyast.BoolOp) \
            and isinstance(tree.value.op, pyast.Or) and len(tree.value.values) == 2 \
            and pyast.unparse(tree.value.values[1]) == "[None]" and pyast.unparse(tree.slice) in ("-1", "0"):
        seq = pyast.get_source_segment(src, tree.value.values[0])
        if seq:
            return ("_last" if pyast.unparse(tree.slice) == "-1" else "_first"), seq
    return None, ""


def _grid_places(src: str) -> str:
    """`Z` for `[_c for _c in Z if _c is not None]` (a grid's cards, as s_Name and s_Attr write
    them), for a loop that skips none anyway; else src itself."""
    if not src.startswith("[_c for _c in st.zones["):
        return src
    tree = pyast.parse(src, mode="eval").body
    if isinstance(tree, pyast.ListComp) and len(tree.generators) == 1 and pyast.unparse(tree.elt) == "_c":
        loop = tree.generators[0]
        if pyast.unparse(loop.target) == "_c" and [pyast.unparse(c) for c in loop.ifs] == ["_c is not None"] \
                and not loop.is_async:
            return pyast.get_source_segment(src, loop.iter) or src
    return src


def _player(p, what):
    if p is None:
        raise RulesRuntimeError(f"cannot read '{what}' of a player who is none")
    return p


def _fail(msg):
    raise RulesRuntimeError(msg)


def _some(v, msg):
    if v is None:
        raise RulesRuntimeError(msg)
    return v


# Source that only reads (locals, state fields, loop items, numbers, + - %): reading it twice gives
# the same value and costs less than a call, so `x if x is not None else ...` is written in place.
_PURE = re.compile(r"(?:env|st\.(?:zones|vars|counters|current|direction)|_[ih]\d+|\d+|[ +\-%\[\]()])*\Z")


# A test that looks an item up in a table and compares it with a value: `(_k15[_i2] == 4)`.
_LOOKUP = re.compile(r"\((_k\d+)\[(_i\d+)\] == (.+)\)\Z", re.S)
_VALUE = re.compile(r"-?\d+|'[^'\\]*'|_h\d+")  # a number, a plain string, a value worked out before
_READ = re.compile(r"env\[\d+\]|st\.(?:vars|counters)\[\d+\]")  # a read that cannot fail

# A scan's source, `next((_i4 for _i4 in ... if ...), None)` (see SourceCompiler.scan_body).
_SCAN = re.compile(r"next\(\((_i\d+) for \1 (in .*)\), None\)\Z", re.S)


def unguard(src: str, x: str) -> str:
    """src with its none checks of x (`(x if x is not None else _fail(...))`, as `some` writes
    them) taken out, for source that runs only once x is known not to be none. Only for x that
    reads a local or the state (nothing in src can set it again)."""
    if not pure(x) or re.fullmatch(r"\(*_i\d+\)*", x) or f"{x} is not None else _fail(" not in src:
        return src
    guard = re.escape(f"({x} if {x} is not None else _fail(") + r"(?:'[^'\\\n]*'|\"[^\"\\\n]*\")\)\)"
    return re.sub(guard, lambda _m: f"({x})", src)


def pure(src: str) -> bool:
    """Short source free of calls and side effects (see _PURE)."""
    return len(src) <= 48 and _PURE.match(src) is not None


def number(src: str) -> bool:
    """A number written out (a constant seat or card): never none."""
    return src.strip("()").isdigit()


def _item(src: str) -> bool:
    """A loop's item (`_i4`) or a number: evaluated already, never none."""
    return number(src) or re.fullmatch(r"_i\d+", src) is not None


def _sum(values):
    if type(values) is list and None not in values:  # the common case: nothing to skip
        return sum(values)
    return sum([v for v in values if v is not None])  # (a list: quicker than a generator)


def _pick(f, values):
    if type(values) is list and None not in values:
        return f(values, default=None)
    return f([v for v in values if v is not None], default=None)


def _rand(st, s):
    return s[st.randbelow(len(s))] if s else None


def _hist(keys: list) -> dict:
    """How many times each value occurs (a plain loop: quicker than Counter on a hand's worth)."""
    h: dict = {}
    for k in keys:
        h[k] = h.get(k, 0) + 1
    return h


def _each(body, st, env, k):
    """A define applied to each item of its list argument (`points(me.square)`, the list of each
    card's points): its arguments worked out once (`env`, the call's locals), then one call per
    item that is not none, with the item in slot k."""
    out = []
    for item in env[k]:
        if item is not None:
            one = env[:]
            one[k] = item
            out.append(body(st, one))
    return out


def _range(a, b, limit):
    if b - a > limit:
        raise RulesRuntimeError(f"the range {a}..{b} is too long (at most {limit} numbers)")
    return list(range(a, b + 1))


# What an expression of a card alone may hold (SourceCompiler.card_values): no call, no attribute.
_VALUE_NODES = (pyast.Expression, pyast.BoolOp, pyast.Compare, pyast.Subscript, pyast.Name, pyast.Constant,
                pyast.Tuple, pyast.UnaryOp, pyast.BinOp, pyast.IfExp, pyast.NamedExpr, pyast.expr_context,
                pyast.boolop, pyast.cmpop, pyast.unaryop, pyast.operator)
_SCALARS = (int, str, float, type(None))


def _constant(name: str, value) -> bool:
    """A name that stands for a value no rule changes: a scalar, a tuple or frozenset of them, or a
    table of the game's made when the rules load (`_k...`, never written)."""
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, (tuple, frozenset)) and all(isinstance(v, _SCALARS) for v in value):
        return True
    return re.fullmatch(r"_k\d+", name) is not None and isinstance(value, (list, tuple, dict))


def _plus(base: int) -> str:
    """`base + ` before a seat, or nothing for 0 (the first table of its kind)."""
    return f"{base} + " if base else ""


MAX_WRITTEN = 8  # players: up to this many, a scan over them (`first(players where ...)`) is written seat by seat


class SourceCompiler:
    """Writes every expression as one Python expression, and makes functions of them."""

    def __init__(self, comp):
        self.c = comp  # the Compiler: its tables (refs, types, slots) and its game
        self.names: dict[str, object] = {
            "_last": _last, "_first": _first, "_card_attr": _card_attr, "_player": _player, "_sum": _sum,
            "_pick": _pick, "_rand": _rand, "_range": _range, "RulesRuntimeError": RulesRuntimeError,
            "_hist": _hist, "_fail": _fail, "_some": _some, "_last_attr": _last_attr, "_first_attr": _first_attr,
            "_is_not": operator.is_not, "_NONES": itertools.repeat(None), "_leaf_error": _leaf_error,
            "_LOCATED": LOCATED, "_bad_pick": bad_pick, "_each": _each,
        }
        self.consts: dict[int, str] = {}
        self.tables: dict = {}  # see shared
        self._counts = None
        self._temps = 0  # names bound by `:=` so far (each site its own: see temp)
        # The fast forms (values worked out before a loop, counts joined, tables of each card's
        # value, defines written in place, scans written seat by seat); without them (shortcuts=False)
        # each construct is written the plain way, the reference the tests compare them with.
        self.fast = comp.shortcuts
        self._bodies: dict[str, Callable] = {}  # per define with parameters: its body, f(st, locals)
        self._values: dict[str, Callable] = {}  # per define without: its value, f(st, env)

    @property
    def counts(self):
        """The game's one writer of code that reads cards by face (counts.py): the straight runs'
        counted options and, here, a card found by its face. One, so its names never meet."""
        if self._counts is None:
            self._counts = self.c.count_writer()
        return self._counts

    # -- entry
    def compile(self, e: ast.Expr) -> Callable:
        """`f(st, env)` giving the expression's value; `f.src` is its source, which generated
        blocks write in place instead of calling f."""
        return self.function(self.src(e, {}))

    def function(self, src: str, params: str = "st, env", nlocals: int | None = None,
                 slots: dict[int, str] | None = None) -> Callable:
        """A function of `params` returning the expression `src`; with `nlocals`, one that makes
        its own locals each call (that many, `slots` set from its parameters: a rank key's `it`),
        as a define's value, a `show`, a rank key or an invariant has. The one place where an
        expression's source becomes a function."""
        if nlocals is not None and "env" in src:
            env = ["None"] * nlocals
            for slot, name in (slots or {}).items():
                env[slot] = name
            src = f"(lambda env: {src})([{', '.join(env)}])"
        f = eval(f"lambda {params}: {src}", self.names)
        f.src = src
        return f

    def standalone(self, e: ast.Expr) -> str:
        """The source of `e` on its own, outside any loop being written: a define's body is one
        function for every call, so no value worked out before some caller's loop stands in it."""
        with self._outside_loops():
            return self.src(e, {})

    @contextmanager
    def _outside_loops(self) -> Iterator[None]:
        saved = dict(self.hoisted), dict(self.joins)
        self.hoisted.clear()
        self.joins.clear()
        try:
            yield
        finally:
            self.hoisted.update(saved[0])
            self.joins.update(saved[1])

    def define_body(self, name: str) -> Callable:
        """A define's body, compiled once: f(state, locals), its parameters in the first slots."""
        body = self._bodies.get(name)
        if body is None:  # (defines are not recursive: the checker says so)
            body = self._bodies[name] = self.function(self.standalone(self.c.p.defines[name].expr))
        return body

    def define_value(self, name: str) -> Callable:
        """A define without parameters, compiled once: f(state, env), with locals of its own."""
        value = self._values.get(name)
        if value is None:
            info = self.c.p.defines[name]
            value = self._values[name] = self.function(self.standalone(info.expr), nlocals=info.nlocals)
        return value

    def temp(self) -> str:
        """A new name for a value read twice (`(_b3 := x) is not None and kinds[_b3] == 2`): each
        site its own, so a `:=` inside another one's value never overwrites it."""
        self._temps += 1
        return f"_b{self._temps}"

    def over(self, seq: str, loop: Callable[[str], str]) -> str:
        """`loop(seq)`, a comprehension over seq; where seq holds a `:=` (which Python takes in no
        comprehension's iterable, however deep), the same comprehension over a name that a
        lambda binds to seq's value, worked out first as it would be."""
        if ":=" not in seq:
            return loop(seq)
        name = self.temp()
        return f"(lambda {name}: {loop(name)})({seq})"

    def inline(self, f: Callable) -> str:
        """Python source computing `f(st, env)`: its own source if it has one, else a call."""
        src = getattr(f, "src", None)
        return f"({src})" if src is not None else f"{self.const(f)}(st, env)"

    def const(self, value) -> str:
        key = id(value)
        name = self.consts.get(key)
        if name is None:
            name = f"_k{len(self.names)}"
            self.names[name] = value
            self.consts[key] = name
        return name

    # -- expressions
    def src(self, e: ast.Expr, items: dict[int, str]) -> str:
        hoisted = self.hoisted.get(id(e))
        if hoisted is not None:
            return hoisted
        return getattr(self, "s_" + type(e).__name__)(e, items)

    def type(self, e: ast.Expr) -> str:
        return self.c.type(e)

    def s_IntLit(self, e, items):
        return repr(e.value)

    s_StrLit = s_IntLit
    s_BoolLit = s_IntLit

    def s_NoneLit(self, e, items):
        return "None"

    def s_Name(self, e: ast.Name, items):
        ref = self.c.p.refs[id(e)]
        kind = ref[0]
        g = self.c.g
        n = g.players
        if kind == "local":
            return items.get(ref[1], f"env[{ref[1]}]")
        if kind == "const":
            return repr(ref[1]) if isinstance(ref[1], (int, str, bool)) or ref[1] is None else self.const(ref[1])
        if kind == "counter":
            return f"st.counters[{g.counter_layout[self.c.p.counters[ref[1]].name][0]}]"
        if kind == "var":
            return f"st.vars[{g.var_layout[self.c.p.vars[ref[1]].name][0]}]"
        if kind == "zone":
            zi = g.zone_base[ref[1]]
            if g.zone_shape[zi] == GRID:
                return f"[_c for _c in st.zones[{zi}] if _c is not None]"
            return f"st.zones[{zi}]"
        if kind == "define":
            info = self.c.p.defines[ref[1]]
            if not info.params and self.fast:  # reading no locals (its `where`s are loops): the same in place
                src = self.src(info.expr, {})
                if "env" not in src and len(src) < 2000:
                    return f"({src})"
            return f"{self.const(self.define_value(ref[1]))}(st, env)"
        if kind == "builtin":
            name = ref[1]
            return {
                "me": "st.current",
                "others": f"{self.rounds()}[st.direction][st.current][1:]",
                "round": "st.round", "turn": "st.turn", "direction": "st.direction",
                "clockwise": "1", "counterclockwise": "-1", "player_count": str(n),
                "winners": "st.winners", "game_over": "st.over",
                "decider": "(None if st.over or st.chooser < 0 else st.chooser)",
            }[name]
        raise AssertionError(ref)

    def s_PlayersExpr(self, e: ast.PlayersExpr, items):
        n = self.c.g.players
        if e.start is None:
            return "[" + ", ".join(map(str, range(n))) + "]"
        start = self.src(e.start, items)
        seat = self.player(e.start, start, "players from")
        return f"{self.rounds()}[st.direction][{seat}][:]"

    def rounds(self) -> str:
        """Every seat's round of the table, both ways, made once: `players from p` is a copy of
        one (`others` all of it but p), not a comprehension."""
        if not hasattr(self, "_rounds"):
            n = self.c.g.players
            self._rounds = {d: [[(s + d * k) % n for k in range(n)] for s in range(n)] for d in (1, -1)}
        return self.const(self._rounds)

    def s_ListLit(self, e: ast.ListLit, items):
        return "[" + ", ".join(self.src(x, items) for x in e.items) + "]"

    def player(self, node: ast.Expr, src: str, what: str) -> str:
        """A player's seat, or a runtime error if the expression gives none."""
        if src == "st.current" or src.startswith("_i") or self.never_none(node):
            return src
        return self.some(src, f"cannot read '{what}' of a player who is none")

    @staticmethod
    def some(src: str, msg: str) -> str:
        """Source giving src's value, or raising msg if it is none."""
        if number(src):
            return src
        if pure(src):
            return f"({src} if {src} is not None else _fail({msg!r}))"
        return f"_some({src}, {msg!r})"

    def never_none(self, node: ast.Expr) -> bool:
        """`me`, `next(p)`, `previous(p)`: a seat whenever they give anything at all."""
        if isinstance(node, ast.Call):
            return node.func in ("next", "previous") and self.c.p.refs.get(id(node)) is None \
                and id(node) not in self.hoisted and id(node) not in self.joins
        return isinstance(node, ast.Name) and self.c.p.refs.get(id(node)) == ("builtin", "me")

    def s_Attr(self, e: ast.Attr, items):
        g = self.c.g
        t = self.type(e.obj)
        obj = self.src(e.obj, items)
        if t in (CARD, ZONE, "list[card]"):
            table = self.const(g.attrs[e.name])
            if t == CARD:
                return self.card_attr(table, obj)
            if isinstance(e.obj, ast.Where) and id(e.obj) not in self.hoisted:
                # `(S where C).x`: one comprehension, not a list of the cards and then their x.
                var, seq, cond, hoisted = self.loop(e.obj, items)
                return self.bound_loop(hoisted, seq, lambda first, s: f"[{table}[{var}] for {first}{var} in {s} "
                                                                      f"if ({cond}) and {var} is not None]")
            return self.over(obj, lambda s: f"[{table}[_c] for _c in {s} if _c is not None]")
        name = e.name
        if name == "seat":
            one = "({p} + 1)"
        elif name in g.zone_spec_names and g.zone_spec_per_player[g.zone_spec_names.index(name)]:
            base = g.zone_base[g.zone_spec_names.index(name)]
            if g.zone_shape[base] == GRID:
                one = f"[_c for _c in st.zones[{_plus(base)}{{p}}] if _c is not None]"
            else:
                one = f"st.zones[{_plus(base)}{{p}}]"
        elif name in g.counter_layout:
            one = f"st.counters[{_plus(g.counter_layout[name][0])}{{p}}]"
        else:
            one = f"st.vars[{_plus(g.var_layout[name][0])}{{p}}]"
        if t == "list[player]":
            if self.type(e) == "list[card]":
                return self.over(obj, lambda s: f"[_c for _p in {s} if _p is not None "
                                                f"for _c in {one.format(p='_p')} if _c is not None]")
            return self.over(obj, lambda s: f"[{one.format(p='_p')} for _p in {s} if _p is not None]")
        return one.format(p=self.player(e.obj, obj, name))

    @staticmethod
    def card_attr(table: str, obj: str) -> str:
        """`table[card]`, none for no card; written in place when the card's source only reads."""
        if obj.startswith("_i") or number(obj):  # an item, a constant: never none
            return f"{table}[{obj}]"
        if pure(obj):
            return f"({table}[{obj}] if {obj} is not None else None)"
        end, seq = _end_of(obj)
        if end is not None:  # the attribute of `top(S)` or `bottom(S)`
            i = "-1" if end == "_last" else "0"
            if pure(seq):
                return f"({table}[{seq}[{i}]] if {seq} and {seq}[{i}] is not None else None)"
            return f"{end}_attr({table}, {seq})"
        scan = _SCAN.match(obj)
        if scan is not None:  # the attribute of `top(S where C)`: read in the scan that finds the card
            var, rest = scan.groups()
            return f"next((({table}[{var}] if {var} is not None else None) for {var} {rest}), None)"
        return f"_card_attr({table}, {obj})"

    def s_Call(self, e: ast.Call, items):
        ref = self.c.p.refs.get(id(e))
        if ref is not None and ref[0] == "define":
            info = self.c.p.defines[e.func]
            if len(ref) > 2 and ref[2] is not None:
                return self.each_define(info, e, ref[2], items)
            args = [self.src(a, items) for a in e.args]
            inlined = self.inline_define(info, args)
            if inlined is not None:
                return inlined
            body = self.const(self.define_body(e.func))
            return f"{body}(st, {env_list(args, info.nlocals)})"
        f = e.func
        join = self.joins.get(id(e))
        if join is not None:
            return f"{join[0]}.get({self.src(join[1], items)}, 0)"
        if f in ("count", "any", "empty", "top", "last", "first", "bottom") and isinstance(e.args[0], ast.Where):
            return self.scan(f, e.args[0], items)
        if f == "sum":
            # `sum((S where C).x)` with C about the card alone: each card's share (x, or 0) in a
            # table made now, added up in C.
            summed = self.shares(e, items)
            if summed is not None:
                return f"sum(map({self.const(tuple(summed[1]))}.__getitem__, {summed[0]}))"
        a = [self.src(x, items) for x in e.args]
        x = a[0]
        g = self.c.g
        n = g.players
        if f in ("any", "empty", "count") and len(a) == 1 and self.fast:
            places = _grid_places(x)
            if places != x:  # a grid's cards: its places tested in C, no list of them
                if pure(places):
                    return {"any": f"(len({places}) != {places}.count(None))",
                            "empty": f"(len({places}) == {places}.count(None))",
                            "count": f"(len({places}) - {places}.count(None))"}[f]
                held = f"map(_is_not, {places}, _NONES)"
                return {"any": f"any({held})", "empty": f"(not any({held}))", "count": f"sum({held})"}[f]
        simple = {
            "count": f"len({x})", "sum": f"_sum({x})", "any": f"bool({x})", "empty": f"(not {x})",
            # no call: `x or [None]` is x itself unless it is empty
            "top": f"({x} or [None])[-1]", "last": f"({x} or [None])[-1]", "first": f"({x} or [None])[0]",
            "bottom": f"({x} or [None])[0]",
            "random": f"_rand(st, {x})", "distinct": f"list(dict.fromkeys({x}))",
            "sorted": self.over(x, lambda s: f"sorted(_v for _v in {s} if _v is not None)"), "abs": f"abs({x})",
        }
        if f in simple:
            return simple[f]
        if f in ("min", "max"):
            return f"{f}({a[0]}, {a[1]})" if len(a) == 2 else f"_pick({f}, {x})"
        if f in ("next", "previous"):
            sign = "" if f == "next" else "-"
            return f"(({self.player(e.args[0], x, f + '()')} + {sign}st.direction) % {n})"
        owner = self.const(g.zone_owner)
        if f == "owner":
            return self.of_card(x, lambda c: f"None if {owner}[st.loc[{c}]] < 0 else {owner}[st.loc[{c}]]")
        if f == "place":
            return self.of_card(x, lambda c: f"st.zones[st.loc[{c}]].index({c}) + 1")
        if f == "knows":
            if (_item(a[1]) or pure(a[1])) and (_item(x) or pure(x)):
                tests = [f"{v} is not None" for v in (a[1], x) if not _item(v)]
                return "(" + " and ".join([*tests, f"bool(st.known[{a[1]}] >> {x} & 1)"]) + ")"
            card, seat = self.temp(), self.temp()
            return f"(({card} := {a[1]}) is not None and ({seat} := {x}) is not None " \
                f"and bool(st.known[{card}] >> {seat} & 1))"
        raise AssertionError(f)

    def card_table(self, w: ast.Where, items, value) -> list | None:
        """A table of `value(card, C holds for it)` for every card, for a `where` over a pile or a
        hand whose test C reads nothing but the card's kind and attributes (so it holds for a
        card or not for the whole game); None if it is not such a `where`."""
        g = self.c.g
        spec = self.zone_spec(w.seq)
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID or id(w) in self.hoisted:
            return None
        slot = self.c.p.slots[id(w)]
        var = f"_i{slot}"
        inner = dict(items)
        inner[slot] = var
        held = self.card_values(self.src(w.cond, inner), var)
        return None if held is None else [value(c, bool(h)) for c, h in enumerate(held)]

    def inline_define(self, info, args: list[str]) -> str | None:
        """A define applied to loop items (`playable(card)` in a `where`), written in place with its
        parameters read from the items: no call, no list of locals. Only for items (names that
        are evaluated already and never none) that no loop inside the define hides."""
        if not self.fast:
            return None  # (the plain reference calls the define's body)
        if not args or len(args) != len(info.params) or not all(re.fullmatch(r"_i\d+", a) for a in args):
            return None
        if {f"_i{self.c.p.slots[id(n)]}" for n in _descendants_nodes(info.expr) if isinstance(n, ast.Where)} \
                & set(args):
            return None
        src = self.src(info.expr, dict(enumerate(args)))
        return f"({src})" if "env" not in src and len(src) < 2000 else None

    def each_define(self, info, e: ast.Call, spread: int, items) -> str:
        """A define applied to each item of a list (`points(p.square)`): for one parameter, one
        comprehension over the list, none skipped, with the define written in place; else its
        arguments worked out once and one call of its body per item (`_each`)."""
        args = [self.src(a, items) for a in e.args]
        self.spread_vars = getattr(self, "spread_vars", 0) + 1
        var = f"_i{100000 + self.spread_vars}"  # a name no loop of the define nor around it uses
        body = self.inline_define(info, [var]) if len(args) == 1 else None
        if body is None:
            return f"_each({self.const(self.define_body(e.func))}, st, {env_list(args, info.nlocals)}, {spread})"
        seq = _grid_places(args[0])  # (the loop below skips empty places itself)
        table = self.card_values(body, var) if self.type(e.args[0]) in (ZONE, "list[card]") else None
        if table is not None:  # (about the card alone: its value for every card, worked out now)
            return self.over(seq, lambda s: f"[{self.const(table)}[{var}] for {var} in {s} if {var} is not None]")
        return self.over(seq, lambda s: f"[{body} for {var} in {s} if {var} is not None]")

    def card_values(self, src: str, var: str) -> list | None:
        """The value of expression `src` for every card as `var`, if it reads nothing but the card,
        constants, constant tables (`_k...`) and its own `:=` names (no call, no state) and fails
        for no card; else None. What a loop would work out card by card, worked out now."""
        if not self.fast:
            return None
        try:
            tree = pyast.parse(src, mode="eval")
        except SyntaxError:
            return None
        nodes = list(pyast.walk(tree))
        own = {n.target.id for n in nodes if isinstance(n, pyast.NamedExpr)}
        for n in nodes:
            if not isinstance(n, _VALUE_NODES):
                return None  # (a call, an attribute, a comprehension: not the card's alone)
            if isinstance(n, pyast.Name) and n.id != var and n.id not in own \
                    and not _constant(n.id, self.names.get(n.id, _constant)):
                return None  # (a read of the state or of a local)
        try:
            f = eval(f"lambda {var}: ({src})", self.names)
            return [f(c) for c in range(self.c.g.ncards)]
        except Exception:  # (it fails for some card: left to the loop, which fails as it did)
            return None

    def of_card(self, x: str, body: Callable[[str], str]) -> str:
        """`body(c)` for the card x gives, none for none: a loop's item or a constant is never none
        and a plain read may be read twice; anything else is read once, into a name of its own."""
        if _item(x):
            return f"({body(x)})"
        if pure(x):
            return f"(None if {x} is None else {body(x)})"
        c = self.temp()
        return f"(None if ({c} := {x}) is None else {body(c)})"

    def s_Unary(self, e: ast.Unary, items):
        x = self.src(e.operand, items)
        return f"(not {x})" if e.op == "not" else f"(-{x})"

    def s_Binary(self, e: ast.Binary, items):
        if e.op == "or":
            alternatives = self.one_of(e, items)
            if alternatives is not None:
                return alternatives
        a, b = self.src(e.left, items), self.src(e.right, items)
        op = {"/": "//"}.get(e.op, e.op)
        if op == "+" and is_list(self.type(e.left)):
            return f"(list({a}) + list({b}))"
        if op in ("+", "-") and id(e) not in self.hoisted:
            fused = self.shares(e, items)
            if fused is not None:  # (each side a pass over the same zone: one pass instead)
                return f"sum(map({self.const(tuple(fused[1]))}.__getitem__, {fused[0]}))"
        if op in ("==", "!=") and isinstance(e.right, ast.NoneLit) and not isinstance(e.left, LITERALS):
            op = "is" if op == "==" else "is not"  # the same for the language's values, and quicker
        tested = re.fullmatch(r"\((.+) is not None\)", a) if op == "and" else None
        if tested is not None:  # `x != none and ... x.hand ...`: x is not none there
            b = unguard(b, tested.group(1))
        return f"({a} {op} {b})"

    def shares(self, e: ast.Expr, items) -> tuple[str, list[int]] | None:
        """(zone, each card's share) if `e` adds up cards of one zone by what each card is alone:
        `sum((Z where C).x)` (x, or 0), `count(Z where C)` (1 or 0), and sums and differences of
        them (`sum((Z where A).x) + count(Z where B)`: one table, one pass, where each term was a
        pass); None for anything else."""
        if not self.fast:
            return None
        if id(e) in self.hoisted:
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

    def one_of(self, e: ast.Binary, items) -> str | None:
        """`x == 1 or x == 2`, `it is a or it is b`: one `in` test of x (read once) over the values."""
        if not self.fast:
            return None
        terms: list[ast.Expr] = []

        def disjuncts(node) -> None:
            if isinstance(node, ast.Binary) and node.op == "or" and id(node) not in self.hoisted:
                disjuncts(node.left)
                disjuncts(node.right)
            else:
                terms.append(node)

        disjuncts(e)
        if all(isinstance(t, ast.IsKind) and not t.negate and id(t) not in self.hoisted for t in terms):
            x = {self.src(t.operand, items) for t in terms}
            if len(x) != 1:
                return None
            x0 = x.pop()
            kinds = self.const(self.c.g.card_kind)
            values = ", ".join(str(self.c.g.kind_names.index(t.kind)) for t in terms)
            if x0.startswith("_i") or number(x0):
                return f"({kinds}[{x0}] in ({values},))"
            return f"({x0} is not None and {kinds}[{x0}] in ({values},))" if pure(x0) else None
        literal = (ast.IntLit, ast.StrLit, ast.BoolLit)
        if all(isinstance(t, ast.Binary) and t.op == "==" and isinstance(t.right, literal) and id(t) not in self.hoisted
               for t in terms):
            x = {self.src(t.left, items) for t in terms}
            x0 = x.pop()
            if x or "(st" in x0:  # (read once: nothing that draws at random, or calls what might)
                return None
            return f"({x0} in ({', '.join(repr(t.right.value) for t in terms)},))"
        return None

    def s_IsKind(self, e: ast.IsKind, items):
        x = self.src(e.operand, items)
        k = self.c.g.kind_names.index(e.kind)
        kinds = self.const(self.c.g.card_kind)
        if x.startswith("_i") or number(x):  # an item, a constant: never none
            return f"({kinds}[{x}] {'!=' if e.negate else '=='} {k})"
        if pure(x):
            if e.negate:
                return f"({x} is None or {kinds}[{x}] != {k})"
            return f"({x} is not None and {kinds}[{x}] == {k})"
        c = self.temp()
        if e.negate:
            return f"(({c} := {x}) is None or {kinds}[{c}] != {k})"
        return f"(({c} := {x}) is not None and {kinds}[{c}] == {k})"

    def s_Range(self, e: ast.Range, items):

        low, high = self.src(e.low, items), self.src(e.high, items)
        if re.fullmatch(r"-?\d+", low) and re.fullmatch(r"-?\d+", high) and int(high) - int(low) <= MAX_RANGE:
            return repr(list(range(int(low), int(high) + 1)))  # numbers known now (literals, parameters): no call
        return f"_range({low}, {high}, {MAX_RANGE})"

    def s_IfExpr(self, e: ast.IfExpr, items):
        return f"({self.src(e.then, items)} if {self.src(e.cond, items)} else {self.src(e.orelse, items)})"

    def s_Match(self, e: ast.Match, items):
        x = self.src(e.subject, items)
        results = [(value, self.src(result, items)) for value, result in e.cases]
        default = self.src(e.default, items) if e.default is not None else "None"
        if all(isinstance(r, LITERALS) for _, r in e.cases) and (e.default is None or isinstance(e.default, LITERALS)):
            table = {}
            for value, result in reversed(e.cases):
                table[value] = result.value if not isinstance(result, ast.NoneLit) else None
            return f"{self.const(table)}.get({x}, {default})"
        if self.type(e.subject) not in (INT, STR, BOOL):
            # A value of another type (`none`, one of no known type) is found by hash, as in the
            # table above (a list is no key, and fails as one): the number of its case, or -1.
            numbers: dict = {}
            for i in range(len(e.cases) - 1, -1, -1):
                numbers[e.cases[i][0]] = i
            x = f"{self.const(numbers)}.get({x}, -1)"
            results = [(i, r) for i, (_, r) in enumerate(results)]
            if not results:  # (the subject is still worked out, and looked up)
                return f"({x}, {default})[1]"
        # The first case equal to the subject (as a table lookup finds it).
        if not pure(x):
            m = self.temp()
            first, rest = f"({m} := {x})", m
        else:
            first = rest = x
        out = default
        for i in range(len(results) - 1, -1, -1):
            value, r = results[i]
            out = f"({r}) if ({first if i == 0 else rest}) == {value!r} else {out}"
        return f"({out})"

    # -- where: comprehensions
    def s_Where(self, e: ast.Where, items):
        first = self.first_places(e)
        if first is not None:
            # `Z where place(it) <= k`: the first k places of Z (a card's place is where it lies in
            # Z, empty places counted), one slice instead of a search for each card's place.
            var = f"_i{self.c.p.slots[id(e)]}"
            places = _grid_places(self.src(e.seq, items))  # a grid's places, empty ones too
            return self.over(places, lambda s: f"[{var} for {var} in {s}[:{first}] if {var} is not None]")
        var, seq, cond, hoisted = self.loop(e, items)
        return self.bound_loop(hoisted, seq, lambda first, s: f"[{var} for {first}{var} in {s} if {cond}]")

    def bound_loop(self, hoisted: list[tuple[str, str]], seq: str, write: Callable[[str, str], str]) -> str:
        """The comprehension `write(first, seq)` writes (`first` the start of its first `for`),
        with the values worked out before its loop bound by that `for` (see bind). Python takes
        no `:=` in a comprehension's iterable: where a value or seq holds one, they are a lambda's
        arguments instead (seq worked out last, as the loop would)."""
        if ":=" in seq:
            name = self.temp()
            hoisted, seq = [*hoisted, (name, seq)], name
        if any(":=" in v for _, v in hoisted):
            return self.wrap(hoisted, write("", seq))
        return write(self.bind(hoisted), seq)

    def first_places(self, e: ast.Where) -> int | None:
        """k if `e` is `Z where place(it) <= k` (or `< k + 1`), Z a zone and k a number known now."""
        if not self.fast:
            return None
        c = e.cond
        if self.zone_spec(e.seq) is None or not (isinstance(c, ast.Binary) and c.op in ("<=", "<")):
            return None
        place, k = c.left, c.right
        ref = self.c.p.refs.get(id(k)) if isinstance(k, ast.Name) else None
        value = k.value if isinstance(k, ast.IntLit) else ref[1] if ref is not None and ref[0] == "const" else None
        if not (isinstance(place, ast.Call) and place.func == "place" and len(place.args) == 1
                and self.c.p.refs.get(id(place)) is None and isinstance(place.args[0], ast.Name) and type(value) is int
                and self.c.p.refs.get(id(place.args[0])) == ("local", self.c.p.slots[id(e)])):
            return None
        return max(value - (c.op == "<"), 0)

    def scan(self, f: str, w: ast.Where, items) -> str:
        var, seq, cond, hoisted = self.loop(w, items)
        eager = self.short(w)
        n = self.c.g.players
        # (each seat is put in for the item's name: not where a text holds that name)
        plain = self.fast and ":" not in _STRING.sub("''", cond) and not any(var in t for t in _STRING.findall(cond))
        if not hoisted and plain and isinstance(w.seq, ast.PlayersExpr) \
                and n <= MAX_WRITTEN and len(cond) * n <= 4000:
            if w.seq.start is None:
                return self.unrolled(f, var, cond, [str(p) for p in range(n)])
            start = self.src(w.seq.start, items)
            if pure(start):  # `players from p`: p read again for each seat, checked first as the list is
                scan = self.unrolled(f, var, cond, [start] + [f"(({start} + st.direction * {k}) % {n})"
                                                              for k in range(1, n)])
                if self.player(w.seq.start, start, "players from") == start:
                    return scan
                return f"(_fail(\"cannot read 'players from' of a player who is none\") if {start} is None else {scan})"
        if f in ("count", "any", "empty") and not hoisted and self.fast and self.zone_spec(w.seq) is not None:
            lookup = _LOOKUP.fullmatch(cond)
            if lookup is not None and lookup.group(2) == var and var not in lookup.group(3) \
                    and (_VALUE.fullmatch(lookup.group(3)) or pure(lookup.group(3))):
                return self.matching(f, lookup, seq)
        return self.bound_loop(hoisted, seq, lambda first, s: self.scan_body(f, var, s, cond, first, eager))

    def scan_body(self, f: str, var: str, seq: str, cond: str, first: str, eager: bool = False) -> str:
        """A count, a test or a search over a `where` (`first`: the start of its `for`, see
        bound_loop). A list comprehension is quicker than a generator that stops early (one call,
        no resuming) on a short list with a cheap test that cannot fail (`eager`); a count goes
        over every item anyway."""
        loop = f"{first}{var} in {seq} if {cond}"
        if f == "count":
            return f"len([1 for {loop}])"
        if eager:
            found = f"[{var} for {loop}]"
            return {"any": f"(not not {found})", "empty": f"(not {found})", "top": f"({found} or [None])[-1]",
                    "last": f"({found} or [None])[-1]"}.get(f, f"({found} or [None])[0]")
        if f == "any":
            return f"any(True for {loop})"
        if f == "empty":
            return f"(not any(True for {loop}))"
        if f in ("top", "last"):
            loop = f"{first}{var} in reversed({seq}) if {cond}"
        return f"next(({var} for {loop}), None)"

    def found_lines(self, e: ast.Expr, target: str) -> list[str] | None:
        """`target = first(S where C)` (or top, last, bottom) as statements: a plain loop that
        stops at the match (no comprehension, no generator to call). None for anything else, and
        for the players (written out as tests already)."""
        if not (isinstance(e, ast.Call) and e.func in ("top", "last", "first", "bottom") and len(e.args) == 1
                and isinstance(e.args[0], ast.Where) and self.c.p.refs.get(id(e)) is None
                and id(e) not in self.hoisted and id(e) not in self.joins and id(e.args[0]) not in self.hoisted
                and not isinstance(e.args[0].seq, ast.PlayersExpr)):
            return None
        var, seq, cond, hoisted = self.loop(e.args[0], {})
        if e.func in ("top", "last"):
            seq = f"reversed({seq})"
        faced = None if hoisted else self.counts.face_test(e.args[0], var)
        if faced is not None:
            ahead, cond = faced
            return [*ahead, f"{target} = None", f"for {var} in {seq}:", f"    if {cond}:", f"        {target} = {var}",
                    "        break"]
        return [*(f"{n} = ({v})" for n, v in hoisted), f"{target} = None", f"for {var} in {seq}:",
                f"    if {cond}:", f"        {target} = {var}", "        break"]

    def picked_lines(self, w: ast.Expr) -> tuple[list[str], str] | None:
        """`S where C` over a pile or a hand (never none in it) as statements and a list display:
        the values worked out before the loop, then the comprehension; where C only compares a
        table's entry with a value, the lines first test in C whether any card matches at all (the
        list is then made only when it has cards). None for anything else."""
        if not isinstance(w, ast.Where) or id(w) in self.hoisted:
            return None
        spec = self.zone_spec(w.seq)
        g = self.c.g
        if spec is None or g.zone_shape[g.zone_base[spec]] == GRID:
            return None
        var, seq, cond, hoisted = self.loop(w, {})
        lines = [f"{n} = ({v})" for n, v in hoisted]
        lookup = _LOOKUP.fullmatch(cond)
        if pure(seq) and lookup is not None and lookup.group(2) == var \
                and (_VALUE.fullmatch(lookup.group(3)) or _READ.fullmatch(lookup.group(3))):
            lines.append(f"if {self.matching('any', lookup, seq)}:")
        else:
            lines.append("if True:")
        return lines, self.over(seq, lambda s: f"[{var} for {var} in {s} if {cond}]")

    def matching(self, f: str, lookup: re.Match, seq: str) -> str:
        """`any`, `empty` or `count` of the cards of a zone (never none) whose entry in a table is
        a value (`it.rank == r`: `lookup` matched `(T[c] == v)`, v a read that cannot fail), in C,
        no Python frame per card. A value known now (`it is K`, a kind): one set operation with the
        set of the cards that have it, about three times quicker than `map`, which calls the table
        once a card (a zone holds a card once, so the common cards are the count)."""
        table, value = self.names[lookup.group(1)], lookup.group(3)
        if re.fullmatch(r"-?\d+|'[^'\\]*'", value) and isinstance(table, (list, tuple)) \
                and len(table) == self.c.g.ncards:
            want = pyast.literal_eval(value)  # the cards whose entry is that value:
            cards = self.const(self.shared(("cards", id(table), want),
                                           lambda: frozenset(c for c, v in enumerate(table) if v == want)))
            return {"any": f"(not {cards}.isdisjoint({seq}))", "empty": f"{cards}.isdisjoint({seq})",
                    "count": f"len({cards}.intersection({seq}))"}[f]
        values = f"map({lookup.group(1)}.__getitem__, {seq})"
        return {"any": f"({value} in {values})", "empty": f"({value} not in {values})",
                "count": f"list({values}).count({value})"}[f]

    def shared(self, key, make):
        """One object per key, so equal tables are one constant of the generated code."""
        if key not in self.tables:
            self.tables[key] = make()
        return self.tables[key]

    def unrolled(self, f: str, var: str, cond: str, seats: list[str]) -> str:
        """A scan over every player, one test per seat written out (there are few): no loop at all.
        The tests run in the loop's order and stop where it would (`or`, `if ... else`), so the
        same tests run as in a generator; `seats` is each one's source, in the table's order."""
        item = re.compile(rf"\b{var}\b")
        tests = ["(" + item.sub(lambda _m, p=p: p, cond) + ")" for p in seats]
        if f == "count":
            return "(" + " + ".join(f"(1 if {t} else 0)" for t in tests) + ")"
        if f in ("any", "empty"):
            yes, no = ("True", "False") if f == "any" else ("False", "True")
            return f"({yes} if {' or '.join(tests)} else {no})"
        order = list(range(len(tests)))
        if f in ("top", "last"):
            order.reverse()
        return "(" + " else ".join(f"{seats[p]} if {tests[p]}" for p in order) + " else None)"

    def short(self, w: ast.Where) -> bool:
        """Does `w` go over a short list (a hand, a grid, the players) with a cheap test that
        cannot fail? Then testing every item costs less than stopping at the first match."""
        if not self.fast:
            return False

        seq = w.seq
        g = self.c.g
        spec = self.zone_spec(seq)
        if spec is not None:
            short = g.zone_shape[g.zone_base[spec]] != STACK
        else:
            short = isinstance(seq, ast.PlayersExpr) or (
                isinstance(seq, ast.Name) and self.c.p.refs.get(id(seq)) == ("builtin", "others"))
        if not short or not self.safe(w.cond, frozenset([self.c.p.slots[id(w)]])):
            return False

        def cheap(node) -> bool:
            if isinstance(node, ast.Where) or (isinstance(node, ast.Call) and node.func not in CHEAP_CALLS):
                return False  # (a call's own `where` is refused as a child)
            if isinstance(node, ast.Name) and (self.c.p.refs.get(id(node)) or ("",))[0] == "define":
                return False
            return all(cheap(k) for k in _children(node))

        return cheap(w.cond)

    def zone_spec(self, e: ast.Expr) -> int | None:
        """The zone spec of an expression that is a zone itself (`plate`, `me.hand`), else None."""
        g = self.c.g
        if isinstance(e, ast.Name):
            ref = self.c.p.refs.get(id(e))
            return ref[1] if ref is not None and ref[0] == "zone" else None
        if isinstance(e, ast.Attr) and e.name in g.zone_spec_names and self.type(e) == ZONE \
                and self.type(e.obj) == PLAYER:
            spec = g.zone_spec_names.index(e.name)
            return spec if g.zone_spec_per_player[spec] else None
        return None

    @staticmethod
    def bind(hoisted: list[tuple[str, str]]) -> str:
        """The values worked out before a loop, bound by the comprehension's own first `for` (its
        first iterable is evaluated first, outside it, as a call's arguments would be): one call
        less than a lambda."""
        if not hoisted:
            return ""
        names = "".join(f"{n}, " for n, _ in hoisted)
        values = "".join(f"{v}, " for _, v in hoisted)
        return f"({names}) in (({values}),) for "

    def loop_seq(self, e: ast.Where, items: dict[int, str]) -> str:
        seq = self.src(e.seq, items)
        if seq.startswith("list(dict.fromkeys(") and isinstance(e.seq, ast.Call) and e.seq.func == "distinct":
            seq = seq[5:-1]  # only iterated: the distinct values need no list
        if isinstance(e.seq, ast.PlayersExpr):  # only iterated: no list (or copy) needed
            seq = f"range({self.c.g.players})" if e.seq.start is None else seq.removesuffix("[:]")
        if isinstance(e.seq, ast.ListLit):
            seq = self.over(seq, lambda s: f"[_x for _x in {s} if _x is not None]")
        return seq

    def loop(self, e: ast.Where, items: dict[int, str]):
        slot = self.c.p.slots[id(e)]
        var = f"_i{slot}"
        seq = self.loop_seq(e, items)
        inner = dict(items)
        inner[slot] = var
        hoisted: list[tuple[str, str]] = []
        parts = [p for p in self.invariant_parts(e.cond, slot) + self.define_parts(e.cond, inner) if self.safe(p)] \
            if self.fast else []
        joins = {}
        inside: set[int] = set()  # nodes of the joined counts: never compiled in place
        for node, name, hist, key, pieces in (self.join_candidates(e, {id(p) for p in parts}, items)
                                              if self.fast else ()):
            hoisted.append((name, hist))
            joins[id(node)] = (name, key)
            self.join_parts[name] = pieces
            inside |= _descendants(node)
        saved = {}
        for p in parts:
            if id(p) in inside or id(p) in saved:
                continue
            name = f"_h{id(p)}"
            hoisted.append((name, self.src(p, items)))
            saved[id(p)] = name
            self.hoist_nodes[name] = p
        before = {k: self.hoisted.get(k) for k in saved}  # a define's part may be an outer loop's too
        self.hoisted.update(saved)
        self.joins.update(joins)
        try:
            cond = self.src(e.cond, inner)
        finally:
            for k, old in before.items():
                if old is None:
                    del self.hoisted[k]
                else:
                    self.hoisted[k] = old
            for k in joins:
                del self.joins[k]
        return var, seq, cond, hoisted

    def invariant_parts(self, cond: ast.Expr, slot: int) -> list[ast.Expr]:
        """The largest sub-expressions of a loop's condition that do not depend on its item (in
        `slot`) and are worth working out once, before the loop (`current_number` in
        `it.number == current_number`)."""
        refs, slots = self.c.p.refs, self.c.p.slots
        varying = {slot} | {slots[id(n)] for n in _descendants_nodes(cond) if isinstance(n, ast.Where)}
        out: list[ast.Expr] = []

        def walk(node) -> set[int]:
            """What node depends on: the item, inner binders it reads outside their own `where`
            (an inner `where` as a whole does not depend on its own binder: `min((players where
            it != me).score)` is the same for every item), or chance (-1). Empty: invariant."""
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
        """The parts of defines applied to items in `cond` (written in place, see inline_define)
        that do not depend on their parameter (`top_rank` in `playable(card)`): worked out once,
        before the loop, like the condition's own."""

        out: list[ast.Expr] = []

        def visit(node) -> None:
            if isinstance(node, ast.Where):
                return  # its own loop hoists its own
            ref = self.c.p.refs.get(id(node)) if isinstance(node, ast.Call) else None
            if ref is not None and ref[0] == "define" and (len(ref) < 3 or ref[2] is None):
                info = self.c.p.defines[node.func]
                if len(info.params) == 1 and len(node.args) == 1 \
                        and re.fullmatch(r"_i\d+", self.src(node.args[0], inner) or ""):
                    out.extend(self.invariant_parts(info.expr, 0))
            for k in _children(node):
                visit(k)

        visit(cond)
        return out

    @property
    def join_parts(self) -> dict[str, tuple[str, str, str, str]]:
        """Per joined count's table: its loop variable, sequence, test and key (for generated loops)."""
        if not hasattr(self, "_join_parts"):
            self._join_parts: dict[str, tuple[str, str, str, str]] = {}
        return self._join_parts

    @property
    def hoist_nodes(self) -> dict[str, ast.Expr]:
        """Per name of a value worked out before a loop: its expression."""
        if not hasattr(self, "_hoist_nodes"):
            self._hoist_nodes: dict[str, ast.Expr] = {}
        return self._hoist_nodes

    @property
    def joins(self) -> dict[int, tuple[str, ast.Expr]]:
        if not hasattr(self, "_joins"):
            self._joins: dict[int, tuple[str, ast.Expr]] = {}
        return self._joins

    def join_candidates(self, e: ast.Where, skip: set[int], items: dict[int, str]):
        """`count(S where A and it.x == v)` inside a loop, with v varying and S, A, it.x not:
        count the values of it.x once, before the loop, and look v up (`n` in
        `distinct(me.hand.n) where count(me.hand where it is pair_card and it.n == n) >= 2`).
        Only for parts that cannot fail, so working them out early changes nothing."""

        refs, slots = self.c.p.refs, self.c.p.slots
        bound = {slots[id(e)]}

        def binders(node) -> None:
            if isinstance(node, ast.Where):
                bound.add(slots[id(node)])
            for k in _children(node):
                binders(k)

        binders(e.cond)

        def used(node) -> set[int]:
            out: set[int] = set()

            def walk(n) -> None:
                if isinstance(n, ast.Name):
                    ref = refs.get(id(n))
                    if ref is not None and ref[0] == "local":
                        out.add(ref[1])
                for k in _children(n):
                    walk(k)

            walk(node)
            return out

        found = []

        def visit(node) -> None:
            if id(node) in skip:
                return
            if isinstance(node, ast.Call) and node.func == "count" and len(node.args) == 1 \
                    and isinstance(node.args[0], ast.Where) and refs.get(id(node)) is None:
                hit = self.join_of(node.args[0], bound, used, items)
                if hit is not None:
                    found.append((node, f"_j{id(node)}", *hit))
                    return
            for k in _children(node):
                visit(k)

        visit(e.cond)
        return found

    def join_of(self, w: ast.Where, bound: set[int], used, items: dict[int, str]):
        slot = self.c.p.slots[id(w)]
        terms: list[ast.Expr] = []

        def conj(node) -> None:
            if isinstance(node, ast.Binary) and node.op == "and":
                conj(node.left)
                conj(node.right)
            else:
                terms.append(node)

        conj(w.cond)
        others = bound - {slot}
        for i, t in enumerate(terms):
            if not (isinstance(t, ast.Binary) and t.op == "=="):
                continue
            for key, value in ((t.left, t.right), (t.right, t.left)):
                rest = terms[:i] + terms[i + 1:]
                if slot in used(value) or not used(value) & others or used(key) & others \
                        or any(used(r) & others for r in rest) or used(w.seq) & bound:
                    continue
                if self.type(key) not in (INT, STR, BOOL, CARD, PLAYER):
                    continue  # a dict key must be a plain value
                if not (self.safe(key) and self.safe(w.seq) and all(self.safe(r) for r in rest)):
                    continue
                var = f"_i{slot}"
                inner = dict(items)
                inner[slot] = var
                test = " and ".join(f"({self.src(r, inner)})" for r in rest)
                key_src, seq = self.src(key, inner), self.loop_seq(w, items)
                tail = f" if {test}])" if test else "])"
                hist = self.over(seq, lambda s, head=f"_hist([{key_src} for {var} in ", tail=tail: head + s + tail)
                return hist, value, (var, seq, test, key_src)
        return None

    @property
    def hoisted(self) -> dict[int, str]:
        if not hasattr(self, "_hoisted"):
            self._hoisted: dict[int, str] = {}
        return self._hoisted

    def wrap(self, hoisted: list[tuple[str, str]], body: str) -> str:
        if not hoisted:
            return body
        names = ", ".join(n for n, _ in hoisted)
        values = ", ".join(v for _, v in hoisted)
        return f"(lambda {names}: {body})({values})"

    def safe(self, e: ast.Expr, items: frozenset[int] = frozenset()) -> bool:
        """Can this part be worked out before the loop without a risk of failing? `items`: the
        locals that hold the items of a loop over players or cards (never none)."""
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
        """Is `e` an int that is never none and cannot fail (a literal, a counter, a count, a sum of them)?"""
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


