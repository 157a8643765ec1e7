//! The schema's own scalars: 64-bit integers (GraphQL's `Int` is 32-bit) for positions,
//! chips, cents and timestamps, and league points as a decimal with two places.
//!
//! Each integer scalar is written as a JSON number; on input it also takes a string of
//! digits, for clients whose numbers are doubles (exact only up to 2^53).

use async_graphql::{InputValueError, InputValueResult, Scalar, ScalarType, Value};
use league_engine::units::Centipoints;

/// Reads a JSON number or a string of digits as a `T`.
fn integer<T: std::str::FromStr>(value: &Value) -> Option<T> {
    match value {
        Value::Number(n) => n.to_string().parse().ok(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// An integer scalar: the Rust type (its docs first), the 64-bit integer it is written
/// as, and the GraphQL scalar (its description first) with the words a refused value gets.
macro_rules! integer_scalar {
    (
        $(#[$type_doc:meta])*
        pub struct $name:ident($inner:ty): $int:ty, from $from:expr, get $get:expr;
        $(#[$scalar_doc:meta])*
        scalar $gql:literal, refused $refusal:literal;
    ) => {
        $(#[$type_doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub $inner);

        $(#[$scalar_doc])*
        #[Scalar(name = $gql)]
        impl ScalarType for $name {
            fn parse(value: Value) -> InputValueResult<Self> {
                integer::<$int>(&value)
                    .map(|n| $name($from(n)))
                    .ok_or_else(|| InputValueError::custom($refusal))
            }

            fn to_value(&self) -> Value {
                let get: fn($inner) -> $int = $get;
                Value::Number(get(self.0).into())
            }
        }
    };
}

integer_scalar! {
    /// A position in the global event log: a non-negative 64-bit integer, written as a JSON
    /// number. Not GraphQL's `Int`, which is 32-bit: on PostgreSQL a position is its
    /// transaction's id shifted left by 16 bits, past 2^31 once the server has committed
    /// about 32,000 transactions, and a client generated with `Int` as a 32-bit type would
    /// fail on it. Input also takes the number as a string of digits, for clients whose
    /// numbers are doubles (exact only up to 2^53).
    pub struct Position(u64): u64, from std::convert::identity, get |p| p;
    /// A position in the global event log: a non-negative 64-bit integer, as a JSON number (or,
    /// on input, a string of digits).
    scalar "Position", refused "a position is an integer from 0 to 2^64 - 1";
}

integer_scalar! {
    /// An amount of tournament or table chips.
    pub struct Chips(league_engine::tournament::Chips): u64,
        from league_engine::tournament::Chips::new, get |c| c.get();
    /// An amount of chips: a whole number from 0 to 2^64 - 1, as a JSON number (or, on input,
    /// a string of digits).
    scalar "Chips", refused "chips are a whole number from 0 to 2^64 - 1";
}

impl Chips {
    /// `n` chips.
    pub fn of(n: u64) -> Chips {
        Chips(league_engine::tournament::Chips::new(n))
    }
}

integer_scalar! {
    /// An amount of money in cents.
    pub struct Cents(league_engine::tournament::Cents): u64,
        from league_engine::tournament::Cents::new, get |c| c.get();
    /// Money in cents (2000 is 20.00): a whole number from 0 to 2^64 - 1, as a JSON number (or,
    /// on input, a string of digits).
    scalar "Cents", refused "cents are a whole number from 0 to 2^64 - 1";
}

impl Cents {
    /// `n` cents.
    pub fn of(n: u64) -> Cents {
        Cents(league_engine::tournament::Cents::new(n))
    }
}

integer_scalar! {
    /// A moment: milliseconds since 1970-01-01T00:00:00Z.
    pub struct Millis(i64): i64, from std::convert::identity, get |m| m;
    /// A moment, in milliseconds since 1970-01-01T00:00:00Z (UTC), as a JSON number (or, on
    /// input, a string of digits).
    scalar "Millis", refused "a moment is milliseconds since 1970-01-01 (UTC), a 64-bit integer";
}

integer_scalar! {
    /// A moment to the microsecond: when an event was stored.
    pub struct Micros(i64): i64, from std::convert::identity, get |m| m;
    /// A moment, in microseconds since 1970-01-01T00:00:00Z (UTC), as a JSON number (or, on
    /// input, a string of digits).
    scalar "Micros", refused "a moment is microseconds since 1970-01-01 (UTC), a 64-bit integer";
}

/// League points: a decimal with at most two places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(pub Centipoints);

/// The most hundredths written: a guard far above any league's numbers (ten trillion
/// points) that keeps every value exact as a JSON number (a double keeps 15 significant
/// digits).
const MAX_CENTIPOINTS: i64 = 999_999_999_999_999;

impl Points {
    /// Parses `125`, `-3.5` or `163.09`: at most two decimal places.
    pub fn parse_text(text: &str) -> Option<Centipoints> {
        let text = text.trim();
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (whole, fraction) = match digits.split_once('.') {
            Some((_, "")) => return None,
            Some(parts) => parts,
            None => (digits, ""),
        };
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !all_digits(whole) || fraction.len() > 2 || !all_digits(fraction) {
            return None;
        }
        let whole: i64 = whole.parse().ok()?;
        let mut hundredths: i64 = if fraction.is_empty() {
            0
        } else {
            fraction.parse().ok()?
        };
        if fraction.len() == 1 {
            hundredths = hundredths.checked_mul(10)?;
        }
        let value = whole.checked_mul(100)?.checked_add(hundredths)?;
        if value > MAX_CENTIPOINTS {
            return None;
        }
        Some(Centipoints::new(if negative { -value } else { value }))
    }

    /// `125`, `-3.5`, `163.09`: the shortest decimal of the value.
    pub fn text(points: Centipoints) -> String {
        let value = points.get();
        let sign = if value < 0 { "-" } else { "" };
        let magnitude = value.unsigned_abs();
        let (whole, hundredths) = (magnitude / 100, magnitude % 100);
        match hundredths {
            0 => format!("{sign}{whole}"),
            h if h % 10 == 0 => format!("{sign}{whole}.{}", h / 10),
            h => format!("{sign}{whole}.{h:02}"),
        }
    }
}

/// League points, as a decimal with at most two places (`125`, `12.5`, `163.09`), written
/// as a JSON number; input also takes the decimal as a string. Table points and formula
/// points are in this one unit; points may be negative (a penalty, a formula below zero).
#[Scalar(name = "Points")]
impl ScalarType for Points {
    fn parse(value: Value) -> InputValueResult<Self> {
        let text = match &value {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err(InputValueError::custom("points, as a number")),
        };
        Points::parse_text(&text)
            .map(Points)
            .ok_or_else(|| InputValueError::custom("points are a decimal with at most two places"))
    }

    fn to_value(&self) -> Value {
        let value = self.0.get();
        if value % 100 == 0 {
            return Value::Number((value / 100).into());
        }
        // The shortest decimal parses to the double nearest it, which prints back as the
        // same decimal: exact for every value of at most 15 digits.
        Points::text(self.0)
            .parse::<f64>()
            .ok()
            .and_then(async_graphql::Number::from_f64)
            .map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn points_read_as_people_write_them() {
        for (text, hundredths) in [
            ("125", 12_500),
            ("12.5", 1_250),
            ("163.09", 16_309),
            ("-3.5", -350),
            ("0.01", 1),
        ] {
            assert_eq!(
                Points::parse_text(text),
                Some(Centipoints::new(hundredths)),
                "{text}"
            );
        }
        for bad in [
            "",
            "1.234",
            "1e3",
            ".5",
            "1.",
            "--1",
            "12a",
            "99999999999999999999",
        ] {
            assert_eq!(Points::parse_text(bad), None, "{bad}");
        }
    }

    proptest! {
        #[test]
        fn points_survive_the_round_trip_through_json(hundredths in -MAX_CENTIPOINTS..=MAX_CENTIPOINTS) {
            let points = Points(Centipoints::new(hundredths));
            let json = serde_json::to_string(&points.to_value().into_json().unwrap()).unwrap();
            let back: serde_json::Value = serde_json::from_str(&json).unwrap();
            let parsed = <Points as ScalarType>::parse(Value::from_json(back).unwrap()).unwrap();
            prop_assert_eq!(parsed, points);
        }
    }
}

integer_scalar! {
    /// A size of the log's Merkle tree: how many events it holds.
    pub struct TreeSize(u64): u64, from std::convert::identity, get |n| n;
    /// A size of the log's Merkle tree (RFC 6962): how many events, in log order, it holds;
    /// a whole number from 0 to 2^64 - 1, as a JSON number (or, on input, a string of digits).
    scalar "TreeSize", refused "a tree size is a whole number from 0 to 2^64 - 1";
}
