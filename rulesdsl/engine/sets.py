"""The options of a `choose set`: sets of cards as one decision (docs/design.md, "Sets of cards").

A hand of n cards has 2**n - 1 non-empty subsets, so nothing here lists subsets blindly:

- the cards are first made a *multiset*: identical cards the chooser knows, in one hand, are one
  class with a multiplicity (the rule of single cards: two sets that differ only by identical
  cards are one option), and the physical cards a class gives are the ones more seats know first;
- the size bounds prune every search (a class is skipped once the rest cannot reach the least
  size, the search stops once the greatest is reached);
- the condition's recognisable forms (`SHAPES`, found by the compiler) generate only candidates
  that can pass: `count(distinct(s.A)) == 1` splits the classes by A; `consecutive(s.A)` walks runs
  of A; `count(distinct(s.A)) == count(s)` takes at most one card an A;
- the condition itself is tried on each candidate, unless the forms say all it says (`exact`);
- where only the number of options is needed and nothing but the size restricts them, they are
  counted from the multiplicities (a product of polynomials) and the one picked is built from its
  index (`SetChoice.count`, `SetChoice.nth`), in the order listing would give them.

Options are lists of cards in one canonical order (the hand view's: by face; cards the chooser
does not know after, in the list's order, so the order tells nothing of their faces), sorted by
size, then by the classes they take. A search that would try more sets than the limit `sets` stops
with an error that says so, never a hang.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, pairwise

from ..errors import RulesRuntimeError

# The forms of a condition's terms (see the module's doc), each (form, table of A by card, least,
# most): `same` (one value of A), `few` (least..most values of A: None for no bound), `run`
# (consecutive(s.A)), `chain` (consecutive(distinct(s.A))), `diff` (no value of A twice), `sum`
# (sum(s.A) within least..most).
SAME, FEW, RUN, CHAIN, DIFF, SUM = "same", "few", "run", "chain", "diff", "sum"


class SetChoice:
    """What a `choose set` needs beyond its list of cards: its size bounds `size(st, env) -> (lo,
    hi)` (None: none given), its test `test(st, env, cards) -> bool` (None: none), the ways the
    test can be met that the compiler recognised `alts(st, env)` (see `set_options`), and whether
    nothing but sizes restricts the options (`plain`: they can be counted without a list)."""

    __slots__ = ("size", "test", "alts", "plain")

    def __init__(self, size: Callable, test: Callable | None, alts: Callable, plain: bool) -> None:
        self.size = size
        self.test = test
        self.alts = alts
        self.plain = plain

    def options(self, st, env: list, cards: list, chooser: int) -> list[list[int]]:
        """Every option as a list of cards (the machine's and a save's way)."""
        lo, hi = self.size(st, env)
        test = None if self.test is None else (lambda s: self.test(st, env, s))
        return set_options(st, cards, chooser, lo, hi, self.alts(st, env), test)


ANY_SET = (((), None, None, False),)  # nothing recognised: every set is a candidate, tested (see set_options)
TRIED = [0]  # the candidates the last search tried (bench/sets_speed.py reads it)


def set_options(st, cards: list, chooser: int, lo: int | None, hi: int | None, alts: tuple = ANY_SET,
                test: Callable | None = None) -> list[list[int]]:
    """The distinct sets of `cards` (a list, none and repeats ignored) of `lo`..`hi` cards (None:
    from 1; to all) that pass `test(cards)`, as lists of cards, in the options' order. `alts`:
    the ways the test can be met, each (forms, least size, greatest size, exact): a set passes
    only if it is a candidate of one of them; a candidate of an exact one passes without a test."""
    classes = card_classes(st, cards, chooser)
    lo, hi = _bounds(lo, hi, sum(len(c) for c in classes))
    limit = st.game.limits["sets"]
    found: dict[tuple, list[int]] = {}  # the classes taken (with repeats) -> the cards
    tried: set[tuple] | None = set() if len(alts) > 1 else None  # (one way's candidates never repeat)
    budget = [limit]
    for shape, alo, ahi, exact in alts:
        a, b = max(lo, alo or 1), min(hi, hi if ahi is None else ahi)
        if a > b:
            continue

        def emit(pick: list[int], chosen: list[int] | None = None, exact=exact) -> None:
            """A candidate: its classes (ascending, with its cards in their order, if `chosen`)."""
            key = tuple(pick) if chosen is not None else tuple(sorted(pick))
            if tried is not None:
                if key in tried:
                    return
                tried.add(key)
            budget[0] -= 1
            if budget[0] < 0:
                raise RulesRuntimeError(_too_many(limit, len(classes), lo, hi))
            chosen = chosen[:] if chosen is not None else _cards(classes, key)
            if test is None or exact or test(chosen):
                found[key] = chosen

        _search(classes, list(range(len(classes))), a, b, shape, emit)
    TRIED[0] = limit - budget[0]
    return [found[k] for k in sorted(found, key=lambda k: (len(k), k))]


def count_options(st, cards: list, chooser: int, lo: int | None, hi: int | None,
                  alts: tuple = ANY_SET) -> tuple[list, int, int, int]:
    """For a set that only sizes restrict (`SetChoice.plain`): (the classes, lo, hi, the
    number of options), counted from the classes' multiplicities without listing one."""
    classes = card_classes(st, cards, chooser)
    lo, hi = _bounds(lo, hi, sum(len(c) for c in classes))
    _, alo, ahi, _ = alts[0]
    lo, hi = max(lo, alo or 1), min(hi, hi if ahi is None else ahi)
    if lo > hi:
        return classes, lo, hi, 0
    ways = _ways([len(c) for c in classes], hi)
    return classes, lo, hi, sum(ways[0][lo:hi + 1])


def nth_option(classes: list, lo: int, hi: int, k: int) -> list[int]:
    """Option number k (from 0) of `count_options`' sets: the one `set_options` lists k-th."""
    mult = [len(c) for c in classes]
    ways = _ways(mult, hi)
    size = lo
    while k >= ways[0][size]:
        k -= ways[0][size]
        size += 1
    pick: list[int] = []
    left = size
    for i, m in enumerate(mult):  # more of class i first: its tuples of classes sort first
        for j in range(min(m, left), -1, -1):
            w = ways[i + 1][left - j]
            if k < w:
                pick += [i] * j
                left -= j
                break
            k -= w
    return _cards(classes, pick)


def card_classes(st, cards: list, chooser: int) -> list[list[int]]:
    """The cards as classes of identical ones (each class's cards in the order they would go),
    the classes in the canonical order."""
    g = st.game
    loc, known, hand, face = st.loc, st.known, g.zone_hand, g.card_face
    order = g.set_order or face_order(g)
    by_face: dict[tuple, list[int]] = {}
    seen: set[int] = set()
    keyed: list[tuple] = []
    for i, c in enumerate(cards):
        if c is None or c in seen:
            continue
        seen.add(c)
        zi = loc[c]
        if known[c] >> chooser & 1:
            if hand[zi]:
                group = by_face.get((zi, face[c]))
                if group is not None:
                    group.append(c)
                    continue
                group = by_face[zi, face[c]] = [c]
            else:
                group = [c]
            keyed.append(((0, order[c], i), group))
        else:  # (named by place: its face must not order it)
            keyed.append(((1, i), [c]))
    keyed.sort(key=lambda x: x[0])
    out = [group for _, group in keyed]
    for group in out:
        if len(group) > 1:  # the ones more seats know go first: they are the ones those seats saw
            group.sort(key=lambda c: -known[c].bit_count())
    return out


def face_order(g) -> tuple[int, ...]:
    """Each card's place in the order of a set's cards (and of the options): by kind, then by its
    numbers, then by its other values (attributes by name); identical cards alike. An order of
    the faces themselves, not of how the cards are numbered, so that a world a bot imagines, in
    which hidden cards are other cards, orders the same faces the same way."""
    names = sorted(a for a in g.attrs if a != "kind")

    def key(c: int) -> tuple:
        values = [g.attrs[a][c] for a in names]
        return (g.card_kind[c], tuple(v for v in values if type(v) is int),
                tuple(str(v) for v in values if v is not None and type(v) is not int))

    keys = sorted({key(c) for c in range(g.ncards)})
    rank = {k: i for i, k in enumerate(keys)}
    g.set_order = tuple(rank[key(c)] for c in range(g.ncards))
    return g.set_order


def consecutive(values) -> bool:
    """`consecutive(L)`: yes if L's numbers, sorted, each are one more than the one before (no
    repeats; an empty list or one number: yes). A list holding anything but numbers: no."""
    xs = list(values)
    if any(type(x) is not int for x in xs):
        return False
    xs.sort()
    return all(b == a + 1 for a, b in pairwise(xs))


# -- the search
def _search(classes: list, idx: list[int], lo: int, hi: int, shape: tuple, emit: Callable) -> None:
    """Emit each candidate (its classes, with repeats, ascending) among classes `idx` that the
    forms in `shape` allow: `same` forms first (each value on its own), then `few` forms (a cap
    on the number of values, kept while searching), then one of `run`, `chain`, `diff`."""
    if not shape:
        _any(classes, idx, lo, hi, emit)
        return
    if shape[0][0] == SAME:  # each value of A on its own
        table = shape[0][1]
        parts: dict = {}
        for i in idx:
            parts.setdefault(_key(table[classes[i][0]]), []).append(i)
        for part in parts.values():
            if sum(len(classes[i]) for i in part) >= lo:
                _search(classes, part, lo, hi, shape[1:], emit)
        return
    caps = [(tuple(_key(t[classes[i][0]]) if i in idx else None for i in range(len(classes))), a, b)
            for form, t, a, b in shape if form == FEW]
    sums = [_sum_of(classes, idx, t, a, b) for form, t, a, b in shape if form == SUM]
    keep = (caps, sums) if caps or sums else None
    other = [f for f in shape if f[0] not in (FEW, SUM)]
    if not other and caps and caps[0][2] is not None:
        _few_values(classes, idx, lo, hi, caps, sums, emit)
        return
    if not other:  # any set: each class a group of its own
        if keep:
            _groups(classes, [[i] for i in idx], 0, None, lo, hi, keep, emit)
        else:
            _any(classes, idx, lo, hi, emit)
        return
    form, table = other[0][:2]
    by_value: dict = {}
    for i in idx:
        v = table[classes[i][0]]
        if form != DIFF and type(v) is not int:
            continue  # (a run is of numbers)
        by_value.setdefault(_key(v), []).append(i)
    if form == DIFF:
        _groups(classes, list(by_value.values()), 0, 1, lo, hi, keep, emit)
        return
    values = sorted(k[1] for k in by_value)
    groups = {k[1]: v for k, v in by_value.items()}
    for s, start in enumerate(values):  # from each start, as far as the values go
        run: list[list[int]] = []
        for v in values[s:]:
            if v != start + len(run) or len(run) == hi:
                break
            run.append(groups[v])
            if form == CHAIN:
                _groups(classes, run, 1, None, max(lo, len(run)), hi, keep, emit)
            elif len(run) >= lo:
                if keep:
                    _groups(classes, run, 1, 1, len(run), len(run), keep, emit)
                else:
                    _product(run, emit)


def _few_values(classes: list, idx: list[int], lo: int, hi: int, caps: list, sums: list, emit: Callable) -> None:
    """Sets of at most `most` values of A (the first cap): the values first, each combination of
    k of them (k from the least, or 1, to the most) searched alone with at least one card of each.
    Each set has one combination of values, so none is made twice."""
    values, least, most = caps[0]
    by_value: dict = {}
    for i in idx:
        by_value.setdefault(values[i], []).append(i)
    groups = list(by_value.values())
    size = [sum(len(classes[i]) for i in g) for g in groups]
    keep = (caps[1:], sums) if caps[1:] or sums else None
    for k in range(max(least or 1, 1), min(most, hi, len(groups)) + 1):
        for combo in combinations(range(len(groups)), k):
            if sum(size[g] for g in combo) >= lo:
                _groups(classes, [groups[g] for g in combo], 1, None, lo, hi, keep, emit)


def _key(v) -> tuple:
    return (type(v).__name__, v)


def _sum_of(classes: list, idx: list[int], table: tuple, a: int | None, b: int | None) -> tuple:
    """A `sum` form: (each class's value, none as 0; least; most; whether partial sums only grow,
    so a branch past the most can be cut: every value of these classes at least 0)."""
    values = tuple(table[c[0]] or 0 for c in classes)
    return values, a, b, all(values[i] >= 0 for i in idx)


def _any(classes: list, idx: list[int], lo: int, hi: int, emit: Callable) -> None:
    """Emit every sub-multiset of classes `idx` of lo..hi cards (`_groups` without its groups),
    with its cards, made as it goes."""
    cls = [classes[i] for i in idx]
    mult = [len(c) for c in cls]
    n = len(idx)
    room = [0] * (n + 1)  # cards left from position i on
    for i in range(n - 1, -1, -1):
        room[i] = room[i + 1] + mult[i]
    pick: list[int] = []
    got: list[int] = []

    def go(i: int, size: int) -> None:
        if size == hi or i == n:
            if size >= lo:
                emit(pick, got)
            return
        if size + room[i] < lo:
            return
        c, k = cls[i], idx[i]
        for j in range(min(mult[i], hi - size), -1, -1):
            if j:
                pick.extend([k] * j)
                got.extend(c[:j])
                go(i + 1, size + j)
                del pick[-j:]
                del got[-j:]
            else:
                go(i + 1, size)

    if room[0] >= lo:
        go(0, 0)


def _product(choices: list[list[int]], emit: Callable) -> None:
    """Emit one class of each group, every way (a run of one card a value)."""
    pick: list[int] = []

    def go(i: int) -> None:
        if i == len(choices):
            emit(pick)
            return
        for c in choices[i]:
            pick.append(c)
            go(i + 1)
            pick.pop()

    go(0)


def _groups(classes: list, groups: list[list[int]], gmin: int, gmax: int | None, lo: int, hi: int,
            keep: tuple | None, emit: Callable) -> None:
    """Emit the candidates taking gmin..gmax cards (None: any number) of each group of classes,
    lo..hi cards in all, within `keep`: the caps (each class's value, least and most values) and
    the sums (see _sum_of)."""
    caps, sums = keep or ([], [])
    total = [0] * len(sums)
    flat = [(i, g) for g, group in enumerate(groups) for i in group]
    n = len(flat)
    mult = [len(classes[i]) for i, _ in flat]
    last = [k + 1 == n or flat[k + 1][1] != g for k, (_, g) in enumerate(flat)]
    room = [0] * (n + 1)  # cards left from position k on
    for k in range(n - 1, -1, -1):
        room[k] = room[k + 1] + mult[k]
    pick: list[int] = []
    held = [0] * len(groups)
    seen: list[dict] = [{} for _ in caps]  # per cap: its values taken, with how many classes each
    most = gmax if gmax is not None else hi
    # Per cap with a least number of values: the values left from position k on (none reached: cut).
    ahead = [[len({values[i] for i, _ in flat[k:]}) for k in range(n + 1)] if a else None
             for values, a, _ in caps]

    def fits(i: int) -> bool:
        """May class i be taken: is its value among each cap's, or has each cap room for one more?"""
        return all(values[i] in seen[f] or b is None or len(seen[f]) < b for f, (values, _, b) in enumerate(caps))

    def take(i: int, d: int) -> None:
        for f, (values, _, _) in enumerate(caps):
            v = values[i]
            left = seen[f].get(v, 0) + d
            if left:
                seen[f][v] = left
            else:
                del seen[f][v]

    def go(k: int, size: int) -> None:
        if k == n or (size == hi and gmin == 0):
            if size >= lo and all(a is None or len(seen[f]) >= a for f, (_, a, _) in enumerate(caps)) \
                    and all((a is None or t >= a) and (b is None or t <= b)
                            for t, (_, a, b, _) in zip(total, sums, strict=True)):
                emit(pick)
            return
        if size + room[k] < lo or any(left is not None and len(seen[f]) + left[k] < caps[f][1]
                                      for f, left in enumerate(ahead)):
            return
        i, g = flat[k]
        for j in range(min(mult[k], hi - size, most - held[g]), -1, -1):
            if last[k] and held[g] + j < gmin:
                break
            if j and caps and not fits(i):
                continue
            if j and any(grows and b is not None and t + j * values[i] > b
                         for t, (values, _, b, grows) in zip(total, sums, strict=True)):
                continue  # (past a sum's most: only fewer of this class can do)
            pick.extend([i] * j)
            held[g] += j
            if j and caps:
                take(i, 1)
            for f, (values, _, _, _) in enumerate(sums):
                total[f] += j * values[i]
            go(k + 1, size + j)
            for f, (values, _, _, _) in enumerate(sums):
                total[f] -= j * values[i]
            if j and caps:
                take(i, -1)
            held[g] -= j
            del pick[len(pick) - j:]

    if room[0] >= lo:
        go(0, 0)


# -- counting
def _ways(mult: list[int], hi: int) -> list[list[int]]:
    """ways[i][r]: the sets of exactly r cards from classes i.. (multiplicities `mult`)."""
    n = len(mult)
    ways = [[0] * (hi + 1) for _ in range(n + 1)]
    ways[n][0] = 1
    for i in range(n - 1, -1, -1):
        nxt, row, m = ways[i + 1], ways[i], mult[i]
        for r in range(hi + 1):
            row[r] = sum(nxt[r - j] for j in range(min(m, r) + 1))
    return ways


def _bounds(lo: int | None, hi: int | None, n: int) -> tuple[int, int]:
    """The size bounds as asked, within 1..n (a size worked out as 0 or less gives no set)."""
    lo = 1 if lo is None else max(lo, 1)
    hi = n if hi is None else min(hi, n)
    return lo, hi


def _cards(classes: list, pick: list[int]) -> list[int]:
    out: list[int] = []
    i = 0
    while i < len(pick):
        j = i
        while j < len(pick) and pick[j] == pick[i]:
            j += 1
        out += classes[pick[i]][:j - i]
        i = j
    return out


def _too_many(limit: int, n: int, lo: int, hi: int) -> str:
    return (f"`choose set` would try more than {limit} sets of {lo}..{hi} of these {n} kinds of card; "
            "give it a size, or a condition of a form it searches quickly (docs/language.md, `choose set`), "
            "or raise the limit (--limit sets=N)")
