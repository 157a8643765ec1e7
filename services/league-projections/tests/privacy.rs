//! No read model shows a hole card before it is shown: folding random dealt tournaments
//! event by event, every public table view (the stored documents) shows only cards that a
//! `HandShown` event of the current hand revealed; a player's view adds exactly their own
//! cards; an auditor sees every card of a completed hand and none of a hand in progress
//! that were not shown. The check covers every field of a view, not only `cards`. Where
//! the house does not count no-limit pots for players (WPH 38, Oracle), only an auditor's
//! view of a hand in progress carries the pot's size.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeSet;

use league_engine::hand::{Event as HandEvent, Seat};
use league_engine::rules::Preset;
use league_engine::tournament::play::{self, Tournament, TournamentEvent, Tracking};
use league_engine::tournament::sim::{SimOptions, TournamentSim};
use league_projections::views::{Viewer, table_view};

#[test]
fn no_view_shows_a_hole_card_before_it_is_shown() {
    for (seed, tracking) in [
        (1, Tracking::Dealt),
        (2, Tracking::Recorded),
        (3, Tracking::Dealt),
    ] {
        let mut sim = TournamentSim::new(
            seed,
            SimOptions {
                players: 14,
                preset: Preset::Wph,
                tracking,
                table_size: 9,
                rebuys: false,
                late: 0,
                ids: Vec::new(),
                venue: "sim".into(),
                name_hands: false,
            },
        )
        .unwrap();
        sim.run(100_000).unwrap();
        let mut state = Tournament::new();
        // Seats shown in the current hand of each table.
        let mut shown: std::collections::BTreeMap<u32, BTreeSet<Seat>> = Default::default();
        let mut checked = 0;
        for event in &sim.events {
            play::apply(&mut state, event);
            match event {
                TournamentEvent::TableHandStarted { table, .. } => {
                    shown.insert(*table, BTreeSet::new());
                }
                TournamentEvent::HandEvent {
                    table,
                    event: HandEvent::HandShown { seat, .. },
                } => {
                    shown.entry(*table).or_default().insert(*seat);
                }
                _ => {}
            }
            for (&number, table) in state.tables() {
                let Some(public) = table_view(&state, number, &Viewer::Public) else {
                    continue;
                };
                let revealed = shown.get(&number).cloned().unwrap_or_default();
                for s in &public.seats {
                    if s.cards.is_some() {
                        assert!(
                            revealed.contains(&s.seat),
                            "table {number} seat {} visible unshown",
                            s.seat
                        );
                    }
                }
                // Whatever else a view carries (bets, pots, legal actions, blinds...), no
                // unshown hole card appears anywhere in it: not in the public view, and not
                // in a player's view unless it is their own.
                let hidden = |viewer: Option<&Seat>| -> Vec<String> {
                    public
                        .seats
                        .iter()
                        .filter(|s| !revealed.contains(&s.seat) && Some(&s.seat) != viewer)
                        .filter_map(|s| table.hand().and_then(|h| h.hole_cards(s.seat)))
                        .flatten()
                        .map(|c| format!("\"{c}\""))
                        .collect()
                };
                let text = serde_json::to_string(&public).unwrap();
                for card in hidden(None) {
                    assert!(!text.contains(&card), "table {number}: {card} in {text}");
                }
                let over = table.hand().is_some_and(|h| h.is_over());
                for s in &public.seats {
                    let own =
                        table_view(&state, number, &Viewer::Player(s.player.clone())).unwrap();
                    let text = serde_json::to_string(&own).unwrap();
                    for card in hidden(Some(&s.seat)) {
                        assert!(!text.contains(&card), "{} sees {card} in {text}", s.player);
                    }
                    for o in &own.seats {
                        let known = table.hand().and_then(|h| h.hole_cards(o.seat));
                        if o.player == s.player {
                            assert_eq!(o.cards, known, "a player sees their own cards");
                        } else if !revealed.contains(&o.seat) {
                            assert_eq!(o.cards, None, "{} sees {}'s cards", s.player, o.player);
                        }
                    }
                }
                let auditor = table_view(&state, number, &Viewer::Auditor).unwrap();
                for a in &auditor.seats {
                    let known = table.hand().and_then(|h| h.hole_cards(a.seat));
                    if over {
                        assert_eq!(a.cards, known, "an auditor sees a completed hand");
                    } else if !revealed.contains(&a.seat) {
                        assert_eq!(a.cards, None, "an auditor does not see a hand in progress");
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 300, "only {checked} views checked");
    }
}

/// WPH 38: "Players are entitled to be informed of the pot size in pot-limit games only.
/// Dealers will not count the pot in limit and no-limit games." Oracle's "Pot Size" says
/// the same. Folding simulated no-limit tournaments event by event: under those houses no
/// player's view and no public view of a hand in progress carries the pot or a pot's
/// amount (who can win each pot is still shown, and the bets in front of each seat, as at
/// the table); an auditor's does, and equals the chips put in. Under the houses whose
/// books are silent everyone sees the count.
#[test]
fn wph_38_and_oracle_pot_size_no_limit_pots_are_not_counted_for_players() {
    for (seed, preset) in [
        (4, Preset::Wph),
        (5, Preset::Oracle),
        (6, Preset::QueenSix),
        (7, Preset::Invitational),
    ] {
        let counted = !matches!(preset, Preset::Wph | Preset::Oracle);
        let mut sim = TournamentSim::new(
            seed,
            SimOptions {
                players: 12,
                preset,
                tracking: Tracking::Dealt,
                table_size: 9,
                rebuys: false,
                late: 0,
                ids: Vec::new(),
                venue: "sim".into(),
                name_hands: false,
            },
        )
        .unwrap();
        sim.run(100_000).unwrap();
        let mut state = Tournament::new();
        let (mut in_hand, mut side_pots) = (0, 0);
        for event in &sim.events {
            play::apply(&mut state, event);
            for (&number, table) in state.tables() {
                let Some(auditor) = table_view(&state, number, &Viewer::Auditor) else {
                    continue;
                };
                // A hand under way: started (its house rules known, its blinds going in).
                let playing = table.in_hand()
                    && table
                        .hand()
                        .is_some_and(|h| h.phase() != league_engine::hand::Phase::NotStarted);
                let pot = table
                    .hand()
                    .filter(|_| playing)
                    .map_or(0, |h| h.pot_total());
                if playing {
                    assert_eq!(auditor.pot.map(|c| c.get()), Some(pot), "{preset:?}");
                }
                assert!(auditor.pots.iter().all(|p| p.amount.is_some()));
                let mut viewers = vec![Viewer::Public];
                viewers.extend(
                    auditor
                        .seats
                        .iter()
                        .map(|s| Viewer::Player(s.player.clone())),
                );
                for viewer in &viewers {
                    let view = table_view(&state, number, viewer).unwrap();
                    let told = counted || !playing;
                    assert_eq!(
                        view.pot,
                        told.then_some(auditor.pot.unwrap()),
                        "{preset:?} {viewer:?}"
                    );
                    assert_eq!(view.pots.len(), auditor.pots.len());
                    for (p, a) in view.pots.iter().zip(&auditor.pots) {
                        assert_eq!(p.seats, a.seats, "who can win each pot is shown");
                        assert_eq!(p.amount, if told { a.amount } else { None });
                    }
                    let bets = |v: &league_projections::views::TableView| -> Vec<_> {
                        v.seats.iter().map(|s| (s.seat, s.bet, s.chips)).collect()
                    };
                    assert_eq!(bets(&view), bets(&auditor), "bets and stacks are shown");
                }
                if playing && pot > 0 {
                    in_hand += 1;
                    side_pots += usize::from(auditor.pots.len() > 1);
                }
            }
        }
        assert!(
            in_hand > 300 && side_pots > 0,
            "{preset:?}: {in_hand} hands in progress, {side_pots} with side pots"
        );
    }
}
