from lang import *
import zlib

M = 0xFFFFFFFF


def table(poly):
    t = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ (poly if c & 1 else 0)
        t.append(c)
    return t


def crc(t, data, init=M):
    c = init
    for b in data:
        c = t[(c ^ b) & 255] ^ (c >> 8)
    return c


t32, t32c = table(0xEDB88320), table(0x82F63B78)
out(t32[1]); out(t32[255])
msg = b"123456789"
c1, c2 = crc(t32, msg) ^ M, crc(t32c, msg) ^ M
assert c1 == 0xCBF43926 == zlib.crc32(msg)
assert c2 == 0xE3069283
out(c1); out(c2)
s, buf = 2463534242, []
for i in range(1000):
    s = (s * 1664525 + 1013904223) & M
    buf.append(s >> 24)
c = zlib.crc32(bytes(buf))
assert c == crc(t32, buf) ^ M
out(c)
out(1)
r = crc(t32, buf + list(c.to_bytes(4, "little"))) ^ M
assert r == 0x2144DF1C
out(r); out(1)
out(crc(t32c, buf) ^ M)


def crc16(data):
    c = 0xFFFF
    for b in data:
        c ^= b << 8
        for _ in range(8):
            c = ((c << 1) ^ 0x1021) & 0xFFFF if c & 0x8000 else (c << 1) & 0xFFFF
    return c


for data in (list(msg), buf):
    out(crc16(data))
    out(zlib.adler32(bytes(data)))
assert crc16(msg) == 0x29B1 and zlib.adler32(msg) == 0x091E01DE
m = Mem()
m[0] = c
finish(1, m)
