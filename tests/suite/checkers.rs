//! Tests of the SSA property checkers (`checkers.rs`) that need Rust, of
//! the reducibility test (`reducibility.rs`) and of the reference
//! construction after Cytron et al. (`cytron.rs`, `cfg_lowering.rs`).
//!
//! The hand-written functions after Braun et al., "Simple and Efficient
//! Construction of Static Single Assignment Form" (CC 2013), with each
//! checker's verdict, are the filetests of
//! `tests/filetests/checkers/ssa-properties/`: a dead phi cycle (not pruned,
//! §4), a trivial phi (§2.2), the redundant two-entry-loop phis of Fig. 5
//! (§3.2) and the inner redundant SCC of Fig. 6, each with a corrected
//! version that the checkers accept. Here: the phi-count comparison and the
//! reducibility of those functions, `check_minimal` against a brute-force
//! reading of the definition of a redundant phi set on thousands of random
//! phi graphs, and Cytron et al.'s construction.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::reducibility::is_reducible;
use ssaref::analysis::verifier::verify_function;
use ssaref::ast::{self, BinOp, Expr, Program, Stmt};
use ssaref::checkers::ssa_properties::{check_minimal, check_no_trivial_phis, check_pruned, compare_phi_counts};
use ssaref::construction::cytron::construct_cytron;
use ssaref::entity::EntityVec;
use ssaref::ir::{Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, Value};
use ssaref::ssa_text::{parse_function, parse_module};

/// Parses a function in the SSA text form and checks that it is valid SSA,
/// so that a checker's verdict on it is about the property under test.
fn ssa(text: &str) -> Function {
    let f = parse_function(text).unwrap_or_else(|e| panic!("test function does not parse: {e}\n{text}"));
    verify_function(&f).unwrap_or_else(|e| panic!("test function is not valid SSA: {e}\n{text}"));
    f
}

fn program(src: &str) -> Program {
    let p = ssaref::frontend::parser::parse_program(src).unwrap_or_else(|e| panic!("test program does not parse: {e}"));
    p.validate().expect("the parser checks what validate checks");
    p
}

/// Runs `f` on a thread with a 2 MiB stack and returns its result.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn a test thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The one function of the filetest `checkers/ssa-properties/NAME.ssa`,
/// checked to be valid SSA.
fn filetest(name: &str) -> Function {
    let f = crate::filetests::function(&format!("checkers/ssa-properties/{name}.ssa"));
    verify_function(&f).unwrap_or_else(|e| panic!("{name} is not valid SSA: {e}"));
    f
}

/// The phi count of each block, in block order.
fn phis_per_block(f: &Function) -> Vec<usize> {
    f.blocks.values().map(|b| b.phis.len()).collect()
}

// ---------------------------------------------------------------------------
// The hand-written functions of the filetests
// ---------------------------------------------------------------------------

#[test]
fn phi_counts_compare_function_by_function() {
    let module = |names: &[&str]| Module { functions: names.iter().map(|n| filetest(n)).collect() };
    let braun = module(&["braun-fig5-minimal", "necessary-loop-phi"]);
    let cytron = module(&["braun-fig5-redundant", "necessary-loop-phi"]);
    compare_phi_counts(&braun, &cytron).expect("0 <= 2 and 1 <= 1");
    let err = compare_phi_counts(&cytron, &braun).expect_err("2 > 0");
    assert_eq!(err.function, "fig5");
    assert!(err.message.contains('2') && err.message.contains('0'), "{err}");
    let missing = module(&["braun-fig5-minimal"]);
    compare_phi_counts(&braun, &missing).expect_err("`count` is missing");
    compare_phi_counts(&missing, &braun).expect_err("`count` is missing");
}

#[test]
fn reducibility_of_loops_and_two_entry_cycles() {
    assert!(is_reducible(&filetest("necessary-loop-phi")));
    assert!(is_reducible(&filetest("trivial-phi")));
    let dead = parse_module(&crate::filetests::read("checkers/ssa-properties/dead-phi-cycle.ssa")).expect("parses");
    assert!(dead.functions.iter().all(is_reducible), "a loop with an if inside");
    for fig5 in ["braun-fig5-redundant", "braun-fig5-minimal"] {
        assert!(!is_reducible(&filetest(fig5)), "{fig5}: a cycle entered at b1 and at b2");
    }
    for fig6 in ["braun-fig6-inner-redundant", "braun-fig6-minimal"] {
        assert!(!is_reducible(&filetest(fig6)), "{fig6}: an irreducible loop inside a reducible one");
    }
    let self_loop = ssa("fn s(v0) {\nb0:\n    jump b1\nb1(b0, b1):\n    br v0, b1, b2\nb2(b1):\n    ret v0\n}\n");
    assert!(is_reducible(&self_loop));
    // A retreating edge to a block that does not dominate its source makes
    // a cycle with two entries, whatever order the search takes.
    let two_entries =
        ssa("fn t(v0) {\nb0:\n    br v0, b2, b1\nb1(b0, b2):\n    jump b2\nb2(b0, b1):\n    br v0, b1, b3\nb3(b2):\n    ret v0\n}\n");
    assert!(!is_reducible(&two_entries));
}

// ---------------------------------------------------------------------------
// check_minimal against the definition, on random phi graphs
// ---------------------------------------------------------------------------

/// A function whose only purpose is its phi graph: values `v0..v(leaves)`
/// are parameters and `b1` holds `args.len()` phis with the given
/// arguments (indices into leaves then phis). It is not valid SSA (the phis
/// have any number of arguments), which the checkers must tolerate.
fn phi_graph(leaves: usize, args: &[Vec<usize>], uses: &[usize]) -> Function {
    let value = |i: usize| Value(i as u32);
    let phis: Vec<Phi> = args
        .iter()
        .enumerate()
        .map(|(i, a)| Phi { dest: value(leaves + i), args: a.iter().map(|&x| value(x)).collect() })
        .collect();
    let insts: Vec<Inst> = uses.iter().map(|&u| Inst { dest: None, op: Op::Out(value(u)) }).collect();
    let mut blocks: EntityVec<Block, BlockData> = EntityVec::new();
    blocks.push(BlockData { preds: vec![], phis: vec![], insts: vec![], term: Terminator::Jump(Block(1)) });
    blocks.push(BlockData { preds: vec![Block(0)], phis, insts, term: Terminator::Return(value(0)) });
    Function {
        name: "graph".into(),
        params: (0..leaves).map(value).collect(),
        blocks,
        value_count: (leaves + args.len()) as u32,
    }
}

/// The definition of Braun et al. §3.2, read literally: is there a
/// non-empty set P of phis and a value v with every argument of every phi
/// of P in P ∪ {v}? Tries every subset and every value.
fn has_redundant_set_by_brute_force(leaves: usize, args: &[Vec<usize>]) -> bool {
    let k = args.len();
    (1u32..1 << k).any(|set| {
        (0..leaves + k).any(|v| {
            (0..k)
                .filter(|&p| set & (1 << p) != 0)
                .all(|p| args[p].iter().all(|&a| a == v || (a >= leaves && set & (1 << (a - leaves)) != 0)))
        })
    })
}

/// Is some phi not connected to a non-phi use by a chain of uses? Searches
/// forward from each phi along its users.
fn has_dead_phi_by_search(leaves: usize, args: &[Vec<usize>], uses: &[usize]) -> bool {
    let k = args.len();
    (0..k).any(|start| {
        let mut seen = vec![false; k];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(p) = stack.pop() {
            if uses.contains(&(leaves + p)) {
                return false;
            }
            for (user, a) in args.iter().enumerate() {
                if a.contains(&(leaves + p)) && !seen[user] {
                    seen[user] = true;
                    stack.push(user);
                }
            }
        }
        true
    })
}

#[test]
fn checkers_agree_with_the_definitions_on_random_phi_graphs() {
    let mut rng = SmallRng::seed_from_u64(0x5eed_c7c0);
    let (mut redundant, mut dead, mut trivial) = (0, 0, 0);
    let rounds = 30_000;
    for _ in 0..rounds {
        let leaves = rng.gen_range(1..=4);
        let k = rng.gen_range(1..=6);
        let n = leaves + k;
        // How often an argument is a leaf rather than another phi varies per
        // graph; a phi names itself now and then, and has fewer than two
        // arguments rarely (else most graphs would hold a trivial phi).
        let leaf_percent = rng.gen_range(10..60);
        let args: Vec<Vec<usize>> = (0..k)
            .map(|p| {
                let arity = match rng.gen_range(0..100) {
                    0 => 0,
                    1 | 2 => 1,
                    _ => rng.gen_range(2..=4),
                };
                (0..arity)
                    .map(|_| {
                        let roll = rng.gen_range(0..100);
                        if roll < 5 {
                            leaves + p
                        } else if roll < leaf_percent || k == 1 {
                            rng.gen_range(0..leaves)
                        } else {
                            let other = rng.gen_range(0..k - 1);
                            leaves + if other < p { other } else { other + 1 }
                        }
                    })
                    .collect()
            })
            .collect();
        let uses: Vec<usize> = (0..rng.gen_range(0..=3))
            .map(|_| if rng.gen_ratio(4, 5) { rng.gen_range(leaves..n) } else { rng.gen_range(0..n) })
            .collect();
        let f = phi_graph(leaves, &args, &uses);

        let expect_redundant = has_redundant_set_by_brute_force(leaves, &args);
        assert_eq!(check_minimal(&f).is_err(), expect_redundant, "check_minimal on {args:?} (leaves {leaves})");
        redundant += usize::from(expect_redundant);

        let expect_trivial = args.iter().enumerate().any(|(p, a)| {
            let mut others = a.iter().filter(|&&x| x != leaves + p);
            let first = others.next();
            others.all(|x| Some(x) == first)
        });
        assert_eq!(check_no_trivial_phis(&f).is_err(), expect_trivial, "check_no_trivial_phis on {args:?}");
        trivial += usize::from(expect_trivial);
        if expect_trivial {
            assert!(expect_redundant, "a trivial phi is a redundant set of one");
        }

        let expect_dead = has_dead_phi_by_search(leaves, &args, &uses);
        assert_eq!(check_pruned(&f).is_err(), expect_dead, "check_pruned on {args:?} with uses {uses:?}");
        dead += usize::from(expect_dead);
    }
    // Both verdicts must be common, or the comparison proves little.
    eprintln!(
        "{rounds} random phi graphs: {redundant} redundant, {trivial} with a trivial phi, {dead} with a dead phi"
    );
    for (what, count) in [("redundant", redundant), ("trivial", trivial), ("dead", dead)] {
        assert!(count > rounds / 10 && count < rounds * 9 / 10, "{what}: {count} of {rounds}");
    }
    assert!(redundant > trivial + rounds / 50, "redundant sets that are not single trivial phis must be common");
}

#[test]
fn checkers_do_not_panic_on_values_past_value_count() {
    let mut f = phi_graph(1, &[vec![0, 9], vec![1, 7]], &[8]);
    f.value_count = 2;
    let _ = check_pruned(&f);
    let _ = check_no_trivial_phis(&f);
    let _ = check_minimal(&f);
}

// ---------------------------------------------------------------------------
// The Cytron et al. construction
// ---------------------------------------------------------------------------

/// Builds the program with Cytron et al.'s construction and checks that
/// every function is valid SSA and pruned; also minimal and free of
/// trivial phis when its CFG is reducible (Braun et al., Theorem 1).
fn cytron(p: &Program) -> Module {
    let m = construct_cytron(p);
    assert_eq!(m.functions.len(), p.functions.len());
    for f in &m.functions {
        verify_function(f).unwrap_or_else(|e| panic!("{e}\n{}", ssaref::ssa_text::print_function(f)));
        check_pruned(f).unwrap_or_else(|e| panic!("{e}"));
        if is_reducible(f) {
            check_no_trivial_phis(f).unwrap_or_else(|e| panic!("{e}"));
            check_minimal(f).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    m
}

#[test]
fn cytron_while_loop_counter_has_one_header_phi() {
    let m = cytron(&program("fn main(n) { var i = 0; while (i < n) { i = i + 1; } out i; }"));
    let f = &m.functions[0];
    // b0 entry, b1 header, b2 body, b3 exit.
    assert_eq!(phis_per_block(f), [0, 1, 0, 0]);
}

#[test]
fn cytron_if_else_join_has_one_phi_with_arguments_in_edge_order() {
    let m = cytron(&program("fn main(p) { var x = 0; if (p) { x = 1; } else { x = 2; } out x; }"));
    let f = &m.functions[0];
    // b0 entry, b1 then, b2 join, b3 else: the join's predecessors are the
    // end of the then-arm and the end of the else-arm, in that order.
    assert_eq!(phis_per_block(f), [0, 0, 1, 0]);
    let join = &f.blocks[Block(2)];
    assert_eq!(join.preds, [Block(1), Block(3)]);
    let consts: Vec<Option<i64>> = join.phis[0]
        .args
        .iter()
        .map(|&a| {
            f.blocks.values().flat_map(|b| &b.insts).find(|i| i.dest == Some(a)).and_then(|i| match i.op {
                Op::Const(c) => Some(c),
                _ => None,
            })
        })
        .collect();
    assert_eq!(consts, [Some(1), Some(2)]);
}

#[test]
fn cytron_places_no_phi_for_a_variable_never_reassigned() {
    let m = cytron(&program("fn main(p) { var x = 5; if (p) { out x; } out x; }"));
    assert_eq!(m.functions[0].phi_count(), 0);
    // In a loop, only the counter gets a phi.
    let m = cytron(&program("fn main(n) { var x = 5; var i = 0; while (i < n) { out x; i = i + 1; } out x; }"));
    assert_eq!(m.functions[0].phi_count(), 1);
}

#[test]
fn cytron_irreducible_goto_loop_places_phis_only_where_live() {
    // `first` and `second` are both entries of the cycle. x is assigned
    // before and inside it and read at both labels: a phi at each. y is also
    // assigned before and inside, but read only after the loop: live on
    // entry to `second` (whose exit path reads it) but not to `first` (which
    // assigns it before any read), so one phi.
    let p = program(
        "fn main(p) {
            var x = 1;
            var y = 1;
            if (p) { goto second; }
        first:
            out x;
            y = 2;
            x = x + 1;
        second:
            out x;
            if (x < 10) { goto first; }
            out y;
        }",
    );
    let m = cytron(&p);
    let f = &m.functions[0];
    assert!(!is_reducible(f));
    // Blocks: b0 entry, b1 then (goto), b2 join, b3 `second`, b4 `first`,
    // b5 the inner then (goto first), b6 the inner join.
    assert_eq!(f.blocks[Block(3)].preds, [Block(1), Block(4)]);
    assert_eq!(f.blocks[Block(4)].preds, [Block(2), Block(5)]);
    assert_eq!(phis_per_block(f), [0, 0, 0, 2, 1, 0, 0]);
    check_no_trivial_phis(f).expect("no trivial phi");
    check_minimal(f).expect("minimal");
    // Braun et al. with Algorithm 5 places no more.
    let braun = ssaref::construction::braun::construct_program(&p, &ssaref::construction::braun::BraunOptions::plain());
    compare_phi_counts(&braun, &m).expect("Braun <= Cytron");
}

#[test]
fn cytron_short_circuit_value_gets_a_phi_for_its_hidden_variable() {
    let m = cytron(&program("fn main(p, q) { var x = p && q; out x; }"));
    // b0 evaluates p, b1 evaluates q, b2 joins: one phi, of 0 and (q != 0).
    assert_eq!(phis_per_block(&m.functions[0]), [0, 0, 1]);
    // In jumping code there is no hidden variable; x merges 0 and 1 at the
    // join of the if.
    let m = cytron(&program("fn main(p, q) { var x = 0; if (p || !q) { x = 1; } out x; }"));
    assert_eq!(m.functions[0].phi_count(), 1);
}

#[test]
fn cytron_keeps_only_the_entry_zeros_that_are_read() {
    let m = cytron(&program("fn main() { var x = 1; out x; }"));
    let ops: Vec<&Op> = m.functions[0].blocks[Function::ENTRY].insts.iter().map(|i| &i.op).collect();
    assert_eq!(ops, [&Op::Const(1), &Op::Out(Value(0)), &Op::Const(0)], "x's entry 0 is never read");
    let m = cytron(&program("fn main() { out x; }"));
    let ops: Vec<&Op> = m.functions[0].blocks[Function::ENTRY].insts.iter().map(|i| &i.op).collect();
    assert_eq!(ops, [&Op::Const(0), &Op::Out(Value(0)), &Op::Const(0)], "x's entry 0 is read");
}

#[test]
fn cytron_copies_and_drops_unreachable_code() {
    let m = cytron(&program(
        "fn main(a) { var b = a; return b; out 7; while (1) { b = b + 1; } }
         fn other(x) { if (x) { return 1; } else { return 2; } }",
    ));
    let main = &m.functions[0];
    assert_eq!(main.blocks.len(), 1, "everything after `return` is unreachable");
    assert_eq!(main.blocks[Function::ENTRY].insts[0].op, Op::Copy(Value(0)));
    assert_eq!(m.functions[1].name, "other");
    // b0, then, join (reached by nobody, so removed), else.
    assert_eq!(m.functions[1].blocks.len(), 3);
}

#[test]
fn cytron_builds_ten_thousand_nested_ifs_on_a_small_stack() {
    let phis = on_small_stack(|| {
        let var = |n: &str| Expr::Var(n.to_string());
        let mut body = ast::Block::new(vec![Stmt::Assign("x".into(), Expr::Lit(1))]);
        for _ in 0..10_000 {
            body = ast::Block::new(vec![Stmt::If(var("p"), body, None)]);
        }
        body.stmts.push(Stmt::Out(var("x")));
        let p = Program { functions: vec![ast::Function { name: "main".into(), params: vec!["p".into()], body }] };
        p.validate().expect("valid");
        let m = construct_cytron(&p);
        let f = &m.functions[0];
        verify_function(f).expect("valid SSA");
        assert!(is_reducible(f));
        check_pruned(f).expect("pruned");
        check_no_trivial_phis(f).expect("no trivial phi");
        check_minimal(f).expect("minimal");
        f.phi_count()
    });
    assert_eq!(phis, 10_000, "one phi for x at each join");
}

#[test]
fn cytron_builds_a_million_statements_on_a_small_stack() {
    let insts = on_small_stack(|| {
        let add = Expr::Binary(BinOp::Add, Box::new(Expr::Var("x".into())), Box::new(Expr::Var("y".into())));
        let mut stmts = vec![Stmt::Assign("x".into(), add); 1_000_000];
        stmts.push(Stmt::Return(Expr::Var("x".into())));
        let p = Program {
            functions: vec![ast::Function {
                name: "main".into(),
                params: vec!["y".into()],
                body: ast::Block::new(stmts),
            }],
        };
        let m = construct_cytron(&p);
        let f = &m.functions[0];
        verify_function(f).expect("valid SSA");
        assert_eq!(f.phi_count(), 0);
        f.inst_count()
    });
    assert_eq!(insts, 1_000_001, "a million adds and x's entry 0, no optimization");
}
