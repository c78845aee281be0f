"""The game's random generator: SplitMix64 on one integer, so a state's chance is plain data.

A seed and a list of moves replay a game exactly, on any Python version, and cloning a state
copies one int instead of a Mersenne Twister's 625 words.
"""

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15

# Which seed gives which game. A transcript (a seed and moves) records it, and one made under
# another version is refused: its seed would replay a different game. Version 1 took the seed
# itself as the stream's start, so seed s + 1 replayed seed s's stream one draw later.
GENERATOR_VERSION = 2


def _fmix64(x: int) -> int:
    """MurmurHash3's finalizer: a bijection of 64-bit words in which every input bit flips each
    output bit with probability about 1/2."""
    x = ((x ^ (x >> 33)) * 0xFF51AFD7ED558CCD) & MASK
    x = ((x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53) & MASK
    return x ^ (x >> 33)


def seed_state(seed: int) -> int:
    """The generator's state for a seed. Seeds are mixed, not used as they are: SplitMix64 steps by
    adding GOLDEN, so states that differ by a multiple of it are one stream at two offsets, and
    close seeds (the 0, 1, 2, ... that simulations play) would give dependent games. Any int is a
    seed: bits past the 64th are folded in, so large seeds give games of their own too."""
    x = _fmix64((seed & MASK) ^ 0x5851F42D4C957F2D)
    rest = seed >> 64
    while rest not in (0, -1):
        x = _fmix64(x ^ (rest & MASK))
        rest >>= 64
    return _fmix64(x ^ (0x2545F4914F6CDD1D if seed < 0 else 0))


def next64(state: int) -> tuple[int, int]:
    """(new state, 64 random bits)."""
    state = (state + GOLDEN) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)
