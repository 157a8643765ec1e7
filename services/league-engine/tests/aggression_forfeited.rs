//! A player's aggressive action taken away for the rest of the hand
//! (`Command::ForfeitAggression`): Oracle's exposing cards 1 and 2 ("A player who exposes a
//! card immediately after making bet will be penalized for the remainder of the hand";
//! "Where a player exposes a card after betting ... and causes another player to act, the
//! bet will stand. This player will be penalized for the remainder of the hand") and
//! four-card flop 3.5 (the penalty: "By not being allowed to make any aggressive action");
//! Hippodrome's irregularities 9 ("A card that is flashed by a player will continue to be a
//! played hand, however the player will lose all aggressive action for the whole hand") and
//! showdown 5 ("If a player exposes one or both of their cards, they lose aggressive action
//! for the remainder of the hand"). The other houses' books have no such penalty. PokerKit,
//! the referee, replays 1,000 random hands with the penalty given in them (needs `python3`
//! with PokerKit).

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

fn forfeit(t: &mut Table, seat: Seat) -> Result<Vec<Event>, RuleError> {
    t.send(Command::ForfeitAggression {
        seat,
        reason: "turned a card face up after betting".into(),
    })
}

/// Oracle exposing cards 2: four players limp to the flop; A bets 300, B calls, and A
/// turns a card up as C considers. The bet stands (C and D still face it), and A may not
/// bet or raise again in the hand: not when the flop comes back to A after C's raise, not
/// on the turn. A may still call, check and fold.
#[test]
fn oracle_exposing_cards_2_the_bet_stands_and_the_player_makes_no_aggressive_action_for_the_hand() {
    let mut t = Table::new(HouseRules::oracle(), &[5_000; 4], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Bet(300));
    t.ok(B, Action::Call);
    let events = forfeit(&mut t, A).unwrap();
    assert!(
        matches!(&events[..], [Event::AggressionForfeited { seat: A, .. }]),
        "{events:?}"
    );
    assert_eq!(t.to_act(), Some(C), "the ruling takes no one's turn");
    assert_eq!(t.stack(A), 4_600, "the bet stands");
    t.ok(C, Action::RaiseTo(900));
    t.ok(D, Action::Fold);
    assert_eq!(t.to_act(), Some(A));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.call, Some(600));
    assert_eq!(legal.bet_or_raise, None, "A may not re-raise");
    assert_eq!(
        t.act(A, Action::RaiseTo(2_000)),
        Err(RuleError::AggressionLost { seat: A })
    );
    assert_eq!(
        t.act(A, Action::AllIn),
        Err(RuleError::AggressionLost { seat: A }),
        "an all-in over the bet is a raise"
    );
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    t.board("Jc");
    // The next street: A may check, never bet.
    assert_eq!(t.to_act(), Some(A));
    let legal = t.state.legal_actions().unwrap();
    assert!(legal.can_check);
    assert_eq!(legal.bet_or_raise, None);
    assert_eq!(
        t.act(A, Action::Bet(500)),
        Err(RuleError::AggressionLost { seat: A })
    );
    t.ok(A, Action::Check);
    // Everyone else keeps their aggressive action.
    assert!(t.state.legal_actions().unwrap().bet_or_raise.is_some());
    t.ok(B, Action::Bet(500));
    t.ok(C, Action::Call);
    assert_eq!(t.state.legal_actions().unwrap().bet_or_raise, None);
    t.ok(A, Action::Call);
    hand::rederive(&t.events).unwrap();
}

/// Oracle exposing cards 1: A bets 300 on the flop and shows a card at once, before anyone
/// acts. The penalty is the same: A is still in, facing whatever comes, and calls D's
/// all-in rather than raising over it (C, who called, could still call a raise).
#[test]
fn oracle_exposing_cards_1_a_card_exposed_right_after_a_bet_costs_the_aggressive_action() {
    let mut t = Table::new(HouseRules::oracle(), &[5_000, 5_000, 5_000, 2_000], 50, 100);
    t.limp_to_flop("9c7d4h");
    t.ok(A, Action::Bet(300));
    forfeit(&mut t, A).unwrap();
    t.ok(B, Action::Fold);
    t.ok(C, Action::Call);
    t.ok(D, Action::AllIn);
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(
        (legal.seat, legal.call, legal.bet_or_raise),
        (A, Some(1_600), None)
    );
    t.ok(A, Action::Call);
    assert_eq!(t.stack(A), 3_000);
    hand::rederive(&t.events).unwrap();
}

/// Hippodrome irregularities 9 and showdown 5: a player who flashes a card before the flop
/// plays on but loses all aggressive action for the whole hand, at the cash table's house.
#[test]
fn hippodrome_irregularities_9_a_flashed_card_plays_but_loses_aggressive_action_for_the_hand() {
    let mut t = Table::new(HouseRules::hippodrome(), &[5_000; 4], 50, 100);
    // C, first to act before the flop, flashes a card.
    assert_eq!(t.to_act(), Some(C));
    forfeit(&mut t, C).unwrap();
    assert_eq!(t.state.legal_actions().unwrap().bet_or_raise, None);
    assert_eq!(
        t.act(C, Action::RaiseTo(300)),
        Err(RuleError::AggressionLost { seat: C })
    );
    t.ok(C, Action::Call);
    assert!(t.state.legal_actions().unwrap().bet_or_raise.is_some());
    t.ok(D, Action::Call);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    t.board("9c7d4h");
    for seat in [A, B] {
        t.ok(seat, Action::Check);
    }
    assert_eq!(t.to_act(), Some(C));
    assert_eq!(t.state.legal_actions().unwrap().bet_or_raise, None);
    t.ok(C, Action::Check);
    hand::rederive(&t.events).unwrap();
}

/// The penalty only where the book gives it, to a live hand with betting still to come,
/// once.
#[test]
fn aggressive_action_is_forfeited_only_at_oracle_and_hippodrome_to_a_live_hand_with_betting_left() {
    for (rules, preset) in [
        (HouseRules::queensix(), Preset::QueenSix),
        (HouseRules::wph(), Preset::Wph),
        (HouseRules::invitational(), Preset::Invitational),
    ] {
        let mut t = Table::new(rules, &[5_000; 4], 50, 100);
        assert_eq!(
            forfeit(&mut t, A),
            Err(RuleError::AggressionNotForfeited { preset })
        );
    }
    let mut t = Table::new(HouseRules::oracle(), &[5_000; 4], 50, 100);
    t.ok(C, Action::Fold);
    assert_eq!(forfeit(&mut t, C), Err(RuleError::NoLiveHand { seat: C }));
    forfeit(&mut t, A).unwrap();
    assert_eq!(
        forfeit(&mut t, A),
        Err(RuleError::NoAggressionToForfeit {
            seat: A,
            why: "it has already lost it for this hand"
        })
    );
    // All-in: no bet is left to take away.
    let mut t = Table::new(HouseRules::oracle(), &[5_000, 5_000, 800], 50, 100);
    t.ok(C, Action::AllIn);
    assert_eq!(
        forfeit(&mut t, C),
        Err(RuleError::NoAggressionToForfeit {
            seat: C,
            why: "it is all-in"
        })
    );
    // The river's betting over, the showdown next: nothing is left to bet.
    let mut t = Table::new(HouseRules::oracle(), &[5_000; 3], 50, 100);
    t.limp_to_flop("9c7d4h");
    for street in ["Jc", "5s"] {
        for seat in [A, B, C] {
            t.ok(seat, Action::Check);
        }
        t.board(street);
    }
    for seat in [A, B] {
        t.ok(seat, Action::Check);
    }
    assert!(forfeit(&mut t, C).is_ok(), "C still acts on the river");
    t.ok(C, Action::Check);
    assert_eq!(
        forfeit(&mut t, A),
        Err(RuleError::NoAggressionToForfeit {
            seat: A,
            why: "no betting remains in this hand"
        })
    );
    hand::rederive(&t.events).unwrap();
}

/// Random Oracle hands (odd chips in PokerKit's order) in which, after each command, the
/// floor may take a random live hand's aggressive action away (the engine refuses what the
/// rule does not reach). From then on the engine offers that player no bet or raise, and
/// refuses one; every hand re-derives from its events and keeps its chips; written as PHH
/// the penalty moves nothing, and PokerKit (`../shared/tools/phh_check.py`) agrees on every
/// file, repairing none.
#[test]
fn pokerkit_agrees_on_hands_with_aggressive_action_forfeited() {
    let dir = std::env::temp_dir().join(format!("league-forfeited-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rules = HouseRules::oracle();
    rules.odd_chip = HouseRules::wsop().odd_chip;
    let mut sim = Simulator::new(17, rules);
    let mut roll = support::roller(0x9e37_79b9_7f4a_7c15);
    let (mut written, mut forfeited, mut refused_raises) = (0, 0, 0);
    for _ in 0..1000 {
        let (setup, seed) = sim.table();
        let mut state = hand::HandState::new();
        let mut events: Vec<Event> = Vec::new();
        let mut passive: Vec<Seat> = Vec::new();
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
            if !state.is_over() && !live.is_empty() && roll(100) < 25 {
                let seat = live[roll(live.len())];
                let ruling = Command::ForfeitAggression {
                    seat,
                    reason: "flashed a card".into(),
                };
                if try_command(&mut state, &mut events, &ruling) {
                    forfeited += 1;
                    passive.push(seat);
                }
            }
            if let Some(legal) = state.legal_actions()
                && passive.contains(&legal.seat)
            {
                assert_eq!(legal.bet_or_raise, None, "{events:?}");
                let raise = if state.current_bet() > 0 {
                    Action::RaiseTo(state.current_bet() * 3)
                } else {
                    Action::Bet(state.current_bet().max(1_000))
                };
                assert_eq!(
                    hand::decide(
                        &state,
                        &Command::Act {
                            seat: legal.seat,
                            action: raise
                        }
                    ),
                    Err(RuleError::AggressionLost { seat: legal.seat })
                );
                refused_raises += 1;
            }
            state
                .check_invariants()
                .unwrap_or_else(|e| panic!("{e}: {events:?}"));
            next = sim.next_command(&state);
        }
        assert!(state.is_over());
        keeps_its_chips(&events);
        std::fs::write(
            dir.join(format!("{written:04}.phh")),
            phh::write(&events).unwrap(),
        )
        .unwrap();
        written += 1;
    }
    eprintln!(
        "{written} hands written, {forfeited} players' aggressive action forfeited, \
         {refused_raises} raises refused"
    );
    assert!(forfeited >= 300, "{forfeited} forfeited");
    assert!(refused_raises >= 300, "{refused_raises} raises refused");
    pokerkit_agrees(&dir, written);
    let _ = std::fs::remove_dir_all(&dir);
}
