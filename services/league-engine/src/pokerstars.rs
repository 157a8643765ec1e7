//! PokerStars-style hand-history text: the layout tracking software imports (Hold'em
//! Manager, PokerTracker, PokerKit's `PokerStarsParser`), written from the events of a hand
//! the engine played.
//!
//! An auditor's export shows every player's hole cards (`Dealt to` a line each), as a
//! completed hand's audit view does. Amounts are chips: a raise reads `raises 40 to 80`
//! (the increment, then the total for the round), a call the chips it adds. A voided hand
//! has no such form (its chips were returned), and is refused as PHH refuses it. A hand
//! the floor killed folds at its next turn, as PHH has it; killed after its last action, it
//! folds where it was killed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::card::Card;
use crate::eval;
use crate::hand::{self, BlindKind, Event, FoldReason, Seat, Street};

/// What the hand's events do not say: its numbers, table, level, time and who sat where.
pub struct Header<'a> {
    /// The hand's number (the log position of the event that started it: unique, numeric,
    /// as the format wants).
    pub hand: u64,
    /// The tournament's number (the log position of its first event); `None` for a hand at
    /// a cash table, which has no tournament and no level.
    pub tournament: Option<u64>,
    /// The table's name, as the format's `Table '…'` shows it.
    pub table: &'a str,
    /// The level the hand was played at (from 1).
    pub level: u32,
    /// The seats at the table.
    pub seat_count: u32,
    /// When the hand started, in milliseconds since the Unix epoch (UTC).
    pub started_at: i64,
    /// Each seat's player, as the text names them.
    pub names: &'a BTreeMap<Seat, String>,
}

/// Writes one hand (its events, from `HandStarted` to `HandEnded`).
pub fn write(events: &[Event], header: &Header<'_>) -> Result<String, String> {
    let events = &*match hand::in_turn_order(events) {
        Ok(events) => events,
        // A call taken back that no fold can stand for: nothing to write.
        Err(error)
            if events
                .iter()
                .any(|e| matches!(e, Event::CallRetracted { .. })) =>
        {
            return Err(error);
        }
        Err(_) => events
            .iter()
            .map(|event| match event {
                Event::HandKilled { seat, .. } => Event::PlayerFolded {
                    seat: *seat,
                    reason: FoldReason::Folded,
                },
                _ => event.clone(),
            })
            .collect(),
    };
    let Some(Event::HandStarted { setup }) = events.first() else {
        return Err("the events must start with HandStarted".into());
    };
    if !events.iter().any(|e| matches!(e, Event::HandEnded { .. })) {
        return Err("the hand is not over".into());
    }
    let name = |seat: Seat| -> Result<&str, String> {
        header
            .names
            .get(&seat)
            .map(String::as_str)
            .ok_or_else(|| format!("no player is named for seat {}", u32::from(seat) + 1))
    };
    let small_blind = setup
        .blinds
        .iter()
        .find(|b| b.kind == BlindKind::SmallBlind)
        .map_or(0, |b| b.amount);
    let mut out = String::with_capacity(2048);
    match header.tournament {
        Some(tournament) => writeln!(
            out,
            "PokerStars Hand #{}: Tournament #{tournament}, Hold'em No Limit - Level {} ({small_blind}/{}) - {} UTC",
            header.hand,
            roman(header.level),
            setup.big_blind,
            utc(header.started_at),
        ),
        None => writeln!(
            out,
            "PokerStars Hand #{}:  Hold'em No Limit ({small_blind}/{}) - {} UTC",
            header.hand,
            setup.big_blind,
            utc(header.started_at),
        ),
    }
    .map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "Table '{}' {}-max Seat #{} is the button",
        header.table,
        header.seat_count,
        u32::from(setup.button) + 1
    );
    for seat in &setup.seats {
        let _ = writeln!(
            out,
            "Seat {}: {} ({} in chips){}",
            u32::from(seat.seat) + 1,
            name(seat.seat)?,
            seat.stack,
            if seat.absent { " is sitting out" } else { "" }
        );
    }
    // The chips each seat has in front of it this round, and the whole pot.
    let mut round: BTreeMap<Seat, u64> = BTreeMap::new();
    let mut pot = 0u64;
    let mut board: Vec<Card> = Vec::new();
    let mut outcome: BTreeMap<Seat, Outcome> = BTreeMap::new();
    let mut street_name = "before Flop";
    let mut hole_cards_shown = false;
    let mut collected: BTreeMap<Seat, u64> = BTreeMap::new();
    let mut rake = 0u64;
    // A board run twice: the runs' street names, the cards both share, the first run's.
    let twice = events
        .iter()
        .any(|e| matches!(e, Event::BoardRunAgain { .. }));
    let mut run = "";
    let mut shared = 0;
    let mut first_board: Vec<Card> = Vec::new();
    let all_in = |all_in: bool| if all_in { " and is all-in" } else { "" };
    for event in events {
        match event {
            Event::AntePosted {
                seat,
                amount,
                all_in: a,
            } => {
                pot = pot.saturating_add(*amount);
                let _ = writeln!(
                    out,
                    "{}: posts the ante {amount}{}",
                    name(*seat)?,
                    all_in(*a)
                );
            }
            Event::BlindPosted {
                seat,
                kind,
                amount,
                all_in: a,
            } => {
                pot = pot.saturating_add(*amount);
                *round.entry(*seat).or_default() += amount;
                let kind = match kind {
                    BlindKind::SmallBlind => "small blind",
                    BlindKind::BigBlind => "big blind",
                    BlindKind::Straddle => "straddle",
                };
                let _ = writeln!(out, "{}: posts {kind} {amount}{}", name(*seat)?, all_in(*a));
            }
            Event::HoleCardsDealt { seat, cards } => {
                if !hole_cards_shown {
                    out.push_str("*** HOLE CARDS ***\n");
                    hole_cards_shown = true;
                }
                let _ = writeln!(out, "Dealt to {} [{}]", name(*seat)?, cards_text(cards));
            }
            Event::PreflopStarted if !hole_cards_shown => {
                out.push_str("*** HOLE CARDS ***\n");
                hole_cards_shown = true;
            }
            Event::PlayerFolded { seat, .. } => {
                outcome.insert(*seat, Outcome::Folded(street_name));
                let _ = writeln!(out, "{}: folds", name(*seat)?);
            }
            Event::PlayerChecked { seat } => {
                let _ = writeln!(out, "{}: checks", name(*seat)?);
            }
            Event::PlayerCalled {
                seat,
                amount,
                all_in: a,
            } => {
                pot = pot.saturating_add(*amount);
                *round.entry(*seat).or_default() += amount;
                let _ = writeln!(out, "{}: calls {amount}{}", name(*seat)?, all_in(*a));
            }
            Event::PlayerBet {
                seat,
                to,
                all_in: a,
            } => {
                let before = round.get(seat).copied().unwrap_or(0);
                pot = pot.saturating_add(to.saturating_sub(before));
                round.insert(*seat, *to);
                let _ = writeln!(out, "{}: bets {to}{}", name(*seat)?, all_in(*a));
            }
            Event::PlayerRaised {
                seat,
                to,
                all_in: a,
                ..
            } => {
                let highest = round.values().copied().max().unwrap_or(0);
                let before = round.get(seat).copied().unwrap_or(0);
                pot = pot.saturating_add(to.saturating_sub(before));
                round.insert(*seat, *to);
                let _ = writeln!(
                    out,
                    "{}: raises {} to {to}{}",
                    name(*seat)?,
                    to.saturating_sub(highest),
                    all_in(*a)
                );
            }
            Event::OutOfTurnBetForfeited { seat, amount } => {
                pot = pot.saturating_add(*amount);
                let _ = writeln!(
                    out,
                    "{} leaves {amount} in the pot (an out-of-turn bet, WPH 31)",
                    name(*seat)?
                );
            }
            Event::UncalledBetReturned { seat, amount } => {
                pot = pot.saturating_sub(*amount);
                let _ = writeln!(out, "Uncalled bet ({amount}) returned to {}", name(*seat)?);
            }
            Event::RunTwiceChosen { .. } if twice => {
                run = "FIRST ";
                shared = board.len();
            }
            Event::BoardRunAgain { first } => {
                run = "SECOND ";
                first_board.clone_from(first);
                board.truncate(shared);
            }
            Event::BoardDealt { street, cards } => {
                round.clear();
                let before = board.clone();
                board.extend_from_slice(cards);
                let (title, named) = match street {
                    Street::Flop => ("FLOP", "on the Flop"),
                    Street::Turn => ("TURN", "on the Turn"),
                    Street::River => ("RIVER", "on the River"),
                    Street::Preflop => ("PREFLOP", "before Flop"),
                };
                street_name = named;
                if before.is_empty() {
                    let _ = writeln!(out, "*** {run}{title} *** [{}]", cards_text(cards));
                } else {
                    let _ = writeln!(
                        out,
                        "*** {run}{title} *** [{}] [{}]",
                        cards_text(&before),
                        cards_text(cards)
                    );
                }
            }
            Event::ShowdownStarted { .. } => out.push_str("*** SHOW DOWN ***\n"),
            Event::HandShown { seat, cards } => {
                outcome.insert(*seat, Outcome::Showed(*cards));
                let _ = writeln!(
                    out,
                    "{}: shows [{}] ({})",
                    name(*seat)?,
                    cards_text(cards),
                    describe(cards, &board)
                );
            }
            Event::HandMucked { seat } => {
                outcome.insert(*seat, Outcome::Mucked);
                let _ = writeln!(out, "{}: mucks hand", name(*seat)?);
            }
            Event::PotAwarded {
                pot: n,
                shares,
                rake: taken,
                ..
            } => {
                rake += taken;
                for share in shares {
                    *collected.entry(share.seat).or_default() += share.amount;
                    let from = match n {
                        0 => "pot".to_owned(),
                        n => format!("side pot-{n}"),
                    };
                    let _ = writeln!(
                        out,
                        "{} collected {} from {from}",
                        name(share.seat)?,
                        share.amount
                    );
                }
            }
            Event::HandVoided { .. } => {
                return Err("a void hand has no hand-history form".into());
            }
            _ => {}
        }
    }
    out.push_str("*** SUMMARY ***\n");
    let _ = writeln!(out, "Total pot {pot} | Rake {rake}");
    if twice {
        out.push_str("Hand was run twice\n");
        let _ = writeln!(out, "FIRST Board [{}]", cards_text(&first_board));
        let _ = writeln!(out, "SECOND Board [{}]", cards_text(&board));
    } else if !board.is_empty() {
        let _ = writeln!(out, "Board [{}]", cards_text(&board));
    }
    for seat in &setup.seats {
        let s = seat.seat;
        let role = if s == setup.button {
            " (button)"
        } else {
            match setup.blinds.iter().find(|b| b.seat == s).map(|b| b.kind) {
                Some(BlindKind::SmallBlind) => " (small blind)",
                Some(BlindKind::BigBlind) => " (big blind)",
                _ => "",
            }
        };
        let won = collected.get(&s).copied();
        let what = match (outcome.get(&s), won) {
            (Some(Outcome::Folded(when)), _) => format!("folded {when}"),
            (Some(Outcome::Showed(cards)), Some(won)) => {
                format!("showed [{}] and won ({won})", cards_text(cards))
            }
            (Some(Outcome::Showed(cards)), None) => {
                format!("showed [{}] and lost", cards_text(cards))
            }
            (Some(Outcome::Mucked), _) => "mucked".to_owned(),
            (None, Some(won)) => format!("collected ({won})"),
            (None, None) => "lost".to_owned(),
        };
        let _ = writeln!(out, "Seat {}: {}{role} {what}", u32::from(s) + 1, name(s)?);
    }
    Ok(out)
}

/// How a seat's hand ended, for the summary.
enum Outcome {
    Folded(&'static str),
    Showed([Card; 2]),
    Mucked,
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The shown hand's category with the board as it stands (`high card` … `straight flush`).
fn describe(hole: &[Card; 2], board: &[Card]) -> String {
    if !(3..=5).contains(&board.len()) {
        return "shown".to_owned();
    }
    let mut cards = hole.to_vec();
    cards.extend_from_slice(board);
    eval::evaluate(&cards).category().to_string()
}

/// `level` in Roman numerals, as the format numbers levels (`Level XIV`).
fn roman(mut level: u32) -> String {
    if level == 0 {
        return "0".to_owned();
    }
    const NUMERALS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, numeral) in NUMERALS {
        while level >= value {
            out.push_str(numeral);
            level -= value;
        }
    }
    out
}

/// The UTC date and time of a Unix time in milliseconds: `[year, month, day, hour, minute,
/// second]` (the proleptic Gregorian calendar, by Howard Hinnant's `civil_from_days`).
pub fn civil(millis: i64) -> [i64; 6] {
    let seconds = millis.div_euclid(1000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    [
        year,
        month,
        day,
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60,
    ]
}

/// `yyyy/mm/dd hh:mm:ss` of a Unix time in milliseconds (UTC), as the format writes dates.
pub fn utc(millis: i64) -> String {
    let [year, month, day, hour, minute, second] = civil(millis);
    format!("{year:04}/{month:02}/{day:02} {hour:02}:{minute:02}:{second:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_levels_read_as_the_format_writes_them() {
        assert_eq!(utc(0), "1970/01/01 00:00:00");
        // 2026-11-28 20:15:30 UTC.
        assert_eq!(utc(1_795_896_930_000), "2026/11/28 20:15:30");
        // A leap day.
        assert_eq!(utc(951_782_400_000), "2000/02/29 00:00:00");
        assert_eq!(roman(1), "I");
        assert_eq!(roman(4), "IV");
        assert_eq!(roman(14), "XIV");
        assert_eq!(roman(49), "XLIX");
    }
}
