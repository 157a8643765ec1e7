#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! Corrections by the venue's staff, given/when/then: a tournament cancelled (every entrant
//! refunded, every later command refused), a player eliminated by mistake reinstated (the
//! chips back from whoever took them, the places worked out again), a void hand (every
//! chip back, re-dealt on the same button), and a stack put right between hands (until the
//! next hand starts). Each refusal changes nothing, and each log replays to the state
//! decided.

#[path = "support/tour.rs"]
mod tour;

use league_engine::hand::{Action, Command as HandCommand, VoidReason};
use league_engine::rules::Preset;
use league_engine::tournament::play::{
    Penalty, Pending, Refund, Stage, Standing, TournamentCommand as Cmd, TournamentError as Err,
    TournamentEvent as Ev, Tracking,
};
use league_engine::units::{Cents, Chips, PlayerId};
use tour::{Game, id, schedule};

fn cancel(reason: &str) -> Cmd {
    Cmd::Cancel {
        reason: reason.into(),
    }
}

fn reinstate(player: &PlayerId) -> Cmd {
    Cmd::Reinstate {
        player: player.clone(),
        reason: "the wrong player was called out".into(),
    }
}

fn eliminate(player: &PlayerId, by: Option<&PlayerId>) -> Cmd {
    Cmd::Eliminate {
        players: vec![player.clone()],
        by: by.cloned(),
    }
}

/// What an entry costs under the harness's schedule: $20 + $5.
const ENTRY: u64 = 2_500;

#[test]
fn a_scheduled_tournament_is_cancelled_with_every_registration_refunded() {
    let mut g = Game::registered(schedule(Preset::QueenSix, Tracking::Results), 4);
    g.when(Cmd::Unregister { player: id(4) });
    assert_eq!(g.refused(cancel("  ")), Err::BadReason);
    assert_eq!(g.refused(cancel("two\nlines")), Err::BadReason);
    let events = g.when(cancel("  not enough players turned up "));
    let [Ev::TournamentCancelled { reason, refunds }] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(reason, "not enough players turned up");
    // The player who unregistered was refunded then, and is not refunded twice.
    let refunded: Vec<(PlayerId, u64)> = refunds
        .iter()
        .map(|r| (r.player.clone(), r.amount.get()))
        .collect();
    assert_eq!(
        refunded,
        vec![(id(1), ENTRY), (id(2), ENTRY), (id(3), ENTRY)]
    );
    assert_eq!(g.state.stage(), Stage::Cancelled);
    assert_eq!(g.state.cancellation().unwrap().refunds, *refunds);
    for command in [
        Cmd::Register { player: id(9) },
        Cmd::Unregister { player: id(1) },
        cancel("again"),
        Cmd::MarkAbsent { player: id(1) },
    ] {
        assert_eq!(g.refused(command), Err::Cancelled);
    }
    let (seed, next_commitment) = g.reveal();
    assert_eq!(
        g.refused(Cmd::Start {
            at: 0,
            seed,
            next_commitment
        }),
        Err::Cancelled
    );
    g.assert_replays();
}

/// The harness's schedule with one $20 re-buy each in levels 1 and 2.
fn with_rebuys(tracking: Tracking) -> league_engine::tournament::play::Schedule {
    let mut s = schedule(Preset::QueenSix, tracking);
    s.pool.rebuy = Some(league_engine::tournament::pool::Price::new(
        Cents::new(2000),
        Cents::ZERO,
    ));
    s.rebuys = Some(league_engine::tournament::play::PurchasePolicy {
        per_player: 1,
        from_level: 1,
        until_level: 2,
        chips: Chips::new(5000),
        max_stack: None,
        after_bust_only: false,
        until_minutes: None,
    });
    s
}

#[test]
fn a_running_tournament_is_cancelled_with_entries_and_rebuys_refunded() {
    let mut g = Game::started(with_rebuys(Tracking::Results), 6);
    let (busted, by) = (g.at_table(1)[0].clone(), g.at_table(1)[1].clone());
    // Busted within the re-buy window: the player pays and plays on.
    g.when(eliminate(&busted, Some(&by)));
    let at = g.tick(1_000);
    g.when(Cmd::Rebuy {
        player: busted.clone(),
        at,
    });
    let paid = g.state.player(busted.as_str()).unwrap().paid;
    assert_eq!(paid.get(), ENTRY + 2_000, "a re-buy was paid for");
    let out = g.at_table(1)[2].clone();
    g.when(eliminate(&out, None));
    let events = g.when(cancel("power cut"));
    let [Ev::TournamentCancelled { refunds, .. }] = events.as_slice() else {
        panic!("{events:?}");
    };
    // Everyone who paid, in or out, gets back everything they paid.
    assert_eq!(refunds.len(), 6);
    for Refund { player, amount } in refunds {
        assert_eq!(*amount, g.state.player(player.as_str()).unwrap().paid);
    }
    let total: u64 = refunds.iter().map(|r| r.amount.get()).sum();
    assert_eq!(total, 6 * ENTRY + (paid.get() - ENTRY));
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::Cancelled
    );
    assert_eq!(g.refused(reinstate(&out)), Err::Cancelled);
    g.assert_replays();
}

#[test]
fn only_a_scheduled_or_running_tournament_is_cancelled() {
    assert_eq!(Game::fresh().refused(cancel("x")), Err::NotScheduled);
    let mut g = Game::started(with_rebuys(Tracking::Results), 2);
    let winner = g.at_table(1)[0].clone();
    let loser = g.at_table(1)[1].clone();
    g.when(eliminate(&loser, Some(&winner)));
    // Busted with a re-buy left: the player declines it and the tournament is over.
    assert_eq!(g.state.stage(), Stage::Running);
    g.when(Cmd::DeclineRebuy { player: loser });
    assert_eq!(g.state.stage(), Stage::Finished);
    assert_eq!(g.refused(cancel("too late")), Err::Finished);
}

#[test]
fn a_player_eliminated_by_mistake_is_back_at_their_seat_with_their_chips() {
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 6);
    let table = g.at_table(1);
    let (wrong, by, other) = (table[0].clone(), table[1].clone(), table[2].clone());
    let seat = g.seat_of(wrong.as_str());
    let (start, by_before) = (g.chips(wrong.as_str()), g.chips(by.as_str()));

    g.when(eliminate(&wrong, Some(&by)));
    assert_eq!(g.chips(by.as_str()), by_before + start);
    assert_eq!(g.state.player(by.as_str()).unwrap().knockouts, 1);
    assert_eq!(g.place(wrong.as_str()), (6, 1));

    let events = g.when(reinstate(&wrong));
    assert!(
        events.contains(&Ev::PlayerReinstated {
            player: wrong.clone(),
            table: seat.0,
            seat: seat.1,
            chips: Chips::new(start),
            from: Some(by.clone()),
            reason: "the wrong player was called out".into(),
        }),
        "{events:?}"
    );
    assert_eq!(g.seat_of(wrong.as_str()), seat);
    assert_eq!(g.chips(wrong.as_str()), start);
    assert_eq!(g.chips(by.as_str()), by_before);
    assert_eq!(g.state.player(by.as_str()).unwrap().knockouts, 0);
    assert_eq!(
        g.place(wrong.as_str()),
        (1, 6),
        "in again, with everyone else"
    );
    assert_eq!(g.state.remaining(), 6);

    // The right player goes out instead (nobody given the chips yet), and is reinstated
    // from those chips; then play goes on to the end and the places follow the real order.
    g.when(eliminate(&other, None));
    g.when(reinstate(&other));
    assert_eq!(g.chips(other.as_str()), start);
    let order: Vec<PlayerId> = g.at_table(1).into_iter().filter(|p| *p != by).collect();
    for p in &order {
        g.when(eliminate(p, Some(&by)));
    }
    assert_eq!(g.state.stage(), Stage::Finished);
    assert_eq!(g.finish(by.as_str()).0, 1);
    for (i, p) in order.iter().enumerate() {
        assert_eq!(g.finish(p.as_str()).0, 6 - u32::try_from(i).unwrap(), "{p}");
    }
    assert_eq!(g.state.player(by.as_str()).unwrap().knockouts, 5);
    g.assert_replays();
}

#[test]
fn a_player_busted_by_mistake_with_a_re_buy_left_is_reinstated_without_buying_it() {
    let mut g = Game::started(with_rebuys(Tracking::Results), 4);
    let table = g.at_table(1);
    let (wrong, by) = (table[0].clone(), table[1].clone());
    let seat = g.seat_of(wrong.as_str());
    let start = g.chips(wrong.as_str());
    g.when(eliminate(&wrong, Some(&by)));
    assert!(matches!(
        g.state.player(wrong.as_str()).unwrap().standing,
        Standing::Busted { .. }
    ));
    g.when(reinstate(&wrong));
    let p = g.state.player(wrong.as_str()).unwrap();
    assert_eq!(
        p.standing,
        Standing::Seated {
            table: seat.0,
            seat: seat.1
        }
    );
    assert_eq!((p.chips.get(), p.rebuys), (start, 0), "no re-buy bought");
    assert_eq!(g.chips(by.as_str()), start);
    assert!(
        !g.state
            .pending()
            .iter()
            .any(|p| matches!(p, Pending::RebuyDecisions { .. })),
        "{:?}",
        g.state.pending()
    );
    g.assert_replays();
}

#[test]
fn a_reinstatement_is_refused_where_it_cannot_be_made_and_changes_nothing() {
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 6);
    let table = g.at_table(1);
    let (a, b, c) = (table[0].clone(), table[1].clone(), table[2].clone());
    assert_eq!(g.refused(reinstate(&a)), Err::NotOut(a.clone()));
    assert_eq!(
        g.refused(reinstate(&PlayerId::from("nobody"))),
        Err::UnknownPlayer(PlayerId::from("nobody"))
    );
    g.when(eliminate(&a, None));
    assert_eq!(
        g.refused(Cmd::Reinstate {
            player: a.clone(),
            reason: "\t".into()
        }),
        Err::BadReason
    );
    // Counted into the other stacks: the count is the record.
    let total = g.state.chips_in_play();
    let players: Vec<PlayerId> = g
        .state
        .players()
        .iter()
        .filter(|(_, p)| matches!(p.standing, Standing::Seated { .. }))
        .map(|(id, _)| id.clone())
        .collect();
    let each = total.get() / 5;
    let counts: Vec<(PlayerId, Chips)> = players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let chips = if i == 0 { total.get() - 4 * each } else { each };
            (p.clone(), Chips::new(chips))
        })
        .collect();
    g.when(Cmd::RecordChips { counts });
    assert!(matches!(
        g.refused(reinstate(&a)),
        Err::CannotReinstate { player, .. } if player == a
    ));
    // Given on: the player who took them has since lost them.
    g.when(eliminate(&b, Some(&c)));
    let d = g.at_table(1).into_iter().find(|p| *p != c).unwrap();
    g.when(eliminate(&c, Some(&d)));
    let at_c = g.refused(reinstate(&b));
    assert!(
        matches!(&at_c, Err::CannotReinstate { player, why } if *player == b && why.contains(c.as_str())),
        "{at_c:?}"
    );
    // A disqualified player was not eliminated at a table.
    let e = g.at_table(1).into_iter().find(|p| *p != d).unwrap();
    g.when(Cmd::Penalise {
        player: e.clone(),
        penalty: Penalty::Disqualify,
    });
    assert!(matches!(
        g.refused(reinstate(&e)),
        Err::CannotReinstate { player, .. } if player == e
    ));
    g.assert_replays();
}

#[test]
fn reinstating_is_for_results_tracking() {
    let g = Game::started(schedule(Preset::QueenSix, Tracking::Recorded), 4);
    assert_eq!(
        g.refused(reinstate(&id(1))),
        Err::WrongTracking {
            tracking: Tracking::Recorded
        }
    );
}

#[test]
fn a_void_hand_returns_every_chip_and_is_re_dealt_on_the_same_button() {
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 5);
    let before: Vec<u64> = g.at_table(1).iter().map(|p| g.chips(p.as_str())).collect();
    let positions = g.start_hand(1);
    // The blinds are in and the first player calls: still before WPH's cut-off.
    g.act(1, Action::Call);
    let events = g.when(Cmd::Hand {
        table: 1,
        command: HandCommand::Void {
            reason: VoidReason::Misdeal("seat 3's first card exposed".into()),
        },
    });
    assert!(
        events.iter().any(|e| matches!(
            e,
            Ev::HandEvent {
                event: league_engine::hand::Event::HandVoided { .. },
                ..
            }
        )),
        "{events:?}"
    );
    let after: Vec<u64> = g.at_table(1).iter().map(|p| g.chips(p.as_str())).collect();
    assert_eq!(after, before, "every chip back where it came from");
    // Re-dealt with the same button and blinds; after a hand played, the button moves.
    assert_eq!(g.start_hand(1), positions);
    while let Some(seat) = g.hand(1).to_act() {
        let legal = g.hand(1).legal_actions().unwrap();
        let action = if legal.can_check {
            Action::Check
        } else {
            Action::Fold
        };
        g.when(Cmd::Hand {
            table: 1,
            command: HandCommand::Act { seat, action },
        });
    }
    assert_ne!(g.start_hand(1).button, positions.button);
    g.assert_replays();
}

#[test]
fn cents_refunded_are_what_was_paid() {
    // A refund never invents money: the sum of refunds is the money taken.
    let mut g = Game::registered(schedule(Preset::Oracle, Tracking::Results), 9);
    let events = g.when(cancel("venue double-booked"));
    let Some(Ev::TournamentCancelled { refunds, .. }) = events.first() else {
        panic!("{events:?}");
    };
    let sum = refunds
        .iter()
        .try_fold(Cents::ZERO, |s, r| s.checked_add(r.amount))
        .unwrap();
    let paid = g
        .state
        .players()
        .values()
        .try_fold(Cents::ZERO, |s, p| s.checked_add(p.paid))
        .unwrap();
    assert_eq!(sum, paid);
}

fn correct(table: u32, from: &PlayerId, to: &PlayerId, chips: u64) -> Cmd {
    Cmd::CorrectChips {
        table,
        from: from.clone(),
        to: to.clone(),
        chips: Chips::new(chips),
        reason: "the pot went to seat 1; seat 2 held the higher kicker".into(),
    }
}

fn table_chips(g: &Game, table: u32) -> u64 {
    g.at_table(table).iter().map(|p| g.chips(p.as_str())).sum()
}

/// The stack each seat starts the hand with, from the hand's own setup.
fn starting_stacks(events: &[Ev]) -> Vec<(u8, u64)> {
    events
        .iter()
        .find_map(|e| match e {
            Ev::HandEvent {
                event: league_engine::hand::Event::HandStarted { setup, .. },
                ..
            } => Some(setup.seats.iter().map(|s| (s.seat, s.stack)).collect()),
            _ => None,
        })
        .expect("a hand started")
}

#[test]
fn a_stack_is_put_right_between_hands_until_the_next_hand_starts() {
    // The floor's ruling the books give the director within the dispute window: a pot
    // pushed to the wrong player is put right before the next hand is dealt.
    // WPH 14, the invitational 7.7: the right to dispute a hand ends when the next begins.
    for preset in [
        Preset::Wph,
        Preset::Invitational,
        Preset::QueenSix,
        Preset::Oracle,
    ] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 5);
        let players = g.at_table(1);
        let (a, b) = (players[0].clone(), players[1].clone());
        // No hand played at the table yet: nothing to put right.
        assert!(
            matches!(
                g.refused(correct(1, &a, &b, 100)),
                Err::CannotCorrectChips { .. }
            ),
            "{preset:?}"
        );
        g.fold_round(1);
        let total = table_chips(&g, 1);
        let (had_a, had_b) = (g.chips(a.as_str()), g.chips(b.as_str()));
        // Input that cannot be right, and state that refuses: each changes nothing.
        assert!(matches!(
            g.refused(correct(1, &a, &b, 0)),
            Err::BadCorrection { field: "chips", .. }
        ));
        assert!(matches!(
            g.refused(correct(1, &a, &a, 10)),
            Err::BadCorrection { field: "to", .. }
        ));
        assert!(matches!(
            g.refused(correct(1, &a, &b, had_a)),
            Err::CannotCorrectChips { .. }
        ));
        assert!(matches!(
            g.refused(correct(1, &a, &id(99), 10)),
            Err::UnknownPlayer(_)
        ));
        assert_eq!(g.refused(correct(2, &a, &b, 10)), Err::NoSuchTable(2));
        let mut blank = correct(1, &a, &b, 10);
        if let Cmd::CorrectChips { reason, .. } = &mut blank {
            *reason = "  ".into();
        }
        assert_eq!(g.refused(blank), Err::BadReason);
        // Put right: the chips move, the table's total stays.
        let events = g.when(correct(1, &a, &b, 150));
        assert_eq!(
            events,
            vec![Ev::ChipsCorrected {
                table: 1,
                hand: 1,
                from: a.clone(),
                to: b.clone(),
                chips: Chips::new(150),
                reason: "the pot went to seat 1; seat 2 held the higher kicker".into(),
            }]
        );
        assert_eq!(g.chips(a.as_str()), had_a - 150);
        assert_eq!(g.chips(b.as_str()), had_b + 150);
        assert_eq!(table_chips(&g, 1), total);
        // The next hand is dealt with the stacks as corrected, and closes the window.
        let started = g.when(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        });
        let stacks = starting_stacks(&started);
        let seat_a = g.seat_of(a.as_str()).1;
        let seat_b = g.seat_of(b.as_str()).1;
        assert!(stacks.contains(&(seat_a, had_a - 150)), "{stacks:?}");
        assert!(stacks.contains(&(seat_b, had_b + 150)), "{stacks:?}");
        assert_eq!(
            g.refused(correct(1, &b, &a, 150)),
            Err::HandInProgress { table: 1 }
        );
        g.fold_out(1);
        // After that hand, a correction follows it.
        let events = g.when(correct(1, &b, &a, 20));
        assert!(
            matches!(events.as_slice(), [Ev::ChipsCorrected { hand: 2, .. }]),
            "{events:?}"
        );
        g.assert_replays();
    }
}

#[test]
fn results_tracking_counts_stacks_rather_than_correcting_them() {
    let g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 4);
    let players = g.at_table(1);
    assert!(matches!(
        g.refused(correct(1, &players[0], &players[1], 10)),
        Err::WrongTracking { .. }
    ));
    g.assert_replays();
}

fn correct_seat(player: &PlayerId, table: u32, seat: u8) -> Cmd {
    Cmd::CorrectSeat {
        player: player.clone(),
        table,
        seat,
        reason: "sat down at the wrong seat after the break".into(),
    }
}

/// The first open seat at a table of nine.
fn open_seat(g: &Game, table: u32) -> u8 {
    (0..9)
        .find(|s| !g.state.tables()[&table].seats.contains_key(s))
        .expect("an open seat")
}

/// The count of players at each table, by table number.
fn counts(g: &Game) -> Vec<(u32, usize)> {
    g.state
        .tables()
        .iter()
        .map(|(n, t)| (*n, t.seats.len()))
        .collect()
}

#[test]
fn a_player_in_the_wrong_seat_moves_to_the_right_one_with_their_chips() {
    // WPH 5: "A player who started the tournament in the wrong seat with the correct
    // chipstack amount will be moved to the correct seat and will take his current total
    // chipstack with him." The same at any house: the correction is the director's.
    for preset in [Preset::Wph, Preset::QueenSix, Preset::Oracle] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 12);
        assert_eq!(counts(&g), vec![(1, 6), (2, 6)], "{preset:?}");
        let at_one = g.at_table(1);
        let (a, b) = (at_one[0].clone(), at_one[1].clone());
        let (seat_a, seat_b) = (g.seat_of(a.as_str()).1, g.seat_of(b.as_str()).1);
        let open = open_seat(&g, 1);
        // Input that cannot be right, and state that refuses: each changes nothing.
        assert!(matches!(
            g.refused(correct_seat(&a, 1, 9)),
            Err::BadCorrection { field: "seat", .. }
        ));
        assert!(matches!(
            g.refused(correct_seat(&a, 1, seat_a)),
            Err::BadCorrection { field: "seat", .. }
        ));
        assert_eq!(g.refused(correct_seat(&a, 3, 0)), Err::NoSuchTable(3));
        assert!(matches!(
            g.refused(correct_seat(&id(99), 1, open)),
            Err::UnknownPlayer(_)
        ));
        let mut blank = correct_seat(&a, 1, open);
        if let Cmd::CorrectSeat { reason, .. } = &mut blank {
            *reason = " ".into();
        }
        assert_eq!(g.refused(blank), Err::BadReason);

        // An open seat at the same table: the player takes their chips there.
        let chips_a = g.chips(a.as_str());
        let events = g.when(correct_seat(&a, 1, open));
        assert_eq!(
            events,
            vec![Ev::SeatCorrected {
                player: a.clone(),
                from_table: 1,
                from_seat: seat_a,
                to_table: 1,
                to_seat: open,
                swapped: None,
                reason: "sat down at the wrong seat after the break".into(),
            }],
            "{preset:?}"
        );
        assert_eq!(g.seat_of(a.as_str()), (1, open));
        assert_eq!(g.chips(a.as_str()), chips_a);
        assert!(!g.state.tables()[&1].seats.contains_key(&seat_a));

        // Two players in each other's seats change places, each with their own stack.
        let chips_b = g.chips(b.as_str());
        let events = g.when(correct_seat(&b, 1, open));
        assert!(
            matches!(events.as_slice(), [Ev::SeatCorrected { swapped: Some(s), from_seat, .. }] if *s == a && *from_seat == seat_b),
            "{events:?}"
        );
        assert_eq!(g.seat_of(b.as_str()), (1, open));
        assert_eq!(g.seat_of(a.as_str()), (1, seat_b));
        assert_eq!(
            (g.chips(a.as_str()), g.chips(b.as_str())),
            (chips_a, chips_b)
        );

        // The next hand is dealt to the seats as corrected; while it runs, no seat at
        // that table is corrected, from either side.
        let started = g.when(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        });
        let stacks = starting_stacks(&started);
        assert!(stacks.contains(&(open, chips_b)), "{stacks:?}");
        assert!(stacks.contains(&(seat_b, chips_a)), "{stacks:?}");
        assert!(!stacks.iter().any(|(s, _)| *s == seat_a), "{stacks:?}");
        let c = g.at_table(2)[0].clone();
        for refused in [
            correct_seat(&a, 1, seat_a),
            correct_seat(&c, 1, seat_a),
            correct_seat(&a, 2, open_seat(&g, 2)),
        ] {
            assert!(
                matches!(g.refused(refused), Err::CannotCorrectSeat { .. }),
                "{preset:?}"
            );
        }
        g.fold_out(1);

        // Another table's player into an open seat: the tables are then balanced by the
        // house's rule, as after any move (7 and 5 players: one moves back).
        let events = g.when(correct_seat(&c, 1, seat_a));
        assert!(
            matches!(
                events.first(),
                Some(Ev::SeatCorrected {
                    to_table: 1,
                    from_table: 2,
                    swapped: None,
                    ..
                })
            ),
            "{events:?}"
        );
        assert!(
            events.iter().any(|e| matches!(e, Ev::PlayerMoved { moved, .. } if moved.from_table == 1 && moved.to_table == 2)),
            "{preset:?}: {events:?}"
        );
        assert_eq!(counts(&g), vec![(1, 6), (2, 6)]);
        // A swap across tables keeps the counts, and needs no balancing.
        let d = g.at_table(1)[0].clone();
        let e = g.at_table(2)[0].clone();
        let (seat_d, seat_e) = (g.seat_of(d.as_str()), g.seat_of(e.as_str()));
        let events = g.when(correct_seat(&e, seat_d.0, seat_d.1));
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(
            (g.seat_of(e.as_str()), g.seat_of(d.as_str())),
            (seat_d, seat_e)
        );
        g.assert_replays();
    }
}

#[test]
fn a_seat_is_put_right_in_results_tracking_but_not_over_a_re_buy_decision() {
    let mut g = Game::started(with_rebuys(Tracking::Results), 6);
    let table = g.at_table(1);
    let (busted, by, other) = (table[0].clone(), table[1].clone(), table[2].clone());
    let seat_busted = g.seat_of(busted.as_str()).1;
    g.when(eliminate(&busted, Some(&by)));
    // Busted and deciding on a re-buy: their seat is still theirs, and they are not
    // seated to be moved.
    assert!(matches!(
        g.refused(correct_seat(&other, 1, seat_busted)),
        Err::CannotCorrectSeat { .. }
    ));
    assert!(matches!(
        g.refused(correct_seat(&busted, 1, open_seat(&g, 1))),
        Err::CannotCorrectSeat { .. }
    ));
    let open = open_seat(&g, 1);
    g.when(correct_seat(&other, 1, open));
    assert_eq!(g.seat_of(other.as_str()), (1, open));
    g.assert_replays();
}

fn correct_button(table: u32, button: u8) -> Cmd {
    Cmd::CorrectButton {
        table,
        button,
        reason: "the last hand's button was placed a seat early".into(),
    }
}

/// The occupied seat after `seat`, clockwise.
fn next_occupied(g: &Game, table: u32, seat: u8) -> u8 {
    let seats: Vec<u8> = g.state.tables()[&table].seats.keys().copied().collect();
    seats
        .iter()
        .copied()
        .find(|&s| s > seat)
        .unwrap_or(seats[0])
}

#[test]
fn a_misplaced_button_is_put_right_for_the_next_hand_and_the_blinds_follow_it() {
    // Oracle Irregularities 1: "If it is discovered that the button was placed
    // incorrectly on the previous hand, the button and blinds will be corrected for the
    // new hand". The window is the other corrections': until the next hand starts.
    for preset in [
        Preset::Oracle,
        Preset::Wph,
        Preset::QueenSix,
        Preset::Invitational,
    ] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 6);
        let seats: Vec<u8> = g.state.tables()[&1].seats.keys().copied().collect();
        // Before the table's first hand the button is the drawn one.
        assert!(
            matches!(
                g.refused(correct_button(1, seats[0])),
                Err::CannotCorrectButton { .. }
            ),
            "{preset:?}"
        );
        let first = g.fold_round(1);
        let due = g.upcoming(1);
        assert_ne!(due.button, first.button);
        assert_eq!(g.state.next_positions(1), Some(due), "{preset:?}");
        // Input that cannot be right, and state that refuses: each changes nothing.
        assert!(matches!(
            g.refused(correct_button(1, 9)),
            Err::BadCorrection {
                field: "button",
                ..
            }
        ));
        let empty = open_seat(&g, 1);
        assert!(matches!(
            g.refused(correct_button(1, empty)),
            Err::CannotCorrectButton { .. }
        ));
        assert!(matches!(
            g.refused(correct_button(1, due.button)),
            Err::CannotCorrectButton { .. }
        ));
        assert_eq!(
            g.refused(correct_button(2, first.button)),
            Err::NoSuchTable(2)
        );

        // The button was moved on one seat too soon last hand: it belongs a seat on.
        let button = next_occupied(&g, 1, due.button);
        let events = g.when(correct_button(1, button));
        assert_eq!(
            events,
            vec![Ev::ButtonCorrected {
                table: 1,
                hand: 1,
                button,
                was: due.button,
                reason: "the last hand's button was placed a seat early".into(),
            }],
            "{preset:?}"
        );
        let small = next_occupied(&g, 1, button);
        let big = next_occupied(&g, 1, small);
        let expected = league_engine::button::Positions {
            button,
            small_blind: small,
            big_blind: big,
        };
        // The table says where the button and blinds now go, before anyone deals.
        assert_eq!(g.state.next_positions(1), Some(expected), "{preset:?}");
        // A void hand is re-dealt on the corrected button.
        g.start_hand(1);
        assert_eq!(g.state.next_positions(1), None, "a hand is in progress");
        assert_eq!(
            g.refused(correct_button(1, due.button)),
            Err::HandInProgress { table: 1 }
        );
        g.when(Cmd::Hand {
            table: 1,
            command: HandCommand::Void {
                reason: VoidReason::Misdeal("the first card exposed".into()),
            },
        });
        assert_eq!(g.start_hand(1), expected, "{preset:?}");
        g.fold_out(1);
        // Then the button moves on from there as the house moves it.
        let after = g.fold_round(1);
        assert_eq!(after.button, small, "{preset:?}");
        assert_eq!(after.big_blind, next_occupied(&g, 1, big), "{preset:?}");
        g.assert_replays();
    }
}

#[test]
fn results_tracking_plays_no_hands_so_has_no_button_to_correct() {
    let g = Game::started(schedule(Preset::Oracle, Tracking::Results), 4);
    assert!(matches!(
        g.refused(correct_button(1, 0)),
        Err::WrongTracking { .. }
    ));
}
