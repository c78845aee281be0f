"""Dou Dizhu in rulesdsl and in OpenSpiel, random play side by side.

Why: `games/dou_dizhu.rules` is written from OpenSpiel's `dou_dizhu` source; if both engines play
the same game, uniformly random play gives the same distributions of everything below, within
sampling error. Run through `bench/openspiel_compare.py --game dou_dizhu`, which owns the tests and
the report; this module only plays the games and measures them.

How the decisions are split: the same in both, a bid (or pass) a decision, a play (or pass) a
decision, a play being one set of cards. OpenSpiel's actions are rank multisets too, with two
differences that random play can feel (docs/games.md, Dou Dizhu): a plane with singles whose
trios can start at two ranks (333444555666777+8) is two actions there and one option here (read
at its higher start, D9), and that is all. So the option counts are compared on OpenSpiel's
distinct (kind, cards) pairs, and its raw action counts are printed beside them.
"""

from __future__ import annotations

import bisect
import random
import time
from collections import Counter
from pathlib import Path

from openspiel_compare import Metrics, Run

import rulesdsl

ROOT = Path(__file__).resolve().parent.parent

# OpenSpiel's action ids (dou_dizhu_utils.h): 0 is a pass, 1-3 the bids, then the plays, a block
# of ids for each kind, from these first ids on.
_FIRST = (4, 19, 55, 68, 120, 133, 315, 471, 516, 23104, 26043, 26056)
_KIND = ("single", "chain", "pair", "pairs", "trio", "trio+single", "trio+pair", "plane", "plane+singles",
         "plane+pairs", "bomb", "rocket")
KINDS = ("single", "pair", "trio", "trio+single", "trio+pair", "chain", "pairs", "plane", "plane+singles",
         "plane+pairs", "bomb", "rocket")


def kind_of(action: int) -> str:
    """The kind of an OpenSpiel play action (not a pass or a bid)."""
    return _KIND[bisect.bisect_right(_FIRST, action) - 1]


def cards_of(text: str) -> tuple[str, ...]:
    """An OpenSpiel play's ranks, sorted: its text is the ranks ("334", "T" for ten, "(BWJ)" and
    "(CJ)" for the jokers), a plane's trios first and a '-' before its attachments."""
    text = text.replace("-", "").replace("(BWJ)", "b").replace("(CJ)", "r")
    return tuple(sorted(text))


def metrics(plays: Counter, bids: int, passes: int, landlord: int | None, first: int, win: int | None,
            returns: list[float], cards_left: int, first_lead: int, by_seat: Counter, bid: int) -> Metrics:
    """One game's numbers, the same in both engines. `plays` counts plays by kind; `by_seat` plays
    by seat (for the spring); `win` is the seat that went out."""
    played = sum(plays.values())
    m: Metrics = {"decisions": bids + played + passes, "bid decisions": bids, "no landlord": float(landlord is None),
                  "return of seat 0": returns[0], "return of seat 1": returns[1], "return of seat 2": returns[2]}
    if landlord is None:
        return m
    farmers = [p for p in range(3) if p != landlord]
    spring = by_seat[landlord] == 1 or not any(by_seat[p] for p in farmers)
    m |= {"winning bid": bid, "landlord after the first bidder": (landlord - first) % 3,
          "landlord wins": float(win == landlord), "return of the landlord": returns[landlord],
          "play decisions": played + passes, "plays": played, "passes": passes,
          "bombs and rockets": plays["bomb"] + plays["rocket"], "spring": float(spring),
          "cards left in hands": cards_left, "options at the first lead": first_lead}
    m |= {f"{k} plays": plays[k] for k in KINDS}
    return m


# ---------------------------------------------------------------- OpenSpiel

def _dealt(st, rng: random.Random) -> int:
    outcomes, probs = zip(*st.chance_outcomes(), strict=True)
    return rng.choices(outcomes, probs)[0]


def play_openspiel(games: int, seed: int, start: int = 0) -> Run:
    import pyspiel

    rng = random.Random(seed * 1_000_003 + start + 500_000)
    game = pyspiel.load_game("dou_dizhu")
    run = Run("OpenSpiel")
    for _ in range(games):
        plays: Counter = Counter()
        by_seat: Counter = Counter()
        bids = passes = chance = 0
        first = landlord = win = None
        auction = True
        bid = in_row = 0
        held = [17, 17, 17]
        first_lead = -1
        t0 = time.perf_counter()
        st = game.new_initial_state()
        while not st.is_terminal():
            if st.is_chance_node():           # the deal: one card a chance move
                chance += 1
                st.apply_action(_dealt(st, rng))
                continue
            player = st.current_player()
            legal = st.legal_actions()
            a = legal[rng.randrange(len(legal))]
            if auction:                         # D3: the auction, followed here to know it ended
                first = player if first is None else first
                bids += 1
                in_row = in_row + 1 if a == 0 else 0
                if a:
                    bid, landlord = a, player
                auction = not (a == 3 or (in_row == 2 and bid) or in_row == 3)
                if not auction and landlord is not None:
                    held[landlord] += 3
            elif a == 0:
                passes += 1
            else:
                if first_lead < 0:
                    keys = {(kind_of(x), cards_of(st.action_to_string(player, x))) for x in legal}
                    first_lead = len(keys)
                plays[kind_of(a)] += 1
                by_seat[player] += 1
                held[player] -= len(cards_of(st.action_to_string(player, a)))
                if not held[player]:
                    win = player
            st.apply_action(a)
        run.seconds += time.perf_counter() - t0
        decisions = bids + sum(plays.values()) + passes
        run.decisions += decisions
        run.actions += decisions + chance
        left = sum(held) if landlord is not None else 51
        run.add(metrics(plays, bids, passes, landlord, first, win, list(st.returns()), left, first_lead, by_seat, bid))
    return run


# ---------------------------------------------------------------- rulesdsl

def play_rulesdsl(games: int, seed: int, start: int = 0) -> Run:
    game = rulesdsl.load(str(ROOT / "games" / "dou_dizhu.rules"))
    rng = random.Random(seed * 1_000_003 + start)
    run = Run("rulesdsl")
    for i in range(start, start + games):
        plays: Counter = Counter()
        by_seat: Counter = Counter()
        bids = passes = 0
        first = None
        first_lead = -1
        t0 = time.perf_counter()
        st = game.new_game(seed=seed * 1_000_003 + i, log=False)
        while not st.is_over:
            texts = st.move_texts()
            k = rng.randrange(len(texts))
            word = texts[k].split(" ", 1)[0]
            player = st.current_player
            if st.turn == 0:                    # the bidding is asked in `setup`
                first = player if first is None else first
                bids += 1
            elif word == "pass":
                passes += 1
            else:
                if first_lead < 0:
                    first_lead = len(texts)
                plays[word] += 1
                by_seat[player] += 1
            st.apply_index(k)
        run.seconds += time.perf_counter() - t0
        lord = st.value("landlord")             # a seat, or None
        returns = [float(st.counter("points", p)) for p in range(3)]
        left = sum(len(st.zone("hand", p)) for p in range(3)) if lord is not None else 51
        win = next((p for p in range(3) if not st.zone("hand", p)), None)
        decisions = bids + sum(plays.values()) + passes
        run.decisions += decisions
        run.actions += decisions
        run.add(metrics(plays, bids, passes, lord, first, win, returns, left, first_lead, by_seat,
                        st.value("bid")))
    return run
