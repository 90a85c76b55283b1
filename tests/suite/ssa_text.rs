//! Tests of the SSA text form (`ssa_text.rs`) that need Rust: the IR that
//! texts parse to, the function-to-text-to-function round trip over
//! generated functions, deep inputs, and a no-panic test over mutated
//! texts. The byte-exact round trips of hand-written texts and the exact
//! error messages and positions of malformed ones are the filetests of
//! `tests/filetests/text-form/`.

use pretty_assertions::assert_eq;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::entity::EntityVec;
use ssaref::ir::{BinOp, Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, UnOp, Value};
use ssaref::ssa_text::{
    format_inst, format_phi, format_terminator, parse_function, parse_module, print_function, print_module,
};

/// The text of the filetest `text-form/NAME.ssa` without its comments: the
/// canonical form the harness shows it round-trips in.
fn canonical(name: &str) -> String {
    crate::filetests::without_comments(&crate::filetests::read(&format!("text-form/{name}.ssa")))
}

fn parse(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("parse error {e} in\n{text}"))
}

#[test]
fn example_parses_to_the_expected_ir() {
    let m = parse(&canonical("example"));
    assert_eq!(m.functions.len(), 2);
    let main = &m.functions[0];
    assert_eq!(main.name, "main");
    assert_eq!(main.params, vec![Value(0), Value(1)]);
    assert_eq!(main.value_count, 7);
    assert_eq!(main.blocks.len(), 4);
    let b1 = &main.blocks[Block(1)];
    assert_eq!(b1.preds, vec![Block(0), Block(2)]);
    assert_eq!(b1.phis, vec![Phi { dest: Value(4), args: vec![Value(2), Value(6)] }]);
    assert_eq!(b1.insts, vec![Inst { dest: Some(Value(5)), op: Op::Binary(BinOp::Lt, Value(4), Value(1)) }]);
    assert_eq!(b1.term, Terminator::Branch { cond: Value(5), then_dest: Block(2), else_dest: Block(3) });
    let b0 = &main.blocks[Block(0)];
    assert_eq!(b0.insts[0].op, Op::Const(-5));
    assert_eq!(b0.insts[2], Inst { dest: None, op: Op::Store { addr: Value(3), value: Value(2) } });
    let other = &m.functions[1];
    assert_eq!(other.value_count, 1);
    assert_eq!(other.blocks[Block(0)].insts, vec![Inst { dest: Some(Value(0)), op: Op::Undef }]);
}

#[test]
fn duplicate_predecessors_parse_to_a_repeated_predecessor_and_successor() {
    let m = parse(&canonical("duplicate-predecessors"));
    let f = &m.functions[0];
    assert_eq!(f.blocks[Block(1)].preds, vec![Block(0), Block(0)]);
    assert_eq!(f.succs(Block(0)), vec![Block(1), Block(1)]);
}

#[test]
fn extreme_constants_and_zero_argument_phis_parse_exactly() {
    let m = parse(&canonical("extremes"));
    let f = &m.functions[0];
    assert_eq!(f.blocks[Block(0)].insts[0].op, Op::Const(i64::MIN));
    assert_eq!(f.blocks[Block(0)].insts[1].op, Op::Const(i64::MAX));
    assert_eq!(f.blocks[Block(1)].phis, vec![Phi { dest: Value(7), args: vec![] }]);
    assert_eq!(f.value_count, u32::MAX);
}

#[test]
fn every_form_parses_to_its_ir() {
    let m = parse(&canonical("every-form"));
    let ops = &m.functions[0];
    assert_eq!(ops.blocks[Block(0)].insts.len(), 25);
    assert_eq!(ops.blocks[Block(0)].insts[23], Inst { dest: Some(Value(23)), op: Op::Out(Value(22)) });
    assert_eq!(ops.blocks[Block(0)].insts[24], Inst { dest: None, op: Op::Const(5) });
    assert_eq!(ops.blocks[Block(1)].preds, vec![Block(7), Block(u32::MAX)]);
    let empty = &m.functions[1];
    assert_eq!(empty.name, "fn");
    assert!(empty.blocks.is_empty());
    assert_eq!(empty.value_count, 0);
}

#[test]
fn crlf_line_ends_are_accepted() {
    // The filetest shows the spaces, tabs and comments; here its lines end
    // in `\r\n`, which a file in the repository would not keep.
    let messy = crate::filetests::read("text-form/whitespace-and-comments.ssa");
    assert!(!messy.contains('\r'));
    let m = parse(&messy.replace('\n', "\r\n"));
    assert_eq!(print_module(&m), canonical("duplicate-predecessors"));
}

#[test]
fn single_items_format_as_in_the_printer() {
    assert_eq!(format_phi(&Phi { dest: Value(4), args: vec![] }), "v4 = phi");
    assert_eq!(format_phi(&Phi { dest: Value(4), args: vec![Value(1), Value(2)] }), "v4 = phi v1, v2");
    assert_eq!(format_inst(&Inst { dest: Some(Value(3)), op: Op::Unary(UnOp::BitNot, Value(1)) }), "v3 = bitnot v1");
    assert_eq!(format_inst(&Inst { dest: None, op: Op::Store { addr: Value(1), value: Value(2) } }), "store v1, v2");
    assert_eq!(format_terminator(&Terminator::Jump(Block(3))), "jump b3");
}

#[test]
fn parse_function_wants_exactly_one_function() {
    assert_eq!(parse_function(&canonical("duplicate-predecessors")).unwrap().name, "twice");
    assert_eq!(parse_function("").unwrap_err().to_string(), "1:1: expected one function, found none");
    assert_eq!(
        parse_function(&canonical("example")).unwrap_err().to_string(),
        "18:1: expected one function, found a second one"
    );
}

// ---------------------------------------------------------------------------
// Function -> text -> function
// ---------------------------------------------------------------------------

fn trimmed(f: &Function) -> Function {
    let mut f = f.clone();
    f.trim_value_count();
    f
}

fn assert_function_round_trips(f: &Function) {
    let text = print_function(f);
    let parsed = parse_function(&text).unwrap_or_else(|e| panic!("parse error {e} in\n{text}"));
    assert_eq!(parsed, trimmed(f), "text:\n{text}");
    assert_eq!(print_function(&parsed), text);
}

#[test]
fn trim_value_count_counts_every_mention() {
    let mut f = parse_function(canonical("example").split("fn other").next().unwrap()).unwrap();
    assert_eq!(f.value_count, 7);
    f.value_count = 100;
    f.trim_value_count();
    assert_eq!(f.value_count, 7);
    // A value that is only read, by a terminator, still counts.
    f.blocks[Block(3)].term = Terminator::Return(Value(40));
    f.trim_value_count();
    assert_eq!(f.value_count, 41);
    let empty = Function { name: "e".into(), params: vec![], blocks: EntityVec::new(), value_count: 9 };
    let mut e = empty.clone();
    e.trim_value_count();
    assert_eq!(e.value_count, 0);
}

#[test]
fn hand_built_function_with_spare_value_numbers_round_trips() {
    let mut blocks = EntityVec::new();
    let mut b0 = BlockData::new(Value(3));
    b0.insts.push(Inst { dest: Some(Value(3)), op: Op::Const(7) });
    b0.term = Terminator::Branch { cond: Value(0), then_dest: Block(1), else_dest: Block(1) };
    blocks.push(b0);
    let mut b1 = BlockData::new(Value(9));
    b1.preds = vec![Block(0), Block(0)];
    b1.phis.push(Phi { dest: Value(9), args: vec![Value(0), Value(3)] });
    blocks.push(b1);
    // value_count is larger than needed, as passes may leave it.
    let f = Function { name: "spare".into(), params: vec![Value(0)], blocks, value_count: 50 };
    assert_function_round_trips(&f);
    assert_eq!(parse_function(&print_function(&f)).unwrap().value_count, 10);
}

/// A random value for [`random_function`]: mostly small numbers, sometimes
/// the largest the text form allows.
fn random_value(rng: &mut SmallRng) -> Value {
    if rng.gen_ratio(1, 50) {
        Value(u32::MAX - 1)
    } else {
        Value(rng.gen_range(0..40))
    }
}

/// A random block reference, in range or not.
fn random_block(rng: &mut SmallRng, n: usize) -> Block {
    if rng.gen_ratio(1, 20) {
        Block(rng.gen())
    } else {
        Block(rng.gen_range(0..n as u32 + 1))
    }
}

/// A random op, each kind with about the same probability.
fn random_op(rng: &mut SmallRng) -> Op {
    let a = random_value(rng);
    let b = random_value(rng);
    match rng.gen_range(0..8) {
        0 => Op::Const(match rng.gen_range(0..4) {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => rng.gen_range(-1000..1000),
        }),
        1 => Op::Undef,
        2 => Op::Copy(a),
        3 => Op::Unary(UnOp::ALL[rng.gen_range(0..UnOp::ALL.len())], a),
        4 => Op::Binary(BinOp::ALL[rng.gen_range(0..BinOp::ALL.len())], a, b),
        5 => Op::Load(a),
        6 => Op::Store { addr: a, value: b },
        _ => Op::Out(a),
    }
}

/// An arbitrary function: not SSA, not even in range, but printable and
/// parsable, which is all the text form promises.
fn random_function(rng: &mut SmallRng) -> Function {
    let n = rng.gen_range(0..6);
    let mut blocks = EntityVec::new();
    for _ in 0..n {
        let mut data = BlockData::new(random_value(rng));
        data.preds = (0..rng.gen_range(0..4)).map(|_| random_block(rng, n)).collect();
        for _ in 0..rng.gen_range(0..3) {
            let dest = random_value(rng);
            let args = (0..rng.gen_range(0..4)).map(|_| random_value(rng)).collect();
            data.phis.push(Phi { dest, args });
        }
        for _ in 0..rng.gen_range(0..6) {
            let op = random_op(rng);
            // Usually the right shape, sometimes the wrong one.
            let dest = if op.has_result() != rng.gen_ratio(1, 10) { Some(random_value(rng)) } else { None };
            data.insts.push(Inst { dest, op });
        }
        data.term = match rng.gen_range(0..3) {
            0 => Terminator::Jump(random_block(rng, n)),
            1 => Terminator::Branch {
                cond: random_value(rng),
                then_dest: random_block(rng, n),
                else_dest: random_block(rng, n),
            },
            _ => Terminator::Return(random_value(rng)),
        };
        blocks.push(data);
    }
    let params = (0..rng.gen_range(0..4)).map(|_| random_value(rng)).collect();
    let names = ["main", "f", "_x9", "fn", "b0", "v1", "phi"];
    Function { name: names[rng.gen_range(0..names.len())].to_string(), params, blocks, value_count: rng.gen() }
}

#[test]
fn random_functions_round_trip_through_text() {
    let mut rng = SmallRng::seed_from_u64(0x5353_4154);
    for _ in 0..2000 {
        assert_function_round_trips(&random_function(&mut rng));
    }
}

#[test]
fn random_modules_round_trip_through_text() {
    let mut rng = SmallRng::seed_from_u64(17);
    for _ in 0..200 {
        let functions: Vec<Function> = (0..rng.gen_range(0..4)).map(|_| random_function(&mut rng)).collect();
        let m = Module { functions };
        let text = print_module(&m);
        let parsed = parse_module(&text).unwrap();
        let expected = Module { functions: m.functions.iter().map(trimmed).collect() };
        assert_eq!(parsed, expected);
        assert_eq!(print_module(&parsed), text);
    }
}

#[test]
fn long_block_chain_parses_and_prints_on_a_small_stack() {
    // 20,000 blocks, each jumping to the next: nothing may recurse per block.
    let mut text = String::from("fn chain(v0) {\nb0:\n    jump b1\n");
    for i in 1..20_000 {
        text.push_str(&format!("b{i}(b{}):\n    jump b{}\n", i - 1, i + 1));
    }
    text.push_str("b20000(b19999):\n    ret v0\n}\n");
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || {
            let m = parse_module(&text).unwrap();
            assert_eq!(m.functions[0].blocks.len(), 20_001);
            assert_eq!(print_module(&m), text);
        })
        .unwrap();
    handle.join().unwrap();
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// The parse error of `src`, displayed as `LINE:COL: message`.
fn error(src: &str) -> String {
    match parse_module(src) {
        Ok(m) => panic!("expected an error, parsed\n{}", print_module(&m)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn error_has_line_column_and_message() {
    let e = parse_module("fn f() {\nb0:\n    v0 = frob v1\n").unwrap_err();
    assert_eq!((e.line, e.col), (3, 10));
    assert_eq!(e.message, "unknown mnemonic `frob`");
    assert_eq!(e.to_string(), "3:10: unknown mnemonic `frob`");
}

#[test]
fn end_of_input_error_points_just_past_the_last_character() {
    // A text without a final newline, which a file in the repository would
    // not keep; `text-form/error-function-not-closed-at-end.ssa` has one.
    assert_eq!(error("fn f(v0) {"), "1:11: unexpected end of input: function `f` is not closed by `}`");
}

// ---------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------

/// Pieces of text the mutator inserts: tokens of the text form, extreme
/// numbers and characters the lexer rejects.
const SNIPPETS: &[&str] = &[
    "v",
    "b",
    "v0",
    "b1",
    "v4294967294",
    "v4294967295",
    "b4294967295",
    "b99999999999",
    "0",
    "-",
    "-0",
    "007",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "phi",
    "fn",
    "const",
    "undef",
    "br",
    "jump",
    "ret",
    "store",
    "out",
    "add",
    "neg",
    ",",
    "(",
    ")",
    ":",
    "=",
    "{",
    "}",
    "//",
    "/",
    "\n",
    "\r",
    "\t",
    " ",
    "é",
    "\u{0}",
    "\u{FEFF}",
    "#",
];

/// Applies one random edit to `text`, always at a character boundary.
fn mutate(rng: &mut SmallRng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.gen_range(0..=chars.len());
    let mut out: Vec<char> = chars.clone();
    match rng.gen_range(0..6) {
        0 if !chars.is_empty() => {
            // Deletes one to three characters.
            let start = at.min(chars.len() - 1);
            let end = (start + rng.gen_range(1..4)).min(chars.len());
            out.drain(start..end);
        }
        1 => {
            let snippet = SNIPPETS[rng.gen_range(0..SNIPPETS.len())];
            out.splice(at..at, snippet.chars());
        }
        2 => {
            let c = char::from_u32(rng.gen_range(0..0x250)).unwrap_or('?');
            out.insert(at, c);
        }
        3 => {
            // Duplicates, drops or swaps whole lines.
            let mut lines: Vec<&str> = text.split('\n').collect();
            let i = rng.gen_range(0..lines.len());
            let j = rng.gen_range(0..lines.len());
            match rng.gen_range(0..3) {
                0 => lines.insert(j, lines[i]),
                1 => {
                    lines.remove(i);
                }
                _ => lines.swap(i, j),
            }
            return lines.join("\n");
        }
        4 if !chars.is_empty() => {
            // Changes a digit, so numbers go out of order or out of range.
            if let Some(p) = (0..chars.len()).map(|k| (at + k) % chars.len()).find(|&k| chars[k].is_ascii_digit()) {
                out[p] = char::from(b'0' + rng.gen_range(0..10u8));
            }
        }
        _ => {
            if !chars.is_empty() {
                let p = at.min(chars.len() - 1);
                out[p] = char::from_u32(rng.gen_range(0x20..0x7f)).unwrap_or('?');
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn mutated_texts_never_panic_and_what_parses_round_trips() {
    let mut rng = SmallRng::seed_from_u64(0xC0FFEE);
    let seeds = ["example", "duplicate-predecessors", "extremes", "every-form"].map(canonical);
    let (mut parsed, mut rejected) = (0, 0);
    for _ in 0..20_000 {
        let mut text = seeds[rng.gen_range(0..seeds.len())].clone();
        for _ in 0..rng.gen_range(1..4) {
            text = mutate(&mut rng, &text);
        }
        match parse_module(&text) {
            Ok(m) => {
                parsed += 1;
                // What parses prints canonically, and the canonical text is
                // a fixed point.
                let printed = print_module(&m);
                let reparsed = parse_module(&printed).unwrap_or_else(|e| panic!("{e} in\n{printed}"));
                assert_eq!(reparsed, m);
                assert_eq!(print_module(&reparsed), printed);
                // The verifier must not panic on whatever parsed.
                let _ = ssaref::analysis::verifier::verify_module(&m);
            }
            Err(e) => {
                rejected += 1;
                // The position lies inside the text, or just past its end.
                let lines: Vec<&str> = text.split('\n').collect();
                assert!(e.line >= 1 && e.line as usize <= lines.len(), "{e} in\n{text}");
                let width = lines[e.line as usize - 1].chars().count();
                assert!(e.col >= 1 && e.col as usize <= width + 1, "{e} in\n{text}");
                assert!(!e.message.is_empty());
            }
        }
    }
    // Both outcomes are common, so the test exercises both.
    assert!(parsed > 1000 && rejected > 1000, "parsed {parsed}, rejected {rejected}");
}
