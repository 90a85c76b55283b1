from lang import *
import sys

sys.setrecursionlimit(10000)
rows, cols = 4, 4
calls, depth, deepest = 0, 0, 0
def ack(m, n):
    global calls, depth, deepest
    calls += 1
    depth += 1
    deepest = max(deepest, depth)
    if m == 0:
        r = n + 1
    elif n == 0:
        r = ack(m - 1, 1)
    else:
        r = ack(m - 1, ack(m, n - 1))
    depth -= 1
    return r
h = 0
for m in range(rows):
    row = 0
    for n in range(cols):
        before = calls
        a = ack(m, n)
        row += a
        h = (h * 1000003 + a * 31 + (calls - before)) & 1152921504606846975
    out(row)
out(calls); out(deepest); out(depth); out(0); out(h)
# The last call leaves its counters in mem[0] and mem[2].
calls, deepest = 0, 0
r = ack(3, 2)
mem = Mem()
mem[0] = calls
mem[2] = deepest
finish(r, mem)
