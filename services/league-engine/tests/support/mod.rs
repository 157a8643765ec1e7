//! A small table harness: seats `0..n` with the button in the last seat, so seat 0 is the
//! first to act after the flop (`p1` in PHH terms) and the rulebooks' players A, B, C ...
//! can be put in the seats in acting order.

#![allow(dead_code, reason = "each test file uses part of the harness")]

use league_engine::card::{Card, parse_cards};
use league_engine::hand::{
    self, Action, AnteStructure, Command, Dealing, Event, HandSetup, HandState, RuleError,
    SeatSetup,
};
use league_engine::rules::HouseRules;

pub struct Table {
    pub state: HandState,
    pub events: Vec<Event>,
}

pub fn seats(stacks: &[u64]) -> Vec<SeatSetup> {
    stacks
        .iter()
        .enumerate()
        .map(|(i, &stack)| SeatSetup {
            seat: u8::try_from(i).unwrap(),
            stack,
            absent: false,
        })
        .collect()
}

impl Table {
    /// A recorded-cards hand with blinds `sb`/`bb`, the button in the last seat.
    pub fn new(rules: HouseRules, stacks: &[u64], sb: u64, bb: u64) -> Table {
        let button = u8::try_from(stacks.len() - 1).unwrap();
        let setup = HandSetup::standard(
            button,
            seats(stacks),
            sb,
            bb,
            AnteStructure::None,
            None,
            Dealing::Recorded,
            rules,
        )
        .unwrap();
        Table::start(setup)
    }

    pub fn start(setup: HandSetup) -> Table {
        let mut table = Table {
            state: HandState::new(),
            events: Vec::new(),
        };
        table.send(Command::Start { setup, seed: None }).unwrap();
        table
    }

    /// Sends a command; on success applies its events one by one, checking the
    /// invariants after each; on refusal checks that nothing changed.
    pub fn send(&mut self, command: Command) -> Result<Vec<Event>, RuleError> {
        let before = self.state;
        match hand::decide(&self.state, &command) {
            Ok(events) => {
                for event in &events {
                    hand::apply(&mut self.state, event);
                    self.state
                        .check_invariants()
                        .unwrap_or_else(|e| panic!("after {event:?}: {e}"));
                }
                self.events.extend(events.iter().cloned());
                Ok(events)
            }
            Err(error) => {
                assert_eq!(self.state, before, "a refusal changed the state");
                Err(error)
            }
        }
    }

    pub fn act(&mut self, seat: u8, action: Action) -> Result<Vec<Event>, RuleError> {
        self.send(Command::Act { seat, action })
    }

    /// Acts, panicking with the refusal if the engine refuses.
    pub fn ok(&mut self, seat: u8, action: Action) -> Vec<Event> {
        self.act(seat, action)
            .unwrap_or_else(|e| panic!("seat {seat} {action:?} refused: {e}"))
    }

    pub fn board(&mut self, cards: &str) {
        self.send(Command::DealBoard {
            cards: parse_cards(cards).unwrap(),
        })
        .unwrap();
    }

    pub fn hole(&mut self, seat: u8, cards: &str) {
        let cards = parse_cards(cards).unwrap();
        self.send(Command::DealHole {
            seat,
            cards: [cards[0], cards[1]],
        })
        .unwrap();
    }

    /// Everyone calls the big blind and the big blind checks; then the flop.
    pub fn limp_to_flop(&mut self, flop: &str) {
        while let Some(legal) = self.state.legal_actions() {
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Call
            };
            self.ok(legal.seat, action);
        }
        self.board(flop);
    }

    pub fn stack(&self, seat: u8) -> u64 {
        self.state.stack(seat).unwrap()
    }

    pub fn to_act(&self) -> Option<u8> {
        self.state.to_act()
    }
}

pub fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).unwrap()
}

/// Runs PokerKit (`../shared/tools/phh_check.py`) on the `written` PHH files in `dir`: it
/// must agree on every one and repair none.
pub fn pokerkit_agrees(dir: &std::path::Path, written: usize) {
    let shared = match std::env::var_os("LEAGUE_SHARED_DIR") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    let output = std::process::Command::new("python3")
        .arg(shared.join("tools/phh_check.py"))
        .arg(dir)
        .arg("--quiet")
        .output()
        .expect("python3 must be installed to run PokerKit, the referee");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "phh_check.py failed (is PokerKit installed? `pip install pokerkit`):\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(&format!(
            "AGREE: {written}   DIFFER: 0   LOAD_FAIL (failed to load): 0   REPLAY_FAIL: 0"
        )),
        "PokerKit disagrees:\n{stdout}"
    );
    assert!(
        !stdout.contains("repaired"),
        "PokerKit repaired hands:\n{stdout}"
    );
}

/// Sends `command` to a hand played outside a [`Table`]: when the engine takes it, its
/// events are applied to `state`, the invariants checked after each, and appended to
/// `events`. Returns whether it was taken.
pub fn try_command(state: &mut HandState, events: &mut Vec<Event>, command: &Command) -> bool {
    let Ok(decided) = hand::decide(state, command) else {
        return false;
    };
    for event in decided {
        hand::apply(state, &event);
        state
            .check_invariants()
            .unwrap_or_else(|e| panic!("after {event:?}: {e}"));
        events.push(event);
    }
    true
}

/// A finished hand: every chip it started with ends in a stack, and it re-derives from its
/// events.
pub fn keeps_its_chips(events: &[Event]) {
    let Some(Event::HandStarted { setup }) = events.first() else {
        panic!("no start");
    };
    let started: u64 = setup.seats.iter().map(|s| s.stack).sum();
    let Some(Event::HandEnded { stacks, .. }) = events.last() else {
        panic!("no end");
    };
    assert_eq!(stacks.iter().map(|s| s.amount).sum::<u64>(), started);
    hand::rederive(events).unwrap();
}

/// A xorshift generator from `seed`: each call gives a number below `n`.
pub fn roller(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % u64::try_from(n).unwrap()).unwrap()
    }
}
