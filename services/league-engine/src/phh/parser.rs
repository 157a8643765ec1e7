//! Reading PHH: the hand-written parser for the TOML subset PHH files use, and the fields
//! of a hand.

use super::*;

/// The largest hand history read: a real hand's PHH is a few kilobytes.
pub const MAX_BYTES: usize = 1 << 20;
/// The deepest nesting of arrays in a field the parser skips (PHH's own fields nest none).
pub const MAX_NESTING: usize = 16;

/// Parses a PHH file in one pass over its bytes (no line splitting: arrays may span lines).
/// A file over [`MAX_BYTES`] is refused unread (`PHH_TOO_LARGE`); arrays nested deeper than
/// [`MAX_NESTING`] are refused as a syntax error naming the limit: no input recurses
/// without bound.
pub fn parse(text: &str) -> Result<PhhHand, PhhError> {
    if text.len() > MAX_BYTES {
        return Err(PhhError::TooLarge { bytes: text.len() });
    }
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
            "variant"
            | "ante_trimming_status"
            | "min_bet"
            | RAKE_PERCENT
            | RAKE_CAP
            | RAKE_NO_FLOP
            | RUNOUT_COUNT => {
                let value = parser.value().map_err(|m| syntax(&parser, m))?;
                fields.set(key, value)?;
            }
            // Metadata (players, event, venue, ...): checked for syntax, not kept.
            _ => parser.skip_value(0).map_err(|m| syntax(&parser, m))?,
        }
        parser.end_of_entry(key).map_err(|m| syntax(&parser, m))?;
    }
    fields.finish()
}

// The scanners below work on bytes: every byte they look for is ASCII, and in UTF-8 an
// ASCII byte is never part of a longer character, so slicing at them is safe.

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) pos: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Parser<'a> {
        Parser { text, pos: 0 }
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    pub(super) fn line_of(&self, pos: usize) -> usize {
        1 + self.text.as_bytes()[..pos.min(self.text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// Skips white space, newlines and comments.
    pub(super) fn skip_ws(&mut self) {
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
    pub(super) fn skip_blank(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.pos), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// `key =`, leaving the parser at the value.
    pub(super) fn key(&mut self) -> Result<&'a str, String> {
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
    pub(super) fn end_of_entry(&mut self, key: &str) -> Result<(), String> {
        self.skip_blank();
        match self.peek() {
            None | Some(b'\n' | b'#') => Ok(()),
            Some(_) => Err(format!("unexpected text after the value of `{key}`")),
        }
    }

    /// A quoted string's body (no escapes processed), after the opening quote.
    pub(super) fn raw_string(&mut self, quote: u8) -> Result<&'a str, String> {
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
    pub(super) fn string_lines(&mut self) -> Result<String, String> {
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
    pub(super) fn numbers(&mut self) -> Result<Vec<HalfChips>, String> {
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
    /// Skips one value, inside `depth` arrays.
    pub(super) fn skip_value(&mut self, depth: usize) -> Result<(), String> {
        self.skip_ws();
        match self.peek() {
            Some(quote @ (b'\'' | b'"')) => self.raw_string(quote).map(|_| ()),
            Some(b'[') if depth >= MAX_NESTING => {
                Err(format!("arrays nested deeper than {MAX_NESTING}"))
            }
            Some(b'[') => {
                self.pos += 1;
                loop {
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(());
                    }
                    self.skip_value(depth + 1)?;
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

    pub(super) fn value(&mut self) -> Result<Value<'a>, String> {
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

pub(super) fn is_number(word: &str) -> bool {
    let digits = word.strip_prefix(['-', '+']).unwrap_or(word);
    !digits.is_empty()
        && digits.chars().next().is_some_and(|c| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '_' | 'e' | 'E' | '-' | '+'))
}

pub(super) fn unescape(text: &str) -> Result<String, String> {
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
pub(super) struct Fields {
    pub(super) variant: Option<String>,
    pub(super) ante_trimming_status: Option<bool>,
    pub(super) antes: Option<Vec<u64>>,
    pub(super) blinds_or_straddles: Option<Vec<u64>>,
    pub(super) min_bet: Option<u64>,
    pub(super) starting_stacks: Option<Vec<u64>>,
    pub(super) actions: Option<String>,
    pub(super) finishing_stacks: Option<Vec<HalfChips>>,
    pub(super) rake_basis_points: Option<u64>,
    pub(super) rake_cap: Option<u64>,
    pub(super) rake_no_flop: Option<bool>,
    pub(super) runouts: Option<u64>,
}

/// The user-defined fields (PHH's leading underscore) in which a raked cash hand records
/// its rake: PHH itself has no field for it, and PokerKit takes it as a function.
pub const RAKE_PERCENT: &str = "_rake_basis_points";
pub const RAKE_CAP: &str = "_rake_cap";
pub const RAKE_NO_FLOP: &str = "_rake_no_flop_no_drop";
/// The user-defined field in which a hand whose board ran twice says so (`2`): PokerKit
/// takes the runout count as each player's choice, which PHH has no action for.
pub const RUNOUT_COUNT: &str = "_runout_count";

impl Fields {
    /// A numeric array field; the chip fields must be whole.
    pub(super) fn set_numbers(
        &mut self,
        key: &str,
        numbers: Vec<HalfChips>,
    ) -> Result<(), PhhError> {
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
    pub(super) fn set(&mut self, key: &str, value: Value<'_>) -> Result<(), PhhError> {
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
            RAKE_PERCENT | RAKE_CAP => match value {
                Value::Num(text) => {
                    let n = parse_chips(&text).map_err(|m| field_error("_rake", &m))?;
                    if key == RAKE_CAP {
                        self.rake_cap = Some(n);
                    } else {
                        self.rake_basis_points = Some(n);
                    }
                }
                _ => return Err(field_error("_rake", "expected a number")),
            },
            RUNOUT_COUNT => match value {
                Value::Num(text) => {
                    let n = parse_chips(&text).map_err(|m| field_error("_runout_count", &m))?;
                    if !(1..=2).contains(&n) {
                        return Err(field_error("_runout_count", "the board runs once or twice"));
                    }
                    self.runouts = Some(n);
                }
                _ => return Err(field_error("_runout_count", "expected a number")),
            },
            RAKE_NO_FLOP => match value {
                Value::Bool(b) => self.rake_no_flop = Some(b),
                _ => return Err(field_error("_rake", "expected a boolean")),
            },
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

    pub(super) fn finish(self) -> Result<PhhHand, PhhError> {
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
        let rake = match (self.rake_basis_points, self.rake_cap) {
            (None, None) => None,
            (Some(basis_points), Some(cap)) => Some(hand::Rake {
                basis_points: u16::try_from(basis_points)
                    .ok()
                    .filter(|&b| b <= 10_000)
                    .ok_or_else(|| field_error("_rake", "a rake is at most 10000 basis points"))?,
                cap,
                no_flop_no_drop: self.rake_no_flop.unwrap_or(false),
            }),
            _ => {
                return Err(field_error(
                    "_rake",
                    "a rake needs both _rake_basis_points and _rake_cap",
                ));
            }
        };
        Ok(PhhHand {
            rake,
            runs_twice: self.runouts == Some(2),
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

pub(super) fn field_error(field: &'static str, message: &str) -> PhhError {
    PhhError::Field {
        field,
        message: message.to_owned(),
    }
}

pub(super) fn chips_array(field: &'static str, value: Value<'_>) -> Result<Vec<u64>, PhhError> {
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
pub(super) fn parse_chips(text: &str) -> Result<u64, String> {
    let half = parse_half_chips(text)?;
    if half.is_whole() {
        Ok(half.0 / 2)
    } else {
        Err(format!("{text} is not a whole number of chips"))
    }
}

/// Chips to the half: `10112.5` is 20225 half chips.
pub(super) fn parse_half_chips(text: &str) -> Result<HalfChips, String> {
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
