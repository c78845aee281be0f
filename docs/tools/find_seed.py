"""Find a seed whose game shows what an example in docs/ is there to show.

    python docs/tools/find_seed.py [--input TEXT] [--start N] [--stop M] [--first K] \\
        --expect REGEX [--expect REGEX ...] -- RULESDSL-ARGS-WITH-{seed}

A shown session depends on its seed; when the generator changes (as GENERATOR_VERSION 2 did),
every seed plays another game, and the prose around an example ("bob snaps a wrong card") needs a
seed whose new game tells the same story. The command line is `rulesdsl`'s, with `{seed}` where
the seed goes; TEXT is what is typed (`\\n` ends a line, as in the doc's `printf`). A seed fits when
every REGEX matches the output in order, each after the previous match (`^` and `$` match at line
ends; `\\n` in a REGEX ties lines together). Run it from the repository root.

The searches behind the examples (GENERATOR_VERSION 2; each gives the seed shown first):

  cli.md and tutorial.md, the play screen (seed 19): alice begins, holding two baskets
    --expect '-- turn 1: alice --' --expect '^> alice \\(you\\).*basket×2' --expect 'play basket' \\
    -- play games/examples/fruit_bowl.rules --seed {seed}
  tutorial.md, the end of a game (seed 299): alice, typing 1 four times (the first move as listed),
  empties her hand first
    --input '1\\n1\\n1\\n1\\n' --expect 'alice empties their hand' \\
    --expect 'revealed in bob.hand: .*basket' --expect 'game over: alice wins' \\
    -- play games/examples/fruit_bowl.rules --players 2 --seed {seed} --set target=10
  cli.md, --memory (seed 12): alice draws and skips a power, bob snaps a wrong card, then calls
    --input 'draw\\nplay\\nskip\\npass\\nlog\\n' --expect '-- turn 1: alice --' \\
    --expect 'alice: skip\\n  bob: snap \\d\\n  revealed' \\
    --expect 'alice: pass\\n  -- turn 2: bob --\\n  bob: call' --expect 'alice> log' \\
    -- play games/tamalo.rules --players 2 --seed {seed} --memory
  language.md, the snap window (seed 1306): after carol's turn 2, bob and carol snap wrong cards;
  after alice plays her drawn card, bob snaps right, goes on alone and misses
    --input '5\\n5\\n5\\n' --expect '-- turn 2: carol --' \\
    --expect 'alice> 5\\n  alice: pass\\n  bob: snap \\d\\n  revealed.*\\n'\\
'  carol: snap \\d\\n  revealed.*\\n  -- turn 3: alice --' \\
    --expect 'alice> 5\\n  alice: draw' \\
    --expect 'alice> 5\\n  alice: play\\n  bob: snap \\d\\n  bob: snap \\d\\n  revealed in bob' \\
    -- play games/tamalo.rules --players 3 --seed {seed}
  Tempurra's scenarios (seed 1104, games/tempurra.test.rules): alice begins holding 2, 3 and 7
    --expect '^Your moves:\\n +1\\. begin 2\\n +2\\. begin 3\\n +3\\. begin 7\\nalice>' \\
    -- play games/tempurra.rules --seed {seed}
"""

from __future__ import annotations

import argparse
import io
import re
import sys

from rulesdsl.cli import main as rulesdsl


def fits(output: str, patterns: list[re.Pattern]) -> bool:
    at = 0
    for pattern in patterns:
        m = pattern.search(output, at)
        if m is None:
            return False
        at = m.end()
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", default="", help="what is typed; \\n ends a line")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--stop", type=int, default=5000)
    ap.add_argument("--first", type=int, default=1, help="stop after this many seeds that fit")
    ap.add_argument("--expect", action="append", required=True, metavar="REGEX")
    ap.add_argument("args", nargs="+", help="the rulesdsl command line, with {seed}")
    args = ap.parse_args()
    if not any("{seed}" in a for a in args.args):
        ap.error("the command line needs {seed}")
    patterns = [re.compile(p, re.M) for p in args.expect]
    typed = args.input.replace("\\n", "\n")
    found = 0
    for seed in range(args.start, args.stop):
        out = io.StringIO()
        rulesdsl([a.replace("{seed}", str(seed)) for a in args.args], stdin=io.StringIO(typed), stdout=out, stderr=out)
        if fits(out.getvalue(), patterns):
            print(seed, flush=True)
            found += 1
            if found >= args.first:
                return 0
    print(f"no seed in {args.start}..{args.stop - 1} fits", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
