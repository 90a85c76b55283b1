//! Spill code placement, after Pereira, "The Design and Implementation of a
//! SSA-based Register Allocator", §4.7: "each use of v is replaced by a
//! fresh virtual v', mapped to the same memory location". A spilled value
//! gets a reload `r = copy v` right before each instruction or terminator
//! that reads it (a `copy v` the program already has is its own reload);
//! phi arguments stay in memory. The store after the definition and the
//! slots are the business of `coloring.rs` and SSA elimination.
//!
//! Both spillers (`spill.rs`, `spill_during_coloring.rs`) place reloads
//! here. The result is that of spilling the values one after another in
//! the order they were chosen, each visiting the blocks that read it in
//! block order and each block's uses in order: the reloads are numbered in
//! that order, and the reloads placed before one instruction come in the
//! order their values were chosen.
//!
//! # Cost
//!
//! The uses of every value of the input are counted once, per block
//! (`SpillCode::new`): spilling one value adds and removes no use of
//! another (a reload `copy v` reads only the spilled `v`, which is never
//! chosen again), so the counts of the values not yet spilled stay exact,
//! and the numbers of a value's reloads are known when it is spilled. The
//! instructions themselves are rewritten block by block, once for all the
//! values queued for the block (`SpillCode::flush_block`): a spiller
//! that walks the blocks in order flushes a block when it reaches it, so a
//! long block read by values spilled in many rounds elsewhere is rebuilt
//! once, where inserting each reload where it goes cost the block's length
//! per reload.

use crate::entity::{EntityRef, EntitySet};
use crate::ir::{Block, Function, Inst, Op, Value};
use rustc_hash::FxHashMap;

/// The reloads of the spilled values, numbered when the values are spilled
/// and placed when their blocks are flushed (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(crate) struct SpillCode {
    /// For each value of the input, the blocks whose instructions (other
    /// than `copy`) or terminator read it, in block order, each with the
    /// number of reloads it needs there.
    uses: Vec<Vec<(Block, u32)>>,
    /// For each block with reloads still to place: its spilled values in
    /// the order they were chosen, each with the number of its next reload
    /// in the block.
    queued: FxHashMap<Block, Vec<(Value, u32)>>,
    /// The blocks of `queued`, in the order they were first queued.
    dirty: Vec<Block>,
}

/// The values an instruction reads that need a reload there, each once:
/// none for a `copy`, which is its own reload.
fn reads(op: &Op, wanted: impl Fn(Value) -> bool, out: &mut Vec<Value>) {
    out.clear();
    if !matches!(op, Op::Copy(_)) {
        op.for_each_arg(|a| {
            if wanted(a) && !out.contains(&a) {
                out.push(a);
            }
        });
    }
}

impl SpillCode {
    /// Counts the uses of every value of `f`.
    pub fn new(f: &Function) -> SpillCode {
        let mut uses: Vec<Vec<(Block, u32)>> = vec![Vec::new(); f.value_count as usize];
        let mut buf = Vec::new();
        for (b, data) in f.blocks.iter() {
            let mut note = |a: Value| {
                let l = &mut uses[a.index()];
                match l.last_mut() {
                    Some((last, n)) if *last == b => *n += 1,
                    _ => l.push((b, 1)),
                }
            };
            for inst in &data.insts {
                reads(&inst.op, |_| true, &mut buf);
                buf.iter().for_each(|&a| note(a));
            }
            if let Some(a) = data.term.arg() {
                note(a);
            }
        }
        SpillCode { uses, queued: FxHashMap::default(), dirty: Vec::new() }
    }

    /// Marks `values` (values of the input, in the order chosen) spilled,
    /// numbers their reloads and queues them for their blocks. A value
    /// already spilled is left alone (it has no use left to reload).
    pub fn spill(
        &mut self,
        f: &mut Function,
        values: &[Value],
        spilled: &mut EntitySet<Value>,
        reloads: &mut EntitySet<Value>,
    ) {
        for &v in values {
            if spilled.contains(v) {
                continue;
            }
            spilled.insert(v);
            for &(b, n) in self.uses.get(v.index()).into_iter().flatten() {
                let first = f.value_count;
                f.value_count += n;
                for r in first..first + n {
                    reloads.insert(Value(r));
                }
                let q = self.queued.entry(b).or_default();
                if q.is_empty() {
                    self.dirty.push(b);
                }
                q.push((v, first));
            }
        }
    }

    /// Places the reloads queued for `b`, rebuilding its instruction list
    /// once.
    pub fn flush_block(&mut self, f: &mut Function, b: Block) {
        let Some(queue) = self.queued.remove(&b) else { return };
        // Each value's position in the queue and its next reload.
        let mut next: FxHashMap<Value, (usize, u32)> =
            queue.iter().enumerate().map(|(i, &(v, first))| (v, (i, first))).collect();
        let data = &mut f.blocks[b];
        let old = std::mem::take(&mut data.insts);
        let mut insts = Vec::with_capacity(old.len() + queue.len());
        let mut buf = Vec::new();
        for mut inst in old {
            reads(&inst.op, |a| next.contains_key(&a), &mut buf);
            buf.sort_unstable_by_key(|a| next[a].0);
            for &a in &buf {
                let slot = next.get_mut(&a).expect("a queued value");
                let r = Value(slot.1);
                slot.1 += 1;
                inst.op.map_args(|x| if x == a { r } else { x });
                insts.push(Inst { dest: Some(r), op: Op::Copy(a) });
            }
            insts.push(inst);
        }
        if let Some(a) = data.term.arg() {
            if let Some(slot) = next.get_mut(&a) {
                let r = Value(slot.1);
                slot.1 += 1;
                data.term.map_arg(|_| r);
                insts.push(Inst { dest: Some(r), op: Op::Copy(a) });
            }
        }
        data.insts = insts;
    }

    /// Places every queued reload.
    pub fn flush_all(&mut self, f: &mut Function) {
        for b in std::mem::take(&mut self.dirty) {
            self.flush_block(f, b);
        }
    }
}
