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
use crate::rules::HouseRules;

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

/// Why a file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhhError {
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

/// Parses a PHH file in one pass over its bytes (no line splitting: arrays may span lines).
pub fn parse(text: &str) -> Result<PhhHand, PhhError> {
    let mut fields = Fields::default();
    let mut parser = Parser::new(text);
    loop {
        parser.skip_ws();
        match parser.peek() {
            // A table header (e.g. user fields); PHH hand fields come before any.
            None | Some(b'[') => break,
            Some(_) => {}
        }
        let start = parser.pos;
        let syntax = |parser: &Parser<'_>, message: String| PhhError::Syntax {
            line: parser.line_of(start),
            message,
        };
        let key = parser.key().map_err(|m| syntax(&parser, m))?;
        match key {
            // The hot field is read straight into its buffer.
            "actions" => {
                let actions = parser.string_lines().map_err(|m| syntax(&parser, m))?;
                fields.actions = Some(actions);
            }
            "antes" | "blinds_or_straddles" | "starting_stacks" | "finishing_stacks" => {
                let numbers = parser.numbers().map_err(|m| syntax(&parser, m))?;
                fields.set_numbers(key, numbers)?;
            }
            "variant" | "ante_trimming_status" | "min_bet" => {
                let value = parser.value().map_err(|m| syntax(&parser, m))?;
                fields.set(key, value)?;
            }
            // Metadata (players, event, venue, ...): checked for syntax, not kept.
            _ => parser.skip_value().map_err(|m| syntax(&parser, m))?,
        }
        parser.end_of_entry(key).map_err(|m| syntax(&parser, m))?;
    }
    fields.finish()
}

// The scanners below work on bytes: every byte they look for is ASCII, and in UTF-8 an
// ASCII byte is never part of a longer character, so slicing at them is safe.

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser { text, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn line_of(&self, pos: usize) -> usize {
        1 + self.text.as_bytes()[..pos.min(self.text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// Skips white space, newlines and comments.
    fn skip_ws(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if b == b'#' {
                while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if b.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Skips spaces and tabs only.
    fn skip_blank(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.pos), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// `key =`, leaving the parser at the value.
    fn key(&mut self) -> Result<&'a str, String> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        while self.pos < bytes.len() && !matches!(bytes[self.pos], b'=' | b' ' | b'\t' | b'\n') {
            self.pos += 1;
        }
        let key = &self.text[start..self.pos];
        self.skip_blank();
        if self.peek() != Some(b'=') || key.is_empty() {
            return Err(format!("expected `key = value` at {key:?}"));
        }
        self.pos += 1;
        self.skip_blank();
        Ok(key)
    }

    /// Nothing but blanks and a comment may follow a value on its line.
    fn end_of_entry(&mut self, key: &str) -> Result<(), String> {
        self.skip_blank();
        match self.peek() {
            None | Some(b'\n' | b'#') => Ok(()),
            Some(_) => Err(format!("unexpected text after the value of `{key}`")),
        }
    }

    /// A quoted string's body (no escapes processed), after the opening quote.
    fn raw_string(&mut self, quote: u8) -> Result<&'a str, String> {
        let body = &self.text[self.pos + 1..];
        let end = body
            .as_bytes()
            .iter()
            .position(|&b| b == quote || b == b'\n')
            .filter(|&end| body.as_bytes()[end] == quote)
            .ok_or("unterminated string")?;
        self.pos += end + 2;
        Ok(&body[..end])
    }

    /// An array of one-line strings, as lines of one buffer.
    fn string_lines(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'[') {
            return Err("`actions` must be an array of strings".into());
        }
        self.pos += 1;
        let mut out = String::with_capacity(self.text.len().saturating_sub(self.pos).min(4096));
        loop {
            self.skip_ws();
            match self.peek() {
                Some(b']') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(quote @ (b'\'' | b'"')) => {
                    let text = self.raw_string(quote)?;
                    if quote == b'"' && text.as_bytes().contains(&b'\\') {
                        out.push_str(&unescape(text)?);
                    } else {
                        out.push_str(text);
                    }
                    out.push('\n');
                }
                _ => return Err("`actions` must be an array of strings".into()),
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return Err("expected `,` or `]` in `actions`".into()),
            }
        }
    }

    /// An array of numbers, as written, without allocating for each.
    fn numbers(&mut self) -> Result<Vec<HalfChips>, String> {
        if self.peek() != Some(b'[') {
            return Err("expected an array of numbers".into());
        }
        self.pos += 1;
        let mut out = Vec::with_capacity(10);
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') {
                self.pos += 1;
                return Ok(out);
            }
            let bytes = self.text.as_bytes();
            let start = self.pos;
            while self.pos < bytes.len()
                && (bytes[self.pos].is_ascii_digit() || matches!(bytes[self.pos], b'.' | b'_'))
            {
                self.pos += 1;
            }
            let word = &self.text[start..self.pos];
            if word.is_empty() {
                return Err("expected a number".into());
            }
            out.push(if word.contains('_') {
                parse_half_chips(&word.replace('_', ""))?
            } else {
                parse_half_chips(word)?
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {}
                _ => return Err("expected `,` or `]`".into()),
            }
        }
    }

    /// Steps over a value without keeping it.
    fn skip_value(&mut self) -> Result<(), String> {
        self.skip_ws();
        match self.peek() {
            Some(quote @ (b'\'' | b'"')) => self.raw_string(quote).map(|_| ()),
            Some(b'[') => {
                self.pos += 1;
                loop {
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(());
                    }
                    self.skip_value()?;
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {}
                        _ => return Err("expected `,` or `]`".into()),
                    }
                }
            }
            Some(_) => self.value().map(|_| ()),
            None => Err("missing value".into()),
        }
    }

    fn value(&mut self) -> Result<Value<'a>, String> {
        self.skip_ws();
        let rest = self.rest();
        let first = *rest.as_bytes().first().ok_or("missing value")?;
        match first {
            b'\'' | b'"' => {
                let body = &rest[1..];
                let end = body
                    .as_bytes()
                    .iter()
                    .position(|&b| b == first)
                    .ok_or("unterminated string")?;
                let text = &body[..end];
                self.pos += end + 2;
                if first == b'"' && text.as_bytes().contains(&b'\\') {
                    Ok(Value::Str(Cow::Owned(unescape(text)?)))
                } else {
                    Ok(Value::Str(Cow::Borrowed(text)))
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::with_capacity(32);
                loop {
                    self.skip_ws();
                    if self.rest().as_bytes().first() == Some(&b']') {
                        self.pos += 1;
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value()?);
                    self.skip_ws();
                    let next = self.rest().as_bytes().first();
                    if next == Some(&b',') {
                        self.pos += 1;
                    } else if next != Some(&b']') {
                        return Err(format!("expected `,` or `]` at {:?}", self.rest()));
                    }
                }
            }
            _ => {
                let end = rest
                    .as_bytes()
                    .iter()
                    .position(|&b| b == b',' || b == b']' || b.is_ascii_whitespace())
                    .unwrap_or(rest.len());
                let word = &rest[..end];
                self.pos += end;
                match word {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    _ if is_number(word) && !word.contains('_') => {
                        Ok(Value::Num(Cow::Borrowed(word)))
                    }
                    _ if is_number(word) => Ok(Value::Num(Cow::Owned(word.replace('_', "")))),
                    _ => Err(format!("not a value: {word:?}")),
                }
            }
        }
    }
}

fn is_number(word: &str) -> bool {
    let digits = word.strip_prefix(['-', '+']).unwrap_or(word);
    !digits.is_empty()
        && digits.chars().next().is_some_and(|c| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '_' | 'e' | 'E' | '-' | '+'))
}

fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            other => return Err(format!("unsupported escape \\{other:?}")),
        }
    }
    Ok(out)
}

#[derive(Default)]
struct Fields {
    variant: Option<String>,
    ante_trimming_status: Option<bool>,
    antes: Option<Vec<u64>>,
    blinds_or_straddles: Option<Vec<u64>>,
    min_bet: Option<u64>,
    starting_stacks: Option<Vec<u64>>,
    actions: Option<String>,
    finishing_stacks: Option<Vec<HalfChips>>,
}

impl Fields {
    /// A numeric array field; the chip fields must be whole.
    fn set_numbers(&mut self, key: &str, numbers: Vec<HalfChips>) -> Result<(), PhhError> {
        let field: &'static str = match key {
            "antes" => "antes",
            "blinds_or_straddles" => "blinds_or_straddles",
            "starting_stacks" => "starting_stacks",
            _ => "finishing_stacks",
        };
        if key == "finishing_stacks" {
            self.finishing_stacks = Some(numbers);
            return Ok(());
        }
        let whole = numbers
            .into_iter()
            .map(|h| {
                if h.is_whole() {
                    Ok(h.0 / 2)
                } else {
                    Err(field_error(field, "chips must be whole"))
                }
            })
            .collect::<Result<Vec<u64>, _>>()?;
        match key {
            "antes" => self.antes = Some(whole),
            "blinds_or_straddles" => self.blinds_or_straddles = Some(whole),
            _ => self.starting_stacks = Some(whole),
        }
        Ok(())
    }

    /// Takes one `key = value`, typed at once; unknown keys (metadata) are ignored.
    fn set(&mut self, key: &str, value: Value<'_>) -> Result<(), PhhError> {
        match key {
            "variant" => match value {
                Value::Str(v) => self.variant = Some(v.into_owned()),
                _ => return Err(field_error("variant", "expected a string")),
            },
            "ante_trimming_status" => match value {
                Value::Bool(b) => self.ante_trimming_status = Some(b),
                _ => return Err(field_error("ante_trimming_status", "expected a boolean")),
            },
            "antes" => self.antes = Some(chips_array("antes", value)?),
            "blinds_or_straddles" => {
                self.blinds_or_straddles = Some(chips_array("blinds_or_straddles", value)?);
            }
            "starting_stacks" => {
                self.starting_stacks = Some(chips_array("starting_stacks", value)?)
            }
            "min_bet" => match value {
                Value::Num(text) => {
                    self.min_bet =
                        Some(parse_chips(&text).map_err(|m| field_error("min_bet", &m))?);
                }
                _ => return Err(field_error("min_bet", "expected a number")),
            },
            "actions" => {
                let Value::Array(items) = value else {
                    return Err(field_error("actions", "expected an array"));
                };
                let mut actions = String::with_capacity(items.len() * 12);
                for item in items {
                    match item {
                        Value::Str(action) if !action.as_bytes().contains(&b'\n') => {
                            actions.push_str(&action);
                            actions.push('\n');
                        }
                        _ => return Err(field_error("actions", "expected one-line strings")),
                    }
                }
                self.actions = Some(actions);
            }
            "finishing_stacks" => {
                let Value::Array(items) = value else {
                    return Err(field_error("finishing_stacks", "expected an array"));
                };
                let stacks = items
                    .into_iter()
                    .map(|v| match v {
                        Value::Num(text) => parse_half_chips(&text),
                        _ => Err("expected numbers".into()),
                    })
                    .collect::<Result<Vec<_>, String>>()
                    .map_err(|m| field_error("finishing_stacks", &m))?;
                self.finishing_stacks = Some(stacks);
            }
            _ => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<PhhHand, PhhError> {
        let variant = self.variant.ok_or(PhhError::Missing("variant"))?;
        if variant != "NT" {
            return Err(PhhError::Variant(variant));
        }
        let starting_stacks = self
            .starting_stacks
            .ok_or(PhhError::Missing("starting_stacks"))?;
        let antes = self.antes.ok_or(PhhError::Missing("antes"))?;
        let blinds_or_straddles = self
            .blinds_or_straddles
            .ok_or(PhhError::Missing("blinds_or_straddles"))?;
        let n = starting_stacks.len();
        if antes.len() != n || blinds_or_straddles.len() != n {
            return Err(field_error(
                "antes",
                "antes, blinds_or_straddles and starting_stacks must have one entry per player",
            ));
        }
        if let Some(stacks) = &self.finishing_stacks
            && stacks.len() != n
        {
            return Err(field_error(
                "finishing_stacks",
                "expected one entry per player",
            ));
        }
        Ok(PhhHand {
            variant,
            ante_trimming_status: self.ante_trimming_status.unwrap_or(false),
            antes,
            blinds_or_straddles,
            min_bet: self.min_bet.ok_or(PhhError::Missing("min_bet"))?,
            starting_stacks,
            actions: self.actions.ok_or(PhhError::Missing("actions"))?,
            finishing_stacks: self.finishing_stacks,
        })
    }
}

fn field_error(field: &'static str, message: &str) -> PhhError {
    PhhError::Field {
        field,
        message: message.to_owned(),
    }
}

fn chips_array(field: &'static str, value: Value<'_>) -> Result<Vec<u64>, PhhError> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::Num(text) => parse_chips(&text).map_err(|m| field_error(field, &m)),
                _ => Err(field_error(field, "expected numbers")),
            })
            .collect(),
        _ => Err(field_error(field, "expected an array")),
    }
}

/// Whole chips: an integer, or a decimal with a zero fraction.
fn parse_chips(text: &str) -> Result<u64, String> {
    let half = parse_half_chips(text)?;
    if half.is_whole() {
        Ok(half.0 / 2)
    } else {
        Err(format!("{text} is not a whole number of chips"))
    }
}

/// Chips to the half: `10112.5` is 20225 half chips.
fn parse_half_chips(text: &str) -> Result<HalfChips, String> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let whole: u64 = whole
        .parse()
        .map_err(|_| format!("{text:?} is not a chip amount"))?;
    let fraction = fraction.trim_end_matches('0');
    let half = match fraction {
        "" => 0,
        "5" => 1,
        _ => return Err(format!("{text} is not a whole or half number of chips")),
    };
    whole
        .checked_mul(2)
        .and_then(|w| w.checked_add(half))
        .map(HalfChips)
        .ok_or_else(|| format!("{text} is too large"))
}

/// The setup a PHH hand describes: `pK` in seat `K - 1`, the button in the last seat.
pub fn setup(hand: &PhhHand, rules: HouseRules) -> Result<HandSetup, PhhError> {
    let n = hand.starting_stacks.len();
    if !(2..=hand::MAX_SEATS).contains(&n) {
        return Err(PhhError::Setup(RuleError::NotEnoughPlayers { players: n }));
    }
    let seat = |i: usize| hand::Seat::try_from(i).unwrap_or(hand::Seat::MAX);
    // Heads-up the arrays are read reversed.
    let forced_index = |i: usize| if n == 2 { 1 - i } else { i };
    let seats = hand
        .starting_stacks
        .iter()
        .enumerate()
        .map(|(i, &stack)| SeatSetup {
            seat: seat(i),
            stack,
            absent: false,
        })
        .collect();
    let mut blinds = Vec::new();
    let mut antes = Vec::new();
    for i in 0..n {
        let amount = hand.blinds_or_straddles[forced_index(i)];
        if amount > 0 {
            let kind = match forced_index(i) {
                0 => BlindKind::SmallBlind,
                1 => BlindKind::BigBlind,
                _ => BlindKind::Straddle,
            };
            blinds.push(Blind {
                seat: seat(i),
                kind,
                amount,
            });
        }
        let ante = hand.antes[forced_index(i)];
        if ante > 0 {
            antes.push(Ante {
                seat: seat(i),
                amount: ante,
            });
        }
    }
    Ok(HandSetup {
        button: seat(n - 1),
        seats,
        big_blind: hand.min_bet,
        blinds,
        antes,
        dealing: Dealing::Recorded,
        rules,
    })
}

/// The outcome of replaying a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    /// Final stacks in player order (`p1` first).
    pub stacks: Vec<u64>,
    pub state: HandState,
}

/// Replays a hand through the engine. Every recorded action must be legal and the hand
/// must be complete at the end.
pub fn replay(hand: &PhhHand, rules: HouseRules) -> Result<Replayed, PhhError> {
    let mut events = Vec::with_capacity(48);
    replay_into(hand, rules, &mut events)
}

/// As [`replay`], appending the hand's events to `events` (to write it out again).
pub fn replay_into(
    hand: &PhhHand,
    rules: HouseRules,
    events: &mut Vec<Event>,
) -> Result<Replayed, PhhError> {
    replay_by(hand, rules, |state, command| {
        hand::execute(state, command, events)
    })
}

/// As [`replay`], deciding each command and applying its events one by one, with `sink`
/// called after every event (the tests check the invariants there).
pub fn replay_with(
    hand: &PhhHand,
    rules: HouseRules,
    mut sink: impl FnMut(&HandState, &Event),
) -> Result<Replayed, PhhError> {
    replay_by(hand, rules, |state, command| {
        for event in &hand::decide(state, command)? {
            hand::apply(state, event);
            sink(state, event);
        }
        Ok(())
    })
}

fn replay_by(
    hand: &PhhHand,
    rules: HouseRules,
    mut step: impl FnMut(&mut HandState, &Command) -> Result<(), RuleError>,
) -> Result<Replayed, PhhError> {
    let setup = setup(hand, rules)?;
    let n = setup.seats.len();
    let mut state = HandState::new();
    step(&mut state, &Command::Start { setup, seed: None }).map_err(PhhError::Setup)?;
    for (index, text) in hand.actions().enumerate() {
        let refused = |message: String| PhhError::Action {
            index: index + 1,
            action: text.to_owned(),
            message,
        };
        let command = match action_command(text, n, &state) {
            Ok(Some(command)) => command,
            Ok(None) => continue,
            Err(message) => return Err(refused(message)),
        };
        step(&mut state, &command).map_err(|error| refused(explain(&error)))?;
    }
    if !state.is_over() {
        return Err(PhhError::Incomplete(pending(&state)));
    }
    let stacks = state.stacks().map(|(_, stack)| stack).collect();
    Ok(Replayed { stacks, state })
}

fn player(seat: hand::Seat) -> String {
    format!("p{}", u32::from(seat) + 1)
}

/// A refusal in the file's own terms.
fn explain(error: &RuleError) -> String {
    match error {
        RuleError::NotYourTurn {
            expected: Some(expected),
            got,
        } => format!(
            "incomplete: {} is to act, but the next action is {}'s (an action is missing)",
            player(*expected),
            player(*got)
        ),
        other => other.to_string(),
    }
}

fn pending(state: &HandState) -> String {
    if let Some(seat) = state.to_act() {
        format!("with {} to act", player(seat))
    } else if let Some(seat) = state.to_show() {
        format!("with {} to show or muck", player(seat))
    } else if let Some(street) = state.awaiting_board() {
        format!("before the {street:?} is dealt")
    } else {
        format!("in phase {:?}", state.phase())
    }
}

/// One PHH action as an engine command (`None` for a no-op or hidden hole cards).
fn action_command(text: &str, n: usize, state: &HandState) -> Result<Option<Command>, String> {
    // A `#` starts a comment; it is ASCII, so slicing there is safe.
    let text = match text.as_bytes().iter().position(|&b| b == b'#') {
        Some(hash) => &text[..hash],
        None => text,
    };
    let mut words = [""; 5];
    let mut count = 0;
    for word in text.split_ascii_whitespace() {
        if count == words.len() {
            return Err("too many words".into());
        }
        words[count] = word;
        count += 1;
    }
    let command = match &words[..count] {
        [] => return Ok(None),
        ["d", "dh", who, cards] => {
            let seat = parse_player(who, n)?;
            return Ok(known_pair(cards)?.map(|cards| Command::DealHole { seat, cards }));
        }
        ["d", "db", cards] => Command::DealBoard {
            cards: parse_cards(cards).map_err(|e| e.to_string())?,
        },
        [who, "f"] => Command::Act {
            seat: parse_player(who, n)?,
            action: Action::Fold,
        },
        [who, "cc"] => {
            let check = state.legal_actions().is_some_and(|l| l.can_check);
            Command::Act {
                seat: parse_player(who, n)?,
                action: if check { Action::Check } else { Action::Call },
            }
        }
        [who, "cbr", amount] => {
            let to = parse_chips(amount)?;
            Command::Act {
                seat: parse_player(who, n)?,
                action: if state.current_bet() > 0 {
                    Action::RaiseTo(to)
                } else {
                    Action::Bet(to)
                },
            }
        }
        [who, "sm"] => Command::Muck {
            seat: parse_player(who, n)?,
        },
        [who, "sm", "-"] => Command::Show {
            seat: parse_player(who, n)?,
            cards: None,
        },
        [who, "sm", cards] => Command::Show {
            seat: parse_player(who, n)?,
            cards: known_pair(cards)?,
        },
        _ => return Err("not a No-Limit Hold'em action".into()),
    };
    Ok(Some(command))
}

/// `pK` as a seat.
fn parse_player(word: &str, n: usize) -> Result<hand::Seat, String> {
    let k: usize = word
        .strip_prefix('p')
        .and_then(|k| k.parse().ok())
        .ok_or_else(|| format!("{word:?} is not a player"))?;
    if k == 0 || k > n {
        return Err(format!("{word} is not one of the {n} players"));
    }
    hand::Seat::try_from(k - 1).map_err(|_| format!("{word} is out of range"))
}

/// Two known cards, or `None` when any is unknown (`??`).
fn known_pair(text: &str) -> Result<Option<[Card; 2]>, String> {
    if text.contains('?') {
        return Ok(None);
    }
    match parse_cards(text).map_err(|e| e.to_string())?.as_slice() {
        [a, b] => Ok(Some([*a, *b])),
        other => Err(format!("expected two hole cards, got {}", other.len())),
    }
}

/// Compares a replay with the recorded `finishing_stacks`. Where the record has half
/// chips (a split pot logged without an odd-chip rule), the expected stacks give the odd
/// chip to the first of the half-chip players clockwise from the button.
pub fn expected_stacks(recorded: &[HalfChips]) -> Vec<u64> {
    let mut up = true;
    recorded
        .iter()
        .map(|h| {
            if h.is_whole() {
                h.0 / 2
            } else {
                let value = if up { h.0 / 2 + 1 } else { h.0 / 2 };
                up = !up;
                value
            }
        })
        .collect()
}

/// Writes a hand the engine played (its events, in order) as a PHH file.
pub fn write(events: &[Event]) -> Result<String, String> {
    let Some(Event::HandStarted { setup }) = events.first() else {
        return Err("the events must start with HandStarted".into());
    };
    let order: Vec<hand::Seat> = {
        let mut state = HandState::new();
        hand::apply(&mut state, &events[0]);
        state.seats_in_order().collect()
    };
    let n = order.len();
    let pos = |seat: hand::Seat| order.iter().position(|&s| s == seat).unwrap_or(0);
    let p = |seat: hand::Seat| format!("p{}", pos(seat) + 1);
    // Heads-up the arrays are written reversed, as they are read.
    let slot = |seat: hand::Seat| {
        let i = pos(seat);
        if n == 2 { 1 - i } else { i }
    };
    let mut antes = vec![0u64; n];
    for ante in &setup.antes {
        antes[slot(ante.seat)] += ante.amount;
    }
    let mut blinds = vec![0u64; n];
    for blind in &setup.blinds {
        blinds[slot(blind.seat)] = blind.amount;
    }
    let mut starting = vec![0u64; n];
    for seat in &setup.seats {
        starting[pos(seat.seat)] = seat.stack;
    }
    let mut actions: Vec<String> = Vec::new();
    let mut finishing: Option<Vec<u64>> = None;
    for event in events {
        match event {
            Event::HoleCardsDealt { seat, cards } => {
                actions.push(format!("d dh {} {}", p(*seat), format_cards(cards)));
            }
            Event::BoardDealt { cards, .. } => {
                actions.push(format!("d db {}", format_cards(cards)))
            }
            Event::PlayerFolded { seat, .. } => actions.push(format!("{} f", p(*seat))),
            Event::PlayerChecked { seat } | Event::PlayerCalled { seat, .. } => {
                actions.push(format!("{} cc", p(*seat)));
            }
            Event::PlayerBet { seat, to, .. } | Event::PlayerRaised { seat, to, .. } => {
                actions.push(format!("{} cbr {to}", p(*seat)));
            }
            Event::HandShown { seat, cards, .. } => {
                actions.push(format!("{} sm {}", p(*seat), format_cards(cards)));
            }
            Event::HandMucked { seat } => actions.push(format!("{} sm", p(*seat))),
            Event::HandEnded { stacks, .. } => {
                let mut out = vec![0u64; n];
                for share in stacks {
                    out[pos(share.seat)] = share.amount;
                }
                finishing = Some(out);
            }
            Event::HandVoided { .. } => return Err("a void hand has no PHH form".into()),
            _ => {}
        }
    }
    let finishing = finishing.ok_or("the hand is not over")?;
    let list = |values: &[u64]| {
        values
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::with_capacity(512);
    let _ = writeln!(out, "variant = 'NT'");
    let _ = writeln!(out, "ante_trimming_status = false");
    let _ = writeln!(out, "antes = [{}]", list(&antes));
    let _ = writeln!(out, "blinds_or_straddles = [{}]", list(&blinds));
    let _ = writeln!(out, "min_bet = {}", setup.big_blind);
    let _ = writeln!(out, "starting_stacks = [{}]", list(&starting));
    let quoted: Vec<String> = actions.iter().map(|a| format!("'{a}'")).collect();
    let _ = writeln!(out, "actions = [{}]", quoted.join(", "));
    let seats: Vec<String> = order
        .iter()
        .map(|s| (u32::from(*s) + 1).to_string())
        .collect();
    let _ = writeln!(out, "seats = [{}]", seats.join(", "));
    let _ = writeln!(out, "finishing_stacks = [{}]", list(&finishing));
    Ok(out)
}
