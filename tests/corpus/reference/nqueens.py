from lang import *
import itertools

largest = 8
calls = 0
def solve(n, row, cols, d1, d2, placed, first):
    global calls
    calls += 1
    if row == n:
        if not first:
            first.extend(placed)
        return 1
    count = 0
    for col in range(n):
        d = row - col + n - 1
        if not (cols >> col) & 1 and not (d1 >> (row + col)) & 1 and not (d2 >> d) & 1:
            placed.append(col)
            count += solve(n, row + 1, cols | 1 << col, d1 | 1 << (row + col), d2 | 1 << d, placed, first)
            placed.pop()
    return count
def brute(n):
    """An independent count: permutations with no two queens on a diagonal."""
    return sum(1 for p in itertools.permutations(range(n))
               if len({r + c for r, c in enumerate(p)}) == n and len({r - c for r, c in enumerate(p)}) == n)
total = 0
for n in range(1, largest + 1):
    first = []
    c = solve(n, 0, 0, 0, 0, [], first)
    assert c == brute(n)
    out(c)
    total += c
out(calls)
out(int("".join(str(c + 1) for c in first)))
finish(total, Mem())
