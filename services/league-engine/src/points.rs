//! League points formulas, in the syntax leagues already write for The Tournament Director.
//!
//! A formula is an expression of the tournament's numbers:
//!
//! | name | meaning |
//! |---|---|
//! | `n` | entrants (field size) |
//! | `r` | the player's finishing place (1 is the winner) |
//! | `nr` | the player's re-buys |
//! | `nh` | the player's knock-outs ("hits") |
//! | `buyin` | the buy-in, in whole currency units |
//! | `prizepool` | the prize pool, in whole currency units |
//!
//! with `+ - * /`, unary minus, comparisons (`< <= > >= == !=`, giving 1 or 0), `&&`,
//! `||`, parentheses, and the functions `if(c, a, b)`, `max(a, b, ...)`, `min(a, b, ...)`,
//! `round(x)` (half away from zero), `floor(x)`, `ceil(x)`, `abs(x)`, `sqrt(x)`,
//! `pow(x, y)`, `log(x)` (natural) and `log10(x)`. Examples: `round(10 * sqrt(n) /
//! sqrt(r)) - 9`, `n - r + 1`, `if(r <= 10, 11 - r, 0)`.
//!
//! A [`Formula`] is checked when the league sets it: it must parse, name only the
//! variables above, and evaluate to a finite number for every place of every field from 2
//! to 500 players with 0 to 5 re-buys and knock-outs, so a formula that can divide by
//! zero or take the square root of a negative is refused then, with the inputs that break
//! it, never in the middle of a season.
//!
//! Points are kept in hundredths ([`Centipoints`]): the formula's value is rounded half
//! away from zero to two decimals. IEEE 754 makes `+ - * / sqrt` exact to the bit on every
//! platform; `pow`, `log` and `log10` come from the platform's maths library and may differ
//! in the last bit, which matters only exactly at a rounding boundary.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::units::Centipoints;

/// What a formula is evaluated with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inputs {
    pub n: u32,
    pub r: u32,
    pub nr: u32,
    pub nh: u32,
    pub buyin: u64,
    pub prizepool: u64,
}

/// Why a formula was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum FormulaError {
    #[error("at {at}: {message}")]
    Syntax { at: usize, message: String },
    #[error("unknown variable `{0}` (known: n, r, nr, nh, buyin, prizepool)")]
    UnknownVariable(String),
    #[error("unknown function `{0}`")]
    UnknownFunction(String),
    #[error("`{function}` takes {expected} arguments, got {got}")]
    Arity {
        function: String,
        expected: String,
        got: usize,
    },
    #[error("the formula is not a number for {inputs}: {why}")]
    NotANumber { inputs: String, why: String },
}

#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Num(f64),
    Var(Var),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

impl Expr {
    /// Whether the expression reads a variable that `which` picks.
    fn reads(&self, which: &impl Fn(Var) -> bool) -> bool {
        match self {
            Expr::Num(_) => false,
            Expr::Var(var) => which(*var),
            Expr::Neg(inner) => inner.reads(which),
            Expr::Bin(_, a, b) => a.reads(which) || b.reads(which),
            Expr::Call(_, args) => args.iter().any(|arg| arg.reads(which)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Var {
    N,
    R,
    Nr,
    Nh,
    Buyin,
    Prizepool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Func {
    If,
    Max,
    Min,
    Round,
    Floor,
    Ceil,
    Abs,
    Sqrt,
    Pow,
    Log,
    Log10,
}

/// A checked points formula.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    text: String,
    expr: Expr,
}

impl fmt::Display for Formula {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A formula is stored as the text the league wrote; reading it back checks it again, so
/// an event that carries a formula carries a checked one.
impl Serialize for Formula {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Formula {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Formula::new(&text).map_err(serde::de::Error::custom)
    }
}

impl Formula {
    /// Parses and checks a formula (see the module documentation).
    pub fn new(text: &str) -> Result<Formula, FormulaError> {
        let mut parser = Parser {
            text,
            pos: 0,
            depth: 0,
            operators: 0,
        };
        let expr = parser.expr()?;
        parser.skip_ws();
        if parser.pos < text.len() {
            return Err(parser.error("unexpected text after the formula"));
        }
        let formula = Formula {
            text: text.to_owned(),
            expr,
        };
        formula.check()?;
        Ok(formula)
    }

    /// The text the league wrote.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The points for one player, in hundredths.
    pub fn points(&self, inputs: Inputs) -> Result<Centipoints, FormulaError> {
        let value = eval(&self.expr, &inputs).map_err(|why| FormulaError::NotANumber {
            inputs: describe(&inputs),
            why: why.to_string(),
        })?;
        let hundredths = (value * 100.0).round();
        if !hundredths.is_finite() || hundredths.abs() > 9.0e15 {
            return Err(FormulaError::NotANumber {
                inputs: describe(&inputs),
                why: format!("{value} is out of range"),
            });
        }
        // Exact: |hundredths| < 2^53 and it is a whole number.
        #[expect(
            clippy::as_conversions,
            clippy::cast_possible_truncation,
            reason = "a whole f64 below 2^53 converts exactly"
        )]
        Ok(Centipoints::new(hundredths as i64))
    }

    fn check(&self) -> Result<(), FormulaError> {
        // Re-buys and knock-outs vary only for a formula that reads them: for any other,
        // every value gives the same result as the first.
        let extras: &[u32] = if self.expr.reads(&|v| matches!(v, Var::Nr | Var::Nh)) {
            &[0, 1, 5]
        } else {
            &[0]
        };
        self.check_each(extras)
    }

    /// The check one input at a time, stopping at the first that fails.
    fn check_each(&self, extras: &[u32]) -> Result<(), FormulaError> {
        for n in 2..=500u32 {
            for r in 1..=n {
                for &extra in extras {
                    let inputs = Inputs {
                        n,
                        r,
                        nr: extra,
                        nh: extra,
                        buyin: 20,
                        prizepool: u64::from(n) * 20,
                    };
                    self.points(inputs)?;
                }
            }
        }
        Ok(())
    }
}

fn describe(inputs: &Inputs) -> String {
    format!(
        "n={}, r={}, nr={}, nh={}, buyin={}, prizepool={}",
        inputs.n, inputs.r, inputs.nr, inputs.nh, inputs.buyin, inputs.prizepool
    )
}

/// Why a formula has no value for some inputs. Kept small and allocation-free: the check
/// evaluates a formula some 375,000 times, and so does every rebuild that reads it back.
#[derive(Clone, Copy, Debug)]
enum Undefined {
    DivisionByZero,
    NegativeSqrt,
    BadLog,
    NotFinite(f64),
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undefined::DivisionByZero => f.write_str("division by zero"),
            Undefined::NegativeSqrt => f.write_str("square root of a negative"),
            Undefined::BadLog => f.write_str("logarithm of zero or a negative"),
            Undefined::NotFinite(value) => write!(f, "the result is {value}"),
        }
    }
}

fn eval(expr: &Expr, inputs: &Inputs) -> Result<f64, Undefined> {
    let value = match expr {
        Expr::Num(v) => *v,
        Expr::Var(var) => var.value(inputs),
        Expr::Neg(inner) => -eval(inner, inputs)?,
        Expr::Bin(op, a, b) => binary(*op, eval(a, inputs)?, eval(b, inputs)?)?,
        Expr::Call(func, args) => {
            // The parser checked each function's arity; the fallbacks below are never
            // taken.
            let arg = |i: usize| args.get(i).map_or(Ok(0.0), |a| eval(a, inputs));
            match func {
                // Only the branch taken is evaluated: `if(r > 1, 10 / (r - 1), 50)`.
                Func::If => {
                    return if arg(0)? != 0.0 { arg(1) } else { arg(2) };
                }
                Func::Max => args
                    .iter()
                    .try_fold(f64::NEG_INFINITY, |m, a| eval(a, inputs).map(|v| m.max(v)))?,
                Func::Min => args
                    .iter()
                    .try_fold(f64::INFINITY, |m, a| eval(a, inputs).map(|v| m.min(v)))?,
                Func::Pow => arg(0)?.powf(arg(1)?),
                _ => unary(*func, arg(0)?)?,
            }
        }
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Undefined::NotFinite(value))
    }
}

impl Var {
    fn value(self, inputs: &Inputs) -> f64 {
        match self {
            Var::N => f64::from(inputs.n),
            Var::R => f64::from(inputs.r),
            Var::Nr => f64::from(inputs.nr),
            Var::Nh => f64::from(inputs.nh),
            Var::Buyin => u64_to_f64(inputs.buyin),
            Var::Prizepool => u64_to_f64(inputs.prizepool),
        }
    }
}

/// An operator's value (comparisons and `&&`, `||` give 1 or 0).
fn binary(op: Op, a: f64, b: f64) -> Result<f64, Undefined> {
    let truth = |t: bool| if t { 1.0 } else { 0.0 };
    Ok(match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div if b == 0.0 => return Err(Undefined::DivisionByZero),
        Op::Div => a / b,
        Op::Lt => truth(a < b),
        Op::Le => truth(a <= b),
        Op::Gt => truth(a > b),
        Op::Ge => truth(a >= b),
        Op::Eq => truth(a == b),
        Op::Ne => truth(a != b),
        Op::And => truth(a != 0.0 && b != 0.0),
        Op::Or => truth(a != 0.0 || b != 0.0),
    })
}

/// A function of one argument; `if`, `max`, `min` and `pow` are evaluated by their callers.
fn unary(func: Func, x: f64) -> Result<f64, Undefined> {
    Ok(match func {
        Func::Round => x.round(),
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        Func::Abs => x.abs(),
        Func::Sqrt if x < 0.0 => return Err(Undefined::NegativeSqrt),
        Func::Sqrt => x.sqrt(),
        Func::Log | Func::Log10 if x <= 0.0 => return Err(Undefined::BadLog),
        Func::Log => x.ln(),
        Func::Log10 => x.log10(),
        Func::If | Func::Max | Func::Min | Func::Pow => x,
    })
}

fn u64_to_f64(v: u64) -> f64 {
    // Money below 2^53 cents converts exactly; anything larger is far beyond any pool.
    let high = u32::try_from(v >> 32).unwrap_or(u32::MAX);
    let low = u32::try_from(v & 0xffff_ffff).unwrap_or(0);
    f64::from(high) * 4_294_967_296.0 + f64::from(low)
}

/// The deepest a formula nests (brackets, function calls, signs): the parser and the
/// evaluator recurse once per level, and a client's formula must not exhaust the stack.
pub const MAX_FORMULA_DEPTH: u32 = 64;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    /// Levels of nesting open now.
    depth: u32,
    /// Binary operators read so far.
    operators: u32,
}

/// The most binary operators in a formula: a chain `a + b + c ...` nests one level per
/// operator in the parsed formula, which the evaluator walks recursively.
pub const MAX_FORMULA_OPERATORS: u32 = 256;

impl Parser<'_> {
    fn error(&self, message: &str) -> FormulaError {
        FormulaError::Syntax {
            at: self.pos,
            message: message.to_owned(),
        }
    }

    fn skip_ws(&mut self) {
        while self
            .text
            .as_bytes()
            .get(self.pos)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    /// One level deeper, refused past [`MAX_FORMULA_DEPTH`].
    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, FormulaError>,
    ) -> Result<T, FormulaError> {
        if self.depth >= MAX_FORMULA_DEPTH {
            return Err(self.error(&format!(
                "the formula nests deeper than {MAX_FORMULA_DEPTH} levels"
            )));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn expr(&mut self) -> Result<Expr, FormulaError> {
        self.nested(Self::or)
    }

    /// `left op right`, refused past [`MAX_FORMULA_OPERATORS`].
    fn bin(&mut self, op: Op, left: Expr, right: Expr) -> Result<Expr, FormulaError> {
        self.operators += 1;
        if self.operators > MAX_FORMULA_OPERATORS {
            return Err(self.error(&format!(
                "the formula has more than {MAX_FORMULA_OPERATORS} operators"
            )));
        }
        Ok(Expr::Bin(op, Box::new(left), Box::new(right)))
    }

    fn or(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.and()?;
        while self.eat("||") {
            let right = self.and()?;
            left = self.bin(Op::Or, left, right)?;
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.comparison()?;
        while self.eat("&&") {
            let right = self.comparison()?;
            left = self.bin(Op::And, left, right)?;
        }
        Ok(left)
    }

    fn comparison(&mut self) -> Result<Expr, FormulaError> {
        let left = self.sum()?;
        for (token, op) in [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<", Op::Lt),
            (">", Op::Gt),
        ] {
            if self.eat(token) {
                let right = self.sum()?;
                return self.bin(op, left, right);
            }
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.product()?;
        loop {
            if self.eat("+") {
                let right = self.product()?;
                left = self.bin(Op::Add, left, right)?;
            } else if self.eat("-") {
                let right = self.product()?;
                left = self.bin(Op::Sub, left, right)?;
            } else {
                return Ok(left);
            }
        }
    }

    fn product(&mut self) -> Result<Expr, FormulaError> {
        let mut left = self.unary()?;
        loop {
            if self.eat("*") {
                let right = self.unary()?;
                left = self.bin(Op::Mul, left, right)?;
            } else if self.eat("/") {
                let right = self.unary()?;
                left = self.bin(Op::Div, left, right)?;
            } else {
                return Ok(left);
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, FormulaError> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.nested(Self::unary)?)));
        }
        if self.eat("+") {
            return self.nested(Self::unary);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, FormulaError> {
        self.skip_ws();
        if self.eat("(") {
            let inner = self.expr()?;
            if !self.eat(")") {
                return Err(self.error("expected `)`"));
            }
            return Ok(inner);
        }
        let bytes = self.text.as_bytes();
        let start = self.pos;
        match bytes.get(self.pos) {
            Some(b) if b.is_ascii_digit() || *b == b'.' => {
                while bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_digit() || *b == b'.')
                {
                    self.pos += 1;
                }
                let text = &self.text[start..self.pos];
                text.parse::<f64>()
                    .map(Expr::Num)
                    .map_err(|_| FormulaError::Syntax {
                        at: start,
                        message: format!("not a number: {text:?}"),
                    })
            }
            Some(b) if b.is_ascii_alphabetic() => {
                while bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    self.pos += 1;
                }
                let name = self.text[start..self.pos].to_ascii_lowercase();
                if self.eat("(") {
                    self.call(&name)
                } else {
                    variable(&name).map(Expr::Var)
                }
            }
            _ => Err(self.error("expected a number, a variable, a function or `(`")),
        }
    }

    fn call(&mut self, name: &str) -> Result<Expr, FormulaError> {
        let func = match name {
            "if" => Func::If,
            "max" => Func::Max,
            "min" => Func::Min,
            "round" => Func::Round,
            "floor" => Func::Floor,
            "ceil" => Func::Ceil,
            "abs" => Func::Abs,
            "sqrt" => Func::Sqrt,
            "pow" => Func::Pow,
            "log" | "ln" => Func::Log,
            "log10" => Func::Log10,
            _ => return Err(FormulaError::UnknownFunction(name.to_owned())),
        };
        let mut args = Vec::new();
        if !self.eat(")") {
            loop {
                args.push(self.expr()?);
                if self.eat(")") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.error("expected `,` or `)`"));
                }
            }
        }
        let (ok, expected) = match func {
            Func::If => (args.len() == 3, "3"),
            Func::Max | Func::Min => (!args.is_empty(), "1 or more"),
            Func::Pow => (args.len() == 2, "2"),
            _ => (args.len() == 1, "1"),
        };
        if !ok {
            return Err(FormulaError::Arity {
                function: name.to_owned(),
                expected: expected.to_owned(),
                got: args.len(),
            });
        }
        Ok(Expr::Call(func, args))
    }
}

fn variable(name: &str) -> Result<Var, FormulaError> {
    match name {
        "n" => Ok(Var::N),
        "r" => Ok(Var::R),
        "nr" => Ok(Var::Nr),
        "nh" => Ok(Var::Nh),
        "buyin" => Ok(Var::Buyin),
        "prizepool" => Ok(Var::Prizepool),
        _ => Err(FormulaError::UnknownVariable(name.to_owned())),
    }
}

/// A fixed points table by place (e.g. the APL's 125, 100, 75, 50, 40); places beyond it
/// score 0.
pub fn table_points(table: &[Centipoints], place: u32) -> Centipoints {
    usize::try_from(place)
        .ok()
        .and_then(|p| p.checked_sub(1))
        .and_then(|i| table.get(i))
        .copied()
        .unwrap_or(Centipoints::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A client's formula cannot exhaust the stack: 1,400 nested brackets (which once
    /// aborted the server), a long chain of signs or of sums, are refused with a message.
    #[test]
    fn deep_or_long_formulas_are_refused_not_overflowed() {
        let deep = format!("{}n{}", "(".repeat(1_400), ")".repeat(1_400));
        let signs = format!("{}n", "-".repeat(100_000));
        let calls = format!("{}n{}", "abs(".repeat(1_400), ")".repeat(1_400));
        for text in [&deep, &signs, &calls] {
            let err = Formula::new(text).unwrap_err();
            assert!(err.to_string().contains("nests deeper than 64"), "{err}");
        }
        let sum = vec!["n"; 100_000].join(" + ");
        let err = Formula::new(&sum).unwrap_err();
        assert!(err.to_string().contains("more than 256 operators"), "{err}");
        // Within the limits: as deep and as long as allowed, and scored.
        let nested = format!("{}n{}", "(".repeat(63), ")".repeat(63));
        assert!(Formula::new(&nested).is_ok());
        assert!(Formula::new(&vec!["n"; 257].join(" + ")).is_ok());
    }

    /// Formula texts over every operator, function and variable.
    fn formula_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            prop::sample::select(vec!["0", "1", "2", "0.5", "10", "100", "1000000"])
                .prop_map(String::from),
            prop::sample::select(vec!["n", "r", "nr", "nh", "buyin", "prizepool"])
                .prop_map(String::from),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            let ops = prop::sample::select(vec![
                "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=", "&&", "||",
            ]);
            let unary = prop::sample::select(vec![
                "round", "floor", "ceil", "abs", "sqrt", "log", "log10",
            ]);
            prop_oneof![
                (inner.clone(), ops, inner.clone())
                    .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
                inner.clone().prop_map(|a| format!("-{a}")),
                (unary, inner.clone()).prop_map(|(f, a)| format!("{f}({a})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("if({a}, {b}, {c})")),
                (any::<bool>(), prop::collection::vec(inner.clone(), 1..4)).prop_map(
                    |(max, args)| format!(
                        "{}({})",
                        if max { "max" } else { "min" },
                        args.join(", ")
                    )
                ),
                (inner.clone(), inner).prop_map(|(a, b)| format!("pow({a}, {b})")),
            ]
        })
    }

    /// Hostile formula text: tokens of the language and bytes outside it, in any order,
    /// with brackets that need not balance.
    fn hostile_text() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            prop::sample::select(vec![
                "(",
                ")",
                ",",
                "+",
                "-",
                "*",
                "/",
                "^",
                "<",
                "<=",
                ">",
                ">=",
                "==",
                "=",
                "!=",
                "!",
                "&&",
                "||",
                "&",
                "|",
                ".",
                "..",
                "e",
                "1e308",
                "-0",
                "0",
                "1",
                "0.5",
                "99999999999999999999",
                "n",
                "r",
                "nr",
                "nh",
                "buyin",
                "prizepool",
                "mr",
                "round",
                "floor",
                "ceil",
                "abs",
                "sqrt",
                "log",
                "log10",
                "exp",
                "if",
                "max",
                "min",
                "pow",
                " ",
                "\t",
                "\n",
                "\u{0}",
                "é",
                "∞",
                "NaN",
                "inf",
            ])
            .prop_map(String::from),
            "[ -~]{1,3}",
            any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(token, 0..120).prop_map(|tokens| tokens.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// No text, however hostile, panics the formula parser or its check, and a formula
        /// it accepts scores any inputs (extremes included) to a number or a typed error.
        #[test]
        fn hostile_formulas_are_refused_or_scored_never_panic(
            text in hostile_text(),
            n in prop_oneof![Just(0u32), Just(1), Just(2), Just(u32::MAX), any::<u32>()],
            r in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()],
            money in prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
        ) {
            match Formula::new(&text) {
                Ok(formula) => {
                    let inputs = Inputs { n, r, nr: r, nh: n, buyin: money, prizepool: money };
                    let _ = formula.points(inputs);
                }
                Err(e) => prop_assert!(!e.to_string().is_empty()),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A formula the check accepts has a value at every input of the check; one it
        /// refuses as not a number names inputs where it has none.
        #[test]
        fn the_check_accepts_only_formulas_with_a_value_everywhere(text in formula_text()) {
            match Formula::new(&text) {
                Ok(formula) => {
                    for n in (2..=500u32).step_by(7) {
                        for r in (1..=n).step_by(3) {
                            for extra in [0, 1, 5] {
                                let inputs = Inputs { nr: extra, nh: extra, ..at(n, r) };
                                prop_assert!(formula.points(inputs).is_ok(), "{} at {:?}", text, inputs);
                            }
                        }
                    }
                }
                Err(FormulaError::NotANumber { inputs, .. }) => {
                    // The inputs named in the refusal are ones the formula has no value at.
                    let values: Vec<u64> = inputs
                        .split(", ")
                        .map(|pair| pair.split_once('=').unwrap().1.parse().unwrap())
                        .collect();
                    let [n, r, nr, nh, buyin, prizepool] = values[..] else {
                        panic!("{inputs}");
                    };
                    let small = |v: u64| u32::try_from(v).unwrap();
                    let named = Inputs { n: small(n), r: small(r), nr: small(nr), nh: small(nh), buyin, prizepool };
                    let mut parser = Parser { text: &text, pos: 0, depth: 0, operators: 0 };
                    let unchecked = Formula { text: text.clone(), expr: parser.expr().unwrap() };
                    prop_assert!(unchecked.points(named).is_err(), "{} at {}", text, inputs);
                }
                Err(other) => prop_assert!(false, "{} does not parse: {}", text, other),
            }
        }
    }

    fn at(n: u32, r: u32) -> Inputs {
        Inputs {
            n,
            r,
            nr: 0,
            nh: 0,
            buyin: 20,
            prizepool: u64::from(n) * 20,
        }
    }

    #[test]
    fn the_square_root_formula_gives_the_golden_vector_for_20_players() {
        // For 20 players, round(10*sqrt(n)/sqrt(r)) - 9 gives 36, 23, 17, 13, 11 for places
        // 1 to 5 and 1 for 20th.
        let f = Formula::new("round(10 * sqrt(n) / sqrt(r)) - 9").unwrap();
        let points: Vec<Centipoints> = (1..=5).map(|r| f.points(at(20, r)).unwrap()).collect();
        assert_eq!(points, [3600, 2300, 1700, 1300, 1100]);
        assert_eq!(f.points(at(20, 20)).unwrap(), Centipoints::new(100));
    }

    #[test]
    fn simple_formulas_and_the_apl_table() {
        let f = Formula::new("n - r + 1").unwrap();
        assert_eq!(f.points(at(30, 1)).unwrap(), Centipoints::new(3000));
        assert_eq!(f.points(at(30, 30)).unwrap(), Centipoints::new(100));
        let f = Formula::new("if(r <= 10, 11 - r, 0)").unwrap();
        assert_eq!(f.points(at(30, 3)).unwrap(), Centipoints::new(800));
        assert_eq!(f.points(at(30, 11)).unwrap(), Centipoints::ZERO);
        let apl = [12_500, 10_000, 7_500, 5_000, 4_000].map(Centipoints::new);
        assert_eq!(
            (1..=6).map(|r| table_points(&apl, r)).collect::<Vec<_>>(),
            [12_500, 10_000, 7_500, 5_000, 4_000, 0]
        );
        let f =
            Formula::new("max(1, n - 2*r) + nh * 2 + pow(nr, 2) / 10 + prizepool / buyin").unwrap();
        let inputs = Inputs {
            n: 10,
            r: 2,
            nr: 3,
            nh: 1,
            buyin: 20,
            prizepool: 200,
        };
        assert_eq!(
            f.points(inputs).unwrap(),
            Centipoints::new(600 + 200 + 90 + 1_000)
        );
    }

    #[test]
    fn a_formula_that_divides_by_zero_is_refused_when_set() {
        let refused = Formula::new("100 / (n - r)").unwrap_err();
        assert!(
            matches!(&refused, FormulaError::NotANumber { why, .. } if why == "division by zero"),
            "{refused}"
        );
        assert!(refused.to_string().contains("n=2, r=2"), "{refused}");
        // Guarded by `if`, the same division is fine.
        assert!(Formula::new("if(r < n, 100 / (n - r), 0)").is_ok());
        assert!(matches!(
            Formula::new("sqrt(r - 2)"),
            Err(FormulaError::NotANumber { .. })
        ));
        // Re-buys and knock-outs are checked at 0, 1 and 5 when the formula reads them.
        for (text, at) in [
            ("100 / (nr - 1)", "nr=1"),
            ("n + if(r > 1, 0, 1 / (nh - 5))", "nh=5"),
            ("max(1, sqrt(5 - nr * 2))", "nr=5"),
        ] {
            let refused = Formula::new(text).unwrap_err();
            assert!(refused.to_string().contains(at), "{text}: {refused}");
        }
    }

    #[test]
    fn a_formula_knows_which_variables_it_reads() {
        let reads_extras = |text: &str| {
            Formula::new(text)
                .unwrap()
                .expr
                .reads(&|v| matches!(v, Var::Nr | Var::Nh))
        };
        assert!(!reads_extras("round(10 * sqrt(n) / sqrt(r)) - 9"));
        assert!(!reads_extras("-(n - r) + pow(2, 3)"));
        assert!(reads_extras("n - r + nr"));
        assert!(reads_extras("-nh"));
        assert!(reads_extras("max(1, min(n, pow(2, nh)))"));
        assert!(reads_extras("if(r <= 3, 1, 0) * (1 + nr)"));
    }

    #[test]
    fn unknown_names_and_bad_syntax_are_refused() {
        assert_eq!(
            Formula::new("n - rank + 1"),
            Err(FormulaError::UnknownVariable("rank".into()))
        );
        assert_eq!(
            Formula::new("cube(n)"),
            Err(FormulaError::UnknownFunction("cube".into()))
        );
        assert!(matches!(
            Formula::new("n -"),
            Err(FormulaError::Syntax { .. })
        ));
        assert!(matches!(
            Formula::new("(n"),
            Err(FormulaError::Syntax { .. })
        ));
        assert!(matches!(
            Formula::new("if(r, 1)"),
            Err(FormulaError::Arity { .. })
        ));
        assert!(matches!(
            Formula::new("n r"),
            Err(FormulaError::Syntax { .. })
        ));
    }
}
