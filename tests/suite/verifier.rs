//! Tests of the SSA verifier (`verifier.rs`) that need Rust: the fields of
//! its error, `value_count` set apart from the text, module-level checks,
//! deep and random inputs. For each of its checks, the functions it accepts
//! and rejects, with the exact message, are the filetests of
//! `tests/filetests/verifier/`.

use pretty_assertions::assert_eq;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::verifier::{verify_function, verify_module};
use ssaref::entity::EntityVec;
use ssaref::ir::{Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, Value};
use ssaref::ssa_text::{parse_function, parse_module};

fn parse(src: &str) -> Function {
    parse_function(src).unwrap_or_else(|e| panic!("parse error {e} in\n{src}"))
}

#[test]
fn error_fields_name_function_block_and_value() {
    let e = verify_function(&parse("fn f(v0) {\nb0:\n    v1 = add v2, v0\n    ret v1\n}\n")).unwrap_err();
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
// What a text cannot show: value_count apart from the values mentioned
// ---------------------------------------------------------------------------

#[test]
fn check3_accepts_gaps_in_value_numbers() {
    // Numbers need not be dense, and value_count may exceed the largest.
    let mut f = parse("fn f(v3) {\nb0:\n    v10 = neg v3\n    store v10, v3\n    ret v10\n}\n");
    f.value_count = 1000;
    assert_eq!(verify_function(&f), Ok(()));
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
// Modules
// ---------------------------------------------------------------------------

#[test]
fn module_checks_every_function_and_unique_names() {
    let looping = crate::filetests::read("verifier/accepts-a-loop.ssa");
    let good = parse_module(&format!("{looping}fn g(v0) {{\nb0:\n    ret v0\n}}\n")).unwrap();
    assert_eq!(verify_module(&good), Ok(()));
    let bad = parse_module(&format!("{looping}fn g() {{\nb0:\n    v0 = undef\n    ret v0\n}}\n")).unwrap();
    assert!(verify_module(&bad).unwrap_err().to_string().starts_with("function `g`, block b0: `v0 = undef`"));
    let twice = parse_module(&format!("{looping}{looping}")).unwrap();
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
