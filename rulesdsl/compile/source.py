"""Small helpers for writing Python source, shared by the writers of expressions, blocks and
straight functions."""

from __future__ import annotations

import ast as pyast
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import CodeType
from typing import NamedTuple


class Lookup(NamedTuple):
    """A test written as `(table[item] == value)`, as the writer knows it (so no one matches it)."""

    table: str  # the table's name (a constant of the generated code)
    item: str  # the loop's item
    value: str  # the value's source
    known: int | str | None  # the value, if written as a number or a plain string
    settled: bool  # known, or worked out before the loop (`_h...`): nothing to read per item
    reads_item: bool  # the value reads the item itself (`it.x == it.y`)


UNKNOWN = object()  # no value known when the rules load (SourceCompiler.fixed_value)


@lru_cache(maxsize=8192)
def code_of(text: str, filename: str = "<string>", mode: str = "eval") -> CodeType:
    """Python's `compile` of written source, kept: a game loaded again (for another number of
    players, in a worker, by a test) is written as mostly the same source, and compiling it was
    the slowest step of a load. A code object is immutable; each `exec`/`eval` of it still makes
    new functions. (A SyntaxError is raised each time: it is never kept.)"""
    return compile(text, filename, mode)


@lru_cache(maxsize=4096)
def read_counts(text: str) -> tuple[Counter, Counter]:
    """How often Python source (statements) reads each field of `st` (`st.turn`) and each plain
    name: counted in its syntax tree, once per distinct source. Read only: the counts are shared."""
    fields: Counter = Counter()
    names: Counter = Counter()
    for node in pyast.walk(pyast.parse(text)):
        if isinstance(node, pyast.Attribute) and isinstance(node.value, pyast.Name) and node.value.id == "st":
            fields[node.attr] += 1
        elif isinstance(node, pyast.Name):
            names[node.id] += 1
    return fields, names


class NoSource(Exception):
    """A writer of a special form (an option loop, a counted option) does not write this one:
    its caller writes the general form (the expression's own source) instead."""


def env_list(items: list[str], size: int) -> str:
    """Python making a new env of `size` slots, `items` first: one list display, a short padding
    written out (`[a] + [None] * k` builds three lists, and costs a call's worth of time)."""
    pad = size - len(items)
    if pad <= 12:
        return "[" + ", ".join([*items, *["None"] * pad]) + "]"
    return "[" + ", ".join(items) + f"] + [None] * {pad}" if items else f"[None] * {size}"


class Naming:
    """What written source calls the locals: items of a list (`env[3]`, the machine's frame;
    `_e4[3]`, an inlined leaf's list) or Python locals of their own (`_e3` in a straight unit,
    `_e7_3` for a hook written in place, `_e4_3` for an inlined leaf); and the state's fields and
    the generated code's constants, which a straight function may bind to locals first (`fields`:
    `_Szones` for `st.zones`; `consts`: `_K33` for `_k33`). The writers take it as a parameter, so
    nothing renames their source afterwards. It counts the stores into fields it sees written (a
    stored field is never bound)."""

    __slots__ = ("consts", "fields", "list", "prefix", "stores")

    def __init__(self, list: str | None = "env", prefix: str = "", fields=(), consts=(),
                 stores: Counter | None = None) -> None:
        self.list = list
        self.prefix = prefix
        self.fields = frozenset(fields)
        self.consts = frozenset(consts)
        self.stores = Counter() if stores is None else stores

    def local(self, k: int) -> str:
        return f"{self.list}[{k}]" if self.list is not None else f"{self.prefix}{k}"

    def locals_as(self, list: str | None, prefix: str = "") -> Naming:
        """The same fields and constants (and stores), the locals named otherwise."""
        return Naming(list, prefix, self.fields, self.consts, self.stores)

    def name(self, field: str) -> str:
        """What the source calls one of the state's fields."""
        if field not in self.fields:
            return f"st.{field}"
        return "_Scur" if field == "current" else f"_S{field}"

    def store(self, field: str) -> str:
        """The target of a store into one of the state's fields (`st.current = _Scur` if bound)."""
        self.stores[field] += 1
        return f"st.{field} = {self.name(field)}" if field in self.fields else f"st.{field}"

    def const(self, name: str) -> str:
        """What the source calls a constant of the generated code (`_k33`)."""
        return "_K" + name[2:] if name in self.consts else name

    def bound_consts(self, names: dict) -> dict:
        """`names` (the generated code's globals) with the constants bound here by their local
        names too, for source of this naming evaluated on its own (card_tables)."""
        return {**names, **{"_K" + k[2:]: names[k] for k in self.consts}} if self.consts else names

    @property
    def key(self) -> tuple:
        return self.list, self.prefix, self.fields, self.consts


class _Fields:
    """`ST.zones`: a read of the state's field as the source being written names it."""

    def __getattr__(self, field: str) -> str:
        return naming().name(field)


ST = _Fields()
ENV = Naming()  # the machine's frames: the list `env`
_naming = [ENV]  # the naming of the source being written now (one writer at a time, see named)


def naming() -> Naming:
    """What the source being written calls the locals."""
    return _naming[-1]


@contextmanager
def named(how: Naming) -> Iterator[None]:
    """Source written meanwhile (expressions, and statements' locals) names the locals so; a
    machine block written meanwhile (a leaf's callee) says `named(ENV)` for its own."""
    _naming.append(how)
    try:
        yield
    finally:
        _naming.pop()


class Variant:
    """Which form of a statement's source its writer writes: for a run that may keep a log (`log`:
    the machine's blocks, which test `st.log` at run time), with the lines only a logged run runs
    marked by `logged`; with the lines that keep a straight run's counts of hands by face
    (`counting`: only straight runs keep counts, the machine's blocks never run while they last)."""

    __slots__ = ("counting", "log")

    def __init__(self, log: bool = False, counting: bool = False) -> None:
        self.log = log
        self.counting = counting

    def logged(self, logged: str | list, plain: list | None = None, ind: str = "") -> list:
        """The lines a run with a log runs (`logged`: one simple statement as a string, else a
        list of items) in place of `plain` (none if not given): for a run that may keep a log, one
        Logged item (the block writer writes its test); for one that never does, plain as it is.
        Lines in either list carry their whole indent; `ind` is the test's."""
        if not self.log:
            return list(plain or [])
        return [Logged(logged if isinstance(logged, str) else tuple(logged), tuple(plain or ()), ind)]


class Logged(NamedTuple):
    """Lines only a run with a log runs, in place of `plain` (see Variant.logged): in a machine
    block, under `if st.log is not None:` (on one line when `logged` is one simple statement)."""

    logged: str | list
    plain: tuple
    ind: str


STRAIGHT_RUN = Variant(counting=True)  # a straight function (straight.py): no log, counts kept


class Src(str):
    """Source the expression writer wrote, with what it knows of it as it writes it, so that no
    writer reads its text back. Plain strings (source of other writers) know nothing."""

    reads = False  # only reads (locals, state fields, items, numbers, + - %): cheap and safe to read twice
    item = False  # a loop's item (or what a scan written seat by seat puts in its place): never none
    number = False  # a number written out (a constant seat or card): never none
    read = False  # a read that cannot fail: a local, a counter or variable at a fixed index
    end = None  # ("_last", S) or ("_first", S): top(S) or bottom(S)
    places = None  # a grid's cards: the source of its places (empty ones too)
    iterated = None  # the same values, cheaper only to iterate (no list made)
    guarded = None  # `x is not None`: x's source
    item_read = None  # `T[i]`: (T, i), a table's entry for an item
    lookup = None  # `(T[i] == v)`
    search = None  # `next((i for i in S if C), None)`: (i, "in S if C")
    inner = None  # `(x)`: x
    truth = None  # `True if X else False`: X, for where only its truth is read

    def __new__(cls, text: str, **facts) -> Src:
        src = str.__new__(cls, text)
        src.__dict__.update(facts)
        return src


def paren(src: str) -> Src:
    """`(src)`, knowing what src is (an item is a name no longer, nor a read or a grid's cards)."""
    return Src(f"({src})", reads=getattr(src, "reads", False), number=getattr(src, "number", False),
               end=getattr(src, "end", None), inner=src, truth=getattr(src, "truth", None))


def grid_places(src: str) -> str:
    """The places of a grid whose cards src lists (for a loop that skips none anyway), else src."""
    return getattr(src, "places", None) or src


def pure(src: str) -> bool:
    """Short source that only reads (see Src.reads): read twice rather than bound to a name."""
    return getattr(src, "reads", False) and len(src) <= 48
