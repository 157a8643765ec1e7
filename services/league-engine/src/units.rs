//! The units the league counts in, as types that cannot be mixed up: [`Chips`] on the
//! table, [`Cents`] of money, [`Centipoints`] of league points, a [`PlayerId`], and the ids
//! of the objects a league holds: [`LeagueId`], [`VenueId`], [`SeasonId`], [`TournamentId`]
//! and [`HandId`].
//!
//! Each is a newtype over an integer (or a string): chips cannot be paid out as cents nor
//! added to points without saying so, and a player id cannot be passed where a venue's is
//! asked. Arithmetic is checked: `checked_add` and `checked_sub` return `None` on overflow,
//! as the integers' own do. Each serializes as its bare value (`#[serde(transparent)]`), so
//! events keep the bytes they had when these were plain integers.

use std::borrow::Borrow;
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Deref, Div, Mul, Rem, Sub, SubAssign};

use serde::{Deserialize, Serialize};

macro_rules! amount {
    ($(#[$doc:meta])* $name:ident($int:ty, $wide:ty)) => {
        $(#[$doc])*
        #[derive(
            Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize,
            Deserialize,
        )]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name($int);

        impl $name {
            /// None of it.
            pub const ZERO: Self = Self(0);
            /// The largest amount.
            pub const MAX: Self = Self(<$int>::MAX);

            /// The amount of `value` units.
            #[must_use]
            pub const fn new(value: $int) -> Self {
                Self(value)
            }

            /// The number of units.
            #[must_use]
            pub const fn get(self) -> $int {
                self.0
            }

            /// Whether there is none.
            #[must_use]
            pub const fn is_zero(self) -> bool {
                self.0 == 0
            }

            /// `self + other`, or `None` on overflow.
            #[must_use]
            pub const fn checked_add(self, other: Self) -> Option<Self> {
                match self.0.checked_add(other.0) {
                    Some(v) => Some(Self(v)),
                    None => None,
                }
            }

            /// `self - other`, or `None` below the type's range.
            #[must_use]
            pub const fn checked_sub(self, other: Self) -> Option<Self> {
                match self.0.checked_sub(other.0) {
                    Some(v) => Some(Self(v)),
                    None => None,
                }
            }

            /// `self * times`, or `None` on overflow.
            #[must_use]
            pub const fn checked_mul(self, times: $int) -> Option<Self> {
                match self.0.checked_mul(times) {
                    Some(v) => Some(Self(v)),
                    None => None,
                }
            }

            /// `self / by` rounded down, or `None` when `by` is zero.
            #[must_use]
            pub const fn checked_div(self, by: $int) -> Option<Self> {
                match self.0.checked_div(by) {
                    Some(v) => Some(Self(v)),
                    None => None,
                }
            }

            /// `self - other`, or zero below the type's range.
            #[must_use]
            pub const fn saturating_sub(self, other: Self) -> Self {
                Self(self.0.saturating_sub(other.0))
            }

            /// `self + other`, or the largest amount on overflow.
            #[must_use]
            pub const fn saturating_add(self, other: Self) -> Self {
                Self(self.0.saturating_add(other.0))
            }

            /// The sum of `amounts`, or `None` on overflow.
            pub fn checked_sum<I: IntoIterator<Item = Self>>(amounts: I) -> Option<Self> {
                amounts
                    .into_iter()
                    .try_fold(Self::ZERO, |sum, amount| sum.checked_add(amount))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        /// An amount compares with a bare number of its units (`chips == 0`, and in tests
        /// `assert_eq!(prizes, [500, 300])`); two different units never compare.
        impl PartialEq<$int> for $name {
            fn eq(&self, other: &$int) -> bool {
                self.0 == *other
            }
        }

        impl PartialOrd<$int> for $name {
            fn partial_cmp(&self, other: &$int) -> Option<std::cmp::Ordering> {
                self.0.partial_cmp(other)
            }
        }

        impl From<$name> for $int {
            fn from(amount: $name) -> $int {
                amount.0
            }
        }

        impl From<$name> for $wide {
            fn from(amount: $name) -> $wide {
                <$wide>::from(amount.0)
            }
        }

        /// Adding panics on overflow, as [`Duration`](std::time::Duration)'s does (and as
        /// the integers' does in a debug build, where a release build would wrap); use
        /// [`checked_add`](Self::checked_add) where the amounts come from a client.
        impl Add for $name {
            type Output = Self;
            fn add(self, other: Self) -> Self {
                self.checked_add(other).expect(concat!(stringify!($name), " overflow"))
            }
        }

        impl AddAssign for $name {
            fn add_assign(&mut self, other: Self) {
                *self = *self + other;
            }
        }

        impl<'a> AddAssign<&'a $name> for $name {
            fn add_assign(&mut self, other: &'a Self) {
                *self = *self + *other;
            }
        }

        impl<'a> SubAssign<&'a $name> for $name {
            fn sub_assign(&mut self, other: &'a Self) {
                *self = *self - *other;
            }
        }

        /// Subtracting panics below the type's range; see [`checked_sub`](Self::checked_sub).
        impl Sub for $name {
            type Output = Self;
            fn sub(self, other: Self) -> Self {
                self.checked_sub(other).expect(concat!(stringify!($name), " underflow"))
            }
        }

        impl SubAssign for $name {
            fn sub_assign(&mut self, other: Self) {
                *self = *self - other;
            }
        }

        /// Scaling by a count panics on overflow; see [`checked_mul`](Self::checked_mul).
        impl Mul<$int> for $name {
            type Output = Self;
            fn mul(self, times: $int) -> Self {
                self.checked_mul(times).expect(concat!(stringify!($name), " overflow"))
            }
        }

        /// `count` times the amount; panics on overflow.
        impl Mul<$name> for $int {
            type Output = $name;
            fn mul(self, amount: $name) -> $name {
                amount * self
            }
        }

        /// Dividing into `by` equal parts, rounded down (panics when `by` is zero, as the
        /// integers' does).
        impl Div<$int> for $name {
            type Output = Self;
            fn div(self, by: $int) -> Self {
                Self(self.0 / by)
            }
        }

        /// What is left over after dividing into `by` equal parts.
        impl Rem<$int> for $name {
            type Output = Self;
            fn rem(self, by: $int) -> Self {
                Self(self.0 % by)
            }
        }

        /// How many times `unit` goes into the amount, rounded down.
        impl Div for $name {
            type Output = $int;
            fn div(self, unit: Self) -> $int {
                self.0 / unit.0
            }
        }

        /// What is left over of the amount after taking whole `unit`s.
        impl Rem for $name {
            type Output = Self;
            fn rem(self, unit: Self) -> Self {
                Self(self.0 % unit.0)
            }
        }

        /// Summing panics on overflow, as summing the integers does in a debug build; use
        /// [`checked_sum`](Self::checked_sum) where the amounts come from a client.
        impl Sum for $name {
            fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
                Self::checked_sum(iter).expect(concat!(stringify!($name), " overflow"))
            }
        }

        impl<'a> Sum<&'a $name> for $name {
            fn sum<I: Iterator<Item = &'a Self>>(iter: I) -> Self {
                iter.copied().sum()
            }
        }
    };
}

macro_rules! unsigned {
    ($name:ident) => {
        impl $name {
            /// The difference between two amounts, whichever is larger.
            #[must_use]
            pub const fn abs_diff(self, other: Self) -> Self {
                Self(self.0.abs_diff(other.0))
            }

            /// `self / by` rounded up (panics when `by` is zero, as the integers' does).
            #[must_use]
            pub const fn div_ceil(self, by: u64) -> Self {
                Self(self.0.div_ceil(by))
            }

            /// Whether the amount is a whole number of `unit`s (zero is; nothing is a whole
            /// number of zero units but zero).
            #[must_use]
            pub const fn is_multiple_of(self, unit: Self) -> bool {
                self.0.is_multiple_of(unit.0)
            }

            /// `self * times`, or the largest amount on overflow.
            #[must_use]
            pub const fn saturating_mul(self, times: u64) -> Self {
                Self(self.0.saturating_mul(times))
            }
        }
    };
}

unsigned!(Chips);
unsigned!(Cents);

amount! {
    /// Tournament or table chips.
    Chips(u64, u128)
}

amount! {
    /// Money, in cents.
    Cents(u64, u128)
}

amount! {
    /// League points in hundredths: a formula's value is rounded half away from zero to
    /// the hundredth, and may be negative.
    Centipoints(i64, i128)
}

/// A player's stable id in the league.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct PlayerId(String);

impl PlayerId {
    /// The player with id `id`.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id's text, owned.
    #[must_use]
    pub fn into_string(self) -> String {
        self.0
    }
}

/// Declares the newtype of one kind of object's id: text read as `&str` wherever text is
/// read (`Deref`, `Borrow`), made from text only by saying so (`new` or `From`), stored and
/// hashed exactly as the bare text was (`serde(transparent)`), and described in the event
/// schemas as the plain string it is.
macro_rules! text_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// The id `id`.
            #[must_use]
            pub fn new(id: impl Into<String>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The id's text, owned.
            #[must_use]
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&String> for $name {
            fn from(id: &String) -> Self {
                Self(id.clone())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "String".into()
            }

            fn inline_schema() -> bool {
                true
            }

            fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
                String::json_schema(generator)
            }
        }
    };
}

text_id!(
    /// A league's id: its stream is `league:<id>`.
    LeagueId
);
text_id!(
    /// A venue's id, as its league added it; schedules, outcomes and host tokens name it.
    VenueId
);
text_id!(
    /// A season's id within its league.
    SeasonId
);
text_id!(
    /// A tournament's id: its stream is `tournament:<id>`; a recorded outcome names it.
    TournamentId
);
text_id!(
    /// A hand's id, as the command that started it named it (a UUID).
    HandId
);
text_id!(
    /// A cash table's id: its stream is `cash:<id>`.
    CashTableId
);

/// `items` for a message: `1, 2 and 3`.
pub fn listed<T: fmt::Display>(items: &[T]) -> String {
    let mut text = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push_str(if i + 1 == items.len() { " and " } else { ", " });
        }
        text.push_str(&item.to_string());
    }
    text
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A player id reads as its text wherever text is read (`&id` as a `&str`); the other way
/// round, text becomes a player id only by saying so ([`PlayerId::new`] or `From`).
impl Deref for PlayerId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<String> for PlayerId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl Borrow<str> for PlayerId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for PlayerId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for PlayerId {
    fn from(id: &str) -> Self {
        Self(id.to_owned())
    }
}

impl From<String> for PlayerId {
    fn from(id: String) -> Self {
        Self(id)
    }
}

impl PartialEq<str> for PlayerId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for PlayerId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A code is exactly what its rule says, and always an identifier too (it names
        /// things in URLs and logs without escaping).
        #[test]
        fn a_code_is_what_its_rule_says(code in "[a-z0-9-]{0,34}|[ -~]{0,10}") {
            let by_rule = (2..=32).contains(&code.len())
                && code.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !code.starts_with('-')
                && !code.ends_with('-');
            prop_assert_eq!(is_code(&code), by_rule);
            prop_assert!(!is_code(&code) || is_id(&code));
        }

        /// The newtypes serialize exactly as the bare values did: events written before
        /// them read back, and hash, the same.
        #[test]
        fn the_units_serialize_as_their_bare_values(
            chips in any::<u64>(),
            cents in any::<u64>(),
            points in any::<i64>(),
            id in ".{0,12}",
        ) {
            prop_assert_eq!(serde_json::to_string(&Chips::new(chips)).unwrap(), chips.to_string());
            prop_assert_eq!(serde_json::to_string(&Cents::new(cents)).unwrap(), cents.to_string());
            prop_assert_eq!(serde_json::to_string(&Centipoints::new(points)).unwrap(), points.to_string());
            prop_assert_eq!(
                serde_json::to_string(&PlayerId::new(id.clone())).unwrap(),
                serde_json::to_string(&id).unwrap()
            );
            let back: Chips = serde_json::from_str(&chips.to_string()).unwrap();
            prop_assert_eq!(back.get(), chips);
        }

        #[test]
        fn checked_arithmetic_is_the_integers_own(a in any::<u64>(), b in any::<u64>()) {
            prop_assert_eq!(Chips::new(a).checked_add(Chips::new(b)).map(Chips::get), a.checked_add(b));
            prop_assert_eq!(Chips::new(a).checked_sub(Chips::new(b)).map(Chips::get), a.checked_sub(b));
            prop_assert_eq!(Cents::new(a).checked_mul(b).map(Cents::get), a.checked_mul(b));
            prop_assert_eq!(Chips::checked_sum([Chips::new(a), Chips::new(b)]).map(Chips::get), a.checked_add(b));
        }
    }

    #[test]
    fn a_negative_or_fractional_amount_does_not_read_as_chips() {
        assert!(serde_json::from_str::<Chips>("-1").is_err());
        assert!(serde_json::from_str::<Cents>("1.5").is_err());
        assert!(serde_json::from_str::<Chips>("\"10\"").is_err());
    }
}

/// The longest identifier (of a league, venue, season, player or tournament), in bytes.
pub const MAX_ID_BYTES: usize = 64;

/// The longest free text (a name, a region, a membership number), in characters.
pub const MAX_TEXT_CHARS: usize = 200;

/// The rule an identifier follows, for refusals.
pub const ID_RULE: &str = "1 to 64 ASCII letters, digits, '-', '_' or '.'";

/// The rule a readable code follows (a league's short name in URLs, a venue's code), for
/// refusals.
pub const CODE_RULE: &str = "2 to 32 lowercase ASCII letters, digits and '-', \
     beginning and ending with a letter or digit";

/// True when `code` is a readable code: 2 to 32 lowercase ASCII letters, digits and `-`,
/// beginning and ending with a letter or a digit (`queens-arms`, `apl-2027`). A code is
/// never shaped as a UUID (too short); it may look like a readable id (`crown`), so the
/// service refuses a code that is another object's id, and an id that is another's code.
#[must_use]
pub fn is_code(code: &str) -> bool {
    let b = code.as_bytes();
    (2..=32).contains(&b.len())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// The rule free text follows, for refusals.
pub const TEXT_RULE: &str = "1 to 200 characters, not all blank, without control characters";

/// True when `id` is an identifier: 1 to [`MAX_ID_BYTES`] ASCII letters, digits, `-`, `_`
/// or `.`. Identifiers name streams and appear in URLs and logs: nothing in them needs
/// escaping.
#[must_use]
pub fn is_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// True when `text` is acceptable free text: 1 to [`MAX_TEXT_CHARS`] characters, not all
/// white space, no control characters (NUL, line breaks, escapes).
#[must_use]
pub fn is_text(text: &str) -> bool {
    !text.trim().is_empty()
        && text.chars().count() <= MAX_TEXT_CHARS
        && !text.chars().any(char::is_control)
}

#[cfg(test)]
mod input_tests {
    use super::*;

    #[test]
    fn identifiers_and_text_are_bounded_and_plain() {
        for ok in ["ann", "crown-w01", "s1", "t.2026_11", &"a".repeat(64)] {
            assert!(is_id(ok), "{ok}");
        }
        for bad in ["", " ", "a b", "a:b", "ann\0", "é", &"a".repeat(65), "a/b"] {
            assert!(!is_id(bad), "{bad:?}");
        }
        for ok in [
            "Ann Lee",
            "Zoë O'Brien",
            "The Crown, Tuesday",
            &"é".repeat(200),
        ] {
            assert!(is_text(ok), "{ok}");
        }
        for bad in ["", "   ", "a\nb", "a\0", "\u{1b}[2J", &"x".repeat(201)] {
            assert!(!is_text(bad), "{bad:?}");
        }
    }
}

/// 16 bytes in a UUID's canonical text form (lower-case hex, hyphenated 8-4-4-4-12); the
/// caller sets the version and variant bits.
pub(crate) fn uuid_text(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
