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
finish(found, Mem())
