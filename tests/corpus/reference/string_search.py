from lang import *

n, seed = 600, 31337
s, text = seed, []
for i in range(n):
    s = add(mul(s, 6364136223846793005), 1)
    text.append(97 + (shr(s, 40) & 255) % 3)
for pat in range(5):
    if pat < 3:
        frm, m = 100 + pat * 137, 3 + pat * 2
        P = text[frm:frm + m]
    else:
        m = 6 + pat
        P = [97 + (i % (pat - 1) == 0) for i in range(m)]
    # Matches found by slicing (independent of all three algorithms).
    hits = [p for p in range(n - m + 1) if text[p:p + m] == P]
    fail, k = [0] * m, 0
    for q in range(1, m):
        while k > 0 and P[k] != P[q]:
            k = fail[k - 1]
        if P[k] == P[q]:
            k += 1
        fail[q] = k
    k, cmps, found = 0, 0, []
    for i in range(n):
        while k > 0 and P[k] != text[i]:
            k = fail[k - 1]
            cmps += 1
        cmps += 1
        if P[k] == text[i]:
            k += 1
        if k == m:
            found.append(i - m + 1)
            k = fail[k - 1]
    assert found == hits
    out(len(hits)); out(hits[0] if hits else -1); out(hits[-1] if hits else -1); out(cmps)
    ncmps = 0
    for p in range(n - m + 1):
        for j in range(m):
            ncmps += 1
            if text[p + j] != P[j]:
                break
    out(ncmps)
    skip = {c: m - 1 - i for i, c in enumerate(P[:-1])}
    hcmps, p, hf = 0, 0, []
    while p + m <= n:
        r = m - 1
        while r >= 0:
            hcmps += 1
            if text[p + r] != P[r]:
                break
            r -= 1
        if r < 0:
            hf.append(p)
        p += skip.get(text[p + m - 1], m)
    assert hf == hits
    out(hcmps)
finish(1, Mem())
