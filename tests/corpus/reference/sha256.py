from lang import *
import hashlib

# An independent SHA-256 on 32-bit words, checked against hashlib.
M = 0xFFFFFFFF


def primes(n):
    p, c = [], 2
    while len(p) < n:
        if all(c % q for q in p):
            p.append(c)
        c += 1
    return p


def icbrt(n):
    x = int(round(n ** (1 / 3)))
    while x ** 3 > n:
        x -= 1
    while (x + 1) ** 3 <= n:
        x += 1
    return x


import math
K = [icbrt(p << 96) & M for p in primes(64)]
H0 = [math.isqrt(p << 64) & M for p in primes(8)]


def rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & M


def sha256(msg):
    data = msg + b"\x80"
    while len(data) % 64 != 56:
        data += b"\x00"
    data += (len(msg) * 8).to_bytes(8, "big")
    h = list(H0)
    for blk in range(0, len(data), 64):
        wds = [int.from_bytes(data[blk + 4 * t:blk + 4 * t + 4], "big") for t in range(16)]
        for t in range(16, 64):
            s0 = rotr(wds[t - 15], 7) ^ rotr(wds[t - 15], 18) ^ (wds[t - 15] >> 3)
            s1 = rotr(wds[t - 2], 17) ^ rotr(wds[t - 2], 19) ^ (wds[t - 2] >> 10)
            wds.append((wds[t - 16] + s0 + wds[t - 7] + s1) & M)
        a, b, c, d, e, f, g, hh = h
        for t in range(64):
            t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + wds[t]) & M
            t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) & M
            a, b, c, d, e, f, g, hh = (t1 + t2) & M, a, b, c, (d + t1) & M, e, f, g
        h = [(x + y) & M for x, y in zip(h, [a, b, c, d, e, f, g, hh])]
    assert b"".join(x.to_bytes(4, "big") for x in h) == hashlib.sha256(msg).digest()
    return h


msgs = [b"abc", bytes(97 + a + b for a in range(14) for b in range(4)),
        bytes((i * 7 + 3) & 255 for i in range(200))]
assert msgs[1] == b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
assert hashlib.sha256(b"abc").hexdigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
assert hashlib.sha256(msgs[1]).hexdigest() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
m = Mem()
for msg in msgs:
    h = sha256(msg)
    for x in h:
        out(x)
    for i, x in enumerate(h):
        m[4088 + i] = x
finish(1, m)
