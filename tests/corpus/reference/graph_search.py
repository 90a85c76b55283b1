from lang import *
from collections import deque

n, salt = 40, 7
adj = [[0] * n for _ in range(n)]
edges = 0
for i in range(n):
    for j in range(i + 1, n):
        h = (mul(i, 73856093)) ^ (mul(j, 19349663)) ^ (mul(salt, 83492791))
        h = mul(h ^ shr(h, 13), 1274126177)
        h = h ^ shr(h, 16)
        if (h & 2147483647) % 12 == 0:
            adj[i][j] = adj[j][i] = 1
            edges += 1
out(edges)
dist = [-1] * n
dist[0] = 0
q, parentsum, seen = deque([0]), 0, 1
while q:
    u = q.popleft()
    for v in range(n):
        if adj[u][v] and dist[v] < 0:
            dist[v] = dist[u] + 1
            parentsum += u * (v + 1)
            q.append(v)
            seen += 1
out(seen); out(max(dist)); out(parentsum); out(sum(d for d in dist if d > 0))
# Recursive DFS, lowest neighbour first: the same preorder as the explicit stack.
visited, pre, order = [False] * n, 0, 0


def dfs(x):
    global pre, order
    visited[x] = True
    pre = add(mul(pre, 131), x + 1)
    order += 1
    for y in range(n):
        if adj[x][y] and not visited[y]:
            dfs(y)


dfs(0)
out(order); out(pre)
label, colour, comps, largest, bip = [0] * n, [0] * n, 0, 0, 1
for s in range(n):
    if label[s] == 0:
        comps += 1
        label[s], colour[s] = comps, 1
        q, size = deque([s]), 1
        while q:
            a = q.popleft()
            for b in range(n):
                if adj[a][b]:
                    if label[b] == 0:
                        label[b], colour[b] = comps, 3 - colour[a]
                        q.append(b)
                        size += 1
                    elif colour[b] == colour[a]:
                        bip = 0
        largest = max(largest, size)
out(comps); out(largest); out(bip)
degs = [sum(r) for r in adj]
out(max(degs)); out(degs.count(0))
finish(comps, Mem())
