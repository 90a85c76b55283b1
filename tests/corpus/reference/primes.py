from lang import *

limit = 2000
ps = [p for p in range(2, limit) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
out(len(ps)); out(sum(ps))
out(sum(1 for a, b in zip(ps, ps[1:]) if b - a == 2))
gap, at = max((b - a, -a) for a, b in zip(ps, ps[1:]))
out(gap); out(-at); out(ps[-1])
for n in (600851475143, 9699690, 1099511627777, 1234567890, 999999000001, 3 * 3 * 3 * 5 * 5 * 7 * 1999 * 1999):
    out(n)
    fs, m = [], n
    for p in ps:
        if p * p > m:
            break
        e = 0
        while m % p == 0:
            m //= p
            e += 1
        if e:
            fs.append((p, e))
    if m > 1:
        fs.append((m, 1))
    phi, divs = n, 1
    for p, e in fs:
        out(p); out(e)
        phi = phi // p * (p - 1)
        divs *= e + 1
    out(len(fs)); out(phi); out(divs)
pset = set(ps)
ways = [sum(1 for p in ps if 2 * p <= e and e - p in pset) for e in range(4, 101, 2)]
out(sum(ways)); out(max(ways))
finish(len(ps), Mem())
