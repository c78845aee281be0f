"""Functions the compiled rules call while they run: the limits' checks, the parts worked out
outside the machine, and (RUNTIME, by these names) what an expression cannot say as one Python
expression of its own (a none check that raises, a sum that skips nones, a range with a limit)."""

from __future__ import annotations

import itertools
import operator
import sys
from collections.abc import Callable

from ..engine.machine import LOCATED, rules_message
from ..engine.sets import consecutive
from ..engine.state import State
from ..errors import RulesRuntimeError

Fn = Callable[[State, list], object]


def log_moved(st: State, cards: list, sources: str, to: str) -> None:
    """The event of cards moved (`move`, `move all`, `draw`): how many, from where, to where."""
    if cards:
        st.event(1, f"{len(cards)} card{'s' if len(cards) > 1 else ''} from {sources} to {to}: {{}}", tuple(cards))


def _located_part(f: Callable[..., object], span, number: bool = False) -> Callable[..., object]:
    """An expression worked out outside the machine (a `show`, a `statistic`): a failure is a
    runtime error at its line, as the machine's are; a `number` must also fit a float (a mean)."""
    def part(st, *env):
        try:
            v = f(st, *env)
            if number and v is not None:
                float(v)
            return v
        except OverflowError:
            raise RulesRuntimeError("a number too large to take a mean of", span) from None
        except Exception as e:
            if isinstance(e, RulesRuntimeError) and e.span is not None:
                raise
            raise RulesRuntimeError(rules_message(e), span) from None

    return part


def depth_check(depth: int, recursive: frozenset[int]) -> Callable[[State], None]:
    """Before a recursive procedure's call: is its frame one too many (a recursion that never stops)?"""
    def check(st: State) -> None:
        if sum(1 for f in st.stack if f[0] in recursive) >= depth:
            raise RulesRuntimeError(f"more than {depth} calls of procedures in progress at once (a recursion that "
                                    "never stops?) (to allow more: --limit depth=N)")

    return check


def _every_seat(key: Callable[[State, int], object], n: int) -> Callable[[State], list]:
    return lambda st: [key(st, seat) for seat in range(n)]


def _number_guard(digits: int, no_none: bool) -> Callable[[State, object], object]:
    """A number as it is stored: at most `digits` digits, and (a counter's or variable's) not none."""
    top = 10 ** digits

    def number(st, v):
        if v is None:
            if no_none:
                raise RulesRuntimeError("the value stored here is none, but this counter or variable holds a number "
                                        "or yes/no (the attribute of the top of an empty zone?)")
            return v
        if -top < v < top:
            return v
        raise RulesRuntimeError(f"a number of more than {digits} digits (a value that grows without end?) "
                                "(to allow more: --limit digits=N)")

    return number


def _list_guard(size: int) -> Callable[[State, list], list]:
    """A list joined with `+` as it is stored: at most `size` items, each counted against the step
    budget (a list joined at every pass of a loop costs the square of its size)."""
    def joined(st, v):
        if v is not None:
            if len(v) > size:
                raise RulesRuntimeError(f"a list of {len(v)} items, more than the limit of {size} "
                                        "(a list that grows without end?) (to allow more: --limit list=N)")
            st.budget -= len(v)
            if st.budget < 0:
                st.tick()
        return v

    return joined


def _leaf_error(st, e: BaseException, code_id: int, owners: tuple, size: int):
    """Locate an error raised in a leaf's lines written in its caller at the leaf's own op, as the
    machine would (an error already located, or raised in a block they called, goes on as it is)."""
    game = st.game
    if isinstance(e, RulesRuntimeError) and e.span is not None:
        raise e
    tb = e.__traceback__
    deeper = tb.tb_next if tb is not None else None
    while deeper is not None:
        if deeper.tb_frame.f_code in game.block_lines:
            raise e  # (the machine finds that block's line itself)
        deeper = deeper.tb_next
    i = (tb.tb_lineno if tb is not None else 0) - (sys._getframe(1).f_lineno - size - 1)
    spans = game.codes[code_id].spans
    op = owners[i] if 0 <= i < len(owners) else -1
    span = spans[op] if 0 <= op < len(spans) else None
    raise RulesRuntimeError(rules_message(e), span) from None


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
    """How many times each value occurs (quicker than Counter on a hand's worth)."""
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


RUNTIME = {f.__name__: f for f in (_fail, _some, _sum, _pick, _rand, _hist, _each, _range, _leaf_error)}
RUNTIME.update(_consecutive=consecutive, RulesRuntimeError=RulesRuntimeError, _is_not=operator.is_not,
               _NONES=itertools.repeat(None), _LOCATED=LOCATED)  # (_consecutive: `choose set` reads it too)
