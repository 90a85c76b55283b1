from lang import *

n, seed = 120, 12345
n = min(max(n, 2), 500)
x = seed
a = []
for i in range(n):
    x = add(mul(x, 6364136223846793005), 1442695040888963407)
    a.append(rem(shr(x, 33), 1000))
total, xr = sum(a), 0
for v in a:
    xr ^= v
# Inversions = moves of the insertion sort, counted independently.
moves = sum(1 for i in range(n) for j in range(i + 1, n) if a[i] > a[j])
moves2 = sum(1 for i in range(n) for j in range(i + 1, n) if a[i] < a[j])
s = sorted(a)
out(moves)
out(moves2)
out(1)
out(s[0]); out(s[n // 2]); out(s[n - 1])
out(len(set(s)))
best, bestv, run = 1, s[0], 1
for i in range(1, n):
    if s[i] == s[i - 1]:
        run += 1
        if run > best:
            best, bestv = run, s[i]
    else:
        run = 1
out(best); out(bestv)
import bisect
found, acc = 0, 0
for q in range(-990, 1000, 37):
    lo = bisect.bisect_left(s, q)
    if lo < n and s[lo] == q:
        found += 1
    acc = add(mul(acc, 31), lo)
out(found); out(acc)
median = s[(n - 1) // 2]
if n % 2 == 0:
    median = div(s[n // 2 - 1] + s[n // 2], 2)
out(median)
m = Mem()
m[4000] = moves; m[4001] = len(set(s)); m[4002] = total
finish(1, m)
