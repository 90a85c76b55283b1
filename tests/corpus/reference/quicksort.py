from lang import *

n, seed = 400, 88172645463325252
n = min(n, 1000)
x = seed
a = []
for i in range(n):
    x ^= shl(x, 13)
    x ^= shr(x, 7) & 144115188075855871  # a logical shift by 7
    x ^= shl(x, 17)
    a.append(rem(x, 100000))
orig = list(a)
cmps = swaps = maxdepth = 0
stack = [(0, n - 1)]
while stack:
    lo, hi = stack.pop()
    if hi - lo < 8:
        for i in range(lo + 1, hi + 1):
            key = a[i]
            j = i - 1
            while j >= lo:
                cmps += 1
                if a[j] <= key:
                    break
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = key
        continue
    mid = lo + (hi - lo) // 2
    cmps += 3
    for (u, v) in ((mid, lo), (hi, lo), (hi, mid)):
        if a[u] < a[v]:
            a[u], a[v] = a[v], a[u]
            swaps += 1
    pivot = a[mid]
    p, q = lo - 1, hi + 1
    while True:
        p += 1
        cmps += 1
        while a[p] < pivot:
            p += 1
            cmps += 1
        q -= 1
        cmps += 1
        while a[q] > pivot:
            q -= 1
            cmps += 1
        if p >= q:
            break
        a[p], a[q] = a[q], a[p]
        swaps += 1
    if q - lo > hi - q - 1:
        stack += [(lo, q), (q + 1, hi)]
    else:
        stack += [(q + 1, hi), (lo, q)]
    maxdepth = max(maxdepth, len(stack))
assert a == sorted(orig)
out(cmps); out(swaps); out(maxdepth)
check = 0
for i in range(n):
    check = add(mul(check, 1000003), mul(a[i], i + 1))
out(1); out(a[0]); out(a[n - 1]); out(check)
finish(1, Mem())
