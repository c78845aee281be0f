"""What compiled rules do to cards: move, draw, refill, shuffle, swap, and log what happened.

`CardPrimitives` is a part of `State` (state.py): generated code calls these as the state's own
methods (`st.move_card(c, zi)`, `st.draw_one(src, dst)`) once or more a move, and they change the
state's zones, locations, knowledge and counts in place. Kept as methods of the state (a base
class, found by the same cached look-up as a method of State itself), so no call level is added.
"""

from __future__ import annotations

import sys

from ..errors import RulesRuntimeError
from .rng import GOLDEN, MASK, next64

_PACKED_FROM = 8  # cards: from how many a shuffle draws its random numbers all at once
_LITTLE = sys.byteorder == "little"  # (the lanes are read back as native 64-bit numbers)
_packs: dict[int, tuple[int, int, int, int, tuple[int, ...]]] = {}


def _pack(n: int) -> tuple[int, int, int, int, tuple[int, ...]]:
    """For a shuffle of n cards: 1 in each of its n - 1 lanes, k * GOLDEN in lane k - 1, 64 ones
    in each lane, and per bit of the lanes' multipliers (n - k in lane k), highest bit first, 64
    ones in the lanes whose multiplier has that bit: the first apart, the rest as a tuple (see
    CardPrimitives.shuffle_zone). Made by operations on whole bytes and ints (a shuffle of a new
    size costs no loop over its lanes)."""
    k = max(n - 1, 0)
    ones, zero = b"\xff" * 8 + b"\x00" * 8, b"\x00" * 16
    lanes = int.from_bytes((b"\x01" + b"\x00" * 15) * k, "little")
    # (1 + B + B^2 + ...)^2 = 1 + 2B + 3B^2 + ...: lane k - 1 holds k, times GOLDEN in every lane.
    steps = GOLDEN * ((lanes * lanes) & ((1 << (128 * k)) - 1))
    bits = []
    for b in range(n.bit_length()):
        # Bit b of n, n - 1, n - 2, ...: a period of 2^b ones and 2^b zeros, begun where n stands in it.
        size = 1 << b
        period = ones * size + zero * size  # bit b of P - 1, P - 2, ..., 0 (P = 2 size)
        turn = 16 * (2 * size - 1 - n % (2 * size))
        period = period[turn:] + period[:turn]
        bits.append(int.from_bytes((period * (k // (2 * size) + 1))[: 16 * k], "little"))
    bits.reverse()
    _packs[n] = p = (lanes, steps, MASK * lanes, bits[0], tuple(bits[1:]))
    return p


def _draws(rng: int, n: int) -> tuple[int, int, tuple[int, ...]]:
    """The 64 bits of each of the n - 1 draws of a shuffle of n cards at once, in one big int:
    the states rng + k * GOLDEN side by side, 128 bits apart (a product of two 64-bit numbers
    fits, so no lane spills into the next), mixed by a few operations on the whole int. The same
    bits as one by one. With the planes of the lanes' multipliers (`_pack`)."""
    lanes, steps, low, top, bits = _packs.get(n) or _pack(n)
    x = (rng * lanes + steps) & low
    x = (((x ^ (x >> 30)) & low) * 0xBF58476D1CE4E5B9) & low
    x = (((x ^ (x >> 27)) & low) * 0x94D049BB133111EB) & low
    return x ^ (x >> 31), top, bits


def _mix_apart(cards: list, rng: int) -> int:
    """Fisher-Yates of `cards` in place, where `shuffle_zone`'s own loop does not fit: 8 cards or
    fewer (drawn one by one), or more than 256 (a place does not fit a byte). The generator's
    state after."""
    n = len(cards)
    if n > _PACKED_FROM and _LITTLE:
        i = n
        for z in memoryview(_draws(rng, n)[0].to_bytes(16 * (n - 1), "little")).cast("Q")[::2].tolist():
            j = (z * i) >> 64
            i -= 1
            cards[i], cards[j] = cards[j], cards[i]
        return (rng + (n - 1) * GOLDEN) & MASK
    for i in range(n - 1, 0, -1):
        rng = (rng + GOLDEN) & MASK
        z = ((rng ^ (rng >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        j = ((z ^ (z >> 31)) * (i + 1)) >> 64
        cards[i], cards[j] = cards[j], cards[i]
    return rng


class CardPrimitives:
    """The primitives of the compiled rules on cards and zones, and the event log. The fields are
    State's (state.py)."""

    __slots__ = ()

    def randbelow(self, n: int) -> int:
        self.rng, bits = next64(self.rng)
        return (bits * n) >> 64

    def step(self, p: int, k: int = 1) -> int:
        return (p + self.direction * k) % self.game.players

    def move_card(self, c: int, zi: int, place: int | None = None) -> None:
        g = self.game
        src = self.loc[c]
        lst = self.zones[src]
        grid = g.zone_grid
        if grid[src]:
            lst[lst.index(c)] = None  # the place stays, empty
        elif lst and lst[-1] == c:
            lst.pop()
        else:
            lst.remove(c)
        dst = self.zones[zi]
        if grid[zi]:
            if place is None:
                if len(dst) >= g.limits["places"]:
                    too_many_places(g, zi, len(dst) + 1)
                dst.append(c)  # a new place
            else:
                if place >= len(dst):
                    if place >= g.limits["places"]:
                        too_many_places(g, zi, place + 1)
                    dst.extend([None] * (place + 1 - len(dst)))
                if dst[place] is not None:
                    raise RulesRuntimeError(f"place {place + 1} of {g.zone_names[zi]} is not empty")
                dst[place] = c
        elif place is not None:
            dst.insert(max(0, min(place, len(dst))), c)
        else:
            dst.append(c)
        self.loc[c] = zi
        if self.counts:
            self._recount(c, src, zi)
        m = g.zone_learn[zi]
        if m:
            if m < 0:
                self.known[c] = ~m  # a public zone: everyone
            else:
                self.known[c] |= m  # a private zone: its owner

    def _recount(self, c: int, src: int, dst: int) -> None:
        """Card c went from zone src to zone dst in a straight run: their counts, if counted."""
        counts, face = self.counts, self.game.card_face[c]
        if counts[src] is not None:
            counts[src][face] -= 1
        if counts[dst] is not None:
            counts[dst][face] += 1

    def move_all(self, src: int, zi: int) -> list[int]:
        """Move every card of a stack or hand to another such zone, keeping their order (what
        `move_card` for each card from the bottom up would do, in one step)."""
        lst = self.zones[src]
        moved = lst[:]
        lst.clear()
        self._count_all(moved, src, -1)
        self._arrive(moved, zi)
        return moved

    def _count_all(self, cards: list[int], zi: int, step: int) -> None:
        """Cards taken out of (-1) or put into (+1) zone zi: its counts, in a straight run."""
        held = self.counts[zi] if self.counts else None
        if held is not None:
            face = self.game.card_face
            for c in cards:
                held[face[c]] += step

    def _arrive(self, cards: list[int], zi: int) -> None:
        """Cards (from a pile or hand) put on top of zone zi, in order: where they are now and
        what zi teaches."""
        self.zones[zi].extend(cards)
        loc = self.loc
        for c in cards:
            loc[c] = zi
        self._count_all(cards, zi, 1)
        m = self.game.zone_learn[zi]
        if m:
            known = self.known
            if m < 0:
                for c in cards:
                    known[c] = ~m
            else:
                for c in cards:
                    known[c] |= m

    def top_card(self, zi: int) -> int | None:
        lst = self.zones[zi]
        if self.game.zone_grid[zi]:
            for c in reversed(lst):
                if c is not None:
                    return c
            return None
        return lst[-1] if lst else None

    def draw_one(self, src: int, dst: int) -> int | None:
        """Move the top card of src to dst, refilling src first if it is empty and says how."""
        lst = self.zones[src]
        g = self.game
        if not g.zone_grid[src] and not g.zone_grid[dst]:
            if not lst:
                self.refill(src)
                lst = self.zones[src]
                if not lst:
                    return None
            # `move_card` written out: the top of a pile onto a pile or a hand (onto a grid,
            # move_card itself: a new place counts against the limit of places).
            c = lst.pop()
            self.zones[dst].append(c)
            self.loc[c] = dst
            if self.counts:
                self._recount(c, src, dst)
            m = g.zone_learn[dst]
            if m:
                if m < 0:
                    self.known[c] = ~m
                else:
                    self.known[c] |= m
            return c
        c = self.top_card(src)
        if c is None:
            self.refill(src)
            c = self.top_card(src)
            if c is None:
                return None
        self.move_card(c, dst)
        return c

    def refill(self, zi: int) -> None:
        g = self.game
        source = g.zone_refill[zi]
        if source < 0:
            return
        keep = g.zone_keep[zi]
        if len(self.zones[source]) <= keep:
            return  # (not more cards than it keeps: nothing to move)
        # Cards may go round for ever (a draw of many from a pile that refills from where they go):
        # the cards a refill moves count against the step budget.
        self.budget -= len(self.zones[source]) - keep
        if self.budget < 0:
            self.tick()
        lst = self.zones[source]
        if g.zone_grid[source]:
            cards = [c for c in lst if c is not None]
            moving = cards[: len(cards) - keep] if keep else cards
            if not moving:
                return
            for c in moving:
                self.move_card(c, zi)
        else:
            # `move_card` for each card from the bottom up, in one step: a pile or hand holds no none.
            moving = lst[: len(lst) - keep]
            del lst[: len(lst) - keep]
            self._count_all(moving, source, -1)
            self._arrive(moving, zi)
        self.shuffle_zone(zi)
        if self.log is not None:
            # Told to the table in its own words (display names); the detailed log keeps the
            # zones' names as the rules declare them.
            kept = "" if not keep else " but its top card" if keep == 1 else f" but its top {keep} cards"
            self.event(0, f"{g.zone_words(zi)} is empty: {g.zone_words(source)}{kept} is shuffled "
                          f"to make a new one")
            self.event(1, f"{g.zone_names[source]} is shuffled to make a new {g.zone_names[zi]}")

    def shuffle_zone(self, zi: int) -> None:
        g = self.game
        lst = self.zones[zi]
        if g.zone_grid[zi]:
            cards = [c for c in lst if c is not None]
        else:
            cards = lst
        learn = g.zone_learn[zi]
        mask = ~learn if learn < 0 else learn  # only what the zone itself shows: everyone else forgets
        known, group = self.known, self.group
        gid = g.nzones + self.shuffles
        self.shuffles += 1
        # What the seats knew of the cards is noted before they are mixed (none of it reads their
        # order), so that the mixing loop can write their new knowledge and group as it goes.
        where = self.where
        # the seats that know which zone holds a shuffled card by its whereabouts, worked out once
        wk = {c: self.knows_where(c) for c in cards if c in where} if where else {}
        node = self.unpooled
        if node is not None and not wk:
            # (A chain of notes under way, as at every shuffle once a seat has a pool apart: noted
            # here without a call, as `_keep_pools` would. A shuffle is in every playout.)
            self.unpooled = (node, gid, tuple(cards), tuple(known))
        else:
            self._keep_pools(cards, gid, wk)  # (a seat that knew none of them learns nothing of their set)
        if g.zone_shape[zi] or where:  # a hand or a grid: who knew a card still knows it is there
            self._keep_whereabouts(cards, mask if g.zone_shape[zi] else -1, wk)
        if self.partial:  # (a place's attributes are forgotten with its face)
            for c in cards:
                self.partial.pop(c, None)
        # Fisher-Yates with `randbelow` (SplitMix64): a shuffle is most of the random draws.
        rng = self.rng
        n = len(cards)
        if _PACKED_FROM < n <= 256 and _LITTLE:
            x, top, bits = _draws(rng, n)
            # Each lane's draw z times its multiplier m, for all lanes at once (m bit by bit,
            # highest first: z * m < 2 ** 72 stays in its lane); j = z * m >> 64 is then byte 8 of
            # the lane.
            p = x & top
            for lanes_with_b in bits:
                p = (p << 1) + (x & lanes_with_b)
            # Place i takes its card for good at step i: its knowledge and group are written
            # there, in the same loop (card 0's after it).
            i = n - 1
            for j in p.to_bytes(16 * (n - 1), "little")[8::16]:
                c = cards[j]
                cards[j] = cards[i]
                cards[i] = c
                known[c] = mask
                group[c] = gid
                i -= 1
            c = cards[0]
            known[c] = mask
            group[c] = gid
            self.rng = (rng + (n - 1) * GOLDEN) & MASK
        else:
            self.rng = _mix_apart(cards, rng)
            for c in cards:
                known[c] = mask
                group[c] = gid
        if cards is not lst:
            it = iter(cards)
            for k, c in enumerate(lst):
                if c is not None:
                    lst[k] = next(it)

    def _keep_whereabouts(self, cards: list[int], mask: int, wk: dict[int, int]) -> None:
        """Before cards of a hand or grid are shuffled: each seat that knew one, by face or by
        whereabouts, keeps knowing that the zone holds it (and not where in it). A stack's shuffle
        (mask -1) keeps none: its new group says which cards it holds (hidden.py)."""
        known, where = self.known, self.where
        mixed = set(cards)
        # What is lost stays lost: once a card of its shuffle left the zone unseen, a card's
        # whereabouts must not come back when that card is shuffled into another group.
        new = {c: m for c in where if c not in mixed and (m := self.knows_where(c))} if where else {}
        for c in cards:
            m = (known[c] | wk.get(c, 0)) & ~mask & self.game.all_mask
            if m:
                new[c] = m
        if new or where:
            self.where = new

    def show_attr(self, cards: list[int], a: int, seat: int | None) -> None:
        """`show CARDS.attr to seat` (`reveal CARDS.attr`: seat None, every seat): the seat learns
        attribute a (of `game.partial_attrs`) of each card, not its face. Logged with the values as
        a secret: the others read `?` unless they know every face."""
        g = self.game
        partial, bit, n = self.partial, g.all_mask if seat is None else 1 << seat, len(g.partial_attrs)
        for c in cards:
            masks = partial.get(c) or (0,) * n
            partial[c] = masks[:a] + (masks[a] | bit,) + masks[a + 1:]
        if self.log is not None and cards:
            attr = g.partial_attrs[a]
            every = g.all_mask  # (and those who know every face)
            for c in cards:
                every &= self.known[c]
            knows = bit | every
            words = " ".join(g.attr_words[attr][c] for c in cards)
            who = "everyone is" if seat is None else f"{g.names[seat]} is"
            text = f"{who} shown the {attr} of {self._places(cards)}: \0"
            self.event(0, text, (), ((words, knows, "?"),))

    def _places(self, cards: list[int]) -> str:
        """Where cards are, for the log: a hand's cards by their places as moves name them
        (`bob.hand #5 #3`, #1 the newest), the others as `place_text` says."""
        g = self.game
        out: dict[str, list[str]] = {}
        for c in cards:
            zi = self.loc[c]
            if g.zone_hand[zi]:
                lst = self.zones[zi]
                out.setdefault(g.zone_names[zi], []).append(f"#{len(lst) - lst.index(c)}")
            else:
                out.setdefault(g.place_text(self, c), [])
        return ", ".join(" ".join([where, *places]) for where, places in out.items())

    def swap_cards(self, a: int, b: int) -> None:
        if a == b:
            return
        za, zb = self.loc[a], self.loc[b]
        la, lb = self.zones[za], self.zones[zb]
        ia, ib = la.index(a), lb.index(b)
        la[ia], lb[ib] = b, a
        self.loc[a], self.loc[b] = zb, za
        if self.counts and za != zb:
            self._recount(a, za, zb)
            self._recount(b, zb, za)
        learn = self.game.zone_learn  # what each zone shows: ~mask (everyone), its owner's bit, or 0
        known = self.known
        m = learn[zb]
        if m:
            known[a] = ~m if m < 0 else known[a] | m
        m = learn[za]
        if m:
            known[b] = ~m if m < 0 else known[b] | m

    def event(self, level: int, text: str, cards: tuple = (), secrets: tuple = ()) -> None:
        """Log an event; `{}` in text stands for `cards`, each shown to those who know it then or
        by the end of the step (a card served face up was seen, even if shuffled away later).
        A NUL in text stands for a secret value, one per item of `secrets`: (its words, the
        seats that know it, the words the others see)."""
        known = self.known
        ev = (self.turn, level, text, tuple(cards), tuple(known[c] for c in cards))
        self.log.append(ev + (tuple(secrets),) if secrets else ev)

    def secrets_known(self, cells: tuple[int, ...]) -> int:
        """The seats that know every secret value among `cells` (cells of `vars`): who may be
        shown a value worked out from them (a `show` line, a `say`, a label)."""
        mask = self.game.all_mask
        for k in cells:
            entry = self.secrets.get(k)
            if entry is not None:
                mask &= entry[0]
        return mask


def too_many_places(g, zi: int, n: int) -> None:
    """A grid would grow past its limit (a place far away, or cards moved within it for ever)."""
    raise RulesRuntimeError(f"{g.zone_names[zi]} would have {n} places, more than the limit of "
                            f"{g.limits['places']} (to allow more: --limit places=N)")
