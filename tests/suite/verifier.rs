//! Tests of the SSA verifier (`verifier.rs`): for each of its checks, a
//! function it accepts and functions it rejects, with the exact message; and
//! no panics on garbage.

use pretty_assertions::assert_eq;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::ir_text::{parse_function, parse_module};
use ssaref::analysis::verifier::{verify_function, verify_module, VerifyError};
use ssaref::entity::EntityVec;
use ssaref::ir::{Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, Value};

fn parse(src: &str) -> Function {
    parse_function(src).unwrap_or_else(|e| panic!("parse error {e} in\n{src}"))
}

fn accept(src: &str) {
    let f = parse(src);
    if let Err(e) = verify_function(&f) {
        panic!("rejected: {e}\n{src}");
    }
}

fn reject(src: &str) -> VerifyError {
    let f = parse(src);
    match verify_function(&f) {
        Ok(()) => panic!("accepted:\n{src}"),
        Err(e) => e,
    }
}

/// The rejection message of `src`, as displayed.
fn rejection(src: &str) -> String {
    reject(src).to_string()
}

/// A loop with a phi on the header: valid SSA that every check looks at.
const LOOP: &str = "\
fn main(v0, v1) {
b0:
    v2 = const -5
    v3 = add v0, v2
    store v3, v2
    out v3
    jump b1
b1(b0, b2):
    v4 = phi v2, v6
    v5 = lt v4, v1
    br v5, b2, b3
b2(b1):
    v6 = copy v4
    jump b1
b3(b1):
    ret v4
}
";

#[test]
fn accepts_a_loop() {
    accept(LOOP);
}

#[test]
fn error_fields_name_function_block_and_value() {
    let e = reject("fn f(v0) {\nb0:\n    v1 = add v2, v0\n    ret v1\n}\n");
    assert_eq!(e.function, "f");
    assert_eq!(e.block, Some(Block(0)));
    assert_eq!(e.value, Some(Value(2)));
    assert_eq!(e.message, "v2 is used by `v1 = add v2, v0` in b0 but is never defined");
    assert_eq!(e.to_string(), "function `f`, block b0: v2 is used by `v1 = add v2, v0` in b0 but is never defined");
    // `VerifyError` is an error type.
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().starts_with("function `f`"));
}

// ---------------------------------------------------------------------------
// Check 1: entry without predecessors, every block reachable.
// ---------------------------------------------------------------------------

#[test]
fn check1_accepts_straight_line_and_diamond() {
    accept("fn f(v0) {\nb0:\n    ret v0\n}\n");
    accept(
        "fn f(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    jump b3\nb2(b0):\n    jump b3\n\
         b3(b1, b2):\n    ret v0\n}\n",
    );
}

#[test]
fn check1_rejects_no_blocks() {
    assert_eq!(rejection("fn f(v0) {\n}\n"), "function `f`: the function has no blocks (it needs the entry b0)");
}

#[test]
fn check1_rejects_entry_with_predecessor() {
    assert_eq!(
        rejection("fn f(v0) {\nb0(b1):\n    jump b1\nb1(b0):\n    jump b0\n}\n"),
        "function `f`, block b0: the entry block has a predecessor, b1; b0 must have none"
    );
}

#[test]
fn check1_rejects_unreachable_block() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    ret v0\nb1:\n    ret v0\n}\n"),
        "function `f`, block b1: b1 is not reachable from the entry b0"
    );
}

#[test]
fn check1_rejects_unreachable_cycle() {
    // An unreachable loop has predecessors, but is still unreachable.
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    ret v0\nb1(b2):\n    jump b2\nb2(b1):\n    jump b1\n}\n"),
        "function `f`, block b1: b1 is not reachable from the entry b0"
    );
}

// ---------------------------------------------------------------------------
// Check 2: preds agree with the terminators; successors in range.
// ---------------------------------------------------------------------------

#[test]
fn check2_accepts_duplicate_edges() {
    accept("fn f(v0) {\nb0:\n    v1 = const 1\n    br v0, b1, b1\nb1(b0, b0):\n    v2 = phi v0, v1\n    ret v2\n}\n");
}

#[test]
fn check2_rejects_missing_duplicate_edge() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    br v0, b1, b1\nb1(b0):\n    ret v0\n}\n"),
        "function `f`, block b1: `preds` lists b0 1 time, but the terminator of b0 has 2 edges to b1"
    );
}

#[test]
fn check2_rejects_predecessor_without_edge() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    ret v0\nb2(b0, b1):\n    ret v0\n}\n"),
        "function `f`, block b2: `preds` lists b1 1 time, but the terminator of b1 has 0 edges to b2"
    );
}

#[test]
fn check2_rejects_edge_missing_from_preds() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    jump b1\nb1:\n    ret v0\n}\n"),
        "function `f`, block b1: `preds` lists b0 0 times, but the terminator of b0 has 1 edge to b1"
    );
}

#[test]
fn check2_rejects_successor_out_of_range() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    br v0, b1, b7\nb1(b0):\n    ret v0\n}\n"),
        "function `f`, block b0: the terminator `br v0, b1, b7` names b7, which does not exist"
    );
}

#[test]
fn check2_rejects_predecessor_out_of_range() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    jump b1\nb1(b0, b4294967295):\n    ret v0\n}\n"),
        "function `f`, block b1: predecessor b4294967295 does not exist"
    );
}

// ---------------------------------------------------------------------------
// Check 3: single definitions, results, value numbers in range.
// ---------------------------------------------------------------------------

#[test]
fn check3_accepts_gaps_in_value_numbers() {
    // Numbers need not be dense, and value_count may exceed the largest.
    let mut f = parse("fn f(v3) {\nb0:\n    v10 = neg v3\n    store v10, v3\n    ret v10\n}\n");
    f.value_count = 1000;
    assert_eq!(verify_function(&f), Ok(()));
}

#[test]
fn check3_rejects_value_defined_twice() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    v0 = const 1\n    ret v0\n}\n"),
        "function `f`, block b0: v0 is defined twice: by parameter 0 and by `v0 = const 1` in b0"
    );
    assert_eq!(
        rejection(
            "fn f(v0) {\nb0:\n    jump b1\nb1(b0, b1):\n    v1 = phi v0, v2\n    v2 = copy v1\n\
             v1 = add v2, v2\n    jump b1\n}\n"
        ),
        "function `f`, block b1: v1 is defined twice: by `v1 = phi v0, v2` in b1 and by `v1 = add v2, v2` in b1"
    );
    assert_eq!(
        rejection("fn f(v0, v0) {\nb0:\n    ret v0\n}\n"),
        "function `f`: v0 is defined twice: by parameter 0 and by parameter 1"
    );
}

#[test]
fn check3_rejects_result_on_an_operation_without_one() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    v1 = store v0, v0\n    ret v0\n}\n"),
        "function `f`, block b0: `v1 = store v0, v0` names a result, but `store` defines no value"
    );
}

#[test]
fn check3_rejects_missing_result() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    add v0, v0\n    ret v0\n}\n"),
        "function `f`, block b0: `add v0, v0` names no result, but `add` defines a value"
    );
}

#[test]
fn check3_rejects_value_beyond_value_count() {
    let mut f = parse("fn f(v0) {\nb0:\n    v1 = const 2\n    v5 = mul v0, v1\n    ret v5\n}\n");
    f.value_count = 5;
    let e = verify_function(&f).unwrap_err();
    assert_eq!(
        e.to_string(),
        "function `f`, block b0: v5 is mentioned, but value_count is 5 (values must be below it)"
    );
    assert_eq!(e.value, Some(Value(5)));
}

// ---------------------------------------------------------------------------
// Check 4: phi arity.
// ---------------------------------------------------------------------------

#[test]
fn check4_accepts_phis_matching_predecessors() {
    accept(LOOP);
}

#[test]
fn check4_rejects_phi_with_wrong_arity() {
    let too_few = "fn f(v0) {\nb0:\n    br v0, b1, b1\nb1(b0, b0):\n    v1 = phi v0\n    ret v1\n}\n";
    assert_eq!(rejection(too_few), "function `f`, block b1: `v1 = phi v0` has 1 argument, but b1 has 2 predecessors");
    let too_many = "fn f(v0) {\nb0:\n    jump b1\nb1(b0):\n    v1 = phi v0, v0\n    ret v1\n}\n";
    assert_eq!(
        rejection(too_many),
        "function `f`, block b1: `v1 = phi v0, v0` has 2 arguments, but b1 has 1 predecessor"
    );
}

// ---------------------------------------------------------------------------
// Check 5: uses are defined and dominated by their definitions.
// ---------------------------------------------------------------------------

#[test]
fn check5_accepts_uses_at_the_edges_of_their_scope() {
    // The terminator uses the value defined by the last instruction; the
    // back-edge argument of a self loop is the phi itself; the swap problem's
    // phis read each other along the back edge.
    accept(
        "fn f(v0) {\nb0:\n    jump b1\nb1(b0, b1):\n    v1 = phi v0, v1\n    v2 = phi v0, v3\n\
         v3 = phi v0, v2\n    v4 = lt v1, v2\n    br v4, b1, b2\nb2(b1):\n    ret v3\n}\n",
    );
    // A parameter is defined on entry, before every instruction.
    accept("fn f(v0) {\nb0:\n    out v0\n    ret v0\n}\n");
}

#[test]
fn check5_rejects_undefined_value() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    ret v3\n}\n"),
        "function `f`, block b0: v3 is used by `ret v3` in b0 but is never defined"
    );
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    jump b1\nb1(b0):\n    v1 = phi v7\n    ret v1\n}\n"),
        "function `f`, block b1: v7 flows into `v1 = phi v7` from b0 but is never defined"
    );
}

#[test]
fn check5_rejects_use_before_definition_in_a_block() {
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    v1 = add v2, v0\n    v2 = const 1\n    ret v1\n}\n"),
        "function `f`, block b0: v2 is used by `v1 = add v2, v0` in b0, \
         but its definition `v2 = const 1` in b0 does not come before the use"
    );
    // An instruction cannot use its own result.
    assert_eq!(
        rejection("fn f(v0) {\nb0:\n    v1 = add v1, v0\n    ret v1\n}\n"),
        "function `f`, block b0: v1 is used by `v1 = add v1, v0` in b0, \
         but its definition `v1 = add v1, v0` in b0 does not come before the use"
    );
}

#[test]
fn check5_rejects_definition_that_does_not_dominate() {
    // v1 is defined on one arm of a diamond and used at the join.
    assert_eq!(
        rejection(
            "fn f(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    v1 = const 1\n    jump b3\nb2(b0):\n    jump b3\n\
             b3(b1, b2):\n    ret v1\n}\n"
        ),
        "function `f`, block b3: v1 is used by `ret v1` in b3, but its definition `v1 = const 1` in b1 does not dominate b3"
    );
}

#[test]
fn check5_rejects_phi_argument_that_does_not_reach_its_edge() {
    // v1 is defined in b1, but the phi reads it on the edge from b2.
    assert_eq!(
        rejection(
            "fn f(v0) {\nb0:\n    br v0, b1, b2\nb1(b0):\n    v1 = const 1\n    jump b3\nb2(b0):\n    jump b3\n\
             b3(b1, b2):\n    v2 = phi v1, v1\n    ret v2\n}\n"
        ),
        "function `f`, block b3: v1 flows into `v2 = phi v1, v1` from b2, \
         but its definition `v1 = const 1` in b1 does not dominate b2"
    );
    // A phi's argument from the entry edge cannot be a phi of the same block.
    assert_eq!(
        rejection(
            "fn f(v0) {\nb0:\n    jump b1\nb1(b0, b1):\n    v1 = phi v2, v0\n    v2 = phi v0, v1\n    jump b1\n}\n"
        ),
        "function `f`, block b1: v2 flows into `v1 = phi v2, v0` from b0, \
         but its definition `v2 = phi v0, v1` in b1 does not dominate b0"
    );
}

// ---------------------------------------------------------------------------
// Check 6: no undef.
// ---------------------------------------------------------------------------

#[test]
fn check6_rejects_undef() {
    assert_eq!(
        rejection("fn f() {\nb0:\n    v0 = undef\n    ret v0\n}\n"),
        "function `f`, block b0: `v0 = undef`: verified IR has no undef \
         (construction removes the unreachable code it lives in)"
    );
}

// ---------------------------------------------------------------------------
// Modules
// ---------------------------------------------------------------------------

#[test]
fn module_checks_every_function_and_unique_names() {
    let good = parse_module(&format!("{LOOP}fn g(v0) {{\nb0:\n    ret v0\n}}\n")).unwrap();
    assert_eq!(verify_module(&good), Ok(()));
    let bad = parse_module(&format!("{LOOP}fn g() {{\nb0:\n    v0 = undef\n    ret v0\n}}\n")).unwrap();
    assert!(verify_module(&bad).unwrap_err().to_string().starts_with("function `g`, block b0: `v0 = undef`"));
    let twice = parse_module(&format!("{LOOP}{LOOP}")).unwrap();
    assert_eq!(
        verify_module(&twice).unwrap_err().to_string(),
        "function `main`: another function of the module has the same name"
    );
    assert_eq!(verify_module(&Module::default()), Ok(()));
}

// ---------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------

#[test]
fn long_chain_verifies_on_a_small_stack() {
    let n = 20_000u32;
    let mut blocks = EntityVec::new();
    for i in 0..n {
        let mut data = BlockData::new(Value(0));
        if i > 0 {
            data.preds.push(Block(i - 1));
            data.insts.push(Inst { dest: Some(Value(i)), op: Op::Copy(Value(i - 1)) });
        }
        if i + 1 < n {
            data.term = Terminator::Jump(Block(i + 1));
        } else {
            data.term = Terminator::Return(Value(i));
        }
        blocks.push(data);
    }
    let f = Function { name: "chain".into(), params: vec![Value(0)], blocks, value_count: n };
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            assert_eq!(verify_function(&f), Ok(()));
            // Breaking the last use shows the verifier really looked.
            let mut g = f.clone();
            g.blocks[Block(n - 1)].term = Terminator::Return(Value(n));
            g.value_count = n + 1;
            assert!(verify_function(&g).is_err());
        })
        .unwrap();
    handle.join().unwrap();
}

/// A function with everything drawn at random, in range or not.
fn garbage(rng: &mut SmallRng) -> Function {
    let n = rng.gen_range(0..5u32);
    let block = |rng: &mut SmallRng| {
        if rng.gen_ratio(1, 8) {
            Block(rng.gen())
        } else {
            Block(rng.gen_range(0..n + 1))
        }
    };
    let value = |rng: &mut SmallRng| {
        if rng.gen_ratio(1, 8) {
            Value(rng.gen())
        } else {
            Value(rng.gen_range(0..12))
        }
    };
    let mut blocks = EntityVec::new();
    for _ in 0..n {
        let mut data = BlockData::new(value(rng));
        data.preds = (0..rng.gen_range(0..3)).map(|_| block(rng)).collect();
        for _ in 0..rng.gen_range(0..3) {
            let dest = value(rng);
            let args = (0..rng.gen_range(0..3)).map(|_| value(rng)).collect();
            data.phis.push(Phi { dest, args });
        }
        for _ in 0..rng.gen_range(0..4) {
            let (a, b) = (value(rng), value(rng));
            let op = match rng.gen_range(0..4) {
                0 => Op::Copy(a),
                1 => Op::Store { addr: a, value: b },
                2 => Op::Undef,
                _ => Op::Const(rng.gen()),
            };
            let dest = if rng.gen() { Some(value(rng)) } else { None };
            data.insts.push(Inst { dest, op });
        }
        data.term = match rng.gen_range(0..3) {
            0 => Terminator::Jump(block(rng)),
            1 => Terminator::Branch { cond: value(rng), then_dest: block(rng), else_dest: block(rng) },
            _ => Terminator::Return(value(rng)),
        };
        blocks.push(data);
    }
    let params = (0..rng.gen_range(0..3)).map(|_| value(rng)).collect();
    let value_count = if rng.gen() { rng.gen() } else { rng.gen_range(0..14) };
    Function { name: "g".into(), params, blocks, value_count }
}

#[test]
fn garbage_never_panics() {
    let mut rng = SmallRng::seed_from_u64(99);
    let mut rejected = 0;
    for _ in 0..50_000 {
        let f = garbage(&mut rng);
        if let Err(e) = verify_function(&f) {
            rejected += 1;
            assert_eq!(e.function, "g");
            assert!(!e.message.is_empty());
            // A reported block always exists, so callers may index by it.
            if let Some(b) = e.block {
                assert!(f.blocks.get(b).is_some(), "{e}");
            }
        }
    }
    // Garbage is almost never valid SSA.
    assert!(rejected > 49_000, "rejected {rejected}");
}
