from lang import *

count, seed = 600, 1181783497276652981
U = 2**64
state = seed % U or 1


def nxt():
    # Unsigned xorshift64*, the textbook form.
    global state
    state ^= state >> 12
    state ^= (state << 25) % U
    state ^= state >> 27
    return (state * 2685821657736338717) % U


hist, runs, prev, lowrun, lowbest, lastlow, pop = [0] * 16, 0, 0, 0, 0, -1, 0
for i in range(count):
    r = nxt()
    hist[r >> 60] += 1
    top = r >> 32
    if i == 0 or top < prev:
        runs += 1
    prev = top
    low = r & 1
    if low == lastlow:
        lowrun += 1
    else:
        lowrun, lastlow = 1, low
    lowbest = max(lowbest, lowrun)
    pop += bin(r).count("1")
for h in hist:
    out(h)
out(sum((h * 16 - count) ** 2 for h in hist) * 1000 // (16 * count))
out(count // 16); out(runs); out(lowbest); out(pop * 100 // count)
die, rolls, rejected = [0] * 6, 0, 0
while rolls < 600:
    r = nxt()
    for k in range(21):
        if rolls >= 600:
            break
        face = (r >> (61 - 3 * k)) & 7
        if face < 6:
            die[face] += 1
            rolls += 1
        else:
            rejected += 1
out(rejected)
a = list(range(64))
for i in range(63, 0, -1):
    j = ((nxt() >> 33) & 2147483647) % (i + 1)
    a[i], a[j] = a[j], a[i]
assert sorted(a) == list(range(64))
seen, cycles = [False] * 64, 0
for i in range(64):
    if not seen[i]:
        cycles += 1
        c = i
        while not seen[c]:
            seen[c] = True
            c = a[c]
out(1); out(sum(1 for i in range(64) if a[i] == i)); out(cycles); out(sum(i * a[i] for i in range(64)))
m = Mem()
for f in range(6):
    m[16 + f] = die[f]
finish(1, m)
