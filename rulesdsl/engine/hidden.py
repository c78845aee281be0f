"""Worlds a seat cannot tell from the real one: the hidden cards dealt again (determinization).

`HiddenCards` is a part of `State` (state.py): a sampled world is a clone of the state whose
every field that names a card is re-pointed (`_rename`): zones, locations, knowledge, variables,
counters, the pending frames' locals, the options and the log. Those are the state's own fields,
so the renaming is the state's own method.
"""

from __future__ import annotations

from typing import Self


class HiddenCards:
    """Determinization: `determinize` and the renaming of cards it makes. The fields are State's
    (state.py)."""

    __slots__ = ()

    def determinize(self, player: int, rng, *, log: bool | None = None) -> Self:
        """A copy in which the cards `player` does not know are dealt again at random among the
        places that hold such cards: a world consistent with what the player knows (for bots that
        sample hidden cards). `log` as for `clone`; search bots pass False.

        Places keep their knowledge (who has seen the card there), so the player's view, legal
        moves and everything public are unchanged; only faces the player cannot see move. Every
        value that names a card (variables, counters and locals of every type that can hold one,
        lists, the pending options) is re-pointed to the card now in its place (`_rename`), so
        nothing in the world names the real cards. The deal starts from a canonical order (the
        hidden cards by face, dealt to the hidden places in table order), so two states the
        player cannot tell apart give the same world for the same random numbers: a bot's choice
        then depends only on what its seat knows. Cards trade places only within a shuffle group
        as the player knows it: a card it did not know when it was shuffled may be any card of
        the pool it was in before (`pools`), so a shuffled hand's set of cards is not kept for
        a player who never knew them. `rng` is a `random.Random`. The game's own
        generator is reseeded too, so the sampled world does not reveal the real future of the
        draw pile either.
        """
        s = self.clone(log=log)
        bit = 1 << player
        known, group = self.known, self.group
        hidden: dict[int, list[int]] = {}  # shuffle group -> its hidden cards, in table order
        for z in self.zones:
            for c in z:
                if c is not None and not known[c] & bit:
                    hidden.setdefault(group[c], []).append(c)
        # A card the player did not know when it was shuffled may still be any card of the pool
        # it was in before (`_pool_of`): those pools are dealt first, then each shuffle group.
        pools = self.pooled()
        s.pools, s.unpooled = pools, None
        first = self._pooled(hidden, player, rng) if pools else {}
        if first:  # (a card keeps its pool when the first deal puts it in another group's place)
            moved = {d: group[d] for c, d in first.items() if group[d] != group[c] and d not in pools}
            if moved:
                s.pools = {**pools, **moved}
        # Only cards last shuffled together may trade places: a card dealt before another was
        # shuffled into the deck cannot be that card.
        r: dict[int, int] = {}
        for cards in hidden.values():
            if len(cards) > 1:
                ids = self._dealt(cards, [first.get(c, c) for c in cards], bit, rng)
                r.update(zip(cards, ids, strict=True))
            elif first:
                r[cards[0]] = first.get(cards[0], cards[0])
        if r:
            s._rename(r, player)
        if s.secrets:
            s._redraw_secrets(bit, rng)
        if s.where:  # (others' whereabouts would name real cards; the player's own follow the cards)
            s.where = {c: bit for c, m in s.where.items() if m & bit}
        s.rng = rng.getrandbits(64)
        return s

    def _dealt(self, places: list[int], cards: list[int], bit: int, rng) -> list[int]:
        """The cards dealt to `places` at random, from a canonical order (by face) so that only
        the faces decide, each place whose attributes the player was shown getting a card that
        has them (`_matched`)."""
        ids = sorted(cards, key=self.game.card_rank.__getitem__)
        rng.shuffle(ids)
        if self.partial and any(c in self.partial for c in places):
            ids = self._matched(places, ids, bit)
        return ids

    def _pool_of(self, c: int, player: int) -> int:
        """The shuffle group card c is in as `player` knows it: the group of its last shuffle if
        the player knew the card then (its face, or which zone held it), else the pool it was in
        before that shuffle, which the shuffle did not tell the player anything about."""
        v = self.pools.get(c)
        return self.group[c] if v is None else v if type(v) is int else v[player]

    def _pooled(self, hidden: dict[int, list[int]], player: int, rng) -> dict[int, int]:
        """The first deal of `determinize`: place -> card, among the cards of each pool (as the
        player knows them, `_pool_of`) that spans several shuffle groups: that is, the cards the
        player did not know when they were shuffled in with others, and those they could be."""
        pools: dict[int, list[int]] = {}
        for cards in hidden.values():
            for c in cards:
                pools.setdefault(self._pool_of(c, player), []).append(c)
        group, bit = self.group, 1 << player
        first: dict[int, int] = {}
        for cards in pools.values():
            if len({group[c] for c in cards}) > 1:
                first.update(zip(cards, self._dealt(cards, cards, bit, rng), strict=True))
        return first

    def _keep_pools(self, cards: list[int], gid: int, wk: dict[int, int]) -> None:
        """Before `cards` are shuffled together as group `gid`: a seat that knew one (its face, or
        which zone held it: `wk`) knows it is among them; for a seat that did not, the shuffle says
        nothing about which card it is, and it stays in the pool it was in (`_pool_of`). Only
        noted here, with C loops (a shuffle is in every playout, and playouts never read pools);
        `pooled` works the pools out when a world or a save needs them. (`shuffle_zone` makes the
        commonest note itself, a chain's next without whereabouts, to spare a call.)"""
        node = self.unpooled
        if node is None:
            if not self.pools and self._nothing_apart(cards, wk):
                return
            # The first note of a chain keeps the groups as they were (a whole copy, in C); the
            # later ones need not: between two notes of a chain every shuffle is noted, and only a
            # shuffle changes a group, so `pooled` replays the groups from this copy.
            node = (None, self.group[:])
        knew = self.known[:]  # (who knew each card: a whole copy, in C; read at `cards` only)
        if wk:
            for c, m in wk.items():
                knew[c] |= m
        self.unpooled = (node, gid, tuple(cards), knew)

    def _nothing_apart(self, cards: list[int], wk: dict[int, int]) -> bool:
        """Whether a shuffle of `cards`, while no seat has a pool apart, leaves none apart: the
        cards every seat knew (a face-up pile made a new deck), or whole groups nobody knew (a new
        deck's first shuffle). Only tests that cost a few C loops over the lists, since this runs
        at the shuffles of every playout: where they cannot tell, the shuffle is noted, which is
        always right (a pool that is a whole group changes no world)."""
        known = self.known
        everyone = self.game.all_mask
        if not cards:
            return True
        if known[cards[0]] & everyone == everyone \
                and all(m & everyone == everyone for m in map(known.__getitem__, cards)):
            return True
        if wk and any(wk.values()):
            return False
        if len(cards) == len(known):  # (every card of the game: each group is wholly among them)
            return not any(known)
        # Else only before the game's first shuffle can whole groups be told cheaply: each group is
        # then the zone a card started in. (Later, noting is cheaper than telling.)
        zones, loc, start_known, group = self.game.start
        if self.group != group:
            return False
        if self.loc == loc and known == start_known:
            # (Nothing moved or seen yet: the cards are their zone's from the start and all have
            # what it showed at the start, one value for the zone: nobody knew them if one is
            # unknown. Three list comparisons, in C.)
            return not known[cards[0]]
        start = zones[self.loc[cards[0]]]  # (their zone's cards at the start: the whole group?)
        return len(cards) == len(start) and set(cards) == set(start) and not any(map(known.__getitem__, cards))

    def pooled(self) -> dict[int, int | tuple[int, ...]]:
        """Card -> the pool each seat knows it in (one group for every seat, or a group per seat),
        for the cards some seat did not know when they were last shuffled; the shuffles noted
        since the last call worked in, oldest first."""
        node = self.unpooled
        if node is None:
            return self.pools
        steps = []
        while len(node) > 2:
            node, *step = node
            steps.append(step)
        old = node[1][:]  # (the groups before the chain's first shuffle, replayed shuffle by shuffle)
        g = self.game
        pools, everyone, seats = dict(self.pools), g.all_mask, range(g.players)
        for gid, cards, knew in reversed(steps):
            for c in cards:
                m, o = knew[c], old[c]
                old[c] = gid
                if not m:  # (nobody knew it: every seat's pool stays as it was)
                    if c not in pools:
                        pools[c] = o
                elif m & everyone == everyone:
                    pools.pop(c, None)
                else:
                    v = pools.get(c, o)
                    pools[c] = tuple(gid if m >> p & 1 else v if type(v) is int else v[p] for p in seats)
        self.pools, self.unpooled = pools, None
        return pools

    def _matched(self, places: list[int], ids: list[int], bit: int) -> list[int]:
        """The cards `ids` (shuffled) dealt to the places where the cards `places` are, each place
        whose attributes the player knows (partial knowledge) getting a card with those values:
        the most constrained places first, each taking the first card of `ids` that fits, with
        augmenting paths when none is left (one always exists: the real deal). The rest take the
        cards left in `ids`' order, so only what the player knows and the shuffle decide."""
        g = self.game
        attrs = [g.attrs[a] for a in g.partial_attrs]
        wants: list[tuple[int, tuple]] = []  # (place, ((attribute values, value), ...))
        for i, c in enumerate(places):
            masks = self.partial.get(c)
            if masks is not None:
                want = tuple((vals, vals[c]) for vals, m in zip(attrs, masks, strict=True) if m & bit)
                if want:
                    wants.append((i, want))
        fits = {i: [d for d in ids if all(vals[d] == v for vals, v in want)] for i, want in wants}
        wants.sort(key=lambda w: len(fits[w[0]]))
        owner: dict[int, int] = {}  # card -> the constrained place it went to
        dealt: dict[int, int] = {}

        def place(i: int, seen: set[int]) -> bool:
            for d in fits[i]:
                if d not in seen:
                    seen.add(d)
                    if d not in owner or place(owner[d], seen):
                        owner[d], dealt[i] = i, d
                        return True
            return False

        for i, _ in wants:
            place(i, set())
        left = iter([d for d in ids if d not in owner])
        return [dealt[i] if i in dealt else next(left) for i in range(len(places))]

    def knows_where(self, c: int) -> int:
        """The seats that know which zone holds card c without knowing its face: those that knew it
        when its hand or grid was shuffled (`where`), as long as every card of that shuffle they do
        not know is still in that zone. A card of it gone elsewhere unseen may be c."""
        m = self.where.get(c, 0) & ~self.known[c]
        if not m:
            return 0
        g, known, loc, group = self.game, self.known, self.loc, self.group
        z, gid = loc[c], group[c]
        for d in range(g.ncards):
            if group[d] == gid and loc[d] != z:
                m &= known[d]
                if not m:
                    break
        return m

    def whereabouts(self, player: int) -> dict[int, list[int]]:
        """Zone -> the cards `player` knows it holds, though not their faces' places."""
        out: dict[int, list[int]] = {}
        for c in sorted(self.where):
            if self.knows_where(c) >> player & 1:
                out.setdefault(self.loc[c], []).append(c)
        return out

    def _redraw_secrets(self, bit: int, rng) -> None:
        """Every secret answer the player does not know drawn again from the options it was chosen
        from (renamed with the cards already), so the world keeps no trace of the real one."""
        for k in sorted(self.secrets):
            mask, options = self.secrets[k]
            if not mask & bit and options:
                self.vars[k] = options[rng.randrange(len(options))]

    def _rename(self, r: dict[int, int], viewer: int) -> None:
        """Put card r[c] wherever card c was: its place and knowledge, and every value of the
        state that names c (the cells the compiler listed as able to hold a card or a list of
        cards, in variables, counters and the locals of every pending frame, and the options).
        A list that is a zone's own list stays that zone's. Logged events keep the cards `viewer`
        saw then: the log is what they remember."""
        g = self.game
        old_loc, old_known, old_group = self.loc[:], self.known[:], self.group[:]
        for c, d in r.items():
            self.loc[d] = old_loc[c]
            self.known[d] = old_known[c]
            self.group[d] = old_group[c]
        get = r.get
        if self.partial:  # (what is known of a place's attributes stays with the place)
            self.partial = {get(c, c): m for c, m in self.partial.items()}
        for z in self.zones:  # in place: a value that is a zone's list still is
            z[:] = [get(c, c) for c in z]
        for cells, ones, lists in ((self.vars, g.card_vars, g.cardlist_vars),
                                   (self.counters, g.card_counters, g.cardlist_counters)):
            for k in ones:
                cells[k] = get(cells[k], cells[k])
            for k in lists:
                cells[k] = self._renamed(cells[k], r)
        for k, (mask, options) in self.secrets.items():
            if k in g.card_vars:  # (the options a card was chosen from: cards too)
                self.secrets[k] = (mask, [get(c, c) for c in options])
        for f in self.stack:
            code, env = g.codes[f[0]], f[2]
            for k in code.card_slots:
                env[k] = get(env[k], env[k])
            for k in code.cardlist_slots:
                env[k] = self._renamed(env[k], r)
        if self.pending >= 0:
            dec = g.decisions[self.pending]
            if dec.index == 0:
                self.options = tuple(
                    (a, get(v, v)) if v is not None and g.actions[a].lead is not None
                    and g.actions[a].lead.elem == "card" else
                    (a, [get(c, c) for c in v]) if v is not None and g.actions[a].lead is not None
                    and g.actions[a].lead.elem == "cards" else (a, v)
                    for a, v in self.options
                )
            elif dec.elem == "card":
                self.options = tuple(get(v, v) for v in self.options)
            elif dec.elem == "cards":  # (a set's options: lists of cards)
                self.options = tuple([get(c, c) for c in v] for v in self.options)
        if self.log is not None:
            bit = 1 << viewer
            self.log = [
                ev[:3] + (tuple(c if m & bit else get(c, c)
                                for c, m in zip(ev[3], ev[4] or (0,) * len(ev[3]), strict=True)),) + ev[4:]
                for ev in self.log
            ]
        self._texts = None

    def _renamed(self, cards: list | None, r: dict[int, int]) -> list | None:
        """A list of cards with each card c as r[c]: the zone's own list (renamed in place) if it
        is one of this state's zones, else a new list (another state may share the old one)."""
        if cards is None:
            return None
        for z in self.zones:
            if z is cards:
                return z
        return [r.get(c, c) for c in cards]
