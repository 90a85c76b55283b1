//! Semantics tests of the oracle, on hand-built ASTs and SSA modules.
//!
//! The trees are built directly (not parsed), so these tests depend on
//! nothing of ssaref but its data types, like the oracle itself.

use ssaref_interp::{run_ast, run_ssa, InterpError, DEFAULT_FUEL};
use ssaref_types::ast::{BinOp, Block, Expr, Function, Program, Stmt, UnOp};
use ssaref_types::entity::EntityVec;
use ssaref_types::ir::{self, BlockData, Inst, Module, Op, Phi, Terminator, Value};
use ssaref_types::outcome::{End, Outcome, Trap};

// ---------------------------------------------------------------------------
// AST construction helpers.

fn lit(v: i64) -> Expr {
    assert!(v >= 0, "AST literals are non-negative");
    Expr::Lit(v)
}

/// A possibly negative constant, written the way the parser would build it.
fn int(v: i64) -> Expr {
    if v >= 0 {
        lit(v)
    } else if v == i64::MIN {
        bin(BinOp::Sub, un(UnOp::Neg, lit(i64::MAX)), lit(1))
    } else {
        un(UnOp::Neg, lit(-v))
    }
}

fn var(x: &str) -> Expr {
    Expr::Var(x.into())
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn un(op: UnOp, a: Expr) -> Expr {
    Expr::Unary(op, Box::new(a))
}

fn and(a: Expr, b: Expr) -> Expr {
    Expr::LogicalAnd(Box::new(a), Box::new(b))
}

fn or(a: Expr, b: Expr) -> Expr {
    Expr::LogicalOr(Box::new(a), Box::new(b))
}

fn load(a: Expr) -> Expr {
    Expr::Load(Box::new(a))
}

fn assign(x: &str, e: Expr) -> Stmt {
    Stmt::Assign(x.into(), e)
}

fn out(e: Expr) -> Stmt {
    Stmt::Out(e)
}

fn ret(e: Expr) -> Stmt {
    Stmt::Return(e)
}

fn if_(c: Expr, then: Vec<Stmt>) -> Stmt {
    Stmt::If(c, Block::new(then), None)
}

fn while_(c: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::While(c, Block::new(body))
}

fn program(params: &[&str], body: Vec<Stmt>) -> Program {
    Program {
        functions: vec![Function {
            name: "main".into(),
            params: params.iter().map(|p| p.to_string()).collect(),
            body: Block::new(body),
        }],
    }
}

fn run(p: &Program, args: &[i64]) -> Outcome {
    run_ast(p, args, DEFAULT_FUEL).expect("the oracle rejected a well-formed program")
}

/// The end of `fn main(a, b) { return e; }` run with `a` and `b`.
fn eval(e: Expr, a: i64, b: i64) -> End {
    run(&program(&["a", "b"], vec![ret(e)]), &[a, b]).end
}

/// `a op b`, evaluated by the AST engine.
fn binop(op: BinOp, a: i64, b: i64) -> End {
    eval(bin(op, var("a"), var("b")), a, b)
}

const DIV: End = End::Trap(Trap::DivideError);

// ---------------------------------------------------------------------------
// Operators.

#[test]
fn arithmetic_wraps() {
    assert_eq!(binop(BinOp::Add, i64::MAX, 1), End::Return(i64::MIN));
    assert_eq!(binop(BinOp::Sub, i64::MIN, 1), End::Return(i64::MAX));
    assert_eq!(binop(BinOp::Mul, i64::MAX, 2), End::Return(-2));
    assert_eq!(binop(BinOp::Mul, i64::MIN, -1), End::Return(i64::MIN));
    assert_eq!(eval(un(UnOp::Neg, var("a")), i64::MIN, 0), End::Return(i64::MIN));
    assert_eq!(eval(int(i64::MIN), 0, 0), End::Return(i64::MIN));
    assert_eq!(binop(BinOp::Add, 2, 3), End::Return(5));
}

#[test]
fn division_truncates_toward_zero() {
    assert_eq!(binop(BinOp::Div, -7, 2), End::Return(-3));
    assert_eq!(binop(BinOp::Div, 7, -2), End::Return(-3));
    assert_eq!(binop(BinOp::Rem, -7, 2), End::Return(-1));
    assert_eq!(binop(BinOp::Rem, 7, -2), End::Return(1));
    assert_eq!(binop(BinOp::Div, i64::MIN, 1), End::Return(i64::MIN));
    assert_eq!(binop(BinOp::Rem, i64::MIN, 1), End::Return(0));
}

#[test]
fn division_traps() {
    assert_eq!(binop(BinOp::Div, 5, 0), DIV);
    assert_eq!(binop(BinOp::Rem, 5, 0), DIV);
    assert_eq!(binop(BinOp::Div, 0, 0), DIV);
    assert_eq!(binop(BinOp::Div, i64::MIN, -1), DIV);
    assert_eq!(binop(BinOp::Rem, i64::MIN, -1), DIV);
}

#[test]
fn a_trap_keeps_the_trace_and_memory_so_far() {
    let p = program(
        &["a"],
        vec![out(lit(1)), Stmt::Store(lit(9), lit(99)), out(bin(BinOp::Div, lit(1), var("a"))), out(lit(2))],
    );
    let o = run(&p, &[0]);
    assert_eq!(o.trace, vec![1]);
    assert_eq!(o.end, DIV);
    assert_eq!(o.mem[9], 99);
    assert_eq!(o.mem.len(), ssaref_types::ast::MEM_WORDS);
}

#[test]
fn shift_counts_are_taken_modulo_64() {
    assert_eq!(binop(BinOp::Shl, 3, 64), End::Return(3));
    assert_eq!(binop(BinOp::Shl, 3, 65), End::Return(6));
    assert_eq!(binop(BinOp::Shr, 12, 64), End::Return(12));
    assert_eq!(binop(BinOp::Shr, 12, 65), End::Return(6));
    // A negative count -1 is 63 modulo 64, and -63 is 1.
    assert_eq!(binop(BinOp::Shl, 1, -1), End::Return(i64::MIN));
    assert_eq!(binop(BinOp::Shl, 1, -63), End::Return(2));
    assert_eq!(binop(BinOp::Shr, 1 << 40, -1), End::Return(0));
    assert_eq!(binop(BinOp::Shl, 1, 63), End::Return(i64::MIN));
}

#[test]
fn shift_right_is_arithmetic() {
    assert_eq!(binop(BinOp::Shr, -16, 2), End::Return(-4));
    assert_eq!(binop(BinOp::Shr, -1, 63), End::Return(-1));
    assert_eq!(binop(BinOp::Shr, i64::MIN, 63), End::Return(-1));
    assert_eq!(binop(BinOp::Shr, i64::MAX, 62), End::Return(1));
}

#[test]
fn bitwise_operators() {
    assert_eq!(binop(BinOp::And, 0b1100, 0b1010), End::Return(0b1000));
    assert_eq!(binop(BinOp::Or, 0b1100, 0b1010), End::Return(0b1110));
    assert_eq!(binop(BinOp::Xor, 0b1100, 0b1010), End::Return(0b0110));
    assert_eq!(eval(un(UnOp::BitNot, var("a")), 0, 0), End::Return(-1));
    assert_eq!(eval(un(UnOp::BitNot, var("a")), 5, 0), End::Return(-6));
    assert_eq!(eval(un(UnOp::BitNot, var("a")), i64::MIN, 0), End::Return(i64::MAX));
}

#[test]
fn logical_not_yields_0_or_1() {
    assert_eq!(eval(un(UnOp::Not, var("a")), 0, 0), End::Return(1));
    assert_eq!(eval(un(UnOp::Not, var("a")), 5, 0), End::Return(0));
    assert_eq!(eval(un(UnOp::Not, var("a")), -1, 0), End::Return(0));
    assert_eq!(eval(un(UnOp::Not, var("a")), i64::MIN, 0), End::Return(0));
}

#[test]
fn comparisons_are_signed_and_yield_0_or_1() {
    let cases = [
        (BinOp::Eq, [0, 1, 0]),
        (BinOp::Ne, [1, 0, 1]),
        (BinOp::Lt, [1, 0, 1]),
        (BinOp::Le, [1, 1, 1]),
        (BinOp::Gt, [0, 0, 0]),
        (BinOp::Ge, [0, 1, 0]),
    ];
    // The operand pairs: less, equal, and less across the sign boundary.
    let pairs = [(1, 2), (2, 2), (-1, 1)];
    for (op, expected) in cases {
        for ((a, b), want) in pairs.into_iter().zip(expected) {
            assert_eq!(binop(op, a, b), End::Return(want), "{a} {op} {b}");
        }
    }
    assert_eq!(binop(BinOp::Lt, i64::MIN, i64::MAX), End::Return(1));
}

#[test]
fn logical_operators_yield_0_or_1() {
    assert_eq!(eval(and(var("a"), var("b")), 2, 3), End::Return(1));
    assert_eq!(eval(and(var("a"), var("b")), 2, 0), End::Return(0));
    assert_eq!(eval(and(var("a"), var("b")), 0, 3), End::Return(0));
    assert_eq!(eval(or(var("a"), var("b")), 0, 7), End::Return(1));
    assert_eq!(eval(or(var("a"), var("b")), -4, 0), End::Return(1));
    assert_eq!(eval(or(var("a"), var("b")), 0, 0), End::Return(0));
    // Nested, and assigned to a variable the right side reads.
    let p = program(&["a", "b"], vec![assign("b", and(or(var("a"), var("b")), var("b"))), ret(var("b"))]);
    assert_eq!(run(&p, &[0, 5]).end, End::Return(1));
    assert_eq!(run(&p, &[3, 0]).end, End::Return(0));
}

#[test]
fn short_circuit_suppresses_a_trap_on_the_right() {
    let trap = || bin(BinOp::Div, lit(1), var("b"));
    assert_eq!(eval(and(var("a"), trap()), 0, 0), End::Return(0));
    assert_eq!(eval(or(var("a"), trap()), 1, 0), End::Return(1));
    // When the left side does not decide, the right side runs and traps.
    assert_eq!(eval(and(var("a"), trap()), 1, 0), DIV);
    assert_eq!(eval(or(var("a"), trap()), 0, 0), DIV);
    // The same in a condition, where the value is only branched on.
    let p = program(&["a", "b"], vec![if_(and(var("a"), trap()), vec![out(lit(1))]), out(lit(2))]);
    assert_eq!(run(&p, &[0, 0]).trace, vec![2]);
    assert_eq!(run(&p, &[1, 0]).end, DIV);
}

#[test]
fn mem_index_wraps_including_negative_indices() {
    let p = program(
        &[],
        vec![
            Stmt::Store(int(-1), lit(42)),
            out(load(lit(4095))),
            Stmt::Store(lit(4096 + 3), lit(7)),
            out(load(lit(3))),
            Stmt::Store(int(-4096), lit(8)),
            out(load(lit(0))),
            out(load(int(-4095))),
            out(load(lit(100))),
        ],
    );
    let o = run(&p, &[]);
    assert_eq!(o.trace, vec![42, 7, 8, 0, 0]);
    assert_eq!(o.mem[4095], 42);
    assert_eq!(o.mem[3], 7);
    assert_eq!(o.mem[0], 8);
    assert_eq!(o.nonzero_mem().len(), 3);
}

// ---------------------------------------------------------------------------
// Variables, arguments, control flow.

#[test]
fn falling_off_main_returns_0() {
    let o = run(&program(&[], vec![out(lit(1))]), &[]);
    assert_eq!(o.trace, vec![1]);
    assert_eq!(o.end, End::Return(0));
    assert_eq!(run(&program(&[], vec![]), &[]).end, End::Return(0));
}

#[test]
fn missing_arguments_are_0_and_variables_start_at_0() {
    let p = program(&["a", "b", "c"], vec![out(var("a")), out(var("b")), out(var("c")), out(var("x"))]);
    assert_eq!(run(&p, &[5]).trace, vec![5, 0, 0, 0]);
    assert_eq!(run(&p, &[]).trace, vec![0, 0, 0, 0]);
    assert_eq!(run(&p, &[1, 2, 3]).trace, vec![1, 2, 3, 0]);
}

#[test]
fn too_many_arguments_is_an_error() {
    let p = program(&["a"], vec![ret(var("a"))]);
    assert_eq!(run_ast(&p, &[1, 2], DEFAULT_FUEL), Err(InterpError::TooManyArguments { expected: 1, got: 2 }));
}

#[test]
fn var_is_an_ordinary_assignment() {
    // `var y` inside the loop does not reset `y`: the first `out y` sees
    // the initial 0, the later ones the previous iteration's value.
    let p = program(
        &[],
        vec![while_(
            bin(BinOp::Lt, var("i"), lit(3)),
            vec![
                out(var("y")),
                Stmt::Var("y".into(), bin(BinOp::Add, var("i"), lit(10))),
                assign("i", bin(BinOp::Add, var("i"), lit(1))),
            ],
        )],
    );
    assert_eq!(run(&p, &[]).trace, vec![0, 10, 11]);
}

#[test]
fn no_main_is_an_error() {
    let mut p = program(&[], vec![]);
    p.functions[0].name = "other".into();
    assert_eq!(run_ast(&p, &[], DEFAULT_FUEL), Err(InterpError::NoMain));
}

#[test]
fn goto_forward_and_backward() {
    let forward = program(&[], vec![Stmt::Goto("skip".into()), out(lit(1)), Stmt::Label("skip".into()), out(lit(2))]);
    assert_eq!(run(&forward, &[]).trace, vec![2]);

    let backward = program(
        &[],
        vec![
            Stmt::Label("top".into()),
            assign("i", bin(BinOp::Add, var("i"), lit(1))),
            out(var("i")),
            if_(bin(BinOp::Lt, var("i"), lit(3)), vec![Stmt::Goto("top".into())]),
            ret(lit(9)),
        ],
    );
    let o = run(&backward, &[]);
    assert_eq!(o.trace, vec![1, 2, 3]);
    assert_eq!(o.end, End::Return(9));
}

#[test]
fn goto_into_a_loop_body_then_continue_and_break_use_that_loop() {
    // i = 0; goto inside;
    // while (i < 3) { out 100; inside: out i; i = i + 1;
    //                 if (i == 2) { continue; } if (i == 5) { break; } }
    // out 999;
    let p = program(
        &[],
        vec![
            Stmt::Goto("inside".into()),
            while_(
                bin(BinOp::Lt, var("i"), lit(3)),
                vec![
                    out(lit(100)),
                    Stmt::Label("inside".into()),
                    out(var("i")),
                    assign("i", bin(BinOp::Add, var("i"), lit(1))),
                    if_(bin(BinOp::Eq, var("i"), lit(2)), vec![Stmt::Continue]),
                    out(lit(200)),
                ],
            ),
            out(lit(999)),
        ],
    );
    // The `continue` at i == 2 goes back to the condition, skipping `out 200`.
    assert_eq!(run(&p, &[]).trace, vec![0, 200, 100, 1, 100, 2, 200, 999]);

    // A jump from outside into an inner loop nested in an outer one; the
    // inner `break` leaves the inner loop only, and the outer loop goes on.
    // while (j < 2) { j = j + 1; out 10;
    //   while (1) { out 20; inner: k = k + 1; out k; if (k % 2 == 0) { break; } }
    //   out 30; }
    let p = program(
        &[],
        vec![
            Stmt::Goto("inner".into()),
            while_(
                bin(BinOp::Lt, var("j"), lit(2)),
                vec![
                    assign("j", bin(BinOp::Add, var("j"), lit(1))),
                    out(lit(10)),
                    while_(
                        lit(1),
                        vec![
                            out(lit(20)),
                            Stmt::Label("inner".into()),
                            assign("k", bin(BinOp::Add, var("k"), lit(1))),
                            out(var("k")),
                            if_(bin(BinOp::Eq, bin(BinOp::Rem, var("k"), lit(2)), lit(0)), vec![Stmt::Break]),
                        ],
                    ),
                    out(lit(30)),
                ],
            ),
            out(lit(999)),
        ],
    );
    assert_eq!(run(&p, &[]).trace, vec![1, 20, 2, 30, 10, 20, 3, 20, 4, 30, 10, 20, 5, 20, 6, 30, 999]);
}

#[test]
fn malformed_control_flow_is_an_error_not_a_panic() {
    let unknown = program(&[], vec![Stmt::Goto("nowhere".into())]);
    assert!(matches!(run_ast(&unknown, &[], DEFAULT_FUEL), Err(InterpError::Malformed(_))));
    let stray = program(&[], vec![Stmt::Break]);
    assert!(matches!(run_ast(&stray, &[], DEFAULT_FUEL), Err(InterpError::Malformed(_))));
    let twice = program(&[], vec![Stmt::Label("l".into()), Stmt::Label("l".into())]);
    assert!(matches!(run_ast(&twice, &[], DEFAULT_FUEL), Err(InterpError::Malformed(_))));
    let mut deep = var("a");
    for _ in 0..ssaref_types::ast::MAX_EXPR_DEPTH {
        deep = un(UnOp::Neg, deep);
    }
    let deep = program(&["a"], vec![ret(deep)]);
    assert!(matches!(run_ast(&deep, &[], DEFAULT_FUEL), Err(InterpError::Malformed(_))));
}

#[test]
fn expressions_at_the_depth_limit_run() {
    const MAX: usize = ssaref_types::ast::MAX_EXPR_DEPTH;
    // MAX - 1 negations around a leaf: depth exactly the limit.
    let mut e = var("a");
    for _ in 1..MAX {
        e = un(UnOp::Neg, e);
    }
    assert_eq!(e.depth(), MAX);
    // An odd number of negations (255) negates.
    assert_eq!(eval(e, 5, 0), End::Return(-5));
    // A deep right-leaning sum keeps many temporaries alive at once:
    // a + b*1 + b*2 + ... + b*n, nested as b*n + (... + (b*1 + a)).
    let n = MAX as i64 - 2;
    let mut e = var("a");
    for i in 1..=n {
        e = bin(BinOp::Add, bin(BinOp::Mul, var("b"), lit(i)), e);
    }
    assert_eq!(e.depth(), MAX);
    assert_eq!(eval(e, 1, 2), End::Return(1 + 2 * n * (n + 1) / 2));
    // A left-leaning one, where each left operand holds a temporary while
    // the right one is computed.
    let mut e = var("a");
    for i in 1..=n {
        e = bin(BinOp::Sub, e, bin(BinOp::Mul, var("b"), lit(i)));
    }
    assert_eq!(eval(e, 1, 2), End::Return(1 - 2 * n * (n + 1) / 2));
}

// ---------------------------------------------------------------------------
// Fuel.

#[test]
fn fuel_exhaustion_keeps_the_trace_and_memory_so_far() {
    let p = program(&[], vec![Stmt::Store(lit(5), lit(9)), while_(lit(1), vec![out(lit(7))])]);
    let o = run_ast(&p, &[], 100).unwrap();
    assert_eq!(o.end, End::OutOfFuel);
    assert!(!o.trace.is_empty());
    assert!(o.trace.len() < 100);
    assert!(o.trace.iter().all(|&v| v == 7));
    assert_eq!(o.mem[5], 9);
}

#[test]
fn fuel_counts_statements_and_expression_nodes() {
    // Each `out <literal>` is one statement and one expression node.
    let p = program(&[], vec![out(lit(1)), out(lit(2)), out(lit(3))]);
    let o = run_ast(&p, &[], 4).unwrap();
    assert_eq!((o.trace, o.end), (vec![1, 2], End::OutOfFuel));
    let o = run_ast(&p, &[], 6).unwrap();
    assert_eq!((o.trace, o.end), (vec![1, 2, 3], End::Return(0)));
    let o = run_ast(&p, &[], 0).unwrap();
    assert_eq!((o.trace, o.end), (vec![], End::OutOfFuel));
}

// ---------------------------------------------------------------------------
// Stack use: deep nesting and long functions on a small thread stack.

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(2 << 20).spawn(f).unwrap().join().unwrap()
}

#[test]
fn ten_thousand_nested_ifs_run_on_a_2_mib_stack() {
    let trace = on_small_stack(|| {
        // x = x + 1; if (x > 0) { x = x + 1; if (x > 0) { ... out x; } }
        let mut body = vec![out(var("x"))];
        for _ in 0..10_000 {
            body = vec![assign("x", bin(BinOp::Add, var("x"), lit(1))), if_(bin(BinOp::Gt, var("x"), lit(0)), body)];
        }
        let p = program(&[], body);
        run(&p, &[]).trace
    });
    assert_eq!(trace, vec![10_000]);
}

#[test]
fn ten_thousand_nested_whiles_with_break_run_on_a_2_mib_stack() {
    let end = on_small_stack(|| {
        // while (1) { n = n + 1; while (1) { ... } break; } return n;
        let mut body = vec![assign("n", bin(BinOp::Mul, var("n"), lit(1)))];
        for _ in 0..10_000 {
            body = vec![while_(
                lit(1),
                vec![assign("n", bin(BinOp::Add, var("n"), lit(1))), Stmt::Block(Block::new(body)), Stmt::Break],
            )];
        }
        body.push(ret(var("n")));
        run(&program(&[], body), &[]).end
    });
    assert_eq!(end, End::Return(10_000));
}

#[test]
fn a_million_statements_run_on_a_2_mib_stack() {
    let o = on_small_stack(|| {
        let body = (0..1_000_000).map(|i| Stmt::Store(lit(i & 4095), lit(i))).collect();
        run_ast(&program(&[], body), &[], u64::MAX).unwrap()
    });
    assert_eq!(o.end, End::Return(0));
    // 1_000_000 = 244 * 4096 + 576, so the last store to word w stored
    // 999_424 + w for w < 576 and 995_328 + w for the others.
    assert_eq!(o.mem[0], 999_424);
    assert_eq!(o.mem[4095], 999_423);
    assert_eq!(o.mem[575], 999_999);
}

// ---------------------------------------------------------------------------
// SSA construction helpers.

fn v(i: u32) -> Value {
    Value(i)
}

fn b(i: u32) -> ir::Block {
    ir::Block(i)
}

fn def(dest: u32, op: Op) -> Inst {
    Inst { dest: Some(v(dest)), op }
}

fn eff(op: Op) -> Inst {
    Inst { dest: None, op }
}

fn phi(dest: u32, args: &[u32]) -> Phi {
    Phi { dest: v(dest), args: args.iter().map(|&a| v(a)).collect() }
}

fn block(preds: &[u32], phis: Vec<Phi>, insts: Vec<Inst>, term: Terminator) -> BlockData {
    BlockData { preds: preds.iter().map(|&p| b(p)).collect(), phis, insts, term }
}

fn jump(to: u32) -> Terminator {
    Terminator::Jump(b(to))
}

fn branch(cond: u32, then_dest: u32, else_dest: u32) -> Terminator {
    Terminator::Branch { cond: v(cond), then_dest: b(then_dest), else_dest: b(else_dest) }
}

fn module(params: &[u32], blocks: Vec<BlockData>, value_count: u32) -> Module {
    let mut table = EntityVec::new();
    for data in blocks {
        table.push(data);
    }
    Module {
        functions: vec![ir::Function {
            name: "main".into(),
            params: params.iter().map(|&p| v(p)).collect(),
            blocks: table,
            value_count,
        }],
    }
}

fn run_m(m: &Module, args: &[i64]) -> Outcome {
    run_ssa(m, args, DEFAULT_FUEL).expect("the oracle rejected a well-formed module")
}

/// `fn main(v0, v1) { return v0 op v1; }` in SSA.
fn ssa_binop(op: BinOp, a: i64, c: i64) -> End {
    let m = module(
        &[0, 1],
        vec![block(&[], vec![], vec![def(2, Op::Binary(op, v(0), v(1)))], Terminator::Return(v(2)))],
        3,
    );
    run_m(&m, &[a, c]).end
}

// ---------------------------------------------------------------------------
// The SSA engine.

#[test]
fn ssa_operators_match_the_ast_engine() {
    let samples = [0, 1, -1, 2, -7, 63, 64, 65, i64::MIN, i64::MAX];
    for op in BinOp::ALL {
        for a in samples {
            for c in samples {
                assert_eq!(ssa_binop(op, a, c), binop(op, a, c), "{a} {op} {c}");
            }
        }
    }
    assert_eq!(ssa_binop(BinOp::Div, i64::MIN, -1), DIV);
    assert_eq!(ssa_binop(BinOp::Rem, 3, 0), DIV);
    for op in UnOp::ALL {
        for a in samples {
            let m =
                module(&[0], vec![block(&[], vec![], vec![def(1, Op::Unary(op, v(0)))], Terminator::Return(v(1)))], 2);
            assert_eq!(run_m(&m, &[a]).end, eval(un(op, var("a")), a, 0), "{op}{a}");
        }
    }
}

/// b0: v0 = 1; v1 = 2; v2 = 0; v8 = 3; v9 = 1; jump b1
/// b1 (preds b0, b1): v3 = phi v0, v4; v4 = phi v1, v3; v5 = phi v2, v6;
///     out v3; out v4; v6 = add v5, v9; v7 = lt v6, v8; br v7, b1, b2
/// b2 (preds b1): ret v3
fn swap_module() -> Module {
    module(
        &[],
        vec![
            block(
                &[],
                vec![],
                vec![
                    def(0, Op::Const(1)),
                    def(1, Op::Const(2)),
                    def(2, Op::Const(0)),
                    def(8, Op::Const(3)),
                    def(9, Op::Const(1)),
                ],
                jump(1),
            ),
            block(
                &[0, 1],
                vec![phi(3, &[0, 4]), phi(4, &[1, 3]), phi(5, &[2, 6])],
                vec![
                    eff(Op::Out(v(3))),
                    eff(Op::Out(v(4))),
                    def(6, Op::Binary(BinOp::Add, v(5), v(9))),
                    def(7, Op::Binary(BinOp::Lt, v(6), v(8))),
                ],
                branch(7, 1, 2),
            ),
            block(&[1], vec![], vec![], Terminator::Return(v(3))),
        ],
        10,
    )
}

#[test]
fn ssa_phis_are_parallel_copies() {
    let o = run_m(&swap_module(), &[]);
    // Sequential copies would give 1 2, 2 2, 2 2.
    assert_eq!(o.trace, vec![1, 2, 2, 1, 1, 2]);
    assert_eq!(o.end, End::Return(1));
}

#[test]
fn ssa_branch_to_the_same_block_twice_uses_the_edge_taken() {
    // b0: v1 = 10; v2 = 20; br v0, b1, b1
    // b1 (preds b0, b0): v3 = phi v1, v2; ret v3
    let m = module(
        &[0],
        vec![
            block(&[], vec![], vec![def(1, Op::Const(10)), def(2, Op::Const(20))], branch(0, 1, 1)),
            block(&[0, 0], vec![phi(3, &[1, 2])], vec![], Terminator::Return(v(3))),
        ],
        4,
    );
    assert_eq!(run_m(&m, &[1]).end, End::Return(10));
    assert_eq!(run_m(&m, &[-5]).end, End::Return(10));
    assert_eq!(run_m(&m, &[0]).end, End::Return(20));
}

#[test]
fn ssa_use_of_an_undefined_value_is_detected() {
    // b0: br v0, b1, b2; b1: v1 = 5; jump b3; b2: jump b3;
    // b3 (preds b1, b2): out v1; ret v1
    let m = module(
        &[0],
        vec![
            block(&[], vec![], vec![], branch(0, 1, 2)),
            block(&[0], vec![], vec![def(1, Op::Const(5))], jump(3)),
            block(&[0], vec![], vec![], jump(3)),
            block(&[1, 2], vec![], vec![eff(Op::Out(v(1)))], Terminator::Return(v(1))),
        ],
        2,
    );
    assert_eq!(run_m(&m, &[1]).trace, vec![5]);
    assert_eq!(run_ssa(&m, &[0], DEFAULT_FUEL), Err(InterpError::UseOfUndefinedValue { value: v(1), block: b(3) }));

    // The same through a phi argument: b3: v2 = phi v1, v1.
    let m = module(
        &[0],
        vec![
            block(&[], vec![], vec![], branch(0, 1, 2)),
            block(&[0], vec![], vec![def(1, Op::Const(5))], jump(3)),
            block(&[0], vec![], vec![], jump(3)),
            block(&[1, 2], vec![phi(2, &[1, 1])], vec![], Terminator::Return(v(2))),
        ],
        3,
    );
    assert_eq!(run_m(&m, &[1]).end, End::Return(5));
    assert!(matches!(run_ssa(&m, &[0], DEFAULT_FUEL), Err(InterpError::UseOfUndefinedValue { value: Value(1), .. })));
}

#[test]
fn ssa_executing_undef_is_detected() {
    // b0: br v0, b1, b2; b1: v1 = undef; jump b2; b2: ret v0
    let m = module(
        &[0],
        vec![
            block(&[], vec![], vec![], branch(0, 1, 2)),
            block(&[0], vec![], vec![def(1, Op::Undef)], jump(2)),
            block(&[0, 1], vec![], vec![], Terminator::Return(v(0))),
        ],
        2,
    );
    assert_eq!(run_m(&m, &[0]).end, End::Return(0));
    assert_eq!(run_ssa(&m, &[1], DEFAULT_FUEL), Err(InterpError::UndefExecuted { block: b(1), value: Some(v(1)) }));
}

#[test]
fn ssa_malformed_modules_are_errors_not_panics() {
    let is_malformed = |m: &Module| matches!(run_ssa(m, &[], DEFAULT_FUEL), Err(InterpError::Malformed(_)));
    // A jump to a block that does not exist.
    let m = module(&[], vec![block(&[], vec![], vec![], jump(7))], 0);
    assert!(is_malformed(&m));
    // A phi with one argument in a block with two predecessors.
    let m = module(
        &[],
        vec![
            block(&[], vec![], vec![def(0, Op::Const(1))], jump(1)),
            block(&[0, 0], vec![phi(1, &[0])], vec![], Terminator::Return(v(1))),
        ],
        2,
    );
    assert!(is_malformed(&m));
    // An edge missing from the predecessors of a block with phis.
    let m = module(
        &[],
        vec![
            block(&[], vec![], vec![def(0, Op::Const(1))], jump(1)),
            block(&[5], vec![phi(1, &[0])], vec![], Terminator::Return(v(1))),
        ],
        2,
    );
    assert!(is_malformed(&m));
    // A value number beyond value_count, read and written.
    let m = module(&[], vec![block(&[], vec![], vec![], Terminator::Return(v(3)))], 1);
    assert!(is_malformed(&m));
    let m = module(&[], vec![block(&[], vec![], vec![def(9, Op::Const(1))], Terminator::Return(v(9)))], 1);
    assert!(is_malformed(&m));
    // No blocks at all, and a store that names a destination.
    assert!(is_malformed(&module(&[], vec![], 0)));
    let m = module(
        &[],
        vec![block(
            &[],
            vec![],
            vec![def(0, Op::Const(1)), def(1, Op::Store { addr: v(0), value: v(0) })],
            Terminator::Return(v(0)),
        )],
        2,
    );
    assert!(is_malformed(&m));
}

#[test]
fn ssa_arguments_memory_and_errors() {
    // b0: out v0; out v1; store v0, v1; v2 = load v0; ret v2
    let m = module(
        &[0, 1],
        vec![block(
            &[],
            vec![],
            vec![
                eff(Op::Out(v(0))),
                eff(Op::Out(v(1))),
                eff(Op::Store { addr: v(0), value: v(1) }),
                def(2, Op::Load(v(0))),
            ],
            Terminator::Return(v(2)),
        )],
        3,
    );
    let o = run_m(&m, &[-1]);
    assert_eq!(o.trace, vec![-1, 0]);
    let o = run_m(&m, &[-2, 77]);
    assert_eq!(o.end, End::Return(77));
    assert_eq!(o.mem[4094], 77);
    assert_eq!(run_ssa(&m, &[1, 2, 3], DEFAULT_FUEL), Err(InterpError::TooManyArguments { expected: 2, got: 3 }));
    assert_eq!(run_ssa(&Module::default(), &[], DEFAULT_FUEL), Err(InterpError::NoMain));
}

#[test]
fn ssa_fuel_exhaustion_keeps_the_trace_so_far() {
    let o = run_ssa(&swap_module(), &[], 12).unwrap();
    assert_eq!(o.end, End::OutOfFuel);
    // 5 constants and a jump (6), 3 phis (9), then the two outs (11) and
    // the add (12): the `lt` finds the tank empty.
    assert_eq!(o.trace, vec![1, 2]);
    let o = run_ssa(&swap_module(), &[], 0).unwrap();
    assert_eq!((o.trace, o.end), (vec![], End::OutOfFuel));
}

#[test]
fn ssa_and_ast_agree_on_a_loop() {
    // fn main(n) { while (i < n) { s = s + i * i; mem[i] = s; i = i + 1; } out s; return s % 7; }
    let p = program(
        &["n"],
        vec![
            while_(
                bin(BinOp::Lt, var("i"), var("n")),
                vec![
                    assign("s", bin(BinOp::Add, var("s"), bin(BinOp::Mul, var("i"), var("i")))),
                    Stmt::Store(var("i"), var("s")),
                    assign("i", bin(BinOp::Add, var("i"), lit(1))),
                ],
            ),
            out(var("s")),
            ret(bin(BinOp::Rem, var("s"), lit(7))),
        ],
    );
    // b0: v1 = 0; v10 = 1; v11 = 7; jump b1
    // b1 (b0, b2): v2 = phi v1, v6 (i); v3 = phi v1, v5 (s); v4 = lt v2, v0; br v4, b2, b3
    // b2 (b1): v7 = mul v2, v2; v5 = add v3, v7; store v2, v5; v6 = add v2, v10; jump b1
    // b3 (b1): out v3; v8 = rem v3, v11; ret v8
    let m = module(
        &[0],
        vec![
            block(&[], vec![], vec![def(1, Op::Const(0)), def(10, Op::Const(1)), def(11, Op::Const(7))], jump(1)),
            block(
                &[0, 2],
                vec![phi(2, &[1, 6]), phi(3, &[1, 5])],
                vec![def(4, Op::Binary(BinOp::Lt, v(2), v(0)))],
                branch(4, 2, 3),
            ),
            block(
                &[1],
                vec![],
                vec![
                    def(7, Op::Binary(BinOp::Mul, v(2), v(2))),
                    def(5, Op::Binary(BinOp::Add, v(3), v(7))),
                    eff(Op::Store { addr: v(2), value: v(5) }),
                    def(6, Op::Binary(BinOp::Add, v(2), v(10))),
                ],
                jump(1),
            ),
            block(
                &[1],
                vec![],
                vec![eff(Op::Out(v(3))), def(8, Op::Binary(BinOp::Rem, v(3), v(11)))],
                Terminator::Return(v(8)),
            ),
        ],
        12,
    );
    for n in [0, 1, 5, 100] {
        let a = run(&p, &[n]);
        let s = run_m(&m, &[n]);
        assert_eq!(a, s, "n = {n}");
        let expected: i64 = (0..n).map(|i| i * i).sum();
        assert_eq!(a.trace, vec![expected]);
    }
}

#[test]
fn ssa_a_huge_value_count_does_not_exhaust_memory() {
    // value_count u32::MAX with only small values mentioned runs normally,
    // and a mention beyond value_count is still reported as malformed.
    let mut m = module(
        &[0],
        vec![block(&[], vec![], vec![def(1, Op::Unary(UnOp::Neg, v(0)))], Terminator::Return(v(1)))],
        u32::MAX,
    );
    assert_eq!(run_m(&m, &[4]).end, End::Return(-4));
    m.functions[0].value_count = 1;
    assert!(matches!(run_ssa(&m, &[4], DEFAULT_FUEL), Err(InterpError::Malformed(_))));
}
