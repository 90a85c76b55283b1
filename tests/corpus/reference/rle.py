from lang import *
from itertools import groupby

W, H = 48, 24
img = []
for y in range(H):
    for x in range(W):
        c = 0
        if (x - 14) ** 2 + (y - 12) ** 2 <= 81:
            c = 1
        if x in (28, 44) and 3 <= y <= 20:
            c = 2
        if y in (3, 20) and 28 <= x <= 44:
            c = 2
        if (x + y) % 23 == 0:
            c = 3
        img.append(c)
for c in range(4):
    out(img.count(c))
runs = [(v, len(list(g))) for y in range(H) for v, g in groupby(img[y * W:(y + 1) * W])]
out(len(runs)); out(max(r for _, r in runs))
assert [v for v, r in runs for _ in range(r)] == img
out(1)
enc, pos, size = [], 0, len(img)
while pos < size:
    rl = 1
    while pos + rl < size and rl < 128 and img[pos + rl] == img[pos]:
        rl += 1
    if rl >= 3 or (rl == 2 and pos + 2 >= size):
        enc += [257 - rl, img[pos]]
        pos += rl
    else:
        start = pos
        while pos < size and pos - start < 128:
            if pos + 2 < size and img[pos] == img[pos + 1] == img[pos + 2]:
                break
            pos += 1
        enc += [pos - start - 1] + img[start:pos]
out(len(enc))
dec, r = [], 0
while r < len(enc):
    h = enc[r]
    if h < 128:
        dec += enc[r + 1:r + 2 + h]
        r += h + 2
    else:
        dec += [enc[r + 1]] * (257 - h)
        r += 2
assert dec == img
out(1)
hs = 0
for v in img:
    hs = add(mul(hs, 5), v)
out(hs)
finish(1, Mem())
