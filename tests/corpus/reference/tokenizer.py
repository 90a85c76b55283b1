from lang import *
import re
from tokenizer_text import TEXT

# An independent tokenizer: one regular expression per token class, tried in order.
RULES = [
    (None, r"[ \t\n]+"),
    (None, r"//[^\n]*"),
    (1, r"[A-Za-z_][A-Za-z0-9_]*"),
    (2, r"[0-9]+"),
    (4, r'"[^"]*"'),
    (6, r'"[^"]*\Z'),
    (3, r"==|!=|<=|>=|\+=|-=|&&|\|\||\.\.|[-+*/%<>=!&|.]"),
    (5, r"[(){};,\[\]]"),
    (6, r"."),
]
data = TEXT
pos, toks = 0, []
while pos < len(data):
    for kind, rx in RULES:
        m = re.compile(rx, re.S).match(data, pos)
        if m:
            if kind is not None:
                toks.append((kind, pos, m.end() - pos))
                if kind == 2:
                    out(int(m.group()))
            pos = m.end()
            break
out(len(toks))
out(data.count("\n") + 1)
out(sum(int(data[s:s + l]) for k, s, l in toks if k == 2))
for k in range(1, 7):
    out(sum(1 for t in toks if t[0] == k))
longest, at = 0, 0
for k, s, l in toks:
    if k == 1 and l > longest:
        longest, at = l, s
out(longest); out(at)
h = 5381
for k, s, l in toks:
    h = mul(h, 33) ^ (k * 256 + l * 16 + ord(data[s]))
out(h)
finish(len(toks), Mem())
