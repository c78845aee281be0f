"""Random play of Hanabi in rulesdsl (`games/hanabi.rules`) and in OpenSpiel's `hanabi`, as `Run`s
for bench/openspiel_compare.py (`--game hanabi`).

Both engines offer the same options at two players (the defaults): each card of one's hand to play,
each to discard (while an information token is missing), and each colour and each rank the other
player holds to hint, one decision each. With more players OpenSpiel's hint is one action (a colour
or rank and a target); here the colour or rank is the turn's move and the target a second question,
so moves are counted by the turn's move and "decisions" only where the two splits agree (two
players). OpenSpiel's deals are explicit chance moves; here a draw is part of the move.

Uniform random play burns the three fuses in about 13 moves, long before the deck runs out, so each
deal is also played by a "cautious" random policy, the same in both engines since it reads only a
move's kind: a play with probability 0.03 (a uniform one among the plays), else a uniform hint or
discard. Its games reach the end of the deck, the last round and completed fireworks.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from openspiel_compare import Metrics, Run

import rulesdsl

ROOT = Path(__file__).resolve().parent.parent
CAUTION = 0.03  # the cautious policy's chance of playing a card when it may do something else


def pick(kinds: list[str], rng: random.Random, cautious: bool) -> int:
    """An option's index: uniform, or the cautious policy's (see the module's doc)."""
    if not cautious:
        return rng.randrange(len(kinds))
    plays = [i for i, k in enumerate(kinds) if k == "play"]
    rest = [i for i, k in enumerate(kinds) if k != "play"]
    chosen = plays if plays and (not rest or rng.random() < CAUTION) else rest
    return chosen[rng.randrange(len(chosen))]


def metrics(counts: Counter, lives: int, fireworks: int, information: int, score: float, prefix: str) -> Metrics:
    out = {"hints": counts["hint"], "plays": counts["play"], "discards": counts["discard"],
           "lives lost": 3 - lives, "fireworks cards": fireworks, "information at the end": information,
           "score (return)": score, "deck ran out": float(counts["deck out"])}
    if "decisions" in counts:
        out = {"decisions": counts["decisions"]} | out
    return {prefix + k: v for k, v in out.items()}


def _rulesdsl_game(game: rulesdsl.Game, seed: int, rng: random.Random, cautious: bool, prefix: str) -> Metrics:
    kind = [a.name.split("_")[-1] for a in game.actions]  # color_hint -> hint, play, discard
    st = game.new_game(seed=seed, log=False)
    counts: Counter = Counter()
    while not st.is_over:
        turn = st.pending == 0  # the turn's move (with more than two players, a hint's target comes after)
        kinds = [kind[a] for a, _ in st.options] if turn else ["to"] * st.num_moves()
        k = pick(kinds, rng, cautious)
        counts[kinds[k]] += 1
        counts["moves"] += 1
        st.apply_index(k)
    if game.players == 2:
        counts["decisions"] = counts["moves"]
    counts["deck out"] = not st.zone("deck")
    lives, played = st.counter("lives"), len(st.zone("fireworks"))
    return metrics(counts, lives, played, st.counter("information"), 0 if lives == 0 else played, prefix)


def _openspiel_game(game, hand: int, rng: random.Random, cautious: bool, prefix: str,
                    trace: tuple[list, list] | None = None) -> tuple[Metrics, int]:
    """One game; with `trace`, the faces dealt and the actions chosen are appended to its lists."""
    counts: Counter = Counter()
    chance = 0
    dealt, actions = trace if trace is not None else ([], [])
    st = game.new_initial_state()
    while not st.is_terminal():
        if st.is_chance_node():
            outcomes, probs = zip(*st.chance_outcomes(), strict=True)
            a = rng.choices(outcomes, probs)[0]
            dealt.append(st.action_to_string(a).strip("()").split()[1])  # "(Deal R1)" -> "R1"
            chance += 1
        else:
            legal = st.legal_actions()  # HLE's uids: h discards, h plays, then the hints (h: hand size)
            kinds = ["discard" if x < hand else "play" if x < 2 * hand else "hint" for x in legal]
            a = legal[pick(kinds, rng, cautious)]
            counts[kinds[legal.index(a)]] += 1
            counts["decisions"] += 1
            actions.append(a)
        st.apply_action(a)
    text = str(st).split("\n")
    lives = int(text[0].split(":")[1])
    information = int(text[1].split(":")[1])
    fireworks = sum(int(f[1:]) for f in text[2].split(":")[1].split())
    counts["deck out"] = "Deck size: 0" in text
    if game.num_players() != 2:
        del counts["decisions"]
    return metrics(counts, lives, fireworks, information, st.returns()[0], prefix), chance


def _both(one: Callable[[bool, str], tuple[Metrics, int, int]], run: Run) -> None:
    """One deal played uniformly and cautiously: both games' metrics, time and moves into run."""
    t0 = time.perf_counter()
    plain, decisions, actions = one(False, "")
    careful, more, chance = one(True, "cautious: ")
    run.seconds += time.perf_counter() - t0
    run.decisions += decisions + more
    run.actions += actions + chance
    run.add(plain | careful)


def play_rulesdsl(games: int, seed: int, players: int | None, start: int = 0) -> Run:
    """Games number start .. start+games-1 of this seed, each from its own engine seed."""
    game = rulesdsl.load(str(ROOT / "games" / "hanabi.rules"), players=players)
    rng = random.Random(seed * 1_000_003 + start)
    run = Run("rulesdsl")
    for i in range(start, start + games):
        def one(cautious: bool, prefix: str, i: int = i) -> tuple[Metrics, int, int]:
            m = _rulesdsl_game(game, seed * 1_000_003 + i, rng, cautious, prefix)
            moves = int(m[prefix + "hints"] + m[prefix + "plays"] + m[prefix + "discards"])
            return m, moves, moves
        _both(one, run)
    return run


def play_openspiel(games: int, seed: int, players: int | None, start: int = 0) -> Run:
    """OpenSpiel's `hanabi` at its defaults (or `players`)."""
    import pyspiel

    game = pyspiel.load_game("hanabi", {"players": players} if players else {})
    hand = 5 if game.num_players() < 4 else 4
    rng = random.Random(seed * 1_000_003 + start + 500_000)
    run = Run("OpenSpiel")
    for _ in range(games):
        def one(cautious: bool, prefix: str) -> tuple[Metrics, int, int]:
            m, chance = _openspiel_game(game, hand, rng, cautious, prefix)
            moves = int(m[prefix + "hints"] + m[prefix + "plays"] + m[prefix + "discards"])
            return m, moves, moves + chance
        _both(one, run)
    return run


# ---------------------------------------------------------------- lockstep: the same deal, the same moves

def _hle_move_text(a: int, hand: list[str], hand_size: int, colors: str = "RYGWB") -> str:
    """rulesdsl's move (typed without its note) for HLE's action uid a, at two players: the card at
    HLE's index i is the (i+1)-th oldest of the hand, `#k` counting from the newest."""
    if a < 2 * hand_size:
        i = a % hand_size
        return f"{'discard' if a < hand_size else 'play'} {hand[0]} #{int(hand[1]) - i}"
    a -= 2 * hand_size
    return f"hint {colors[a]}" if a < len(colors) else f"hint {a - len(colors) + 1}"


def lockstep(seed: int, cautious: bool = False) -> list[str]:
    """One game of OpenSpiel's `hanabi` (two players, random moves), then the same deal and moves in
    rulesdsl: at every turn both engines must offer the same moves, and end the same way. Returns
    the differences found (none when the rules agree)."""
    import pyspiel

    game = pyspiel.load_game("hanabi")
    dealt: list[str] = []
    actions: list[int] = []
    _openspiel_game(game, 5, random.Random(seed), cautious, "", (dealt, actions))
    ours = rulesdsl.load(str(ROOT / "games" / "hanabi.rules"), players=2).new_game(seed)
    rest = dealt[10:] + list((Counter(_all_faces()) - Counter(dealt)).elements())
    ours.set_cards("hand", dealt[:5], player=0)
    ours.set_cards("hand", dealt[5:10], player=1)
    ours.set_cards("deck", rest[::-1])  # the next card dealt on top
    replay = game.new_initial_state()
    for f in dealt[:10]:
        replay.apply_action(_deal_uid(f))
    problems: list[str] = []
    k = 10
    for n, a in enumerate(actions):
        seat = ours.current_player
        hand = (f"{'alice' if seat == 0 else 'bob'}.hand", str(len(ours.zone("hand", seat))))
        theirs = sorted(_hle_move_text(x, hand, 5) for x in replay.legal_actions())
        mine = sorted(_STRIP.sub("", t) for t in ours.move_texts())
        if theirs != mine:
            problems.append(f"seed {seed}, move {n}: OpenSpiel offers {theirs}, rulesdsl {mine}")
            break
        ours.apply(_hle_move_text(a, hand, 5))
        replay.apply_action(a)
        while replay.is_chance_node():
            replay.apply_action(_deal_uid(dealt[k]))
            k += 1
    text = str(replay).split("\n")
    end = (replay.is_terminal(), replay.returns()[0] if replay.is_terminal() else None,
           int(text[0].split(":")[1]), int(text[1].split(":")[1]),
           int(next(x for x in text if x.startswith("Deck size:")).split(":")[1]))
    mine_end = (ours.is_over, ours.value("score") if ours.is_over else None, ours.counter("lives"),
                ours.counter("information"), len(ours.zone("deck")))
    if not problems and end != mine_end:
        problems.append(f"seed {seed}: OpenSpiel ends as {end}, rulesdsl as {mine_end} "
                        "(over, score, lives, information, deck)")
    return problems


_STRIP = re.compile(r" \([^()]*\)$")  # a move's note of what its chooser knows of the card


def _all_faces() -> list[str]:
    return [f"{c}{r}" for c in "RYGWB" for r, k in zip(range(1, 6), (3, 2, 2, 2, 1), strict=True) for _ in range(k)]


def _deal_uid(face: str) -> int:
    return "RYGWB".index(face[0]) * 5 + int(face[1]) - 1
