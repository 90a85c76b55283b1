//! Recognisers, on SSA form, of the situations that make out-of-SSA
//! translation hard, after Boissinot, Darte, Rastello, Dupont de Dinechin
//! and Guillon, "Revisiting Out-of-SSA Translation for Correctness, Code
//! Quality, and Efficiency" (CGO 2009), §II-A, and Briggs, Cooper, Harvey
//! and Simpson, "Practical Improvements to the Construction and Destruction
//! of Static Single Assignment Form" (SP&E 1998).
//!
//! The phis of a block `B` are parallel copies on its incoming edges: on
//! edge `i` (from `B.preds[i]`), every phi `p` of `B` gets `p.args[i]`. The
//! recognisers look at these copies, edge by edge:
//! - swap: two phis `p`, `q` of `B` with `p.args[i] == q` and
//!   `q.args[i] == p`: the copies exchange two values, and no order of
//!   sequential copies is right without a temporary;
//! - rotation: a cycle of three or more phis of `B` under "`p.args[i]` is
//!   phi `q` of `B`";
//! - fan-out: one value is the `i`-th argument of two different phis of `B`;
//! - lost copy: a phi `p` of `B` and a predecessor `P` of `B` such that `p`
//!   is live at the end of `P` for a reason other than the phi arguments on
//!   `P`'s own edges, that is `p ∈ LiveIn(S)` for a successor `S` of `P`.
//!   A copy into `p` at the end of `P` then overwrites a value still needed
//!   on the way to `S` (the edge `P → B` is critical);
//! - branch-use (Boissinot et al., Fig. 1): a block `P` ending in
//!   `br u, ..`, a successor `S` of `P` with a phi whose arguments hold `u`
//!   on some edge and a value other than `u` on an edge from `P`. The copy
//!   for that edge must go before the branch, where `u` is still live, so
//!   checking the copy against `LiveOut(P)` alone is not enough;
//! - critical edge: an edge from a block with two successors to a block
//!   with two or more predecessors;
//! - memory web: two loads whose addresses are one value or
//!   provably alias (equal modulo 4096 after following copies and the
//!   addition or subtraction of constants: `mem[a]` and `mem[a + 4096]`),
//!   a store to an aliasing address between them on some path, and
//!   results that flow, through copies, into one phi-congruence class
//!   (the same phi, or phis linked by their arguments). The two results
//!   are different values although their instructions look alike, so
//!   value-based interference (Boissinot et al. §III-A) must not take them
//!   as equal;
//! - irreducible: [`is_reducible`] is false.
//!
//! Liveness is `liveness::compute_liveness` (Pereira §4.1: a phi argument
//! is used at the end of its predecessor, on that edge only). Its live-in
//! sets hold every phi result of their block; the lost-copy test only asks
//! about *other* successors of the predecessor, so that changes nothing.

use crate::analysis::cssa::{phi_congruence_classes, ClassId};
use crate::analysis::liveness::compute_liveness;
use crate::analysis::reducibility::is_reducible;
use crate::ast::MEM_WORDS;
use crate::entity::EntityRef;
use crate::ir::{BinOp, Block, Function, Module, Op, Terminator, Value};
use std::collections::{HashMap, HashSet};

/// Which situations a function or module contains.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Patterns {
    pub has_phis: bool,
    pub irreducible: bool,
    pub swap: bool,
    pub lost_copy: bool,
    pub branch_use: bool,
    pub rotation: bool,
    pub fan_out: bool,
    pub critical_edge: bool,
    pub mem_web: bool,
}

impl Patterns {
    /// The situations of one function.
    pub fn of_function(f: &Function) -> Patterns {
        Patterns {
            has_phis: f.phi_count() > 0,
            irreducible: !is_reducible(f),
            swap: has_swap(f),
            lost_copy: has_lost_copy(f),
            branch_use: has_branch_use(f),
            rotation: has_rotation(f),
            fan_out: has_fan_out(f),
            critical_edge: has_critical_edge(f),
            mem_web: has_mem_web(f),
        }
    }

    /// The situations of any function of a module.
    pub fn of_module(m: &Module) -> Patterns {
        let mut p = Patterns::default();
        for f in &m.functions {
            let q = Patterns::of_function(f);
            p.has_phis |= q.has_phis;
            p.irreducible |= q.irreducible;
            p.swap |= q.swap;
            p.lost_copy |= q.lost_copy;
            p.branch_use |= q.branch_use;
            p.rotation |= q.rotation;
            p.fan_out |= q.fan_out;
            p.critical_edge |= q.critical_edge;
            p.mem_web |= q.mem_web;
        }
        p
    }
}

/// For each phi of `b`, on edge `i`: the index (among `b`'s phis) of the
/// phi that is its argument, if the argument is a phi of `b`.
fn phi_successor_on_edge(f: &Function, b: Block, i: usize) -> Vec<Option<usize>> {
    let phis = &f.blocks[b].phis;
    let index: HashMap<Value, usize> = phis.iter().enumerate().map(|(k, p)| (p.dest, k)).collect();
    phis.iter().map(|p| p.args.get(i).and_then(|a| index.get(a).copied())).collect()
}

/// Two phis of one block that exchange their values on some edge.
pub fn has_swap(f: &Function) -> bool {
    for b in f.blocks.keys() {
        for i in 0..f.blocks[b].preds.len() {
            let next = phi_successor_on_edge(f, b, i);
            for (p, &q) in next.iter().enumerate() {
                if let Some(q) = q {
                    if q != p && next[q] == Some(p) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// A cycle of three or more phis of one block, each the argument of the
/// previous one on the same edge.
pub fn has_rotation(f: &Function) -> bool {
    for b in f.blocks.keys() {
        for i in 0..f.blocks[b].preds.len() {
            let next = phi_successor_on_edge(f, b, i);
            // `next` is a functional graph: walk from each phi, and find the
            // length of the cycle the walk ends in, if any.
            let n = next.len();
            let mut state = vec![0u8; n]; // 0 new, 1 on the current walk, 2 done
            for start in 0..n {
                let mut walk = Vec::new();
                let mut cur = Some(start);
                while let Some(c) = cur {
                    if state[c] != 0 {
                        break;
                    }
                    state[c] = 1;
                    walk.push(c);
                    cur = next[c];
                }
                if let Some(c) = cur {
                    if state[c] == 1 {
                        let pos = walk.iter().position(|&w| w == c).expect("on the walk");
                        if walk.len() - pos >= 3 {
                            return true;
                        }
                    }
                }
                for w in walk {
                    state[w] = 2;
                }
            }
        }
    }
    false
}

/// One value that is the argument of two different phis of one block on
/// the same edge.
pub fn has_fan_out(f: &Function) -> bool {
    for data in f.blocks.values() {
        for i in 0..data.preds.len() {
            let mut seen: Vec<Value> = data.phis.iter().filter_map(|p| p.args.get(i).copied()).collect();
            seen.sort_unstable();
            if seen.windows(2).any(|w| w[0] == w[1]) {
                return true;
            }
        }
    }
    false
}

/// An edge from a block with two successors to a block with two or more
/// predecessors.
pub fn has_critical_edge(f: &Function) -> bool {
    f.blocks.values().any(|d| {
        let succs = d.term.successors();
        succs.len() >= 2 && succs.iter().any(|&s| f.blocks.get(s).is_some_and(|sd| sd.preds.len() >= 2))
    })
}

/// A block ending in `br u, ..` with a successor whose phi has `u` on some
/// edge and another value on an edge from the branching block (Boissinot et
/// al., Fig. 1).
pub fn has_branch_use(f: &Function) -> bool {
    for (p, data) in f.blocks.iter() {
        let Terminator::Branch { cond: u, then_dest, else_dest } = data.term else {
            continue;
        };
        for s in [then_dest, else_dest] {
            let Some(sd) = f.blocks.get(s) else { continue };
            for phi in &sd.phis {
                let has_u = phi.args.contains(&u);
                let other_from_p = sd.preds.iter().zip(&phi.args).any(|(&pred, &a)| pred == p && a != u);
                if has_u && other_from_p {
                    return true;
                }
            }
        }
    }
    false
}

/// A phi `p` of a block `B` and a predecessor `P` of `B` with `p` live into
/// another successor of `P` (the lost-copy problem).
pub fn has_lost_copy(f: &Function) -> bool {
    if f.phi_count() == 0 {
        return false;
    }
    let live = compute_liveness(f);
    for (b, data) in f.blocks.iter() {
        for &p in &data.preds {
            let Some(pd) = f.blocks.get(p) else { continue };
            for s in pd.term.successors() {
                if s == b {
                    continue;
                }
                if data.phis.iter().any(|phi| live.live_in[s].contains(phi.dest)) {
                    return true;
                }
            }
        }
    }
    false
}

/// Where an address points, as far as the code shows without running it:
/// the word `(base + offset) & 4095`, with `base` `None` for a constant
/// address. Two addresses with equal keys name the same word of `mem`
/// whatever the base's value, since 4096 divides 2^64.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct AddressKey {
    base: Option<Value>,
    offset: u64,
}

/// The defining operation of each value an instruction defines.
fn definitions(f: &Function) -> HashMap<Value, &Op> {
    let mut defs = HashMap::new();
    for data in f.blocks.values() {
        for inst in &data.insts {
            if let Some(d) = inst.dest {
                defs.insert(d, &inst.op);
            }
        }
    }
    defs
}

/// The constant `v` holds, through copies.
fn constant_of(defs: &HashMap<Value, &Op>, mut v: Value) -> Option<i64> {
    for _ in 0..defs.len() + 1 {
        match defs.get(&v)? {
            Op::Const(c) => return Some(*c),
            Op::Copy(a) => v = *a,
            _ => return None,
        }
    }
    None
}

/// The [`AddressKey`] of address `v`: copies followed, constants added or
/// subtracted moved into the offset.
fn address_key(defs: &HashMap<Value, &Op>, v: Value) -> AddressKey {
    let (mut cur, mut offset) = (v, 0i64);
    // Each step goes to an operand, defined earlier: the walk ends, and the
    // bound only guards against a malformed function.
    for _ in 0..defs.len() + 1 {
        match defs.get(&cur) {
            Some(Op::Const(c)) => {
                return AddressKey { base: None, offset: c.wrapping_add(offset) as u64 % MEM_WORDS as u64 };
            }
            Some(Op::Copy(a)) => cur = *a,
            Some(Op::Binary(BinOp::Add, a, b)) => {
                if let Some(c) = constant_of(defs, *b) {
                    offset = offset.wrapping_add(c);
                    cur = *a;
                } else if let Some(c) = constant_of(defs, *a) {
                    offset = offset.wrapping_add(c);
                    cur = *b;
                } else {
                    break;
                }
            }
            Some(Op::Binary(BinOp::Sub, a, b)) => match constant_of(defs, *b) {
                Some(c) => {
                    offset = offset.wrapping_sub(c);
                    cur = *a;
                }
                None => break,
            },
            _ => break,
        }
    }
    AddressKey { base: Some(cur), offset: offset as u64 % MEM_WORDS as u64 }
}

/// Two loads of one address (or of aliasing addresses), a store to it
/// between them on some path, and results that flow through copies into
/// one phi-congruence class (see the module comment).
pub fn has_mem_web(f: &Function) -> bool {
    let defs = definitions(f);
    // Loads and stores by address: (block, index in the block, result).
    let mut loads: HashMap<AddressKey, Vec<(Block, usize, Value)>> = HashMap::new();
    let mut stores: HashMap<AddressKey, Vec<(Block, usize)>> = HashMap::new();
    for (b, data) in f.blocks.iter() {
        for (i, inst) in data.insts.iter().enumerate() {
            match (&inst.op, inst.dest) {
                (Op::Load(a), Some(d)) => loads.entry(address_key(&defs, *a)).or_default().push((b, i, d)),
                (Op::Store { addr, .. }, _) => stores.entry(address_key(&defs, *addr)).or_default().push((b, i)),
                _ => {}
            }
        }
    }
    loads.retain(|key, l| l.len() >= 2 && stores.contains_key(key));
    if loads.is_empty() {
        return false;
    }
    let classes = phi_congruence_classes(f);
    let mut copies: HashMap<Value, Vec<Value>> = HashMap::new();
    for (&d, op) in &defs {
        if let Op::Copy(a) = op {
            copies.entry(*a).or_default().push(d);
        }
    }
    // The phi-congruence classes a value reaches through copies (only
    // classes with a phi: a lone value is a class of its own).
    let webs_of = |v: Value| -> HashSet<ClassId> {
        let mut webs = HashSet::new();
        let mut stack = vec![v];
        let mut seen = HashSet::new();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let c = classes.class_of(x);
            if classes.members(c).len() > 1 {
                webs.insert(c);
            }
            stack.extend(copies.get(&x).into_iter().flatten().copied());
        }
        webs
    };
    let reach = block_reachability(f);
    // Position (b, i) is followed, on some path, by position (c, j).
    let after = |(b, i): (Block, usize), (c, j): (Block, usize)| (b == c && j > i) || reach[b.index()].contains(&c);
    for (key, l) in &loads {
        let webs: Vec<HashSet<ClassId>> = l.iter().map(|&(_, _, d)| webs_of(d)).collect();
        for (x, &(bx, ix, _)) in l.iter().enumerate() {
            for (y, &(by, iy, _)) in l.iter().enumerate() {
                if x == y || webs[x].is_disjoint(&webs[y]) {
                    continue;
                }
                if stores[key].iter().any(|&s| after((bx, ix), s) && after(s, (by, iy))) {
                    return true;
                }
            }
        }
    }
    false
}

/// For each block `b`, the blocks that a path of one or more edges from
/// `b` reaches (`b` itself when it is on a cycle).
fn block_reachability(f: &Function) -> Vec<HashSet<Block>> {
    f.blocks
        .iter()
        .map(|(_, data)| {
            let mut seen = HashSet::new();
            let mut stack = data.term.successors();
            while let Some(s) = stack.pop() {
                if seen.insert(s) {
                    if let Some(sd) = f.blocks.get(s) {
                        stack.extend(sd.term.successors());
                    }
                }
            }
            seen
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ssa_text::parse_module;

    fn func(src: &str) -> Function {
        let m = parse_module(src).expect("test SSA parses");
        crate::analysis::verifier::verify_module(&m).expect("test SSA is valid");
        m.functions.into_iter().next().expect("one function")
    }

    /// A loop whose header phis exchange `v1` and `v2` on the back edge.
    const SWAP: &str = "
fn main(v0) {
b0:
    v3 = const 1
    jump b1
b1(b0, b2):
    v1 = phi v0, v2
    v2 = phi v3, v1
    v4 = lt v1, v2
    br v4, b2, b3
b2(b1):
    jump b1
b3(b1):
    ret v1
}";

    #[test]
    fn swap_is_found_on_the_back_edge_and_not_without_it() {
        assert!(has_swap(&func(SWAP)));
        assert!(!has_rotation(&func(SWAP)), "a 2-cycle is a swap, not a rotation");
        let chain = SWAP.replace("v2 = phi v3, v1", "v2 = phi v3, v4").replace("v4 = lt v1, v2", "v4 = lt v1, v0");
        assert!(!has_swap(&func(&chain)), "v2 takes another value: no exchange");
    }

    #[test]
    fn rotation_needs_a_cycle_of_three_phis() {
        let src = "
fn main(v0) {
b0:
    v4 = const 1
    v5 = const 2
    jump b1
b1(b0, b2):
    v1 = phi v0, v2
    v2 = phi v4, v3
    v3 = phi v5, v1
    v6 = lt v1, v3
    br v6, b2, b3
b2(b1):
    jump b1
b3(b1):
    v7 = add v1, v2
    ret v7
}";
        assert!(has_rotation(&func(src)));
        assert!(!has_swap(&func(src)));
        // Breaking the cycle (v3 gets v0 on the back edge) leaves a chain.
        let chain = src.replace("v3 = phi v5, v1", "v3 = phi v5, v0");
        assert!(!has_rotation(&func(&chain)));
    }

    #[test]
    fn fan_out_is_one_value_into_two_phis_on_one_edge() {
        let src = "
fn main(v0, v1) {
b0:
    br v0, b1, b2
b1(b0):
    v2 = const 3
    jump b3
b2(b0):
    v3 = const 4
    jump b3
b3(b1, b2):
    v4 = phi v2, v3
    v5 = phi v2, v1
    v6 = add v4, v5
    ret v6
}";
        assert!(has_fan_out(&func(src)));
        // Different values on every edge: no fan-out.
        let other = src.replace("v5 = phi v2, v1", "v5 = phi v0, v1");
        assert!(!has_fan_out(&func(&other)));
    }

    #[test]
    fn a_critical_edge_goes_from_a_branch_to_a_join() {
        let src = "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0):
    jump b2
b2(b0, b1):
    ret v0
}";
        assert!(has_critical_edge(&func(src)));
        // The same shape with both edges into the join split.
        let split = "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0):
    jump b3
b2(b0):
    jump b3
b3(b1, b2):
    ret v0
}";
        assert!(!has_critical_edge(&func(split)));
    }

    /// Boissinot et al., Fig. 1: B2 (here b2) branches on u (v1) and flows
    /// v (v2) into w = phi(u, v) of B3 (b3), which gets u from B1 (b1).
    const FIG1: &str = "
fn main(v0, v1) {
b0:
    br v0, b1, b2
b1(b0):
    jump b3
b2(b0):
    v2 = add v1, v1
    br v1, b3, b4
b3(b1, b2):
    v3 = phi v1, v2
    ret v3
b4(b2):
    ret v1
}";

    #[test]
    fn branch_use_is_boissinot_fig1() {
        assert!(has_branch_use(&func(FIG1)));
        // Branching on another value, or passing u itself from the branching
        // block, is not the situation.
        let other_cond = FIG1.replace("br v1, b3, b4", "br v2, b3, b4");
        assert!(!has_branch_use(&func(&other_cond)));
        let same = FIG1.replace("v3 = phi v1, v2", "v3 = phi v0, v1");
        assert!(!has_branch_use(&func(&same)), "u flows from the branching block: no copy conflicts with it");
    }

    /// Briggs et al.'s lost-copy problem after copy propagation: the loop
    /// `x2 = phi(x1, x3); x3 = x2 + 1; if (c) loop;` closed by a
    /// conditional branch, and x2 used after the loop.
    const LOST_COPY: &str = "
fn main(v0) {
b0:
    v1 = const 1
    jump b1
b1(b0, b1):
    v2 = phi v1, v3
    v4 = const 1
    v3 = add v2, v4
    v5 = lt v3, v0
    br v5, b1, b2
b2(b1):
    ret v2
}";

    #[test]
    fn lost_copy_is_a_phi_live_past_its_back_edge() {
        let f = func(LOST_COPY);
        assert!(has_lost_copy(&f));
        let live = compute_liveness(&f);
        assert!(live.live_in[Block(2)].contains(Value(2)), "x2 is used after the loop");
        assert!(!live.live_in[Block(2)].contains(Value(3)), "x3 is not used after the loop");
        assert!(live.live_out[Block(1)].contains(Value(3)), "x3 flows round the back edge");
        // Using x3 after the loop instead: nothing is lost.
        let fine = LOST_COPY.replace("b2(b1):\n    ret v2", "b2(b1):\n    ret v3");
        assert!(!has_lost_copy(&func(&fine)));
    }

    #[test]
    fn a_top_tested_loop_has_no_lost_copy() {
        // The exit leaves from the header, where the phi is defined.
        let src = "
fn main(v0) {
b0:
    v1 = const 1
    jump b1
b1(b0, b2):
    v2 = phi v1, v3
    v5 = lt v2, v0
    br v5, b2, b3
b2(b1):
    v4 = const 1
    v3 = add v2, v4
    jump b1
b3(b1):
    ret v2
}";
        assert!(!has_lost_copy(&func(src)));
        assert!(!has_critical_edge(&func(src)));
    }

    #[test]
    fn irreducibility_and_phis_are_reported() {
        let src = "
fn main(v0) {
b0:
    br v0, b1, b2
b1(b0, b2):
    jump b2
b2(b0, b1):
    br v0, b1, b3
b3(b2):
    ret v0
}";
        let p = Patterns::of_function(&func(src));
        assert!(p.irreducible);
        assert!(!p.has_phis);
        let q = Patterns::of_function(&func(SWAP));
        assert!(!q.irreducible && q.has_phis && q.swap);
    }

    /// `x = mem[a]; mem[a + 4096] = x + 1; y = mem[a];` then `w = phi(x,
    /// y)` at a join, with `x` still used there.
    const MEM_WEB: &str = "
fn main(v0, v1) {
b0:
    v2 = load v0
    v3 = const 4096
    v4 = add v0, v3
    v5 = const 1
    v6 = add v2, v5
    store v4, v6
    v7 = load v0
    br v1, b1, b2
b1(b0):
    jump b2
b2(b0, b1):
    v8 = phi v2, v7
    v9 = sub v8, v2
    ret v9
}";

    #[test]
    fn mem_web_is_two_loads_of_one_word_with_a_store_between_meeting_in_a_phi() {
        assert!(has_mem_web(&func(MEM_WEB)));
        assert!(Patterns::of_function(&func(MEM_WEB)).mem_web);
        // Through a copy into the phi.
        let copied = MEM_WEB
            .replace("b1(b0):\n    jump b2", "b1(b0):\n    v10 = copy v7\n    jump b2")
            .replace("v8 = phi v2, v7", "v8 = phi v2, v10");
        assert!(has_mem_web(&func(&copied)));
        // The store after both loads: nothing between them.
        let store_after =
            MEM_WEB.replace("    store v4, v6\n    v7 = load v0\n", "    v7 = load v0\n    store v4, v6\n");
        assert!(!has_mem_web(&func(&store_after)));
        // The store to a word that does not alias (`a + 4097`).
        let other_word = MEM_WEB.replace("v3 = const 4096", "v3 = const 4097");
        assert!(!has_mem_web(&func(&other_word)));
        // The second load from another address.
        let other_address = MEM_WEB.replace("v7 = load v0", "v7 = load v5");
        assert!(!has_mem_web(&func(&other_address)));
        // The two loads never meet in a phi.
        let apart = MEM_WEB.replace("v8 = phi v2, v7", "v8 = phi v2, v0");
        assert!(!has_mem_web(&func(&apart)));
        // No store at all.
        let no_store = MEM_WEB.replace("    store v4, v6\n", "    out v6\n");
        assert!(!has_mem_web(&func(&no_store)));
    }

    /// A loaded value carried round a loop: the header phi merges a load
    /// before the loop with a reload after a store to an alias (constant
    /// addresses 7 and 4103 name the same word).
    const MEM_LOOP: &str = "
fn main(v0) {
b0:
    v1 = const 7
    v2 = load v1
    jump b1
b1(b0, b2):
    v3 = phi v2, v6
    v4 = lt v3, v0
    br v4, b2, b3
b2(b1):
    v5 = const 4103
    store v5, v0
    v6 = load v1
    jump b1
b3(b1):
    v7 = sub v3, v2
    ret v7
}";

    #[test]
    fn mem_web_round_a_loop_and_through_two_phis() {
        assert!(has_mem_web(&func(MEM_LOOP)));
        // The store to word 8 does not alias word 7.
        assert!(!has_mem_web(&func(&MEM_LOOP.replace("v5 = const 4103", "v5 = const 4104"))));
        // A web of two phis: the loads meet in the class of the header phi
        // through a second phi in the loop body.
        let two_phis = "
fn main(v0, v8) {
b0:
    v1 = const 7
    v2 = load v1
    jump b1
b1(b0, b4):
    v3 = phi v2, v9
    v4 = lt v3, v0
    br v4, b2, b5
b2(b1):
    v5 = const 4103
    store v5, v0
    v6 = load v1
    br v8, b3, b4
b3(b2):
    jump b4
b4(b2, b3):
    v9 = phi v6, v0
    jump b1
b5(b1):
    v7 = sub v3, v2
    ret v7
}";
        assert!(has_mem_web(&func(two_phis)));
        // Without the store, the reload reads what the first load read.
        assert!(!has_mem_web(&func(&two_phis.replace("    store v5, v0\n", ""))));
    }
}
