//! Evaluating a parsed formula: allocation-free for numbers, since the check evaluates a
//! formula some hundreds of thousands of times, and so does every rebuild that reads it
//! back. Lists (a season's overall score) are vectors, within a budget of values.

use std::fmt;

use super::names::{Func, Var};
use super::parse::{Expr, MAX_NAMES, Op, Program, Slot};
use super::{Extra, Inputs};

/// Why a formula has no value for some inputs.
#[derive(Clone, Copy, Debug)]
pub(super) enum Undefined {
    DivisionByZero,
    NegativeSqrt,
    BadLog,
    Domain(&'static str),
    /// An assigned name read before any assignment reached it (its slot).
    Unassigned(u8),
    NotFinite(f64),
}

impl Undefined {
    pub(super) fn describe(self, program: &Program) -> String {
        match self {
            Undefined::Unassigned(slot) => format!(
                "`{}` is read before it is assigned",
                program
                    .names
                    .get(usize::from(slot))
                    .map_or("?", String::as_str)
            ),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undefined::DivisionByZero => f.write_str("division by zero"),
            Undefined::NegativeSqrt => f.write_str("square root of a negative"),
            Undefined::BadLog => f.write_str("logarithm of zero or a negative"),
            Undefined::Domain(what) => f.write_str(what),
            Undefined::Unassigned(slot) => write!(f, "name {slot} read before it is assigned"),
            Undefined::NotFinite(value) => write!(f, "the result is {value}"),
        }
    }
}

/// The values of a formula's names during one evaluation.
struct Env<'a> {
    inputs: &'a Inputs,
    extra: &'a Extra<'a>,
    program: &'a Program,
    slots: &'a [Slot],
    values: [f64; MAX_NAMES],
    set: u64,
    /// The list values made so far (bounded by [`MAX_LIST_WORK`]).
    work: usize,
}

/// The formula's value: its statements in turn, the last one's value.
pub(super) fn run(program: &Program, inputs: &Inputs, extra: &Extra<'_>) -> Result<f64, Undefined> {
    let mut env = Env {
        inputs,
        extra,
        program,
        slots: &program.slots,
        values: [0.0; MAX_NAMES],
        set: 0,
        work: 0,
    };
    for (i, slot) in program.slots.iter().enumerate() {
        if let (Slot::Local(Some(var)), Some(value)) = (slot, env.values.get_mut(i)) {
            *value = var.value(inputs, extra);
            env.set |= 1 << i;
        }
    }
    let mut value = 0.0;
    for statement in &program.statements {
        value = eval(statement, &mut env)?;
    }
    Ok(value)
}

fn truth(t: bool) -> f64 {
    if t { 1.0 } else { 0.0 }
}

fn eval(expr: &Expr, env: &mut Env<'_>) -> Result<f64, Undefined> {
    let value = match expr {
        Expr::Num(v) => *v,
        Expr::Name(slot) => {
            let i = usize::from(*slot);
            match env.slots.get(i) {
                Some(Slot::Var(var)) => var.value(env.inputs, env.extra),
                _ if env.set & (1 << i) != 0 => env.values.get(i).copied().unwrap_or(0.0),
                _ => return Err(Undefined::Unassigned(*slot)),
            }
        }
        Expr::Neg(inner) => -eval(inner, env)?,
        Expr::Not(inner) => truth(eval(inner, env)? == 0.0),
        Expr::Bin(Op::And, a, b) => truth(eval(a, env)? != 0.0 && eval(b, env)? != 0.0),
        Expr::Bin(Op::Or, a, b) => truth(eval(a, env)? != 0.0 || eval(b, env)? != 0.0),
        Expr::Bin(op, a, b) => binary(*op, eval(a, env)?, eval(b, env)?)?,
        Expr::Assign(slot, inner) => {
            let value = eval(inner, env)?;
            let i = usize::from(*slot);
            if let Some(stored) = env.values.get_mut(i) {
                *stored = value;
                env.set |= 1 << i;
            }
            value
        }
        Expr::Block(statements) => {
            let mut value = 0.0;
            for statement in statements {
                value = eval(statement, env)?;
            }
            value
        }
        Expr::Call(func, args) => call(*func, args, env)?,
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Undefined::NotFinite(value))
    }
}

/// An operator's value (comparisons give 1 or 0).
fn binary(op: Op, a: f64, b: f64) -> Result<f64, Undefined> {
    Ok(match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div | Op::Mod if b == 0.0 => return Err(Undefined::DivisionByZero),
        Op::Div => a / b,
        Op::Mod => a % b,
        Op::Pow => a.powf(b),
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

fn call(func: Func, args: &[Expr], env: &mut Env<'_>) -> Result<f64, Undefined> {
    // The parser checked each function's arity; a missing argument reads as 0.
    let arg = |env: &mut Env<'_>, i: usize| args.get(i).map_or(Ok(0.0), |a| eval(a, env));
    let fold = |env: &mut Env<'_>, start: f64, f: fn(f64, f64) -> f64| {
        let mut acc = start;
        for a in args {
            acc = f(acc, eval(a, env)?);
        }
        Ok::<f64, Undefined>(acc)
    };
    let has_list = matches!(
        func,
        Func::Max | Func::Min | Func::Sum | Func::Product | Func::Average | Func::Count
    ) && args.iter().any(|a| env.program.is_list(a));
    if has_list {
        let mut values = Vec::new();
        for a in args {
            if env.program.is_list(a) {
                values.extend(list(a, env)?);
            } else {
                values.push(eval(a, env)?);
            }
        }
        return aggregate(func, &values);
    }
    Ok(match func {
        // Only the branch taken is evaluated: `if(r > 1, 10 / (r - 1), 50)`.
        Func::If => {
            return if arg(env, 0)? != 0.0 {
                arg(env, 1)
            } else {
                arg(env, 2)
            };
        }
        Func::Switch => {
            let value = arg(env, 0)?;
            let rest = args.get(1..).unwrap_or_default();
            for pair in rest.chunks(2) {
                match pair {
                    [case, result] if eval(case, env)? == value => return eval(result, env),
                    [default] => return eval(default, env),
                    _ => {}
                }
            }
            0.0
        }
        Func::LSwitch => {
            let k = arg(env, 0)?;
            let choices = args.len().saturating_sub(1);
            let index = (1..=choices).find(|&i| f64_of(i) == k).unwrap_or(choices);
            return arg(env, index);
        }
        Func::OneOf => {
            let value = arg(env, 0)?;
            for a in args.iter().skip(1) {
                if eval(a, env)? == value {
                    return Ok(1.0);
                }
            }
            0.0
        }
        Func::Max => fold(env, f64::NEG_INFINITY, f64::max)?,
        Func::Min => fold(env, f64::INFINITY, f64::min)?,
        Func::Sum => fold(env, 0.0, |a, b| a + b)?,
        Func::Product => fold(env, 1.0, |a, b| a * b)?,
        Func::Average => fold(env, 0.0, |a, b| a + b)? / f64_of(args.len()),
        Func::Count => {
            for a in args {
                eval(a, env)?;
            }
            f64_of(args.len())
        }
        Func::Round => {
            let x = arg(env, 0)?;
            let digits = arg(env, 1)?;
            if digits.fract() != 0.0 || !(-15.0..=15.0).contains(&digits) {
                return Err(Undefined::Domain(
                    "round's decimals must be a whole number from -15 to 15",
                ));
            }
            let scale = 10f64.powf(digits);
            (x * scale).round() / scale
        }
        Func::RoundToNearest | Func::RoundUpToNearest | Func::RoundDownToNearest => {
            let x = arg(env, 0)?;
            let m = arg(env, 1)?;
            if m == 0.0 {
                return Err(Undefined::DivisionByZero);
            }
            let q = x / m;
            let whole = match func {
                Func::RoundUpToNearest => q.ceil(),
                Func::RoundDownToNearest => q.floor(),
                _ => q.round(),
            };
            whole * m
        }
        Func::Pow => arg(env, 0)?.powf(arg(env, 1)?),
        Func::Log => {
            let x = arg(env, 0)?;
            if x <= 0.0 {
                return Err(Undefined::BadLog);
            }
            if args.len() == 2 {
                let base = arg(env, 1)?;
                if base <= 0.0 || base == 1.0 {
                    return Err(Undefined::Domain(
                        "a logarithm's base must be above 0 and not 1",
                    ));
                }
                x.ln() / base.ln()
            } else {
                x.ln()
            }
        }
        Func::Index => {
            let i = whole(arg(env, 0)?)?;
            let values = match args.get(1) {
                Some(a) => list(a, env)?,
                None => Vec::new(),
            };
            return values
                .get(i)
                .copied()
                .ok_or(Undefined::Domain("index is past the end of the list"));
        }
        // The type check keeps these to list places.
        Func::Assign | Func::Top | Func::Bottom | Func::SetListLength => 0.0,
        _ => unary(func, arg(env, 0)?)?,
    })
}

/// The most values a list holds (`setListLength` cannot make a longer one).
pub(super) const MAX_LIST: usize = 1_000;

/// The most list values one evaluation makes, all lists together: a formula's work stays
/// bounded however it nests `top` and `setListLength`.
pub(super) const MAX_LIST_WORK: usize = 20_000;

/// A list argument's values, counted against [`MAX_LIST_WORK`].
fn list(expr: &Expr, env: &mut Env<'_>) -> Result<Vec<f64>, Undefined> {
    let values = list_values(expr, env)?;
    env.work = env.work.saturating_add(values.len());
    if env.work > MAX_LIST_WORK {
        return Err(Undefined::Domain(
            "the formula's lists hold more than 20000 values in all",
        ));
    }
    Ok(values)
}

fn list_values(expr: &Expr, env: &mut Env<'_>) -> Result<Vec<f64>, Undefined> {
    match expr {
        Expr::Name(slot) => Ok(match env.slots.get(usize::from(*slot)) {
            Some(Slot::Var(Var::Scores)) => env.extra.scores.to_vec(),
            Some(Slot::Var(Var::ListPoints)) => env.extra.list_points.to_vec(),
            _ => Vec::new(),
        }),
        Expr::Call(func, args) => {
            let k = match args.first() {
                Some(a) => whole(eval(a, env)?)?,
                None => 0,
            };
            let mut values = match args.get(1) {
                Some(a) => list(a, env)?,
                None => Vec::new(),
            };
            match func {
                Func::Top => values.sort_by(|a, b| b.total_cmp(a)),
                Func::Bottom => values.sort_by(f64::total_cmp),
                _ => {}
            }
            if *func == Func::SetListLength {
                values.resize(k, 0.0);
            } else {
                values.truncate(k);
            }
            Ok(values)
        }
        _ => Ok(Vec::new()),
    }
}

/// A count or an index: a whole number from 0 to [`MAX_LIST`].
fn whole(k: f64) -> Result<usize, Undefined> {
    if k.fract() != 0.0 || !(0.0..=f64_of(MAX_LIST)).contains(&k) {
        return Err(Undefined::Domain(
            "a list's length or index must be a whole number from 0 to 1000",
        ));
    }
    #[expect(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a whole f64 from 0 to 1,000 converts exactly"
    )]
    Ok(k as usize)
}

/// An aggregate function over values (some from lists).
fn aggregate(func: Func, values: &[f64]) -> Result<f64, Undefined> {
    let none = |what| Err(Undefined::Domain(what));
    Ok(match func {
        Func::Sum => values.iter().sum(),
        Func::Product => values.iter().product(),
        Func::Count => f64_of(values.len()),
        Func::Average if values.is_empty() => return none("the average of an empty list"),
        Func::Average => values.iter().sum::<f64>() / f64_of(values.len()),
        Func::Max if values.is_empty() => return none("the largest of an empty list"),
        Func::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Func::Min if values.is_empty() => return none("the smallest of an empty list"),
        Func::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        _ => 0.0,
    })
}

/// A function of one argument.
fn unary(func: Func, x: f64) -> Result<f64, Undefined> {
    Ok(match func {
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        Func::Abs => x.abs(),
        Func::Sqrt if x < 0.0 => return Err(Undefined::NegativeSqrt),
        Func::Sqrt => x.sqrt(),
        Func::Exp => x.exp(),
        Func::Log10 if x <= 0.0 => return Err(Undefined::BadLog),
        Func::Log10 => x.log10(),
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.tan(),
        Func::Asin | Func::Acos if !(-1.0..=1.0).contains(&x) => {
            return Err(Undefined::Domain(
                "an arc sine or cosine of a number outside -1 to 1",
            ));
        }
        Func::Asin => x.asin(),
        Func::Acos => x.acos(),
        Func::Atan => x.atan(),
        Func::Triangle => x * (x + 1.0) / 2.0,
        _ => x,
    })
}

fn f64_of(count: usize) -> f64 {
    // Argument counts are tiny.
    f64::from(u32::try_from(count).unwrap_or(u32::MAX))
}
