//! Variable look-up of Braun et al. ("Simple and Efficient Construction of
//! Static Single Assignment Form", CC 2013): `writeVariable` and
//! `readVariable` (§2.1, Alg. 1), `readVariableRecursive` and
//! `addPhiOperands` (§2.2, Alg. 2) on an explicit stack, `sealBlock` and
//! incomplete phis (§2.3, Alg. 4), and the marker algorithm of §3.3
//! ([`BraunOptions::marker`]). The paper's recursive version, line by line,
//! is `textbook.rs`; read it first.
//!
//! Where each line of the printed algorithms is done here (line numbers as
//! in `textbook.rs`):
//!
//! | Line | Printed | Here |
//! |------|---------|------|
//! | Alg. 1, 1-2 | `writeVariable`: `currentDef[variable][block] ← value` | `write_variable` (`CurrentDefs::set`) |
//! | Alg. 1, 3-6 | `readVariable`: the local definition | `read_variable`, first `defs.get`; again in `use_var` for each block walked through |
//! | Alg. 1, 7-8 | else `readVariableRecursive` | `read_variable` starts the look-up: `use_var`, then the loop over the stack |
//! | Alg. 2, 2-5 | unsealed block: `new Phi`, `incompletePhis[block][variable]` | `use_var`, `if !sealed` (the incomplete phi ends the walk) |
//! | Alg. 2, 6-8 | one predecessor: `readVariable(variable, block.preds[0])` | `use_var`, the `(true, 1)` arm: the walk goes on in the predecessor, the block is pushed on `walk_path` |
//! | Alg. 2, 9-12 | `new Phi(block)`, `writeVariable` before recursing | `use_var`, the last lines: `new_provisional_phi`, `write_variable`, return `AskPredecessors` |
//! | Alg. 2, 13, 17-19 | `addPhiOperands`: for each pred, `appendOperand(readVariable(...))` | `read_variable`'s loop: `next_pred` walks the top `PredecessorsLookup`'s predecessors, each answer goes to `append_lookup_operand` |
//! | Alg. 2, 20 | `return tryRemoveTrivialPhi(phi)` | `finish_predecessors_lookup` (`try_remove_trivial_phi`, or `try_remove_trivial_provisional` in `trivial_phi.rs`) |
//! | Alg. 2, 14-15 | `writeVariable(variable, block, val)`, `return val` | `finish_predecessors_lookup` (for the join) and `record_on_path` (for the single-predecessor blocks walked through on the way) |
//! | Alg. 3 | `tryRemoveTrivialPhi` | `trivial_phi.rs` |
//! | Alg. 4, 1-4 | `sealBlock`: `addPhiOperands` of each incomplete phi | `seal_block` (marks the block sealed first, which changes nothing: the look-ups it starts find the incomplete phi of their variable in the block) |
//!
//! The stack states, named after what they wait for (Cranelift's
//! `frontend/src/ssa.rs`, `Call::UseVar` and
//! `Call::FinishPredecessorsLookup`, is the model):
//! - `use_var(var, block)` is `Call::UseVar`: it walks back from `block`
//!   through single predecessors and returns a [`LookupStep`]:
//!   `Found(value)` (a definition, an incomplete phi, `Undefined`), or
//!   `AskPredecessors(lookup)` for a join whose operandless phi is placed.
//! - A `PredecessorsLookup` (`state.rs`) is
//!   `Call::FinishPredecessorsLookup`: the join's predecessors are asked one
//!   at a time (`next_pred`); when all have answered,
//!   `finish_predecessors_lookup` completes it and its value is the answer
//!   for the lookup below it on the stack (or the result).
//!
//! Departures from the printed lines (each argued in `mod.rs`):
//! - In the phi variant, the operandless phi of Alg. 2 in a sealed block is
//!   provisional: `Builder::phi_args` holds its operands, one range per
//!   `PredecessorsLookup`, and the phi table marks it with its position on
//!   the stack; `append_lookup_operand` puts a provisional phi that becomes
//!   an operand into the table, and `finish_predecessors_lookup` lets a
//!   trivial one die without it. In the marker variant, `phi_args` holds the
//!   operands each lookup collects (one range per lookup, as above), and
//!   the marks are `Builder::marks`, one per block.
//! - A read that only the variable's initial value can reach returns it at
//!   once (`unassigned_on_every_path`, note (f) of the proof note).
//! - `use_var` passes the header of a loop and the join of an `if` that hold
//!   no label and never assign the variable as if they had one
//!   predecessor, the block the statement was entered from
//!   (`region_assignments.rs`, note (h) of the proof note).
//!
//! [`BraunOptions::marker`]: super::options::BraunOptions::marker

use super::on_the_fly::Operand;
use super::state::{Builder, PredecessorsLookup, Var, MARKED, NO_REGION, UNMARKED};
use super::trivial_phi::trivial_operand;
use crate::entity::EntityRef;
use crate::ir::{self, Block, Value};

/// What `use_var` found walking back from a block: the value, or a join
/// whose predecessors must be asked (the next stack state).
enum LookupStep {
    Found(Value),
    AskPredecessors(PredecessorsLookup),
}

impl Builder {
    // ----- Algorithm 1: local value numbering -----

    #[inline]
    pub(super) fn write_variable(&mut self, var: Var, block: Block, value: Value) {
        self.defs.set(var.0, block, value);
    }

    /// `writeVariable` for an assignment of the program (not a definition
    /// the look-up records): also notes when the variable was first assigned
    /// in a block not known to be unreachable.
    pub(super) fn assign_variable(&mut self, var: Var, block: Block, value: Value) {
        if !self.is_known_unreachable(block) {
            let first = &mut self.first_assigned_at[var.0 as usize];
            if *first == u32::MAX {
                *first = self.filled;
            }
        }
        self.note_binding(value);
        self.write_variable(var, block, value);
    }

    /// Whether every path from the entry to the end of `block` (so far, for
    /// the block being filled) is known to be free of assignments to `var`:
    /// the function has no labels, `block` is sealed and lies outside every
    /// loop, and `var` was first assigned after `block` was filled. The
    /// argument is in `proofs-notes/ssa-construction.md`, "Reads before the
    /// first assignment".
    #[inline]
    fn unassigned_on_every_path(&self, var: Var, block: Block) -> bool {
        if self.has_labels {
            return false;
        }
        let (filled_at, outside_loops) = match self.filled_at[block.index()] {
            (u32::MAX, _) => (self.filled + 1, self.open_loops == 0),
            f => f,
        };
        // The common answer, an assignment filled before the block, first.
        self.first_assigned_at[var.0 as usize] >= filled_at && outside_loops && self.blocks[block].sealed
    }

    /// For `block`, the header of a `while`, the join of an `if` (and the
    /// other blocks of `region_assignments.rs`) whose statement holds no
    /// label and assigns `var` nowhere: the block control enters the
    /// statement from (`None` in every other case, and when a loop's entry
    /// edge was not recorded). The value of `var` there is its value in
    /// `block` (note (h)).
    #[inline]
    fn entry_of_region_keeping(&self, var: Var, block: Block) -> Option<Block> {
        let k = self.blocks[block].region;
        if k == NO_REGION {
            return None;
        }
        let region = &self.regions.regions[k as usize];
        let entry = region.entry.filter(|_| region.label_free)?;
        (!self.regions.region_assigns(k as usize, var.0)).then_some(entry)
    }

    /// `readVariable` of Alg. 1 and 2, with the recursion of Alg. 2 on an
    /// explicit stack of lookups.
    pub(super) fn read_variable(&mut self, var: Var, block: Block) -> Value {
        if !self.is_assigned(var) || self.unassigned_on_every_path(var, block) {
            // Only the initial definition reaches `block`: no look-up, no
            // phi, nothing recorded (see `mod.rs`).
            return self.initial_value(var);
        }
        if let Some(v) = self.defs.get(var.0, block) {
            // Local value numbering (Alg. 1): what `use_var` would find at
            // once, without its bookkeeping.
            return self.resolve(v);
        }
        // The lookup stack is a scratch vector of the builder, kept between
        // look-ups (empty between them). Look-ups never nest: the marks of
        // the marker variant are per block, not per (block, variable).
        debug_assert!(!self.in_lookup, "a look-up started inside another");
        self.in_lookup = true;
        let mut stack = std::mem::take(&mut self.lookup_stack);
        let mut step = self.use_var(var, block);
        loop {
            match step {
                LookupStep::AskPredecessors(lookup) => {
                    if let Some(phi) = lookup.phi {
                        self.phis.set_provisional(phi, stack.len());
                    }
                    stack.push(lookup);
                }
                LookupStep::Found(v) => match stack.last_mut() {
                    None => {
                        self.lookup_stack = stack;
                        self.in_lookup = false;
                        return self.resolve(v);
                    }
                    Some(top) => match top.phi {
                        Some(phi) => self.append_lookup_operand(&stack, phi, v),
                        None => self.phi_args.push(v),
                    },
                },
            }
            let top = stack.last_mut().expect("a lookup is pending");
            let preds = &self.blocks[top.block].preds;
            if top.next_pred < preds.len() {
                let p = preds[top.next_pred];
                top.next_pred += 1;
                step = self.use_var(var, p);
            } else {
                let lookup = stack.pop().expect("a lookup is pending");
                step = LookupStep::Found(self.finish_predecessors_lookup(lookup));
            }
        }
    }

    /// The stack state `UseVar`: walks back from `block` through
    /// single-predecessor blocks until a definition is found or a block needs
    /// its predecessors asked (a `PredecessorsLookup`).
    fn use_var(&mut self, var: Var, block: Block) -> LookupStep {
        self.new_walk_epoch();
        let path_start = self.walk_path.len();
        let mut b = block;
        let value = loop {
            if let Some(v) = self.defs.get(var.0, b) {
                break v;
            }
            if b == ir::Function::ENTRY || self.unassigned_on_every_path(var, b) {
                let v = self.initial_value(var);
                self.write_variable(var, b, v);
                break v;
            }
            let sealed = self.blocks[b].sealed;
            let npreds = self.blocks[b].preds.len();
            let through = match (sealed, npreds) {
                // Alg. 2: one predecessor, no phi needed.
                (true, 1) => Some(self.blocks[b].preds[0]),
                (true, 0) => None,
                // A loop header (the loop may be open) or a join whose
                // statement never assigns the variable: the value on entry
                // to the statement is the value here, and the phi Alg. 2
                // would place here is trivial (note (h) of the proof note).
                _ => self.entry_of_region_keeping(var, b),
            };
            if let Some(next) = through {
                if self.walk_stamp[b.index()] == self.walk_epoch {
                    // A cycle of such steps: no path from the entry reaches
                    // it (note (h), "Termination").
                    break self.undef_value();
                }
                self.walk_stamp[b.index()] = self.walk_epoch;
                self.walk_path.push(b);
                b = next;
                continue;
            }
            if !sealed {
                // Alg. 2, first case: an incomplete CFG.
                let phi = self.new_phi(b, false);
                self.blocks[b].incomplete.push((var, phi));
                self.write_variable(var, b, phi);
                break phi;
            }
            if npreds == 0 {
                // Unreachable code: Braun et al.'s `Undefined`.
                break self.undef_value();
            }
            if self.opts.marker {
                match self.marker_step(var, b, path_start) {
                    LookupStep::Found(v) => break v,
                    ask => return ask,
                }
            }
            // Alg. 2: break potential cycles with an operandless phi
            // (provisional until something uses it, see the module comment).
            let phi = self.new_provisional_phi(b);
            self.write_variable(var, b, phi);
            return self.ask_predecessors(var, b, Some(phi), path_start);
        };
        self.record_on_path(var, path_start, value);
        LookupStep::Found(value)
    }

    /// Starts a walk of `use_var`: a new epoch of `walk_stamp`, whose
    /// stamps are all cleared when the epoch counter wraps.
    fn new_walk_epoch(&mut self) {
        self.walk_epoch = self.walk_epoch.wrapping_add(1);
        if self.walk_epoch == 0 {
            self.walk_stamp.iter_mut().for_each(|s| *s = 0);
            self.walk_epoch = 1;
        }
    }

    /// The marker variant (§3.3) at the sealed join `b` with predecessors:
    /// a marked block reached again is a cycle, broken by a phi; a block
    /// whose mark is a value has it; an unmarked block is marked and its
    /// predecessors asked.
    fn marker_step(&mut self, var: Var, b: Block, path_start: usize) -> LookupStep {
        let mark = self.marks[b.index()];
        if mark == MARKED {
            // The look-up went round a cycle back to a marked
            // block: place the phi that breaks the cycle (§3.3).
            let phi = self.new_phi(b, false);
            self.marks[b.index()] = phi;
            self.write_variable(var, b, phi);
            return LookupStep::Found(phi);
        }
        if mark != UNMARKED {
            return LookupStep::Found(mark);
        }
        self.marks[b.index()] = MARKED;
        self.ask_predecessors(var, b, None, path_start)
    }

    /// The next stack state: the predecessors of `b` are to be asked, for
    /// the operands of `phi` (none in the marker variant).
    fn ask_predecessors(&self, var: Var, b: Block, phi: Option<Value>, path_start: usize) -> LookupStep {
        LookupStep::AskPredecessors(PredecessorsLookup {
            var,
            block: b,
            phi,
            args_start: self.phi_args.len(),
            next_pred: 0,
            path_start,
        })
    }

    /// The stack state `FinishPredecessorsLookup`: completes a lookup once
    /// every predecessor has answered (Alg. 2, lines 20, 14 and 15).
    fn finish_predecessors_lookup(&mut self, lookup: PredecessorsLookup) -> Value {
        let value = match lookup.phi {
            Some(phi) => {
                // Alg. 2, addPhiOperands: the operands are in; check triviality.
                let value = match self.phis.get_mut(&phi) {
                    Some(d) => {
                        // Something used the phi, which made it a real one.
                        d.complete = true;
                        self.try_remove_trivial_phi(phi)
                    }
                    None => self.try_remove_trivial_provisional(phi, lookup.block, lookup.args_start),
                };
                self.phi_args.truncate(lookup.args_start);
                value
            }
            None => {
                // Marker variant (§3.3): the operands are the lookup's range
                // of `phi_args`.
                let placed = std::mem::replace(&mut self.marks[lookup.block.index()], UNMARKED);
                let (start, end) = (lookup.args_start, self.phi_args.len());
                for i in start..end {
                    let v = self.phi_args[i];
                    self.phi_args[i] = self.resolve(v);
                }
                let value = if placed != MARKED {
                    for i in start..end {
                        let v = self.phi_args[i];
                        self.append_phi_operand(placed, v);
                    }
                    self.phis.get_mut(&placed).expect("marker phi").complete = true;
                    self.try_remove_trivial_phi(placed)
                } else {
                    let first = self.phi_args[start];
                    match self.phi_args[start..end].iter().position(|&v| v != first) {
                        None => first,
                        Some(k) => {
                            // Two different definitions: the new phi is not
                            // trivial (neither is the phi itself, which did
                            // not exist when they were found), so Alg. 3
                            // would only find that out again. The pair is
                            // the witness it would record (§3.1).
                            let phi = self.new_phi(lookup.block, false);
                            for i in start..end {
                                let v = self.phi_args[i];
                                self.append_phi_operand(phi, v);
                            }
                            let d = self.phis.get_mut(&phi).expect("new phi");
                            d.complete = true;
                            if self.opts.witness_cache {
                                d.witness = Some((0, k as u32));
                            }
                            debug_assert!(trivial_operand(&d.args, &mut self.alias, phi).is_none());
                            phi
                        }
                    }
                };
                self.phi_args.truncate(start);
                value
            }
        };
        let value = self.resolve(value);
        self.write_variable(lookup.var, lookup.block, value);
        self.record_on_path(lookup.var, lookup.path_start, value);
        value
    }

    /// `phi.appendOperand(arg)` of Alg. 2 for the phi of the top lookup: into
    /// the phi table if the phi is there, else into the lookup's range of
    /// `phi_args`. An operand that is the provisional phi of a lookup below
    /// (the look-up went round a cycle) enters the table first, with the
    /// operands it has so far, so that it can record this phi as a user, as
    /// `append_phi_operand` does.
    fn append_lookup_operand(&mut self, stack: &[PredecessorsLookup], phi: Value, arg: Value) {
        let arg = self.resolve(arg);
        match self.phis.get_mut(&phi) {
            Some(d) => d.args.push(arg),
            None => self.phi_args.push(arg),
        }
        if arg == phi {
            return;
        }
        if let Some(k) = self.phis.provisional_lookup(arg) {
            let lookup = &stack[k];
            debug_assert_eq!(lookup.phi, Some(arg), "the lookup of a provisional phi");
            let end = stack.get(k + 1).map_or(self.phi_args.len(), |f| f.args_start);
            self.materialize_provisional(arg, lookup.block, lookup.args_start, end, false);
        }
        if let Some(a) = self.phis.get_mut(&arg) {
            a.users.push(phi);
        }
    }

    /// Records `value` in the blocks of `walk_path` from `start` on, and
    /// drops them from it.
    fn record_on_path(&mut self, var: Var, start: usize, value: Value) {
        for i in start..self.walk_path.len() {
            let p = self.walk_path[i];
            self.write_variable(var, p, value);
        }
        self.walk_path.truncate(start);
    }

    fn initial_value(&mut self, var: Var) -> Value {
        if let Some(&v) = self.initial.get(&var) {
            return self.resolve(v);
        }
        // Variables start at 0 on entry.
        let v = self.materialize_in(ir::Function::ENTRY, Operand::Imm(0));
        self.initial.insert(var, v);
        self.note_binding(v);
        v
    }

    // ----- Algorithm 4: sealing -----

    pub(super) fn seal_block(&mut self, block: Block) {
        debug_assert!(!self.blocks[block].sealed, "{block} sealed twice");
        self.blocks[block].sealed = true;
        let incomplete = std::mem::take(&mut self.blocks[block].incomplete);
        for (var, phi) in incomplete {
            // addPhiOperands for each incomplete phi.
            let npreds = self.blocks[block].preds.len();
            for i in 0..npreds {
                let p = self.blocks[block].preds[i];
                let v = self.read_variable(var, p);
                self.append_phi_operand(phi, v);
            }
            self.phis.get_mut(&phi).expect("incomplete phi").complete = true;
            self.try_remove_trivial_phi(phi);
        }
    }
}
