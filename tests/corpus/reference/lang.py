"""The semantics of ssaref's source language, for the corpus references.

Every value is a signed 64-bit integer: `+ - *`, unary `-` and `<<` wrap;
`/` and `%` truncate toward zero and trap on a zero divisor and on
MIN / -1; shift counts are taken modulo 64 and `>>` is arithmetic; `mem`
is 4096 words indexed by `i & 4095`. Python's own `& | ^ ~ >>` on ints
already agree with two's complement on 64-bit values, so only the
operators that can leave the range go through a helper.

A reference builds its outcome with `out`, ends with `finish(ret)` or
`finish_trap()`, and prints the expect block in the header's format:
the trace, `return V` or `trap divide-error`, then `mem[I] = V` for
every non-zero word in increasing index order.
"""

import sys

MIN = -(2**63)
MAX = 2**63 - 1


def w(x):
    """Wraps an unbounded integer to signed 64 bits."""
    return ((x + 2**63) % 2**64) - 2**63


def add(a, b):
    return w(a + b)


def sub(a, b):
    return w(a - b)


def mul(a, b):
    return w(a * b)


def neg(a):
    return w(-a)


def shl(a, n):
    return w(a << (n & 63))


def shr(a, n):
    return a >> (n & 63)


def lshr(a, n):
    """A logical shift right written the way the programs write it:
    `(a >> n) & ((1 << (64 - n)) - 1)` for 0 < n < 64."""
    n &= 63
    return (a % 2**64) >> n if n else a


class Trap(Exception):
    pass


def div(a, b):
    if b == 0 or (a == MIN and b == -1):
        raise Trap()
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rem(a, b):
    if b == 0 or (a == MIN and b == -1):
        raise Trap()
    return a - b * div(a, b)


def check(x):
    assert MIN <= x <= MAX, x
    return x


class Mem:
    def __init__(self):
        self.words = [0] * 4096

    def __getitem__(self, i):
        return self.words[i & 4095]

    def __setitem__(self, i, v):
        self.words[i & 4095] = check(v)


trace = []


def out(v):
    trace.append(check(v))


def _print(end_line, mem):
    lines = [str(v) for v in trace]
    lines.append(end_line)
    if mem is not None:
        for i, v in enumerate(mem.words):
            if v != 0:
                lines.append("mem[%d] = %d" % (i, v))
    sys.stdout.write("".join(l + "\n" for l in lines))


def finish(ret, mem=None):
    _print("return %d" % check(ret), mem)


def finish_trap(mem=None):
    _print("trap divide-error", mem)
