"""How a game writes its moves for a seat: the texts of the options, of a card named by its face,
its place or what the seat was told of it, and a zone in the table's words.

A mixin of `Game` (engine/game.py), kept apart because it is the part of a game that changes with
how things read, not with how they run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constants import GRID, HAND

if TYPE_CHECKING:
    from .move import Decision
    from .state import State


class MoveTexts:
    """Move texts, read from the compiled game's tables (`Game` provides them)."""

    def option_texts(self, st: State) -> list[str]:
        if st.pending < 0:
            return []
        dec = self.decisions[st.pending]
        p = st.chooser
        texts = []
        if dec.index == 0:
            for ai, v in st.options:
                a = self.actions[ai]
                if a.lead is None:
                    texts.append(a.name)
                else:
                    option = self.value_text(st, p, a.lead.elem, v)
                    lead = a.lead_label if a.lead_label_fn is None else a.lead_label_fn(st)
                    texts.append(f"{lead} {option}" if lead else option)
        else:
            texts = self._choice_texts(st, dec, st.stack[-1][2], p, st.options)
        return self._disambiguate(st, texts, dec)

    def _choice_texts(self, st: State, dec: Decision, env: list, seat: int, values) -> list[str]:
        """A `choose`'s move texts for `values` as `seat` reads them: "LABEL OPTION", or its pass
        text for none; a label with values is filled in from `env`, the frame that asks."""
        label = dec.label if dec.label_fn is None else dec.label_fn(st, env)
        pass_label = dec.pass_label if dec.pass_fn is None else dec.pass_fn(st, env)
        texts = []
        for v in values:
            if v is None or (v == [] and dec.sets is not None):  # (a set's pass is [])
                texts.append(pass_label)
            else:
                t = self.value_text(st, seat, dec.elem, v)
                texts.append(f"{label} {t}" if label else t)
        return texts

    def log_answer(self, st: State, d: int, seat: int, value, env: list) -> None:
        """A race's answer, revealed: logged to everyone as the seat's move, as its chooser read it."""
        dec = self.decisions[d]
        [text] = self._choice_texts(st, dec, env, seat, (value,))
        st.record_move(seat, text, value if dec.elem in ("card", "cards") else None)

    def _disambiguate(self, st: State, texts: list[str], dec: Decision) -> list[str]:
        if len(set(texts)) == len(texts):
            return texts
        out = list(texts)
        for i, t in enumerate(texts):
            if texts.count(t) > 1:
                card = self.option_card(dec, st.options[i])
                if card is not None and not isinstance(card, list):
                    zi = st.loc[card]
                    pos = len(st.zones[zi]) - st.zones[zi].index(card)
                    out[i] = f"{t} from {self.zone_names[zi]}" + (f" #{pos}" if pos > 1 else "")
        for i, t in enumerate(out):
            if out.count(t) > 1:
                out[i] = f"{t} ({i + 1})"
        return out

    def option_card(self, dec: Decision, value) -> int | list[int] | None:
        """The card an option plays (a list of them for a set), for the log to show per seat."""
        if dec.index == 0:
            a = self.actions[value[0]]
            return value[1] if a.lead is not None and a.lead.elem in ("card", "cards") else None
        return value if dec.elem in ("card", "cards") and value != [] else None

    def value_text(self, st: State, viewer: int, elem: str, v) -> str:
        if v is None:
            return "none"
        if elem == "card":
            return self.card_option_text(st, viewer, v)
        if elem == "cards":  # (in the options' order: engine/sets.py)
            return " ".join(self.card_option_text(st, viewer, c) for c in v)
        if elem == "player":
            return self.names[v]
        if elem == "bool":
            return "yes" if v else "no"
        return str(v)

    def partial_text(self, st: State, c: int, viewer: int) -> str | None:
        """Card c's face as far as `viewer` knows it from partial knowledge (`?r`, `gem ? r`), or
        None if it knows none of its attributes."""
        masks = st.partial.get(c)
        if masks is None:
            return None
        known = {a for a, m in zip(self.partial_attrs, masks, strict=True) if m >> viewer & 1}
        if not known:
            return None
        words = self.attr_words
        return "".join(words[x][c] if x in known else "?" if attr else x
                       for x, attr in self.kind_text[self.card_kind[c]])

    def card_option_text(self, st: State, viewer: int, c: int) -> str:
        zi = st.loc[c]
        if self.zone_shape[zi] == GRID:
            place, owner = st.zones[zi].index(c) + 1, self.zone_owner[zi]
            text = str(place) if owner == viewer else \
                f"{self.names[owner] if owner >= 0 else self.zone_names[zi]} {place}"
        elif st.known[c] >> viewer & 1:
            return self.card_text[c]
        else:
            lst = st.zones[zi]
            text = f"{self.zone_names[zi]} #{len(lst) - lst.index(c)}"
        note = self.known_note(st, c, viewer)
        return f"{text} {note}" if note else text

    def known_note(self, st: State, c: int, viewer: int) -> str:
        """The end of a move naming card c by place: what `viewer` was shown of it, `(?r)`, or ""."""
        if not st.partial or st.known[c] >> viewer & 1:
            return ""
        known = self.partial_text(st, c, viewer)
        return f"({known})" if known else ""

    def label_card_text(self, st: State, c: int) -> str:
        """A card's value in a `choose` label: its face if every seat knows it, else where it lies,
        since the log shows the chosen move's text to every seat."""
        if st.known[c] == self.all_mask:
            return self.card_text[c]
        return self.place_text(st, c)

    def place_text(self, st: State, c: int) -> str:
        """Where a card is, in words anyone may read: `bob.row 2`, `top of discard`."""
        zi = st.loc[c]
        lst = st.zones[zi]
        if self.zone_shape[zi] == GRID:
            return f"{self.zone_names[zi]} {lst.index(c) + 1}"
        if self.zone_shape[zi] == HAND:
            return self.zone_names[zi]
        depth = len(lst) - lst.index(c)
        return f"top of {self.zone_names[zi]}" if depth == 1 else f"{self.zone_names[zi]} #{depth} from the top"

    def zone_words(self, zi: int) -> str:
        """A zone as the table calls it (its display name): `the draw pile`, `alice's square`."""
        name = self.zone_spec_names[self.zone_spec[zi]]
        shown = self.display_names.get(name, name)
        owner = self.zone_owner[zi]
        return f"the {shown}" if owner < 0 else f"{self.names[owner]}'s {shown}"
