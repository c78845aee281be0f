"""Small helpers for writing Python source, shared by the writers of expressions, blocks and straight functions."""

from __future__ import annotations

import ast as pyast
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import CodeType
from typing import NamedTuple

UNKNOWN = object()  # no value known when the rules load (SourceCompiler.fixed_value)


@lru_cache(maxsize=8192)
def code_of(text: str, filename: str = "<string>", mode: str = "eval") -> CodeType:
    """Python's `compile` of written source, kept: a game loaded again (other players, a worker, a
    test) is mostly the same source, and compiling it was the slowest step of a load."""
    return compile(text, filename, mode)


@lru_cache(maxsize=4096)
def read_counts(text: str) -> tuple[Counter, Counter]:
    """How often Python source reads each field of `st` (`st.turn`) and each plain name (read only:
    the counts are shared)."""
    fields: Counter = Counter()
    names: Counter = Counter()
    for node in pyast.walk(pyast.parse(text)):
        if isinstance(node, pyast.Attribute) and isinstance(node.value, pyast.Name) and node.value.id == "st":
            fields[node.attr] += 1
        elif isinstance(node, pyast.Name):
            names[node.id] += 1
    return fields, names


class NoSource(Exception):
    """A writer of a special form (an option loop, a counted option) does not write this one: its
    caller writes the general form instead."""


def env_list(items: list[str], size: int) -> str:
    """A new env of `size` slots, `items` first: a short padding written out (`[a] + [None] * k`
    builds three lists)."""
    pad = size - len(items)
    if pad <= 12:
        return "[" + ", ".join([*items, *["None"] * pad]) + "]"
    return "[" + ", ".join(items) + f"] + [None] * {pad}" if items else f"[None] * {size}"


class Naming:
    """What written source calls the locals (items of a list, `env[3]`, or Python locals, `_e3`), the
    state's fields and the constants a straight function binds to locals first (`_Szones`, `_K33`).
    A parameter of the writers, so nothing renames their source afterwards; it counts the stores
    into fields (a stored field is never bound)."""

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
        """The generated code's globals with the constants bound here by their local names too."""
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
    """Source written meanwhile names the locals so (a leaf's callee's block says `named(ENV)`)."""
    _naming.append(how)
    try:
        yield
    finally:
        _naming.pop()


class Variant(NamedTuple):
    """Which form of a statement's source its writer writes: for a run that may keep a log (the
    machine's blocks test `st.log`), and with the lines that keep a straight run's counts of hands."""

    log: bool = False
    counting: bool = False

    def logged(self, logged: str | list, plain: list | None = None, ind: str = "") -> list:
        """The lines a run with a log runs (a simple statement, or a list) in place of `plain`: one
        Logged item for a run that may keep a log, else plain. `ind` is the test's indent."""
        if not self.log:
            return list(plain or [])
        return [Logged(logged if isinstance(logged, str) else tuple(logged), tuple(plain or ()), ind)]


class Logged(NamedTuple):
    """Lines only a run with a log runs, in place of `plain`: under `if st.log is not None:`."""

    logged: str | list
    plain: tuple
    ind: str


STRAIGHT_RUN = Variant(counting=True)  # a straight function (straight.py): no log, counts kept


def spent(steps: str = "1", ind: str = "") -> list[str]:
    """Lines spending `steps` of the step budget: past it, `st.tick()` reports rules that run away."""
    return [f"{ind}st.budget -= {steps}", f"{ind}if st.budget < 0: st.tick()"]


class Src(str):
    """Source the expression writer wrote, with what it knows of it, so no writer reads text back."""

    reads = False  # only reads (locals, state fields, items, numbers, + - %): cheap and safe to read twice
    item = False  # a loop's item (or what a scan written seat by seat puts in its place): never none
    number = False  # a number written out (a constant seat or card): never none
    read = False  # a read that cannot fail: a local, a counter or variable at a fixed index
    end = None  # ("_last", S) or ("_first", S): top(S) or bottom(S)
    places = None  # a grid's cards: the source of its places (empty ones too)
    iterated = None  # the same values, cheaper only to iterate (no list made)
    guarded = None  # `x is not None`: x's source
    search = None  # `next((i for i in S if C), None)`: (i, "in S if C")
    inner = None  # `(x)`: x
    truth = None  # `True if X else False`: X, for where only its truth is read

    def __new__(cls, text: str, **facts) -> Src:
        src = str.__new__(cls, text)
        src.__dict__.update(facts)
        return src


def paren(src: str) -> Src:
    """`(src)`, knowing what src is (no longer an item, a read nor a grid's cards)."""
    return Src(f"({src})", reads=getattr(src, "reads", False), number=getattr(src, "number", False),
               end=getattr(src, "end", None), inner=src, truth=getattr(src, "truth", None))


def grid_places(src: str) -> str:
    """The places of a grid whose cards src lists (for a loop that skips none anyway), else src."""
    return getattr(src, "places", None) or src


def pure(src: str) -> bool:
    """Short source that only reads (see Src.reads): read twice rather than bound to a name."""
    return getattr(src, "reads", False) and len(src) <= 48
