; External finding: llc-19's fast register allocator loses a loop's phi copy at -O1 and above: the loop never ends.
; target: llvm
; version: Debian LLVM version 19.1.7 (llc-19, Debian 12 package llvm-19 1:19.1.7-3~deb12u1)
; run: llc-19 -O1 -regalloc=fast {file} -o {tmp}/a.s
; run: gcc -no-pie {tmp}/a.s -o {tmp}/a
; run: timeout 10 {tmp}/a; echo "exit $?"
; expected: @main returns f(-19, true) = 0 after two trips round the loop
;   (v = 0, then v = -19, which ends it), so the program exits with 0.
; expected-stdout:
; exit 0
; actual: the program loops until `timeout` kills it ("exit 124"). The
;   same file with llc-19 -O0, with -O0 -regalloc=fast, and with the
;   greedy, basic or PBQP allocator at -O1..-O3 exits 0; -O1, -O2 and -O3
;   with -regalloc=fast loop. -verify-machineinstrs accepts the code.
; analysis: PHI elimination puts the latch's copy for the header phi,
;   `%10:gr64 = COPY %1`, between the latch's TEST64rr and its JCC_1.
;   After RegAllocFast (-print-after=regallocfast) the latch reloads %1
;   into $rax for the copy but never stores $rax to %stack.2, the slot
;   the header reads %10 from (the header phi and %10 share it), so every
;   trip tests the value of the first trip again. A lost live-out spill
;   in RegAllocFast, as far as we can tell; -O0 does not build this
;   latch shape.
; on LLVM 14: not comparable: llc-14 crashes with -regalloc=fast at -O1
;   and above on every input (llc14-O2-regalloc-fast-crash.ll), so the
;   replay with llc-14 fails at its first command for that other reason.
; Found by: `ssaref fuzz --target llvm-19 --seconds 1800 --jobs 2 --seed
;   20261128` (seed 20271828, option set O2,regalloc=fast,verify,no-split:
;   ssaref's oracle expected 24 outputs and a return, the compiled program
;   timed out), the exported program reduced with llvm-reduce-19 and then
;   by hand, keeping llc-19 -O0 and -O1 (greedy) agreeing on the result.
;   The campaign's own reducer brought the ssaref program down to this
;   SSA (args: -1; expected: return 0; llc-19 code times out):
;     fn main(v0) { b0: v1 = const 1; v2 = const 0; br v0, b3, b1
;     b1(b0): ret v2
;     b2(b2, b3): v3 = phi v2, v4; v5 = rem v2, v1; br v3, b2, b4
;     b3(b0): v4 = sub v1, v2; jump b2
;     b4(b2): ret v2 }
define i64 @f(i64 %x, i1 %c) {
b0:
  br label %b5

b4:
  %v4 = phi i64 [ %x, %b41 ], [ 0, %b5 ]
  %t14 = or i1 false, false
  br i1 %t14, label %trap, label %b41

b41:
  %t15 = icmp sge i64 %v4, 0
  br i1 %t15, label %b4, label %b6

b5:
  br i1 %c, label %b4, label %b6

b6:
  ret i64 0

trap:
  unreachable
}

define i32 @main() {
  %r = call i64 @f(i64 -19, i1 true)
  %t = trunc i64 %r to i32
  ret i32 %t
}
