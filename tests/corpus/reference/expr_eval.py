from lang import *
import sys

sys.setrecursionlimit(10000)
# The tokenizer and the recursive-descent parser as Python would write
# them, on a list of tokens; the random expressions from the same LCG.
state = [0]


def rand():
    state[0] = mul(state[0], 6364136223846793005)
    state[0] = add(state[0], 1442695040888963407)
    return shr(state[0], 33) & 1073741823


def lex(text):
    toks, i = [], 0
    ops = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "(": "(", ")": ")"}
    while i < len(text):
        if text[i].isdigit():
            v = 0
            while i < len(text) and text[i].isdigit():
                v = v * 10 + int(text[i])
                i += 1
            toks.append(("n", v))
        else:
            if text[i] in ops:
                toks.append((text[i], 0))
            i += 1
    toks.append(("end", 0))
    return toks


class Parser:
    def __init__(self, toks):
        self.toks, self.pos, self.deepest = toks, 0, 0

    def peek(self):
        return self.toks[self.pos][0]

    def factor(self, depth):
        self.deepest = max(self.deepest, depth)
        k, v = self.toks[self.pos]
        if k == "n":
            self.pos += 1
            return v
        if k == "-":
            self.pos += 1
            return sub(0, self.factor(depth + 1))
        if k == "(":
            self.pos += 1
            inner = self.expr(depth + 1)
            if self.peek() != ")":
                return -999999
            self.pos += 1
            return inner
        return -888888

    def term(self, depth):
        v = self.factor(depth + 1)
        while self.peek() in "*/%":
            op = self.peek()
            self.pos += 1
            r = self.factor(depth + 1)
            if op == "*":
                v = mul(v, r)
            elif r == 0:
                return -777777
            elif op == "/":
                v = div(v, r)
            else:
                v = rem(v, r)
        return v

    def expr(self, depth):
        v = self.term(depth + 1)
        while self.peek() in ("+", "-"):
            op = self.peek()
            self.pos += 1
            r = self.term(depth + 1)
            v = add(v, r) if op == "+" else sub(v, r)
        return v


def evaluate(toks):
    p = Parser(toks)
    v = p.expr(0)
    if p.peek() != "end":
        return -555555, p.deepest
    return v, p.deepest


def gen_expr(toks, depth):
    v = gen_term(toks, depth)
    for _ in range(rand() % 3):
        if rand() % 2 == 0:
            toks.append(("+", 0))
            v = add(v, gen_term(toks, depth))
        else:
            toks.append(("-", 0))
            v = sub(v, gen_term(toks, depth))
    return v


def gen_term(toks, depth):
    v = gen_factor(toks, depth)
    for _ in range(rand() % 3):
        op = rand() % 3
        if op == 0:
            toks.append(("*", 0))
            v = mul(v, gen_factor(toks, depth))
        else:
            d = rand() % 9 + 1
            toks.append(("/" if op == 1 else "%", 0))
            v = div(v, d) if op == 1 else rem(v, d)
            toks.append(("n", d))
    return v


def gen_factor(toks, depth):
    r = rand() % 10
    if depth > 0 and r < 3:
        toks.append(("(", 0))
        v = gen_expr(toks, depth - 1)
        toks.append((")", 0))
        return v
    if depth > 0 and r == 3:
        toks.append(("-", 0))
        return sub(0, gen_factor(toks, depth - 1))
    x = rand() % 1000
    toks.append(("n", x))
    return x


text = "2*(3+4)-10/3+-(7%4)*(100-(2*(8+1)))"
assert eval(text.replace("/", "//")) == -235
toks = lex(text)
out(len(toks))
v, deepest = evaluate(toks)
out(v)
out(deepest)
state[0] = 2024
agree, total, deepest_all = 0, 0, 0
for _ in range(40):
    toks = []
    expected = gen_expr(toks, 3)
    toks.append(("end", 0))
    got, deepest = evaluate(toks)
    agree += got == expected
    total = add(mul(total, 31), got)
    deepest_all = max(deepest_all, deepest)
out(agree)
out(total)
out(deepest_all)
finish(agree, Mem())
