"""Lowering: the decisions the writers follow (the fields of Lowered), made once from the checked
program before a line is written; the writers read the plan and never work them out again.

Where a card can be found by one look-up (domains.card_test) is decided where its loop is
written: whether a term reads the card alone depends on what the loops around it work out first.
Without shortcuts (the plain reference the tests compare with) the plan holds no leaf, no count
and nothing worked out before a loop.
"""

from __future__ import annotations

import attrs

from .. import ast
from .counts import ValueCount, domain_form, value_count
from .tree import _field_names, _grow, _may_end, _never_decides, _recursive


@attrs.define
class Lowered:
    leaves: set[str]  # procedures that never wait for a decision: called in place, no frame
    ending: set[str]  # procedures that may reach an `end`
    recursive: set[str]  # a frame each, counted against the depth limit
    leaf_units: dict[int, bool]  # per hook or action (id of its CodeInfo): its body is a leaf
    leads: dict[int, ast.Choose]  # per action (id of its CodeInfo): its leading choose, the turn's decision
    counted: dict[int, tuple]  # per decision's domain (id): its form, if its options can be counted (counts.py)
    counted_specs: set[int]  # the zone specs a turn's counted options read: their hands keep counts
    hoisted: dict[int, list[ast.Expr]]  # per `where` (id): its test's safe parts not reading its item
    define_hoisted: dict[str, list[ast.Expr]]  # per define of one parameter: the same of its body
    value_counts: dict[int, ValueCount]  # per `where` (id) over values compared by their cards' count


def lead_of(info) -> ast.Choose | None:
    """An action's first statement, if it is a `choose` the turn's player answers at once (no
    `by`, not optional): its options are the turn's options."""
    first = info.body[0] if info.body else None
    return first if isinstance(first, ast.Choose) and first.by is None and not first.optional else None


def lower(c) -> Lowered:
    """The plan of compiler `c`'s program (its tables of cards and zones made already)."""
    p, fast = c.p, c.shortcuts
    # (the procedures that never wait for a decision, a recursive one never counted; those that may end)
    leaves, ending = (_grow(p.procedures, _never_decides), _grow(p.procedures, _may_end)) if fast else (set(), set())
    leads = {id(info): lead for info in p.actions if (lead := lead_of(info)) is not None}
    units = {id(info): fast and _never_decides(info.body[1:] if id(info) in leads else info.body, leaves)
             for info in (*p.hooks.values(), *p.actions)}
    plan = Lowered(leaves, ending, _recursive(p.procedures), units, leads, {}, set(), {}, {}, {})
    if not fast:
        return plan
    sc = c.source
    nodes = list(_nodes(p))
    plan.hoisted = {id(x): [y for y in sc.invariant_parts(x.cond, p.slots[id(x)]) if sc.safe(y)]
                    for x in nodes if isinstance(x, ast.Where)}
    plan.define_hoisted = {name: [y for y in sc.invariant_parts(info.expr, 0) if sc.safe(y)]
                           for name, info in p.defines.items() if len(info.params) == 1}
    c.plan = plan  # (deciding what is counted compares tests as written, with what is worked out first)
    plan.value_counts = {id(x): vc for x in nodes if isinstance(x, ast.Where) and (vc := value_count(c, x))}
    plan.counted = {id(x.domain): form for x in nodes  # (a `choose set`'s are counted by engine/sets.py)
                    if type(x) is ast.Choose and (form := domain_form(c, x.domain)) is not None}
    plan.counted_specs = {form[0] for lead in leads.values() if (form := plan.counted.get(id(lead.domain)))}
    return plan


def _nodes(p):
    """Every statement and expression of the program, each once: from each body and expression the
    rules hold, down the fields that hold nodes."""
    infos = (*p.defines.values(), *p.round_ends, *p.game_ends, *p.statistics, *p.invariants,
             *(info for _, info in p.rank), *([p.winners] if p.winners else []))
    todo: list = [*(i.body for i in (*p.procedures.values(), *p.hooks.values(), *p.actions)),
                  *(i.cond for i in p.actions), *(i.expr for i in infos), *(v.init for v in (*p.counters, *p.vars)),
                  *(step.expr for sc in p.scenarios for step, _ in sc.steps)]
    seen: set[int] = set()
    while todo:
        x = todo.pop()
        if isinstance(x, tuple):
            todo.extend(x)
        elif isinstance(x, ast.Node) and id(x) not in seen:
            seen.add(id(x))
            yield x
            todo.extend(getattr(x, name) for name in _field_names(type(x)))
