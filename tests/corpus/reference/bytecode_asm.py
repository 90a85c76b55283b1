"""The assembler of bytecode_vm.src's guest program: the source text and its 144-word image
(the `mem[i] = v;` lines of the program were generated from CODE)."""

OPS = dict(HALT=0, PUSH=1, LOAD=2, STORE=3, ADD=4, SUB=5, MUL=6, DIV=7, MOD=8, LT=9, JZ=10, JMP=11, OUT=12, DUP=13, EQ=14, SWAP=15, JNZ=16)
ARG = {"PUSH", "LOAD", "STORE", "JZ", "JMP", "JNZ"}
SRC = """
    PUSH 2
    STORE 0            ; n = 2
    PUSH 0
    STORE 3            ; count = 0
outer:
    LOAD 0
    PUSH 60
    LT
    JZ gcd             ; while n < 60
    PUSH 2
    STORE 1            ; d = 2
inner:
    LOAD 0
    LOAD 1
    LOAD 1
    MUL
    LT
    JNZ prime          ; if n < d * d: prime
    LOAD 0
    LOAD 1
    MOD
    JZ next            ; if n % d == 0: composite
    LOAD 1
    PUSH 1
    ADD
    STORE 1
    JMP inner
prime:
    LOAD 0
    OUT
    LOAD 3
    PUSH 1
    ADD
    STORE 3
next:
    LOAD 0
    PUSH 1
    ADD
    STORE 0
    JMP outer
gcd:
    PUSH 1071
    STORE 0
    PUSH 462
    STORE 1
gloop:
    LOAD 1
    JZ gdone           ; while b != 0
    LOAD 0
    LOAD 1
    MOD
    LOAD 1
    STORE 0
    STORE 1            ; a, b = b, a % b
    JMP gloop
gdone:
    LOAD 0
    OUT
    PUSH 0
    STORE 2            ; s = 0
    PUSH 0
    STORE 1            ; i = 0
sloop:
    LOAD 1
    PUSH 20
    LT
    JZ sdone
    LOAD 1
    DUP
    MUL
    LOAD 2
    ADD
    STORE 2
    LOAD 1
    PUSH 1
    ADD
    STORE 1
    JMP sloop
sdone:
    LOAD 2
    OUT
    PUSH 1000
    PUSH 7
    DIV
    PUSH 3
    SWAP
    SUB
    PUSH -3
    EQ
    OUT                ; 3 - 1000 / 7 == -3 is 0
    LOAD 3
    HALT
"""
def assemble(src):
    labels, code, fix = {}, [], []
    for line in src.splitlines():
        line = line.split(";")[0].strip()
        if not line: continue
        if line.endswith(":"): labels[line[:-1]] = len(code); continue
        parts = line.split()
        code.append(OPS[parts[0]])
        if parts[0] in ARG:
            a = parts[1]
            if a.lstrip("-").isdigit(): code.append(int(a))
            else: fix.append((len(code), a)); code.append(0)
    for at, l in fix: code[at] = labels[l]
    return code
CODE = assemble(SRC)
if __name__ == "__main__":  # prints the image
    print(len(CODE))
    print(CODE)
