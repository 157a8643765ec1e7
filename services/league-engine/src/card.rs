//! Cards, ranks and suits.
//!
//! A [`Card`] is one byte: `rank * 4 + suit`, with ranks `2..A` as `0..12` and suits in the
//! draw order clubs < diamonds < hearts < spades, so comparing two cards compares rank
//! first and suit second: exactly the order used to draw for the button or a chip race.
//! Suits never break a tie for a pot; the evaluator ignores this order.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Ranks from deuce (0) to ace (12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl Rank {
    pub const TWO: Rank = Rank(0);
    pub const ACE: Rank = Rank(12);
    const CHARS: [char; 13] = [
        '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A',
    ];

    /// Every rank, deuce first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (0..13).map(Rank)
    }

    /// The rank from its index, deuce = 0, ace = 12.
    pub fn from_index(index: u8) -> Option<Rank> {
        (index < 13).then_some(Rank(index))
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn to_char(self) -> char {
        Self::CHARS[usize::from(self.0)]
    }

    pub fn from_char(c: char) -> Option<Rank> {
        let upper = c.to_ascii_uppercase();
        Self::CHARS
            .iter()
            .position(|&r| r == upper)
            .and_then(|i| u8::try_from(i).ok())
            .map(Rank)
    }
}

/// Suits in draw order: clubs < diamonds < hearts < spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    Clubs = 0,
    Diamonds = 1,
    Hearts = 2,
    Spades = 3,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn index(self) -> u8 {
        match self {
            Suit::Clubs => 0,
            Suit::Diamonds => 1,
            Suit::Hearts => 2,
            Suit::Spades => 3,
        }
    }

    pub fn to_char(self) -> char {
        match self {
            Suit::Clubs => 'c',
            Suit::Diamonds => 'd',
            Suit::Hearts => 'h',
            Suit::Spades => 's',
        }
    }

    pub fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_lowercase() {
            'c' => Some(Suit::Clubs),
            'd' => Some(Suit::Diamonds),
            'h' => Some(Suit::Hearts),
            's' => Some(Suit::Spades),
            _ => None,
        }
    }
}

/// One card of a 52-card deck.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank.0 * 4 + suit.index())
    }

    /// The card from its index `rank * 4 + suit` in `0..52`.
    pub fn from_index(index: u8) -> Option<Card> {
        (index < 52).then_some(Card(index))
    }

    pub fn index(self) -> u8 {
        self.0
    }

    pub fn rank(self) -> Rank {
        Rank(self.0 >> 2)
    }

    pub fn suit(self) -> Suit {
        Suit::ALL[usize::from(self.0 & 3)]
    }

    /// All 52 cards, in index order (deuce of clubs first, ace of spades last).
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52).map(Card)
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().to_char(), self.suit().to_char())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that is not a card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a card: {0:?} (expected a rank 2-9TJQKA and a suit cdhs, e.g. \"Ah\")")]
pub struct ParseCardError(pub String);

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        match s.as_bytes() {
            &[rank, suit] => {
                card_from_bytes(rank, suit).ok_or_else(|| ParseCardError(s.to_owned()))
            }
            _ => Err(ParseCardError(s.to_owned())),
        }
    }
}

/// A card from its two ASCII letters (the hand-history parser's hot path).
fn card_from_bytes(rank: u8, suit: u8) -> Option<Card> {
    let rank = match rank.to_ascii_uppercase() {
        b @ b'2'..=b'9' => b - b'2',
        b'T' => 8,
        b'J' => 9,
        b'Q' => 10,
        b'K' => 11,
        b'A' => 12,
        _ => return None,
    };
    let suit = match suit.to_ascii_lowercase() {
        b'c' => 0,
        b'd' => 1,
        b'h' => 2,
        b's' => 3,
        _ => return None,
    };
    Some(Card(rank * 4 + suit))
}

/// Parses concatenated cards such as `"AhKd7c"` (the PHH board notation).
pub fn parse_cards(s: &str) -> Result<Vec<Card>, ParseCardError> {
    let bytes = s.as_bytes();
    if !bytes.len().is_multiple_of(2) || !s.is_ascii() {
        return Err(ParseCardError(s.to_owned()));
    }
    bytes
        .chunks_exact(2)
        .map(|pair| card_from_bytes(pair[0], pair[1]).ok_or_else(|| ParseCardError(s.to_owned())))
        .collect()
}

/// Formats cards concatenated, as PHH writes them (`"AhKd7c"`).
pub fn format_cards(cards: &[Card]) -> String {
    cards.iter().map(ToString::to_string).collect()
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Read from its text (`"Ah"`).
impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        from_text(deserializer, "a card such as \"Ah\"")
    }
}

/// A value read from its text through [`FromStr`], without copying the text: a rebuild
/// reads every card and commitment of the log, and a borrowed `&str` costs no allocation
/// (`Cow<str>` alone always copies).
pub(crate) fn from_text<'de, D, T>(deserializer: D, expecting: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    struct Text<T>(&'static str, std::marker::PhantomData<T>);
    impl<T: FromStr> serde::de::Visitor<'_> for Text<T>
    where
        T::Err: fmt::Display,
    {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<T, E> {
            text.parse().map_err(E::custom)
        }
    }
    deserializer.deserialize_str(Text(expecting, std::marker::PhantomData))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_through_its_text() {
        for card in Card::all() {
            let text = card.to_string();
            assert_eq!(text.parse::<Card>().unwrap(), card);
        }
        assert_eq!("Ah".parse::<Card>().unwrap().to_string(), "Ah");
        assert_eq!("tc".parse::<Card>().unwrap().to_string(), "Tc");
    }

    #[test]
    fn junk_is_not_a_card() {
        for bad in ["", "A", "Ahh", "1h", "Ax", "10h", "🂡"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn spades_beat_hearts_beat_diamonds_beat_clubs_for_draws() {
        let ace = |s| Card::new(Rank::ACE, s);
        assert!(ace(Suit::Spades) > ace(Suit::Hearts));
        assert!(ace(Suit::Hearts) > ace(Suit::Diamonds));
        assert!(ace(Suit::Diamonds) > ace(Suit::Clubs));
        assert!("2s".parse::<Card>().unwrap() < "3c".parse::<Card>().unwrap());
    }

    #[test]
    fn boards_parse_and_format_concatenated() {
        let cards = parse_cards("ThJc5h").unwrap();
        assert_eq!(cards.len(), 3);
        assert_eq!(format_cards(&cards), "ThJc5h");
        assert!(parse_cards("ThJ").is_err());
    }

    #[test]
    fn cards_serialize_as_their_text() {
        let card: Card = "Qd".parse().unwrap();
        assert_eq!(serde_json::to_string(&card).unwrap(), "\"Qd\"");
        assert_eq!(serde_json::from_str::<Card>("\"Qd\"").unwrap(), card);
        // Escaped text (handed over unescaped, not borrowed) and owned text read the same.
        assert_eq!(serde_json::from_str::<Card>("\"\\u0051d\"").unwrap(), card);
        assert_eq!(
            serde_json::from_value::<Card>(serde_json::json!("Qd")).unwrap(),
            card
        );
        for bad in ["\"Qx\"", "\"\"", "12", "null", "[\"Qd\"]"] {
            assert!(serde_json::from_str::<Card>(bad).is_err(), "{bad}");
        }
    }
}
