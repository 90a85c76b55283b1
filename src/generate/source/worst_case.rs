//! Functions of extreme shape, written as source text: one parameter, loop,
//! predecessor or function per unit of size, so that a pass whose cost is
//! superlinear in one of these dimensions shows it at a few thousand units.
//! `ssaref gen --shape NAME --size N` prints them and `ssaref
//! bench-shapes` times every back end on a series of sizes. The programs
//! are fixed by the size (no seed) and terminate on any arguments.
//!
//! - [`WorstShape::Params`]: `main` with N parameters, all live at entry
//!   and read one after another across a join;
//! - [`WorstShape::ParamsConstants`]: the same, each parameter multiplied
//!   by one of a few small constants (`s = s + p_i * c`, c in 1 to 5), so
//!   that the constants too are live or rematerialized along the function;
//! - [`WorstShape::NestedLoops`]: N `while` loops nested in one another,
//!   one variable counted up in the innermost, so that every loop header
//!   holds a phi of it and the phis form one chain of cycles;
//! - [`WorstShape::WideJoin`]: N `if`s, each ending in a `goto` to one
//!   label, with a different value for one variable: a join of N + 1
//!   predecessors and a phi of as many operands;
//! - [`WorstShape::ManyFunctions`]: N small functions besides `main`;
//! - [`WorstShape::Divisions`]: N `if`s in a row, each dividing one of
//!   four variables that stay live through the whole function, so that
//!   every division has values live across it and a join after it.

use std::fmt::Write;

/// The extreme shapes, by the dimension they stretch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorstShape {
    Params,
    ParamsConstants,
    NestedLoops,
    WideJoin,
    ManyFunctions,
    Divisions,
}

impl WorstShape {
    /// Every shape, in the order benchmarks print them.
    pub const ALL: [WorstShape; 6] = [
        WorstShape::Params,
        WorstShape::ParamsConstants,
        WorstShape::NestedLoops,
        WorstShape::WideJoin,
        WorstShape::ManyFunctions,
        WorstShape::Divisions,
    ];

    /// The name `gen --shape` takes.
    pub fn name(self) -> &'static str {
        match self {
            WorstShape::Params => "params",
            WorstShape::ParamsConstants => "params-constants",
            WorstShape::NestedLoops => "nested-loops",
            WorstShape::WideJoin => "wide-join",
            WorstShape::ManyFunctions => "many-functions",
            WorstShape::Divisions => "divisions",
        }
    }

    pub fn from_name(name: &str) -> Option<WorstShape> {
        WorstShape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The sizes of the benchmark's series: parameters are the costliest
    /// unit (each is live through the whole function), so their series is
    /// smaller.
    pub fn default_sizes(self) -> &'static [usize] {
        match self {
            WorstShape::Params | WorstShape::ParamsConstants => &[1_000, 3_000, 10_000],
            _ => &[3_000, 10_000, 30_000],
        }
    }

    /// The program of this shape with `size` units (at least 1), as
    /// source text.
    pub fn source(self, size: usize) -> String {
        let n = size.max(1);
        let mut s = String::new();
        match self {
            WorstShape::Params | WorstShape::ParamsConstants => {
                let params: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
                let _ = writeln!(s, "fn main({}) {{", params.join(", "));
                s.push_str("    var s = 0;\n    if (p0 < 0) {\n        s = 1;\n    }\n");
                for (i, p) in params.iter().enumerate() {
                    if self == WorstShape::ParamsConstants {
                        let _ = writeln!(s, "    s = s + {p} * {};", i % 5 + 1);
                    } else {
                        let _ = writeln!(s, "    s = s + {p};");
                    }
                }
                s.push_str("    return s;\n}\n");
            }
            WorstShape::NestedLoops => {
                s.push_str("fn main(n) {\n    var x = 0;\n");
                // Not indented by depth: the text stays linear in the size.
                for _ in 0..n {
                    s.push_str("    while (x < n) {\n");
                }
                s.push_str("    x = x + 1;\n");
                for _ in 0..n {
                    s.push_str("    }\n");
                }
                s.push_str("    return x;\n}\n");
            }
            WorstShape::WideJoin => {
                s.push_str("fn main(p) {\n    var x = 0;\n");
                for i in 0..n {
                    let _ = writeln!(s, "    if (p == {i}) {{\n        x = {};\n        goto join;\n    }}", i * 7 + 1);
                }
                s.push_str("    x = 3;\njoin:\n    return x;\n}\n");
            }
            WorstShape::ManyFunctions => {
                for i in 0..n {
                    let _ = writeln!(
                        s,
                        "fn f{i}(a, b) {{\n    var c = a + {i};\n    if (c < b) {{\n        c = b - c;\n    }}\n    return c;\n}}"
                    );
                }
                s.push_str("fn main(a) {\n    return a + 1;\n}\n");
            }
            WorstShape::Divisions => {
                // The divisor is at least 1, so no division traps or
                // overflows.
                s.push_str("fn main(a, b) {\n    var d = b;\n    if (d < 1) {\n        d = 1;\n    }\n");
                s.push_str("    var x = a;\n    var y = a + 1;\n    var z = a + 2;\n");
                for i in 0..n {
                    let _ = writeln!(
                        s,
                        "    if (x > y) {{\n        x = x / d + z;\n    }} else {{\n        y = y % d + {i};\n    }}"
                    );
                }
                s.push_str("    return x + y + z + d;\n}\n");
            }
        }
        s
    }
}
