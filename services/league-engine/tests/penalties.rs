#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! Penalties as each house's book lists them, given/when/then: repeat infractions climb a
//! ladder where the book says they escalate (WPH 47, Oracle tournament 4) and are the
//! host's to weigh elsewhere; a forfeiture of chips (WPH 50; chips taken out of view, WPH
//! 44 and QueenSix tournament 25) takes chips out of play and leaves the player in; an
//! elimination (Oracle tournament 4.5) puts the player out in their place. Each refusal
//! changes nothing, and each log replays to the state decided.

#[path = "support/tour.rs"]
mod tour;

use league_engine::rules::Preset;
use league_engine::tournament::play::{
    PENALTY_LADDER, Penalty, PurchasePolicy, Standing, TournamentCommand as Cmd,
    TournamentError as Err, TournamentEvent as Ev, Tracking,
};
use league_engine::units::{Chips, PlayerId};
use tour::{Game, id, schedule};

fn penalise(player: &PlayerId, penalty: Penalty) -> Cmd {
    Cmd::Penalise {
        player: player.clone(),
        penalty,
    }
}

fn chips(n: u64) -> Chips {
    Chips::new(n)
}

#[test]
fn wph_47_and_oracle_4_repeat_infractions_escalate_a_rung_at_a_time() {
    // WPH 47: "Tournament staff can assess a one-hand penalty, one-, two-, three-, or
    // four-round penalties or disqualification. ... Repeat infractions are subject to
    // escalating penalties." Oracle, tournament 4: "A floor supervisor can assess a one-,
    // two-, three-, or four-round penalty ... Repeated infractions are subject to
    // escalating penalties."
    for (preset, rule, out) in [
        (Preset::Wph, "47", Penalty::Disqualify),
        (Preset::Oracle, "tournament 4", Penalty::Eliminate),
    ] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 6);
        let offender = id(1);
        assert_eq!(g.state.least_penalty(offender.as_str()), None, "first");
        for (rung, penalty) in PENALTY_LADDER.iter().take(6).enumerate() {
            g.when(penalise(&offender, *penalty));
            let least = PENALTY_LADDER[rung + 1];
            assert_eq!(
                g.state.least_penalty(offender.as_str()),
                Some(least),
                "{preset:?} after {penalty:?}"
            );
            // Anything at or below the rung reached is refused, naming the least.
            for lighter in &PENALTY_LADDER[..=rung] {
                let refused = g.refused(penalise(&offender, *lighter));
                match refused {
                    Err::BreaksPreset {
                        rule: r,
                        field: "penalty",
                        what,
                        ..
                    } => {
                        assert_eq!(r, rule);
                        assert!(
                            what.contains(&format!("at least {least}"))
                                && what.contains(&format!("so far is {penalty}")),
                            "{what}"
                        );
                    }
                    other => panic!("{preset:?} {lighter:?}: {other:?}"),
                }
            }
            // Another player's record is their own.
            assert_eq!(g.state.least_penalty(id(2).as_str()), None);
        }
        // A forfeiture of chips stands beside the ladder: taken at any rung, climbing none.
        g.when(penalise(&offender, Penalty::Forfeit(chips(100))));
        assert_eq!(
            g.state.least_penalty(offender.as_str()),
            Some(Penalty::Disqualify)
        );
        // Skipping rungs is escalating too.
        g.when(penalise(&id(2), Penalty::Warning));
        g.when(penalise(&id(2), Penalty::MissRounds(3)));
        assert_eq!(
            g.state.least_penalty(id(2).as_str()),
            Some(Penalty::MissRounds(4))
        );
        // The top rung: out of the tournament.
        g.when(penalise(&offender, out));
        assert_eq!(
            g.state.player(&offender).unwrap().standing,
            Standing::Out,
            "{preset:?}"
        );
        assert_eq!(g.state.least_penalty(offender.as_str()), None);
        assert_eq!(g.state.penalties().len(), 10);
        g.assert_replays();
    }
}

#[test]
fn houses_whose_books_do_not_escalate_leave_repeat_penalties_to_the_host() {
    // QueenSix, tournament rules: "A violator may be verbally warned, suspended from play
    // for a specified length of time, or disqualified from the tournament." No ladder: the
    // host weighs each infraction. The invitational and the WSOP house say nothing more.
    for preset in [Preset::QueenSix, Preset::Invitational, Preset::Wsop] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        for penalty in [
            Penalty::MissHands(3),
            Penalty::Warning,
            Penalty::Warning,
            Penalty::MissHands(1),
        ] {
            g.when(penalise(&id(1), penalty));
            assert_eq!(g.state.least_penalty(id(1).as_str()), None, "{preset:?}");
        }
    }
    // A WPH tournament scheduled before release 0.15.0 reads with escalation off (its
    // penalties were given without it), and re-derives as it was decided.
    let mut s = schedule(Preset::Wph, Tracking::Recorded);
    s.house.escalating_penalties = false;
    let mut g = Game::started(s, 4);
    g.when(penalise(&id(1), Penalty::MissRounds(2)));
    g.when(penalise(&id(1), Penalty::Warning));
    assert_eq!(g.state.least_penalty(id(1).as_str()), None);
    g.assert_replays();
}

#[test]
fn wph_50_a_forfeiture_takes_chips_out_of_play_and_leaves_the_player_in() {
    // WPH 50: "Soft play will result in penalties, which may include forfeiture of chips
    // and/or disqualification." WPH 44: chips taken out of view "will be forfeited";
    // QueenSix, tournament 25: "Chips taken off the table will be removed from the event."
    for preset in [Preset::Wph, Preset::QueenSix, Preset::Oracle] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        let in_play = g.state.chips_in_play().get();
        let stack = g.chips(&id(3));
        for bad in [0, stack, stack + 25] {
            assert!(
                matches!(
                    g.refused(penalise(&id(3), Penalty::Forfeit(chips(bad)))),
                    Err::BadPenalty { field: "chips", .. }
                ),
                "{preset:?} {bad}"
            );
        }
        // In the smallest chip in play (25 here).
        assert!(matches!(
            g.refused(penalise(&id(3), Penalty::Forfeit(chips(510)))),
            Err::BadPenalty { field: "chips", why } if why.contains("smallest chip in play (25)")
        ));
        // Between hands at the player's table, as a disqualification.
        let table = g.table_of(&id(3));
        g.start_hand(table);
        assert!(matches!(
            g.refused(penalise(&id(3), Penalty::Forfeit(chips(500)))),
            Err::HandInProgress { .. }
        ));
        g.fold_out(table);
        let stack = g.chips(&id(3));
        let events = g.when(penalise(&id(3), Penalty::Forfeit(chips(500))));
        assert!(
            matches!(&events[..], [Ev::PenaltyGiven { penalty: Penalty::Forfeit(c), hands: 0, .. }] if *c == chips(500)),
            "{events:?}"
        );
        assert_eq!(g.chips(&id(3)), stack - 500, "{preset:?}");
        assert_eq!(g.state.chips_in_play().get(), in_play - 500);
        assert!(matches!(
            g.state.player(&id(3)).unwrap().standing,
            Standing::Seated { .. }
        ));
        assert_eq!(g.state.remaining(), 4);
        // The next hand is dealt on the smaller stack.
        g.start_hand(table);
        g.fold_out(table);
        g.assert_replays();
    }
}

#[test]
fn oracle_4_5_elimination_puts_a_player_out_in_their_place_with_their_chips_out_of_play() {
    // Oracle, tournament 4: "A player can be issued the following penalties: ... 4.
    // Disqualification 5. Elimination". QueenSix, tournament 26: "A severe infraction such
    // as abusive or disruptive behaviour may be punished by eviction from the tournament."
    for preset in [Preset::Oracle, Preset::QueenSix] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        let table = g.table_of(&id(2));
        g.start_hand(table);
        assert!(matches!(
            g.refused(penalise(&id(2), Penalty::Eliminate)),
            Err::HandInProgress { .. }
        ));
        g.fold_out(table);
        let in_play = g.state.chips_in_play().get();
        let stack = g.chips(&id(2));
        let events = g.when(penalise(&id(2), Penalty::Eliminate));
        assert!(
            matches!(
                &events[0],
                Ev::PenaltyGiven {
                    penalty: Penalty::Eliminate,
                    ..
                }
            ),
            "{events:?}"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, Ev::PlayerDisqualified { .. })),
            "not a disqualification"
        );
        assert!(events.iter().any(|e| matches!(e,
            Ev::PlayersEliminated { players, reason, .. }
                if *players == vec![id(2)]
                    && *reason == format!("eliminated as a penalty: {stack} chips removed from play"))));
        assert_eq!(g.state.chips_in_play().get(), in_play - stack);
        assert_eq!(g.state.player(&id(2)).unwrap().standing, Standing::Out);
        assert_eq!(g.place(&id(2)), (4, 1));
        // Nothing more to give an eliminated player.
        assert!(matches!(
            g.refused(penalise(&id(2), Penalty::Warning)),
            Err::NotSeated(_)
        ));
        g.assert_replays();
    }
}

#[test]
fn a_penalty_reads_as_the_host_says_it() {
    for (penalty, text) in [
        (Penalty::Warning, "a warning"),
        (Penalty::MissHands(1), "1 hand missed"),
        (Penalty::MissRounds(3), "3 rounds missed"),
        (Penalty::Forfeit(chips(1500)), "1500 chips forfeited"),
        (Penalty::Disqualify, "disqualification"),
        (Penalty::Eliminate, "elimination"),
    ] {
        assert_eq!(penalty.to_string(), text);
    }
}

#[test]
fn a_player_a_penalty_put_out_may_not_enter_again() {
    // WPH 47: "A player who is disqualified shall have his or her chips removed from
    // play." QueenSix, tournament rules: "disqualified from the tournament". Oracle,
    // tournament 4.5: "Elimination". Out by a penalty is out of the event, whatever its
    // re-entries allow a player who busts.
    for (preset, out) in [
        (Preset::Wph, Penalty::Disqualify),
        (Preset::Oracle, Penalty::Eliminate),
        (Preset::QueenSix, Penalty::Disqualify),
    ] {
        let mut s = schedule(preset, Tracking::Recorded);
        assert!(s.house.out_for_good_when_penalised);
        s.reentries = Some(PurchasePolicy {
            per_player: 1,
            from_level: 1,
            until_level: 3,
            until_minutes: None,
            chips: chips(5000),
            max_stack: None,
            after_bust_only: false,
        });
        let mut g = Game::started(s.clone(), 4);
        g.when(penalise(&id(2), out));
        let at = g.tick(60_000);
        let (seed, next_commitment) = g.reveal();
        let entry = |player: PlayerId| Cmd::LateEntry {
            player,
            at,
            seed,
            next_commitment,
        };
        assert_eq!(
            g.refused(entry(id(2))),
            Err::PenalisedOut(id(2)),
            "{preset:?}"
        );
        // A tournament scheduled before release 0.15.0 took the re-entry, and its log
        // re-derives so.
        s.house.out_for_good_when_penalised = false;
        let mut old = Game::started(s, 4);
        old.when(penalise(&id(2), out));
        let at = old.tick(60_000);
        let (seed, next_commitment) = old.reveal();
        let events = old.when(Cmd::LateEntry {
            player: id(2),
            at,
            seed,
            next_commitment,
        });
        assert!(
            events
                .iter()
                .any(|e| matches!(e, Ev::PlayerEntered { player, .. } if *player == id(2))),
            "{preset:?}: {events:?}"
        );
        old.assert_replays();
    }
}
