"""Oh Hell in rulesdsl and in OpenSpiel, side by side (called by bench/openspiel_compare.py).

Why: `games/oh_hell.rules` is written from OpenSpiel's `oh_hell`; under uniformly random play
both must give the same distributions of hand size, bids, tricks and returns. The decisions are
split alike (one bid per player, then one card per player and trick), so the decision counts
are compared as they are. Each engine's own trick winner is read, never recomputed here: the
tricks won with a trump and by the leader test the trick rule (O7) of each.

    python bench/openspiel_compare.py --game oh_hell --games 5000
    python bench/openspiel_compare.py --game oh_hell --players 5 --games 5000 --markdown
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path

from openspiel_compare import Run

import rulesdsl

ROOT = Path(__file__).resolve().parent.parent


def metrics(tricks: int, dealer: int, bids: Sequence[int], won: Sequence[int], returns: Sequence[float],
            decisions: int, trump_wins: int, leader_wins: int) -> dict[str, float]:
    """One game's figures, the same for both engines; seats count from 0 (OpenSpiel's player 0
    is alice)."""
    n = len(bids)
    first = (dealer + 1) % n
    exact = [won[p] == bids[p] for p in range(n)]
    out: dict[str, float] = {
        "decisions": decisions, "tricks (hand size)": tricks, "sum of bids": sum(bids),
        "bids over tricks": sum(bids) - tricks, "first bidder's bid": bids[first],
        "dealer's bid": bids[dealer], "bid of seat 0": bids[0], "exact bids": sum(exact),
        "seat 0 exact": float(exact[0]), "tricks won by seat 0": won[0],
        "tricks won with a trump": trump_wins, "tricks won by the leader": leader_wins,
        "sum of returns": sum(returns)}
    for p in range(n):
        out[f"return of seat {p}"] = returns[p]
    return out


def play_rulesdsl(name: str, games: int, seed: int, players: int | None, start: int = 0) -> Run:
    """Games number start .. start+games-1 of this seed, each from its own engine seed; a move
    is a uniformly random option (`apply_index`), as in openspiel_compare.play_rulesdsl."""
    game = rulesdsl.load(str(ROOT / "games" / f"{name}.rules"), players=players)
    n = game.players
    rng = random.Random(seed * 1_000_003 + start)
    run = Run("rulesdsl")
    for i in range(start, start + games):
        t0 = time.perf_counter()
        st = game.new_game(seed=seed * 1_000_003 + i, log=False)
        moves = trump_wins = leader_wins = 0
        taken = 0
        leader = None
        while not st.is_over:
            if not st.zone("trick") and not st.value("bidding"):
                leader = st.chooser
            st.apply_index(rng.randrange(st.num_moves()))
            moves += 1
            done = sum(st.counter("won", p) for p in range(n))
            if done > taken:                   # a trick was just taken: read the engine's winner
                taken = done
                trump_wins += game.card_text[st.value("winning")].endswith(st.value("trump"))
                leader_wins += st.value("trick_winner") == leader
        run.seconds += time.perf_counter() - t0
        run.decisions += moves
        run.actions += moves
        bids = [st.counter("bid", p) for p in range(n)]
        won = [st.counter("won", p) for p in range(n)]
        returns = [st.counter("score", p) for p in range(n)]
        run.add(metrics(st.value("tricks"), st.value("dealer"), bids, won, returns, moves, trump_wins, leader_wins))
    return run


def play_openspiel(name: str, games: int, seed: int, players: int | None, start: int = 0) -> Run:
    """The same games in OpenSpiel: chance outcomes drawn by their probabilities (the number of
    tricks, the dealer, each card dealt, the trump card), decisions uniformly."""
    import pyspiel

    game = pyspiel.load_game(name, {"players": players} if players else {})
    n = game.num_players()
    ncards = 52
    rng = random.Random(seed * 1_000_003 + start + 500_000)
    run = Run("OpenSpiel")
    for _ in range(games):
        t0 = time.perf_counter()
        st = game.new_initial_state()
        chance: list[int] = []
        bids = [0] * n
        won = [0] * n
        decisions = trump_wins = leader_wins = 0
        trick: list[tuple[int, int]] = []      # (player, card) of the trick being played
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes(), strict=True)
                a = rng.choices(outcomes, probs)[0]
                chance.append(a)
                st.apply_action(a)
                continue
            player = st.current_player()
            legal = st.legal_actions()
            a = legal[rng.randrange(len(legal))]
            decisions += 1
            st.apply_action(a)
            if a >= ncards:                    # a bid: action 52 + bid
                bids[player] = a - ncards
                continue
            trick.append((player, a))
            if len(trick) == n:                # the trick is over: OpenSpiel's own winner
                after = _tricks_won(st, n)
                winner = next(p for p in range(n) if after[p] > won[p])
                won = after
                card = next(c for p, c in trick if p == winner)
                trump_wins += card % 4 == chance[-1] % 4
                leader_wins += winner == trick[0][0]
                trick = []
        run.seconds += time.perf_counter() - t0
        run.decisions += decisions
        run.actions += decisions + len(chance)
        run.add(metrics(chance[0], chance[1], bids, won, st.returns(), decisions, trump_wins, leader_wins))
    return run


def _tricks_won(st, n: int) -> list[int]:
    """Tricks won by each player, from OpenSpiel's state text ("Tricks Won:    0 1 2")."""
    line = next(x for x in str(st).split("\n") if x.startswith("Tricks Won:"))
    return [int(x) for x in line.split(":")[1].split()][:n]
