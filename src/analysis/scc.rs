//! Strongly connected components of a graph given as successor lists
//! (Tarjan, SIAM J. Comput. 1972), without recursion.
//!
//! Braun et al.'s Algorithm 5 runs it on the phi operand graph (in the flat
//! form, [`tarjan_sccs_flat`]: one allocation for all the components, not
//! one per component and per phi), and `loops.rs` on the CFG of irreducible
//! loops. Both forms run the same search and give the same components in the
//! same order.

use crate::analysis::work_steps::step;

/// Tarjan's strongly connected components over `succs`, iteratively.
/// Components come out in reverse topological order of the condensation
/// (a component after every component it has an edge to).
pub fn tarjan_sccs(succs: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut sccs = Vec::new();
    tarjan(succs.len(), |v| &succs[v][..], |comp| sccs.push(comp.to_vec()));
    sccs
}

/// The components of [`tarjan_sccs_flat`]: component `k` is
/// `members[ends[k-1]..ends[k]]` (from 0 for the first), in the order
/// [`tarjan_sccs`] gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlatSccs {
    pub members: Vec<u32>,
    pub ends: Vec<u32>,
}

impl FlatSccs {
    /// The number of components.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when there is no component (the graph is empty).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Component `k`.
    pub fn component(&self, k: usize) -> &[u32] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.members[start..self.ends[k] as usize]
    }
}

/// [`tarjan_sccs`] over a graph in compressed form: the successors of node
/// `v` are `targets[starts[v]..starts[v + 1]]` (`starts` has one entry more
/// than there are nodes).
pub fn tarjan_sccs_flat(starts: &[u32], targets: &[u32]) -> FlatSccs {
    let n = starts.len().saturating_sub(1);
    let mut out = FlatSccs { members: Vec::with_capacity(n), ends: Vec::new() };
    tarjan(
        n,
        |v| &targets[starts[v] as usize..starts[v + 1] as usize],
        |comp| {
            out.members.extend(comp.iter().map(|&w| u32::try_from(w).expect("fewer than 2^32 nodes")));
            out.ends.push(u32::try_from(out.members.len()).expect("fewer than 2^32 nodes"));
        },
    );
    out
}

/// The search itself, for both forms: `succs(v)` lists the successors of
/// node `v`, and `emit` receives each component (in the order its members
/// leave Tarjan's stack).
fn tarjan<'g, T>(n: usize, succs: impl Fn(usize) -> &'g [T], mut emit: impl FnMut(&[usize]))
where
    T: Copy + TryInto<usize> + 'g,
{
    const UNVISITED: usize = usize::MAX;
    let node = |t: T| t.try_into().unwrap_or_else(|_| unreachable!("node numbers fit in usize"));
    let mut index = vec![UNVISITED; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut comp: Vec<usize> = Vec::new();
    let mut call: Vec<(usize, usize)> = Vec::new();
    let mut counter = 0;
    for root in 0..n {
        step(1);
        if index[root] != UNVISITED {
            continue;
        }
        call.push((root, 0));
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            step(1);
            let vs = succs(v);
            if *i < vs.len() {
                let w = node(vs[*i]);
                *i += 1;
                if index[w] == UNVISITED {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    comp.clear();
                    loop {
                        step(1);
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    emit(&comp);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::work_steps::count_steps;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Tarjan's search is linear (the bound Braun et al.'s Algorithm 5
    /// relies on for each phi set it searches): one step per node as a
    /// root candidate, one per edge and per node leaving the call stack,
    /// one per node leaving the component stack, `3n + e` in all. Checked
    /// on random graphs of growing size and density; a second scan of the
    /// roots, which finds every node visited and changes nothing, breaks it.
    #[test]
    fn tarjan_takes_three_steps_per_node_and_one_per_edge() {
        let mut rng = SmallRng::seed_from_u64(41);
        for n in [1usize, 4, 16, 64, 256, 2048] {
            for degree in [0usize, 1, 2, 4] {
                let succs: Vec<Vec<usize>> =
                    (0..n).map(|_| (0..rng.gen_range(0..=degree)).map(|_| rng.gen_range(0..n)).collect()).collect();
                let e: usize = succs.iter().map(Vec::len).sum();
                let (sccs, steps) = count_steps(|| tarjan_sccs(&succs));
                assert_eq!(sccs.iter().map(Vec::len).sum::<usize>(), n);
                assert!(steps <= (3 * n + e) as u64, "{steps} steps for {n} nodes and {e} edges");
            }
        }
    }
}
