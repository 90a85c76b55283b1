from lang import *
import heapq

n = min(300, 1000)
a = [rem(shr(mul(i + 1, 2654435761), 7), 65536) for i in range(n)]
orig = list(a)
cmps = swaps = 0


def sift(root, end):
    global cmps, swaps
    while 2 * root + 1 < end:
        child = 2 * root + 1
        top = root
        cmps += 1
        if a[top] < a[child]:
            top = child
        if child + 1 < end:
            cmps += 1
            if a[top] < a[child + 1]:
                top = child + 1
        if top == root:
            return
        a[root], a[top] = a[top], a[root]
        swaps += 1
        root = top


for start in range(n // 2 - 1, -1, -1):
    sift(start, n)
out(cmps)
for end in range(n - 1, 0, -1):
    a[0], a[end] = a[end], a[0]
    swaps += 1
    sift(0, end)
out(cmps); out(swaps)
assert a == sorted(orig)
out(1)
h = 0
for v in a:
    h = mul(h ^ v, 1099511628211)
out(h)
s, stream = 7, []
for i in range(500):
    s = rem(add(mul(s, 1103515245), 12345), 2147483648)
    stream.append(div(s, 65536))
# The 10 largest (with multiplicity), in increasing order: heapq is independent of the
# program's heap code.
for v in sorted(heapq.nlargest(10, stream)):
    out(v)
finish(1, Mem())
