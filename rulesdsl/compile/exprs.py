"""Expressions to Python source: the compiler's one writer of expressions.

Each expression becomes one Python expression (`hand where it is plain and it.number == n` runs as
`[c for c in hand if kinds[c] == 3 and number[c] == n]`); what runs outside the machine (a define's
value, a `show`) is a function made of it. The writer never reads its output back: each piece is a
`Src` (source.py), a str carrying what the writer knew as it wrote it. What depends on where source
is written (the items, the sources known not none, the naming of locals) is a parameter of the
writing. Its part loops.py (a mixin) writes the `where` loops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import TypeVar

from .. import ast
from ..checker import CARD, ZONE, is_list
from ..engine.constants import GRID
from .counts import CountWriter
from .loops import Join, LoopWriter
from .runtime import RUNTIME
from .source import ENV, ST, UNKNOWN, Src, code_of, env_list, named, naming, paren, pure
from .tree import MAX_RANGE, _descendants_nodes, split

__all__ = ["SourceCompiler"]


T = TypeVar("T")

LITERALS = (ast.IntLit, ast.StrLit, ast.BoolLit, ast.NoneLit)


def _plus(base: int) -> str:
    """`base + ` before a seat, or nothing for 0 (the first table of its kind)."""
    return f"{base} + " if base else ""


class SourceCompiler(LoopWriter):
    """Writes every expression as one Python expression, and makes functions of them."""

    def __init__(self, comp):
        self.c = comp  # the Compiler: its tables (refs, types, slots) and its game
        self.type = comp.type  # an expression's type
        self.names: dict[str, object] = dict(RUNTIME)
        self.consts: dict[int, str] = {}
        self.const_names: set[str] = set()  # the names of consts (tables made when the rules load)
        self.tables: dict = {}  # see shared
        self.fast = comp.shortcuts  # the fast forms; without them, the plain ones tests compare them with
        # Where source is being written: values worked out before the loops (id of node: name),
        # counts joined into a table, sources known not to be none (see knowing).
        self.hoisted: dict[int, Src] = {}
        self.joins: dict[int, tuple[str, ast.Expr]] = {}
        self.known: set[str] = set()
        self.join_parts: dict[str, Join] = {}  # per joined table: what it counts
        self.hoist_nodes: dict[str, ast.Expr] = {}  # per name of a value worked out before a loop: its node
        self._temps = self.spread_vars = 0  # names bound by `:=`, items of each_define, so far
        self.local_reads = 0  # reads of the locals so far: see reading
        self._named: dict[tuple, str] = {}  # (node, naming, known) -> source in that naming
        self._reads_of: dict[str, bool] = {}  # per expression's source written: whether it reads locals
        self._defines: dict[tuple[str, bool], Callable] = {}  # see define_body

    @cached_property
    def counts(self) -> CountWriter:
        """The game's one writer of code reading cards by face (counts.py), made once the cards are
        known: one, so no names meet."""
        return CountWriter(self.c)

    def compile(self, e: ast.Expr) -> Callable:
        """`f(st, env)` giving e's value; `f.src` is its source, which blocks write in place."""
        with named(ENV):
            f = self.function(self.src(e, {}))
        f.node = e
        return f

    def reading(self, write: Callable[[], T]) -> tuple[T, bool]:
        """What `write()` gives, and whether the source it wrote reads the locals."""
        before = self.local_reads
        made = write()
        return made, self.local_reads != before

    def local(self, k: int) -> str:
        self.local_reads += 1
        return naming().local(k)

    def function(self, src: str, params: str = "st, env", nlocals: int | None = None,
                 slots: dict[int, str] | None = None) -> Callable:
        """A function of `params` returning `src`; with `nlocals`, one that makes its own locals each
        call (`slots` set from its parameters)."""
        reads = self._reads_of.get(src, True)  # (source of another writer: it may)
        if nlocals is not None and reads:
            env = [(slots or {}).get(k, "None") for k in range(nlocals)]
            src = f"(lambda env: {src})([{', '.join(env)}])"
        # (named "<rules ...>": an error it raises is the rules', located, not Python's)
        f = eval(code_of(f"lambda {params}: {src}", "<rules expression>"), self.names)
        f.src = src
        f.reads_locals = reads
        return f

    def named_src(self, f: Callable) -> str | None:
        """The source of f (made by `compile`) where source is being written."""
        src = getattr(f, "src", None)
        node = getattr(f, "node", None)
        if node is None or src is None or (naming() is ENV and not self.known):
            return src
        key = (id(node), naming().key, frozenset(self.known))
        written = self._named.get(key)
        if written is None:
            written = self._named[key] = self.src(node, {})
        return written

    def standalone(self, e: ast.Expr) -> str:
        """e's source outside any loop being written (no caller's value worked out first in it)."""
        with self.scope({}, {}), named(ENV):
            return self.src(e, {})

    @contextmanager
    def scope(self, hoisted: dict[int, Src], joins: dict) -> Iterator[None]:
        """Source written meanwhile reads these values worked out before its loops."""
        saved = self.hoisted, self.joins
        self.hoisted, self.joins = hoisted, joins
        try:
            yield
        finally:
            self.hoisted, self.joins = saved

    def define_body(self, name: str, value: bool = False) -> Callable:
        """A define's body, f(state, locals); or (`value`) f(state), locals of its own, reading none of a caller's."""
        f = self._defines.get((name, value))
        if f is None:  # (defines are not recursive: the checker says so)
            info = self.c.p.defines[name]
            src = self.standalone(info.expr)
            f = self._defines[name, value] = self.function(src, "st", info.nlocals) if value else self.function(src)
        return f

    def temp(self) -> str:
        """A new name for a value read twice: each site its own, so no `:=` overwrites another's."""
        self._temps += 1
        return f"_b{self._temps}"

    def over(self, seq: str, write: Callable[..., str], hoisted: list[tuple[str, str]] = ()) -> str:
        """The comprehension `write(seq, first)` writes, its first `for` starting with `first`, which
        binds `hoisted`; where one holds a `:=` (never in a comprehension's iterable), a lambda's."""
        if ":=" in seq:
            name = self.temp()
            hoisted, seq = [*hoisted, (name, seq)], name
        if not hoisted:
            return write(seq)
        names, values = ", ".join(n for n, _ in hoisted), ", ".join(v for _, v in hoisted)
        if any(":=" in v for _, v in hoisted):
            return f"(lambda {names}: {write(seq)})({values})"
        # (a comprehension's first iterable is worked out before it, as a call's arguments: one call less)
        return write(seq, f"({names}, ) in (({values}, ),) for ")

    def inline(self, f: Callable) -> str:
        """Python source computing `f(st, env)`: its own source (every part has one)."""
        src = self.named_src(f)
        if getattr(f, "reads_locals", True):
            self.local_reads += 1
        return paren(src)

    def const(self, value) -> str:
        """The name the generated code reads `value` by (one per object), as the naming calls it."""
        key = id(value)
        name = self.consts.get(key)
        if name is None:
            name = f"_k{len(self.names)}"
            self.names[name] = value
            self.consts[key] = name
            self.const_names.add(name)
        return naming().const(name)

    def src(self, e: ast.Expr, items: dict[int, str]) -> Src:
        """e's source; `items`: per slot of a loop's item, the item's source."""
        hoisted = self.hoisted.get(id(e))
        if hoisted is not None:
            return hoisted
        src, reads = self.reading(lambda: getattr(self, "s_" + type(e).__name__)(e, items))
        if type(src) is str:
            src = Src(src)
        self._reads_of[src] = reads
        return src

    def s_IntLit(self, e, items):
        return Src(repr(e.value), reads=True, number=e.value >= 0)

    def s_StrLit(self, e, items):
        return repr(getattr(e, "value", None))

    s_BoolLit = s_NoneLit = s_StrLit

    def s_Name(self, e: ast.Name, items):
        ref = self.c.p.refs[id(e)]
        kind = ref[0]
        g = self.c.g
        if kind == "local":
            if ref[1] in items:
                item = items[ref[1]]
                return item if isinstance(item, Src) else Src(item, reads=True, item=True)
            return Src(self.local(ref[1]), reads=True, read=True)
        if kind == "const":
            if type(ref[1]) is int:
                return Src(repr(ref[1]), reads=True, number=ref[1] >= 0)
            return repr(ref[1]) if isinstance(ref[1], (str, bool)) or ref[1] is None else self.const(ref[1])
        if kind in ("counter", "var"):
            name = (self.c.p.counters if kind == "counter" else self.c.p.vars)[ref[1]].name
            base = (g.counter_layout if kind == "counter" else g.var_layout)[name][0]
            return Src(f"{naming().name(kind + 's')}[{base}]", reads=True, read=True)
        if kind == "zone":
            return self.zone(g.zone_base[ref[1]], Src(f"{ST.zones}[{g.zone_base[ref[1]]}]", reads=True))
        if kind == "define":  # (of no parameters: reading no locals, its `where`s are loops, the same in place)
            return self.in_place(self.c.p.defines[ref[1]].expr, {}) \
                or f"{self.const(self.define_body(ref[1], value=True))}(st)"
        assert kind == "builtin", ref
        name = ref[1]
        if name == "others":
            return f"{self.rounds()}[st.direction][{ST.current}][1:]"
        text = {"me": ST.current, "direction": "st.direction", "clockwise": "1", "counterclockwise": "-1",
                "player_count": str(g.players), "round": "st.round", "turn": "st.turn", "winners": "st.winners",
                "game_over": "st.over", "decider": "(None if st.over or st.chooser < 0 else st.chooser)"}[name]
        return Src(text, reads=name in ("me", "direction", "clockwise", "counterclockwise", "player_count"),
                   number=name in ("clockwise", "player_count"))

    def zone(self, zi: int, places: Src) -> Src:
        """A zone's cards: a pile's list itself, a grid's places that hold one."""
        if self.c.g.zone_shape[zi] == GRID:
            return Src(f"[_c for _c in {places} if _c is not None]", places=places)
        return places

    def item(self, e: ast.Expr, items: dict[int, str]) -> bool:
        """Is `e` the item of a loop being written?"""
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        return ref is not None and ref[0] == "local" and ref[1] in items and id(e) not in self.hoisted

    def s_PlayersExpr(self, e: ast.PlayersExpr, items):
        n = self.c.g.players
        if e.start is None:
            return Src("[" + ", ".join(map(str, range(n))) + "]", iterated=f"range({n})")
        seat = self.player(e.start, self.src(e.start, items), "players from")
        return Src(f"{self.rounds()}[st.direction][{seat}][:]", iterated=f"{self.rounds()}[st.direction][{seat}]")

    def rounds(self) -> str:
        """Every seat's round of the table, both ways: `players from p` is a copy of one."""
        n = self.c.g.players
        return self.const(self.shared("rounds", lambda: {d: [[(s + d * k) % n for k in range(n)] for s in range(n)]
                                                         for d in (1, -1)}))

    def s_ListLit(self, e: ast.ListLit, items):
        return "[" + ", ".join(self.src(x, items) for x in e.items) + "]"

    def player(self, node: ast.Expr, src: str, what: str) -> str:
        """A player's seat, or a runtime error if the expression gives none."""
        if src.item or self.never_none(node):
            return src
        return self.some(src, f"cannot read '{what}' of a player who is none")

    def some(self, src: str, msg: str) -> str:
        """Source giving src's value, or raising msg if it is none (unless known not to be)."""
        if getattr(src, "number", False):
            return src
        if pure(src):
            return Src(f"({src})") if src in self.known else f"({src} if {src} is not None else _fail({msg!r}))"
        return f"_some({src}, {msg!r})"

    @contextmanager
    def knowing(self, x: str | None) -> Iterator[None]:
        """Source written meanwhile runs only once x is known not to be none (`x != none and
        ...x.hand...`): no none check of x is written."""
        known = x is not None and pure(x) and not getattr(x, "item", False) and x not in self.known
        if known:
            self.known.add(x)
        try:
            yield
        finally:
            if known:
                self.known.discard(x)

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
            if isinstance(e.obj, ast.Where) and id(e.obj) not in self.hoisted:  # `(S where C).x`: one loop
                var, seq, cond, hoisted = self.loop(e.obj, items)
                return self.over(seq, lambda s, first="": f"[{table}[{var}] for {first}{var} in {s} "
                                                          f"if ({cond}) and {var} is not None]", hoisted)
            return self.over(obj, lambda s: f"[{table}[_c] for _c in {s} if _c is not None]")
        name = e.name
        if t == "list[player]":
            if self._player_zone(name):  # all the cards of those zones; a card variable gives one card a player
                return self.over(obj, lambda s: f"[_c for _p in {s} if _p is not None "
                                                f"for _c in {self.of_player(name, '_p')} if _c is not None]")
            return self.over(obj, lambda s: f"[{self.of_player(name, '_p')} for _p in {s} if _p is not None]")
        return self.of_player(name, self.player(e.obj, obj, name))

    def _player_zone(self, name: str) -> bool:
        """Whether a player's `name` is a zone (not a counter or variable, even of type card)."""
        g = self.c.g
        return name in g.zone_spec_names and g.zone_spec_per_player[g.zone_spec_names.index(name)]

    def of_player(self, name: str, p: str) -> Src:
        """A player's attribute (seat, zone, counter or variable) for the seat p gives."""
        g = self.c.g
        reads = getattr(p, "reads", False)
        if name == "seat":
            return Src(f"({p} + 1)", reads=reads)
        if self._player_zone(name):
            base = g.zone_base[g.zone_spec_names.index(name)]
            return self.zone(base, Src(f"{ST.zones}[{_plus(base)}{p}]", reads=reads))
        kind, base = ("counters", g.counter_layout[name][0]) if name in g.counter_layout \
            else ("vars", g.var_layout[name][0])
        read = not base and getattr(p, "number", False)
        return Src(f"{naming().name(kind)}[{_plus(base)}{p}]", reads=reads, read=read)

    def card_attr(self, table: str, obj: Src) -> Src:
        """`table[card]`, none for no card."""
        if obj.item or obj.number:  # an item, a constant: never none
            return Src(f"{table}[{obj}]")
        if pure(obj):
            return f"({table}[{obj}] if {obj} is not None else None)"
        if obj.end is not None and pure(obj.end[1]):  # the attribute of `top(S)` or `bottom(S)`
            seq, i = obj.end[1], "-1" if obj.end[0] == "_last" else "0"
            return f"({table}[{seq}[{i}]] if {seq} and {seq}[{i}] is not None else None)"
        if obj.search is not None:  # the attribute of `top(S where C)`: read in the scan that finds the card
            var, rest = obj.search
            return f"next((({table}[{var}] if {var} is not None else None) for {var} {rest}), None)"
        return self.of_card(obj, lambda c: f"{table}[{c}]")

    def s_Call(self, e: ast.Call, items):
        ref = self.c.p.refs.get(id(e))
        if ref is not None and ref[0] == "define":
            info = self.c.p.defines[e.func]
            if len(ref) > 2 and ref[2] is not None:
                return self.each_define(info, e, ref[2], items)
            args = [self.src(a, items) for a in e.args]
            return self.inline_define(info, args, all(self.item(a, items) for a in e.args)) \
                or f"{self.const(self.define_body(e.func))}(st, {env_list(args, info.nlocals)})"
        f = e.func
        join = self.joins.get(id(e))
        if join is not None:
            return f"{join[0]}.get({self.src(join[1], items)}, 0)"
        if f in ("count", "any", "empty", "top", "last", "first", "bottom") and isinstance(e.args[0], ast.Where):
            return self.scan(f, e.args[0], items)
        summed = self.sum_of(e, items) if f == "sum" else None
        if summed is not None:
            return summed
        a = [self.src(x, items) for x in e.args]
        x = a[0]
        g = self.c.g
        n = g.players
        if f in ("any", "empty", "count") and len(a) == 1 and self.fast and x.places is not None:
            places = x.places  # a grid's cards: its places tested in C, no list of them
            if pure(places):
                return f"(len({places}) {dict(any='!=', empty='==', count='-')[f]} {places}.count(None))"
            held = f"map(_is_not, {places}, _NONES)"
            return {"any": f"any({held})", "empty": f"(not any({held}))", "count": f"sum({held})"}[f]
        if f in ("top", "last", "first", "bottom"):  # no call: `x or [None]` is x itself unless it is empty
            return self.end_of(f, x)
        simple = {
            "count": f"len({x})", "sum": f"_sum({x})", "any": f"bool({x})", "empty": f"(not {x})",
            "random": f"_rand(st, {x})",
            "consecutive": f"_consecutive({x})",
            "distinct": Src(f"list(dict.fromkeys({x}))", iterated=f"dict.fromkeys({x})"),
            "sorted": self.over(x, lambda s: f"sorted(_v for _v in {s} if _v is not None)"), "abs": f"abs({x})",
        }
        if f in simple:
            return simple[f]
        if f in ("min", "max"):
            return f"{f}({a[0]}, {a[1]})" if len(a) == 2 else f"_pick({f}, {x})"
        if f in ("next", "previous"):
            p = self.player(e.args[0], x, f + "()")
            return Src(f"(({p} + {'' if f == 'next' else '-'}st.direction) % {n})", reads=getattr(p, "reads", False))
        owner = self.const(g.zone_owner)
        if f == "owner":
            return self.of_card(x, lambda c: f"None if {owner}[{ST.loc}[{c}]] < 0 else {owner}[{ST.loc}[{c}]]")
        if f == "place":
            return self.of_card(x, lambda c: f"{ST.zones}[{ST.loc}[{c}]].index({c}) + 1")
        if f == "knows":
            (card_first, card), (seat_first, seat) = self.once(a[1]), self.once(x)
            tests = [f"{first} is not None" for first, v in ((card_first, a[1]), (seat_first, x))
                     if not (v.item or v.number)]
            return "(" + " and ".join([*tests, f"bool({ST.known}[{card}] >> {seat} & 1)"]) + ")"
        raise AssertionError(f)

    @staticmethod
    def end_of(f: str, seq: str) -> Src:
        """`top(S)` (or last, first, bottom), knowing it is (see card_attr)."""
        end = ("_last", "-1") if f in ("top", "last") else ("_first", "0")
        return Src(f"({seq} or [None])[{end[1]}]", end=(end[0], seq))

    def once(self, x: str) -> tuple[str, str]:
        """x's source where first read, and where again: read twice if it only reads, else bound."""
        if pure(x):
            return x, x
        c = self.temp()
        return f"({c} := {x})", c

    def of_card(self, x: Src, body: Callable[[str], str]) -> str:
        """`body(c)` for the card x gives, none for none (a loop's item or a constant is never none)."""
        if x.item or x.number:
            return f"({body(x)})"
        first, c = self.once(x)
        return f"(None if {first} is None else {body(c)})"

    def s_Unary(self, e: ast.Unary, items):
        x = self.src(e.operand, items)
        return f"(not {x})" if e.op == "not" else Src(f"(-{x})", reads=x.reads)

    def s_Binary(self, e: ast.Binary, items):
        alternatives = self.one_of(e, items) if e.op == "or" else None
        if alternatives is not None:
            return alternatives
        a = self.src(e.left, items)
        with self.knowing(a.guarded if e.op == "and" else None):  # `x != none and ... x.hand ...`
            b = self.src(e.right, items)
        op = {"/": "//"}.get(e.op, e.op)
        if op == "+" and is_list(self.type(e.left)):
            return f"(list({a}) + list({b}))"
        fused = self.sum_of(e, items) if op in ("+", "-") else None
        if fused is not None:  # (each side a pass over the same zone: one pass instead)
            return fused
        if op in ("==", "!=") and isinstance(e.right, ast.NoneLit) and not isinstance(e.left, LITERALS):
            op = "is" if op == "==" else "is not"  # the same for the language's values, and quicker
        text = f"({a} {op} {b})"
        if op == "is not":
            return Src(text, guarded=a)
        return Src(text, reads=op in ("+", "-", "%") and a.reads and b.reads)

    def one_of(self, e: ast.Binary, items) -> str | None:
        """`x == 1 or x == 2`, `it is a or it is b`: one `in` test of x (read once) over the values."""
        if not self.fast:
            return None
        terms = split(e, "or", self.hoisted)
        if all(isinstance(t, ast.IsKind) and not t.negate and id(t) not in self.hoisted for t in terms):
            x = {self.src(t.operand, items) for t in terms}
            if len(x) != 1:
                return None
            x0 = x.pop()
            kinds = self.const(self.c.g.card_kind)
            values = ", ".join(str(self.c.g.kind_names.index(t.kind)) for t in terms)
            if x0.item or x0.number:
                return f"({kinds}[{x0}] in ({values},))"
            return f"({x0} is not None and {kinds}[{x0}] in ({values},))" if pure(x0) else None
        literal = (ast.IntLit, ast.StrLit, ast.BoolLit)
        if all(isinstance(t, ast.Binary) and t.op == "==" and isinstance(t.right, literal) and id(t) not in self.hoisted
               for t in terms):
            x = {self.src(t.left, items) for t in terms}
            x0 = x.pop()
            refs = self.c.p.refs  # (read once: nothing that draws at random, nor a define, which might)
            if x or any((isinstance(n, ast.Call) and n.func == "random") or (refs.get(id(n)) or ("",))[0] == "define"
                        for n in _descendants_nodes(terms[0].left)):
                return None
            return f"({x0} in ({', '.join(repr(t.right.value) for t in terms)},))"
        return None

    def s_IsKind(self, e: ast.IsKind, items):
        x = self.src(e.operand, items)
        k = self.c.g.kind_names.index(e.kind)
        kinds = self.const(self.c.g.card_kind)
        if x.item or x.number:  # an item, a constant: never none
            return f"({kinds}[{x}] {'!=' if e.negate else '=='} {k})"
        first, c = self.once(x)
        if e.negate:
            return f"({first} is None or {kinds}[{c}] != {k})"
        return f"({first} is not None and {kinds}[{c}] == {k})"

    def s_Range(self, e: ast.Range, items):
        low, high = self.known_int(e.low), self.known_int(e.high)
        if low is not None and high is not None and high - low <= MAX_RANGE:
            return repr(list(range(low, high + 1)))  # numbers known now (literals, constants): no call
        return f"_range({self.src(e.low, items)}, {self.src(e.high, items)}, {MAX_RANGE})"

    def fixed_value(self, e: ast.Expr):
        """The plain value (number, string, yes/no or none) `e` is when the rules load, else UNKNOWN."""
        if id(e) in self.hoisted:
            return UNKNOWN
        if isinstance(e, ast.Unary) and e.op == "-":
            value = self.fixed_value(e.operand)
            return -value if type(value) is int else UNKNOWN
        if isinstance(e, LITERALS):
            return getattr(e, "value", None)
        ref = self.c.p.refs.get(id(e)) if isinstance(e, ast.Name) else None
        if ref is not None and ref[0] == "define" and not self.c.p.defines[ref[1]].params:
            return self.fixed_value(self.c.p.defines[ref[1]].expr)  # (written in place)
        if ref is not None and ref[0] == "const":
            return ref[1] if ref[1] is None or type(ref[1]) in (int, str, bool) else UNKNOWN
        return {("builtin", "player_count"): self.c.g.players, ("builtin", "clockwise"): 1,
                ("builtin", "counterclockwise"): -1}.get(ref, UNKNOWN)

    def known_int(self, e: ast.Expr) -> int | None:
        value = self.fixed_value(e)
        return value if type(value) is int else None

    def known_value(self, e: ast.Expr) -> int | str | None:
        """The number or string (one written in single quotes, no escape) `e` is, or None."""
        value = self.fixed_value(e)
        return value if type(value) is int or (type(value) is str and repr(value) == f"'{value}'") else None

    def s_IfExpr(self, e: ast.IfExpr, items):
        then, cond, orelse = self.src(e.then, items), self.src(e.cond, items), self.src(e.orelse, items)
        yes_no = (then, orelse) == ("True", "False")
        return Src(f"({then} if {cond} else {orelse})", truth=cond if yes_no else None)

    def s_Match(self, e: ast.Match, items):
        x = self.src(e.subject, items)
        results = [(value, self.src(result, items)) for value, result in e.cases]
        default = self.src(e.default, items) if e.default is not None else "None"
        if all(isinstance(r, LITERALS) for _, r in e.cases) and (e.default is None or isinstance(e.default, LITERALS)):
            table = {value: None if isinstance(r, ast.NoneLit) else r.value for value, r in reversed(e.cases)}
            return f"{self.const(table)}.get({x}, {default})"
        if not results:  # (the subject is still worked out)
            return f"({x}, {default})[1]"
        first, rest = self.once(x)  # the first case equal to the subject
        out = default
        for i in range(len(results) - 1, -1, -1):
            value, r = results[i]
            out = f"({r}) if ({first if i == 0 else rest}) == {value!r} else {out}"
        return f"({out})"
