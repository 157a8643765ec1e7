#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]
//! The tournament aggregate, given/when/then: each tournament row of RULEBOOKS.md tested
//! per preset with the rulebook's own example (quoted with its house and rule number,
//! `../shared/rulebooks/`), every command's refusals as typed errors that change nothing,
//! the draws re-derived from the revealed seeds as an auditor would, and a results-only
//! pub night.

#[path = "support/tour.rs"]
mod tour;

use league_engine::hand::{
    ABSENT_AT_THE_DEAL, BlindKind, Event as HandEvent, FoldReason, KillCause,
};
use league_engine::rules::Preset;
use league_engine::tournament::payouts::{PayoutStructure, PayoutTable};
use league_engine::tournament::play::{
    BustOrder, Penalty, Standing, TournamentCommand as Cmd, TournamentError as Err,
    TournamentEvent as Ev, Tracking,
};
use league_engine::units::{Cents, Chips, PlayerId};
use tour::{Game, hand_events, id, schedule};

// ---------------------------------------------------------------------------------------
// Several busts in one hand
// ---------------------------------------------------------------------------------------

/// Three players at one recorded table. Hand 1: everyone folds to the big blind, who wins
/// the small blind. Returns the game and the players by stack: 5,025, 5,000 and 4,975.
fn three_stacks(preset: Preset) -> (Game, PlayerId, PlayerId, PlayerId) {
    let mut g = Game::started(schedule(preset, Tracking::Recorded), 3);
    let p = g.fold_round(1);
    let big = g.player_at(1, p.big_blind);
    let small = g.player_at(1, p.small_blind);
    let middle = g.player_at(1, p.button);
    assert_eq!(
        (g.chips(&big), g.chips(&middle), g.chips(&small)),
        (5025, 5000, 4975)
    );
    g.start_hand(1);
    (g, big, middle, small)
}

fn eliminated(events: &[Ev]) -> Vec<(Vec<PlayerId>, bool, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Ev::PlayersEliminated {
                players,
                tied,
                rule,
                ..
            } => Some((players.clone(), *tied, rule.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn queensix_31_several_broke_on_one_hand_the_larger_starting_stack_finishes_higher() {
    // QueenSix 31: "If multiple players go broke on the same hand, the player starting the
    // hand with the larger amount of chips finishes in the higher place for prize money and
    // any other award."
    // Oracle, tournament rule 3: "If two or more players are eliminated at the same table,
    // the player with the higher chip count will receive higher finishing place."
    // WPH does not say: the engine's default is QueenSix's rule.
    for preset in [Preset::QueenSix, Preset::Wph, Preset::Oracle] {
        let (mut g, big, middle, small) = three_stacks(preset);
        // The smaller stack holds the better hand; it does not matter here.
        let events = g.all_in(
            1,
            &[(&big, "AsAh"), (&middle, "QsQh"), (&small, "KsKh")],
            "2c7d9h3s8d",
        );
        let out = eliminated(&events);
        assert_eq!(out.len(), 1, "{preset:?}: one group out");
        assert_eq!(out[0].0, vec![middle.clone(), small.clone()], "{preset:?}");
        assert!(!out[0].1, "not tied");
        assert_eq!(g.finish(&big).0, 1);
        assert_eq!(g.finish(&middle).0, 2, "{preset:?}: 5,000 beats 4,975");
        assert_eq!(g.finish(&small).0, 3);
        g.assert_replays();
    }
    assert_eq!(
        league_engine::tournament::play::TournamentRules::for_preset(Preset::Wph).bust_order,
        BustOrder::LargerStartingStack
    );
}

#[test]
fn invitational_10_1_several_out_on_one_hand_the_better_hand_finishes_higher() {
    // Invitational 10.1: "The player who had the better hand finishes higher than the
    // player who had the lower hand. If the hands are the same, the player with the higher
    // chip stack (at the start of this hand) will finish higher."
    let (mut g, big, middle, small) = three_stacks(Preset::Invitational);
    let events = g.all_in(
        1,
        &[(&big, "AsAh"), (&middle, "QsQh"), (&small, "KsKh")],
        "2c7d9h3s8d",
    );
    let out = eliminated(&events);
    assert_eq!(out[0].0, vec![small.clone(), middle.clone()]);
    assert_eq!(out[0].2, "invitational 10.1");
    assert_eq!(
        g.finish(&small).0,
        2,
        "kings beat queens, whatever the stacks"
    );
    assert_eq!(g.finish(&middle).0, 3);
}

#[test]
fn invitational_10_1_the_same_hand_the_larger_starting_stack_finishes_higher() {
    let (mut g, big, middle, small) = three_stacks(Preset::Invitational);
    let events = g.all_in(
        1,
        &[(&big, "AsAh"), (&middle, "KdKc"), (&small, "KsKh")],
        "2c7d9h3s8d",
    );
    assert_eq!(
        eliminated(&events)[0].0,
        vec![middle.clone(), small.clone()]
    );
    assert_eq!(g.finish(&middle).0, 2, "the same hand: 5,000 beats 4,975");
}

/// Six players at two recorded tables of three, paying three places; after one bust at
/// each table, four are left on two tables: hand-for-hand.
#[test]
fn a_knockout_is_by_a_player_at_the_same_table() {
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.table_size = 3;
    let mut g = Game::started(s, 6);
    assert_eq!(g.state.tables().len(), 2);
    let at = |g: &Game, table: u32| -> Vec<PlayerId> {
        g.state.tables()[&table].seats.values().cloned().collect()
    };
    let (one, two) = (at(&g, 1)[0].clone(), at(&g, 2)[0].clone());
    let e = g.refused(Cmd::Eliminate {
        players: vec![two.clone()],
        by: Some(one.clone()),
    });
    assert_eq!(
        e,
        Err::KnockoutFromAnotherTable {
            player: two.clone(),
            table: 2,
            by: one.clone(),
            by_table: 1,
        }
    );
    // By a player at the same table: the chips stay there.
    let mate = at(&g, 2)[1].clone();
    g.when(Cmd::Eliminate {
        players: vec![two.clone()],
        by: Some(mate.clone()),
    });
    assert_eq!(g.table_of(mate.as_str()), 2);
}

fn hand_for_hand(preset: Preset) -> Game {
    let mut s = schedule(preset, Tracking::Recorded);
    s.table_size = 3;
    s.payouts = PayoutTable::new(vec![
        (1, PayoutStructure::new(vec![10_000]).unwrap()),
        (6, PayoutStructure::new(vec![5_000, 3_000, 2_000]).unwrap()),
    ])
    .unwrap();
    let mut g = Game::started(s, 6);
    for table in [1, 2] {
        let p = g.start_hand(table);
        let a = g.player_at(table, p.small_blind);
        let b = g.player_at(table, p.big_blind);
        g.all_in(table, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    }
    assert!(g.state.hand_for_hand(), "four left, three paid");
    assert_eq!(g.state.tables().len(), 2);
    g
}

#[test]
fn oracle_hand_for_hand_busts_at_separate_tables_share_the_places_and_split_the_prizes() {
    // Oracle, tournament rule 3: "During “Hand for Hand” play, if two or more players are
    // eliminated at separate tables, they will split the prizes equally."
    let mut g = hand_for_hand(Preset::Oracle);
    // One hand-for-hand round: both tables deal, then both play out.
    let p1 = g.start_hand(1);
    let p2 = g.start_hand(2);
    let (w1, l1) = (g.player_at(1, p1.small_blind), g.player_at(1, p1.big_blind));
    let (w2, l2) = (g.player_at(2, p2.small_blind), g.player_at(2, p2.big_blind));
    g.all_in(1, &[(&w1, "AsAh"), (&l1, "KsKh")], "2c7d9h3s8d");
    assert!(
        g.state.hand_for_hand(),
        "the round is not over while table 2 plays its hand"
    );
    g.all_in(2, &[(&w2, "AdAc"), (&l2, "KdKc")], "2s7h9d3c8h");
    assert_eq!(g.place(&l1), (3, 2), "places 3 and 4 shared");
    assert_eq!(g.place(&l2), (3, 2));
    assert!(!g.state.hand_for_hand(), "two left, in the money");
    // The two survivors at one final table; Oracle 14 draws for its button.
    assert_eq!(g.state.tables().len(), 1);
    assert!(g.state.redraw_due());
    g.redraw();
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    // The pool: 6 x $20 = $120; 50/30/20: $60, $36, $24; places 3 and 4 split $24 + $0.
    assert_eq!(g.finish(&a), (1, 1, 6000));
    assert_eq!(g.finish(&b), (2, 1, 3600));
    assert_eq!(g.finish(&l1), (3, 2, 1200));
    assert_eq!(g.finish(&l2), (3, 2, 1200));
    g.assert_replays();
}

#[test]
fn oracle_3_players_out_at_separate_tables_in_an_unknown_order_split_the_prizes() {
    // Oracle, tournament rule 3: "During regular play, if two or more players are
    // eliminated at separate tables, they will be assigned a finishing place based on the
    // order of his/her elimination. In the event it is impossible to determine the order of
    // elimination, they will equally split the prizes involved."
    let mut s = schedule(Preset::Oracle, Tracking::Results);
    s.table_size = 4;
    s.payouts = PayoutTable::new(vec![
        (1, PayoutStructure::new(vec![10_000]).unwrap()),
        (
            5,
            PayoutStructure::new(vec![3_500, 2_500, 2_000, 1_200, 800]).unwrap(),
        ),
    ])
    .unwrap();
    let mut g = Game::started(s, 8);
    assert_eq!(g.state.tables().len(), 2);
    // Three out one at a time: five left, every one of them paid.
    for t in [1, 2, 1] {
        let out = g.at_table(t)[0].clone();
        knock_out(&mut g, out.as_str());
    }
    assert!(!g.state.hand_for_hand(), "in the money");
    let (one, two) = (g.at_table(1), g.at_table(2));
    // Two at one table are placed by their chips, so an unknown order is refused for them.
    assert!(matches!(
        g.refused(Cmd::EliminateOrderUnknown {
            players: vec![two[0].clone(), two[1].clone()],
        }),
        Err::OutAtOneTable(..)
    ));
    // So is one player alone.
    assert!(matches!(
        g.refused(Cmd::EliminateOrderUnknown {
            players: vec![one[0].clone()],
        }),
        Err::NotEnoughPlayers { .. }
    ));
    // One from each table, the order unknown: places 4 and 5 shared.
    let (a, b) = (one[0].clone(), two[0].clone());
    let events = g.when(Cmd::EliminateOrderUnknown {
        players: vec![a.clone(), b.clone()],
    });
    assert_eq!(
        eliminated(&events),
        vec![(
            vec![a.clone(), b.clone()],
            true,
            "Oracle tournament rule 3".to_owned()
        )]
    );
    assert_eq!(g.place(&a), (4, 2));
    assert_eq!(g.place(&b), (4, 2));
    // The rest out one by one; the last one left wins.
    while g.state.remaining() > 1 {
        let next = g
            .state
            .tables()
            .values()
            .flat_map(|t| t.seats.values())
            .next()
            .unwrap()
            .clone();
        if g.state.redraw_due() {
            g.redraw();
        }
        knock_out(&mut g, next.as_str());
    }
    // The pool: 8 x $20 = $160. Places 4 and 5 pay 12% and 8%: $19.20 and $12.80, split
    // $16.00 each.
    assert_eq!(g.finish(&a), (4, 2, 1600));
    assert_eq!(g.finish(&b), (4, 2, 1600));
    g.assert_replays();
    // Under a house whose book does not say so, the host records the order.
    for preset in [Preset::QueenSix, Preset::Wph, Preset::Invitational] {
        let mut s = schedule(preset, Tracking::Results);
        s.table_size = 4;
        let g = Game::started(s, 8);
        let (a, b) = (g.at_table(1)[0].clone(), g.at_table(2)[0].clone());
        assert!(
            matches!(
                g.refused(Cmd::EliminateOrderUnknown {
                    players: vec![a, b]
                }),
                Err::OrderOfEliminationNeeded { .. }
            ),
            "{preset:?}"
        );
    }
}

fn misdeal(table: u32) -> Cmd {
    Cmd::Hand {
        table,
        command: league_engine::hand::Command::Void {
            reason: league_engine::hand::VoidReason::Misdeal(
                "the first hole card dealt was exposed".into(),
            ),
        },
    }
}

#[test]
fn queensix_irregularities_20_a_misdealt_hand_is_no_hand_of_the_hand_for_hand_round() {
    // QueenSix, irregularities 20: "If the first or second hole card dealt is exposed, a
    // misdeal results. The dealer will retrieve the card, reshuffle, and recut the cards."
    // Glossary: "MISDEAL: A mistake on the dealing of a hand which causes the cards to be
    // reshuffled and a new hand to be dealt." A round of hand-for-hand is one hand played
    // at every table: the misdealt hand is not it.
    for preset in [
        Preset::QueenSix,
        Preset::Oracle,
        Preset::Wph,
        Preset::Invitational,
    ] {
        let mut g = hand_for_hand(preset);
        let p1 = g.start_hand(1);
        let events = g.when(misdeal(1));
        assert!(
            matches!(events.last(), Some(Ev::VoidHandNotCounted { table: 1, penalised }) if penalised.is_empty()),
            "{preset:?}: {events:?}"
        );
        // Table 2 plays its hand of the round; nobody busts.
        g.fold_round(2);
        assert_eq!(
            g.refused(Cmd::StartHand {
                table: 2,
                seed: None,
                hand_id: None,
            }),
            Err::WaitingForHandForHand { waiting: vec![1] },
            "{preset:?}: table 1 has still to play the round's hand"
        );
        // Table 1 re-deals on the same button and plays it; then the next round opens.
        assert_eq!(g.start_hand(1), p1, "{preset:?}");
        g.fold_out(1);
        g.start_hand(2);
        g.assert_replays();
    }
}

/// Six players at two tables of three, four paid. Table 2's big blind wins the small
/// blind (5,025, 5,000 and 4,975 there); then table 1 loses a player heads-up, which leaves
/// five: hand-for-hand. Returns the game, table 1's two players and table 2's three by
/// stack.
fn bubble_at_three(preset: Preset) -> (Game, [PlayerId; 2], [PlayerId; 3]) {
    let mut s = schedule(preset, Tracking::Recorded);
    s.table_size = 3;
    s.payouts = PayoutTable::new(vec![
        (1, PayoutStructure::new(vec![10_000]).unwrap()),
        (
            6,
            PayoutStructure::new(vec![4_000, 3_000, 2_000, 1_000]).unwrap(),
        ),
    ])
    .unwrap();
    let mut g = Game::started(s, 6);
    let p = g.fold_round(2);
    let two = [
        g.player_at(2, p.big_blind),
        g.player_at(2, p.button),
        g.player_at(2, p.small_blind),
    ];
    assert_eq!(
        two.iter().map(|p| g.chips(p)).collect::<Vec<_>>(),
        vec![5025, 5000, 4975]
    );
    let p = g.start_hand(1);
    let (winner, loser) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&winner, "AsAh"), (&loser, "KsKh")], "2c7d9h3s8d");
    assert!(g.state.hand_for_hand(), "{preset:?}: five left, four paid");
    let one = g.at_table(1);
    assert_eq!(one.len(), 2);
    let one = if g.chips(&one[0]) > g.chips(&one[1]) {
        [one[0].clone(), one[1].clone()]
    } else {
        [one[1].clone(), one[0].clone()]
    };
    (g, one, two)
}

#[test]
fn on_the_bubble_two_out_in_one_hand_at_one_table_are_placed_by_the_house_rule() {
    // QueenSix 31: "If multiple players go broke on the same hand, the player starting the
    // hand with the larger amount of chips finishes in the higher place for prize money and
    // any other award." Oracle, tournament rule 3: "If two or more players are eliminated
    // at the same table, the player with the higher chip count will receive higher
    // finishing place." Invitational 10.1: the better hand finishes higher, then the larger
    // starting stack. Hand-for-hand changes none of this: only players out at separate
    // tables share.
    for (preset, higher) in [
        (Preset::QueenSix, 1),
        (Preset::Wph, 1),
        (Preset::Oracle, 1),
        (Preset::Invitational, 2),
    ] {
        let (mut g, _, [big, middle, small]) = bubble_at_three(preset);
        g.start_hand(2);
        // The smaller stack holds the better of the two losing hands.
        g.all_in(
            2,
            &[(&big, "AsAh"), (&middle, "QsQh"), (&small, "KsKh")],
            "2c7d9h3s8d",
        );
        let (above, below) = if higher == 1 {
            (&middle, &small)
        } else {
            (&small, &middle)
        };
        assert_eq!(g.place(above), (4, 1), "{preset:?}: the higher of the two");
        assert_eq!(g.place(below), (5, 1), "{preset:?}");
        g.assert_replays();
    }
}

#[test]
fn oracle_3_on_the_bubble_players_out_at_separate_tables_share_rank_by_rank() {
    // Oracle, tournament rule 3: "If two or more players are eliminated at the same table,
    // the player with the higher chip count will receive higher finishing place. [...]
    // During “Hand for Hand” play, if two or more players are eliminated at separate
    // tables, they will split the prizes equally." Two out at table 2 are ranked; the one
    // out at table 1 in the same round shares with the lower of them.
    let (mut g, [big_one, short_one], [big, middle, small]) = bubble_at_three(Preset::Oracle);
    g.start_hand(1);
    g.start_hand(2);
    g.all_in(
        2,
        &[(&big, "AsAh"), (&middle, "QsQh"), (&small, "KsKh")],
        "2c7d9h3s8d",
    );
    g.all_in(1, &[(&big_one, "AdAc"), (&short_one, "KdKc")], "2s7h9d3c8h");
    assert_eq!(g.place(&middle), (3, 1), "the higher chip count at table 2");
    assert_eq!(g.place(&small), (4, 2), "shares with table 1's player");
    assert_eq!(g.place(&short_one), (4, 2));
    g.assert_replays();
}

#[test]
fn queensix_outside_hand_for_hand_busts_at_separate_tables_take_separate_places() {
    // Oracle, tournament rule 3: "During regular play, if two or more players are
    // eliminated at separate tables, they will be assigned a finishing place based on the
    // order of his/her elimination."
    let g = hand_for_hand(Preset::QueenSix);
    let out: Vec<_> = g
        .log
        .iter()
        .filter_map(|e| match e {
            Ev::PlayersEliminated { players, .. } => Some(players[0].clone()),
            _ => None,
        })
        .collect();
    assert_eq!(out.len(), 2);
    assert_eq!(g.place(&out[0]), (6, 1), "out first");
    assert_eq!(g.place(&out[1]), (5, 1));
}

// ---------------------------------------------------------------------------------------
// Table balancing
// ---------------------------------------------------------------------------------------

/// The open seat an auditor expects a moved player to take: the first empty seat the big
/// blind reaches going clockwise from the next big blind (`skip_small_blind`: unless it is
/// the next hand's small blind and another is open).
fn earliest_due_big_blind(
    p: league_engine::button::Positions,
    occupied: &[u8],
    size: u8,
    skip_small_blind: bool,
) -> u8 {
    let empty: Vec<u8> = (0..size)
        .map(|k| (p.big_blind + k) % size)
        .filter(|s| !occupied.contains(s))
        .collect();
    empty
        .iter()
        .copied()
        .find(|&s| !skip_small_blind || s != p.small_blind)
        .unwrap_or(empty[0])
}

fn moves(events: &[Ev]) -> Vec<league_engine::tournament::balance::Move> {
    events
        .iter()
        .filter_map(|e| match e {
            Ev::PlayerMoved { moved, .. } => Some(moved.clone()),
            _ => None,
        })
        .collect()
}

/// Results tracking: the player is out, their chips to nobody.
fn knock_out(g: &mut Game, player: &str) -> Vec<Ev> {
    g.when(Cmd::Eliminate {
        players: vec![PlayerId::from(player.to_owned())],
        by: None,
    })
}

#[test]
fn queensix_13_15_within_one_player_at_six_tables_or_fewer_the_big_blind_moves_to_the_earliest_seat_due_it()
 {
    // QueenSix 15: "With more than six tables, table size will be kept within two players.
    // With six tables or less, table size will be kept within one player."
    // QueenSix 13: "If a player is needed to move from a table to balance tables, the
    // player due for the big blind will be automatically selected to move, and will be
    // given the earliest seat due for the big blind if more than one seat is open."
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 18);
    let at_one = g.at_table(1);
    assert!(moves(&knock_out(&mut g, &at_one[0])).is_empty(), "8 v 9");
    let from = g.upcoming(2);
    let (_, gone) = g.seat_of(&at_one[1]);
    let events = knock_out(&mut g, &at_one[1]);
    let m = moves(&events);
    assert_eq!(m.len(), 1, "7 v 9 is out of balance");
    let occupied: Vec<u8> = g.state.tables()[&1]
        .seats
        .keys()
        .copied()
        .filter(|&s| s != m[0].to_seat)
        .collect();
    assert!(!occupied.contains(&gone));
    let to = g.upcoming_with(1, &occupied);
    assert_eq!((m[0].from_table, m[0].from_seat), (2, from.big_blind));
    assert_eq!(m[0].to_table, 1);
    assert_eq!(
        m[0].to_seat,
        earliest_due_big_blind(to, &occupied, 9, false)
    );
    assert_eq!(m[0].rule, "QueenSix 13, 15");
}

#[test]
fn queensix_15_within_two_players_above_six_tables() {
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 63);
    assert_eq!(g.state.tables().len(), 7);
    let at_seven = g.at_table(7);
    knock_out(&mut g, &at_seven[0]);
    let events = knock_out(&mut g, &at_seven[1]);
    assert!(
        moves(&events).is_empty(),
        "7 v 9 at seven tables is within two"
    );
    let events = knock_out(&mut g, &at_seven[2]);
    assert_eq!(moves(&events).len(), 1, "6 v 9 is not");
}

#[test]
fn wph_7_play_halts_at_a_table_three_short_and_the_big_blind_moves_to_the_worst_position() {
    // WPH 7: "the player who will be big blind next will be moved to the worst position,
    // including taking a single big blind when available, even if that means the seat
    // will have the big blind twice. Worst position is never the small blind. [...] Play
    // will halt on any table that is three or more players short."
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 18);
    g.start_hand(1);
    g.start_hand(2);
    let four: Vec<PlayerId> = g.at_table(2).into_iter().take(4).collect();
    g.all_in(
        2,
        &[
            (&four[0], "AsAh"),
            (&four[1], "KsKh"),
            (&four[2], "QsQh"),
            (&four[3], "JsJh"),
        ],
        "2c7d9h3s8d",
    );
    assert_eq!(g.at_table(2).len(), 6);
    // Table 1 is still playing its hand: nobody can move yet.
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 2,
            seed: None,
            hand_id: None,
        }),
        Err::TableHalted {
            table: 2,
            rule: "WPH 7: play halts on any table three or more players short".into()
        }
    );
    let from = g.upcoming(1);
    let to = g.upcoming(2);
    let occupied: Vec<u8> = g.state.tables()[&2].seats.keys().copied().collect();
    let events = g.all_in(1, &[], "");
    let m = moves(&events);
    assert_eq!(m.len(), 1, "9 v 6: one move makes 8 v 7");
    assert_eq!((m[0].from_table, m[0].from_seat), (1, from.big_blind));
    assert_eq!(m[0].to_seat, earliest_due_big_blind(to, &occupied, 9, true));
    assert_ne!(m[0].to_seat, to.small_blind, "never the small blind");
    g.start_hand(2);
}

#[test]
fn invitational_2_1_imbalanced_only_two_apart_with_a_table_below_five_or_above_eight() {
    // Invitational 2.1: "Tables need to have a difference of at least 2 players, and have
    // less than 5 players or more than 8 players to become imbalanced."
    let mut s = schedule(Preset::Invitational, Tracking::Results);
    s.table_size = 10;
    let mut g = Game::started(s, 16);
    let at_one = g.at_table(1);
    knock_out(&mut g, &at_one[0]);
    let events = knock_out(&mut g, &at_one[1]);
    assert!(
        moves(&events).is_empty(),
        "6 v 8: two apart, but 5 to 8 each"
    );
    knock_out(&mut g, &at_one[2]);
    let events = knock_out(&mut g, &at_one[3]);
    let m = moves(&events);
    assert_eq!(m.len(), 1, "4 v 8: one move makes 5 v 7");
    assert_eq!(m[0].rule, "invitational 2.1");
}

// ---------------------------------------------------------------------------------------
// Breaking tables and redraws
// ---------------------------------------------------------------------------------------

fn redraw_required(events: &[Ev]) -> Option<(u32, bool, String)> {
    events.iter().find_map(|e| match e {
        Ev::RedrawRequired {
            tables,
            seats,
            rule,
        } => Some((*tables, *seats, rule.clone())),
        _ => None,
    })
}

#[test]
fn queensix_16_a_redraw_for_seating_at_three_two_and_one_tables() {
    // QueenSix 16: "In all events, there is a redraw for seating when the field is reduced
    // to three tables, two tables, and one table."
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 28);
    assert_eq!(g.state.tables().len(), 4);
    let mut left = 28;
    for tables in [3, 2, 1] {
        let mut due = None;
        while due.is_none() {
            let victim = g
                .state
                .players()
                .iter()
                .find(|(_, e)| matches!(e.standing, Standing::Seated { .. }))
                .map(|(p, _)| p.clone())
                .unwrap();
            due = redraw_required(&knock_out(&mut g, &victim));
            left -= 1;
        }
        let (n, seats, rule) = due.unwrap();
        assert_eq!((n, seats), (tables, true), "{left} left");
        assert!(rule.starts_with("QueenSix 16"));
        // No hand is played before the redraw, so nobody goes out before it either.
        let next = g
            .state
            .players()
            .iter()
            .find(|(_, e)| matches!(e.standing, Standing::Seated { .. }))
            .map(|(p, _)| p.clone())
            .unwrap();
        assert_eq!(
            g.refused(Cmd::Eliminate {
                players: vec![next],
                by: None
            }),
            Err::RedrawDue
        );
        let events = g.redraw();
        let Some(Ev::SeatsRedrawn { seats, .. }) = events.first() else {
            panic!("{events:?}");
        };
        assert_eq!(seats.len(), left);
        assert_eq!(g.state.tables().len(), usize::try_from(tables).unwrap());
    }
}

#[test]
fn queensix_11_tables_break_in_the_preset_order() {
    // QueenSix 11: "As players are eliminated, tables are broken in a pre-set order, with
    // players from the broken tables assigned to empty seats at other tables."
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.break_order = vec![2, 5];
    let mut g = Game::started(s, 37);
    assert_eq!(g.state.tables().len(), 5);
    let victim = g.at_table(1)[0].clone();
    let events = knock_out(&mut g, &victim);
    let broken: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Ev::TableBroken { table, rule, .. } => {
                assert_eq!(rule, "QueenSix 11, 13");
                Some(*table)
            }
            _ => None,
        })
        .collect();
    assert_eq!(broken, vec![2], "the first table of the preset order");
    assert_eq!(
        g.state.tables().keys().copied().collect::<Vec<_>>(),
        vec![1, 3, 4, 5]
    );
    assert!(g.state.tables().values().all(|t| t.seats.len() == 9));
}

#[test]
fn wph_6_players_from_a_broken_table_never_get_a_hand_between_the_small_blind_and_the_button() {
    // WPH 6: "Players going from a broken table to fill in seats assume the rights and
    // responsibilities of the position. They can get the big blind, the small blind, or
    // the button. The only place they cannot get a hand is between the small blind and
    // the button." Oracle's "Breaking Tables" says the same.
    for preset in [Preset::Wph, Preset::Oracle] {
        let mut g = Game::started(schedule(preset, Tracking::Results), 10);
        let victim = g.at_table(1)[0].clone();
        let events = knock_out(&mut g, &victim);
        let Some(Ev::TableBroken {
            table, moves, rule, ..
        }) = events.iter().find(|e| matches!(e, Ev::TableBroken { .. }))
        else {
            panic!("9 players fit one table: {events:?}");
        };
        assert_eq!(*table, 2);
        assert_eq!(moves.len(), 5);
        assert!(rule.contains("WPH 6"), "{rule}");
        // The positions at table 1 as the movers came: its players before the break.
        let taken: Vec<u8> = moves.iter().map(|(_, m)| m.to_seat).collect();
        let before: Vec<u8> = g.state.tables()[&1]
            .seats
            .keys()
            .copied()
            .filter(|s| !taken.contains(s))
            .collect();
        let to = g.upcoming_with(1, &before);
        // Seats strictly after the button and before the small blind, clockwise.
        let between = |s: u8| {
            let k = |x: u8| (x + 9 - to.button) % 9;
            k(s) > 0 && k(s) < k(to.small_blind)
        };
        let open: Vec<u8> = (0..9)
            .filter(|s| !g.state.tables()[&1].seats.contains_key(s))
            .collect();
        for (player, m) in moves {
            if between(m.to_seat) {
                assert!(
                    open.iter().all(|&s| between(s)),
                    "{preset:?}: {player} was put between the button and the small blind \
                     while another seat was open"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Colour-ups
// ---------------------------------------------------------------------------------------

/// Results tracking: the players' chips as counted, then on to the break that colours up
/// the 25s.
fn at_the_colour_up(mut g: Game, counts: &[u64]) -> Game {
    let counts = counts
        .iter()
        .enumerate()
        .map(|(i, &c)| (id(i + 1), Chips::new(c)))
        .collect();
    g.when(Cmd::RecordChips { counts });
    g.advance(60_000);
    let events = g.advance(60_000);
    assert!(matches!(events[..], [Ev::LevelStarted { level: 3, .. }]));
    assert!(g.state.colour_up_due().is_some());
    assert_eq!(
        g.refused(Cmd::AdvanceLevel { at: g.clock }),
        Err::ColourUpDue
    );
    g
}

fn coloured(
    events: &[Ev],
) -> (
    &[league_engine::tournament::play::ColouredPlayer],
    u64,
    u64,
    &str,
) {
    match events {
        [
            Ev::ChipsColouredUp {
                players,
                removed,
                added,
                rule,
                ..
            },
        ] => (players, removed.get(), added.get(), rule),
        _ => panic!("{events:?}"),
    }
}

#[test]
fn queensix_8_and_wph_17_nightly_left_over_low_chips_round_up_to_one_higher_chip() {
    // QueenSix 8: "All lower-denomination chips that are of sufficient quantity for a new
    // chip will be changed up directly. In any instance where a player has leftover
    // lower-denomination chips, they will be chipped up to one higher-denomination chip".
    // WPH 17 (nightly venue games): "if a player were to possess eight x $25 tournament
    // chips, they would receive two x $100 chips [...] if a player has either one, two or
    // three x $25 chips, they will be awarded with one x $100 chip."
    for (preset, rule) in [
        (Preset::QueenSix, "QueenSix 8"),
        (Preset::Wph, "WPH 17 (nightly games)"),
    ] {
        let g = Game::started(schedule(preset, Tracking::Results), 4);
        let mut g = at_the_colour_up(g, &[5025, 4950, 5075, 4950]);
        let events = g.when(Cmd::ColourUp {
            seed: None,
            next_commitment: None,
        });
        let (players, removed, added, r) = coloured(&events);
        assert_eq!(r, rule);
        let after: Vec<u64> = (1..=4).map(|n| g.chips(&id(n))).collect();
        assert_eq!(after, vec![5100, 5000, 5100, 5000], "{preset:?}");
        assert_eq!(players.len(), 4);
        assert_eq!((removed, added), (25 + 50 + 75 + 50, 400));
        assert_eq!(g.state.chip_unit(), 100);
        g.advance(60_000);
    }
}

#[test]
fn chip_race_oracle_invitational_2_4_and_wph_17_majors_seven_left_over_chips_race_for_two() {
    // WPH 17 (major events), procedure 2: "if there are 7 $25 chips remaining among 6
    // players, 2 $100 chips are prepared. In the event the remaining smaller chips do not
    // add up to a whole larger chip, an extra larger chip should be added." 4: "No player
    // is issued more than one chip." Oracle and invitational 2.4: "they will be raced off
    // with a maximum of one chip going to any player."
    for (preset, rule) in [
        (Preset::Oracle, "chip race"),
        (Preset::Invitational, "invitational 2.4"),
        (Preset::Wph, "WPH 17 (major events)"),
    ] {
        let mut s = schedule(preset, Tracking::Results);
        s.house = tour::chip_race_rules(preset);
        s.starting_chips = Chips::new(5025);
        let g = Game::started(s, 7);
        // Six players with left-overs: 1, 1, 1, 1, 1 and 2 chips of 25; the seventh none.
        let mut g = at_the_colour_up(g, &[5025, 5025, 5025, 5025, 5025, 5050, 5000]);
        assert_eq!(
            g.refused(Cmd::ColourUp {
                seed: None,
                next_commitment: None
            }),
            Err::RaceNeedsSeed
        );
        let events = g.race();
        let (players, removed, added, r) = coloured(&events);
        assert_eq!(r, rule);
        assert_eq!((removed, added), (175, 200), "{preset:?}: two $100 chips");
        assert!(players.iter().all(|p| p.raced <= 1));
        assert_eq!(players.iter().map(|p| p.raced).sum::<u64>(), 2);
        let cards: Vec<usize> = players.iter().map(|p| p.cards.len()).collect();
        assert_eq!(
            cards.iter().sum::<usize>(),
            7,
            "one card per left-over chip"
        );
        assert_eq!(g.chips(&id(7)), 5000, "no left-overs, no cards");
    }
}

#[test]
fn a_chip_race_cannot_eliminate_a_player() {
    // WPH 17: "A player cannot be raced out of a tournament: a player who loses his or her
    // remaining chip(s) in a chip race will be given one chip of the smallest denomination
    // still in play." Oracle and invitational 2.4 say the same.
    for preset in [Preset::Oracle, Preset::Invitational, Preset::Wph] {
        let mut s = schedule(preset, Tracking::Results);
        s.house = tour::chip_race_rules(preset);
        s.starting_chips = Chips::new(5025);
        let g = Game::started(s, 3);
        let mut g = at_the_colour_up(g, &[25, 5025, 10025]);
        g.race();
        assert_eq!(g.chips(&id(1)), 100, "{preset:?}: one $100 chip");
        assert!(matches!(
            g.state.player(&id(1)).unwrap().standing,
            Standing::Seated { .. }
        ));
        assert_eq!(g.state.remaining(), 3);
    }
}

// ---------------------------------------------------------------------------------------
// Re-buys
// ---------------------------------------------------------------------------------------

fn rebuys(
    preset: Preset,
    per_player: u32,
    after_bust_only: bool,
) -> league_engine::tournament::play::Schedule {
    let mut s = schedule(preset, Tracking::Recorded);
    s.levels = vec![
        tour::play_level(25, 50),
        tour::play_level(50, 100),
        tour::play_level(100, 200),
    ];
    s.pool.rebuy = Some(league_engine::tournament::pool::Price::new(
        Cents::new(2000),
        Cents::new(0),
    ));
    s.rebuys = Some(league_engine::tournament::play::PurchasePolicy {
        per_player,
        from_level: 1,
        until_level: 2,
        chips: Chips::new(5000),
        max_stack: None,
        after_bust_only,
        until_minutes: None,
    });
    s
}

#[test]
fn queensix_29_wph_19_announcing_a_rebuy_during_the_hand_obliges_it_even_when_the_player_wins() {
    // QueenSix 29: "In a re-buy tournament, if a player announces the intent to re-buy
    // before cards are dealt, that player is playing behind and is obligated to make the
    // re-buy." WPH 19: "If a player announces the intent to rebuy before a new hand, that
    // player is playing chips behind and is obligated to make the re-buy." Oracle: "is
    // obliged to make the re-buy."
    for preset in [Preset::QueenSix, Preset::Wph, Preset::Oracle] {
        let mut g = Game::started(rebuys(preset, 2, false), 3);
        let p = g.start_hand(1);
        let big = g.player_at(1, p.big_blind);
        let events = g.when(Cmd::AnnounceRebuy {
            player: big.clone(),
            at: g.clock,
        });
        assert_eq!(
            events,
            vec![Ev::RebuyAnnounced {
                player: big.clone(),
                at: g.clock
            }]
        );
        assert_eq!(
            g.refused(Cmd::AnnounceRebuy {
                player: big.clone(),
                at: g.clock
            }),
            Err::RebuyAnnounced(big.clone())
        );
        assert_eq!(
            g.refused(Cmd::DeclineRebuy {
                player: big.clone()
            }),
            Err::RebuyAnnounced(big.clone())
        );
        // Everyone folds: the big blind wins the small blind, and still re-buys.
        let events = g.all_in(1, &[], "");
        assert!(
            events.contains(&Ev::RebuyMade {
                player: big.clone(),
                chips: Chips::new(5000),
                paid: league_engine::tournament::pool::Price::new(Cents::new(2000), Cents::new(0)),
                obliged: true,
                at: g.clock
            }),
            "{preset:?}: {events:?}"
        );
        assert_eq!(g.chips(&big), 5025 + 5000);
        // Announced between hands, the re-buy is made there and then.
        let events = g.when(Cmd::AnnounceRebuy {
            player: big.clone(),
            at: g.clock,
        });
        assert!(matches!(events[..], [Ev::RebuyMade { obliged: false, .. }]));
        assert_eq!(g.state.purchases().rebuys, 2);
    }
}

#[test]
fn invitational_1_3_one_rebuy_within_the_window_straight_after_the_knockout() {
    // Invitational 1.3: "Re-buys will be limited to one per person, need to take place in
    // the first 2 hours of play, and need to be purchased immeadiatly after knockout."
    // (The window here: levels 1 and 2.)
    let mut g = Game::started(rebuys(Preset::Invitational, 1, true), 3);
    let seated = id(1);
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: seated.clone(),
            at: g.clock
        }),
        Err::RebuyOnlyAfterBust
    );
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    let events = g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ev::PlayerBusted { player, .. } if *player == b))
    );
    assert!(eliminated(&events).is_empty(), "free to re-buy");
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::RebuyDecisionPending {
            players: vec![b.clone()]
        }
    );
    let events = g.when(Cmd::Rebuy {
        player: b.clone(),
        at: g.clock,
    });
    assert!(matches!(events[0], Ev::RebuyMade { obliged: false, .. }));
    assert_eq!(g.chips(&b), 5000);
    // Busted again: one re-buy per person, so out.
    g.start_hand(1);
    let events = g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    assert_eq!(eliminated(&events)[0].0, vec![b.clone()]);
    // After the window (level 3) nobody re-buys.
    g.advance(60_000);
    g.advance(60_000);
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: a.clone(),
            at: g.clock
        }),
        Err::WindowClosed {
            what: "re-buys",
            from_level: 1,
            until_level: 2,
            level: 3
        }
    );
}

const MINUTE: i64 = 60_000;

#[test]
fn invitational_1_3_rebuys_close_after_the_first_two_hours_of_play_and_a_pause_is_not_play() {
    // Invitational 1.3: "Re-buys will be limited to one per person, need to take place in
    // the first 2 hours of play, and need to be purchased immeadiatly after knockout."
    // The window is by time: 120 minutes on the tournament clock, whatever the level.
    let mut s = rebuys(Preset::Invitational, 1, true);
    let policy = s.rebuys.as_mut().unwrap();
    policy.until_level = 3;
    policy.until_minutes = Some(120);
    let mut g = Game::started(s, 3);
    // Half an hour of play, half an hour paused (the clock stops), then on.
    let at = g.tick(30 * MINUTE);
    g.when(Cmd::Pause { at });
    let at = g.tick(30 * MINUTE);
    g.when(Cmd::Resume { at });
    g.advance(20 * MINUTE);
    // 140 minutes after the start, 110 of them played: a bust may still re-buy.
    g.tick(60 * MINUTE);
    assert_eq!(g.state.played(g.clock), 110 * MINUTE);
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    let events = g.when(Cmd::Rebuy {
        player: b.clone(),
        at: g.clock,
    });
    assert!(
        matches!(&events[0], Ev::RebuyMade { player, at, .. } if *player == b && *at == 140 * MINUTE),
        "the event records when it was bought: {events:?}"
    );
    // A re-buy cannot be dated before what the tournament already knows.
    let c = (1..=3).map(id).find(|p| *p != a && *p != b).unwrap();
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: c.clone(),
            at: 139 * MINUTE
        }),
        Err::ClockWentBack {
            last: 140 * MINUTE,
            got: 139 * MINUTE
        }
    );
    // The third player busts; the re-buy is asked for at 151 minutes, 121 of them played.
    g.start_hand(1);
    let events = g.all_in(1, &[(&a, "AsAh"), (&c, "KsKh")], "2c7d9h3s8d");
    assert!(
        eliminated(&events).is_empty(),
        "{c} may still decide: {events:?}"
    );
    let at = g.tick(11 * MINUTE);
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: c.clone(),
            at
        }),
        Err::TimeWindowClosed {
            what: "re-buys",
            until_minutes: 120,
            played_ms: 121 * MINUTE
        }
    );
    assert!(
        Err::TimeWindowClosed {
            what: "re-buys",
            until_minutes: 120,
            played_ms: 121 * MINUTE
        }
        .to_string()
        .contains("121 minutes have been played")
    );
    // The next level ends the wait: the player is out, for the re-buy period's reason.
    let events = g.advance(MINUTE);
    let out = eliminated(&events);
    assert_eq!(out[0].0, vec![c.clone()]);
    assert_eq!(out[0].2, "re-buy period");
    g.assert_replays();
}

#[test]
fn late_registration_closes_at_its_level_or_its_time_whichever_comes_first() {
    let mut s = schedule(Preset::Wph, Tracking::Results);
    s.late_registration_until_level = 3;
    s.late_registration_until_minutes = Some(30);
    let mut g = Game::started(s, 6);
    let at = g.tick(29 * MINUTE);
    let (seed, next_commitment) = g.reveal();
    let events = g.when(Cmd::LateEntry {
        player: id(7),
        at,
        seed,
        next_commitment,
    });
    assert!(
        matches!(events.last(), Some(Ev::PlayerEntered { at, .. }) if *at == 29 * MINUTE),
        "{events:?}"
    );
    // A quarter of an hour paused: 45 minutes after the start, 29 played.
    let at = g.tick(MINUTE / 2);
    g.when(Cmd::Pause { at });
    let at = g.tick(15 * MINUTE);
    g.when(Cmd::Resume { at });
    let (seed, next_commitment) = g.reveal();
    g.when(Cmd::LateEntry {
        player: id(8),
        at,
        seed,
        next_commitment,
    });
    // Half a minute later the thirty minutes are up, though level 1 runs on.
    let at = g.tick(MINUTE / 2);
    let (seed, next_commitment) = g.reveal();
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(9),
            at,
            seed,
            next_commitment
        }),
        Err::TimeWindowClosed {
            what: "late entries",
            until_minutes: 30,
            played_ms: 30 * MINUTE
        }
    );
    assert_eq!(g.state.level().unwrap().0, 1);
    assert_eq!(g.state.players().len(), 8);
}

#[test]
fn add_ons_close_at_their_time() {
    use league_engine::tournament::play::PurchasePolicy;
    use league_engine::tournament::pool::Price;
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.pool.add_on = Some(Price::new(Cents::new(1000), Cents::new(0)));
    s.add_ons = Some(PurchasePolicy {
        per_player: 1,
        from_level: 1,
        until_level: 7,
        until_minutes: Some(60),
        chips: Chips::new(3000),
        max_stack: None,
        after_bust_only: false,
    });
    let mut g = Game::started(s, 4);
    let at = g.tick(60 * MINUTE - 1);
    g.when(Cmd::AddOn { player: id(1), at });
    assert_eq!(g.chips(&id(1)), 8000);
    let at = g.tick(1);
    assert_eq!(
        g.refused(Cmd::AddOn { player: id(2), at }),
        Err::TimeWindowClosed {
            what: "add-ons",
            until_minutes: 60,
            played_ms: 60 * MINUTE
        }
    );
    g.assert_replays();
}

#[test]
fn invitational_1_3_a_busted_player_who_has_not_rebought_when_the_window_closes_is_out() {
    let mut g = Game::started(rebuys(Preset::Invitational, 1, true), 3);
    g.advance(60_000);
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    let events = g.advance(60_000);
    let out = eliminated(&events);
    assert_eq!(out[0].0, vec![b.clone()]);
    assert_eq!(out[0].2, "re-buy period");
    assert_eq!(g.state.player(&b).unwrap().standing, Standing::Out);
}

// ---------------------------------------------------------------------------------------
// Absent players
// ---------------------------------------------------------------------------------------

#[test]
fn queensix_3_an_absent_entrant_s_chips_are_removed_only_after_a_new_level_or_half_an_hour() {
    // QueenSix 3: "If the player is unable to be contacted, the chips may be removed from
    // play at the discretion of the Host anytime after a new betting level is begun or a
    // half-hour has elapsed, whichever occurs first."
    let half_hour = 30 * 60 * 1000;
    let mut g = Game::registered(schedule(Preset::QueenSix, Tracking::Results), 4);
    g.when(Cmd::MarkAbsent { player: id(1) });
    g.start();
    assert_eq!(
        g.refused(Cmd::RemoveAbsent {
            player: id(1),
            at: half_hour - 1
        }),
        Err::TooEarlyToRemove {
            rule: "QueenSix 3".into(),
            from_level: 2,
            from_at: half_hour
        }
    );
    let events = g.when(Cmd::RemoveAbsent {
        player: id(1),
        at: half_hour,
    });
    assert!(matches!(
        &events[0],
        Ev::AbsentPlayerRemoved { chips, rule, .. } if *chips == 5000 && rule == "QueenSix 3"
    ));
    assert_eq!(g.state.chips_in_play(), 15_000, "removed from play");
    assert_eq!(g.place(&id(1)), (4, 1));

    // A new level comes first.
    let mut g = Game::registered(schedule(Preset::QueenSix, Tracking::Results), 4);
    g.when(Cmd::MarkAbsent { player: id(1) });
    g.when(Cmd::MarkAbsent { player: id(2) });
    g.start();
    g.when(Cmd::Arrived { player: id(2) });
    g.advance(5 * 60 * 1000);
    g.when(Cmd::RemoveAbsent {
        player: id(1),
        at: g.clock,
    });
    // "If the player requests the chips be left in place until arrival, the request will
    // be honoured": a player who arrived is not an absent entrant.
    assert_eq!(
        g.refused(Cmd::RemoveAbsent {
            player: id(2),
            at: g.clock
        }),
        Err::NotAnAbsentEntrant(id(2))
    );
}

#[test]
fn queensix_5_and_invitational_3_1_absent_players_are_dealt_in_and_blinded() {
    // QueenSix 5: "A no-show or absent player is always dealt a hand. That player’s stack
    // will post chips for blinds and antes." Invitational 3.1: "An absent player (late,
    // unsold seat, potty break or OUT) is always dealt a hand, and will be put up for
    // blinds."
    for preset in [Preset::QueenSix, Preset::Invitational] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 3);
        let p = g.upcoming(1);
        let away = g.player_at(1, p.small_blind);
        g.when(Cmd::MarkAbsent {
            player: away.clone(),
        });
        let mark = g.log.len();
        g.start_hand(1);
        g.all_in(1, &[], "");
        let all = hand_events(&g.log[mark..]);
        assert!(
            all.iter()
                .any(|e| matches!(e, HandEvent::HandStarted { setup }
            if setup.seats.iter().any(|s| s.seat == p.small_blind && s.absent)))
        );
        assert!(all.iter().any(|e| matches!(e, HandEvent::BlindPosted {
            seat, kind: BlindKind::SmallBlind, amount: 25, ..
        } if *seat == p.small_blind)));
        // QueenSix kills the hand at the deal (tournament 10); the invitational folds it
        // when the action reaches it (3.1).
        let dead = match preset {
            Preset::QueenSix => all.iter().any(|e| {
                matches!(e, HandEvent::HandKilled {
                seat, cause: KillCause::Absent, ..
            } if *seat == p.small_blind)
            }),
            _ => all.iter().any(|e| {
                matches!(e, HandEvent::PlayerFolded {
                seat, reason: FoldReason::Absent
            } if *seat == p.small_blind)
            }),
        };
        assert!(dead, "{preset:?}");
        assert_eq!(g.chips(&away), 4975, "{preset:?}");
    }
}

#[test]
fn a_tournament_hand_is_played_in_its_smallest_chip() {
    // QueenSix odd chips 2: "An odd chip will be broken down to the smallest unit used in
    // the game"; Oracle betting 5: "The smallest chip that may be wagered in a game is the
    // smallest chip used in the antes, blinds, rake or collection." The tournament's chip
    // reaches the hand, which divides its pots and takes bets in it.
    for preset in [Preset::QueenSix, Preset::Oracle, Preset::Wph] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 3);
        assert_eq!(g.state.chip_unit(), Chips::new(25));
        let mark = g.log.len();
        g.start_hand(1);
        assert!(
            hand_events(&g.log[mark..])
                .iter()
                .any(|e| matches!(e, HandEvent::HandStarted { setup } if setup.chip_unit == 25))
        );
        let seat = g.hand(1).to_act().unwrap();
        assert_eq!(
            g.refused(Cmd::Hand {
                table: 1,
                command: league_engine::hand::Command::Act {
                    seat,
                    action: league_engine::hand::Action::RaiseTo(110),
                },
            }),
            Err::Hand(league_engine::hand::RuleError::NotInChipUnit { unit: 25, got: 110 })
        );
        g.act(1, league_engine::hand::Action::RaiseTo(125));
        g.fold_out(1);
        g.assert_replays();
    }
}

/// Where the absent big blind's hand went: the hand's events from `mark`.
fn absent_kills(g: &Game, mark: usize) -> Vec<u8> {
    hand_events(&g.log[mark..])
        .iter()
        .filter_map(|e| match e {
            HandEvent::HandKilled {
                seat,
                cause: KillCause::Absent,
                reason,
            } => {
                assert_eq!(reason, ABSENT_AT_THE_DEAL);
                Some(*seat)
            }
            _ => None,
        })
        .collect()
}

/// Three players at a recorded table under `schedule`, the next big blind marked absent
/// (after `before` is done to them), and the hand started: the game, the hand's
/// positions, the absent player and where the hand's events start in the log.
fn absent_big_blind(
    schedule: league_engine::tournament::play::Schedule,
    before: impl FnOnce(&mut Game, &PlayerId),
) -> (Game, league_engine::button::Positions, PlayerId, usize) {
    let mut g = Game::started(schedule, 3);
    let p = g.upcoming(1);
    let away = g.player_at(1, p.big_blind);
    before(&mut g, &away);
    g.when(Cmd::MarkAbsent {
        player: away.clone(),
    });
    let mark = g.log.len();
    g.start_hand(1);
    (g, p, away, mark)
}

#[test]
fn queensix_10_and_oracle_1_absent_hands_are_dead_at_the_deal() {
    // QueenSix tournament 10: "A player must be at the table by the time all players have
    // their complete starting hands in order to have a live hand for that deal. (The
    // dealer is instructed to kill the hands of all absent players immediately after
    // dealing each player a starting hand.)" Oracle tournament 1: "Players must be in
    // their seat when the dealer finishes the deal. If the player is not in his/her seat
    // then the dealer will muck their hand immediately."
    for preset in [Preset::QueenSix, Preset::Oracle] {
        // An absent big blind everyone folds to wins nothing: the last live hand, the
        // small blind's, takes the pot.
        let (mut g, p, away, mark) =
            absent_big_blind(schedule(preset, Tracking::Recorded), |_, _| {});
        let small = g.player_at(1, p.small_blind);
        let events: Vec<HandEvent> = hand_events(&g.log[mark..]).into_iter().cloned().collect();
        let preflop = events
            .iter()
            .position(|e| matches!(e, HandEvent::PreflopStarted))
            .unwrap();
        assert!(
            matches!(&events[preflop + 1], HandEvent::HandKilled { seat, cause: KillCause::Absent, .. } if *seat == p.big_blind),
            "{preset:?}: killed as soon as the deal ends: {events:?}"
        );
        assert_eq!(absent_kills(&g, mark), vec![p.big_blind]);
        assert!(g.hand(1).to_act().is_some(), "the present players play on");
        g.fold_out(1);
        // The big blind's 25 over the small blind nobody called comes back, as any bet
        // nobody called (and as PokerKit returns it); the rest is the small blind's.
        assert_eq!(
            g.chips(&away),
            4975,
            "{preset:?}: the big blind's called 25 lost"
        );
        assert_eq!(g.chips(&small), 5025, "{preset:?}");
        let hand: Vec<HandEvent> = hand_events(&g.log[mark..]).into_iter().cloned().collect();
        league_engine::hand::rederive(&hand).unwrap();
        g.assert_replays();

        // A blind that puts an absent player all-in keeps no live hand: they cannot win.
        let (mut g, p, away, mark) =
            absent_big_blind(schedule(preset, Tracking::Recorded), |g, away| {
                g.when(Cmd::Penalise {
                    player: away.clone(),
                    penalty: Penalty::Forfeit(Chips::new(4975)),
                });
            });
        let small = g.player_at(1, p.small_blind);
        assert!(
            hand_events(&g.log[mark..])
                .iter()
                .any(|e| matches!(e, HandEvent::BlindPosted {
            seat, amount: 25, all_in: true, ..
        } if *seat == p.big_blind))
        );
        assert_eq!(absent_kills(&g, mark), vec![p.big_blind]);
        g.fold_out(1);
        assert_eq!(g.chips(&away), 0, "{preset:?}");
        assert_eq!(g.chips(&small), 5025, "{preset:?}");
        g.assert_replays();

        // A player sitting out missed hands is away from the table: dead at the deal too.
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        let p = g.upcoming(1);
        let offender = g.player_at(1, p.button);
        g.when(Cmd::Penalise {
            player: offender,
            penalty: Penalty::MissHands(1),
        });
        let mark = g.log.len();
        g.start_hand(1);
        assert_eq!(absent_kills(&g, mark), vec![p.button], "{preset:?}");
        g.fold_out(1);

        // A table where nobody is present plays as before: each hand folded in turn.
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 3);
        for player in g.at_table(1) {
            g.when(Cmd::MarkAbsent { player });
        }
        let mark = g.log.len();
        g.start_hand(1);
        assert!(absent_kills(&g, mark).is_empty());
        assert!(g.hand(1).is_over());

        // A tournament scheduled before release 0.16.0 reads without the rule: the absent
        // big blind is folded only at their turn, and takes the walk.
        let mut old = schedule(preset, Tracking::Recorded);
        old.house.absent_hands_dead = false;
        let (mut g, _, away, mark) = absent_big_blind(old, |_, _| {});
        g.fold_out(1);
        assert!(absent_kills(&g, mark).is_empty());
        assert_eq!(g.chips(&away), 5025, "{preset:?}");
    }
    // The invitational and WPH fold an absent hand when the action reaches it
    // (invitational 3.1: "When a player is not present, and it is their turn for action,
    // the table will wait 60 seconds before killing their hand"; WPH leaves absence to the
    // director, 53).
    for preset in [Preset::Invitational, Preset::Wph] {
        let (mut g, _, away, mark) =
            absent_big_blind(schedule(preset, Tracking::Recorded), |_, _| {});
        g.fold_out(1);
        assert!(absent_kills(&g, mark).is_empty(), "{preset:?}");
        assert_eq!(g.chips(&away), 5025, "{preset:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Penalties
// ---------------------------------------------------------------------------------------

fn penalty_hands(events: &[Ev]) -> u32 {
    match events {
        [Ev::PenaltyGiven { hands, .. }] => *hands,
        _ => panic!("{events:?}"),
    }
}

#[test]
fn wph_47_and_oracle_4_missed_hands_are_players_at_the_table_times_rounds_dealt_in_while_away() {
    // Oracle, tournament rule 4: "the offender will be required to miss one hand for every
    // player (including the offender) who is at the table. A floor supervisor can assess a
    // one-, two-, three-, or four-round penalty (For example: 7 players x3 rounds = 21
    // missed hands)." WPH 47: "Except for a one-hand penalty, missed hand penalties will
    // be assessed as follows: The offender will miss one hand for every player, including
    // the offender, who is at the table when the penalty is given multiplied by the number
    // of rounds specified in the penalty. For the period of the penalty, the offender shall
    // remain away from the table but will continue to be dealt in."
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Recorded), 7);
    let events = g.when(Cmd::Penalise {
        player: id(1),
        penalty: Penalty::MissRounds(3),
    });
    assert_eq!(penalty_hands(&events), 21);
    let (_, seat) = g.seat_of(&id(1));
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    });
    assert!(
        matches!(&events[0], Ev::TableHandStarted { penalised, .. } if *penalised == vec![id(1)])
    );
    assert!(
        hand_events(&events)
            .iter()
            .any(|e| matches!(e, HandEvent::HandStarted { setup }
        if setup.seats.iter().any(|s| s.seat == seat && s.absent)))
    );
    assert_eq!(g.state.player(&id(1)).unwrap().missed_hands, 20);

    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 4);
    let events = g.when(Cmd::Penalise {
        player: id(2),
        penalty: Penalty::MissRounds(2),
    });
    assert_eq!(penalty_hands(&events), 8);
    let events = g.when(Cmd::Penalise {
        player: id(3),
        penalty: Penalty::MissHands(1),
    });
    assert_eq!(penalty_hands(&events), 1, "a one-hand penalty");
    assert!(matches!(&events[0], Ev::PenaltyGiven { rule, .. } if rule == "WPH 47"));
}

#[test]
fn wph_47_a_misdealt_hand_is_no_hand_of_a_missed_hands_penalty() {
    // WPH 47: "For the period of the penalty, the offender shall remain away from the
    // table but will continue to be dealt in." A misdealt hand is re-dealt (WPH 28; QueenSix
    // glossary: "a new hand to be dealt"): the offender still misses as many hands.
    for preset in [Preset::Wph, Preset::Oracle, Preset::QueenSix] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        let offender = id(2);
        g.when(Cmd::Penalise {
            player: offender.clone(),
            penalty: Penalty::MissHands(1),
        });
        assert_eq!(g.state.player(&offender).unwrap().missed_hands, 1);
        g.start_hand(1);
        assert_eq!(g.state.player(&offender).unwrap().missed_hands, 0);
        let events = g.when(misdeal(1));
        assert!(
            matches!(events.last(), Some(Ev::VoidHandNotCounted { penalised, .. }) if *penalised == vec![offender.clone()]),
            "{preset:?}: {events:?}"
        );
        assert_eq!(
            g.state.player(&offender).unwrap().missed_hands,
            1,
            "{preset:?}: the hand is still to miss"
        );
        let events = g.when(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        });
        assert!(
            matches!(&events[0], Ev::TableHandStarted { penalised, .. } if *penalised == vec![offender.clone()]),
            "{preset:?}: dealt in away again"
        );
        assert_eq!(g.state.player(&offender).unwrap().missed_hands, 0);
        g.assert_replays();
    }
}

#[test]
fn oracle_4_a_moved_player_serves_the_rest_of_the_penalty_at_the_new_table() {
    // Oracle, tournament rule 4: "If a player is moved while on a penalty, he/she will
    // sit-out the remainder of the penalty at the new table."
    let mut s = schedule(Preset::Oracle, Tracking::Recorded);
    s.table_size = 4;
    let mut g = Game::started(s, 6);
    let at_two = g.at_table(2);
    let offender = at_two[0].clone();
    let events = g.when(Cmd::Penalise {
        player: offender.clone(),
        penalty: Penalty::MissRounds(1),
    });
    assert_eq!(penalty_hands(&events), 3);
    // Two disqualifications at table 1 leave four players: table 2 breaks into table 1.
    for victim in g.at_table(1).into_iter().take(2) {
        g.when(Cmd::Penalise {
            player: victim,
            penalty: Penalty::Disqualify,
        });
    }
    assert_eq!(g.table_of(&offender), 1, "moved");
    g.redraw();
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    });
    assert!(
        matches!(&events[0], Ev::TableHandStarted { penalised, .. } if *penalised == vec![offender.clone()])
    );
    assert_eq!(g.state.player(&offender).unwrap().missed_hands, 2);
}

#[test]
fn a_disqualified_player_s_chips_are_removed_from_play() {
    // QueenSix, tournament rules: "Chips from a disqualified participant will be removed
    // from play." WPH 47: "A player who is disqualified shall have his or her chips removed
    // from play."
    for preset in [Preset::QueenSix, Preset::Wph, Preset::Oracle] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 4);
        g.fold_round(1);
        let chips = g.chips(&id(2));
        let events = g.when(Cmd::Penalise {
            player: id(2),
            penalty: Penalty::Disqualify,
        });
        assert!(events.iter().any(|e| matches!(e,
            Ev::PlayerDisqualified { player, chips_removed, .. }
                if *player == id(2) && *chips_removed == chips)));
        assert_eq!(g.state.chips_in_play(), 20_000 - chips, "{preset:?}");
        assert_eq!(g.state.player(&id(2)).unwrap().standing, Standing::Out);
        assert_eq!(g.place(&id(2)), (4, 1));
    }
}

// ---------------------------------------------------------------------------------------
// The prize pool
// ---------------------------------------------------------------------------------------

/// Results tracking: everyone but `p01` is knocked out by `p01`, one at a time.
fn play_out(g: &mut Game) {
    let mut left: Vec<PlayerId> = g
        .state
        .players()
        .iter()
        .filter(|(_, p)| matches!(p.standing, Standing::Seated { .. }))
        .map(|(id, _)| id.clone())
        .filter(|p| *p != id(1))
        .collect();
    while let Some(player) = left.pop() {
        g.when(Cmd::Eliminate {
            players: vec![player],
            by: Some(id(1)),
        });
    }
    assert!(g.state.results().is_some());
}

#[test]
fn queensix_sit_and_go_the_house_keeps_one_entry_above_four_players_and_half_at_four_or_fewer() {
    // QueenSix House Policies 5: "QueenSix will take the equivalent of one entry fee from
    // the prize pool as reimbursement for equipment hire and use if more than 4 players
    // are seated. If four or less players are playing, QueenSix will take the equivalent
    // of half a seat in fees."
    use league_engine::tournament::pool::{HouseCut, Price};
    for (players, pool, house) in [(5, 8_000, 2_000), (4, 7_000, 1_000), (2, 3_000, 1_000)] {
        let mut s = schedule(Preset::QueenSix, Tracking::Results);
        s.pool.entry = Price::new(Cents::new(2000), Cents::new(0));
        s.pool.house = HouseCut::QueenSixSitAndGo;
        let mut g = Game::started(s, players);
        let p = g.state.prize_pool().unwrap();
        assert_eq!(
            (p.total.get(), p.house.get()),
            (pool, house),
            "{players} players"
        );
        play_out(&mut g);
        let paid: Cents = g.state.results().unwrap().iter().map(|r| r.prize).sum();
        assert_eq!(paid, pool);
    }
}

#[test]
fn invitational_1_5_all_money_goes_to_the_pool_and_the_payouts_follow_rebuys() {
    // Invitational 1.5: "The approximate payout structure shall be clearly indicated before
    // the beginning of the tournament. The final payout structure may be modified due to
    // re-buys or late players increasing the pot. All moneys paid will be placed into the
    // pot, and distributed over the winning players."
    // Invitational 1.2: "$15 in cash will buy 2000 tournament chips."
    use league_engine::tournament::pool::{HouseCut, Price};
    let mut s = rebuys(Preset::Invitational, 1, true);
    s.starting_chips = Chips::new(2000);
    s.pool.entry = Price::new(Cents::new(1000), Cents::new(500));
    s.pool.rebuy = Some(Price::new(Cents::new(1500), Cents::new(0)));
    s.pool.house = HouseCut::AllToPool;
    let mut g = Game::registered(s, 4);
    let p = g.state.prize_pool().unwrap();
    assert_eq!(
        (p.total.get(), p.house.get()),
        (6_000, 0),
        "4 x $15, fees and all"
    );
    g.when(Cmd::SetPayouts {
        amounts: vec![Cents::new(6_000)],
    });
    g.start();
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    g.when(Cmd::Rebuy {
        player: b.clone(),
        at: g.clock,
    });
    assert_eq!(g.state.prize_pool().unwrap().total, 7_500);
    // The announced payouts were for $60: the pool grew, so they must be set again.
    assert_eq!(
        g.refused(Cmd::SetPayouts {
            amounts: vec![Cents::new(6_000)]
        }),
        Err::PayoutsDoNotSumToPool {
            pool: Cents::new(7_500),
            sum: Cents::new(6_000)
        }
    );
    g.when(Cmd::SetPayouts {
        amounts: vec![Cents::new(5_000), Cents::new(2_500)],
    });
    assert_eq!(g.state.prizes().unwrap(), vec![5_000, 2_500]);
}

// ---------------------------------------------------------------------------------------
// Capped blinds
// ---------------------------------------------------------------------------------------

#[test]
fn queensix_house_policies_4_the_blinds_are_capped_at_a_percentage_of_the_average_stack() {
    // QueenSix House Policies 4: "All QueenSix Poker League events will use a Capped Blind
    // structure. The blinds will capped at a preset percentage of the average stack at the
    // table. This percentage is set in advance and players will be made aware of it at the
    // beginning of play."
    let mut s = schedule(Preset::QueenSix, Tracking::Recorded);
    s.levels = vec![tour::play_level(25, 50), tour::play_level(500, 1000)];
    s.blind_cap_percent = Some(10);
    let mut g = Game::started(s, 3);
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    });
    assert!(matches!(
        &events[0],
        Ev::TableHandStarted { capped_from: None, blinds, .. } if blinds.big_blind == 50
    ));
    g.all_in(1, &[], "");
    g.advance(60_000);
    // The average stack is 5,000: 10% caps the 1,000 big blind at 500, the small blind
    // keeping its half.
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    });
    let Ev::TableHandStarted {
        blinds,
        capped_from,
        ..
    } = &events[0]
    else {
        panic!("{events:?}");
    };
    assert_eq!(
        (blinds.small_blind.get(), blinds.big_blind.get()),
        (250, 500)
    );
    assert_eq!(*capped_from, Some((Chips::new(1000), Chips::new(5000))));
    assert!(hand_events(&events).iter().any(|e| matches!(
        e,
        HandEvent::BlindPosted {
            kind: BlindKind::BigBlind,
            amount: 500,
            ..
        }
    )));
}

// ---------------------------------------------------------------------------------------
// The dead button through the tournament
// ---------------------------------------------------------------------------------------

fn posted(events: &[Ev], kind: BlindKind) -> Vec<u8> {
    hand_events(events)
        .into_iter()
        .filter_map(|e| match e {
            HandEvent::BlindPosted { seat, kind: k, .. } if *k == kind => Some(*seat),
            _ => None,
        })
        .collect()
}

/// Five invitational players at one recorded table; the first hand started. Returns the
/// game, the positions, and the seat of the first to act.
fn five_at_the_table() -> (Game, league_engine::button::Positions, u8) {
    let mut g = Game::started(schedule(Preset::Invitational, Tracking::Recorded), 5);
    let p = g.start_hand(1);
    let first = g.hand(1).to_act().unwrap();
    (g, p, first)
}

fn next_hand(g: &mut Game) -> (league_engine::button::Positions, Vec<Ev>) {
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    });
    let Ev::TableHandStarted { positions, .. } = &events[0] else {
        panic!("{events:?}");
    };
    (*positions, events)
}

#[test]
fn invitational_3_2_the_small_blind_busts_the_button_moves_to_the_empty_seat() {
    // Invitational 3.2: "If the small blind busts out and is not replaced by a player from
    // another table; the button moves to the now empty seat (the seat vacated by the
    // eliminated small blind). The player, who was the big blind, will now post the small
    // blind."
    let (mut g, p, _) = five_at_the_table();
    let (sb, bb) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&sb, "KsKh"), (&bb, "AsAh")], "2c7d9h3s8d");
    assert_eq!(g.state.player(&sb).unwrap().standing, Standing::Out);
    let (next, events) = next_hand(&mut g);
    assert_eq!(next.button, p.small_blind, "on the empty seat");
    assert_eq!(next.small_blind, p.big_blind);
    assert_eq!(posted(&events, BlindKind::SmallBlind), vec![p.big_blind]);
}

#[test]
fn invitational_3_3_the_big_blind_busts_no_small_blind_then_the_button_on_the_empty_seat() {
    // Invitational 3.3: "If the big blind busts out and not replaced by a player from
    // another table, the button moves to the player who was the small blind, the player to
    // the left of the eliminated player will now post the big blind. For this hand there
    // will be no small blind posted. On the next hand, the button will move to the empty
    // seat,"
    let (mut g, p, first) = five_at_the_table();
    let (sb, bb) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    g.all_in(1, &[(&sb, "AsAh"), (&bb, "KsKh")], "2c7d9h3s8d");
    let (next, events) = next_hand(&mut g);
    assert_eq!(next.button, p.small_blind);
    assert_eq!(
        next.big_blind, first,
        "the player left of the eliminated big blind"
    );
    assert!(
        posted(&events, BlindKind::SmallBlind).is_empty(),
        "no small blind"
    );
    g.all_in(1, &[], "");
    let (after, _) = next_hand(&mut g);
    assert_eq!(after.button, p.big_blind, "the button on the empty seat");
}

#[test]
fn invitational_3_4_both_blinds_bust_the_player_next_to_the_big_blind_posts_it() {
    // Invitational 3.4: "If the small blind and the big blind busts out and it not replaced
    // by players from another table, the button moves to the now empty seat (the seat
    // vacated by the eliminated small blind). The player, who is sitting next to the
    // eliminated big blind, will now post the big blind. The next hand, the button will
    // move to next empty seat, and the 2 players on the left of the button will post their
    // blinds."
    let (mut g, p, first) = five_at_the_table();
    let (sb, bb) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    let utg = g.player_at(1, first);
    g.all_in(
        1,
        &[(&utg, "AsAh"), (&sb, "KsKh"), (&bb, "QsQh")],
        "2c7d9h3s8d",
    );
    let (next, events) = next_hand(&mut g);
    assert_eq!(next.button, p.small_blind, "the small blind's empty seat");
    assert_eq!(next.big_blind, first);
    assert!(posted(&events, BlindKind::SmallBlind).is_empty());
    g.all_in(1, &[], "");
    let (after, events) = next_hand(&mut g);
    assert_eq!(after.button, p.big_blind, "the next empty seat");
    assert_eq!(posted(&events, BlindKind::SmallBlind), vec![first]);
}

// ---------------------------------------------------------------------------------------
// Breaking into the final table: Oracle 14 and invitational 2.2
// ---------------------------------------------------------------------------------------

#[test]
fn oracle_14_a_draw_for_the_button_at_the_final_table() {
    // Oracle, tournament rule 14: "A draw for the button will be held on one table at the
    // beginning of the tournament and once more at the final table."
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Results), 10);
    let victim = g.at_table(1)[0].clone();
    let events = knock_out(&mut g, &victim);
    let (tables, seats, rule) = redraw_required(&events).unwrap();
    assert_eq!((tables, seats), (1, false), "the button only");
    assert_eq!(rule, "Oracle 14: a draw for the button at the final table");
    let before = g.state.tables()[&1].seats.clone();
    let events = g.redraw();
    let Ev::SeatsRedrawn {
        seed,
        seats,
        buttons,
        ..
    } = &events[0]
    else {
        panic!("{events:?}");
    };
    assert!(seats.is_empty(), "nobody changes seat");
    assert_eq!(g.state.tables()[&1].seats, before);
    let occupied: Vec<u8> = before.keys().copied().collect();
    assert_eq!(
        buttons[..],
        [league_engine::tournament::draw::draw_button(seed, 1, &occupied).unwrap()]
    );
}

#[test]
fn invitational_2_2_combined_tables_draw_seats_and_the_button_as_a_new_game() {
    // Invitational 2.2: "When two or more tables are combined into one, the seat selection
    // and button placement will proceed as if it were a new game. This will happen when
    // both tables combined can fill one table (10 players)."
    let mut s = schedule(Preset::Invitational, Tracking::Recorded);
    s.table_size = 10;
    let mut g = Game::started(s, 12);
    assert_eq!(g.state.tables().len(), 2);
    let p = g.start_hand(1);
    let (a, b) = (g.player_at(1, p.small_blind), g.player_at(1, p.big_blind));
    let events = g.all_in(1, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    assert!(
        redraw_required(&events).is_none(),
        "eleven do not fit one table"
    );
    let p = g.start_hand(2);
    let (a, b) = (g.player_at(2, p.small_blind), g.player_at(2, p.big_blind));
    let events = g.all_in(2, &[(&a, "AsAh"), (&b, "KsKh")], "2c7d9h3s8d");
    let (tables, seats, rule) = redraw_required(&events).unwrap();
    assert_eq!((tables, seats), (1, true));
    assert!(rule.starts_with("invitational 2.2"));
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::RedrawDue
    );
    let events = g.redraw();
    let Ev::SeatsRedrawn { seats, buttons, .. } = &events[0] else {
        panic!("{events:?}");
    };
    assert_eq!(seats.len(), 10);
    assert!(seats.iter().all(|s| s.table == 1));
    assert_eq!(buttons.len(), 1);
    let p = g.start_hand(1);
    assert_eq!(p.button, buttons[0].button, "the drawn button deals first");
}

// ---------------------------------------------------------------------------------------
// Each command, given/when/then, and its refusals
// ---------------------------------------------------------------------------------------

#[test]
fn schedule_is_accepted_once_and_a_bad_schedule_is_refused() {
    let g = Game::scheduled(schedule(Preset::QueenSix, Tracking::Dealt));
    assert_eq!(
        g.refused(Cmd::Schedule(Box::new(schedule(
            Preset::QueenSix,
            Tracking::Dealt
        )))),
        Err::AlreadyScheduled
    );
    let fresh = Game::fresh();
    let mut s = schedule(Preset::QueenSix, Tracking::Dealt);
    s.table_size = 1;
    assert!(matches!(
        fresh.refused(Cmd::Schedule(Box::new(s))),
        Err::BadSchedule(_)
    ));
    let mut s = schedule(Preset::QueenSix, Tracking::Dealt);
    s.levels.insert(
        0,
        league_engine::tournament::play::Level::Break {
            minutes: 5,
            colour_up: None,
        },
    );
    assert!(matches!(
        fresh.refused(Cmd::Schedule(Box::new(s))),
        Err::BadSchedule(_)
    ));
    let mut s = schedule(Preset::QueenSix, Tracking::Dealt);
    s.pool.rebuy = Some(league_engine::tournament::pool::Price::new(
        Cents::new(2000),
        Cents::new(0),
    ));
    assert!(matches!(
        fresh.refused(Cmd::Schedule(Box::new(s))),
        Err::BadSchedule(m) if m.contains("re-buys need both")
    ));
    assert_eq!(
        fresh.refused(Cmd::Register { player: id(1) }),
        Err::NotScheduled
    );
}

#[test]
fn register_once_before_the_start_and_unregister_with_a_refund() {
    let mut g = Game::registered(schedule(Preset::Wph, Tracking::Dealt), 2);
    assert_eq!(
        g.refused(Cmd::Register { player: id(1) }),
        Err::AlreadyRegistered(id(1))
    );
    for bad in ["", "two words", "nul\u{0}", &"x".repeat(65)] {
        assert_eq!(
            g.refused(Cmd::Register {
                player: PlayerId::from(bad.to_owned())
            }),
            Err::BadPlayerId,
            "{bad:?}"
        );
    }
    let events = g.when(Cmd::Register { player: id(3) });
    assert!(matches!(&events[..], [Ev::PlayerRegistered { paid, .. }] if paid.price == 2000));
    let events = g.when(Cmd::Unregister { player: id(3) });
    assert_eq!(
        events,
        vec![Ev::PlayerUnregistered {
            player: id(3),
            refund: Cents::new(2500)
        }]
    );
    assert_eq!(
        g.refused(Cmd::Unregister { player: id(3) }),
        Err::UnknownPlayer(id(3))
    );
    g.start();
    assert_eq!(
        g.refused(Cmd::Register { player: id(9) }),
        Err::AlreadyStarted
    );
    assert_eq!(
        g.refused(Cmd::Unregister { player: id(1) }),
        Err::AlreadyStarted
    );
}

#[test]
fn start_needs_two_players_and_the_committed_seed() {
    let mut g = Game::registered(schedule(Preset::Wph, Tracking::Dealt), 1);
    let (seed, next) = (tour::secret(1), tour::secret(2).commitment());
    assert_eq!(
        g.refused(Cmd::Start {
            at: 0,
            seed,
            next_commitment: next
        }),
        Err::NotEnoughPlayers { players: 1 }
    );
    g.when(Cmd::Register { player: id(2) });
    assert_eq!(
        g.refused(Cmd::Start {
            at: 0,
            seed: tour::secret(7),
            next_commitment: next
        }),
        Err::BadSeed
    );
    assert_eq!(g.refused(Cmd::AdvanceLevel { at: 0 }), Err::NotStarted);
    let events = g.start();
    assert!(matches!(
        &events[..],
        [
            Ev::TournamentStarted { .. },
            Ev::LevelStarted { level: 1, .. }
        ]
    ));
    assert_eq!(
        g.refused(Cmd::Start {
            at: 0,
            seed: tour::secret(2),
            next_commitment: next
        }),
        Err::AlreadyStarted
    );
}

#[test]
fn the_clock_advances_pauses_and_resumes_and_never_goes_back() {
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 3);
    g.advance(1000);
    assert_eq!(
        g.refused(Cmd::AdvanceLevel { at: 999 }),
        Err::ClockWentBack {
            last: 1000,
            got: 999
        }
    );
    assert_eq!(g.refused(Cmd::Resume { at: 2000 }), Err::NotPaused);
    g.when(Cmd::Pause { at: 2000 });
    assert!(g.state.is_paused());
    assert_eq!(g.refused(Cmd::Pause { at: 2001 }), Err::Paused);
    // No hand starts while the clock is paused.
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::Paused
    );
    g.when(Cmd::Resume { at: 3000 });
    g.clock = 3000;
    g.start_hand(1);
    // Levels 3 (a break colouring up), 4 .. 7; then no more.
    g.all_in(1, &[], "");
    g.advance(1000);
    g.when(Cmd::ColourUp {
        seed: None,
        next_commitment: None,
    });
    for _ in 4..=7 {
        g.advance(1000);
    }
    assert_eq!(
        g.refused(Cmd::AdvanceLevel { at: g.clock + 1 }),
        Err::NoMoreLevels { level: 7 }
    );
}

#[test]
fn start_hand_is_refused_on_a_break_while_a_colour_up_or_a_redraw_is_due_and_at_a_busy_table() {
    let mut s = schedule(Preset::QueenSix, Tracking::Recorded);
    s.levels.insert(
        1,
        league_engine::tournament::play::Level::Break {
            minutes: 5,
            colour_up: None,
        },
    );
    let mut g = Game::started(s, 3);
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: Some(tour::secret(99)),
            hand_id: None,
        }),
        Err::SeedNotAllowed
    );
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 2,
            seed: None,
            hand_id: None,
        }),
        Err::NoSuchTable(2)
    );
    g.start_hand(1);
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::HandInProgress { table: 1 }
    );
    g.all_in(1, &[], "");
    g.advance(1000);
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::OnBreak
    );
    g.advance(1000); // 50/100
    g.advance(1000); // the colour-up break
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::ColourUpDue
    );

    // Tracking decides what a hand needs.
    let g = Game::started(schedule(Preset::QueenSix, Tracking::Dealt), 3);
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::SeedRequired
    );
    let g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 3);
    assert_eq!(
        g.refused(Cmd::StartHand {
            table: 1,
            seed: None,
            hand_id: None,
        }),
        Err::WrongTracking {
            tracking: Tracking::Results
        }
    );
}

#[test]
fn a_dealt_hand_is_dealt_from_its_seed() {
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Dealt), 3);
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: Some(tour::secret(1000)),
        hand_id: None,
    });
    assert_eq!(
        hand_events(&events)
            .iter()
            .filter(|e| matches!(e, HandEvent::HoleCardsDealt { .. }))
            .count(),
        3
    );
}

#[test]
fn acting_needs_a_hand_in_progress_and_the_players_turn() {
    use league_engine::hand::{Action, Command as HandCommand, RuleError};
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Recorded), 3);
    let fold = |seat| Cmd::Hand {
        table: 1,
        command: HandCommand::Act {
            seat,
            action: Action::Fold,
        },
    };
    assert_eq!(g.refused(fold(0)), Err::NoHandInProgress { table: 1 });
    assert_eq!(
        g.refused(Cmd::Hand {
            table: 3,
            command: HandCommand::Muck { seat: 0 }
        }),
        Err::NoSuchTable(3)
    );
    g.start_hand(1);
    let to_act = g.hand(1).to_act().unwrap();
    let other = *g.state.tables()[&1]
        .seats
        .keys()
        .find(|&&s| s != to_act)
        .unwrap();
    assert_eq!(
        g.refused(fold(other)),
        Err::Hand(RuleError::NotYourTurn {
            expected: Some(to_act),
            got: other
        })
    );
    let start = league_engine::hand::Command::Start {
        setup: match hand_events(&g.log)[0] {
            HandEvent::HandStarted { setup } => (**setup).clone(),
            e => panic!("{e:?}"),
        },
        seed: None,
    };
    assert_eq!(
        g.refused(Cmd::Hand {
            table: 1,
            command: start
        }),
        Err::UseStartHand
    );
    g.all_in(1, &[], "");
    assert_eq!(g.refused(fold(to_act)), Err::NoHandInProgress { table: 1 });
}

#[test]
fn absence_is_marked_once_and_arrival_only_for_the_absent() {
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Results), 3);
    assert_eq!(
        g.refused(Cmd::Arrived { player: id(1) }),
        Err::NotAbsent(id(1))
    );
    g.when(Cmd::MarkAbsent { player: id(1) });
    assert_eq!(
        g.refused(Cmd::MarkAbsent { player: id(1) }),
        Err::AlreadyAbsent(id(1))
    );
    assert_eq!(
        g.refused(Cmd::MarkAbsent { player: id(9) }),
        Err::UnknownPlayer(id(9))
    );
    // Absent after the start: not an absent entrant, so the chips stay.
    assert_eq!(
        g.refused(Cmd::RemoveAbsent {
            player: id(1),
            at: 0
        }),
        Err::NotAnAbsentEntrant(id(1))
    );
    g.when(Cmd::Arrived { player: id(1) });
}

#[test]
fn a_late_entry_sits_at_the_smallest_table_until_registration_closes() {
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.late_registration_until_level = 1;
    s.table_size = 4;
    let mut g = Game::started(s, 7);
    let (seed, next) = g.reveal();
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(1),
            at: g.clock,
            seed,
            next_commitment: next
        }),
        Err::AlreadyRegistered(id(1))
    );
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(8),
            at: g.clock,
            seed: tour::secret(77),
            next_commitment: next
        }),
        Err::BadSeed
    );
    let events = g.when(Cmd::LateEntry {
        player: id(8),
        at: g.clock,
        seed,
        next_commitment: next,
    });
    let Some(Ev::PlayerEntered {
        table,
        chips,
        reentry,
        ..
    }) = events.last()
    else {
        panic!("{events:?}");
    };
    assert_eq!((chips.get(), *reentry), (5000, false));
    assert_eq!(g.state.tables()[table].seats.len(), 4, "the table of three");
    // Both tables full: a new one opens.
    let (seed, next) = g.reveal();
    let events = g.when(Cmd::LateEntry {
        player: id(9),
        at: g.clock,
        seed,
        next_commitment: next,
    });
    assert!(matches!(events[0], Ev::TableOpened { table: 3 }));
    g.advance(1000);
    let (seed, next) = g.reveal();
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(10),
            at: g.clock,
            seed,
            next_commitment: next
        }),
        Err::RegistrationClosed {
            level: 2,
            until_level: 1
        }
    );
    // A player who is out may re-enter only where re-entries are offered.
    knock_out(&mut g, &id(2));
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(2),
            at: g.clock,
            seed,
            next_commitment: next
        }),
        Err::NotOffered("re-entries")
    );
}

#[test]
fn a_re_entry_gives_the_chips_of_its_policy() {
    let mut s = schedule(Preset::Wph, Tracking::Results);
    s.reentries = Some(league_engine::tournament::play::PurchasePolicy {
        per_player: 1,
        from_level: 1,
        until_level: 2,
        until_minutes: None,
        chips: Chips::new(3000),
        max_stack: None,
        after_bust_only: false,
    });
    let mut g = Game::started(s, 7);
    knock_out(&mut g, &id(2));
    let (seed, next) = g.reveal();
    let events = g.when(Cmd::LateEntry {
        player: id(2),
        at: g.clock,
        seed,
        next_commitment: next,
    });
    let Some(Ev::PlayerEntered { chips, reentry, .. }) = events.last() else {
        panic!("{events:?}");
    };
    assert_eq!((chips.get(), *reentry), (3000, true));
    assert_eq!(g.state.player(id(2).as_str()).unwrap().chips.get(), 3000);
}

#[test]
fn eliminate_and_record_chips_are_for_results_tracking_and_must_add_up() {
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Results), 4);
    assert_eq!(
        g.refused(Cmd::Eliminate {
            players: vec![id(1), id(1)],
            by: None
        }),
        Err::DuplicatePlayer(id(1))
    );
    assert_eq!(
        g.refused(Cmd::Eliminate {
            players: vec![id(1)],
            by: Some(id(1))
        }),
        Err::DuplicatePlayer(id(1))
    );
    assert_eq!(
        g.refused(Cmd::Eliminate {
            players: vec![id(1), id(2), id(3), id(4)],
            by: None
        }),
        Err::NotEnoughPlayers { players: 0 }
    );
    let counts = |c: [u64; 4]| (1..=4).map(id).zip(c.map(Chips::new)).collect::<Vec<_>>();
    assert_eq!(
        g.refused(Cmd::RecordChips {
            counts: counts([5000, 5000, 5000, 4975])
        }),
        Err::ChipCountMismatch {
            expected: Chips::new(20_000),
            got: Chips::new(19_975)
        }
    );
    assert_eq!(
        g.refused(Cmd::RecordChips {
            counts: counts([5000, 5000, 5000, 5000])[..3].to_vec()
        }),
        Err::MissingCount(id(4))
    );
    g.when(Cmd::RecordChips {
        counts: counts([8000, 2000, 5000, 5000]),
    });
    g.when(Cmd::Eliminate {
        players: vec![id(2)],
        by: Some(id(1)),
    });
    assert_eq!(g.chips(&id(1)), 10_000, "the knock-out takes the chips");
    assert_eq!(
        g.refused(Cmd::Eliminate {
            players: vec![id(2)],
            by: None
        }),
        Err::NotSeated(id(2))
    );
    assert_eq!(
        g.refused(Cmd::RecordChips {
            counts: vec![(id(2), Chips::new(1))]
        }),
        Err::NotSeated(id(2))
    );
    let r = Game::started(schedule(Preset::QueenSix, Tracking::Recorded), 3);
    assert_eq!(
        r.refused(Cmd::Eliminate {
            players: vec![id(1)],
            by: None
        }),
        Err::WrongTracking {
            tracking: Tracking::Recorded
        }
    );
    assert_eq!(
        r.refused(Cmd::RecordChips { counts: Vec::new() }),
        Err::WrongTracking {
            tracking: Tracking::Recorded
        }
    );
}

#[test]
fn rebuys_and_add_ons_are_refused_where_not_offered_out_of_their_window_over_the_limit_or_the_stack()
 {
    use league_engine::tournament::play::PurchasePolicy;
    use league_engine::tournament::pool::Price;
    let g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 3);
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: id(1),
            at: g.clock
        }),
        Err::NotOffered("re-buys")
    );
    assert_eq!(
        g.refused(Cmd::AddOn {
            player: id(1),
            at: g.clock
        }),
        Err::NotOffered("add-ons")
    );
    let mut s = rebuys(Preset::Wph, 1, false);
    s.rebuys.as_mut().unwrap().max_stack = Some(Chips::new(5000));
    s.pool.add_on = Some(Price::new(Cents::new(1000), Cents::new(0)));
    s.add_ons = Some(PurchasePolicy {
        per_player: 1,
        from_level: 2,
        until_level: 2,
        chips: Chips::new(3000),
        max_stack: None,
        after_bust_only: false,
        until_minutes: None,
    });
    let mut g = Game::started(s, 3);
    assert_eq!(
        g.refused(Cmd::AddOn {
            player: id(1),
            at: g.clock
        }),
        Err::WindowClosed {
            what: "add-ons",
            from_level: 2,
            until_level: 2,
            level: 1
        }
    );
    g.when(Cmd::Rebuy {
        player: id(1),
        at: g.clock,
    });
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: id(1),
            at: g.clock
        }),
        Err::LimitReached {
            what: "re-buys",
            limit: 1
        }
    );
    let p = g.fold_round(1);
    let big = g.player_at(1, p.big_blind);
    if big != id(1) {
        assert_eq!(
            g.refused(Cmd::Rebuy {
                player: big.clone(),
                at: g.clock
            }),
            Err::StackTooLarge {
                what: "re-buys",
                max: Chips::new(5000),
                got: Chips::new(5025)
            }
        );
    }
    g.advance(1000);
    g.start_hand(1);
    assert_eq!(
        g.refused(Cmd::AddOn {
            player: id(2),
            at: g.clock
        }),
        Err::HandInProgress { table: 1 }
    );
    g.all_in(1, &[], "");
    let events = g.when(Cmd::AddOn {
        player: id(2),
        at: g.clock,
    });
    assert!(matches!(events[..], [Ev::AddOnMade { chips, .. }] if chips == 3000));
    assert_eq!(
        g.refused(Cmd::AddOn {
            player: id(2),
            at: g.clock
        }),
        Err::LimitReached {
            what: "add-ons",
            limit: 1
        }
    );
    assert_eq!(
        g.refused(Cmd::DeclineRebuy { player: id(2) }),
        Err::NotBusted(id(2))
    );
}

#[test]
fn redraw_and_colour_up_only_when_due_and_with_the_committed_seed() {
    let mut s = schedule(Preset::Oracle, Tracking::Results);
    s.starting_chips = Chips::new(5025);
    let mut g = Game::started(s, 10);
    let (seed, next) = (tour::secret(2), tour::secret(3).commitment());
    assert_eq!(
        g.refused(Cmd::Redraw {
            seed,
            next_commitment: next
        }),
        Err::NoRedrawDue
    );
    assert_eq!(
        g.refused(Cmd::ColourUp {
            seed: Some(seed),
            next_commitment: Some(next)
        }),
        Err::NoColourUpDue
    );
    let victim = g.at_table(1)[0].clone();
    knock_out(&mut g, &victim);
    assert!(g.state.redraw_due());
    assert_eq!(
        g.refused(Cmd::Redraw {
            seed: tour::secret(3),
            next_commitment: next
        }),
        Err::BadSeed
    );
    g.redraw();
    g.advance(1000);
    g.advance(1000);
    assert_eq!(
        g.refused(Cmd::ColourUp {
            seed: Some(tour::secret(2)),
            next_commitment: Some(next)
        }),
        Err::BadSeed,
        "the seed revealed by the redraw is spent"
    );
    g.race();
}

#[test]
fn penalties_go_to_players_still_in_and_disqualification_waits_for_the_hand() {
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 3);
    assert_eq!(
        g.refused(Cmd::Penalise {
            player: id(7),
            penalty: Penalty::Warning
        }),
        Err::UnknownPlayer(id(7))
    );
    let events = g.when(Cmd::Penalise {
        player: id(1),
        penalty: Penalty::Warning,
    });
    assert_eq!(penalty_hands(&events), 0);
    assert_eq!(g.state.player(&id(1)).unwrap().warnings, 1);
    g.start_hand(1);
    assert_eq!(
        g.refused(Cmd::Penalise {
            player: id(1),
            penalty: Penalty::Disqualify
        }),
        Err::HandInProgress { table: 1 }
    );
    g.all_in(1, &[], "");
    g.when(Cmd::Penalise {
        player: id(1),
        penalty: Penalty::Disqualify,
    });
    assert_eq!(
        g.refused(Cmd::Penalise {
            player: id(1),
            penalty: Penalty::Warning
        }),
        Err::NotSeated(id(1))
    );
}

#[test]
fn payouts_must_sum_to_the_pool_and_never_pay_a_place_more_than_the_one_above() {
    let mut g = Game::registered(schedule(Preset::Wph, Tracking::Results), 5);
    // 5 x $20 = $100.
    assert_eq!(
        g.refused(Cmd::SetPayouts {
            amounts: vec![Cents::new(6_000), Cents::new(3_000)]
        }),
        Err::PayoutsDoNotSumToPool {
            pool: Cents::new(10_000),
            sum: Cents::new(9_000)
        }
    );
    assert!(matches!(
        g.refused(Cmd::SetPayouts {
            amounts: vec![Cents::new(4_000), Cents::new(6_000)]
        }),
        Err::BadPayouts(_)
    ));
    assert!(matches!(
        g.refused(Cmd::SetPayouts { amounts: vec![] }),
        Err::BadPayouts(_)
    ));
    assert!(matches!(
        g.refused(Cmd::SetPayouts {
            amounts: [5_000, 2_000, 1_000, 1_000, 500, 500]
                .map(Cents::new)
                .to_vec()
        }),
        Err::BadPayouts(_)
    ));
    g.when(Cmd::SetPayouts {
        amounts: vec![Cents::new(7_000), Cents::new(3_000)],
    });
    g.start();
    play_out(&mut g);
    let prizes: Vec<u64> = (1..=5).map(|n| g.finish(&id(n)).2).collect();
    assert_eq!(prizes.iter().sum::<u64>(), 10_000);
    assert_eq!(g.finish(&id(1)).2, 7_000);
    assert_eq!(
        g.refused(Cmd::SetPayouts {
            amounts: vec![Cents::new(10_000)]
        }),
        Err::Finished
    );
    assert_eq!(
        g.refused(Cmd::Penalise {
            player: id(1),
            penalty: Penalty::Warning
        }),
        Err::Finished
    );
}

#[test]
fn a_deal_needs_every_remaining_player_and_finishes_the_tournament() {
    use league_engine::tournament::deal::DealKind;
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Results), 7);
    for n in 5..=7 {
        knock_out(&mut g, &id(n));
    }
    g.when(Cmd::RecordChips {
        // The chips of the three out were given to nobody: they are counted again.
        counts: vec![
            (id(1), Chips::new(15_000)),
            (id(2), Chips::new(10_000)),
            (id(3), Chips::new(6_000)),
            (id(4), Chips::new(4_000)),
        ],
    });
    assert_eq!(
        g.refused(Cmd::Deal {
            kind: DealKind::ChipChop,
            accepted: vec![id(1), id(2), id(3)]
        }),
        Err::DealNotAccepted {
            missing: vec![id(4)]
        }
    );
    assert_eq!(
        g.refused(Cmd::Deal {
            kind: DealKind::ChipChop,
            accepted: vec![id(1), id(2), id(3), id(4), id(5)]
        }),
        Err::NotInDeal(id(5))
    );
    let events = g.when(Cmd::Deal {
        kind: DealKind::Icm,
        accepted: (1..=4).map(id).collect(),
    });
    let Ev::DealMade { amounts, .. } = &events[0] else {
        panic!("{events:?}");
    };
    assert!(matches!(events.last(), Some(Ev::TournamentFinished { .. })));
    // 7 x $20 = $140, three places paid: the deal shares what the four could still win.
    assert_eq!(amounts.iter().sum::<Cents>(), 14_000);
    for n in 1..=4 {
        assert_eq!(g.finish(&id(n)).2, amounts[n - 1].get());
    }
    assert_eq!(g.finish(&id(5)).2, 0);
}

#[test]
fn queensix_33_and_34_the_players_left_cannot_deal_and_the_event_plays_on() {
    // QueenSix, tournament rules 33: "Private agreements by remaining players in an event
    // regarding distribution of the prize pool are not allowed." 34: "A tournament event
    // is expected to be played until completion. A private agreement that removes all
    // prize money from being at stake in the competition is unethical."
    use league_engine::tournament::deal::DealKind;
    for tracking in [Tracking::Results, Tracking::Recorded, Tracking::Dealt] {
        let g = Game::started(schedule(Preset::QueenSix, tracking), 3);
        let everyone: Vec<PlayerId> = (1..=3).map(id).collect();
        for kind in [DealKind::ChipChop, DealKind::Icm] {
            let refused = g.refused(Cmd::Deal {
                kind,
                accepted: everyone.clone(),
            });
            assert!(
                matches!(&refused, Err::DealsNotAllowed { rule } if rule.starts_with("QueenSix 33")),
                "{refused:?}"
            );
        }
        assert!(g.state.results().is_none(), "still played to completion");
        assert_eq!(g.state.remaining(), 3);
    }
    // The other tournament houses take a deal every player left accepts.
    for preset in [Preset::Wph, Preset::Oracle, Preset::Invitational] {
        let mut g = Game::started(schedule(preset, Tracking::Results), 3);
        let events = g.when(Cmd::Deal {
            kind: DealKind::ChipChop,
            accepted: (1..=3).map(id).collect(),
        });
        assert!(
            matches!(events.first(), Some(Ev::DealMade { .. })),
            "{preset:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// An auditor re-derives every draw from the revealed seeds
// ---------------------------------------------------------------------------------------

/// `sha256(seed)`, computed here rather than by the engine's `Commitment::verifies`.
fn sha256(seed: &league_engine::deck::Seed) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    Sha256::digest(seed.to_bytes()).into()
}

#[derive(Default, Debug)]
struct Audited {
    starts: usize,
    seat_redraws: usize,
    button_redraws: usize,
    entries: usize,
    races: usize,
}

/// Walks a tournament's log as an auditor would: every revealed seed hashes to the
/// commitment published before it, and every draw made from it comes out the same when
/// made again with the draw functions alone.
fn audit(log: &[Ev]) -> Audited {
    use league_engine::tournament::colour_up::{ColourUpPolicy, Holding, colour_up};
    use league_engine::tournament::draw::{derive_seed, draw_button, draw_seats, pick};
    use std::collections::BTreeMap;

    let mut done = Audited::default();
    let mut state = league_engine::tournament::play::Tournament::new();
    let mut commitment = None;
    let mut size = 0u8;
    let mut redraw_tables = 0u32;
    let check = |commitment: &mut Option<[u8; 32]>, seed, next: league_engine::deck::Commitment| {
        assert_eq!(Some(sha256(seed)), *commitment, "the seed was committed to");
        *commitment = Some(next.to_bytes());
    };
    let button_draws = |seed, seats: &[league_engine::tournament::play::Seating]| {
        let mut by_table: BTreeMap<u32, Vec<u8>> = BTreeMap::new();
        for s in seats {
            by_table.entry(s.table).or_default().push(s.seat);
        }
        by_table
            .into_iter()
            .map(|(t, mut seats)| {
                seats.sort_unstable();
                draw_button(seed, t, &seats).unwrap()
            })
            .collect::<Vec<_>>()
    };
    let seat_draw = |seed, players: Vec<PlayerId>, tables: usize, size: u8| {
        let order: Vec<u8> = (0..size).collect();
        let mut seats: Vec<(PlayerId, u32, u8)> = draw_seats(seed, &players, tables, &order)
            .unwrap()
            .into_iter()
            .map(|a| (a.entrant, a.table + 1, a.seat))
            .collect();
        seats.sort();
        seats
    };
    let sorted = |seats: &[league_engine::tournament::play::Seating]| {
        let mut v: Vec<(PlayerId, u32, u8)> = seats
            .iter()
            .map(|s| (s.player.clone(), s.table, s.seat))
            .collect();
        v.sort();
        v
    };
    for event in log {
        let in_now: Vec<PlayerId> = state
            .players()
            .iter()
            .filter(|(_, p)| {
                matches!(
                    p.standing,
                    Standing::Seated { .. } | Standing::Busted { .. } | Standing::Registered
                )
            })
            .map(|(id, _)| id.clone())
            .collect();
        match event {
            Ev::TournamentScheduled { schedule } => {
                commitment = Some(schedule.draw_commitment.to_bytes());
                size = schedule.table_size;
            }
            Ev::TournamentStarted {
                seed,
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                check(&mut commitment, seed, *next_commitment);
                let tables = in_now.len().div_ceil(usize::from(size));
                assert_eq!(sorted(seats), seat_draw(seed, in_now, tables, size));
                assert_eq!(*buttons, button_draws(seed, seats));
                done.starts += 1;
            }
            Ev::RedrawRequired { tables, .. } => redraw_tables = *tables,
            Ev::SeatsRedrawn {
                seed,
                next_commitment,
                seats,
                buttons,
                ..
            } => {
                check(&mut commitment, seed, *next_commitment);
                if seats.is_empty() {
                    let expected: Vec<_> = state
                        .tables()
                        .iter()
                        .map(|(&t, table)| {
                            let occupied: Vec<u8> = table.seats.keys().copied().collect();
                            draw_button(seed, t, &occupied).unwrap()
                        })
                        .collect();
                    assert_eq!(*buttons, expected);
                    done.button_redraws += 1;
                } else {
                    let tables = usize::try_from(redraw_tables)
                        .unwrap()
                        .max(in_now.len().div_ceil(usize::from(size)));
                    assert_eq!(sorted(seats), seat_draw(seed, in_now, tables, size));
                    assert_eq!(*buttons, button_draws(seed, seats));
                    done.seat_redraws += 1;
                }
            }
            Ev::PlayerEntered {
                seed,
                next_commitment,
                table,
                seat,
                opened_table,
                ..
            } => {
                check(&mut commitment, seed, *next_commitment);
                if *opened_table {
                    assert_eq!(
                        usize::from(*seat),
                        pick(seed, usize::from(size)),
                        "a new table: any seat"
                    );
                } else {
                    // The open seats at the tables with the fewest players, in order.
                    let fewest = state
                        .tables()
                        .values()
                        .map(|t| t.seats.len())
                        .filter(|&n| n < usize::from(size))
                        .min()
                        .unwrap();
                    let open: Vec<(u32, u8)> = state
                        .tables()
                        .iter()
                        .filter(|(_, t)| t.seats.len() == fewest)
                        .flat_map(|(&n, t)| {
                            (0..size)
                                .filter(|s| !t.seats.contains_key(s))
                                .map(move |s| (n, s))
                        })
                        .collect();
                    assert_eq!((*table, *seat), open[pick(seed, open.len())]);
                }
                done.entries += 1;
            }
            Ev::ChipsColouredUp {
                low,
                high,
                policy: ColourUpPolicy::ChipRace,
                players,
                seed: Some(seed),
                next_commitment: Some(next),
                ..
            } => {
                check(&mut commitment, seed, *next);
                let tables: std::collections::BTreeSet<u32> =
                    players.iter().map(|p| p.table).collect();
                for t in tables {
                    let at: Vec<_> = players.iter().filter(|p| p.table == t).collect();
                    let holdings: Vec<Holding> = at
                        .iter()
                        .map(|p| {
                            let left = p.before % *high;
                            Holding {
                                seat: p.seat,
                                low_chips: left / *low,
                                other_value: (p.before - left + left % *low).get(),
                            }
                        })
                        .collect();
                    let race = derive_seed(seed, "race", t);
                    let up = colour_up(
                        ColourUpPolicy::ChipRace,
                        low.get(),
                        high.get(),
                        &holdings,
                        Some(&race),
                    )
                    .unwrap();
                    for (p, c) in at.iter().zip(&up.players) {
                        assert_eq!(
                            (p.seat, p.after, &p.cards, p.raced),
                            (c.seat, Chips::new(c.value), &c.cards, c.raced)
                        );
                    }
                }
                done.races += 1;
            }
            _ => {}
        }
        league_engine::tournament::play::apply(&mut state, event);
    }
    done
}

#[test]
fn an_auditor_re_derives_the_seat_draw_the_button_draws_the_late_seats_and_the_chip_races() {
    use league_engine::tournament::sim::{SimOptions, TournamentSim};
    let mut total = Audited::default();
    for (seed, preset) in [
        (1, Preset::Invitational),
        (2, Preset::Oracle),
        (3, Preset::Invitational),
        (4, Preset::Oracle),
    ] {
        let mut sim = TournamentSim::new(
            seed,
            SimOptions {
                players: 24,
                preset,
                tracking: Tracking::Dealt,
                table_size: 9,
                rebuys: false,
                late: 4,
                ids: Vec::new(),
                venue: "sim".into(),
                name_hands: false,
            },
        )
        .unwrap();
        sim.run(200_000).unwrap();
        let done = audit(&sim.events);
        total.starts += done.starts;
        total.seat_redraws += done.seat_redraws;
        total.button_redraws += done.button_redraws;
        total.entries += done.entries;
        total.races += done.races;
    }
    // And a chip race at two tables, from the harness.
    let mut s = schedule(Preset::Oracle, Tracking::Results);
    s.starting_chips = Chips::new(5025);
    s.table_size = 5;
    let g = Game::started(s, 7);
    let mut g = at_the_colour_up(g, &[5025, 5025, 5025, 5025, 5025, 5050, 5000]);
    g.race();
    let done = audit(&g.log);
    assert_eq!(done.races, 1);
    total.starts += done.starts;
    total.races += done.races;
    assert_eq!(total.starts, 5);
    assert!(total.seat_redraws > 0, "{total:?}");
    assert!(total.button_redraws > 0, "{total:?}");
    assert!(total.entries > 0, "{total:?}");
    assert!(total.races > 0, "{total:?}");
}

// ---------------------------------------------------------------------------------------
// Results-only tournaments
// ---------------------------------------------------------------------------------------

fn pub_night(preset: Preset, after_bust_only: bool) -> Game {
    let mut s = rebuys(preset, 1, after_bust_only);
    s.tracking = Tracking::Results;
    Game::started(s, 8)
}

#[test]
fn a_results_only_pub_night_of_eliminations_rebuys_and_chip_counts_finishes_with_the_usual_places_and_payouts()
 {
    let mut g = pub_night(Preset::QueenSix, false);
    let counts = |c: &[(usize, u64)]| {
        c.iter()
            .map(|&(n, c)| (id(n), Chips::new(c)))
            .collect::<Vec<_>>()
    };
    g.when(Cmd::RecordChips {
        counts: counts(&[
            (1, 9000),
            (2, 7000),
            (3, 6000),
            (4, 5000),
            (5, 4000),
            (6, 3000),
            (7, 4000),
            (8, 2000),
        ]),
    });
    // p08 went broke and re-bought (QueenSix 29's designated re-buy event).
    g.when(Cmd::Rebuy {
        player: id(8),
        at: g.clock,
    });
    assert_eq!(g.chips(&id(8)), 7000);
    g.advance(60_000);
    g.advance(60_000);
    assert_eq!(
        g.refused(Cmd::Rebuy {
            player: id(7),
            at: g.clock
        }),
        Err::WindowClosed {
            what: "re-buys",
            from_level: 1,
            until_level: 2,
            level: 3
        }
    );
    // The re-buys over, two out on one hand, listed worst first: QueenSix 31 puts the
    // larger stack higher.
    let events = g.when(Cmd::Eliminate {
        players: vec![id(6), id(5)],
        by: Some(id(1)),
    });
    assert!(
        matches!(&events[0], Ev::PlayersEliminated { players, rule, .. }
        if *players == vec![id(5), id(6)] && rule == "QueenSix 31")
    );
    assert_eq!(g.chips(&id(1)), 16_000, "the knock-out takes their chips");
    assert_eq!(g.place(&id(5)), (7, 1));
    assert_eq!(g.place(&id(6)), (8, 1));
    g.when(Cmd::RecordChips {
        counts: counts(&[
            (1, 12_000),
            (2, 10_000),
            (3, 8_000),
            (4, 5_000),
            (7, 4_000),
            (8, 6_000),
        ]),
    });
    for (out, by) in [(8, 2), (7, 1), (4, 3), (3, 2), (2, 1)] {
        g.when(Cmd::Eliminate {
            players: vec![id(out)],
            by: Some(id(by)),
        });
    }
    // 8 entries and 1 re-buy at $20: $180; eight players pay three places, 50/30/20.
    let pool = g.state.prize_pool().unwrap();
    assert_eq!(pool.total, 18_000);
    assert_eq!(g.state.prizes().unwrap(), vec![9_000, 5_400, 3_600]);
    let results = g.state.results().unwrap();
    let by_place: Vec<(PlayerId, u32, Cents)> = {
        let mut v: Vec<_> = results
            .iter()
            .map(|r| (r.player.clone(), r.place, r.prize))
            .collect();
        v.sort_by_key(|r| r.1);
        v
    };
    let expected = [
        (1, 9_000),
        (2, 5_400),
        (3, 3_600),
        (4, 0),
        (7, 0),
        (8, 0),
        (5, 0),
        (6, 0),
    ];
    for (i, (player, place, prize)) in by_place.iter().enumerate() {
        assert_eq!(
            (player.clone(), *place, *prize),
            (
                id(expected[i].0),
                u32::try_from(i + 1).unwrap(),
                Cents::new(expected[i].1)
            )
        );
    }
    let winner = results.iter().find(|r| r.player == id(1)).unwrap();
    assert_eq!((winner.knockouts, winner.rebuys), (4, 0));
    let p08 = results.iter().find(|r| r.player == id(8)).unwrap();
    assert_eq!((p08.entries, p08.rebuys), (1, 1));
    g.assert_replays();
}

/// The pub's re-buy with the plain policy (not only after a bust): a player knocked out in
/// the window with a re-buy left is busted, not out; they pay and play on, or decline and
/// are out; once the window closes, a knock-out is final. (Before, only the
/// after-the-bust policy did this, and the plain one answered `NotSeated` to the re-buy.)
#[test]
fn a_pub_rebuy_busts_pays_and_plays_on_with_the_plain_policy() {
    let mut g = pub_night(Preset::QueenSix, false);
    let events = g.when(Cmd::Eliminate {
        players: vec![id(7)],
        by: Some(id(1)),
    });
    assert!(
        matches!(&events[0], Ev::PlayerBusted { player, .. } if *player == id(7)),
        "busted, not out: {events:?}"
    );
    assert!(matches!(
        g.state.player(id(7).as_str()).map(|p| &p.standing),
        Some(Standing::Busted { .. })
    ));
    g.when(Cmd::Rebuy {
        player: id(7),
        at: g.clock,
    });
    assert!(g.chips(&id(7)) > 0, "plays on");
    assert_eq!(g.state.purchases().rebuys, 1);
    // Another busts and declines: out, eighth.
    g.when(Cmd::Eliminate {
        players: vec![id(6)],
        by: Some(id(2)),
    });
    let events = g.when(Cmd::DeclineRebuy { player: id(6) });
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ev::PlayersEliminated { players, .. } if *players == vec![id(6)])),
        "{events:?}"
    );
    assert_eq!(g.place(&id(6)), (8, 1));
    // p07's one re-buy is spent: the next knock-out is final.
    let events = g.when(Cmd::Eliminate {
        players: vec![id(7)],
        by: Some(id(1)),
    });
    assert!(matches!(&events[0], Ev::PlayersEliminated { players, .. } if *players == vec![id(7)]));
    // After the window, a knock-out is final for anyone.
    g.advance(60_000);
    g.advance(60_000);
    let events = g.when(Cmd::Eliminate {
        players: vec![id(5)],
        by: Some(id(1)),
    });
    assert!(matches!(&events[0], Ev::PlayersEliminated { players, .. } if *players == vec![id(5)]));
    g.assert_replays();
}

#[test]
fn invitational_1_3_a_results_only_night_records_a_rebuy_straight_after_the_knockout() {
    // Invitational 1.3: "Re-buys will be limited to one per person, need to take place in
    // the first 2 hours of play, and need to be purchased immeadiatly after knockout."
    let mut g = pub_night(Preset::Invitational, true);
    // Not before the knock-out.
    assert!(matches!(
        g.refused(Cmd::Rebuy {
            player: id(8),
            at: g.clock
        }),
        league_engine::tournament::play::TournamentError::RebuyOnlyAfterBust
    ));
    let events = g.when(Cmd::Eliminate {
        players: vec![id(8)],
        by: Some(id(1)),
    });
    assert!(
        matches!(&events[0], Ev::PlayerBusted { player, chips_to: Some(by), .. } if *player == id(8) && *by == id(1)),
        "busted, not out: {events:?}"
    );
    assert_eq!(g.chips(&id(8)), 0);
    g.when(Cmd::Rebuy {
        player: id(8),
        at: g.clock,
    });
    assert_eq!(g.state.purchases().rebuys, 1);
    assert!(g.chips(&id(8)) > 0);
    // One per person: the next knock-out is final.
    let events = g.when(Cmd::Eliminate {
        players: vec![id(8)],
        by: Some(id(1)),
    });
    assert!(matches!(&events[0], Ev::PlayersEliminated { players, .. } if *players == vec![id(8)]));
}

#[test]
fn a_directors_move_that_breaks_the_balancing_rule_is_refused() {
    // QueenSix 15: "With six tables or less, table size will be kept within one player."
    // Two tables of 9 and 8: moving a player from the 8 to the 9 would make them 10 and 7.
    use league_engine::tournament::play::TournamentError;
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.table_size = 10;
    let mut g = Game::started(s, 17);
    let sizes: Vec<(u32, usize)> = g
        .state
        .tables()
        .iter()
        .map(|(n, t)| (*n, t.seats.len()))
        .collect();
    let (small, big) = if sizes[0].1 < sizes[1].1 {
        (sizes[0].0, sizes[1].0)
    } else {
        (sizes[1].0, sizes[0].0)
    };
    let mover = g.state.tables()[&small]
        .seats
        .values()
        .next()
        .unwrap()
        .clone();
    let open = (0..10u8)
        .find(|s| !g.state.tables()[&big].seats.contains_key(s))
        .unwrap();
    let error = g.refused(Cmd::MovePlayer {
        player: mover.clone(),
        to_table: big,
        to_seat: open,
    });
    assert!(
        matches!(error, TournamentError::MoveBreaksBalancing { ref rule, .. } if rule == "QueenSix 15"),
        "{error:?}"
    );
    // From the bigger table to the smaller is within the rule (8 and 9), and is an event
    // naming the rule.
    let mover = g.state.tables()[&big]
        .seats
        .values()
        .next()
        .unwrap()
        .clone();
    let open = (0..10u8)
        .find(|s| !g.state.tables()[&small].seats.contains_key(s))
        .unwrap();
    let events = g.when(Cmd::MovePlayer {
        player: mover.clone(),
        to_table: small,
        to_seat: open,
    });
    assert!(
        matches!(&events[0], Ev::PlayerMoved { player, moved } if *player == mover && moved.rule.contains("QueenSix 15"))
    );
    // A taken seat is refused.
    let taken = *g.state.tables()[&big].seats.keys().next().unwrap();
    let other = g.state.tables()[&small]
        .seats
        .values()
        .next()
        .unwrap()
        .clone();
    assert!(matches!(
        g.refused(Cmd::MovePlayer {
            player: other,
            to_table: big,
            to_seat: taken
        }),
        TournamentError::SeatTaken { .. }
    ));
}

#[test]
fn the_payouts_wait_to_be_announced_once_the_pool_can_grow_no_more() {
    use league_engine::tournament::play::Pending;
    let announce = |g: &Game| {
        g.state.pending().into_iter().find_map(|p| match p {
            Pending::AnnouncePayouts { pool, prizes } => Some((pool, prizes)),
            _ => None,
        })
    };
    let mut s = schedule(Preset::QueenSix, Tracking::Results);
    s.late_registration_until_level = 1;
    let mut g = Game::started(s, 7);
    // Late entries are still taken: the pool may grow.
    assert_eq!(announce(&g), None);
    g.advance(1000);
    let (pool, prizes) = announce(&g).expect("registration closed: the prizes to announce");
    assert_eq!(pool, g.state.prize_pool().unwrap().total);
    assert_eq!(prizes, g.state.prizes().unwrap());
    // Announced (the table's prizes or others): nothing pending any more.
    g.when(Cmd::SetPayouts { amounts: prizes });
    assert_eq!(announce(&g), None);
}

/// A tournament takes at most `MAX_ENTRANTS` players, so that with the bounds on stacks
/// and purchases every chip total fits its 64-bit sum: one more registration is refused.
#[test]
fn the_field_is_full_at_its_maximum() {
    use league_engine::tournament::play::{self, MAX_ENTRANTS};
    let mut g = Game::scheduled(schedule(Preset::Wsop, Tracking::Results));
    for n in 0..MAX_ENTRANTS {
        let register = Cmd::Register {
            player: PlayerId::from(format!("p{n}")),
        };
        for event in play::decide(&g.state, &register).unwrap() {
            play::apply(&mut g.state, &event);
        }
    }
    assert_eq!(
        g.refused(Cmd::Register {
            player: PlayerId::from("one-more".to_owned()),
        }),
        Err::FieldFull { max: MAX_ENTRANTS }
    );
}

// ---------------------------------------------------------------------------------------
// Unsold seats
// ---------------------------------------------------------------------------------------

/// The first empty seat at table 1.
fn empty_seat(g: &Game) -> u8 {
    let table = &g.state.tables()[&1];
    (0..9)
        .find(|s| !table.seats.contains_key(s) && !table.unsold().contains_key(s))
        .unwrap()
}

/// Plays `hands` hands at recorded table 1: the first to act raises to three big blinds
/// and everyone else folds, so the blinds are lost. Returns the hands' events.
fn raise_and_fold(g: &mut Game, hands: usize) -> Vec<Ev> {
    let mut events = Vec::new();
    for _ in 0..hands {
        let mark = g.log.len();
        g.start_hand(1);
        g.act(1, league_engine::hand::Action::RaiseTo(150));
        g.fold_out(1);
        events.extend(g.log[mark..].iter().cloned());
    }
    events
}

#[test]
fn invitational_2_7_unsold_seats_are_blinded_and_removed_by_the_director() {
    // Invitational 2.7: "Unsold seats will have a chip stack, and blinds will be taken
    // from their stacks. If the seat remains empty, the stacks will be removed by the
    // director." 3.1: "An absent player (late, unsold seat, potty break or OUT) is always
    // dealt a hand, and will be put up for blinds."
    let mut g = Game::started(schedule(Preset::Invitational, Tracking::Recorded), 6);
    let pool = g.state.prize_pool().unwrap().total;
    let seat = empty_seat(&g);
    let events = g.when(Cmd::PlaceUnsoldStack { table: 1, seat });
    assert!(
        matches!(&events[..], [Ev::UnsoldStackPlaced { table: 1, seat: s, chips, rule }]
            if *s == seat && chips.get() == 5000 && rule.starts_with("invitational 2.7")),
        "{events:?}"
    );
    // Dealt in but no entrant: no place, no share of the pool, not one of the players left.
    assert_eq!((g.state.remaining(), g.state.field()), (6, 6));
    assert_eq!(g.state.places().len(), 6);
    assert_eq!(g.state.prize_pool().unwrap().total, pool);
    assert_eq!(g.state.chips_in_play(), Chips::new(35_000));

    // An orbit of seven hands: the stack posts each blind once, and its hand is folded
    // when the action reaches it.
    let orbit = raise_and_fold(&mut g, 7);
    let hands = hand_events(&orbit);
    let mut posted: Vec<(BlindKind, u64)> = hands
        .iter()
        .filter_map(|e| match e {
            HandEvent::BlindPosted {
                seat: s,
                kind,
                amount,
                ..
            } if *s == seat => Some((*kind, *amount)),
            _ => None,
        })
        .collect();
    posted.sort_by_key(|&(_, amount)| amount);
    assert_eq!(
        posted,
        vec![(BlindKind::SmallBlind, 25), (BlindKind::BigBlind, 50)]
    );
    let dealt = hands
        .iter()
        .filter(|e| {
            matches!(e, HandEvent::HandStarted { setup }
            if setup.seats.iter().any(|s| s.seat == seat && s.absent))
        })
        .count();
    assert_eq!(dealt, 7);
    assert!(hands.iter().any(|e| matches!(e, HandEvent::PlayerFolded {
        seat: s, reason: FoldReason::Absent
    } if *s == seat)));
    assert_eq!(g.state.tables()[&1].unsold()[&seat], Chips::new(4925));
    assert_eq!(g.state.chips_in_play(), Chips::new(35_000));

    // Refusals change nothing.
    let taken = *g.state.tables()[&1].seats.keys().next().unwrap();
    for s in [seat, taken, 9] {
        assert_eq!(
            g.refused(Cmd::PlaceUnsoldStack { table: 1, seat: s }),
            Err::SeatTaken { table: 1, seat: s }
        );
    }
    let other = empty_seat(&g);
    assert_eq!(
        g.refused(Cmd::RemoveUnsoldStack {
            table: 1,
            seat: other,
            reason: "empty".into()
        }),
        Err::NoUnsoldStack {
            table: 1,
            seat: other
        }
    );
    assert_eq!(
        g.refused(Cmd::RemoveUnsoldStack {
            table: 1,
            seat,
            reason: "  ".into()
        }),
        Err::BadReason
    );
    g.start_hand(1);
    assert_eq!(
        g.refused(Cmd::PlaceUnsoldStack {
            table: 1,
            seat: other
        }),
        Err::HandInProgress { table: 1 }
    );
    assert_eq!(
        g.refused(Cmd::RemoveUnsoldStack {
            table: 1,
            seat,
            reason: "nobody came".into()
        }),
        Err::HandInProgress { table: 1 }
    );
    g.fold_out(1);

    // The director removes it: its chips leave play, what it lost stays with the players.
    let left = g.state.tables()[&1].unsold()[&seat];
    let events = g.when(Cmd::RemoveUnsoldStack {
        table: 1,
        seat,
        reason: "nobody came".into(),
    });
    assert!(
        matches!(&events[..], [Ev::UnsoldStackRemoved { table: 1, seat: s, chips, reason }]
            if *s == seat && *chips == left && reason.contains("nobody came")),
        "{events:?}"
    );
    assert!(g.state.tables()[&1].unsold().is_empty());
    assert_eq!(
        g.state.chips_in_play(),
        Chips::new(35_000).checked_sub(left).unwrap()
    );
    assert_eq!((g.state.remaining(), g.state.places().len()), (6, 6));
    g.assert_replays();
}

#[test]
fn unsold_seats_only_where_the_book_has_them_and_never_at_the_chip_race() {
    for preset in [
        Preset::Wph,
        Preset::Oracle,
        Preset::Hippodrome,
        Preset::Wsop,
    ] {
        let g = Game::started(schedule(preset, Tracking::Recorded), 6);
        assert_eq!(
            g.refused(Cmd::PlaceUnsoldStack {
                table: 1,
                seat: empty_seat(&g)
            }),
            Err::NoUnsoldStacks {
                preset: preset.name()
            },
            "{preset:?}"
        );
    }
    let g = Game::started(schedule(Preset::Invitational, Tracking::Results), 6);
    assert_eq!(
        g.refused(Cmd::PlaceUnsoldStack { table: 1, seat: 8 }),
        Err::WrongTracking {
            tracking: Tracking::Results
        }
    );
    // At the break's colour-up, the stacks left in unsold seats are removed first.
    let mut g = Game::started(schedule(Preset::Invitational, Tracking::Recorded), 6);
    let seat = empty_seat(&g);
    g.when(Cmd::PlaceUnsoldStack { table: 1, seat });
    g.advance(20 * MINUTE);
    g.advance(20 * MINUTE);
    assert!(g.state.colour_up_due().is_some());
    let (seed, next) = g.reveal();
    assert_eq!(
        g.refused(Cmd::ColourUp {
            seed: Some(seed),
            next_commitment: Some(next)
        }),
        Err::UnsoldStacksBeforeRace {
            seats: vec![format!("table 1 seat {seat}")]
        }
    );
}

#[test]
fn queensix_4_a_late_entrant_takes_the_unsold_seat_s_blinded_stack() {
    // QueenSix tournament 4: "A starting stack of chips may be placed in a seat to
    // accommodate late entrants (so all antes and blinds have been appropriately paid).
    // An unsold seat will have such a stack removed at a time left to the discretion of
    // the Host."
    let mut s = schedule(Preset::QueenSix, Tracking::Recorded);
    s.late_registration_until_level = 2;
    let mut g = Game::started(s, 6);
    let seat = empty_seat(&g);
    g.when(Cmd::PlaceUnsoldStack { table: 1, seat });
    raise_and_fold(&mut g, 7);
    let stack = g.state.tables()[&1].unsold()[&seat];
    assert_eq!(stack, Chips::new(4925));
    // Not while the stack is in a hand.
    g.start_hand(1);
    let (seed, next) = g.reveal();
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(7),
            at: g.clock,
            seed,
            next_commitment: next
        }),
        Err::HandInProgress { table: 1 }
    );
    g.fold_out(1);
    let stack = g.state.tables()[&1].unsold()[&seat];
    let before = g.state.clone();
    let in_play = g.state.chips_in_play();
    let events = g.when(Cmd::LateEntry {
        player: id(7),
        at: g.clock,
        seed,
        next_commitment: next,
    });
    let entered = events.last().unwrap();
    assert!(
        matches!(entered, Ev::PlayerEntered { player, table: 1, seat: s, chips, .. }
            if *player == id(7) && *s == seat && *chips == stack),
        "{events:?}"
    );
    assert_eq!(g.seat_of("p07"), (1, seat));
    assert_eq!(g.chips("p07"), stack.get());
    assert!(g.state.tables()[&1].unsold().is_empty());
    assert_eq!(g.state.chips_in_play(), in_play);
    assert_eq!((g.state.remaining(), g.state.field()), (7, 7));
    // An auditor re-derives the seat and the stack from the revealed seed.
    assert_eq!(
        league_engine::tournament::play::rederive_outcome(&before, entered),
        Some(Ok(entered.clone()))
    );
    g.assert_replays();
}

#[test]
fn an_unsold_seat_s_stack_leaves_play_when_one_player_is_left() {
    // Two players and an unsold seat: the winner's is the last stack standing among the
    // entrants; the unsold seat's goes with the finish, and has no place.
    let mut g = Game::started(schedule(Preset::Invitational, Tracking::Recorded), 2);
    let seat = empty_seat(&g);
    g.when(Cmd::PlaceUnsoldStack { table: 1, seat });
    g.start_hand(1);
    let events = g.all_in(1, &[("p01", "AsAh"), ("p02", "KsKh")], "2c3d4h8s9c");
    let finished = events
        .iter()
        .position(|e| matches!(e, Ev::TournamentFinished { .. }))
        .expect("finished");
    let removed = events
        .iter()
        .position(|e| {
            matches!(e, Ev::UnsoldStackRemoved { seat: s, reason, .. }
            if *s == seat && reason.contains("the tournament is over"))
        })
        .expect("removed");
    assert!(removed < finished);
    let results = g.state.results().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(g.finish("p01").0, 1);
    assert_eq!(g.finish("p02").0, 2);
    g.assert_replays();
}

#[test]
fn an_unsold_seat_s_stack_blinded_away_leaves_its_seat() {
    // QueenSix: the absent stack's hand is dead at the deal (tournament 10), so an unsold
    // seat only ever pays blinds (1,000 and 2,000, capped at a tenth of the players'
    // average stack by QueenSix S2.G4: 200 and 500 at first); when they have taken its
    // last chip, the seat is empty.
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Recorded), 6);
    g.advance(20 * MINUTE);
    g.advance(20 * MINUTE);
    g.race();
    for minutes in [10, 20, 20, 20] {
        g.advance(minutes * MINUTE);
    }
    assert_eq!(g.state.level().map(|(n, _)| n), Some(7));
    let seat = empty_seat(&g);
    g.when(Cmd::PlaceUnsoldStack { table: 1, seat });
    let placed = g.log.len();
    let mut gone = None;
    for _ in 0..120 {
        let mark = g.log.len();
        g.start_hand(1);
        g.fold_out(1);
        if mark == placed {
            assert!(
                matches!(&g.log[mark], Ev::TableHandStarted { blinds, capped_from, .. }
                    if blinds.small_blind.get() == 200 && blinds.big_blind.get() == 500
                        && *capped_from == Some((Chips::new(2000), Chips::new(5000)))),
                "{:?}",
                &g.log[mark]
            );
        }
        gone = g.log[mark..].iter().find_map(|e| match e {
            Ev::UnsoldStackRemoved {
                seat: s,
                chips,
                reason,
                ..
            } if *s == seat => Some((*chips, reason.clone())),
            _ => None,
        });
        if gone.is_some() {
            break;
        }
    }
    assert_eq!(
        gone,
        Some((
            Chips::ZERO,
            "blinded away: the stack has no chips left".to_owned()
        ))
    );
    assert!(g.state.tables()[&1].unsold().is_empty());
    assert_eq!(
        g.state.stage(),
        league_engine::tournament::play::Stage::Running
    );
    assert_eq!(g.state.places().len(), 6);
    g.assert_replays();
}
