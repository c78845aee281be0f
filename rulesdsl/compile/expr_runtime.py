"""The functions that generated expressions call (by these names, see RUNTIME): the few constructs
that are no single Python expression of their own (a none check that raises, a sum that skips
nones, a range with a limit)."""

from __future__ import annotations

from ..engine.sets import consecutive
from ..errors import RulesRuntimeError


def _card_attr(table, c):
    return None if c is None else table[c]


def _fail(msg):
    raise RulesRuntimeError(msg)


def _some(v, msg):
    if v is None:
        raise RulesRuntimeError(msg)
    return v


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
    """A define applied to each item (none skipped) of its list argument in slot k of env."""
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


RUNTIME = {f.__name__: f for f in (_card_attr, _fail, _some, _sum, _pick, _rand, _hist, _each, _range)}
RUNTIME["_consecutive"] = consecutive  # (engine/sets.py: `choose set` reads it too)
