; External finding: llc-14 crashes with -regalloc=fast at -O1 and above, on every input.
; target: llvm
; version: Debian LLVM version 14.0.6 (llc-14, Debian 12 package llvm-14)
; run: llc-14 -O2 -regalloc=fast {file} -o {tmp}/out.s
; expected: exit status 0 and an assembly file (the fast register allocator
;   is a valid choice for -regalloc; llc-14 -O0 uses it by default).
; actual: killed by signal 11 (SIGSEGV), no output file; the stack dump
;   ends in llvm::PMDataManager::~PMDataManager(), i.e. the legacy pass
;   manager's teardown after code generation.
; analysis: with -O1 and above, TargetPassConfig builds the optimized
;   register-allocation pipeline and puts the fast allocator in the slot of
;   the optimizing one: -debug-pass=Structure lists `-regallocfast
;   -virtregmap -slotindexes -liveintervals` (passes the fast allocator
;   never needs, scheduled after it). The crash happens when the pass
;   managers are destroyed, so it is a lifetime bug of passes added for the
;   optimizing allocator in a pipeline whose allocator is the fast one,
;   not a miscompilation. ssaref's llvm target therefore runs the fast
;   allocator only at -O0 (option sets O0,regalloc=fast,...).
; on LLVM 19: does not fail. `llc-19 -O1`, `-O2` and `-O3` with
;   -regalloc=fast exit 0 on this file and write a correct assembly file
;   (`movq %rdi, %rax; retq`), checked on Debian's 19.1.7 (package llvm-19
;   1:19.1.7-3~deb12u1) on 2026-11-28; tests/suite/external.rs replays the
;   run: line with llc-19 and prints NO LONGER FAILS with LLVM 19. The bug
;   is of LLVM 14 only among the versions checked, so ssaref's llvm-19
;   target offers O1, O2 and O3 with regalloc=fast, and llvm-14 does not.
; Found by: the first trial of every llc option set on ssaref's programs;
; this is the smallest input that shows it.
define i64 @f(i64 %a) {
  ret i64 %a
}
