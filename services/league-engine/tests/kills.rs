//! The floor kills a hand (`Command::Kill`): exposed, a clear intention to fold, fouled. In
//! or out of its turn the hand is folded at once, can win nothing, and leaves its chips in
//! the pot; the turn passes on when it was the killed hand's; a hand left alone wins, and
//! a killed hand's uncalled bet goes back to it (WPH 45: "if the player has bet or raised
//! and hasn't been called, the uncalled bet or raise will be returned to the player").
//! Hand histories fold a killed hand at its next turn, and PokerKit, the referee, replays
//! 1,000 random hands with hands killed in them (needs `python3` with PokerKit).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
mod support;

use league_engine::hand::{
    self, Action, Command, Event, FoldReason, KillCause, Phase, RuleError, Seat,
};
use league_engine::phh;
use league_engine::rules::HouseRules;
use league_engine::sim::Simulator;
use support::{Table, pokerkit_agrees};

const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;

fn kill(t: &mut Table, seat: Seat, cause: KillCause) -> Result<Vec<Event>, RuleError> {
    t.send(Command::Kill {
        seat,
        cause,
        reason: "both cards turned face up".into(),
    })
}

/// Four players A-D (D on the button), blinds 50/100, everyone limps to a flop of 2c 7d 9h.
fn four_on_the_flop(rules: HouseRules) -> Table {
    let mut t = Table::new(rules, &[5_000; 4], 50, 100);
    t.limp_to_flop("2c7d9h");
    t
}

#[test]
fn a_hand_killed_out_of_turn_is_folded_at_once_and_skipped_when_its_turn_comes() {
    // WPH 46 (a clear intention to fold), QueenSix Dead hand 1.6 (cards exposed to
    // influence the others), Oracle Dead hands 1.2 (cards thrown forward; killed as fouled).
    for (rules, cause) in [
        (HouseRules::wph(), KillCause::ClearIntent),
        (HouseRules::queensix(), KillCause::Exposed),
        (HouseRules::oracle(), KillCause::Fouled),
    ] {
        let mut t = four_on_the_flop(rules);
        t.ok(A, Action::Bet(300));
        assert_eq!(t.to_act(), Some(B));
        // C, not in turn: the floor kills C's hand.
        let events = kill(&mut t, C, cause).unwrap();
        assert_eq!(
            events,
            vec![Event::HandKilled {
                seat: C,
                cause,
                reason: "both cards turned face up".into(),
            }]
        );
        assert!(!t.state.is_live(C));
        assert_eq!(t.to_act(), Some(B), "B's turn is untouched");
        t.ok(B, Action::Call);
        assert_eq!(t.to_act(), Some(D), "C's turn is skipped");
        // Killed twice: refused, nothing changes.
        assert_eq!(
            kill(&mut t, C, cause),
            Err(RuleError::NoLiveHand { seat: C })
        );
        t.ok(D, Action::Fold);
        // A and B see the turn; C's 100 stays in the pot: 4 x 100 + 2 x 300.
        assert_eq!(t.state.pot_total(), 1_000);
        assert_eq!(t.stack(C), 4_900);
        t.board("Ks");
        assert_eq!(t.to_act(), Some(A));
    }
}

#[test]
fn a_hand_killed_in_its_turn_passes_the_turn_as_a_fold_would() {
    let mut t = four_on_the_flop(HouseRules::wph());
    t.ok(A, Action::Bet(300));
    kill(&mut t, B, KillCause::ClearIntent).unwrap();
    assert_eq!(t.to_act(), Some(C));
    assert_eq!(t.state.legal_actions().unwrap().call, Some(300));
}

#[test]
fn the_last_hand_left_wins_and_a_killed_bettors_uncalled_bet_goes_back() {
    // WPH 45: heads-up, A's bet is not called when A's hand is killed: B wins the pot and
    // A gets the 300 back.
    let mut t = Table::new(HouseRules::wph(), &[5_000, 5_000], 50, 100);
    t.limp_to_flop("2c7d9h");
    let first = t.to_act().unwrap();
    let other = 1 - first;
    t.ok(first, Action::Bet(300));
    let events = kill(&mut t, first, KillCause::Fouled).unwrap();
    assert!(events.contains(&Event::UncalledBetReturned {
        seat: first,
        amount: 300
    }));
    assert_eq!(t.state.phase(), Phase::Complete);
    assert_eq!(t.stack(first), 4_900);
    assert_eq!(t.stack(other), 5_100);
    // With other hands still in, an uncalled bet keeps the hand alive until it is called.
    let mut t = four_on_the_flop(HouseRules::wph());
    t.ok(A, Action::Bet(300));
    assert_eq!(
        kill(&mut t, A, KillCause::Fouled),
        Err(RuleError::UncalledBetPending { seat: A })
    );
    t.ok(B, Action::Call);
    kill(&mut t, A, KillCause::Fouled).unwrap();
    assert_eq!(t.to_act(), Some(C));
    t.ok(C, Action::Fold);
    let events = t.ok(D, Action::Fold);
    // B wins what A put in: 4 x 100 + 2 x 300.
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PotAwarded { amount: 1_000, shares, .. } if shares[0].seat == B
    )));
    assert_eq!(t.stack(B), 5_600);
    assert_eq!(t.stack(A), 4_600);
}

#[test]
fn a_hand_killed_at_the_showdown_leaves_the_order_and_wins_nothing() {
    let mut t = Table::new(HouseRules::oracle(), &[5_000; 3], 50, 100);
    t.hole(A, "AsAh");
    t.hole(B, "2c3d");
    t.hole(C, "KsKh");
    t.limp_to_flop("9c7d4h");
    for street in ["Jc", "5s"] {
        while let Some(legal) = t.state.legal_actions() {
            t.ok(legal.seat, Action::Check);
        }
        t.board(street);
    }
    while let Some(legal) = t.state.legal_actions() {
        t.ok(legal.seat, Action::Check);
    }
    assert_eq!(t.state.phase(), Phase::Showdown);
    // A holds the best hand, but it is fouled (a third card): dead.
    kill(&mut t, A, KillCause::Fouled).unwrap();
    while let Some(seat) = t.state.to_show() {
        assert_ne!(seat, A);
        t.send(Command::Show { seat, cards: None }).unwrap();
    }
    assert_eq!(t.state.phase(), Phase::Complete);
    assert_eq!(t.stack(C), 5_200);
    assert_eq!(t.stack(A), 4_900);
}

#[test]
fn a_killed_hand_with_an_out_of_turn_declaration_waiting_takes_it_with_it() {
    let mut t = four_on_the_flop(HouseRules::wph());
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::Call,
    })
    .unwrap();
    assert_eq!(t.state.out_of_turn(), Some((C, Action::Call)));
    kill(&mut t, C, KillCause::ClearIntent).unwrap();
    assert_eq!(t.state.out_of_turn(), None);
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    assert_eq!(t.to_act(), Some(D));
}

#[test]
fn nothing_is_killed_before_the_deal_or_after_the_hand() {
    // C on the button acts first before the flop.
    let mut t = Table::new(HouseRules::wph(), &[5_000; 3], 50, 100);
    t.ok(C, Action::Fold);
    assert_eq!(
        kill(&mut t, C, KillCause::Fouled),
        Err(RuleError::NoLiveHand { seat: C })
    );
    assert_eq!(
        kill(&mut t, 7, KillCause::Fouled),
        Err(RuleError::NoSuchSeat { seat: 7 })
    );
    t.ok(A, Action::Fold);
    assert!(t.state.is_over());
    assert_eq!(kill(&mut t, B, KillCause::Fouled), Err(RuleError::HandOver));
    let fresh = hand::HandState::new();
    assert_eq!(
        hand::decide(
            &fresh,
            &Command::Kill {
                seat: A,
                cause: KillCause::Fouled,
                reason: "x".into(),
            }
        ),
        Err(RuleError::NotStarted)
    );
}

/// A hand history has no ruling that kills a hand: the killed hand folds at its next turn,
/// which PokerKit takes as it takes any fold; killed after its last action, the hand has no
/// such form and the writer says so.
#[test]
fn a_hand_history_folds_the_killed_hand_at_its_turn() {
    let mut t = four_on_the_flop(HouseRules::wph());
    t.hole(A, "AsAh");
    t.hole(B, "3c4d");
    t.ok(A, Action::Bet(300));
    kill(&mut t, C, KillCause::ClearIntent).unwrap();
    t.ok(B, Action::Call);
    t.ok(D, Action::Fold);
    for card in ["Ks", "Qd"] {
        t.board(card);
        t.ok(A, Action::Check);
        t.ok(B, Action::Check);
    }
    while let Some(seat) = t.state.to_show() {
        let command = if seat == A {
            Command::Show { seat, cards: None }
        } else {
            Command::Muck { seat }
        };
        t.send(command).unwrap();
    }
    assert!(t.state.is_over());
    hand::rederive(&t.events).unwrap();
    let ordered = hand::in_turn_order(&t.events).unwrap();
    let folds: Vec<&Event> = ordered
        .iter()
        .filter(|e| matches!(e, Event::PlayerFolded { .. } | Event::HandKilled { .. }))
        .collect();
    // C's fold comes after B's call, at C's turn, before D's fold.
    assert_eq!(
        folds,
        vec![
            &Event::PlayerFolded {
                seat: C,
                reason: FoldReason::Folded
            },
            &Event::PlayerFolded {
                seat: D,
                reason: FoldReason::Folded
            },
        ]
    );
    let calls = ordered
        .iter()
        .position(|e| matches!(e, Event::PlayerCalled { seat: B, .. }))
        .unwrap();
    assert!(matches!(
        ordered[calls + 1],
        Event::PlayerFolded { seat: C, .. }
    ));
    let text = phh::write(&t.events).unwrap();
    assert!(text.contains("'p3 f'"), "{text}");

    // Killed on the turn after its last action there, the pot won by the hand left: no
    // hand history says that.
    let mut t = Table::new(HouseRules::wph(), &[5_000; 2], 50, 100);
    t.limp_to_flop("2c7d9h");
    let first = t.to_act().unwrap();
    t.ok(first, Action::Check);
    t.ok(1 - first, Action::Check);
    kill(&mut t, first, KillCause::ClearIntent).unwrap();
    assert!(t.state.is_over());
    hand::rederive(&t.events).unwrap();
    let refused = phh::write(&t.events).unwrap_err();
    assert!(refused.contains("no turn left"), "{refused}");
}

#[test]
fn hippodrome_dead_hands_3_and_irregularities_11_kill_hands_out_of_turn() {
    // Hippodrome Dead hands 3: "Cards thrown into another player's unprotected cards
    // automatically declare both hands dead." Irregularities 11: "If you drop any cards out
    // of your hand onto the floor, they will be shown to the table. The hand will be
    // declared dead."
    const E: u8 = 4;
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000; 5], 5, 10);
    assert_eq!(t.to_act(), Some(C), "first to act after the big blind");
    // D throws its cards into B's, the big blind's: both dead, neither in turn.
    kill(&mut t, D, KillCause::Fouled).unwrap();
    kill(&mut t, B, KillCause::Fouled).unwrap();
    assert_eq!(t.to_act(), Some(C));
    t.ok(C, Action::Call);
    assert_eq!(t.to_act(), Some(E), "D's turn passed over");
    // E drops a card face up in its turn: dead, as a fold.
    kill(&mut t, E, KillCause::Exposed).unwrap();
    assert_eq!(t.to_act(), Some(A));
    t.ok(A, Action::Call);
    // The big blind's option went with its hand: the flop is next, and its blind stays in
    // the pot with A's and C's calls.
    assert_eq!(
        t.state.awaiting_board(),
        Some(league_engine::hand::Street::Flop)
    );
    assert_eq!(t.state.pot_total(), 30);
    assert_eq!(t.stack(B), 990);
    t.board("2c7d9h");
    assert_eq!(t.to_act(), Some(A));
}

#[test]
fn wph_49_cards_exposed_with_action_pending_are_no_dead_hand() {
    // WPH 49: "A player who exposes his cards with action pending may incur a penalty, but
    // will not have a dead hand. The penalty will begin at the end of the hand."
    let mut t = four_on_the_flop(HouseRules::wph());
    t.ok(A, Action::Bet(300));
    assert_eq!(
        kill(&mut t, C, KillCause::Exposed),
        Err(RuleError::ExposureNotDead)
    );
    assert!(t.state.is_live(C));
    // QueenSix kills a hand exposed to influence the others (Dead hand 1.6).
    let mut t = four_on_the_flop(HouseRules::queensix());
    t.ok(A, Action::Bet(300));
    kill(&mut t, C, KillCause::Exposed).unwrap();
    assert!(!t.state.is_live(C));
}

#[test]
fn oracle_4_3_a_hand_declared_dead_as_a_penalty() {
    // Oracle Tournament 4: "A player can be issued the following penalties: [...] 3. Have a
    // hand declared dead".
    let mut t = four_on_the_flop(HouseRules::oracle());
    t.ok(A, Action::Check);
    let events = kill(&mut t, D, KillCause::Penalty).unwrap();
    assert!(matches!(
        events[..],
        [Event::HandKilled {
            seat: D,
            cause: KillCause::Penalty,
            ..
        }]
    ));
    t.ok(B, Action::Check);
    t.ok(C, Action::Check);
    assert_eq!(
        t.state.awaiting_board(),
        Some(league_engine::hand::Street::Turn),
        "D's turn passed over"
    );
}

/// Random hands in which, before each command, the floor may kill a random live hand (in
/// its turn, out of it, at the showdown; the engine refuses what the rules refuse). Every
/// hand re-derives from its events; written as PHH, each killed hand folds at its next
/// turn and PokerKit (`../shared/tools/phh_check.py`) agrees on every file, repairing
/// none. Only a hand killed after its last action, or whose killed hands alone reached a
/// side pot, has no PHH form, and only such hands are left out.
#[test]
fn pokerkit_agrees_on_hands_killed_in_and_out_of_turn() {
    let dir = std::env::temp_dir().join(format!("league-killed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut sim = Simulator::new(3, HouseRules::wsop());
    let mut roll = support::roller(0x9e37_79b9_7f4a_7c15);
    let (mut written, mut with_kills, mut out_of_turn, mut no_form) = (0, 0, 0, 0);
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
            if !state.is_over() && live.len() >= 2 && roll(100) < 15 {
                let seat = live[roll(live.len())];
                let kill = Command::Kill {
                    seat,
                    cause: KillCause::Exposed,
                    reason: "cards exposed".into(),
                };
                if let Ok(killed) = hand::decide(&state, &kill) {
                    if state.to_act() != Some(seat) {
                        out_of_turn += 1;
                    }
                    for event in killed {
                        hand::apply(&mut state, &event);
                        events.push(event);
                    }
                }
            }
            next = sim.next_command(&state);
        }
        assert!(state.is_over());
        hand::rederive(&events).unwrap();
        let killed = events.iter().any(|e| matches!(e, Event::HandKilled { .. }));
        match phh::write(&events) {
            Ok(text) => {
                std::fs::write(dir.join(format!("{written:04}.phh")), text).unwrap();
                written += 1;
                if killed {
                    with_kills += 1;
                }
            }
            Err(e) => {
                assert!(killed && e.contains("no hand history records"), "{e}");
                no_form += 1;
            }
        }
    }
    eprintln!(
        "{written} hands written, {with_kills} with a hand killed ({out_of_turn} kills out of \
         turn); {no_form} without a PHH form"
    );
    assert!(with_kills >= 200, "{with_kills} hands with a kill written");
    assert!(out_of_turn >= 100, "{out_of_turn} hands killed out of turn");
    assert!(no_form < 200, "{no_form} hands without a PHH form");
    pokerkit_agrees(&dir, written);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random hands as QueenSix and Oracle deal them (tournament 10 and tournament 1): the
/// hands of players absent when the deal ends are dead at once, all-in ones included. No
/// dead hand wins a chip; every hand re-derives; written as PHH, each dead hand folds at
/// its turn (or mucks at the showdown) and PokerKit agrees on every file.
#[test]
fn pokerkit_agrees_on_hands_dead_at_the_deal() {
    let dir = std::env::temp_dir().join(format!("league-absent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // PokerKit's own betting rules (the WSOP preset), with the deal's rule QueenSix and
    // Oracle add.
    let mut sim = Simulator::new(10, HouseRules::wsop());
    let (mut written, mut dead, mut dead_all_in, mut no_form) = (0, 0, 0, 0);
    for n in 0..400u64 {
        let (mut setup, seed) = sim.table();
        setup.absent_hands_dead = true;
        for (i, seat) in setup.seats.iter_mut().enumerate() {
            seat.absent = (n + u64::try_from(i).unwrap()) % 3 == 0;
        }
        let mut absent: Vec<Seat> = setup
            .seats
            .iter()
            .filter(|s| s.absent)
            .map(|s| s.seat)
            .collect();
        let everyone = absent.len() == setup.seats.len();
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
            next = sim.next_command(&state);
        }
        assert!(state.is_over());
        hand::rederive(&events).unwrap();
        let killed: Vec<Seat> = events
            .iter()
            .filter_map(|e| match e {
                Event::HandKilled {
                    seat,
                    cause: KillCause::Absent,
                    ..
                } => Some(*seat),
                _ => None,
            })
            .collect();
        if everyone {
            assert!(killed.is_empty(), "nobody present: nothing killed");
        } else {
            let mut sorted = killed.clone();
            sorted.sort_unstable();
            absent.sort_unstable();
            assert_eq!(sorted, absent, "every absent hand, at the deal");
            let preflop = events
                .iter()
                .position(|e| matches!(e, Event::PreflopStarted))
                .unwrap();
            assert!(
                events[preflop + 1..=preflop + killed.len()]
                    .iter()
                    .all(|e| matches!(e, Event::HandKilled { .. }))
            );
            for event in &events {
                if let Event::PotAwarded { shares, .. } = event {
                    assert!(
                        shares.iter().all(|s| !killed.contains(&s.seat)),
                        "{events:?}"
                    );
                }
                if let Event::BlindPosted {
                    seat, all_in: true, ..
                }
                | Event::AntePosted {
                    seat, all_in: true, ..
                } = event
                    && killed.contains(seat)
                {
                    dead_all_in += 1;
                }
            }
            dead += killed.len();
        }
        match phh::write(&events) {
            Ok(text) => {
                std::fs::write(dir.join(format!("{written:04}.phh")), text).unwrap();
                written += 1;
            }
            Err(e) => {
                assert!(
                    !killed.is_empty() && e.contains("no hand history records"),
                    "{e}"
                );
                no_form += 1;
            }
        }
    }
    eprintln!(
        "{written} hands written, {dead} hands dead at the deal ({dead_all_in} all-in by a \
         blind or ante); {no_form} without a PHH form"
    );
    assert!(dead >= 300, "{dead} hands dead at the deal");
    assert!(
        dead_all_in >= 10,
        "{dead_all_in} all-in hands dead at the deal"
    );
    assert!(written >= 300, "{written} hands written");
    pokerkit_agrees(&dir, written);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Four players A-D (D on the button) holding aces, kings, 2-3 and 7-8; D folds before
/// the flop and A, B and C check a board of 9c 7d 4h Jc 5s to the showdown, A first to
/// show. The pot is 300.
fn three_at_the_showdown(rules: HouseRules) -> Table {
    let mut t = Table::new(rules, &[5_000; 4], 50, 100);
    for (seat, cards) in [(A, "AsAh"), (B, "KsKh"), (C, "2c3d"), (D, "7c8c")] {
        t.hole(seat, cards);
    }
    while let Some(legal) = t.state.legal_actions() {
        let action = match (legal.seat, legal.can_check) {
            (D, _) => Action::Fold,
            (_, true) => Action::Check,
            (_, false) => Action::Call,
        };
        t.ok(legal.seat, action);
    }
    for street in ["9c7d4h", "Jc", "5s"] {
        t.board(street);
        while let Some(legal) = t.state.legal_actions() {
            t.ok(legal.seat, Action::Check);
        }
    }
    assert_eq!(t.state.to_show(), Some(A));
    t
}

fn impound(t: &mut Table) {
    t.send(Command::Impound {
        reason: "A says the dealer misread the board".into(),
    })
    .unwrap();
}

fn release(t: &mut Table) -> Vec<Event> {
    t.send(Command::Release {
        reason: "the floor has ruled".into(),
    })
    .unwrap()
}

/// A mucks the best hand, B shows kings, C mucks: with the pot impounded nothing is
/// awarded until the floor releases it.
fn mucked_and_held(rules: HouseRules) -> Table {
    let mut t = three_at_the_showdown(rules);
    impound(&mut t);
    t.send(Command::Muck { seat: A }).unwrap();
    t.send(Command::Show {
        seat: B,
        cards: None,
    })
    .unwrap();
    t.send(Command::Muck { seat: C }).unwrap();
    assert_eq!(
        t.state.phase(),
        Phase::Awarding,
        "the pot waits for the floor"
    );
    assert!(t.state.impounded());
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [4_900; 3]);
    t
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

/// QueenSix dead hand 2 ("a hand that is clearly identifiable may be retrieved and ruled
/// live at the QueenSix Host's discretion"), WPH RP 7.2 and Oracle dead hands 1.6:
/// with the pot impounded, the floor retrieves A's mucked aces and they win. The
/// invitational discards a mucked hand (6: "mucking ... immediately discards your hand").
#[test]
fn queensix_dead_hand_2_an_identifiable_mucked_hand_is_retrieved_while_the_pot_is_impounded() {
    for rules in [
        HouseRules::queensix(),
        HouseRules::oracle(),
        HouseRules::hippodrome(),
    ] {
        let mut t = mucked_and_held(rules);
        let retrieve = |seat| Command::Retrieve {
            seat,
            cards: None,
            reason: "mucked on the dealer's misread of the board; the cards lay apart".into(),
        };
        assert_eq!(
            t.send(retrieve(B)),
            Err(RuleError::NotMucked { seat: B }),
            "B's hand is live"
        );
        assert_eq!(t.send(retrieve(D)), Err(RuleError::NotMucked { seat: D }));
        let events = t.send(retrieve(A)).unwrap();
        assert!(
            matches!(&events[..], [Event::HandRetrieved { seat: A, cards, .. }] if cards == &[cards_of("AsAh")[0], cards_of("AsAh")[1]]),
            "{events:?}"
        );
        assert!(t.state.is_live(A));
        assert_eq!(
            t.send(retrieve(A)),
            Err(RuleError::NotMucked { seat: A }),
            "retrieved once"
        );
        let events = release(&mut t);
        assert!(
            events.iter().any(|e| matches!(e, Event::PotAwarded { shares, .. } if shares.len() == 1 && shares[0].seat == A && shares[0].amount == 300)),
            "{events:?}"
        );
        assert!(t.state.is_over());
        assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [5_200, 4_900, 4_900]);
        hand::rederive(&t.events).unwrap();
        // A hand history shows the retrieved hand where it was mucked.
        let text = phh::write(&t.events).unwrap();
        assert!(text.contains("'p1 sm AsAh'"), "{text}");
        pokerkit_replays(&t, "retrieved");
        // Once the pot is awarded, nothing is turned up.
        assert_eq!(t.send(retrieve(C)), Err(RuleError::HandOver));
    }
    let mut t = mucked_and_held(HouseRules::invitational());
    assert_eq!(
        t.send(Command::Retrieve {
            seat: A,
            cards: None,
            reason: "mucked by mistake".into(),
        }),
        Err(RuleError::MuckedHandsDiscarded)
    );
    release(&mut t);
    assert_eq!(t.stack(B), 5_200, "B's kings win");
}

fn cards_of(text: &str) -> Vec<league_engine::card::Card> {
    league_engine::card::parse_cards(text).unwrap()
}

/// A request to see A's mucked aces, by the winner (B's kings) or by another player in
/// the showdown (C): what each house makes of it. QueenSix showdown 5 and Hippodrome
/// showdown 4: "if the winning player asks to see any losing player's hand, both hands
/// are live, and the best hand wins"; anyone else's request shows it dead. Oracle
/// showdown 5, as written: "if a player other than the pot winner asks to see a losing
/// player's hand, both hands are live". WPH 10C (a privilege), the invitational and WSOP:
/// the hand is shown and stays dead; at WSOP only a player still holding cards may ask.
#[test]
fn queensix_showdown_5_the_winners_request_to_see_a_mucked_hand_makes_it_live() {
    use league_engine::hand::SeenHandRule;
    let cases = [
        (
            HouseRules::queensix(),
            B,
            true,
            SeenHandRule::WinnerMakesItLive,
        ),
        (
            HouseRules::queensix(),
            C,
            false,
            SeenHandRule::WinnerMakesItLive,
        ),
        (
            HouseRules::hippodrome(),
            B,
            true,
            SeenHandRule::WinnerMakesItLive,
        ),
        (
            HouseRules::hippodrome(),
            C,
            false,
            SeenHandRule::WinnerMakesItLive,
        ),
        (
            HouseRules::oracle(),
            B,
            false,
            SeenHandRule::OtherThanWinnerMakesItLive,
        ),
        (
            HouseRules::oracle(),
            C,
            true,
            SeenHandRule::OtherThanWinnerMakesItLive,
        ),
        (
            HouseRules::oracle(),
            D,
            true,
            SeenHandRule::OtherThanWinnerMakesItLive,
        ),
        (HouseRules::wph(), B, false, SeenHandRule::ShownDead),
        (HouseRules::wph(), D, false, SeenHandRule::ShownDead),
        (
            HouseRules::invitational(),
            C,
            false,
            SeenHandRule::ShownDead,
        ),
        (HouseRules::wsop(), B, false, SeenHandRule::ShownDead),
    ];
    for (rules, asked_by, live, rule) in cases {
        let preset = rules.preset;
        let mut t = mucked_and_held(rules);
        let events = t
            .send(Command::SeeHand {
                seat: A,
                asked_by,
                cards: None,
            })
            .unwrap_or_else(|e| panic!("{preset:?}, asked by {asked_by}: {e}"));
        let aces = cards_of("AsAh");
        assert_eq!(
            events,
            vec![Event::HandSeenOnRequest {
                seat: A,
                asked_by,
                cards: [aces[0], aces[1]],
                live,
                rule,
            }],
            "{preset:?}, asked by {asked_by}"
        );
        assert_eq!(t.state.is_live(A), live);
        release(&mut t);
        let winner = if live { A } else { B };
        assert_eq!(t.stack(winner), 5_200, "{preset:?}, asked by {asked_by}");
        hand::rederive(&t.events).unwrap();
        if preset == league_engine::rules::Preset::QueenSix {
            pokerkit_replays(&t, "seen");
        }
    }
    // Who may ask: QueenSix and Hippodrome a player in the showdown (not D, who folded);
    // WSOP a player still holding cards (not C, who mucked); nobody their own hand.
    for (rules, asked_by) in [
        (HouseRules::queensix(), D),
        (HouseRules::hippodrome(), D),
        (HouseRules::wsop(), C),
        (HouseRules::wph(), A),
    ] {
        let mut t = mucked_and_held(rules);
        assert!(
            matches!(
                t.send(Command::SeeHand {
                    seat: A,
                    asked_by,
                    cards: None
                }),
                Err(RuleError::MayNotAskToSee { seat, .. }) if seat == asked_by
            ),
            "{:?} asked by {asked_by}",
            rules.preset
        );
    }
    // The winner is known only once every hand still in has shown: A mucks, and B and C
    // (whose cards the host recorded) have not shown yet. Reading their cards would tell
    // the table who is ahead, so the request waits.
    let mut t = three_at_the_showdown(HouseRules::queensix());
    t.send(Command::Muck { seat: A }).unwrap();
    assert_eq!(
        t.send(Command::SeeHand {
            seat: A,
            asked_by: B,
            cards: None
        }),
        Err(RuleError::WinnerUnknown)
    );
    t.send(Command::Show {
        seat: B,
        cards: None,
    })
    .unwrap();
    assert_eq!(
        t.send(Command::SeeHand {
            seat: A,
            asked_by: C,
            cards: None
        }),
        Err(RuleError::WinnerUnknown),
        "C has not shown"
    );
    // Seen once, the hand is not seen or retrieved again; a live hand is no mucked one.
    let mut t = mucked_and_held(HouseRules::queensix());
    let see = |seat, asked_by| Command::SeeHand {
        seat,
        asked_by,
        cards: None,
    };
    t.send(see(A, C)).unwrap();
    assert_eq!(t.send(see(A, B)), Err(RuleError::HandTabled { seat: A }));
    assert_eq!(
        t.send(Command::Retrieve {
            seat: A,
            cards: None,
            reason: "identifiable".into()
        }),
        Err(RuleError::HandTabled { seat: A })
    );
    assert_eq!(t.send(see(B, C)), Err(RuleError::NotMucked { seat: B }));
}

/// Without the pot impounded, a request is heard while the showdown is open: two hands,
/// A mucks first and B, the last hand, has not shown; B's request (B wins as things
/// stand) makes A's aces live at QueenSix, and they win.
#[test]
fn a_request_to_see_a_hand_is_heard_before_the_last_hand_shows() {
    let mut t = Table::new(HouseRules::queensix(), &[5_000; 2], 50, 100);
    t.hole(0, "AsAh");
    t.hole(1, "KsKh");
    t.limp_to_flop("9c7d4h");
    for street in ["Jc", "5s"] {
        while let Some(legal) = t.state.legal_actions() {
            t.ok(legal.seat, Action::Check);
        }
        t.board(street);
    }
    while let Some(legal) = t.state.legal_actions() {
        t.ok(legal.seat, Action::Check);
    }
    let shows_first = t.state.to_show().unwrap();
    let last = 1 - shows_first;
    t.send(Command::Muck { seat: shows_first }).unwrap();
    assert_eq!(
        t.state.phase(),
        Phase::Showdown,
        "the last hand must still show"
    );
    let events = t
        .send(Command::SeeHand {
            seat: shows_first,
            asked_by: last,
            cards: None,
        })
        .unwrap();
    assert!(
        matches!(&events[0], Event::HandSeenOnRequest { live: true, .. }),
        "{events:?}"
    );
    t.send(Command::Show {
        seat: last,
        cards: None,
    })
    .unwrap();
    assert!(t.state.is_over());
    let aces = if shows_first == 0 { shows_first } else { last };
    assert_eq!(t.stack(aces), 5_100);
    hand::rederive(&t.events).unwrap();
}

/// The pot impounded in the betting: the hand plays on, and when every other hand folds
/// the pot waits for the floor. Impounding twice, releasing a pot never impounded, and
/// either once the hand is over are refused.
#[test]
fn an_impounded_pot_waits_for_the_floor() {
    let mut t = four_on_the_flop(HouseRules::hippodrome());
    assert_eq!(
        t.send(Command::Release {
            reason: "ruled".into()
        }),
        Err(RuleError::NotImpounded)
    );
    impound(&mut t);
    assert_eq!(
        t.send(Command::Impound {
            reason: "again".into()
        }),
        Err(RuleError::AlreadyImpounded)
    );
    t.ok(A, Action::Bet(300));
    t.ok(B, Action::Fold);
    t.ok(C, Action::Fold);
    t.ok(D, Action::Fold);
    assert!(!t.state.is_over(), "the pot is held");
    assert_eq!(
        t.stack(A),
        4_900,
        "A's uncalled bet is back, the pot is not"
    );
    let events = release(&mut t);
    assert!(matches!(events[0], Event::PotReleased { .. }), "{events:?}");
    assert!(t.state.is_over());
    assert_eq!(t.stack(A), 5_300);
    hand::rederive(&t.events).unwrap();
    pokerkit_replays(&t, "impounded");
    assert_eq!(
        t.send(Command::Impound {
            reason: "late".into()
        }),
        Err(RuleError::HandOver)
    );
}
