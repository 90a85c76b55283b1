//! Structural errors (bad ranges, annotations that do not fit, bad control
//! flow) and robustness: no panic on garbage, no deep recursion on long
//! programs.

use super::*;
use pretty_assertions::assert_eq;

// ---------------------------------------------------------------------------
// Structural errors.

fn kind_message(e: &AllocCheckError) -> String {
    match &e.kind {
        AllocCheckErrorKind::BadAnnotation(m) | AllocCheckErrorKind::Malformed(m) => m.clone(),
        other => panic!("expected a message, got {other:?}"),
    }
}

#[test]
fn rejects_bad_ranges() {
    let mut f = straight_allocated();
    f.k = 1;
    assert_eq!(reject(&f).kind, AllocCheckErrorKind::RegisterCount { k: 1 });
    f.k = 16;
    assert_eq!(reject(&f).kind, AllocCheckErrorKind::RegisterCount { k: 16 });
    let mut f = straight_allocated();
    f.slot_count = 1;
    let e = reject(&f);
    assert_eq!(e.kind, AllocCheckErrorKind::SlotOutOfRange { slot: Slot(1), slot_count: 1 });
    assert_eq!(e.site, Site::Inst { block: Block(0), index: 2 });
    let mut f = straight_allocated();
    f.params[1].0 = reg(RAX);
    let e = reject(&f);
    assert_eq!(e.site, Site::Param(1));
    assert!(kind_message(&e).contains("like an earlier parameter"), "{e}");
}

#[test]
fn rejects_annotations_that_do_not_fit() {
    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[1].annot.reads.pop();
    let e = reject(&f);
    assert!(kind_message(&e).contains("names 1 read value(s) for 2 register"), "{e}");

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[1].annot.defines = None;
    assert!(kind_message(&reject(&f)).contains("defines no value"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[0].annot.defines = Some(v(9));
    assert!(kind_message(&reject(&f)).contains("a transfer carries an annotation"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].insts[10].annot.defines = Some(v(9));
    assert!(kind_message(&reject(&f)).contains("writes no register"));

    let mut f = straight_allocated();
    f.blocks[Block(0)].term_reads = None;
    let e = reject(&f);
    assert_eq!(e.site, Site::Terminator(Block(0)));
    assert!(kind_message(&e).contains("`term_reads` names no value"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[0].args.pop();
    assert!(kind_message(&reject(&f)).contains("1 arguments for 2 predecessors"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[1].loc = reg(RAX);
    assert!(kind_message(&reject(&f)).contains("both live in rax"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].phis[1].dest = v(3);
    assert!(kind_message(&reject(&f)).contains("both define v3"));
}

#[test]
fn rejects_bad_control_flow() {
    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].preds = vec![Block(0), Block(3)];
    let e = reject(&f);
    assert_eq!(e.site, Site::Block(Block(1)));
    assert_eq!(
        kind_message(&e),
        "the predecessor list [b0, b3] does not match the edges into the block, which come \
         from [b0, b2]"
    );

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(2)].term = MTerm::Jump(Block(9));
    assert!(kind_message(&reject(&f)).contains("b9, which does not exist"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(1)].preds.push(Block(77));
    assert!(kind_message(&reject(&f)).contains("b77 does not exist"));

    let mut f = swap_loop_allocated(true);
    f.blocks[Block(2)].term = MTerm::Jump(Block(0));
    f.blocks[Block(1)].preds = vec![Block(0)];
    f.blocks[Block(0)].preds = vec![Block(2)];
    let e = reject(&f);
    assert_eq!(e.site, Site::Block(Block(0)));
    assert_eq!(kind_message(&e), "the entry block has predecessors");

    let mut f = straight_allocated();
    f.blocks[Block(0)].phis.push(phi(9, reg(RAX), &[]));
    assert_eq!(kind_message(&reject(&f)), "the entry block has phis");

    let f = function(2, 0, &[], vec![]);
    assert!(kind_message(&reject(&f)).contains("no blocks"));

    let g = straight_allocated();
    let e = check_module(&MModule { functions: vec![g.clone(), g] }).expect_err("two functions named main");
    assert!(kind_message(&e).contains("same name"));
}

// ---------------------------------------------------------------------------
// Robustness.

#[test]
fn never_panics_on_random_garbage() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_a110c);
    let mut rejected = 0;
    for _ in 0..3000 {
        let n_blocks = rng.gen_range(0..5u32);
        let any_reg = |rng: &mut SmallRng| Reg(rng.gen_range(0..18));
        let any_value = |rng: &mut SmallRng| v(rng.gen_range(0..6));
        let any_block = |rng: &mut SmallRng| rng.gen_range(0..n_blocks + 1);
        let any_loc = |rng: &mut SmallRng| {
            if rng.gen_bool(0.7) {
                Loc::Reg(any_reg(rng))
            } else {
                slot(rng.gen_range(0..4))
            }
        };
        let mut blocks = Vec::new();
        for _ in 0..n_blocks {
            let mut insts = Vec::new();
            for _ in 0..rng.gen_range(0..5) {
                let (d, a, b) = (any_reg(&mut rng), any_reg(&mut rng), any_reg(&mut rng));
                let inst = match rng.gen_range(0..7) {
                    0 => MInst::Const { dst: d, imm: 1 },
                    1 => MInst::Unary { op: UnOp::Neg, dst: d, src: a },
                    2 => MInst::Binary { op: BinOp::Add, dst: d, a, b },
                    3 => MInst::Move { dst: d, src: a },
                    4 => MInst::Swap { a, b },
                    5 => MInst::Spill { slot: Slot(rng.gen_range(0..4)), src: a },
                    _ => MInst::Reload { dst: d, slot: Slot(rng.gen_range(0..4)) },
                };
                let reads = (0..rng.gen_range(0..3)).map(|_| any_value(&mut rng)).collect();
                let defines = rng.gen_bool(0.6).then(|| any_value(&mut rng));
                insts.push(MInstA { inst, annot: Annot { reads, defines } });
            }
            let term = match rng.gen_range(0..3) {
                0 => MTerm::Jump(Block(any_block(&mut rng))),
                1 => MTerm::Branch {
                    cond: any_reg(&mut rng),
                    then_dest: Block(any_block(&mut rng)),
                    else_dest: Block(any_block(&mut rng)),
                },
                _ => MTerm::Return(any_reg(&mut rng)),
            };
            let preds: Vec<Block> = (0..rng.gen_range(0..3)).map(|_| Block(any_block(&mut rng))).collect();
            let phis = (0..rng.gen_range(0..2))
                .map(|_| PhiAnnot {
                    dest: any_value(&mut rng),
                    loc: any_loc(&mut rng),
                    args: (0..rng.gen_range(0..3)).map(|_| any_value(&mut rng)).collect(),
                })
                .collect();
            blocks.push(MBlock {
                preds,
                phis,
                insts,
                term,
                term_reads: rng.gen_bool(0.7).then(|| any_value(&mut rng)),
            });
        }
        let params: Vec<(Loc, u32)> = (0..rng.gen_range(0..3)).map(|i| (any_loc(&mut rng), i)).collect();
        let f = function(rng.gen_range(0..17), rng.gen_range(0..5), &params, blocks);
        if let Err(e) = check_allocation(&f) {
            // Printing must not panic either.
            let _ = e.to_string();
            rejected += 1;
        }
        let _ = check_no_scratch(&f);
    }
    assert!(rejected > 0);
}

#[test]
fn a_long_chain_of_blocks_needs_no_deep_stack() {
    // 20,000 blocks, each passing v0 on through a phi in alternating
    // registers, checked on a thread with a small stack.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let n = 20_000u32;
            let mut blocks = vec![block(&[], vec![], vec![], jump(1))];
            for b in 1..n {
                // v(b) arrives in `here` and is moved on to `there`, where
                // the next block's phi expects it.
                let (here, there) = if b % 2 == 1 { (RCX, RAX) } else { (RAX, RCX) };
                let dest = phi(b, reg(here), &[b - 1]);
                blocks.push(if b + 1 < n {
                    block(&[b - 1], vec![dest], vec![mov(there, here)], jump(b + 1))
                } else {
                    block(&[b - 1], vec![dest], vec![], ret(here, b))
                });
            }
            let f = function(2, 0, &[(reg(RCX), 0)], blocks);
            check_allocation(&f)
        })
        .expect("spawns");
    assert_eq!(handle.join().expect("no stack overflow"), Ok(()));
}
