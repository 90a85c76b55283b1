from lang import *
import sys

sys.setrecursionlimit(10000)
limit = 20
calls = 0
def female(n):
    global calls
    calls += 1
    return 1 if n == 0 else n - male(female(n - 1))
def male(n):
    global calls
    calls += 1
    return 0 if n == 0 else n - female(male(n - 1))
differ, h = 0, 0
for n in range(limit + 1):
    f, m = female(n), male(n)
    differ += f != m
    h = (h * 131 + f * 7 + m) & 1073741823
out(female(limit)); out(male(limit)); out(differ); out(h)
out(calls)
Q = {1: 1, 2: 1}
for n in range(3, 601):
    Q[n] = Q[n - Q[n - 1]] + Q[n - Q[n - 2]]
out(Q[100]); out(Q[600])
out(sum(Q[k] for k in range(1, 601)))
out(sum(1 for k in range(2, 601) if Q[k] < Q[k - 1]))
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
