from lang import *
from bytecode_asm import CODE

# A Python VM for the same bytecode (assembled by bytecode_asm.py from its source
# text), checked against the results computed directly.
code = list(CODE)
assert len(code) == 144
vars_, stack, pc, steps = {}, [], 0, 0
counts = [0] * 17
result = None
while True:
    op = code[pc]
    counts[op] += 1
    steps += 1
    if op == 0:
        result = stack[-1]
        break
    if op == 1:
        stack.append(code[pc + 1]); pc += 2
    elif op == 2:
        stack.append(vars_.get(code[pc + 1], 0)); pc += 2
    elif op == 3:
        vars_[code[pc + 1]] = stack.pop(); pc += 2
    elif op in (10, 16):
        v = stack.pop()
        pc = code[pc + 1] if (v == 0) == (op == 10) else pc + 2
    elif op == 11:
        pc = code[pc + 1]
    elif op == 12:
        out(stack.pop()); pc += 1
    elif op == 13:
        stack.append(stack[-1]); pc += 1
    else:
        b, a = stack.pop(), stack.pop()
        r = {4: lambda: add(a, b), 5: lambda: sub(a, b), 6: lambda: mul(a, b), 7: lambda: div(a, b),
             8: lambda: rem(a, b), 9: lambda: int(a < b), 14: lambda: int(a == b)}.get(op)
        if op == 15:
            stack += [b, a]
        else:
            stack.append(r())
        pc += 1
primes = [n for n in range(2, 60) if all(n % d for d in range(2, n))]
import math
assert trace == primes + [math.gcd(1071, 462), sum(i * i for i in range(20)), 0]
assert result == len(primes)
out(steps)
out(len(stack))
for c in counts:
    out(c)
finish(result, Mem())
