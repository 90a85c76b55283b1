from lang import *
import bisect

n, seed = 300, 777
s = seed
words = []
for _ in range(n):
    s = add(mul(s, 6364136223846793005), 1442695040888963407)
    words.append(shr(s, 44) & 1023)
merges = 0
taken_left = 0
taken_right = 0
def sort(a, lo, hi):
    """Top-down merge sort of a[lo:hi], counting merges and which side each
    merged word came from (ties from the left)."""
    global merges, taken_left, taken_right
    if hi - lo < 2:
        return
    mid = lo + (hi - lo) // 2
    sort(a, lo, mid)
    sort(a, mid, hi)
    left, right = a[lo:mid], a[mid:hi]
    i = j = 0
    for k in range(lo, hi):
        if i < len(left) and (j >= len(right) or left[i] <= right[j]):
            a[k] = left[i]
            i += 1
            taken_left += 1
        else:
            a[k] = right[j]
            j += 1
            taken_right += 1
    merges += 1
a = list(words)
sort(a, 0, n)
assert a == sorted(words)
out(merges); out(1); out(0)
out(a[0]); out(a[n // 2]); out(a[n - 1])
out(taken_left); out(taken_right)
found = sum(1 for key in range(0, 1024, 16) if key in a)
out(found)
out(bisect.bisect_left(a, 512))
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
