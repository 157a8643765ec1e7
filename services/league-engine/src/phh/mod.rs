//! The Poker Hand History format (PHH, `phh.readthedocs.io`) for No-Limit Texas Hold'em.
//!
//! - [`parse`] reads the TOML subset PHH files are written in (keys, strings, integers,
//!   decimals, booleans, arrays, comments) with a small hand-written parser: the corpus
//!   check parses every file, and a general TOML library would dominate the replay time.
//! - [`replay`] plays a hand through the engine with recorded cards and returns the
//!   final stacks. A file that is not a legal hand is refused with the action that broke
//!   it; nothing is "repaired".
//! - [`write`] turns the events of a hand the engine played into a PHH file with
//!   `finishing_stacks`.
//!
//! # Positions
//!
//! `p1` is the first player clockwise from the button and the last player is the button;
//! heads-up, `p1` is the big blind and `p2` the button, and the `antes` and
//! `blinds_or_straddles` arrays are read reversed (the spec's rule). The engine seats `pK`
//! in seat `K - 1` with the button in the last seat, so its positions are the file's.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::card::{Card, format_cards, parse_cards};
use crate::hand::{
    self, Action, Ante, Blind, BlindKind, Command, Dealing, Event, HandSetup, HandState, RuleError,
    SeatSetup,
};
use crate::rules::{HouseRules, LastHand};

mod parser;
mod replayer;
mod writer;

pub use parser::{
    MAX_BYTES, MAX_NESTING, RAKE_CAP, RAKE_NO_FLOP, RAKE_PERCENT, RUNOUT_COUNT, parse,
};
pub use replayer::{
    Replayed, expected_stacks, replay, replay_into, replay_observed, replay_with, setup,
};
pub use writer::{seat_order, write};

use parser::parse_chips;

/// A PHH value, borrowed from the text where it can be.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    Str(Cow<'a, str>),
    /// Integers and decimals, as written (underscores removed).
    Num(Cow<'a, str>),
    Bool(bool),
    Array(Vec<Value<'a>>),
}

/// A parsed No-Limit Hold'em hand.
#[derive(Clone, Debug, PartialEq)]
pub struct PhhHand {
    pub variant: String,
    pub ante_trimming_status: bool,
    pub antes: Vec<u64>,
    pub blinds_or_straddles: Vec<u64>,
    pub min_bet: u64,
    pub starting_stacks: Vec<u64>,
    /// The actions, one per line (kept in one buffer: a hand has dozens).
    pub actions: String,
    /// Recorded final stacks in half chips (some logs record split pots as `x.5`).
    pub finishing_stacks: Option<Vec<HalfChips>>,
    /// The rake of a raked cash hand (its `_rake_*` user-defined fields).
    pub rake: Option<hand::Rake>,
    /// The board ran twice (`_runout_count = 2`): every player agreed when asked.
    pub runs_twice: bool,
}

impl PhhHand {
    /// The actions in order.
    pub fn actions(&self) -> impl Iterator<Item = &str> {
        // Each action ends with a newline (see `Parser::string_lines`).
        let mut rest = self.actions.as_str();
        std::iter::from_fn(move || {
            let end = rest.as_bytes().iter().position(|&b| b == b'\n')?;
            let line = &rest[..end];
            rest = &rest[end + 1..];
            Some(line)
        })
    }
}

/// A chip amount that may end in a half (stored doubled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfChips(pub u64);

impl HalfChips {
    pub fn is_whole(self) -> bool {
        self.0.is_multiple_of(2)
    }
}

/// Why a file was refused. Each kind has a stable code ([`PhhError::code`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhhError {
    #[error("the file is {bytes} bytes; a hand history is at most {max}", max = MAX_BYTES)]
    TooLarge { bytes: usize },
    #[error("line {line}: {message}")]
    Syntax { line: usize, message: String },
    #[error("missing field `{0}`")]
    Missing(&'static str),
    #[error("field `{field}`: {message}")]
    Field {
        field: &'static str,
        message: String,
    },
    #[error("variant {0:?} is not No-Limit Texas Hold'em ('NT')")]
    Variant(String),
    #[error("the hand cannot start: {0}")]
    Setup(RuleError),
    #[error("action {index} {action:?}: {message}")]
    Action {
        index: usize,
        action: String,
        message: String,
    },
    #[error("incomplete: the actions end {0}")]
    Incomplete(String),
}

impl PhhError {
    /// Every code [`PhhError::code`] answers.
    pub const CODES: [&'static str; 8] = [
        "PHH_TOO_LARGE",
        "PHH_SYNTAX",
        "PHH_MISSING_FIELD",
        "PHH_BAD_FIELD",
        "PHH_VARIANT",
        "PHH_SETUP",
        "PHH_ILLEGAL_ACTION",
        "PHH_INCOMPLETE",
    ];

    /// The refusal's stable code, for scripts that sort refused files (`league phh check`
    /// prints it before the message). A file over [`MAX_BYTES`] is `PHH_TOO_LARGE`; arrays
    /// nested past [`MAX_NESTING`] are a `PHH_SYNTAX` error naming that limit.
    pub const fn code(&self) -> &'static str {
        match self {
            PhhError::TooLarge { .. } => "PHH_TOO_LARGE",
            PhhError::Syntax { .. } => "PHH_SYNTAX",
            PhhError::Missing(_) => "PHH_MISSING_FIELD",
            PhhError::Field { .. } => "PHH_BAD_FIELD",
            PhhError::Variant(_) => "PHH_VARIANT",
            PhhError::Setup(_) => "PHH_SETUP",
            PhhError::Action { .. } => "PHH_ILLEGAL_ACTION",
            PhhError::Incomplete(_) => "PHH_INCOMPLETE",
        }
    }
}
