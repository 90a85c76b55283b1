"""The input text of tokenizer.src (its `mem[i] = v;` lines were generated from TEXT)."""

TEXT = '''let total = 0; // sum of odd squares
for i in 1..100 {
    if i % 2 != 0 && i <= 99 { total += i*i; }
}
print("total = ", total >= 1000, [3, 14, 15]);
x_9=0x1F - 7 @ "unterminated'''
