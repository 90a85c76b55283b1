//! Tests of the SSA text form (`ir_text.rs`): byte-exact round trips of
//! hand-written texts, the function-to-text-to-function round trip over
//! generated functions, the exact error messages and positions of malformed
//! inputs, and a no-panic test over mutated texts.

use pretty_assertions::assert_eq;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::analysis::ir_text::{
    format_inst, format_phi, format_terminator, parse_function, parse_module, print_function, print_module,
};
use ssaref::entity::EntityVec;
use ssaref::ir::{BinOp, Block, BlockData, Function, Inst, Module, Op, Phi, Terminator, UnOp, Value};

/// The example of the module documentation, in canonical form (without its
/// comment line).
const EXAMPLE: &str = "\
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
fn other() {
b0:
    v0 = undef
    ret v0
}
";

/// A branch with the same successor twice, so that `b1` has `b0` as its
/// predecessor twice and its phi has two arguments from `b0`.
const DUPLICATE_PREDS: &str = "\
fn twice(v0) {
b0:
    v1 = const 1
    br v0, b1, b1
b1(b0, b0):
    v2 = phi v0, v1
    ret v2
}
";

/// A phi with no arguments (in a block without predecessors) and constants
/// at the ends of the `i64` range.
const EXTREMES: &str = "\
fn extremes() {
b0:
    v0 = const -9223372036854775808
    v1 = const 9223372036854775807
    v2 = const 0
    v3 = const -1
    v4294967294 = sub v0, v1
    ret v2
b1:
    v7 = phi
    ret v7
}
";

/// Every operation and terminator, including the forms that only the
/// verifier rejects (`vN =` on `out`, `const` without a result, references
/// to blocks that do not exist) and a function without blocks.
const EVERY_FORM: &str = "\
fn ops(v0, v1) {
b0:
    v2 = add v0, v1
    v3 = sub v0, v1
    v4 = mul v0, v1
    v5 = div v0, v1
    v6 = rem v0, v1
    v7 = shl v0, v1
    v8 = shr v0, v1
    v9 = and v0, v1
    v10 = or v0, v1
    v11 = xor v0, v1
    v12 = eq v0, v1
    v13 = ne v0, v1
    v14 = lt v0, v1
    v15 = le v0, v1
    v16 = gt v0, v1
    v17 = ge v0, v1
    v18 = neg v0
    v19 = not v0
    v20 = bitnot v0
    v21 = load v0
    v22 = copy v21
    store v0, v22
    out v22
    v23 = out v22
    const 5
    jump b9
b1(b7, b4294967295):
    ret v1
}
fn fn() {
}
";

fn round_trip(text: &str) -> Module {
    let module = parse_module(text).unwrap_or_else(|e| panic!("parse error {e} in\n{text}"));
    assert_eq!(print_module(&module), text);
    module
}

#[test]
fn example_round_trips_and_parses_to_the_expected_ir() {
    let m = round_trip(EXAMPLE);
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
fn duplicate_predecessors_round_trip() {
    let m = round_trip(DUPLICATE_PREDS);
    let f = &m.functions[0];
    assert_eq!(f.blocks[Block(1)].preds, vec![Block(0), Block(0)]);
    assert_eq!(f.succs(Block(0)), vec![Block(1), Block(1)]);
}

#[test]
fn extreme_constants_and_zero_argument_phis_round_trip() {
    let m = round_trip(EXTREMES);
    let f = &m.functions[0];
    assert_eq!(f.blocks[Block(0)].insts[0].op, Op::Const(i64::MIN));
    assert_eq!(f.blocks[Block(0)].insts[1].op, Op::Const(i64::MAX));
    assert_eq!(f.blocks[Block(1)].phis, vec![Phi { dest: Value(7), args: vec![] }]);
    assert_eq!(f.value_count, u32::MAX);
}

#[test]
fn every_form_round_trips() {
    let m = round_trip(EVERY_FORM);
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
fn empty_module_round_trips() {
    assert_eq!(round_trip("").functions.len(), 0);
    assert_eq!(parse_module("// only a comment\n\n   \n").unwrap(), Module::default());
}

#[test]
fn comments_whitespace_and_crlf_are_accepted_and_printed_canonically() {
    let messy = "// leading comment\r\n\
                 fn  twice( v0 ){ // header\r\n\
                 \r\n\
                 b0 :\r\n\
                 \tv1=const 1\r\n\
                 br v0,b1,b1   // both edges to b1\r\n\
                 b1 ( b0 , b0 ) :\r\n\
                 v2 = phi v0 ,v1\r\n\
                 ret v2\r\n\
                 }\r\n";
    let m = parse_module(messy).unwrap();
    assert_eq!(print_module(&m), DUPLICATE_PREDS);
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
    assert_eq!(parse_function(DUPLICATE_PREDS).unwrap().name, "twice");
    assert_eq!(parse_function("").unwrap_err().to_string(), "1:1: expected one function, found none");
    assert_eq!(parse_function(EXAMPLE).unwrap_err().to_string(), "18:1: expected one function, found a second one");
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
    let mut f = parse_function(EXAMPLE.split("fn other").next().unwrap()).unwrap();
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
fn unknown_mnemonic() {
    assert_eq!(error("fn f() {\nb0:\n    frob v1\n    ret v1\n}\n"), "3:5: unknown mnemonic `frob`");
    assert_eq!(error("fn f() {\nb0:\n    v1 = Add v0, v0\n"), "3:10: unknown mnemonic `Add`");
}

#[test]
fn blocks_out_of_order() {
    let src = "fn f(v0) {\nb0:\n    ret v0\nb2:\n    ret v0\n}\n";
    assert_eq!(error(src), "4:1: expected block b1, found b2: blocks must appear in order b0, b1, ... without gaps");
    assert_eq!(
        error("fn f(v0) {\n  b1:\n    ret v0\n}\n"),
        "2:3: expected block b0, found b1: blocks must appear in order b0, b1, ... without gaps"
    );
    // A repeated block is out of order too.
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\nb0:\n    ret v0\n}\n"),
        "4:1: expected block b1, found b0: blocks must appear in order b0, b1, ... without gaps"
    );
}

#[test]
fn missing_terminator() {
    assert_eq!(error("fn f(v0) {\nb0:\n    out v0\nb1:\n    ret v0\n}\n"), "4:1: block b0 has no terminator");
    assert_eq!(error("fn f(v0) {\nb0:\n    out v0\n}\n"), "4:1: block b0 has no terminator");
    assert_eq!(error("fn f(v0) {\nb0:\n}\n"), "3:1: block b0 has no terminator");
}

#[test]
fn duplicate_terminator() {
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\n    jump b0\n}\n"),
        "4:5: duplicate terminator in block b0: it already ends with `ret v0`"
    );
}

#[test]
fn instruction_after_terminator() {
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\n    v1 = copy v0\n}\n"),
        "4:5: instruction after the terminator of block b0"
    );
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\n    v1 = phi v0\n}\n"),
        "4:5: instruction after the terminator of block b0"
    );
}

#[test]
fn bad_numbers() {
    let inst = |i: &str| error(&format!("fn f() {{\nb0:\n    {i}\n    ret v0\n}}\n"));
    assert_eq!(inst("v0 = const 9223372036854775808"), "3:16: integer `9223372036854775808` does not fit in 64 bits");
    assert_eq!(inst("v0 = const -9223372036854775809"), "3:16: integer `-9223372036854775809` does not fit in 64 bits");
    assert_eq!(
        inst("v0 = const 99999999999999999999999"),
        "3:16: integer `99999999999999999999999` does not fit in 64 bits"
    );
    assert_eq!(inst("v0 = const 12ab"), "3:16: bad integer `12ab`");
    assert_eq!(inst("v0 = const 007"), "3:16: bad integer `007`: no leading zeros allowed");
    assert_eq!(inst("v0 = const -0"), "3:16: bad integer `-0`: write `0`");
    assert_eq!(inst("v0 = const v1"), "3:16: expected an integer, found `v1`");
    assert_eq!(inst("v0 = const"), "3:15: expected an integer, found end of line");
    assert_eq!(inst("v01 = copy v1"), "3:5: bad value `v01`: no leading zeros allowed");
    assert_eq!(inst("v4294967295 = copy v1"), "3:5: value `v4294967295` is out of range (the largest is v4294967294)");
    assert_eq!(
        inst("v0 = copy v99999999999999999999"),
        "3:15: value `v99999999999999999999` is out of range (the largest is v4294967294)"
    );
    assert_eq!(inst("jump b4294967296"), "3:10: block `b4294967296` is out of range (the largest is b4294967295)");
    assert_eq!(error("fn f() {\nb00:\n"), "2:1: bad block `b00`: no leading zeros allowed");
}

#[test]
fn unterminated_function() {
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\n"),
        "4:1: unexpected end of input: function `f` is not closed by `}`"
    );
    assert_eq!(error("fn f(v0) {"), "1:11: unexpected end of input: function `f` is not closed by `}`");
    assert_eq!(
        error("fn f(v0) {\nb0:\n    ret v0\nfn g() {\n}\n"),
        "4:1: function `f` is not closed: expected `}` before the next `fn`"
    );
}

#[test]
fn other_syntax_errors() {
    let body = |lines: &str| error(&format!("fn f(v0) {{\nb0:\n{lines}\n}}\n"));
    assert_eq!(body("    v1 = copy v0 #"), "3:18: unexpected character '#'");
    assert_eq!(body("    v1 = copy v0 / 2"), "3:18: unexpected character '/'");
    assert_eq!(body("    v1 = neg - v0"), "3:14: unexpected character '-'");
    assert_eq!(body("    v1 = copy v0 é"), "3:18: unexpected character 'é'");
    assert_eq!(body("    v1 = add v0 v0"), "3:17: expected `,`, found `v0`");
    assert_eq!(body("    v1 = add v0,"), "3:17: expected a value such as `v0`, found end of line");
    assert_eq!(body("    v1 = copy x"), "3:15: expected a value such as `v0`, found `x`");
    assert_eq!(body("    v1 = copy v0, v0"), "3:17: expected end of line, found `,`");
    assert_eq!(body("    v1 copy v0"), "3:5: expected `=` after `v1`");
    assert_eq!(body("    x = copy v0"), "3:5: expected a value such as `v0`, found `x`");
    assert_eq!(body("    v1 ="), "3:9: expected an instruction, found end of line");
    assert_eq!(body("    v1 = 5"), "3:10: expected an instruction, found `5`");
    assert_eq!(body("    v1 = ret v0"), "3:5: a terminator defines no value");
    assert_eq!(body("    phi v0"), "3:5: a phi must define a value: write `vN = phi ...`");
    assert_eq!(body("    jump 3"), "3:10: expected a block such as `b0`, found `3`");
    assert_eq!(body("    br v0, b1"), "3:14: expected `,`, found end of line");
    assert_eq!(
        body("    v1 = copy v0\n    v2 = phi v1\n    ret v2"),
        "4:5: phi after a non-phi instruction in block b0: phis come first"
    );
    assert_eq!(
        error("fn f(v0) {\nb0:\n    jump b1\nb1():\n    ret v0\n}\n"),
        "4:4: empty predecessor list: write `b1:` for a block without predecessors"
    );
    assert_eq!(error("fn f(v0) {\nb0(b1\n"), "2:6: expected `)`, found end of line");
    assert_eq!(error("fn f(v0) {\nb0\n"), "2:3: expected `:`, found end of line");
    assert_eq!(error("fn f(v0) {\nb0: ret v0\n"), "2:5: expected end of line, found `ret`");
    assert_eq!(error("fn f(v0) {\n    ret v0\n}\n"), "2:5: instruction before the first block header `b0:`");
    assert_eq!(error("fn f(v0) {\nb0:\n    ret v0\n} }\n"), "4:3: expected end of line, found `}`");
}

#[test]
fn function_header_errors() {
    assert_eq!(error("b0:\n"), "1:1: expected `fn`, found `b0`");
    assert_eq!(error("\n  }\n"), "2:3: expected `fn`, found `}`");
    assert_eq!(error("fn (v0) {\n"), "1:4: expected a function name, found `(`");
    assert_eq!(error("fn 5() {\n"), "1:4: expected a function name, found `5`");
    assert_eq!(error("fn f {\n"), "1:6: expected `(`, found `{`");
    assert_eq!(error("fn f(v0 v1) {\n"), "1:9: expected `)`, found `v1`");
    assert_eq!(error("fn f(v0,) {\n"), "1:9: expected a value such as `v0`, found `)`");
    assert_eq!(error("fn f()\n{\n"), "1:7: expected `{`, found end of line");
    assert_eq!(error("fn f() { b0:\n"), "1:10: expected end of line, found `b0`");
}

#[test]
fn error_column_counts_characters_not_bytes() {
    // `é` is two bytes in UTF-8 but one column; it sits in a comment here.
    assert_eq!(
        error("fn f(v0) { // é é\nb0:\n    ret v0 // ééé\n    out v0 x\n}\n"),
        "4:12: expected end of line, found `x`"
    );
    assert_eq!(error("fn f(v0) {\nb0:\n    ret v0\n}\nééé%\n"), "5:1: unexpected character 'é'");
    assert_eq!(error("fn f() {\n  é"), "2:3: unexpected character 'é'");
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
    let seeds = [EXAMPLE, DUPLICATE_PREDS, EXTREMES, EVERY_FORM];
    let (mut parsed, mut rejected) = (0, 0);
    for _ in 0..20_000 {
        let mut text = seeds[rng.gen_range(0..seeds.len())].to_string();
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
