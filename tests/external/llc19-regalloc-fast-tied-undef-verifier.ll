; External finding: llc-19's fast register allocator breaks a tied operand whose value is undefined, and the machine verifier rejects the result.
; target: llvm
; version: Debian LLVM version 19.1.7 (llc-19, Debian 12 package llvm-19 1:19.1.7-3~deb12u1)
; run: llc-19 -O1 -regalloc=fast -verify-machineinstrs {file} -o {tmp}/out.s
; expected: exit status 0 (the IR is valid; `srem i64 0, 0` is undefined
;   behaviour only if executed, and whatever value it gives, register
;   allocation must produce machine code the verifier accepts).
; actual: exit status 1, "*** Bad machine code: Tied physical registers
;   must match. ***" and "Two-address instruction operands must be
;   identical" on
;   `undef renamable $ecx = AND32ri undef renamable $eax(tied-def 0), 1`,
;   then "LLVM ERROR: Found 2 machine code errors."
; analysis: instruction selection folds the division by zero to an
;   undefined value, so the two-address AND32ri reads an undef operand
;   tied to its def. RegAllocFast gives the undef use and the def
;   different physical registers ($eax, $ecx) instead of the same one; the
;   two-address constraint is broken in the output. -O0 (fast allocator,
;   no optimizations) and the greedy allocator at -O1..-O3 are accepted;
;   -O1, -O2 and -O3 with -regalloc=fast all fail. Without
;   -verify-machineinstrs llc exits 0.
; on LLVM 14: not comparable: llc-14 cannot read this file (it spells
;   pointers `ptr`, which LLVM 14 does not accept by default), and llc-14
;   crashes with -regalloc=fast at -O1 and above on every input
;   (llc14-O2-regalloc-fast-crash.ll), so its replay fails for those
;   reasons.
; Found by: `ssaref fuzz --target llvm-19 --seconds 1800 --jobs 2 --seed
;   20261128` (seed 20277388, option set O1,regalloc=fast,verify), the
;   exported program reduced with llvm-reduce-19 and by hand. In ssaref's
;   program the division is guarded by its trap test and never executes.
define void @f(ptr %mem) {
entry:
  %d = srem i64 0, 0
  br label %next
next:
  %a = and i64 %d, 1
  %p = getelementptr [4096 x i64], ptr %mem, i64 0, i64 %a
  store i64 0, ptr %p
  ret void
}
