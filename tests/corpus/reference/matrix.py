from lang import *

n = 8
A = [[rem(i * 7 + j * 3, 11) - 5 for j in range(n)] for i in range(n)]
B = [[rem(i * j + 2 * i - j, 9) - 4 for j in range(n)] for i in range(n)]


def mm(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(n)) for j in range(n)] for i in range(n)]


def T(X):
    return [list(r) for r in zip(*X)]


C = mm(A, B)
out(1)
assert T(C) == mm(T(B), T(A))
out(1)
flat = [v for r in C for v in r]
out(sum(C[i][i] for i in range(n)))
out(sum(flat))
wt = 0
for v in flat:
    wt = add(mul(wt, 31), v)
out(wt)
out(max(abs(v) for v in flat))
p = 1000003
X = [[v % p for v in r] for r in A]
for _ in range(2):
    X = [[sum(X[i][k] * X[k][j] for k in range(n)) % p for j in range(n)] for i in range(n)]
out(X[0][0]); out(X[n - 1][n - 1]); out(sum(X[i][i] for i in range(n)) % p)
m = Mem()
for i, v in enumerate(flat):
    m[512 + i] = v
finish(1, m)
