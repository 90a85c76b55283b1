from lang import *

# Python's own big integers, independent of the program's limb arithmetic.
fibn, factn = 300, 40
B = 10**9


def limbs(x):
    ls = []
    while True:
        ls.append(x % B)
        x //= B
        if x == 0:
            return ls


def show(x):
    ls = limbs(x)
    out(len(ls))
    for v in reversed(ls):
        out(v)


a, b = 0, 1
for _ in range(1, fibn):
    a, b = b, a + b
F = b
import math
G = math.factorial(factn)
show(F); show(G); show(F * G)
for x in (F, G, F * G):
    out(sum(int(c) for c in str(x)))
out((F > G) - (F < G))
show(abs(F - G))
finish(len(limbs(F * G)), Mem())
