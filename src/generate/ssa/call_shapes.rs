//! The call situations of an SSA module, measured on the module itself
//! (not on what the generator meant to make): the rows `call: ...` of
//! `ssaref gen --ir --calls --stats`, named as the source level's
//! (`generate/source/calls.rs`, `CallFeatures::NAMES`) where they mean the
//! same.

use crate::analysis::liveness::{compute_liveness, live_after_each_inst};
use crate::analysis::loops::loop_depth;
use crate::analysis::scc::tarjan_sccs;
use crate::generate::source::calls::CallFeatures;
use crate::ir::{Module, Op};

/// Which call situations a module has (any of its functions).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct CallShapes {
    /// At least one call.
    pub calls: bool,
    /// A function that calls itself.
    pub self_recursion: bool,
    /// Two or more functions that call each other (a cycle of the call
    /// graph through two or more functions).
    pub mutual_recursion: bool,
    /// A call in a block inside a cycle of the CFG.
    pub in_cycle: bool,
    /// A call in a block with two or more phis.
    pub in_phi_block: bool,
    /// Two of the caller's parameters passed in the reverse of their order.
    pub permuted_args: bool,
    /// A call with more than six arguments.
    pub many_args: bool,
    /// Eight or more values live across a call (its result not counted).
    pub pressure_across_call: bool,
    /// A call whose result no instruction, phi or terminator reads.
    pub result_unused: bool,
}

impl CallShapes {
    /// The situations' names, in the order of [`CallShapes::flags`]: the
    /// source level's, but for the fifth, a block with phis where the
    /// source has a branch of an `if`.
    pub const NAMES: [&'static str; 9] = {
        let mut names = CallFeatures::NAMES;
        names[4] = "call-in-block-with-phis";
        names
    };

    /// The situations as flags, in the order of [`CallShapes::NAMES`].
    pub fn flags(&self) -> [bool; 9] {
        [
            self.calls,
            self.self_recursion,
            self.mutual_recursion,
            self.in_cycle,
            self.in_phi_block,
            self.permuted_args,
            self.many_args,
            self.pressure_across_call,
            self.result_unused,
        ]
    }

    /// The call situations of `m`.
    pub fn of_module(m: &Module) -> CallShapes {
        let mut s = CallShapes::default();
        let index = |name: &str| m.functions.iter().position(|f| f.name == name);
        let mut graph: Vec<Vec<usize>> = vec![Vec::new(); m.functions.len()];
        for (fi, f) in m.functions.iter().enumerate() {
            let mut has_call = false;
            for data in f.blocks.values() {
                for inst in &data.insts {
                    if let Op::Call(call) = &inst.op {
                        has_call = true;
                        graph[fi].extend(index(&call.callee));
                        s.many_args |= call.args.len() > 6;
                        let positions: Vec<usize> =
                            call.args.iter().filter_map(|a| f.params.iter().position(|p| p == a)).collect();
                        s.permuted_args |= positions.windows(2).any(|w| w[0] > w[1]);
                    }
                }
            }
            if has_call {
                s.calls = true;
                s.add_function_shapes(f);
            }
        }
        for (fi, callees) in graph.iter().enumerate() {
            s.self_recursion |= callees.contains(&fi);
        }
        s.mutual_recursion = tarjan_sccs(&graph).iter().any(|c| c.len() >= 2);
        s
    }

    /// The situations of `f`'s calls that need its CFG or liveness.
    fn add_function_shapes(&mut self, f: &crate::ir::Function) {
        let depth = loop_depth(f);
        let live = compute_liveness(f);
        let read = f.read_values();
        for (b, data) in f.blocks.iter() {
            let after = live_after_each_inst(f, b, &live);
            for (i, inst) in data.insts.iter().enumerate() {
                if !inst.op.is_call() {
                    continue;
                }
                self.in_cycle |= depth[b] > 0;
                self.in_phi_block |= data.phis.len() >= 2;
                let across = after[i].iter().filter(|&v| Some(v) != inst.dest).count();
                self.pressure_across_call |= across >= 8;
                self.result_unused |= inst.dest.is_none_or(|d| !read.contains(d));
            }
        }
    }
}
