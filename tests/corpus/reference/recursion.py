from lang import *
import math
import sys

sys.setrecursionlimit(10000)
n = 300
s = 12345
words = []
for _ in range(n):
    s = add(mul(s, 6364136223846793005), 1442695040888963407)
    words.append(shr(s, 40) & 65535)
# Lomuto quicksort, counting partitions, exactly as the program does.
a = list(words)
parts = 0
def quicksort(lo, hi):
    global parts
    if lo >= hi:
        return
    pivot, i = a[hi], lo
    for j in range(lo, hi):
        if a[j] < pivot:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    parts += 1
    quicksort(lo, i - 1)
    quicksort(i + 1, hi)
quicksort(0, n - 1)
assert a == sorted(words)
out(parts); out(1); out(0)
out(a[0]); out(a[n // 2]); out(a[n - 1])
h = 0
for v in a:
    h = (h * 31 + v) & 1073741823
out(h)
def ack(m, k):
    if m == 0:
        return k + 1
    if k == 0:
        return ack(m - 1, 1)
    return ack(m - 1, ack(m, k - 1))
out(ack(2, 3)); out(ack(3, 3))
fibs = [0, 1]
while len(fibs) <= 20:
    fibs.append(fibs[-1] + fibs[-2])
out(fibs[20]); out(0)
out(sum(1 for k in range(30) if k % 2 == 0))
out(math.gcd(1071, 462)); out(math.gcd(832040, 514229))
out(pow(3, 200, 1000000007)); out(pow(3, 1000000006, 1000000007))
out(sum(int(c) for c in "9876543210"))
finish(parts, Mem())
