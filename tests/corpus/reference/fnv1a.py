from lang import *

P64, O64 = 1099511628211, 0xCBF29CE484222325


def fnv32(data):
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def fnv64(data):
    # Unsigned arithmetic modulo 2^64, converted to signed only for printing.
    h = O64
    for b in data:
        h = ((h ^ b) * P64) % 2**64
    return h


vectors = {b"": (0x811C9DC5, 0xCBF29CE484222325), b"a": (0xE40C292C, 0xAF63DC4C8601EC8C),
           b"foobar": (0xBF9CF968, 0x85944171F73967E8)}
for s in (b"", b"a", b"foobar"):
    assert (fnv32(s), fnv64(s)) == vectors[s]
    out(fnv32(s))
    out(w(fnv64(s)))
    g32, g64 = 2166136261, O64
    for b in s:
        g32 = ((g32 * 16777619) & 0xFFFFFFFF) ^ b
        g64 = ((g64 * P64) % 2**64) ^ b
    out(g32)
    out(w(g64))


def key_of(j):
    return w(j * j * 7919 + j)


def slot_of(key):
    return fnv64((key % 2**64).to_bytes(8, "little")) & 511


table = [None] * 512
inserted = probes = maxprobe = 0
for j in range(200):
    key = key_of(j)
    s, p = slot_of(key), 1
    while table[s] is not None and table[s] != key:
        s, p = (s + 1) & 511, p + 1
    if table[s] is None:
        table[s] = key
        inserted += 1
    probes += p
    maxprobe = max(maxprobe, p)
out(inserted); out(probes); out(maxprobe)
hits = lprobes = 0
for j in range(100, 300):
    key = key_of(j)
    s = slot_of(key)
    while True:
        lprobes += 1
        if table[s] is None:
            break
        if table[s] == key:
            hits += 1
            break
        s = (s + 1) & 511
out(hits); out(lprobes)
for b in range(8):
    out(sum(1 for v in table[b * 64:(b + 1) * 64] if v is not None))
finish(1, Mem())
