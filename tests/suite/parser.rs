//! Integration tests of the front end: the lexer, the parser, the printer
//! and the `fuzz_parse` entry point.
//!
//! They cover the exact message and position of every kind of error, the
//! print/parse round trip on hand-written and random programs, minimal
//! parenthesization, the stack bound on very deep and very long programs
//! (run on 2 MiB threads), and a short fuzzing smoke test.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use ssaref::ast::{walk_stmts, BinOp, Block, Expr, Function, Program, Stmt, UnOp, MAX_EXPR_DEPTH, MAX_NESTING};
use ssaref::campaign::fuzz_targets::fuzz_parse;
use ssaref::diag::Diag;
use ssaref::frontend::ast_print::{print_expr, print_program, MAX_INDENT_LEVELS};
use ssaref::frontend::lexer::{is_keyword, KEYWORDS};
use ssaref::frontend::parser::parse_program;
use std::time::{Duration, Instant};

/// The stack size of a `cargo test` thread, which the deep tests must fit.
const SMALL_STACK: usize = 2 << 20;

/// Runs `f` on a fresh thread with a 2 MiB stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(f)
        .expect("spawn a test thread")
        .join()
        .expect("the test thread panicked");
}

/// The error of a program that must not parse, as `LINE:COL: message`.
fn error_of(src: &str) -> String {
    match parse_program(src) {
        Ok(p) => panic!("expected an error, parsed {p:?}\nfrom:\n{src}"),
        Err(e) => e.to_string(),
    }
}

/// Parses a program that must parse.
fn parse_ok(src: &str) -> Program {
    parse_program(src).unwrap_or_else(|e| panic!("{e}\nin:\n{src}"))
}

/// Checks the round trip on `p` and that printing is a fixed point.
fn assert_round_trip(p: &Program) {
    let printed = print_program(p);
    let reparsed = parse_program(&printed).unwrap_or_else(|e| panic!("{e}\nin:\n{printed}"));
    assert_eq!(&reparsed, p, "printed:\n{printed}");
    assert_eq!(print_program(&reparsed), printed);
}

/// The expression of `fn main() { out E; }`.
fn parse_expr(e: &str) -> Expr {
    let p = parse_ok(&format!("fn main() {{ out {e}; }}"));
    match p.functions[0].body.stmts.as_slice() {
        [Stmt::Out(e)] => e.clone(),
        other => panic!("unexpected statements {other:?}"),
    }
}

fn var(x: &str) -> Expr {
    Expr::Var(x.to_string())
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

fn un(op: UnOp, a: Expr) -> Expr {
    Expr::Unary(op, Box::new(a))
}

// ---------------------------------------------------------------------------
// Errors: exact message and position.
// ---------------------------------------------------------------------------

#[test]
fn syntax_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "1:1: expected `fn`, found end of file"),
        ("  \n // only a comment", "2:19: expected `fn`, found end of file"),
        ("fn main() {\n    x = 1\n}\n", "3:1: expected `;`, found `}`"),
        ("fn main() {\n    out ;\n}", "2:9: expected expression, found `;`"),
        ("fn main() {", "1:12: expected `}`, found end of file"),
        ("fn main() { if (1) { out 1; }", "1:30: expected `}`, found end of file"),
        ("fn main() { x + 1; }", "1:15: expected `=`, `:` or `(`, found `+`"),
        ("fn main() { var if = 1; }", "1:17: expected identifier, found `if`"),
        ("fn main() { out 1; } x", "1:22: expected `fn`, found identifier `x`"),
        ("fn main() { else { } }", "1:13: expected statement, found `else`"),
        ("fn main() { if (1) { } else out 1; }", "1:29: expected `{` or `if`, found `out`"),
        ("fn main() { if 1 { } }", "1:16: expected `(`, found literal `1`"),
        ("fn main() { while (1) out 1; }", "1:23: expected `{`, found `out`"),
        ("fn main() { mem[1 = 2; }", "1:19: expected `]`, found `=`"),
        ("fn main() { out (1 + 2; }", "1:23: expected `)`, found `;`"),
        ("fn main() { out mem 1; }", "1:21: expected `[`, found literal `1`"),
        ("fn main(a,) { }", "1:11: expected identifier, found `)`"),
        ("fn main(a b) { }", "1:11: expected `)`, found identifier `b`"),
        ("fn 1() { }", "1:4: expected identifier, found literal `1`"),
        ("fn main() { goto 1; }", "1:18: expected identifier, found literal `1`"),
        ("fn main() { out 1 2; }", "1:19: expected `;`, found literal `2`"),
        ("fn main() {\n\tout x @ y;\n}", "2:8: unexpected character `@`"),
        ("fn main() { out \u{e9}; }", "1:17: unexpected character `\u{e9}`"),
        ("fn main() { out x; } // \u{e9}\u{e9}\n\u{1}", "2:1: unexpected character `\\u{1}`"),
        // Columns count characters, also inside comments.
        ("fn f() { }\n// \u{e9}", "2:5: no function named `main`"),
    ];
    for (src, want) in cases {
        assert_eq!(error_of(src), *want, "source:\n{src}");
    }
    // A complete program may end with a comment and no newline.
    parse_ok("fn main() { out 1; }\n// trailing \u{e9}");
}

#[test]
fn long_tokens_are_shortened_in_messages() {
    let long = "a".repeat(100);
    let got = error_of(&format!("fn main() {{ out 1 {long}; }}"));
    assert_eq!(got, format!("1:19: expected `;`, found identifier `{}...`", "a".repeat(32)));
}

#[test]
fn label_errors() {
    assert_eq!(error_of("fn main() {\n    goto L;\n}"), "2:5: unknown label `L`");
    assert_eq!(error_of("fn main() {\n    L:\n    out 1;\n    L:\n}"), "4:5: duplicate label `L`");
    // A duplicate in a nested block is still in the same function.
    assert_eq!(error_of("fn main() {\n    L:\n    while (1) {\n        L:\n    }\n}"), "4:9: duplicate label `L`");
    // Labels are per function: a `goto` cannot reach another function.
    assert_eq!(error_of("fn f() {\n    L:\n}\nfn main() {\n    goto L;\n}"), "5:5: unknown label `L`");
    // The same label in two functions is fine, and a `goto` may jump
    // forwards, backwards, into and out of blocks.
    parse_ok(
        "fn f() { L: goto L; }\n\
         fn main() { goto M; { M: } while (1) { goto L; } L: goto M; }",
    );
    // The first unknown label in text order is reported.
    assert_eq!(error_of("fn main() { goto A; goto B; }"), "1:13: unknown label `A`");
}

#[test]
fn break_and_continue_outside_a_loop() {
    assert_eq!(error_of("fn main() {\n  break;\n}"), "2:3: `break` outside a loop");
    assert_eq!(error_of("fn main() {\n  if (1) { { continue; } }\n}"), "2:14: `continue` outside a loop");
    // After the loop has closed, `break` is outside it again.
    assert_eq!(error_of("fn main() { while (1) { break; } break; }"), "1:34: `break` outside a loop");
    parse_ok(
        "fn main() { while (1) { if (1) { { break; } } else { continue; } \
         while (0) { break; } continue; } }",
    );
}

#[test]
fn literal_range() {
    let max = parse_expr("9223372036854775807");
    assert_eq!(max, Expr::Lit(i64::MAX));
    assert_eq!(error_of("fn main() { out 9223372036854775808; }"), "1:17: literal out of range");
    // `-MIN` does not fit either: the literal is positive, then negated.
    assert_eq!(error_of("fn main() {\n  out -9223372036854775808;\n}"), "2:8: literal out of range");
    let huge = "9".repeat(10_000);
    assert_eq!(error_of(&format!("fn main() {{ out 1 + {huge}; }}")), "1:21: literal out of range");
    assert_eq!(parse_expr("007"), Expr::Lit(7));
    assert_eq!(parse_expr("-5"), un(UnOp::Neg, Expr::Lit(5)));
}

/// `fn main() { out E; }` puts the first character of E at column 17.
const EXPR_COL: usize = 17;

#[test]
fn expression_depth_limit() {
    let too_deep = format!("expression nested deeper than {MAX_EXPR_DEPTH}");
    let program = |e: &str| format!("fn main() {{ out {e}; }}");

    // A left-associative chain: n operators make a tree of height n + 1.
    let chain = |n: usize| format!("1{}", "+1".repeat(n));
    let p = parse_ok(&program(&chain(MAX_EXPR_DEPTH - 1)));
    assert_round_trip(&p);
    // The 256th `+` is at column 17 + 2 * 256 - 1.
    let col = EXPR_COL + 2 * MAX_EXPR_DEPTH - 1;
    assert_eq!(error_of(&program(&chain(MAX_EXPR_DEPTH))), format!("1:{col}: {too_deep}"));

    // Prefix operators: n of them over a variable make height n + 1.
    let negs = |n: usize| format!("{}x", "-".repeat(n));
    let p = parse_ok(&program(&negs(MAX_EXPR_DEPTH - 1)));
    assert_round_trip(&p);
    // The error is at the operator whose node would be too tall: the first.
    assert_eq!(error_of(&program(&negs(MAX_EXPR_DEPTH))), format!("1:{EXPR_COL}: {too_deep}"));

    // Parentheses add no tree level, but their nesting is bounded too.
    let parens = |n: usize| format!("{}x{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(parse_expr(&parens(MAX_EXPR_DEPTH)), var("x"), "256 nested parentheses are accepted");
    let col = EXPR_COL + MAX_EXPR_DEPTH;
    assert_eq!(error_of(&program(&parens(MAX_EXPR_DEPTH + 1))), format!("1:{col}: {too_deep}"));

    // `mem[` nests and adds a level: 255 loads over a leaf is height 256.
    let loads = |n: usize| format!("{}0{}", "mem[".repeat(n), "]".repeat(n));
    let p = parse_ok(&program(&loads(MAX_EXPR_DEPTH - 1)));
    assert_round_trip(&p);
    assert_eq!(error_of(&program(&loads(MAX_EXPR_DEPTH))), format!("1:{EXPR_COL}: {too_deep}"));

    // A right-nested tree, printed with parentheses, is accepted up to the
    // limit: the printer never emits more nesting than the tree height.
    let mut e = var("x");
    for _ in 1..MAX_EXPR_DEPTH {
        e = bin(BinOp::Sub, var("y"), e);
    }
    assert_eq!(e.depth(), MAX_EXPR_DEPTH);
    let p = main_with(vec![Stmt::Out(e)]);
    assert_round_trip(&p);
}

#[test]
fn function_errors() {
    assert_eq!(error_of("fn f() {\n}\n"), "3:1: no function named `main`");
    assert_eq!(error_of("fn main() {}\nfn main() {}"), "2:4: duplicate function `main`");
    assert_eq!(error_of("fn f(a, b, a) {}\nfn main() {}"), "1:12: duplicate parameter `a`");
    // Parameters, functions, variables and labels are separate namespaces.
    parse_ok("fn a(a, b) { a: b = a; goto a; }\nfn main() { var main = 1; }");
}

#[test]
fn keywords_are_not_identifiers() {
    for k in KEYWORDS {
        assert!(is_keyword(k));
        let got = error_of(&format!("fn main() {{ var {k} = 1; }}"));
        assert_eq!(got, format!("1:17: expected identifier, found `{k}`"));
    }
    assert!(!is_keyword("main"));
    assert!(!is_keyword("If"));
}

#[test]
fn diag_display() {
    let d: Diag = parse_program("fn main() {\n  out ;\n}").unwrap_err();
    assert_eq!((d.line, d.col), (2, 7));
    assert_eq!(d.message, "expected expression, found `;`");
    assert_eq!(d.to_string(), "2:7: expected expression, found `;`");
    assert_eq!(d.with_file("prog.src"), "prog.src:2:7: expected expression, found `;`");
    let _: &dyn std::error::Error = &d;
}

// ---------------------------------------------------------------------------
// Round trips and canonical text.
// ---------------------------------------------------------------------------

/// Hand-written programs covering every statement and operator.
const PROGRAMS: &[&str] = &[
    "fn main() { }",
    "fn main() { out 0; return 9223372036854775807; }",
    r"
    // Every statement.
    fn helper(a, b_2, _c) {
        var x = a;  // A comment after code.
        x = x + b_2;
        mem[x] = mem[_c] + 1;
        if (x) { out 1; }
        if (x) { out 1; } else { out 2; }
        if (x) { out 1; } else if (b_2) { out 2; } else if (_c) { out 3; } else { out 4; }
        if (x) { } else { if (a) { out 5; } }
        if (x) { } else { if (a) { out 5; } out 6; }
        while (x < 10) {
            x = x + 1;
            if (x == 3) { continue; }
            if (x == 7) { break; }
        }
        goto end;
        { { var y = 2; } out y; }
        {}
        end:
        return x;
    }
    fn main() { out 1; }
    ",
    r"
    fn main() {
        var a = 1; var b = 2; var c = 3;
        out a || b; out a && b; out a | b; out a ^ b; out a & b;
        out a == b; out a != b; out a < b; out a <= b; out a > b; out a >= b;
        out a << b; out a >> b; out a + b; out a - b; out a * b; out a / b; out a % b;
        out -a; out !a; out ~a; out mem[a]; out (a);
        out a || b && c | a ^ b & c == a != b < c <= a > b >= c << a >> b + c - a * b / c % a;
        out a * b / c % a - b + c >> a << b >= c > a <= b < c != a == b & c ^ a | b && c || a;
        out ((a || b) && c) | ((a ^ b) & (c == a));
        out -(a + b) * !(c - -a) / ~(mem[a - b] % 2);
        out - - -a; out !!a; out ~-!a;
    }
    ",
    "fn main(){L:goto L;}",
    "fn main() { if (1) { if (2) { if (3) { out 3; } else { out 4; } } else if (5) { } } }",
    "fn main() { while (1) { while (2) { break; } continue; } }",
];

#[test]
fn hand_written_programs_round_trip() {
    for src in PROGRAMS {
        let p = parse_ok(src);
        assert!(p.validate().is_ok(), "{src}");
        assert_round_trip(&p);
    }
}

#[test]
fn canonical_text() {
    let src = "fn f(a,b){var x=a;mem[x]=-b;L:if(x){while(1){break;}}else if(b){goto L;}else{{out 1;}}return x;}\
               fn main(){out 1==0;}";
    let p = parse_ok(src);
    let want = "\
fn f(a, b) {
    var x = a;
    mem[x] = -b;
    L:
    if (x) {
        while (1) {
            break;
        }
    } else if (b) {
        goto L;
    } else {
        {
            out 1;
        }
    }
    return x;
}

fn main() {
    out 1 == 0;
}
";
    assert_eq!(print_program(&p), want);
    assert_round_trip(&p);
}

#[test]
fn else_block_with_one_if_is_else_if() {
    let a = parse_ok("fn main() { if (1) { } else if (2) { out 2; } }");
    let b = parse_ok("fn main() { if (1) { } else { if (2) { out 2; } } }");
    assert_eq!(a, b);
    let inner = Stmt::If(Expr::Lit(2), Block::new(vec![Stmt::Out(Expr::Lit(2))]), None);
    let want = main_with(vec![Stmt::If(Expr::Lit(1), Block::default(), Some(Block::new(vec![inner])))]);
    assert_eq!(a, want);
}

/// `fn main() { stmts }`.
fn main_with(stmts: Vec<Stmt>) -> Program {
    Program { functions: vec![Function { name: "main".to_string(), params: vec![], body: Block::new(stmts) }] }
}

#[test]
fn minimal_parentheses() {
    let cases: &[(&str, &str)] = &[
        ("a - (b - c)", "a - (b - c)"),
        ("(a - b) - c", "a - b - c"),
        ("a - b - c", "a - b - c"),
        ("-(a + b)", "-(a + b)"),
        ("(-a) + b", "-a + b"),
        ("(a || b) && c", "(a || b) && c"),
        ("a || (b && c)", "a || b && c"),
        ("a || (b || c)", "a || (b || c)"),
        ("(a && b) && c", "a && b && c"),
        ("-(-x)", "- -x"),
        ("--x", "- -x"),
        ("- - -x", "- - -x"),
        ("-(!(-x))", "-!-x"),
        ("!(!x)", "!!x"),
        ("~(~x)", "~~x"),
        ("a - -b", "a - -b"),
        ("a*(b+c)", "a * (b + c)"),
        ("(a*b)+c", "a * b + c"),
        ("a / (b * c)", "a / (b * c)"),
        ("(a / b) * c", "a / b * c"),
        ("1 << (2 + 3)", "1 << 2 + 3"),
        ("(1 << 2) + 3", "(1 << 2) + 3"),
        ("(a == b) == c", "a == b == c"),
        ("a == (b == c)", "a == (b == c)"),
        ("a == (b < c)", "a == b < c"),
        ("(a == b) < c", "(a == b) < c"),
        ("((a | b) ^ c) & d", "((a | b) ^ c) & d"),
        ("a | (b ^ (c & d))", "a | b ^ c & d"),
        ("(a & b) | c", "a & b | c"),
        ("(a | b) || c", "a | b || c"),
        ("a && (b | c)", "a && b | c"),
        ("mem[(a + b)] * (mem[c])", "mem[a + b] * mem[c]"),
        ("-mem[a]", "-mem[a]"),
        ("mem[mem[(a)]]", "mem[mem[a]]"),
        ("((((x))))", "x"),
        ("-(5)", "-5"),
        ("!(a < b)", "!(a < b)"),
        ("(a % b) % c", "a % b % c"),
        ("a % (b % c)", "a % (b % c)"),
        ("a >> (b >> c)", "a >> (b >> c)"),
    ];
    for (input, want) in cases {
        let e = parse_expr(input);
        let printed = print_expr(&e);
        assert_eq!(&printed, want, "input `{input}`");
        assert_eq!(parse_expr(&printed), e, "reparse of `{printed}`");
    }
    // The AST shapes of a few of them.
    assert_eq!(parse_expr("a - b - c"), bin(BinOp::Sub, bin(BinOp::Sub, var("a"), var("b")), var("c")));
    assert_eq!(
        parse_expr("a || b && c"),
        Expr::LogicalOr(Box::new(var("a")), Box::new(Expr::LogicalAnd(Box::new(var("b")), Box::new(var("c")))))
    );
    assert_eq!(parse_expr("-a * b"), bin(BinOp::Mul, un(UnOp::Neg, var("a")), var("b")));
}

/// A random expression of height at most `height`.
fn random_expr(rng: &mut SmallRng, height: usize) -> Expr {
    let leaf = height <= 1 || rng.gen_ratio(1, 4);
    if leaf {
        return if rng.gen() {
            Expr::Lit(rng.gen_range(0..=i64::MAX))
        } else {
            var(["a", "b", "c"][rng.gen_range(0..3)])
        };
    }
    let sub = |rng: &mut SmallRng| Box::new(random_expr(rng, height - 1));
    match rng.gen_range(0..6) {
        0 => Expr::Load(sub(rng)),
        1 => {
            let op = UnOp::ALL[rng.gen_range(0..UnOp::ALL.len())];
            Expr::Unary(op, sub(rng))
        }
        2 => Expr::LogicalAnd(sub(rng), sub(rng)),
        3 => Expr::LogicalOr(sub(rng), sub(rng)),
        _ => {
            let op = BinOp::ALL[rng.gen_range(0..BinOp::ALL.len())];
            Expr::Binary(op, sub(rng), sub(rng))
        }
    }
}

#[test]
fn random_expressions_round_trip() {
    let mut rng = SmallRng::seed_from_u64(0x5eed);
    for _ in 0..3000 {
        let e = random_expr(&mut rng, 7);
        let p = main_with(vec![Stmt::Out(e)]);
        assert!(p.validate().is_ok());
        assert_round_trip(&p);
    }
}

// ---------------------------------------------------------------------------
// Stack bound: deep and long programs on a 2 MiB stack.
// ---------------------------------------------------------------------------

/// Number of nested blocks in the body of `main`, counted without
/// recursion.
fn max_nesting(p: &Program) -> (usize, usize) {
    let main = p.main().expect("main");
    let mut stmts = 0;
    let mut loops = 0;
    walk_stmts(&main.body, |_, loop_depth| {
        stmts += 1;
        loops = loops.max(loop_depth);
    });
    (stmts, loops)
}

/// Checks print/parse/print on a program too deep for the derived,
/// recursive `PartialEq`: the texts must agree.
fn assert_deep_round_trip(p: &Program) -> String {
    let printed = print_program(p);
    let reparsed = parse_program(&printed).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_program(&reparsed), printed);
    assert_eq!(max_nesting(&reparsed), max_nesting(p));
    printed
}

const DEEP: usize = 10_000;

#[test]
fn ten_thousand_nested_ifs() {
    on_small_stack(|| {
        let src = format!("fn main() {{\nvar x = 1;\n{}out x;\n{}}}\n", "if (x) {\n".repeat(DEEP), "}\n".repeat(DEEP));
        let p = parse_ok(&src);
        assert_eq!(max_nesting(&p), (DEEP + 2, 0));
        let printed = assert_deep_round_trip(&p);
        // Indentation stops growing, so the text stays linear in size
        // (uncapped, it would be quadratic in the depth).
        let widest = printed.lines().map(|l| l.len() - l.trim_start().len()).max();
        assert_eq!(widest, Some(4 * MAX_INDENT_LEVELS));
        assert!(printed.len() < 10 << 20, "{}", printed.len());
    });
}

#[test]
fn ten_thousand_nested_loops_blocks_and_else_ifs() {
    on_small_stack(|| {
        let src = format!("fn main() {{\n{}break;\n{}}}\n", "while (1) { {\n".repeat(DEEP), "} }\n".repeat(DEEP));
        let p = parse_ok(&src);
        assert_eq!(max_nesting(&p), (2 * DEEP + 1, DEEP));
        assert_deep_round_trip(&p);

        let src = format!("fn main() {{\nif (0) {{ }}{} else {{ out 1; }}\n}}\n", " else if (0) { }".repeat(DEEP));
        let p = parse_ok(&src);
        assert_eq!(max_nesting(&p), (DEEP + 2, 0));
        let printed = assert_deep_round_trip(&p);
        assert_eq!(printed.matches("} else if (0) {").count(), DEEP);

        let src = format!("fn main() {{\n{}out 1;\n{}}}\n", "if (1) { } else {\n".repeat(DEEP), "}\n".repeat(DEEP));
        let p = parse_ok(&src);
        assert_deep_round_trip(&p);
    });
}

#[test]
fn deep_errors_do_not_overflow() {
    on_small_stack(|| {
        let too_deep = format!("expression nested deeper than {MAX_EXPR_DEPTH}");
        let n = 100_000;
        let program = |e: String| format!("fn main() {{ out {e}; }}");
        let cases = [
            (program(format!("{}x{}", "(".repeat(n), ")".repeat(n))), EXPR_COL + MAX_EXPR_DEPTH),
            (program(format!("{}x", "-".repeat(n))), EXPR_COL),
            (program(format!("{}x", "!~".repeat(n))), EXPR_COL),
            (program(format!("{}0{}", "mem[".repeat(n), "]".repeat(n))), EXPR_COL + 4 * MAX_EXPR_DEPTH),
            (program(format!("1{}", " * 1".repeat(n))), EXPR_COL + 4 * MAX_EXPR_DEPTH - 2),
            (program(format!("{}x", "(-".repeat(n))), EXPR_COL + 2 * MAX_EXPR_DEPTH),
            // Unterminated: the error comes before the end of the text.
            (program("(".repeat(n)), EXPR_COL + MAX_EXPR_DEPTH),
        ];
        for (src, col) in cases {
            assert_eq!(error_of(&src), format!("1:{col}: {too_deep}"));
        }
        // Unclosed blocks are an error at the end, not an overflow; past
        // `MAX_NESTING` levels, the nesting bound comes first.
        let src = format!("fn main() {{ {}", "{ if (1) { while (1) {".repeat(n / 10));
        let got = error_of(&src);
        assert!(got.ends_with("expected `}`, found end of file"), "{got}");
        let src = format!("fn main() {{ {}", "{ if (1) { while (1) {".repeat(n));
        let got = error_of(&src);
        assert!(got.ends_with(&format!("statements nested deeper than {MAX_NESTING} levels")), "{got}");
    });
}

#[test]
fn a_million_statements() {
    on_small_stack(|| {
        const N: usize = 1_000_000;
        let src = format!("fn main() {{\nvar x = 0;\n{}out x;\n}}\n", "x = x + 1;\n".repeat(N));
        // On a small stack: the parser does not recurse per statement. The
        // time is not asserted (a timed test fails on a loaded machine):
        // `ssaref emit --stage ssa --no-check` on a generated function of
        // 1M statements times it.
        let p = parse_ok(&src);
        assert_eq!(p.functions[0].body.stmts.len(), N + 2);
        let printed = print_program(&p);
        assert_eq!(printed.lines().count(), N + 4);
        let reparsed = parse_ok(&printed);
        assert!(reparsed == p);
    });
}

// ---------------------------------------------------------------------------
// Fuzzing smoke test.
// ---------------------------------------------------------------------------

/// Fragments that random inputs are made of: tokens, almost-tokens and
/// bytes that are not valid UTF-8.
const PIECES: &[&[u8]] = &[
    b"fn",
    b"main",
    b"var",
    b"mem",
    b"if",
    b"else",
    b"while",
    b"break",
    b"continue",
    b"goto",
    b"out",
    b"return",
    b"x",
    b"y",
    b"L",
    b"_",
    b"0",
    b"1",
    b"9223372036854775808",
    b"(",
    b")",
    b"{",
    b"}",
    b"[",
    b"]",
    b";",
    b",",
    b":",
    b"=",
    b"==",
    b"!=",
    b"<",
    b"<=",
    b">",
    b">=",
    b"<<",
    b">>",
    b"+",
    b"-",
    b"*",
    b"/",
    b"%",
    b"&",
    b"&&",
    b"|",
    b"||",
    b"^",
    b"!",
    b"~",
    b" ",
    b"\n",
    b"\t",
    b"\r",
    b"//",
    b"@",
    b"\xc3\xa9",
    b"\xff",
    b"\x00",
];

fn random_input(rng: &mut SmallRng) -> Vec<u8> {
    let len = rng.gen_range(0..40);
    let mut out = Vec::new();
    for _ in 0..len {
        if rng.gen_ratio(1, 10) {
            out.push(rng.gen());
        } else {
            out.extend_from_slice(PIECES[rng.gen_range(0..PIECES.len())]);
        }
    }
    out
}

/// `base` with a few random edits: deletions, duplications and insertions
/// of pieces.
fn mutate(rng: &mut SmallRng, base: &[u8]) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..rng.gen_range(1..4) {
        let at = rng.gen_range(0..=out.len());
        match rng.gen_range(0..4) {
            0 => {
                let end = (at + rng.gen_range(1..8)).min(out.len());
                out.drain(at..end);
            }
            1 => {
                let end = (at + rng.gen_range(1..16)).min(out.len());
                let copy = out[at..end].to_vec();
                let to = rng.gen_range(0..=out.len());
                out.splice(to..to, copy);
            }
            2 => {
                let piece = PIECES[rng.gen_range(0..PIECES.len())];
                out.splice(at..at, piece.iter().copied());
            }
            _ => {
                if at < out.len() {
                    out[at] = rng.gen();
                }
            }
        }
    }
    out
}

#[test]
fn fuzz_parse_smoke() {
    let mut rng = SmallRng::seed_from_u64(42);
    let deadline = Instant::now() + Duration::from_secs(1);
    let mut runs = 0u64;
    while Instant::now() < deadline || runs < 1000 {
        let input = if rng.gen() {
            random_input(&mut rng)
        } else {
            let base = PROGRAMS[rng.gen_range(0..PROGRAMS.len())].as_bytes();
            mutate(&mut rng, base)
        };
        fuzz_parse(&input);
        runs += 1;
    }
    // The valid programs themselves pass too.
    for src in PROGRAMS {
        fuzz_parse(src.as_bytes());
    }
}

#[test]
fn fuzz_seeds_are_valid_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/parse");
    let mut seeds = 0;
    for entry in std::fs::read_dir(&dir).expect("the fuzz seed directory") {
        let path = entry.expect("a directory entry").path();
        let src = std::fs::read_to_string(&path).expect("a readable seed");
        assert_round_trip(&parse_ok(&src));
        seeds += 1;
    }
    assert!(seeds >= 5, "only {seeds} seeds in {}", dir.display());
}

#[test]
fn test_cases_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("the test case directory") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "src") {
            let src = std::fs::read_to_string(&path).expect("a readable case");
            // Some cases may be meant not to parse; every one that parses
            // must survive the round trip.
            if let Ok(p) = parse_program(&src) {
                assert_round_trip(&p);
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no parsable case in {}", dir.display());
}
