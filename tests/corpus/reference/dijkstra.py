from lang import *
import heapq

n, seed = 20, 99
INF = 10**15
x, W, edges = seed, [[0] * n for _ in range(n)], 0
for i in range(n):
    for j in range(n):
        x ^= shl(x, 13)
        x ^= shr(x, 7) & 144115188075855871
        x ^= shl(x, 17)
        r = shr(x, 1) & 1023
        if i != j and r % 3 == 0:
            W[i][j] = 1 + r % 99
            edges += 1
out(edges)
# The array form, to get the same round count, relaxation count and parents (ties: the
# lowest index is chosen, a relaxation needs a strict improvement).
dist, par, done = [INF] * n, [-1] * n, [False] * n
dist[0], rounds, relax = 0, 0, 0
while rounds < n:
    cands = [i for i in range(n) if not done[i] and dist[i] < INF]
    if not cands:
        break
    u = min(cands, key=lambda i: (dist[i], i))
    done[u] = True
    for v in range(n):
        if W[u][v] and not done[v] and dist[u] + W[u][v] < dist[v]:
            dist[v], par[v] = dist[u] + W[u][v], u
            relax += 1
    rounds += 1
# Distances independently with a binary heap.
hd = [INF] * n
hd[0], pq = 0, [(0, 0)]
while pq:
    d, u = heapq.heappop(pq)
    if d > hd[u]:
        continue
    for v in range(n):
        if W[u][v] and d + W[u][v] < hd[v]:
            hd[v] = d + W[u][v]
            heapq.heappush(pq, (hd[v], v))
assert hd == dist
out(rounds); out(relax)
reach = [i for i in range(n) if dist[i] < INF]
out(sum(dist[i] for i in reach))
far = 0
for i in reach:
    if dist[i] > dist[far]:
        far = i
out(far); out(dist[far])
path, at = [], far
while at >= 0:
    path.append(at)
    at = par[at]
out(len(path))
for v in reversed(path):
    out(v)
D = [[0 if i == j else (W[i][j] or INF) for j in range(n)] for i in range(n)]
for k in range(n):
    for i in range(n):
        for j in range(n):
            D[i][j] = min(D[i][j], D[i][k] + D[k][j])
assert D[0] == dist
out(1)
fin = [d for r in D for d in r if d < INF]
out(max(fin)); out(n * n - len(fin))
bf, passes, changed = [INF] * n, 0, True
bf[0] = 0
while changed:
    changed = False
    passes += 1
    for i in range(n):
        if bf[i] < INF:
            for j in range(n):
                if W[i][j] and bf[i] + W[i][j] < bf[j]:
                    bf[j] = bf[i] + W[i][j]
                    changed = True
out(passes)
out(1)
finish(1, Mem())
