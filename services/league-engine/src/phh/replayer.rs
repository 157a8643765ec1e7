//! Replaying PHH: a hand's setup and actions turned into engine commands, and the stacks
//! it ends with.

use super::*;

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
        chip_unit: 1,
        absent_hands_dead: false,
        dealing: Dealing::Recorded,
        rules,
        rake: hand.rake,
        run_twice: hand.runs_twice.then_some(0),
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
///
/// A PHH showdown ends when every hand but one has mucked: PokerKit pulls the pot to the
/// last hand without an action from it. A file that stops there, under rules whose last
/// hand must show, is read again under the same rules with the last hand winning unseen
/// (`LastHand::WinsUnseen`, as WPH 10B and Oracle showdown 7 play it).
pub fn replay(hand: &PhhHand, rules: HouseRules) -> Result<Replayed, PhhError> {
    let mut events = Vec::with_capacity(48);
    let first = replay_into(hand, rules, &mut events);
    match first {
        Err(PhhError::Incomplete(_)) if rules.last_hand == LastHand::MustShow => {
            events.clear();
            let unseen = HouseRules {
                last_hand: LastHand::WinsUnseen,
                ..rules
            };
            replay_into(hand, unseen, &mut events).or(first)
        }
        other => other,
    }
}

/// As [`replay`], appending the hand's events to `events` (to write it out again).
pub fn replay_into(
    hand: &PhhHand,
    rules: HouseRules,
    events: &mut Vec<Event>,
) -> Result<Replayed, PhhError> {
    replay_by(
        hand,
        rules,
        |_, _| Ok(()),
        |state, command| hand::execute(state, command, events),
    )
}

/// As [`replay`], deciding each command and applying its events one by one, with `sink`
/// called after every event (the tests check the invariants there).
pub fn replay_with(
    hand: &PhhHand,
    rules: HouseRules,
    mut sink: impl FnMut(&HandState, &Event),
) -> Result<Replayed, PhhError> {
    replay_by(
        hand,
        rules,
        |_, _| Ok(()),
        |state, command| {
            for event in &hand::decide(state, command)? {
                hand::apply(state, event);
                sink(state, event);
            }
            Ok(())
        },
    )
}

/// As [`replay`], calling `before` with the engine's state ahead of each recorded action
/// and the action's text, its comment included; an error from `before` refuses the hand
/// at that action. The conformance tests compare there what the engine offers with what
/// PokerKit offered (recorded in the comment).
pub fn replay_observed(
    hand: &PhhHand,
    rules: HouseRules,
    before: impl FnMut(&HandState, &str) -> Result<(), String>,
) -> Result<Replayed, PhhError> {
    let mut events = Vec::with_capacity(48);
    replay_by(hand, rules, before, |state, command| {
        hand::execute(state, command, &mut events)
    })
}

pub(super) fn replay_by(
    hand: &PhhHand,
    rules: HouseRules,
    mut before: impl FnMut(&HandState, &str) -> Result<(), String>,
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
        before(&state, text).map_err(refused)?;
        // A board that ran twice: every player agreed when asked.
        for seat in state.run_twice_pending() {
            let agree = Command::RunTwice { seat, agree: true };
            step(&mut state, &agree).map_err(|error| refused(explain(&error)))?;
        }
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

pub(super) fn player(seat: hand::Seat) -> String {
    format!("p{}", u32::from(seat) + 1)
}

/// A refusal in the file's own terms.
pub(super) fn explain(error: &RuleError) -> String {
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

pub(super) fn pending(state: &HandState) -> String {
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
pub(super) fn action_command(
    text: &str,
    n: usize,
    state: &HandState,
) -> Result<Option<Command>, String> {
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
pub(super) fn parse_player(word: &str, n: usize) -> Result<hand::Seat, String> {
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
pub(super) fn known_pair(text: &str) -> Result<Option<[Card; 2]>, String> {
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
