//! A call ruled not binding (`Command::RetractCall`): QueenSix NLHE 10, "a 'call' may be
//! ruled not binding if it is obvious that the player grossly misunderstood the amount
//! wagered", and its example 10.1. The call's chips go back and the hand is folded; a bet
//! it leaves uncalled goes back to the bettor. Every other house's book makes a call
//! binding. Hand histories record the call as the fold it became, and PokerKit, the
//! referee, replays 1,000 random hands with calls retracted in them (needs `python3` with
//! PokerKit).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
mod support;

use league_engine::hand::{self, Action, Command, Event, RuleError, Seat};
use league_engine::phh;
use league_engine::rules::{HouseRules, Preset};
use league_engine::sim::Simulator;
use support::{Table, keeps_its_chips, pokerkit_agrees, try_command};

const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;

fn retract(t: &mut Table, seat: Seat) -> Result<Vec<Event>, RuleError> {
    t.send(Command::RetractCall {
        seat,
        reason: "said four hundred softly; the caller put in a 100 chip and said call".into(),
    })
}

/// Three players A-C (C on the button) holding aces, kings and 7-2; everyone limps, C
/// folds on the flop, and A and B check to the river of 9c 7d 4h Jc 5s. The pot is 300.
fn two_on_the_river(rules: HouseRules) -> Table {
    let mut t = Table::new(rules, &[5_000; 3], 50, 100);
    for (seat, cards) in [(A, "2s2h"), (B, "KsKh"), (C, "7c2d")] {
        t.hole(seat, cards);
    }
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    t.ok(C, Action::Fold);
    t.board("Jc");
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    t.board("5s");
    t
}

/// NLHE 10.1: "On the end, a player puts a 500 chip into the pot and says softly, 'Four
/// hundred.' The opponent puts a 100 chip into the pot and says, 'Call.' The bettor
/// immediately shows the hand. ... the recommended ruling normally is that the bettor had
/// an obligation to not show the hand when the amount put into the pot was obviously
/// short, and the 'call' can be retracted." A bets 400 on the river, B's call is entered,
/// A shows: the floor rules the call not binding. B's 400 goes back and B's hand is
/// folded; A's bet, uncalled now, goes back, and A wins the 300 in the pot.
#[test]
fn queensix_nlhe_10_1_a_call_on_a_gross_misunderstanding_of_the_amount_is_retracted() {
    let mut t = two_on_the_river(HouseRules::queensix());
    t.ok(A, Action::Bet(400));
    t.ok(B, Action::Call);
    assert_eq!(t.state.to_show(), Some(A), "the showdown has begun");
    t.send(Command::Show {
        seat: A,
        cards: None,
    })
    .unwrap();
    assert_eq!(t.state.to_show(), Some(B));
    let events = retract(&mut t, B).unwrap();
    assert!(
        matches!(
            &events[..],
            [
                Event::CallRetracted {
                    seat: B,
                    amount: 400,
                    ..
                },
                Event::UncalledBetReturned {
                    seat: A,
                    amount: 400
                },
                Event::PotAwarded { amount: 300, shares, .. },
                Event::HandEnded { .. },
            ] if shares.len() == 1 && shares[0].seat == A
        ),
        "{events:?}"
    );
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [5_200, 4_900, 4_900]);
    hand::rederive(&t.events).unwrap();
    // A hand history folds B where the call was.
    let text = phh::write(&t.events).unwrap();
    assert!(text.contains("'p1 cbr 400', 'p2 f']"), "{text}");
    pokerkit_replays(&t, "retracted-showdown");
    // Nothing more once the hand is over.
    assert_eq!(retract(&mut t, B), Err(RuleError::HandOver));
}

/// With more hands in, the retraction takes only the caller out: A bets 300 on the flop,
/// B calls and is ruled not binding before C acts; C still faces the bet, and when C
/// folds A's bet goes back and A takes the pot.
#[test]
fn queensix_nlhe_10_a_retracted_call_folds_only_the_caller_and_the_betting_goes_on() {
    let mut t = Table::new(HouseRules::queensix(), &[5_000; 4], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Bet(300));
    t.ok(B, Action::Call);
    assert_eq!(t.to_act(), Some(C));
    let events = retract(&mut t, B).unwrap();
    assert!(
        matches!(
            &events[..],
            [Event::CallRetracted {
                seat: B,
                amount: 300,
                ..
            }]
        ),
        "{events:?}"
    );
    assert!(!t.state.is_live(B));
    assert_eq!(t.stack(B), 4_900, "B's call is back, the limp stays in");
    assert_eq!(t.to_act(), Some(C), "C still faces A's bet");
    t.ok(C, Action::Call);
    t.ok(D, Action::Fold);
    assert_eq!(t.state.pot_total(), 1_000, "4 limps and two bets of 300");
    t.board("Ks");
    t.ok(A, Action::Check);
    t.ok(C, Action::Check);
    t.board("2h");
    t.ok(A, Action::Bet(500));
    t.ok(C, Action::Fold);
    assert!(t.state.is_over());
    assert_eq!(
        [t.stack(A), t.stack(B), t.stack(C), t.stack(D)],
        [5_600, 4_900, 4_600, 4_900]
    );
    hand::rederive(&t.events).unwrap();
    pokerkit_replays(&t, "retracted-flop");
}

/// What the ruling cannot reach: a check; a call the action has moved past (a raise
/// after it, or the next street dealt); a hand folded or tabled face up; and every other
/// house, whose book makes a call binding. Each refusal changes nothing.
#[test]
fn queensix_nlhe_10_only_a_call_the_action_has_not_moved_past_is_retracted() {
    for (preset, rules) in [
        (Preset::Wph, HouseRules::wph()),
        (Preset::Oracle, HouseRules::oracle()),
        (Preset::Invitational, HouseRules::invitational()),
        (Preset::Hippodrome, HouseRules::hippodrome()),
        (Preset::Wsop, HouseRules::wsop()),
    ] {
        let mut t = two_on_the_river(rules);
        t.ok(A, Action::Bet(400));
        t.ok(B, Action::Call);
        assert_eq!(retract(&mut t, B), Err(RuleError::CallsBind { preset }));
    }
    let no_call = |why: &'static str| RuleError::NoCallToRetract { seat: B, why };
    // A check.
    let mut t = Table::new(HouseRules::queensix(), &[5_000; 4], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    assert_eq!(
        retract(&mut t, B),
        Err(no_call(
            "it made no call on this street that no bet or raise has followed"
        ))
    );
    // A call a raise has followed.
    t.ok(C, Action::Bet(200));
    t.ok(D, Action::Call);
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    assert!(
        retract(&mut t, A).is_ok(),
        "A's call, followed only by a call, can be ruled not binding"
    );
    let mut t = Table::new(HouseRules::queensix(), &[5_000; 4], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Bet(200));
    t.ok(B, Action::Call);
    t.ok(C, Action::RaiseTo(600));
    assert_eq!(
        retract(&mut t, B),
        Err(no_call(
            "it made no call on this street that no bet or raise has followed"
        ))
    );
    // A call on the flop, once the turn is dealt.
    let mut t = Table::new(HouseRules::queensix(), &[5_000; 4], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Bet(200));
    t.ok(B, Action::Call);
    t.ok(C, Action::Fold);
    t.ok(D, Action::Fold);
    t.board("Ks");
    assert_eq!(
        retract(&mut t, B),
        Err(no_call(
            "it made no call on this street that no bet or raise has followed"
        ))
    );
    // A folded hand; a hand tabled face up.
    assert_eq!(retract(&mut t, C), Err(RuleError::NoLiveHand { seat: C }));
    let mut t = two_on_the_river(HouseRules::queensix());
    t.ok(A, Action::Bet(400));
    t.ok(B, Action::Call);
    t.send(Command::Show {
        seat: A,
        cards: None,
    })
    .unwrap();
    // B shows too: the pot is awarded at once.
    t.send(Command::Show {
        seat: B,
        cards: None,
    })
    .unwrap();
    assert!(t.state.is_over());
    assert_eq!(retract(&mut t, B), Err(RuleError::HandOver));
    // The bettor mucked: the caller's is the last hand in, and the pot is its.
    let mut t = two_on_the_river(HouseRules::queensix());
    t.ok(A, Action::Bet(400));
    t.ok(B, Action::Call);
    t.send(Command::Muck { seat: A }).unwrap();
    assert_eq!(
        retract(&mut t, B),
        Err(no_call("it is the last hand still in, and the pot is its"))
    );
    // Tabled with the pot impounded: read as it stands.
    let mut t = two_on_the_river(HouseRules::queensix());
    t.send(Command::Impound {
        reason: "B disputes the bet's amount".into(),
    })
    .unwrap();
    t.ok(A, Action::Bet(400));
    t.ok(B, Action::Call);
    for seat in [A, B] {
        t.send(Command::Show { seat, cards: None }).unwrap();
    }
    assert_eq!(
        retract(&mut t, B),
        Err(no_call("the hand is tabled face up"))
    );
}

/// Random QueenSix hands (odd chips in PokerKit's order) in which, after each command, the floor may rule a random live
/// hand's call not binding (the engine refuses what the rule does not reach). Every hand
/// re-derives from its events; written as PHH, each retracted call is a fold where it was
/// made, and PokerKit (`../shared/tools/phh_check.py`) agrees on every file, repairing
/// none.
#[test]
fn pokerkit_agrees_on_hands_with_calls_retracted() {
    let dir = std::env::temp_dir().join(format!("league-retracted-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // QueenSix's rules, but split pots' odd chips as PokerKit gives them (the referee
    // knows no house's odd-chip order).
    let mut rules = HouseRules::queensix();
    rules.odd_chip = HouseRules::wsop().odd_chip;
    let mut sim = Simulator::new(11, rules);
    let mut roll = support::roller(0x2545_f491_4f6c_dd1d);
    let (mut written, mut retracted, mut at_showdown) = (0, 0, 0);
    for _ in 0..1000 {
        let (setup, seed) = sim.table();
        let mut state = hand::HandState::new();
        let mut events: Vec<Event> = Vec::new();
        let mut next = Some(Command::Start {
            setup,
            seed: Some(seed),
        });
        while let Some(command) = next {
            for event in hand::decide(&state, &command).unwrap() {
                hand::apply(&mut state, &event);
                events.push(event);
            }
            let live: Vec<Seat> = state
                .seats_in_order()
                .filter(|s| state.is_live(*s))
                .collect();
            // Rarer at the showdown (a call must have closed the river): tried more there.
            let chance = if state.to_show().is_some() { 90 } else { 30 };
            if !state.is_over() && !live.is_empty() && roll(100) < chance {
                let seat = live[roll(live.len())];
                let ruling = Command::RetractCall {
                    seat,
                    reason: "misheard the bet".into(),
                };
                let at_the_showdown = state.to_show().is_some();
                if try_command(&mut state, &mut events, &ruling) {
                    retracted += 1;
                    if at_the_showdown {
                        at_showdown += 1;
                    }
                }
            }
            next = sim.next_command(&state);
        }
        assert!(state.is_over());
        keeps_its_chips(&events);
        let text = phh::write(&events).unwrap_or_else(|e| {
            for ev in &events {
                eprintln!("{ev:?}");
            }
            panic!("{e}")
        });
        std::fs::write(dir.join(format!("{written:04}.phh")), text).unwrap();
        written += 1;
    }
    eprintln!(
        "{written} hands written, {retracted} calls retracted ({at_showdown} at the showdown)"
    );
    assert!(retracted >= 100, "{retracted} calls retracted");
    assert!(
        at_showdown >= 10,
        "{at_showdown} calls retracted at the showdown"
    );
    pokerkit_agrees(&dir, written);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes the hand as PHH and has PokerKit replay it.
fn pokerkit_replays(t: &Table, name: &str) {
    let dir = std::env::temp_dir().join(format!("league-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("0.phh"), phh::write(&t.events).unwrap()).unwrap();
    pokerkit_agrees(&dir, 1);
    let _ = std::fs::remove_dir_all(&dir);
}
