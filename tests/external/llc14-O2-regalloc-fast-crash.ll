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
; Found by: the first trial of every llc option set on ssaref's programs;
; this is the smallest input that shows it.
define i64 @f(i64 %a) {
  ret i64 %a
}
