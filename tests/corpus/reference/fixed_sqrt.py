from lang import *
import math

m = Mem()
idx = 0
ns = [0, 1, 2, 99, 100, 1000000007, 4611686018427387904, 9223372036854775807,
      9223372030926249001, 9223372030926249000, 123456789012345678, 999999999999]
total = 0
for n in ns:
    r = math.isqrt(n)
    out(r)
    if n > 1:
        x = 1 << ((n.bit_length() + 1) // 2)
        while True:
            y = (x + n // x) // 2
            total += 1
            if y >= x:
                break
            x = y
        assert x == r
    m[idx] = r; idx += 1
out(total)
for a in (2 << 16, 3 << 16, 10 << 16, 1 << 15):
    fx, steps = max(1 << 16, a), 0
    while steps < 40:
        fy = (fx + (a << 16) // fx) // 2
        steps += 1
        if fy >= fx:
            break
        fx = fy
    # Newton on integers converges to floor(sqrt(a * 2^16)).
    assert fx == math.isqrt(a << 16)
    out(fx); out(steps); out((fx * 1000000) >> 16)
    m[idx] = fx; idx += 1
for cn in (27, 1000000, 999999999999999999, 2, 9223372036854775807):
    c = int(round(cn ** (1 / 3)))
    while c ** 3 > cn:
        c -= 1
    while (c + 1) ** 3 <= cn:
        c += 1
    out(c)
    m[idx] = c; idx += 1
finish(1, m)
