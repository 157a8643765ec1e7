//! Properties over random legal hands (every preset): chips are conserved and never
//! negative after every event; every action the engine offers is accepted; illegal actions
//! are refused with a typed error and change nothing; `execute` equals `decide` + `apply`;
//! a hand written as PHH replays to the same stacks.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use league_engine::hand::{self, Action, Command, Event, HandState, Phase, RuleError};
use league_engine::phh;
use league_engine::rules::Preset;
use league_engine::sim::Simulator;
use proptest::prelude::*;

fn preset() -> impl Strategy<Value = Preset> {
    prop::sample::select(Preset::ALL.to_vec())
}

/// The actions the engine offers at this state, at their edges.
fn offered(state: &HandState) -> Vec<Action> {
    let Some(legal) = state.legal_actions() else {
        return Vec::new();
    };
    let mut actions = vec![Action::Fold];
    if legal.can_check {
        actions.push(Action::Check);
    }
    if legal.call.is_some() {
        actions.push(Action::Call);
    }
    if let Some(range) = legal.bet_or_raise {
        let wager = |to| {
            if range.raise {
                Action::RaiseTo(to)
            } else {
                Action::Bet(to)
            }
        };
        actions.push(wager(range.min));
        actions.push(wager(range.max));
        actions.push(wager(range.min + (range.max - range.min) / 2));
        actions.push(Action::AllIn);
    }
    actions
}

/// Commands that must be refused at this state.
fn illegal(state: &HandState) -> Vec<(Command, &'static str)> {
    let mut out = Vec::new();
    if let Some(legal) = state.legal_actions() {
        let seat = legal.seat;
        let other = state.seats_in_order().find(|&s| s != seat).unwrap();
        out.push((
            Command::Act {
                seat: other,
                action: Action::Call,
            },
            "another seat acts",
        ));
        out.push((
            Command::Act {
                seat: 42,
                action: Action::Fold,
            },
            "no such seat",
        ));
        if !legal.can_check {
            out.push((
                Command::Act {
                    seat,
                    action: Action::Check,
                },
                "check facing a bet",
            ));
        }
        match legal.bet_or_raise {
            Some(range) => {
                let wager = |to| {
                    if range.raise {
                        Action::RaiseTo(to)
                    } else {
                        Action::Bet(to)
                    }
                };
                out.push((
                    Command::Act {
                        seat,
                        action: wager(range.max + 1),
                    },
                    "more than the stack",
                ));
                // A wrong kind of wager: a bet when one is facing, a raise when none is.
                let wrong = if range.raise {
                    Action::Bet(range.min)
                } else {
                    Action::RaiseTo(range.min)
                };
                out.push((
                    Command::Act {
                        seat,
                        action: wrong,
                    },
                    "wrong wager kind",
                ));
            }
            None => out.push((
                Command::Act {
                    seat,
                    action: Action::RaiseTo(state.current_bet() * 2 + 1_000_000),
                },
                "raise when raising is closed",
            )),
        }
        out.push((Command::Show { seat, cards: None }, "show while betting"));
    }
    out.push((
        Command::DealBoard { cards: Vec::new() },
        "board in a seeded hand",
    ));
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_hands_keep_every_invariant(seed in any::<u64>(), preset in preset()) {
        let mut sim = Simulator::new(seed, preset.rules());
        let (mut setup, deck_seed) = sim.table();
        // One table in four has absent players: dealt in, blinded, folded.
        if seed % 4 == 0 {
            for (i, s) in setup.seats.iter_mut().enumerate() {
                s.absent = (seed >> (8 + i)) & 3 == 0;
            }
        }
        let total: u64 = setup.seats.iter().map(|s| s.stack).sum();
        let mut state = HandState::new();
        let mut command = Command::Start { setup, seed: Some(deck_seed) };
        let mut steps = 0;
        loop {
            // Every offered action is accepted.
            for action in offered(&state) {
                let seat = state.to_act().unwrap();
                let decided = hand::decide(&state, &Command::Act { seat, action });
                prop_assert!(decided.is_ok(), "offered {action:?} refused: {decided:?}");
            }
            // Illegal commands are refused with a typed error and change nothing.
            for (bad, why) in illegal(&state) {
                let mut copy = state;
                let mut events = Vec::new();
                let refused = hand::execute(&mut copy, &bad, &mut events);
                prop_assert!(refused.is_err(), "{why}: {bad:?} was accepted");
                prop_assert_eq!(copy, state);
                prop_assert!(events.is_empty());
            }
            let events = hand::decide(&state, &command).map_err(|e| {
                TestCaseError::fail(format!("{command:?}: {e}"))
            })?;
            let mut fast = state;
            let mut replayed = Vec::new();
            hand::execute(&mut fast, &command, &mut replayed).unwrap();
            prop_assert_eq!(&replayed, &events);
            for event in &events {
                hand::apply(&mut state, event);
                if let Err(broken) = state.check_invariants() {
                    return Err(TestCaseError::fail(format!("after {event:?}: {broken}")));
                }
            }
            prop_assert_eq!(fast, state, "execute and decide + apply disagree");
            steps += 1;
            prop_assert!(steps < 500, "the hand does not end");
            match sim.next_command(&state) {
                Some(next) => command = next,
                None => break,
            }
        }
        prop_assert_eq!(state.phase(), Phase::Complete);
        prop_assert_eq!(state.stacks().map(|(_, s)| s).sum::<u64>(), total);
        prop_assert_eq!(state.pot_total(), 0);
    }

    #[test]
    fn a_hand_written_as_phh_replays_to_the_same_stacks(seed in any::<u64>(), preset in preset()) {
        let mut sim = Simulator::new(seed, preset.rules());
        let events = sim.play().unwrap();
        let text = phh::write(&events).unwrap();
        let parsed = phh::parse(&text).unwrap();
        let replayed = phh::replay(&parsed, preset.rules())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let recorded = phh::expected_stacks(parsed.finishing_stacks.as_ref().unwrap());
        prop_assert_eq!(replayed.stacks, recorded);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// A hand the engine played is decided again to the same events (`hand::rederive`, what
    /// `league audit verify` runs on every hand of the log); changing any figure the engine
    /// decided (a pot, a final stack, a dealt card) is caught at or before that event.
    #[test]
    fn a_played_hand_rederives_and_a_changed_outcome_is_caught(
        seed in any::<u64>(),
        preset in preset(),
        pick in any::<usize>(),
    ) {
        let mut sim = Simulator::new(seed, preset.rules());
        let events = sim.play().unwrap();
        prop_assert_eq!(hand::rederive(&events), Ok(()));
        let changeable: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| match e {
                Event::PotAwarded { .. } | Event::HandEnded { .. } | Event::HoleCardsDealt { .. } => true,
                Event::BoardDealt { cards, .. } => cards.len() > 1,
                _ => false,
            })
            .map(|(i, _)| i)
            .collect();
        let at = changeable[pick % changeable.len()];
        let mut changed = events.clone();
        match &mut changed[at] {
            Event::PotAwarded { amount, shares, .. } => {
                *amount += 1;
                shares[0].amount += 1;
            }
            Event::HandEnded { stacks, .. } => stacks[0].amount += 1,
            Event::HoleCardsDealt { cards, .. } => cards.swap(0, 1),
            Event::BoardDealt { cards, .. } => cards.reverse(),
            _ => unreachable!(),
        }
        let caught = hand::rederive(&changed);
        prop_assert!(caught.is_err(), "a change at event {} went unseen", at);
        prop_assert!(caught.unwrap_err().index <= at);
    }
}

/// A line of a hand history a hostile file might hold instead of the real one.
fn hostile_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("antes = [18446744073709551615, 1]".to_owned()),
        Just("starting_stacks = [-1, 0]".to_owned()),
        Just("blinds_or_straddles = [0, 0]".to_owned()),
        Just("min_bet = 0".to_owned()),
        Just("actions = ['d dh p1 ????', 'p9 cbr 99999999999999999999']".to_owned()),
        Just(format!("actions = [{}]", "'p1 cc', ".repeat(5_000))),
        Just(format!("players = [{}]", "'x', ".repeat(1_000))),
        Just("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".repeat(50)),
        Just(format!("players = {}", "[".repeat(5_000))),
        "[ -~]{0,60}",
        ".{0,60}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn arbitrary_text_never_panics_the_phh_reader(text in ".{0,400}") {
        let read = phh::parse(&text).and_then(|hand| phh::replay(&hand, Preset::Wsop.rules()));
        if let Err(refused) = read {
            assert_coded(&refused, &text)?;
        }
    }

    /// A real hand history with lines replaced, removed or added (huge numbers, negative
    /// stacks, thousands of actions or players, deep brackets) is read and replayed to an
    /// answer or refused, never a panic.
    #[test]
    fn edited_hand_histories_never_panic_the_phh_reader(
        seed in any::<u64>(),
        preset in preset(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3u8, hostile_line()), 1..4),
    ) {
        let mut sim = Simulator::new(seed, preset.rules());
        let events = sim.play().unwrap();
        let text = phh::write(&events).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        for (at, how, line) in edits {
            let i = at.index(lines.len() + 1);
            match how {
                0 if i < lines.len() => lines[i] = line,
                1 if i < lines.len() => {
                    lines.remove(i);
                }
                _ => lines.insert(i, line),
            }
        }
        let text = lines.join("\n");
        let read = phh::parse(&text).and_then(|hand| phh::replay(&hand, preset.rules()));
        if let Err(refused) = read {
            assert_coded(&refused, &text)?;
        }
    }
}

/// A refusal a hand-history reader gives of `text`: one of the documented codes, and a
/// message in words (not empty, no Rust debug text such as `Some(..)` unless the file itself
/// holds it and the message quotes it).
fn assert_coded(refused: &phh::PhhError, text: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        phh::PhhError::CODES.contains(&refused.code()),
        "{refused:?}"
    );
    let message = refused.to_string();
    prop_assert!(!message.trim().is_empty(), "{refused:?}");
    for debug in ["Some(", "None", "Ok(", "Err("] {
        prop_assert!(
            !message.contains(debug) || text.contains(debug),
            "{debug} in {message:?}"
        );
    }
    Ok(())
}

/// A skipped field's arrays nested 200,000 deep are refused at the nesting limit (before
/// this limit, the reader recursed per bracket and overflowed the stack); a file over the
/// size limit is refused unread.
#[test]
fn deep_arrays_and_huge_files_are_refused_by_the_phh_reader() {
    let deep = format!("players = {}", "[".repeat(200_000));
    let refused = phh::parse(&deep).unwrap_err();
    assert_eq!(refused.code(), "PHH_SYNTAX");
    let err = refused.to_string();
    assert!(err.contains("nested deeper than 16"), "{err}");
    let nested_ok = format!("players = {}{}\n", "[".repeat(16), "]".repeat(16));
    let err = phh::parse(&nested_ok).unwrap_err().to_string();
    assert!(!err.contains("nested"), "{err}");
    let huge = format!("variant = 'NT'\n# {}", "x".repeat(phh::MAX_BYTES));
    let refused = phh::parse(&huge).unwrap_err();
    assert_eq!(refused.code(), "PHH_TOO_LARGE");
    let err = refused.to_string();
    assert!(err.contains("a hand history is at most 1048576"), "{err}");
}

#[test]
fn a_refusal_names_the_rule_and_the_numbers() {
    let mut sim = Simulator::new(7, Preset::Wsop.rules());
    let (setup, seed) = sim.table();
    let mut state = HandState::new();
    let mut events = Vec::new();
    hand::execute(
        &mut state,
        &Command::Start {
            setup: setup.clone(),
            seed: Some(seed),
        },
        &mut events,
    )
    .unwrap();
    // A second start is refused.
    assert_eq!(
        hand::decide(
            &state,
            &Command::Start {
                setup,
                seed: Some(seed)
            }
        ),
        Err(RuleError::AlreadyStarted)
    );
}

#[test]
fn absurd_amounts_are_refused_or_played_without_overflow() {
    use league_engine::hand::{AnteStructure, Dealing, HandSetup, SeatSetup};
    let seats = vec![
        SeatSetup {
            seat: 0,
            stack: u64::MAX / 4,
            absent: false,
        },
        SeatSetup {
            seat: 1,
            stack: u64::MAX / 4,
            absent: false,
        },
        SeatSetup {
            seat: 2,
            stack: 10,
            absent: false,
        },
    ];
    let setup = HandSetup::standard(
        2,
        seats,
        u64::MAX / 4,
        u64::MAX,
        AnteStructure::Uniform(u64::MAX),
        None,
        Dealing::Recorded,
        Preset::Wsop.rules(),
    )
    .unwrap();
    let mut state = HandState::new();
    let mut events = Vec::new();
    hand::execute(
        &mut state,
        &Command::Start { setup, seed: None },
        &mut events,
    )
    .unwrap();
    state.check_invariants().unwrap();
    // Everyone was all-in on the antes: the hand waits for the board, nothing overflowed.
    for action in [
        Action::RaiseTo(u64::MAX),
        Action::Bet(u64::MAX),
        Action::AllIn,
    ] {
        if let Some(seat) = state.to_act() {
            let _ = hand::decide(&state, &Command::Act { seat, action });
        }
    }
    // Over-large stacks are refused, not wrapped.
    let seats = vec![
        SeatSetup {
            seat: 0,
            stack: u64::MAX,
            absent: false,
        },
        SeatSetup {
            seat: 1,
            stack: 1,
            absent: false,
        },
    ];
    let setup = HandSetup::standard(
        1,
        seats,
        1,
        2,
        AnteStructure::None,
        None,
        Dealing::Recorded,
        Preset::Wsop.rules(),
    )
    .unwrap();
    assert!(matches!(
        hand::decide(&HandState::new(), &Command::Start { setup, seed: None }),
        Err(RuleError::BadSetup(_))
    ));
}
