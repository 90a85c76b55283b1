from lang import *
import math

n = 36
hist = [0] * 16
gs = [math.gcd(a, b) for a in range(1, n + 1) for b in range(1, n + 1)]
for g in gs:
    if g < 16:
        hist[g] += 1
cop = gs.count(1)
out(cop); out(cop * 10000 // (n * n)); out(sum(gs)); out(1)
l, k = 1, 1
while l * (k + 1) // math.gcd(l, k + 1) <= MAX:
    l = l * (k + 1) // math.gcd(l, k + 1)
    k += 1
out(k); out(l)
for md in (1000000007, 2147483647):
    out(sum(pow(e, -1, md) for e in range(2, 2000, 37)) % md)
phis = [sum(1 for j in range(1, i + 1) if math.gcd(i, j) == 1) for i in range(1, n + 1)]
assert 2 * sum(phis) - 1 == cop
out(sum(phis)); out(1)
m = Mem()
for g in range(16):
    m[g] = hist[g]
finish(1, m)
