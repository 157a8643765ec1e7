//! The rows of `docs/rulebooks.md` marked "enforced, untested": one test per rule (or per
//! closely related pair of one house), under that house's preset, each quoting the rule
//! from its book (`../shared/rulebooks/`) with the house and number.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]

mod support;
#[path = "support/tour.rs"]
mod tour;

use league_engine::card::parse_cards;
use league_engine::deck::Seed;
use league_engine::hand::{
    self, Action, AnteStructure, BlindKind, Command, Dealing, Event, HandSetup, HandState, Phase,
    RuleError, Seat, Street, VoidReason,
};
use league_engine::rules::{HouseRules, Preset};
use league_engine::tournament::play::PurchasePolicy;
use league_engine::tournament::play::{
    TournamentCommand as Cmd, TournamentError, TournamentEvent as Ev, Tracking,
};
use league_engine::tournament::{HouseCut, Price};
use league_engine::units::{Cents, Chips};
use support::Table;
use tour::{Game, id, schedule};

const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;
const E: u8 = 4;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// A hand dealt by the server from a seed (the button in the last seat, as `Table::new`).
fn seeded(rules: HouseRules, stacks: &[u64], sb: u64, bb: u64, byte: u8) -> Table {
    let seed = Seed::from_bytes([byte; 32]);
    let button = u8::try_from(stacks.len() - 1).unwrap();
    let setup = HandSetup::standard(
        button,
        support::seats(stacks),
        sb,
        bb,
        AnteStructure::None,
        None,
        Dealing::Seeded {
            commitment: seed.commitment(),
        },
        rules,
    )
    .unwrap();
    let mut t = Table {
        state: HandState::new(),
        events: Vec::new(),
    };
    t.send(Command::Start {
        setup,
        seed: Some(seed),
    })
    .unwrap();
    t
}

/// Every seat named checks, in order.
fn check_round(t: &mut Table, seats: &[u8]) {
    for &seat in seats {
        t.ok(seat, Action::Check);
    }
}

fn two(cards: &str) -> [league_engine::card::Card; 2] {
    let cards = parse_cards(cards).unwrap();
    [cards[0], cards[1]]
}

fn show(seat: u8, cards: &str) -> Command {
    Command::Show {
        seat,
        cards: Some(two(cards)),
    }
}

/// The pots awarded, in the order they were awarded: (pot, amount, eligible, shares).
type Award = (u8, u64, Vec<Seat>, Vec<(Seat, u64)>);

fn awards(events: &[Event]) -> Vec<Award> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded {
                pot,
                amount,
                eligible,
                shares,
                ..
            } => Some((
                *pot,
                *amount,
                eligible.clone(),
                shares.iter().map(|s| (s.seat, s.amount)).collect(),
            )),
            _ => None,
        })
        .collect()
}

/// Only the shares of each pot, in the order awarded.
fn shares(events: &[Event]) -> Vec<Vec<(Seat, u64)>> {
    awards(events).into_iter().map(|(_, _, _, s)| s).collect()
}

fn misdeal() -> Command {
    Command::Void {
        reason: VoidReason::Misdeal("first card exposed".into()),
    }
}

fn different_back() -> Command {
    Command::Void {
        reason: VoidReason::DeckDefect("a card with a different colour back".into()),
    }
}

fn refunds(events: &[Event]) -> Vec<(Seat, u64)> {
    events
        .iter()
        .find_map(|e| match e {
            Event::HandVoided { refunds, .. } => {
                Some(refunds.iter().map(|s| (s.seat, s.amount)).collect())
            }
            _ => None,
        })
        .expect("the hand was voided")
}

fn position(events: &[Event], pred: impl Fn(&Event) -> bool) -> Option<usize> {
    events.iter().position(pred)
}

fn is_board(e: &Event) -> bool {
    matches!(e, Event::BoardDealt { .. })
}

fn shown_seats(events: &[Event]) -> Vec<Seat> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::HandShown { seat, .. } => Some(*seat),
            _ => None,
        })
        .collect()
}

fn dealt(events: &[Event], who: Seat) -> [league_engine::card::Card; 2] {
    events
        .iter()
        .find_map(|e| match e {
            Event::HoleCardsDealt { seat, cards } if *seat == who => Some(*cards),
            _ => None,
        })
        .unwrap()
}

fn showdown_order(events: &[Event]) -> Option<Vec<Seat>> {
    events.iter().rev().find_map(|e| match e {
        Event::ShowdownStarted { order } => Some(order.clone()),
        _ => None,
    })
}

// --- tournament helpers ---------------------------------------------------------------

/// The blinds a hand started with (small, big).
fn started_blinds(events: &[Ev]) -> (u64, u64) {
    events
        .iter()
        .find_map(|e| match e {
            Ev::TableHandStarted { blinds, .. } => {
                Some((blinds.small_blind.get(), blinds.big_blind.get()))
            }
            _ => None,
        })
        .expect("a hand started")
}

fn started_positions(events: &[Ev]) -> league_engine::button::Positions {
    events
        .iter()
        .find_map(|e| match e {
            Ev::TableHandStarted { positions, .. } => Some(*positions),
            _ => None,
        })
        .expect("a hand started")
}

/// The blinds posted in the hand events: (seat, kind, amount).
fn posted(events: &[Ev]) -> Vec<(Seat, BlindKind, u64)> {
    tour::hand_events(events)
        .into_iter()
        .filter_map(|e| match e {
            Event::BlindPosted {
                seat, kind, amount, ..
            } => Some((*seat, *kind, *amount)),
            _ => None,
        })
        .collect()
}

fn start_recorded(g: &mut Game) -> Vec<Ev> {
    g.when(Cmd::StartHand {
        table: 1,
        seed: None,
        hand_id: None,
    })
}

/// Everyone calls or checks to the end of the betting round at table 1.
fn limp_round(g: &mut Game) {
    while let Some(legal) = g.hand(1).legal_actions() {
        let action = if legal.can_check {
            Action::Check
        } else {
            Action::Call
        };
        g.act(1, action);
    }
}

fn deal_board(g: &mut Game, cards: &str) {
    g.when(Cmd::Hand {
        table: 1,
        command: Command::DealBoard {
            cards: parse_cards(cards).unwrap(),
        },
    });
}

/// A level lasts 20 minutes in the harness's structure; its end is announced.
const LEVEL: league_engine::tournament::play::Millis = 20 * 60 * 1000;

// =======================================================================================
// QueenSix (`queensix`)
// =======================================================================================

#[test]
fn queensix_irregularities_3_a_card_with_a_different_back_voids_the_action_and_returns_every_chip()
{
    // QueenSix Irregularities 3: "If a card with a different colour back appears during a
    // hand, all action is void and all chips in the pot are returned to the respective
    // bettors. If a card with a different colour back is discovered in the stub, all action
    // stands."
    let mut t = Table::new(HouseRules::queensix(), &[1_000; 4], 10, 20);
    t.ok(C, Action::RaiseTo(60));
    t.ok(D, Action::Call);
    t.ok(A, Action::Fold);
    t.ok(B, Action::Call);
    t.board("2c7d9h");
    t.ok(B, Action::Bet(100));
    t.ok(C, Action::Call);
    // Far past the misdeal cut-off: a misdeal is refused ...
    assert_eq!(
        t.send(misdeal()),
        Err(RuleError::MisdealPastCutoff {
            cutoff: HouseRules::queensix().misdeal_cutoff
        })
    );
    // ... but the different back voids all action, whenever it appears.
    let events = t.send(different_back()).unwrap();
    assert_eq!(refunds(&events), vec![(A, 10), (B, 160), (C, 160), (D, 60)]);
    assert_eq!(t.state.phase(), Phase::Voided);
    assert_eq!(
        t.state.stacks().collect::<Vec<_>>(),
        vec![(A, 1_000), (B, 1_000), (C, 1_000), (D, 1_000)]
    );
    assert!(awards(&t.events).is_empty(), "no pot is awarded");
    assert_eq!(t.act(D, Action::Call), Err(RuleError::HandOver));
}

#[test]
fn queensix_irregularities_28_a_player_who_throws_the_board_away_undeclared_has_no_claim() {
    // QueenSix Irregularities 28: "Players must declare that they are playing the board
    // before they throw their cards away. Otherwise, they relinquish all claim to the pot."
    // The board is a royal flush: every hand plays it. B throws the cards away.
    let mut t = Table::new(HouseRules::queensix(), &[1_000; 3], 10, 20);
    t.limp_to_flop("AsKsQs");
    check_round(&mut t, &[A, B, C]);
    t.board("Js");
    check_round(&mut t, &[A, B, C]);
    t.board("Ts");
    check_round(&mut t, &[A, B, C]);
    assert_eq!(t.state.to_show(), Some(A));
    t.send(show(A, "2c3d")).unwrap();
    t.send(Command::Muck { seat: B }).unwrap();
    assert!(!t.state.is_live(B));
    // Too late to claim the board once the cards are gone.
    assert_eq!(
        t.send(show(B, "4c5d")),
        Err(RuleError::NotYourTurn {
            expected: Some(C),
            got: B
        })
    );
    let events = t.send(show(C, "6c7d")).unwrap();
    assert_eq!(shares(&events), vec![vec![(A, 30), (C, 30)]]);
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [1_010, 980, 1_010]);
}

#[test]
fn queensix_showdown_1_all_cards_are_shown_to_win_any_part_of_a_pot() {
    // QueenSix Showdown 1: "To win any part of a pot, a player must show all of their cards
    // face up on the table, whether they were used in the final hand played or not."
    let mut t = Table::new(HouseRules::queensix(), &[1_000; 3], 10, 20);
    t.ok(C, Action::Fold);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    t.board("AsKs7c");
    check_round(&mut t, &[A, B]);
    t.board("4d");
    check_round(&mut t, &[A, B]);
    t.board("2h");
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    t.send(show(A, "AhKh")).unwrap();
    // B's cards were never recorded: B cannot take a share without showing them.
    assert_eq!(
        t.send(Command::Show {
            seat: B,
            cards: None
        }),
        Err(RuleError::CardsUnknown { seat: B })
    );
    let mucked = hand::decide(&t.state, &Command::Muck { seat: B }).unwrap();
    assert_eq!(shares(&mucked), vec![vec![(A, 240)]], "no cards, no share");
    // Shown, B's equal two pair takes half.
    let events = t.send(show(B, "AdKd")).unwrap();
    assert!(t.state.is_shown(B));
    assert_eq!(shares(&events), vec![vec![(A, 120), (B, 120)]]);
}

#[test]
fn queensix_tournament_7_a_new_level_applies_from_the_next_deal() {
    // QueenSix Tournament 7: "If there is a signal designating the end of a betting level,
    // the new limits apply on the next deal. (A deal begins with the first riffle of the
    // shuffle.)"
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Recorded), 3);
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (25, 50));
    limp_round(&mut g);
    deal_board(&mut g, "2c7d9h");
    // The signal: level 2 (50/100) starts in the middle of the deal.
    g.advance(LEVEL);
    assert_eq!(g.state.level().unwrap().0, 2);
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(
        legal.bet_or_raise.map(|r| r.min),
        Some(50),
        "this deal keeps level 1's minimum bet"
    );
    g.act(1, Action::Bet(50));
    g.fold_out(1);
    // The next deal is dealt at level 2.
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (50, 100));
    let amounts: Vec<(BlindKind, u64)> = posted(&events).iter().map(|&(_, k, a)| (k, a)).collect();
    assert_eq!(
        amounts,
        vec![(BlindKind::SmallBlind, 50), (BlindKind::BigBlind, 100)]
    );
}

#[test]
fn queensix_tournament_14_a_new_player_is_dealt_in_at_once_and_takes_the_small_blind() {
    // QueenSix Tournament 14: "New players are dealt in immediately and take over the
    // obligations of that position, including the small blind or button position."
    let mut s = schedule(Preset::QueenSix, Tracking::Recorded);
    s.late_registration_until_level = 1;
    let mut g = Game::started(s, 9);
    assert_eq!(g.state.tables().len(), 1);
    // Hand 1: the big blind goes all-in against the button and loses everything.
    let p = g.start_hand(1);
    let big = g.player_at(1, p.big_blind);
    let button = g.player_at(1, p.button);
    g.all_in(1, &[(&button, "AsAh"), (&big, "KsKh")], "2c7d9h3s8d");
    assert!(
        !g.state.tables()[&1].seats.contains_key(&p.big_blind),
        "the big blind is out and the seat empty"
    );
    // A new player arrives and takes the only open seat: last hand's big blind.
    let (seed, next_commitment) = g.reveal();
    let at = g.clock;
    g.when(Cmd::LateEntry {
        player: id(10),
        at,
        seed,
        next_commitment,
    });
    assert_eq!(g.seat_of(&id(10)), (1, p.big_blind));
    // The very next hand deals them in, on that position's small blind (dead button:
    // the small blind follows last hand's big blind).
    let events = start_recorded(&mut g);
    let next = started_positions(&events);
    assert_eq!(next.small_blind, p.big_blind);
    assert_eq!(next.button, p.small_blind);
    assert!(posted(&events).contains(&(p.big_blind, BlindKind::SmallBlind, 25)));
    let hand = g.hand(1);
    assert!(hand.seats_in_order().any(|s| s == p.big_blind));
    assert_eq!(hand.stack(p.big_blind), Some(5_000 - 25));
    assert!(hand.is_live(p.big_blind));
}

#[test]
fn queensix_tournament_30_all_hands_face_up_once_a_player_is_all_in_and_betting_is_over() {
    // QueenSix Tournament 30: "All hands will be turned face up whenever a player is all-in
    // and betting action is complete."
    let mut t = seeded(HouseRules::queensix(), &[1_000, 1_000, 300], 10, 20, 30);
    t.ok(C, Action::AllIn);
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    // C is all-in, but A and B still bet: nothing is turned up yet.
    assert_eq!(t.state.board().count(), 3);
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    check_round(&mut t, &[A, B]);
    assert_eq!(t.state.board().count(), 5);
    assert!(
        shown_seats(&t.events).is_empty(),
        "betting was not complete"
    );
    check_round(&mut t, &[A, B]);
    // Betting complete with a player all-in: every hand is face up, nobody mucks.
    assert_eq!(t.state.phase(), Phase::Complete);
    let mut shown = shown_seats(&t.events);
    shown.sort_unstable();
    assert_eq!(shown, vec![A, B, C]);
    assert!(
        !t.events
            .iter()
            .any(|e| matches!(e, Event::HandMucked { .. }))
    );
    // The same hand with nobody all-in: the showdown waits for each player to show or muck.
    let mut t = seeded(HouseRules::queensix(), &[1_000; 3], 10, 20, 30);
    t.ok(C, Action::Fold);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    for _ in 0..3 {
        check_round(&mut t, &[A, B]);
    }
    assert_eq!(t.state.to_show(), Some(A));
    assert!(shown_seats(&t.events).is_empty());
}

// =======================================================================================
// West Pennant Hills (`wph`)
// =======================================================================================

#[test]
fn wph_9_all_hands_face_up_once_a_player_is_all_in_and_betting_is_complete() {
    // WPH 9: "All cards will be turned face up once a player is all-in and all betting
    // action at the table is complete."
    let mut t = seeded(HouseRules::wph(), &[1_000; 3], 10, 20, 9);
    t.ok(C, Action::AllIn);
    t.ok(A, Action::Fold);
    t.ok(B, Action::AllIn);
    assert_eq!(t.state.phase(), Phase::Complete);
    // Both hands went face up before the first board card, with the cards dealt.
    assert_eq!(shown_seats(&t.events), vec![C, B]);
    let first_board = position(&t.events, is_board).unwrap();
    let last_shown = t
        .events
        .iter()
        .rposition(|e| matches!(e, Event::HandShown { .. }))
        .unwrap();
    assert!(last_shown < first_board, "face up before the run-out");
    for seat in [B, C] {
        assert_eq!(t.state.hole_cards(seat), Some(dealt(&t.events, seat)));
        assert!(t.state.is_shown(seat));
    }
    assert!(!t.state.is_shown(A), "the folded hand stays hidden");
    assert_eq!(t.state.board().count(), 5);
}

#[test]
fn wph_10a_all_hole_cards_are_shown_to_win_a_contested_showdown_even_playing_the_board() {
    // WPH 10A: "All hole cards must be shown to win a contested showdown even if playing
    // the board."
    let mut t = Table::new(HouseRules::wph(), &[1_000, 1_000], 10, 20);
    t.hole(0, "2c3d");
    t.hole(1, "4c4d");
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    // The board is a king-high straight: both players play it.
    t.board("9hThJc");
    check_round(&mut t, &[0, 1]);
    t.board("Qd");
    check_round(&mut t, &[0, 1]);
    t.board("Ks");
    t.ok(0, Action::Bet(100));
    t.ok(1, Action::Call);
    t.send(Command::Show {
        seat: 0,
        cards: None,
    })
    .unwrap();
    // Seat 1 must table its own two cards, not others.
    assert_eq!(
        t.send(show(1, "5c5d")),
        Err(RuleError::WrongCards {
            seat: 1,
            got: two("5c5d")
        })
    );
    let mucked = hand::decide(&t.state, &Command::Muck { seat: 1 }).unwrap();
    assert_eq!(shares(&mucked), vec![vec![(0, 240)]]);
    let events = t
        .send(Command::Show {
            seat: 1,
            cards: None,
        })
        .unwrap();
    assert_eq!(shares(&events), vec![vec![(0, 120), (1, 120)]]);
}

#[test]
fn wph_11_a_winning_hand_tabled_face_up_cannot_be_killed() {
    // WPH 11: "Dealers cannot kill a winning hand that was tabled face up and was obviously
    // the winning hand."
    let mut t = Table::new(HouseRules::wph(), &[1_000; 3], 10, 20);
    t.limp_to_flop("AsKd7c");
    check_round(&mut t, &[A, B, C]);
    t.board("4h");
    check_round(&mut t, &[A, B, C]);
    t.board("2s");
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    t.send(show(A, "AhAd")).unwrap();
    // Nothing can take the tabled hand out of the pot: no muck, no clock, no misdeal, no
    // floor ruling killing it.
    assert_eq!(
        t.send(Command::Muck { seat: A }),
        Err(RuleError::NotYourTurn {
            expected: Some(B),
            got: A
        })
    );
    assert_eq!(
        t.send(Command::ClockExpired { seat: A }),
        Err(RuleError::NotBetting)
    );
    assert!(t.send(misdeal()).is_err());
    assert_eq!(
        t.send(Command::Kill {
            seat: A,
            cause: league_engine::hand::KillCause::Fouled,
            reason: "a card touched the muck".into(),
        }),
        Err(RuleError::HandTabled { seat: A })
    );
    assert!(t.state.is_live(A) && t.state.is_shown(A));
    t.send(Command::Muck { seat: B }).unwrap();
    let events = t.send(show(C, "KhKc")).unwrap();
    assert_eq!(shares(&events), vec![vec![(A, 360)]]);
}

#[test]
fn wph_13_each_side_pot_is_split_separately() {
    // WPH 13: "Each side pot will be split separately."
    // A is all-in for 100; B and C put in 300. A and B tie; C's hand is worse.
    let mut t = Table::new(HouseRules::wph(), &[100, 1_000, 1_000], 5, 10);
    t.ok(C, Action::RaiseTo(300));
    t.ok(A, Action::AllIn);
    t.ok(B, Action::Call);
    t.board("AsKd7c");
    check_round(&mut t, &[B, C]);
    t.board("4h");
    check_round(&mut t, &[B, C]);
    t.board("2s");
    check_round(&mut t, &[B, C]);
    t.send(show(A, "QhJh")).unwrap();
    t.send(show(B, "QdJd")).unwrap();
    t.send(show(C, "9c8c")).unwrap();
    assert_eq!(
        awards(&t.events),
        vec![
            (1, 400, vec![B, C], vec![(B, 400)]),
            (0, 300, vec![A, B, C], vec![(A, 150), (B, 150)]),
        ]
    );
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [150, 1_250, 700]);
}

#[test]
fn wph_15_a_new_level_applies_to_the_next_hand() {
    // WPH 15: "When time has elapsed in a round and a member of the tournament staff
    // announces a new level, the new level applies to the next hand. A hand begins with the
    // first riffle."
    let mut g = Game::started(schedule(Preset::Wph, Tracking::Recorded), 3);
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (25, 50));
    g.advance(LEVEL);
    assert_eq!(g.state.level().unwrap().0, 2);
    // Nobody has acted yet, but the hand has begun: it plays at 25/50.
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(legal.call, Some(50));
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(100));
    g.fold_out(1);
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (50, 100));
    assert_eq!(g.hand(1).current_bet(), 100);
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(200));
}

#[test]
fn wph_21_no_rabbit_hunting() {
    // WPH 21: "No rabbit hunting is allowed. Rabbit hunting is revealing any of the cards
    // “that would have come” if the hand had not ended."
    let mut t = seeded(HouseRules::wph(), &[1_000; 3], 10, 20, 21);
    t.ok(C, Action::Call);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    assert_eq!(t.state.board().count(), 3);
    t.ok(A, Action::Bet(40));
    t.ok(B, Action::Fold);
    t.ok(C, Action::Fold);
    assert_eq!(t.state.phase(), Phase::Complete);
    // The hand ended on the flop: no turn or river is dealt, no hand is shown.
    let boards = t.events.iter().filter(|e| is_board(e)).count();
    assert_eq!(boards, 1);
    assert_eq!(t.state.board().count(), 3);
    assert!(shown_seats(&t.events).is_empty());
    assert_eq!(
        t.send(Command::DealBoard {
            cards: parse_cards("2c").unwrap()
        }),
        Err(RuleError::HandOver)
    );
    // Nor in a recorded hand: once it is over, no card can be put on the board.
    let mut t = Table::new(HouseRules::wph(), &[1_000; 3], 10, 20);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(40));
    t.ok(B, Action::Fold);
    t.ok(C, Action::Fold);
    assert_eq!(
        t.send(Command::DealBoard {
            cards: parse_cards("Ts").unwrap()
        }),
        Err(RuleError::HandOver)
    );
}

#[test]
fn wph_36_no_cap_on_the_number_of_raises_in_no_limit() {
    // WPH 36: "There is no cap on the number of raises in no-limit games."
    let mut t = Table::new(HouseRules::wph(), &[100_000_000, 100_000_000], 1, 2);
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    t.board("2c7d9h");
    t.ok(0, Action::Bet(10));
    let (mut previous, mut to) = (0, 10);
    for i in 0..20 {
        let seat = if i % 2 == 0 { 1 } else { 0 };
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, seat);
        // The smallest raise is the last raise again: never closed by a cap.
        assert_eq!(
            legal.bet_or_raise.map(|r| r.min),
            Some(to + (to - previous)),
            "raise {i}"
        );
        (previous, to) = (to, to * 2);
        t.ok(seat, Action::RaiseTo(to));
    }
    let raises = t
        .events
        .iter()
        .filter(|e| matches!(e, Event::PlayerRaised { full: true, .. }))
        .count();
    assert_eq!(raises, 20);
    assert_eq!(t.state.current_bet(), 10 << 20);
    assert!(
        t.state.legal_actions().unwrap().bet_or_raise.is_some(),
        "the 21st raise is open too"
    );
}

// =======================================================================================
// Oracle (`oracle`)
// =======================================================================================

#[test]
fn oracle_misdeal_1_11_no_misdeal_once_two_players_after_the_blinds_have_acted() {
    // Oracle Misdeal 1.11: "Once action occurs, a misdeal can no longer be declared. The
    // hand will be played to conclusion, and no money will be returned to any player whose
    // hand is fouled. In button games, action is considered to occur when two player after
    // the blinds have acted on their hands."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 5], 5, 10);
    t.ok(C, Action::Call);
    // One player after the blinds has acted: still a misdeal, every chip back.
    let voided = hand::decide(&t.state, &misdeal()).unwrap();
    assert_eq!(
        refunds(&voided),
        vec![(A, 5), (B, 10), (C, 10), (D, 0), (E, 0)]
    );
    t.ok(D, Action::RaiseTo(30));
    assert_eq!(
        t.send(misdeal()),
        Err(RuleError::MisdealPastCutoff {
            cutoff: HouseRules::oracle().misdeal_cutoff
        })
    );
    // The hand plays on to its conclusion.
    t.ok(E, Action::Fold);
    t.ok(A, Action::Fold);
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    assert_eq!(t.state.awaiting_board(), Some(Street::Flop));
    t.board("2c7d9h");
    t.ok(B, Action::Bet(10));
    t.ok(C, Action::Fold);
    t.ok(D, Action::Fold);
    assert_eq!(t.state.phase(), Phase::Complete);
    assert_eq!(t.stack(B), 1_000 + 5 + 30 + 30);
    assert_eq!([t.stack(A), t.stack(C), t.stack(D)], [995, 970, 970]);
}

#[test]
fn oracle_irregularities_3_a_card_with_a_different_back_voids_the_action() {
    // Oracle Irregularities 3: "If a card with a different colour back appears during a
    // hand, all action is void and all chips in the pot are returned to the respective
    // bettors."
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000, 200, 1_000], 5, 10);
    t.ok(C, Action::AllIn);
    t.ok(D, Action::Call);
    t.ok(A, Action::Fold);
    t.ok(B, Action::Call);
    t.board("2c7d9h");
    t.ok(B, Action::Bet(300));
    t.ok(D, Action::Call);
    t.board("3s");
    // On the turn, with a side pot: no misdeal now, but the deck is defective.
    assert!(matches!(
        t.send(misdeal()),
        Err(RuleError::MisdealPastCutoff { .. })
    ));
    let events = t.send(different_back()).unwrap();
    assert_eq!(refunds(&events), vec![(A, 5), (B, 500), (C, 200), (D, 500)]);
    assert_eq!(
        [t.stack(A), t.stack(B), t.stack(C), t.stack(D)],
        [1_000, 1_000, 200, 1_000]
    );
    assert_eq!(t.state.phase(), Phase::Voided);
}

#[test]
fn oracle_irregularities_17_cards_dealt_before_the_betting_is_complete_do_not_play() {
    // Oracle Irregularities 17: "If the dealer prematurely deals any cards before the
    // betting is complete, those cards will not play, even if a player who has not acted
    // decides to folds."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    assert_eq!(t.state.awaiting_board(), None);
    assert_eq!(
        t.send(Command::DealBoard {
            cards: parse_cards("Ts").unwrap()
        }),
        Err(RuleError::NotWaitingForBoard)
    );
    // B, who had not acted, folds: the early card still does not play.
    t.ok(B, Action::Fold);
    t.ok(C, Action::Call);
    assert_eq!(t.state.awaiting_board(), Some(Street::Turn));
    t.board("3h");
    assert_eq!(
        t.state.board().collect::<Vec<_>>(),
        parse_cards("2c7d9h3h").unwrap()
    );
}

#[test]
fn oracle_betting_1_check_raise_is_permitted() {
    // Oracle Betting 1: "Check-raise is permitted in all games."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Check);
    t.ok(B, Action::Bet(50));
    t.ok(C, Action::Call);
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, A);
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(100));
    let events = t.ok(A, Action::RaiseTo(200));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PlayerRaised {
            seat: A,
            to: 200,
            full: true,
            ..
        }
    )));
    assert_eq!(t.stack(A), 1_000 - 20 - 200);
    // The check-raise is a full raise: B may raise again.
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, B);
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(350));
}

#[test]
fn oracle_betting_2_unlimited_raising_in_no_limit() {
    // Oracle Betting 2: "In no-limit and pot-limit games, unlimited raising is allowed."
    let stack: u64 = 10_000_000;
    let mut t = Table::new(HouseRules::oracle(), &[stack; 3], 1, 2);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(10));
    let mut to = 10;
    for i in 0..15 {
        let seat = [B, C, A][i % 3];
        to *= 2;
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, seat);
        let range = legal.bet_or_raise.expect("the raising never closes");
        // No-limit: any amount up to everything the player has.
        assert_eq!(range.max, stack - 2);
        t.ok(seat, Action::RaiseTo(to));
    }
    assert_eq!(t.state.current_bet(), 10 << 15);
    let seat = t.to_act().unwrap();
    let events = t.ok(seat, Action::AllIn);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PlayerRaised { to, all_in: true, .. } if *to == stack - 2
    )));
}

#[test]
fn oracle_oversized_chip_3_a_short_wager_is_brought_up_to_the_proper_amount() {
    // Oracle Oversized chip 3: "All wagers and calls of an improper low amount must be
    // brought up to proper amount if the error is discovered before the betting round has
    // been completed. This includes actions such as betting a lower amount than the
    // minimum bring-in (other than going all-in) [...] No one who has acted may change a
    // call to a raise because the wager size has been changed."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 50, 100);
    t.limp_to_flop("2c7d9h");
    let events = t.ok(A, Action::Bet(60));
    assert!(events.contains(&Event::PlayerBet {
        seat: A,
        to: 100,
        all_in: false
    }));
    assert_eq!(t.stack(A), 900 - 100, "brought up to the minimum, no more");
    t.ok(B, Action::Call);
    assert_eq!(t.stack(B), 800);
    // Going all-in for less than the minimum is not brought up; a player who had
    // already checked may call it but not raise.
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000, 160], 50, 100);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    let events = t.ok(C, Action::AllIn);
    assert!(events.contains(&Event::PlayerBet {
        seat: C,
        to: 60,
        all_in: true
    }));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(
        (legal.seat, legal.call, legal.bet_or_raise),
        (A, Some(60), None)
    );
    assert_eq!(
        t.act(A, Action::RaiseTo(200)),
        Err(RuleError::RaiseNotAllowed)
    );
}

#[test]
fn oracle_showdown_1_all_cards_are_shown_used_or_not_to_win_any_part_of_a_pot() {
    // Oracle Showdown 1: "To win any part of a pot, a player must show all of his cards
    // faceup on the table, whether they were used in the final hand played or not."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    t.ok(C, Action::Fold);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    t.board("AsKsQs");
    check_round(&mut t, &[A, B]);
    t.board("Js");
    check_round(&mut t, &[A, B]);
    t.board("2d");
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    t.send(show(A, "9s8h")).unwrap();
    assert_eq!(
        t.send(Command::Show {
            seat: B,
            cards: None
        }),
        Err(RuleError::CardsUnknown { seat: B })
    );
    let mucked = hand::decide(&t.state, &Command::Muck { seat: B }).unwrap();
    assert_eq!(shares(&mucked), vec![vec![(A, 240)]]);
    // B's royal flush uses the ten only; both cards go face up, the three of clubs too.
    let events = t.send(show(B, "Ts3c")).unwrap();
    assert!(events.contains(&Event::HandShown {
        seat: B,
        cards: two("Ts3c")
    }));
    assert_eq!(shares(&events), vec![vec![(B, 240)]]);
}

#[test]
fn oracle_odd_chips_5_2_side_pots_and_the_main_pot_are_split_as_separate_pots() {
    // Oracle Odd chips 5.2: "All side pots and the main pot will be split as separate pots,
    // not mixed together." The board is a royal flush: every hand ties. D folds on the
    // flop, leaving odd chips in both pots.
    let mut t = Table::new(HouseRules::oracle(), &[101, 1_000, 1_000, 1_000], 5, 10);
    t.ok(C, Action::RaiseTo(300));
    t.ok(D, Action::Call);
    t.ok(A, Action::AllIn);
    t.ok(B, Action::Call);
    t.board("AsKsQs");
    t.ok(B, Action::Bet(50));
    t.ok(C, Action::Call);
    t.ok(D, Action::Fold);
    t.board("Js");
    check_round(&mut t, &[B, C]);
    t.board("Ts");
    check_round(&mut t, &[B, C]);
    t.send(show(A, "2c3d")).unwrap();
    t.send(show(B, "4c5d")).unwrap();
    t.send(show(C, "6c7d")).unwrap();
    // Side pot 697 between B and C: one odd chip, to B. Main pot 404 between A, B and C:
    // two odd chips, to A and B. (Mixed as one pot, 1,101 would split otherwise.)
    assert_eq!(
        awards(&t.events),
        vec![
            (1, 697, vec![B, C], vec![(B, 349), (C, 348)]),
            (0, 404, vec![A, B, C], vec![(A, 135), (B, 135), (C, 134)]),
        ]
    );
}

#[test]
fn oracle_tournament_2_new_limits_apply_from_the_next_hand_a_hand_begins_at_the_shuffle() {
    // Oracle Tournament 2: "When time has elapsed in a round and a new round is announced,
    // the new limits apply to the next hand. A hand has begun with the first shuffle."
    // Dealt play: the hand's shuffle is committed when it starts, before anyone acts.
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Dealt), 3);
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: Some(tour::secret(500)),
        hand_id: None,
    });
    assert_eq!(started_blinds(&events), (25, 50));
    assert!(
        tour::hand_events(&events)
            .iter()
            .any(|e| matches!(e, Event::HoleCardsDealt { .. }))
    );
    g.advance(LEVEL);
    assert_eq!(g.state.level().unwrap().0, 2);
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(legal.call, Some(50), "the shuffled hand keeps 25/50");
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(100));
    g.fold_out(1);
    let events = g.when(Cmd::StartHand {
        table: 1,
        seed: Some(tour::secret(501)),
        hand_id: None,
    });
    assert_eq!(started_blinds(&events), (50, 100));
    let amounts: Vec<u64> = posted(&events).iter().map(|&(_, _, a)| a).collect();
    assert_eq!(amounts, vec![50, 100]);
}

#[test]
fn oracle_four_card_flop_3_6_an_uncalled_bet_wins_and_a_mucked_winner_forfeits_to_the_best_live_hand()
 {
    // Oracle Four-card flop 3.6: "A player who makes a bet that is not called, wins the
    // pot, a player that decides for himself (incorrectly) that he/she has no hand to beat,
    // and throws his/her hand or any part of it into the muck forfeits the pot to the
    // highest live hand against them."
    let river = |t: &mut Table| {
        t.limp_to_flop("AsKd7c");
        check_round(t, &[A, B, C]);
        t.board("4h");
        check_round(t, &[A, B, C]);
        t.board("2s");
    };
    // An uncalled bet wins, without a showdown.
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    river(&mut t);
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Fold);
    t.ok(C, Action::Fold);
    assert!(t.events.contains(&Event::UncalledBetReturned {
        seat: A,
        amount: 100
    }));
    assert_eq!(shares(&t.events), vec![vec![(A, 60)]]);
    assert_eq!(showdown_order(&t.events), None);
    assert!(!t.state.is_shown(A));
    assert_eq!(t.stack(A), 1_040);
    // B holds the winner (three aces) but mucks it: C's pair, the best live hand, wins.
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    t.hole(B, "AhAd");
    river(&mut t);
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    t.send(show(A, "QhJh")).unwrap();
    t.send(Command::Muck { seat: B }).unwrap();
    let events = t.send(show(C, "9c9d")).unwrap();
    assert_eq!(shares(&events), vec![vec![(C, 360)]]);
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [880, 880, 1_240]);
}

#[test]
fn oracle_killing_winning_hand_a_tabled_obviously_winning_hand_cannot_be_killed() {
    // Oracle Killing Winning Hand: "Dealers cannot kill a winning hand that was tabled and
    // was obviously the winning hand."
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000], 10, 20);
    t.hole(0, "AhAd");
    t.hole(1, "KhKd");
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    t.board("As7c2d");
    check_round(&mut t, &[0, 1]);
    t.board("9h");
    check_round(&mut t, &[0, 1]);
    t.board("4s");
    t.ok(0, Action::Bet(100));
    t.ok(1, Action::Call);
    t.send(Command::Show {
        seat: 0,
        cards: None,
    })
    .unwrap();
    assert_eq!(
        t.send(Command::Muck { seat: 0 }),
        Err(RuleError::NotYourTurn {
            expected: Some(1),
            got: 0
        })
    );
    assert_eq!(
        t.send(Command::ClockExpired { seat: 0 }),
        Err(RuleError::NotBetting)
    );
    assert!(t.state.is_live(0));
    let events = t
        .send(Command::Show {
            seat: 1,
            cards: None,
        })
        .unwrap();
    assert_eq!(shares(&events), vec![vec![(0, 240)]]);
}

#[test]
fn oracle_side_pots_each_side_pot_is_split_separately() {
    // Oracle Side Pots: "Each side pot will be split separately."
    // Stacks 100, 300, 1,000, 1,000, all in before the flop: a main pot and two side pots,
    // each with its own winners (B and C tie for the first side pot).
    let mut t = Table::new(HouseRules::oracle(), &[100, 300, 1_000, 1_000], 5, 10);
    t.ok(C, Action::AllIn);
    t.ok(D, Action::AllIn);
    t.ok(A, Action::AllIn);
    t.ok(B, Action::AllIn);
    t.board("KhKd7c");
    t.board("4s");
    t.board("2h");
    t.send(show(A, "AhAs")).unwrap();
    t.send(show(B, "QcQh")).unwrap();
    t.send(show(C, "QdQs")).unwrap();
    t.send(show(D, "JcJd")).unwrap();
    assert_eq!(
        awards(&t.events),
        vec![
            (2, 1_400, vec![C, D], vec![(C, 1_400)]),
            (1, 600, vec![B, C, D], vec![(B, 300), (C, 300)]),
            (0, 400, vec![A, B, C, D], vec![(A, 400)]),
        ]
    );
    assert_eq!(
        [t.stack(A), t.stack(B), t.stack(C), t.stack(D)],
        [400, 300, 1_700, 0]
    );
}

#[test]
fn oracle_playing_the_board_both_cards_are_shown_to_share_the_pot() {
    // Oracle Playing the Board: "A player must show both cards when playing the board in
    // order to get part of the pot."
    let mut t = Table::new(HouseRules::oracle(), &[1_000; 3], 10, 20);
    t.hole(A, "2c3d");
    t.limp_to_flop("AsKsQs");
    check_round(&mut t, &[A, B, C]);
    t.board("Js");
    check_round(&mut t, &[A, B, C]);
    t.board("Ts");
    check_round(&mut t, &[A, B, C]);
    // A shows both recorded cards; B tables both; C plays the board without showing.
    let events = t
        .send(Command::Show {
            seat: A,
            cards: None,
        })
        .unwrap();
    assert!(events.contains(&Event::HandShown {
        seat: A,
        cards: two("2c3d")
    }));
    t.send(show(B, "4c5d")).unwrap();
    assert_eq!(
        t.send(Command::Show {
            seat: C,
            cards: None
        }),
        Err(RuleError::CardsUnknown { seat: C })
    );
    let events = t.send(Command::Muck { seat: C }).unwrap();
    assert_eq!(shares(&events), vec![vec![(A, 30), (B, 30)]]);
    assert_eq!(t.stack(C), 980);
}

#[test]
fn oracle_new_limits_a_new_level_applies_to_the_next_hand() {
    // Oracle New Limits: "When time has elapsed in a round and a new level is announced by
    // a member of the tournament staff, the new level applies to the next hand. A hand
    // begins with the first riffle."
    let mut g = Game::started(schedule(Preset::Oracle, Tracking::Recorded), 3);
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (25, 50));
    limp_round(&mut g);
    deal_board(&mut g, "2c7d9h");
    limp_round(&mut g);
    deal_board(&mut g, "Ts");
    limp_round(&mut g);
    deal_board(&mut g, "3h");
    // The new level is announced on the river of this hand.
    g.advance(LEVEL);
    assert_eq!(g.state.level().unwrap().0, 2);
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(50));
    g.act(1, Action::Bet(50));
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(
        legal.bet_or_raise.map(|r| r.min),
        Some(100),
        "a raise over 50 by level 1's big blind"
    );
    g.fold_out(1);
    let events = start_recorded(&mut g);
    assert_eq!(started_blinds(&events), (50, 100));
    let legal = g.hand(1).legal_actions().unwrap();
    assert_eq!(legal.call, Some(100));
}

// =======================================================================================
// The invitational (`invitational`)
// =======================================================================================

#[test]
fn invitational_1_2_the_same_buy_in_and_the_same_chips_for_every_player_paid_before_the_start() {
    // Invitational 1.2: "The buy-in amount and associated number of tournament chips shall
    // be the same for every player. $15 in cash will buy 2000 tournament chips. All moneys
    // must be paid prior to the start of the tournament."
    let mut s = schedule(Preset::Invitational, Tracking::Results);
    s.starting_chips = Chips::new(2_000);
    s.pool.entry = Price::new(Cents::new(1_500), Cents::ZERO);
    s.pool.house = HouseCut::AllToPool;
    let mut g = Game::scheduled(s);
    for n in 1..=6 {
        let events = g.when(Cmd::Register { player: id(n) });
        assert!(matches!(
            &events[..],
            [Ev::PlayerRegistered { paid, .. }] if *paid == Price::new(Cents::new(1_500), Cents::ZERO)
        ));
    }
    g.start();
    for n in 1..=6 {
        assert_eq!(g.chips(&id(n)), 2_000, "{}", id(n));
        assert_eq!(
            g.state.player(&id(n)).unwrap().paid,
            Cents::new(1_500),
            "{}",
            id(n)
        );
    }
    assert_eq!(g.state.prize_pool().unwrap().total, Cents::new(9_000));
    // Paid before the start: nobody buys in once it has started.
    assert_eq!(
        g.refused(Cmd::Register { player: id(7) }),
        TournamentError::AlreadyStarted
    );
    let (seed, next_commitment) = g.reveal();
    assert_eq!(
        g.refused(Cmd::LateEntry {
            player: id(7),
            at: g.clock,
            seed,
            next_commitment
        }),
        TournamentError::RegistrationClosed {
            level: 1,
            until_level: 0
        }
    );
}

#[test]
fn invitational_2_3_no_changing_seats_at_the_same_table() {
    // Invitational 2.3: "Players may not change seats at the same table. Exceptions can be
    // made when all players on the table and the tournament director agree."
    let mut g = Game::started(schedule(Preset::Invitational, Tracking::Results), 12);
    assert_eq!((g.at_table(1).len(), g.at_table(2).len()), (6, 6));
    let player = g.at_table(1)[0].clone();
    let before = g.seat_of(&player);
    let open = |g: &Game, table: u32| {
        (0..9u8)
            .find(|s| !g.state.tables()[&table].seats.contains_key(s))
            .unwrap()
    };
    let here = open(&g, 1);
    assert_eq!(
        g.refused(Cmd::MovePlayer {
            player: player.clone(),
            to_table: 1,
            to_seat: here,
        }),
        TournamentError::SeatTaken {
            table: 1,
            seat: here
        }
    );
    assert_eq!(g.seat_of(&player), before);
    // A move to another table (5 and 7 players stay balanced under 2.1) is taken.
    let there = open(&g, 2);
    g.when(Cmd::MovePlayer {
        player: player.clone(),
        to_table: 2,
        to_seat: there,
    });
    assert_eq!(g.seat_of(&player), (2, there));
}

#[test]
fn invitational_5_8_all_hands_face_up_once_a_player_is_all_in_and_betting_is_complete() {
    // Invitational 5.8: "All hands will be turned face up whenever a player is all-in and
    // betting action is complete."
    let mut t = seeded(HouseRules::invitational(), &[1_000, 600, 1_000], 10, 20, 58);
    t.ok(C, Action::Call);
    t.ok(A, Action::Call);
    t.ok(B, Action::Check);
    assert_eq!(t.state.board().count(), 3);
    t.ok(A, Action::Check);
    t.ok(B, Action::AllIn);
    assert_eq!(t.stack(B), 0, "all-in is every chip B has");
    assert!(shown_seats(&t.events).is_empty(), "C and A still to act");
    t.ok(C, Action::Fold);
    t.ok(A, Action::Call);
    // Betting complete: both hands go face up on the flop, before the turn is dealt.
    let flop = position(&t.events, is_board).unwrap();
    let turn = flop + 1 + position(&t.events[flop + 1..], is_board).unwrap();
    let shown: Vec<usize> = t
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::HandShown { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(shown.len(), 2);
    assert!(shown.iter().all(|&i| flop < i && i < turn));
    let mut seats = shown_seats(&t.events);
    seats.sort_unstable();
    assert_eq!(seats, vec![A, B]);
    assert!(!t.state.is_shown(C));
    assert_eq!(t.state.phase(), Phase::Complete);
}

#[test]
fn invitational_7_6_a_player_playing_the_board_shows_both_cards() {
    // Invitational 7.6: "A player must show both cards when playing the board."
    let mut t = Table::new(HouseRules::invitational(), &[1_000, 1_000], 10, 20);
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    t.board("9hThJc");
    check_round(&mut t, &[0, 1]);
    t.board("Qd");
    check_round(&mut t, &[0, 1]);
    t.board("Ks");
    t.ok(0, Action::Check);
    t.ok(1, Action::Bet(100));
    t.ok(0, Action::Call);
    assert_eq!(t.state.to_show(), Some(1));
    t.send(show(1, "2c3d")).unwrap();
    assert_eq!(
        t.send(Command::Show {
            seat: 0,
            cards: None
        }),
        Err(RuleError::CardsUnknown { seat: 0 })
    );
    let mucked = hand::decide(&t.state, &Command::Muck { seat: 0 }).unwrap();
    assert_eq!(shares(&mucked), vec![vec![(1, 240)]]);
    let events = t.send(show(0, "4c4d")).unwrap();
    assert_eq!(shares(&events), vec![vec![(0, 120), (1, 120)]]);
}

// =======================================================================================
// Hippodrome (`hippodrome`)
// =======================================================================================

#[test]
fn hippodrome_decision_making_8_a_player_may_learn_which_hands_are_live_and_whether_the_action_was_valid()
 {
    // Hippodrome Decision-making 8: "A player, before they act, is entitled to request and
    // receive information as to whether any opposing hand is live or dead and if the
    // previous action was valid."
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000; 4], 5, 10);
    t.ok(C, Action::RaiseTo(40));
    // An invalid action is refused and leaves no trace.
    assert_eq!(
        t.act(D, Action::Check),
        Err(RuleError::CannotCheck {
            seat: D,
            to_call: 40
        })
    );
    t.ok(D, Action::Fold);
    // A, before acting: who is live, what was done, what A may do.
    assert_eq!(t.to_act(), Some(A));
    assert!(!t.state.is_live(D));
    assert!(t.state.is_live(B) && t.state.is_live(C));
    assert_eq!(t.state.bet(C), Some(40));
    assert!(t.events.contains(&Event::PlayerRaised {
        seat: C,
        to: 40,
        all_in: false,
        full: true,
        declared: None
    }));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(
        (legal.seat, legal.can_check, legal.call),
        (A, false, Some(35))
    );
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(70));
    // Asking about an action without taking it: a raise to 60 is under the minimum but
    // over half of it, so it would be made 70 (Hippodrome 11).
    let answer = hand::decide(
        &t.state,
        &Command::Act {
            seat: A,
            action: Action::RaiseTo(60),
        },
    )
    .unwrap();
    assert!(answer.iter().any(|e| matches!(
        e,
        Event::PlayerRaised {
            seat: A,
            to: 70,
            declared: Some(60),
            ..
        }
    )));
    assert_eq!(t.to_act(), Some(A), "asking changed nothing");
    assert_eq!(t.state.bet(A), Some(5));
}

#[test]
fn hippodrome_misdeal_1_no_misdeal_once_two_players_after_the_blinds_have_acted() {
    // Hippodrome Misdeal 1: "Once action begins, a misdeal cannot be called. Action is
    // considered to occur when two players after the blinds have acted on their hands."
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000; 6], 5, 10);
    t.ok(C, Action::Fold);
    let voided = hand::decide(&t.state, &misdeal()).unwrap();
    assert_eq!(
        refunds(&voided),
        vec![(A, 5), (B, 10), (C, 0), (D, 0), (E, 0), (5, 0)]
    );
    t.ok(D, Action::Fold);
    assert_eq!(
        t.send(misdeal()),
        Err(RuleError::MisdealPastCutoff {
            cutoff: HouseRules::hippodrome().misdeal_cutoff
        })
    );
    t.ok(E, Action::Call);
    t.ok(5, Action::Fold);
    t.ok(A, Action::Fold);
    t.ok(B, Action::Check);
    assert_eq!(t.state.awaiting_board(), Some(Street::Flop));
    assert_eq!(t.state.pot_total(), 25);
}

#[test]
fn hippodrome_irregularities_4_a_card_with_a_different_back_voids_the_action() {
    // Hippodrome Irregularities 4: "If a card with a different colour back appears during a
    // hand, all action is void and all chips in the pot are returned to the respective
    // bettors."
    let mut t = seeded(HouseRules::hippodrome(), &[1_000; 3], 10, 20, 4);
    t.ok(C, Action::RaiseTo(60));
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    assert_eq!(t.state.board().count(), 3);
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    let events = t.send(different_back()).unwrap();
    assert_eq!(refunds(&events), vec![(A, 160), (B, 160), (C, 60)]);
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [1_000; 3]);
    assert_eq!(t.state.phase(), Phase::Voided);
    assert!(awards(&t.events).is_empty());
}

#[test]
fn hippodrome_irregularities_12_cards_dealt_before_the_betting_is_complete_do_not_play() {
    // Hippodrome Irregularities 12: "If the dealer prematurely deals any cards before the
    // betting is complete, those cards will not play, even if a player who has not acted
    // decides to fold."
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000; 4], 5, 10);
    t.ok(C, Action::RaiseTo(30));
    assert_eq!(
        t.send(Command::DealBoard {
            cards: parse_cards("2c7d9h").unwrap()
        }),
        Err(RuleError::NotWaitingForBoard)
    );
    assert_eq!(t.state.board().count(), 0);
    t.ok(D, Action::Fold);
    t.ok(A, Action::Fold);
    t.ok(B, Action::Call);
    t.board("AhKd3c");
    assert_eq!(
        t.state.board().collect::<Vec<_>>(),
        parse_cards("AhKd3c").unwrap()
    );
    // The early cards went back to the deck: any of them may still come later.
    check_round(&mut t, &[B, C]);
    t.board("2c");
    assert_eq!(t.state.board().count(), 4);
}

#[test]
fn hippodrome_showdown_1_a_player_must_be_prepared_to_show_all_cards_to_win() {
    // Hippodrome Showdown 1: "To win any part of a pot, a player must be prepared to show
    // all of his cards face up on the table, whether they were used in the final hand
    // played or not."
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000, 1_000], 10, 20);
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    t.board("2c7d9h");
    check_round(&mut t, &[0, 1]);
    t.board("Js");
    check_round(&mut t, &[0, 1]);
    t.board("3h");
    t.ok(0, Action::Bet(100));
    t.ok(1, Action::Call);
    t.send(show(0, "AhKd")).unwrap();
    assert_eq!(
        t.send(Command::Show {
            seat: 1,
            cards: None
        }),
        Err(RuleError::CardsUnknown { seat: 1 })
    );
    let mucked = hand::decide(&t.state, &Command::Muck { seat: 1 }).unwrap();
    assert_eq!(
        shares(&mucked),
        vec![vec![(0, 240)]],
        "not shown, the pair of eights wins nothing"
    );
    let events = t.send(show(1, "8c8d")).unwrap();
    assert_eq!(shares(&events), vec![vec![(1, 240)]]);
}

#[test]
fn hippodrome_showdown_6_no_bet_on_the_last_round_the_first_to_act_shows_first() {
    // Hippodrome Showdown 6: "If everyone checks (or is all-in) on the final round of
    // betting, the player who is first to act is the first to show the hand."
    // A, left of the button, is all-in: B is the first to act on the river.
    let mut t = Table::new(HouseRules::hippodrome(), &[50, 1_000, 1_000, 1_000], 5, 10);
    t.ok(C, Action::Call);
    t.ok(D, Action::Call);
    t.ok(A, Action::AllIn);
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    t.ok(D, Action::Call);
    t.board("2c7d9h");
    check_round(&mut t, &[B, C, D]);
    t.board("Js");
    check_round(&mut t, &[B, C, D]);
    t.board("3h");
    assert_eq!(t.to_act(), Some(B));
    check_round(&mut t, &[B, C, D]);
    assert_eq!(showdown_order(&t.events), Some(vec![B, C, D, A]));
    assert_eq!(t.state.to_show(), Some(B));
}

#[test]
fn hippodrome_showdown_6_a_player_may_throw_the_hand_away_once_betting_is_complete() {
    // Hippodrome Showdown 6: "A player may opt to throw their hand away after all the
    // betting is complete."
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000; 3], 10, 20);
    t.limp_to_flop("2c7d9h");
    check_round(&mut t, &[A, B, C]);
    t.board("Js");
    check_round(&mut t, &[A, B, C]);
    t.board("3h");
    t.ok(A, Action::Bet(100));
    // Not while the betting goes on.
    assert_eq!(
        t.send(Command::Muck { seat: B }),
        Err(RuleError::NotShowdown)
    );
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    t.send(show(A, "AhKd")).unwrap();
    let events = t.send(Command::Muck { seat: B }).unwrap();
    assert_eq!(events, vec![Event::HandMucked { seat: B }]);
    assert!(!t.state.is_live(B));
    let events = t.send(show(C, "QcQd")).unwrap();
    assert_eq!(shares(&events), vec![vec![(C, 360)]]);
    assert_eq!(t.stack(B), 880);
}

#[test]
fn hippodrome_showdown_7_side_pots_are_settled_before_the_main_pot() {
    // Hippodrome Showdown 7: "If there is a side pot, the winner of that pot should be
    // decided before the main pot is awarded. If there are multiple side pots, they are
    // decided and awarded by having the pot with the players starting the deal with the
    // greatest number of chips settled first, and so forth."
    // Starting stacks 100, 400, 1,000 and 700, all in before the flop.
    let mut t = Table::new(HouseRules::hippodrome(), &[100, 400, 1_000, 700], 5, 10);
    t.ok(C, Action::AllIn);
    t.ok(D, Action::AllIn);
    t.ok(A, Action::AllIn);
    t.ok(B, Action::AllIn);
    assert!(t.events.contains(&Event::UncalledBetReturned {
        seat: C,
        amount: 300
    }));
    t.board("2c7d9h");
    t.board("3s");
    t.board("8d");
    t.send(show(A, "AhAs")).unwrap();
    t.send(show(B, "KhKs")).unwrap();
    t.send(show(C, "QhQs")).unwrap();
    t.send(show(D, "JhJs")).unwrap();
    // The pot of the two largest stacks (C, D) first, then B's, then the main pot.
    assert_eq!(
        awards(&t.events),
        vec![
            (2, 600, vec![C, D], vec![(C, 600)]),
            (1, 900, vec![B, C, D], vec![(B, 900)]),
            (0, 400, vec![A, B, C, D], vec![(A, 400)]),
        ]
    );
    assert_eq!(
        [t.stack(A), t.stack(B), t.stack(C), t.stack(D)],
        [400, 900, 900, 0]
    );
}

// ---------------------------------------------------------------------------------------
// The invitational's money and structure (1.2 to 1.5, section 3): a schedule that breaks
// them is refused, naming the rule; the same schedule is taken under another house.
// ---------------------------------------------------------------------------------------

/// The refusal of `schedule` under the invitational, as (rule, field), and that WPH takes
/// the same schedule.
fn invitational_refuses(
    change: impl Fn(&mut league_engine::tournament::play::Schedule),
) -> (&'static str, &'static str) {
    let mut invitational = schedule(Preset::Invitational, Tracking::Dealt);
    change(&mut invitational);
    let mut wph = schedule(Preset::Wph, Tracking::Dealt);
    change(&mut wph);
    wph.pool.house = HouseCut::Fees;
    Game::scheduled(wph);
    match Game::fresh().refused(Cmd::Schedule(Box::new(invitational))) {
        TournamentError::BreaksPreset {
            preset: "invitational",
            rule,
            field,
            ..
        } => (rule, field),
        other => panic!("refused otherwise: {other:?}"),
    }
}

fn purchase(per_player: u32, until_minutes: Option<u32>) -> PurchasePolicy {
    PurchasePolicy {
        per_player,
        from_level: 1,
        until_level: 2,
        until_minutes,
        chips: Chips::new(5000),
        max_stack: Some(Chips::new(5000)),
        after_bust_only: true,
    }
}

#[test]
fn invitational_1_2_every_entry_is_paid_before_the_start() {
    // Invitational 1.2: "All moneys must be paid prior to the start of the tournament."
    let late = invitational_refuses(|s| s.late_registration_until_level = 2);
    assert_eq!(late, ("1.2", "schedule.lateRegistration"));
    let reentry = invitational_refuses(|s| {
        s.reentries = Some(PurchasePolicy {
            after_bust_only: false,
            max_stack: None,
            ..purchase(1, None)
        });
    });
    assert_eq!(reentry, ("1.2", "schedule.reentries"));
}

#[test]
fn invitational_1_3_one_re_buy_in_the_first_two_hours_straight_after_the_knockout() {
    // Invitational 1.3: "Re-buys will be limited to one per person, need to take place in
    // the first 2 hours of play, and need to be purchased immeadiatly after knockout."
    let rebuys = |policy: PurchasePolicy| {
        move |s: &mut league_engine::tournament::play::Schedule| {
            s.rebuys = Some(policy);
            s.pool.rebuy = Some(Price::new(Cents::new(2000), Cents::ZERO));
        }
    };
    assert_eq!(
        invitational_refuses(rebuys(purchase(2, Some(120)))),
        ("1.3", "schedule.rebuys")
    );
    // A window to level 7 of 30-minute levels runs 180 minutes of play (the break is not
    // play): refused without untilMinutes, or with more than 120 of them.
    let long = |until_minutes| {
        move |s: &mut league_engine::tournament::play::Schedule| {
            for level in &mut s.levels {
                if let league_engine::tournament::play::Level::Play { minutes, .. } = level {
                    *minutes = 30;
                }
            }
            rebuys(PurchasePolicy {
                until_level: 7,
                ..purchase(1, until_minutes)
            })(s);
        }
    };
    assert_eq!(invitational_refuses(long(None)), ("1.3", "schedule.rebuys"));
    assert_eq!(
        invitational_refuses(long(Some(121))),
        ("1.3", "schedule.rebuys")
    );
    for until_minutes in [None, Some(120)] {
        let mut s = schedule(Preset::Invitational, Tracking::Dealt);
        if until_minutes.is_some() {
            long(until_minutes)(&mut s);
        } else {
            // To level 2: 40 minutes of play.
            rebuys(purchase(1, None))(&mut s);
        }
        Game::scheduled(s);
    }
    assert_eq!(
        invitational_refuses(rebuys(PurchasePolicy {
            after_bust_only: false,
            ..purchase(1, Some(120))
        })),
        ("1.3", "schedule.rebuys")
    );
    // One, within two hours, after the knockout: taken.
    let mut s = schedule(Preset::Invitational, Tracking::Dealt);
    rebuys(purchase(1, Some(120)))(&mut s);
    Game::scheduled(s);
}

#[test]
fn invitational_1_4_no_add_ons() {
    // Invitational 1.4: "Add-ons are not allowed."
    let add_ons = invitational_refuses(|s| {
        s.add_ons = Some(PurchasePolicy {
            after_bust_only: false,
            ..purchase(1, None)
        });
        s.pool.add_on = Some(Price::new(Cents::new(1000), Cents::ZERO));
    });
    assert_eq!(add_ons, ("1.4", "schedule.addOns"));
}

#[test]
fn invitational_1_5_all_money_goes_into_the_pot() {
    // Invitational 1.5: "All moneys paid will be placed into the pot, and distributed over
    // the winning players."
    assert_eq!(
        invitational_refuses(|s| s.pool.house = HouseCut::Fees),
        ("1.5", "schedule.houseCut")
    );
    // The stock schedule pays its fee into the pot.
    let game = Game::started(schedule(Preset::Invitational, Tracking::Dealt), 4);
    let pool = game.state.prize_pool().unwrap();
    assert_eq!(pool.house, Cents::ZERO);
}

#[test]
fn invitational_3_the_small_blind_is_a_third_to_a_half_of_the_big_blind() {
    // Invitational 3: "The small blind will constitute one-third to half of the big blind."
    use league_engine::tournament::play::Level;
    let blinds = |small: u64, big: u64| {
        move |s: &mut league_engine::tournament::play::Schedule| {
            s.levels[1] = tour::play_level(small, big);
        }
    };
    assert_eq!(
        invitational_refuses(blinds(75, 100)),
        ("3", "schedule.levels")
    );
    assert_eq!(
        invitational_refuses(blinds(25, 100)),
        ("3", "schedule.levels")
    );
    for (small, big) in [(50, 150), (50, 100), (75, 200)] {
        let mut s = schedule(Preset::Invitational, Tracking::Dealt);
        blinds(small, big)(&mut s);
        assert!(matches!(s.levels[1], Level::Play { .. }));
        Game::scheduled(s);
    }
}

#[test]
fn wph_47_and_oracle_4_a_missed_hands_penalty_is_one_hand_or_one_to_four_rounds() {
    // WPH 47: "Tournament staff can assess a one-hand penalty, one-, two-, three-, or
    // four-round penalties or disqualification." Oracle, tournament 4: "A floor supervisor
    // can assess a one-, two-, three-, or four-round penalty."
    use league_engine::tournament::play::Penalty;
    for (preset, rule) in [(Preset::Wph, "47"), (Preset::Oracle, "tournament 4")] {
        let mut g = Game::started(schedule(preset, Tracking::Recorded), 6);
        for penalty in [
            Penalty::MissHands(2),
            Penalty::MissRounds(0),
            Penalty::MissRounds(5),
        ] {
            let refused = g.refused(Cmd::Penalise {
                player: id(1),
                penalty,
            });
            assert!(
                matches!(
                    refused,
                    TournamentError::BreaksPreset { rule: r, field: "count", .. } if r == rule
                ),
                "{preset:?} {penalty:?}: {refused:?}"
            );
        }
        for penalty in [
            Penalty::Warning,
            Penalty::MissHands(1),
            Penalty::MissRounds(1),
            Penalty::MissRounds(4),
        ] {
            g.when(Cmd::Penalise {
                player: id(2),
                penalty,
            });
        }
    }
    // QueenSix leaves the length to the host ("suspended from play for a specified length
    // of time").
    let mut g = Game::started(schedule(Preset::QueenSix, Tracking::Recorded), 6);
    g.when(Cmd::Penalise {
        player: id(1),
        penalty: Penalty::MissHands(3),
    });
}

#[test]
fn queensix_house_policies_4_every_event_caps_its_blinds() {
    // QueenSix house policies 4: "All QueenSix Poker League events will use a Capped Blind
    // structure. The blinds will capped at a preset percentage of the average stack at the
    // table."
    let mut uncapped = schedule(Preset::QueenSix, Tracking::Results);
    assert!(
        uncapped.blind_cap_percent.is_some(),
        "the stock schedule caps them"
    );
    uncapped.blind_cap_percent = None;
    let refused = Game::fresh().refused(Cmd::Schedule(Box::new(uncapped.clone())));
    assert!(
        matches!(
            refused,
            TournamentError::BreaksPreset {
                preset: "queensix",
                rule: "house policies 4",
                field: "schedule.blindCapPercent",
                ..
            }
        ),
        "{refused:?}"
    );
    // Every tracking mode: the cap is the schedule's, whatever the night records.
    for tracking in [Tracking::Dealt, Tracking::Recorded] {
        let mut s = uncapped.clone();
        s.tracking = tracking;
        assert!(matches!(
            Game::fresh().refused(Cmd::Schedule(Box::new(s))),
            TournamentError::BreaksPreset { .. }
        ));
    }
    // The other houses leave it open.
    let mut wph = schedule(Preset::Wph, Tracking::Results);
    wph.blind_cap_percent = None;
    Game::scheduled(wph);
}
