from lang import *

n, seed = 400, 2024
s, data = seed, []
for i in range(n):
    s = (s * 1103515245 + 12345) & 2147483647
    r = s >> 16
    data.append(data[i - 5 - (r >> 3) % 7] if i >= 12 and r % 3 != 0 else 97 + r % 6)
tokens, pos = [], 0
while pos < n:
    best, bestd = 0, 0
    for d in range(1, min(64, pos) + 1):
        ln = 0
        while ln < 31 and pos + ln < n and data[pos + ln - d] == data[pos + ln]:
            ln += 1
        if ln > best:
            best, bestd = ln, d
    if best >= 3:
        tokens.append(("m", bestd, best))
        pos += best
    else:
        tokens.append(("l", data[pos]))
        pos += 1
lits = sum(1 for t in tokens if t[0] == "l")
ms = [t for t in tokens if t[0] == "m"]
out(len(tokens)); out(lits); out(len(ms)); out(max(t[2] for t in ms))
out(lits * 9 + len(ms) * 12); out(n * 8)
outp = []
for t in tokens:
    if t[0] == "l":
        outp.append(t[1])
    else:
        for _ in range(t[2]):
            outp.append(outp[-t[1]])
out(len(outp))
assert outp == data
out(1)
h = 0
for b in data:
    h = add(mul(h, 257), b)
out(h)
out(1)
out(sum(1 for t in ms if t[1] < t[2]))
out(((lits * 9 + len(ms) * 12) * 100 + n * 4) // (n * 8))
for bucket in range(8):
    out(sum(1 for t in ms if t[2] // 4 == bucket))
finish(1, Mem())
