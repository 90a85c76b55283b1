from lang import *

limit = 1000


def stop(x):
    n = 0
    while x != 1:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        n += 1
    return n


times = {s: stop(s) for s in range(1, limit)}
# Odd and even steps counted like the program: only the part of each trajectory above
# its start (the rest comes from the memo).
odd = even = 0
peak, peakstart = 1, 1
for s in range(1, limit):
    x, top = s, s
    while x >= s and x != 1:
        if x % 2 == 0:
            x //= 2; even += 1
        else:
            x = 3 * x + 1; odd += 1
        top = max(top, x)
    if top > peak:
        peak, peakstart = top, s
best = max(range(1, limit), key=lambda s: (times[s], -s))
records, record, holders = 0, -1, []
for s in range(1, limit):
    if times[s] > record:
        record = times[s]
        holders.append(s)
out(best); out(times[best]); out(peakstart); out(peak); out(len(holders))
out(sum(times.values())); out(odd); out(even)
hist = [0] * 16
for t in times.values():
    hist[min(t // 16, 15)] += 1
for h in hist:
    out(h)
out(1)
ts = sorted(min(t, 255) for t in times.values())
# The smallest i with count(<= i) * 2 >= limit - 1.
median = next(i for i in range(256) if 2 * sum(1 for t in ts if t <= i) >= limit - 1)
out(median if median != 0 else 0)
for s in holders:
    out(s)
out(sum(1 for t in times.values() if t % 2 == 0))
m = Mem()
for i, s in enumerate(holders):
    m[3000 + i] = s
finish(1, m)
