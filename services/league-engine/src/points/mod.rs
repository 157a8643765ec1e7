//! League points formulas, in the language leagues already write for The Tournament
//! Director (TD3): its variables under their long and short names, its operators and its
//! functions, names in any case. `docs/formulas.md` is the reference; [`names`] holds the
//! tables it is written from.
//!
//! A formula is one or more statements, separated by `;` or line breaks, and its value is
//! the last one's; `assign("name", value)` names a value for the statements after it.
//! Operators, loosest first: `or` `||`; `and` `&&`; the comparisons `= == is != < <= > >=`
//! (1 or 0); `+ -`; `* / %`; the signs `- +` and `not` `!`; `^` (power, to the right, so
//! `-2^2` is -4). Examples: `round(10 * sqrt(n) / sqrt(r)) - 9`, `n - r + 1`,
//! `if(rank <= 10, 11 - rank, 0)`, `(n-r)*3 + if(r <= mr, if(r = mr, 5, (mr-r)*10), 0)`.
//!
//! A [`Formula`] is checked when the league sets it: it must parse, name only variables a
//! recorded result gives (a TD3 variable the result does not hold, such as add-ons or
//! bounty money, is refused by name with the reason), and evaluate to a finite number for
//! every place of every field from 2 to 500 players, with 0 to 5 re-buys and knock-outs and
//! 1, a tenth or all of the field paid where the formula reads them. So a formula that can
//! divide by zero or take the square root of a negative is refused then, with the inputs
//! that break it, never in the middle of a season.
//!
//! Points are kept in hundredths ([`Centipoints`]): the formula's value is rounded half
//! away from zero to two decimals. IEEE 754 makes `+ - * / sqrt` exact to the bit on every
//! platform; `pow`, `exp`, `log` and the trigonometric functions come from the platform's
//! maths library and may differ in the last bit, which matters only exactly at a rounding
//! boundary.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use crate::units::Centipoints;
use crate::units::Cents;

mod eval;
mod names;
mod parse;

pub use names::FormulaKind;
pub use parse::{MAX_NAMES, MAX_STATEMENTS};

use names::Var;
use parse::{Parser, Program, Slot};

/// What a formula is evaluated with: one place of one recorded result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inputs {
    /// Entrants.
    pub n: u32,
    /// The place.
    pub r: u32,
    /// The player's re-buys.
    pub nr: u32,
    /// The player's knock-outs.
    pub nh: u32,
    /// The buy-in, whole currency units.
    pub buyin: u64,
    /// The prize pool, whole currency units.
    pub prizepool: u64,
    /// The last place paid a prize (0: none).
    #[serde(default)]
    pub paid: u32,
    /// The player's prize, whole currency units.
    #[serde(default)]
    pub prize: u64,
    /// Re-buys by all players.
    #[serde(default)]
    pub total_rebuys: u32,
}

/// What a season's score formulas read beyond a result's [`Inputs`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Extra<'a> {
    /// A tournament score's `points`: the player's points in the tournament.
    pub points: Centipoints,
    /// An overall score's `scores`: the player's tournament scores, oldest first.
    pub scores: &'a [f64],
    /// An overall score's `listPoints`: the player's points, oldest first.
    pub list_points: &'a [f64],
    /// An overall score's `n`: the tournaments of the season.
    pub tournaments: u32,
}

/// Why a formula was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum FormulaError {
    #[error("at {at}: {message}")]
    Syntax { at: usize, message: String },
    #[error("unknown variable `{0}` (docs/formulas.md lists every variable)")]
    UnknownVariable(String),
    #[error("unknown function `{0}`")]
    UnknownFunction(String),
    #[error("`{function}` takes {expected} arguments, got {got}")]
    Arity {
        function: String,
        expected: String,
        got: usize,
    },
    /// A TD3 name a league's points cannot use: a figure a recorded result does not hold,
    /// or `random`.
    #[error("`{name}` cannot be used in this formula: {why}")]
    Unavailable { name: String, why: String },
    #[error("the formula is not a number for {inputs}: {why}")]
    NotANumber { inputs: String, why: String },
    /// A preview's field that no tournament has (its entrants, places paid or pool).
    #[error("{0}")]
    BadField(String),
    /// A list where a number belongs, or a number where a list does.
    #[error("{0}")]
    Type(String),
}

/// A checked points formula.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    text: String,
    program: Program,
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

/// The deepest a formula nests (brackets, function calls, signs): the parser and the
/// evaluator recurse once per level, and a client's formula must not exhaust the stack.
pub const MAX_FORMULA_DEPTH: u32 = 64;

/// The most binary operators in a formula: a chain `a + b + c ...` nests one level per
/// operator in the parsed formula, which the evaluator walks recursively.
pub const MAX_FORMULA_OPERATORS: u32 = 256;

impl Formula {
    /// Parses and checks a formula (see the module documentation).
    pub fn new(text: &str) -> Result<Formula, FormulaError> {
        let formula = Formula::parse(text)?;
        formula.check()?;
        Ok(formula)
    }

    /// Parses a season's tournament score and checks it as a points formula is checked,
    /// with `points` 0, 1 and 100 where it reads them.
    pub fn tournament_score(text: &str) -> Result<Formula, FormulaError> {
        let formula = Formula::parse_kind(text, FormulaKind::TournamentScore)?;
        formula.check()?;
        Ok(formula)
    }

    /// Parses a season's overall score. Its check needs the tournament score it is read
    /// with: see [`crate::league::SeasonScore::new`].
    pub fn overall_score_unchecked(text: &str) -> Result<Formula, FormulaError> {
        Formula::parse_kind(text, FormulaKind::OverallScore)
    }

    /// Parses without the check.
    fn parse(text: &str) -> Result<Formula, FormulaError> {
        Formula::parse_kind(text, FormulaKind::Points)
    }

    fn parse_kind(text: &str, kind: FormulaKind) -> Result<Formula, FormulaError> {
        Ok(Formula {
            text: text.to_owned(),
            program: Parser::new(text, kind).program()?,
        })
    }

    /// The text the league wrote.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The points for one player, in hundredths.
    pub fn points(&self, inputs: Inputs) -> Result<Centipoints, FormulaError> {
        self.hundredths(inputs, &Extra::default())
    }

    /// The formula's value, unrounded.
    pub fn value(&self, inputs: Inputs, extra: &Extra<'_>) -> Result<f64, FormulaError> {
        eval::run(&self.program, &inputs, extra).map_err(|why| FormulaError::NotANumber {
            inputs: describe(&inputs, extra),
            why: why.describe(&self.program),
        })
    }

    /// The formula's value in hundredths, rounded half away from zero.
    pub fn hundredths(
        &self,
        inputs: Inputs,
        extra: &Extra<'_>,
    ) -> Result<Centipoints, FormulaError> {
        let value = self.value(inputs, extra)?;
        hundredths(value).ok_or_else(|| FormulaError::NotANumber {
            inputs: describe(&inputs, extra),
            why: format!("{value} is out of range"),
        })
    }

    /// Whether the formula reads a figure of the player's own (re-buys, knock-outs, prize,
    /// points) beside the field and the place: if not, players at one place score alike.
    pub fn reads_player(&self) -> bool {
        self.reads(|v| {
            matches!(
                v,
                Var::Nr | Var::Nh | Var::InTheMoney | Var::Prize | Var::Points
            )
        })
    }

    /// Whether the formula reads `points`.
    pub fn reads_points(&self) -> bool {
        self.reads(|v| v == Var::Points)
    }
}

/// Hundredths as a number: 12345 is 123.45.
pub fn hundredths_to_f64(points: Centipoints) -> f64 {
    names::i64_to_f64(points.get()) / 100.0
}

/// `value` in hundredths, rounded half away from zero (`None` out of range).
pub fn hundredths(value: f64) -> Option<Centipoints> {
    let hundredths = (value * 100.0).round();
    if !hundredths.is_finite() || hundredths.abs() > 9.0e15 {
        return None;
    }
    // Exact: |hundredths| < 2^53 and it is a whole number.
    #[expect(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        reason = "a whole f64 below 2^53 converts exactly"
    )]
    Some(Centipoints::new(hundredths as i64))
}

impl Formula {
    /// Whether the formula reads a variable that `which` picks (directly, or as the first
    /// value of a name it assigns).
    fn reads(&self, which: impl Fn(Var) -> bool) -> bool {
        self.program.slots.iter().any(|slot| match slot {
            Slot::Var(var) | Slot::Local(Some(var)) => which(*var),
            Slot::Local(None) => false,
        })
    }

    /// Whether the formula reads a figure of the whole field (the places paid, all
    /// re-buys), which scoring then counts.
    pub fn reads_field_totals(&self) -> bool {
        self.reads(|v| matches!(v, Var::Paid | Var::TotalRebuys))
    }

    fn check(&self) -> Result<(), FormulaError> {
        // Re-buys, knock-outs and the places paid vary only for a formula that reads them:
        // for any other, every value gives the same result as the first.
        let extras: &[u32] = if self.reads(|v| matches!(v, Var::Nr | Var::Nh | Var::TotalRebuys)) {
            &[0, 1, 5]
        } else {
            &[0]
        };
        let money = self.reads(|v| matches!(v, Var::Paid | Var::InTheMoney | Var::Prize));
        let points: &[i64] = if self.reads_points() {
            &[0, 100, 10_000]
        } else {
            &[0]
        };
        for n in 2..=500u32 {
            let tenth = n.div_ceil(10);
            let paids: &[u32] = if money { &[1, tenth, n] } else { &[tenth] };
            for &paid in paids {
                for r in 1..=n {
                    for &extra in extras {
                        // `points` varies on one grid of the field: paid a tenth, no extras.
                        let points = if extra == 0 && paid == tenth {
                            points
                        } else {
                            &points[..1]
                        };
                        for &points in points {
                            let extra_inputs = Extra {
                                points: Centipoints::new(points),
                                ..Extra::default()
                            };
                            self.hundredths(check_inputs(n, r, paid, extra), &extra_inputs)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The inputs the check tries: a buy-in of 20, the pool shared equally by the places paid.
pub(crate) fn check_inputs(n: u32, r: u32, paid: u32, extra: u32) -> Inputs {
    let prizepool = u64::from(n) * 20;
    Inputs {
        n,
        r,
        nr: extra,
        nh: extra,
        buyin: 20,
        prizepool,
        paid,
        prize: if r <= paid {
            prizepool / u64::from(paid.max(1))
        } else {
            0
        },
        total_rebuys: extra.saturating_mul(n),
    }
}

fn describe(inputs: &Inputs, extra: &Extra<'_>) -> String {
    if extra.tournaments > 0 {
        let list = |values: &[f64]| {
            let shown: Vec<String> = values.iter().take(8).map(|v| format!("{v:.4}")).collect();
            let more = if values.len() > 8 { ", ..." } else { "" };
            format!("[{}{more}]", shown.join(", "))
        };
        return format!(
            "n={}, scores={}, listPoints={}",
            extra.tournaments,
            list(extra.scores),
            list(extra.list_points)
        );
    }
    let points = if extra.points.is_zero() {
        String::new()
    } else {
        format!(", points={}", names::i64_to_f64(extra.points.get()) / 100.0)
    };
    format!(
        "n={}, r={}, nr={}, nh={}, buyin={}, prizepool={}, mr={}, pw={}, tnr={}{points}",
        inputs.n,
        inputs.r,
        inputs.nr,
        inputs.nh,
        inputs.buyin,
        inputs.prizepool,
        inputs.paid,
        inputs.prize,
        inputs.total_rebuys
    )
}

/// A field to preview a formula on: what `league formula preview` and the `formulaPreview`
/// query take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreviewField {
    pub entrants: u32,
    /// Whole currency units.
    pub buyin: u64,
    /// Whole currency units; `None`: entrants times the buy-in.
    pub prizepool: Option<u64>,
    /// Re-buys and knock-outs every player is taken to have.
    pub rebuys: u32,
    pub hits: u32,
    /// Places paid; `None`: as the default payout table pays this field.
    pub paid: Option<u32>,
}

/// The most entrants a preview takes (the check's own range).
pub const MAX_PREVIEW_ENTRANTS: u32 = 10_000;

/// One line of a preview.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PreviewLine {
    pub place: u32,
    /// Whole currency units.
    pub prize: u64,
    pub points: Centipoints,
}

/// The points for every place of a field, as the formula would give them. The prizes are
/// the default payout table's for the places paid (an equal split where it has no
/// structure paying that many), so `pw` and `inTheMoney` read as a result would give them.
pub fn preview(formula: &Formula, field: PreviewField) -> Result<Vec<PreviewLine>, FormulaError> {
    let n = field.entrants;
    let refused = FormulaError::BadField;
    if !(2..=MAX_PREVIEW_ENTRANTS).contains(&n) {
        return Err(refused(format!(
            "a field has 2 to {MAX_PREVIEW_ENTRANTS} entrants"
        )));
    }
    let prizepool = match field.prizepool {
        Some(pool) => pool,
        None => u64::from(n)
            .checked_mul(field.buyin)
            .ok_or_else(|| refused("the prize pool is out of range".into()))?,
    };
    let prizes = preview_prizes(n, prizepool, field.paid).map_err(refused)?;
    // As scoring reads a result: the last place paid is the last with a prize (none in a
    // freeroll), and the prizes are in whole currency units.
    let paid = prizes
        .iter()
        .rposition(|&prize| prize > 0)
        .map_or(0, |i| u32::try_from(i + 1).unwrap_or(u32::MAX));
    let total_rebuys = field.rebuys.saturating_mul(n);
    (1..=n)
        .map(|r| {
            let prize = usize::try_from(r - 1)
                .ok()
                .and_then(|i| prizes.get(i))
                .copied()
                .unwrap_or(0);
            let inputs = Inputs {
                n,
                r,
                nr: field.rebuys,
                nh: field.hits,
                buyin: field.buyin,
                prizepool,
                paid,
                prize,
                total_rebuys,
            };
            Ok(PreviewLine {
                place: r,
                prize,
                points: formula.points(inputs)?,
            })
        })
        .collect()
}

/// The prizes of the places paid, in whole currency units.
fn preview_prizes(n: u32, pool: u64, paid: Option<u32>) -> Result<Vec<u64>, String> {
    use crate::tournament::payouts::PayoutTable;
    let table = PayoutTable::default();
    let structure = match paid {
        None => Some(table.for_field(u64::from(n))),
        Some(k) => {
            if k == 0 || k > n {
                return Err(format!("the places paid are 1 to the {n} entrants"));
            }
            table
                .rows()
                .iter()
                .map(|(_, s)| s)
                .find(|s| s.places() == usize::try_from(k).unwrap_or(usize::MAX))
        }
    };
    let cents = pool
        .checked_mul(100)
        .ok_or_else(|| "the prize pool is out of range".to_owned())?;
    let amounts: Vec<u64> = match structure {
        Some(structure) => structure
            .amounts(Cents::new(cents), u64::from(n))
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|c| c.get() / 100)
            .collect(),
        None => {
            let k = u64::from(paid.unwrap_or(1));
            (0..k).map(|i| pool / k + u64::from(i < pool % k)).collect()
        }
    };
    Ok(amounts)
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
            prop::sample::select(vec![
                "n",
                "r",
                "nr",
                "nh",
                "buyin",
                "prizepool",
                "mr",
                "m",
                "pw",
                "tnr",
                "Rank",
                "position",
            ])
            .prop_map(String::from),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            let ops = prop::sample::select(vec![
                "+", "-", "*", "/", "%", "^", "<", "<=", ">", ">=", "==", "=", "is", "!=", "&&",
                "||", "and", "or",
            ]);
            let unary = prop::sample::select(vec![
                "round", "floor", "ceil", "abs", "sqrt", "log", "ln", "log10", "exp", "triangle",
                "not ",
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
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("pow({a}, {b})")),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(a, b, c)| {
                    format!("(assign(\"x\", {a}); switch(x, {b}, {c}, 7) + lswitch({b}, x, {c}))")
                }),
                (inner.clone(), inner).prop_map(|(a, b)| format!("round({a}, 2) + if({b}, 1)")),
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
                "assign(",
                "\"x\"",
                "\"",
                "'",
                "x",
                ";",
                "is",
                "and",
                "or",
                "not",
                "%",
                "switch(",
                "lswitch(",
                "oneof(",
                "average(",
                "random(",
                "totalCost",
                "RANK",
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
                    let inputs = Inputs { n, r, nr: r, nh: n, buyin: money, prizepool: money, paid: n, prize: money, total_rebuys: r };
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
                        for paid in [1, n.div_ceil(10), n] {
                            for r in (1..=n).step_by(3) {
                                for extra in [0, 1, 5] {
                                    let inputs = check_inputs(n, r, paid, extra);
                                    prop_assert!(formula.points(inputs).is_ok(), "{} at {:?}", text, inputs);
                                }
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
                    let [n, r, nr, nh, buyin, prizepool, paid, prize, tnr] = values[..] else {
                        panic!("{inputs}");
                    };
                    let small = |v: u64| u32::try_from(v).unwrap();
                    let named = Inputs {
                        n: small(n), r: small(r), nr: small(nr), nh: small(nh), buyin, prizepool,
                        paid: small(paid), prize, total_rebuys: small(tnr),
                    };
                    let unchecked = Formula::parse(&text).unwrap();
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
            buyin: 20,
            prizepool: u64::from(n) * 20,
            ..Inputs::default()
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
            ..Inputs::default()
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
                .reads(|v| matches!(v, Var::Nr | Var::Nh))
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
            Formula::new("n - ranking + 1"),
            Err(FormulaError::UnknownVariable("ranking".into()))
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
            Formula::new("if(r)"),
            Err(FormulaError::Arity { .. })
        ));
        assert!(matches!(
            Formula::new("n r"),
            Err(FormulaError::Syntax { .. })
        ));
    }
}
