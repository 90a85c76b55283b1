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
finish(Q[5], Mem())
