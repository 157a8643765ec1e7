//! Each hand-level rule where the houses differ, tested with the rulebook's own example,
//! quoted with its house and rule number (`../shared/rulebooks/`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
mod support;

use league_engine::hand::{
    Action, Blind, BlindKind, Command, Dealing, Event, HandSetup, Phase, RuleError, VoidReason,
};
use league_engine::rules::{
    HouseRules, MisdealCutoff, OutOfTurn, ShortAllInBet, ShowdownOrder, UndersizedRaise,
};
use support::{Table, cards};

const A: u8 = 0;
const B: u8 = 1;
const C: u8 = 2;
const D: u8 = 3;
const E: u8 = 4;

/// Five players A-E (E on the button), blinds 50/100, everyone limps; stacks on the flop
/// are the given ones.
fn five_on_the_flop(rules: HouseRules, flop_stacks: [u64; 5]) -> Table {
    let stacks = flop_stacks.map(|s| s + 100);
    let mut t = Table::new(rules, &stacks, 50, 100);
    t.limp_to_flop("2c7d9h");
    t
}

/// Oracle 13/14: "player A - bets 500, player B - raises to 1,000, player C - calls 1,000,
/// player D - moves all-in for 1,300, player E - moves all-in for 1,700. If player A calls
/// or folds, then players B & C will have an option to raise. [...] players B or C would
/// be allowed to call 1,700 and raise 500 for a total wager of 2,200."
fn oracle_example(rules: HouseRules) -> Table {
    let mut t = five_on_the_flop(rules, [10_000, 10_000, 10_000, 1_300, 1_700]);
    t.ok(A, Action::Bet(500));
    t.ok(B, Action::RaiseTo(1_000));
    t.ok(C, Action::Call);
    t.ok(D, Action::AllIn);
    t.ok(E, Action::AllIn);
    t.ok(A, Action::Call);
    t
}

#[test]
fn oracle_two_consecutive_short_all_ins_reopen_the_betting_to_2200() {
    let mut t = oracle_example(HouseRules::oracle());
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, B);
    let range = legal.bet_or_raise.expect("B has an option to raise");
    assert_eq!(range.min, 2_200);
    // Oracle 13's 50% rule: a declared 2,100 (a 400 raise, over half of 500) must be made
    // the full raise, to exactly 2,200.
    let declared = league_engine::hand::decide(
        &t.state,
        &Command::Act {
            seat: B,
            action: Action::RaiseTo(2_100),
        },
    )
    .unwrap();
    assert_eq!(raised_to(&declared), Some(2_200));
    t.ok(B, Action::Call);
    let range = t.state.legal_actions().unwrap().bet_or_raise;
    assert_eq!(range.map(|r| r.min), Some(2_200), "C has the same option");
}

#[test]
fn oracle_three_short_all_ins_that_pair_up_to_less_than_a_raise_do_not_reopen() {
    // Oracle 14 names two consecutive all-ins; 1,000 -> 1,200 -> 1,400 -> 1,600 never has
    // two consecutive ones worth the last full raise of 500.
    let mut t = Table::new(
        HouseRules::oracle(),
        &[10_100, 10_100, 1_300, 1_500, 1_700],
        50,
        100,
    );
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(500));
    t.ok(B, Action::RaiseTo(1_000));
    t.ok(C, Action::AllIn); // 1,200
    t.ok(D, Action::AllIn); // 1,400
    t.ok(E, Action::AllIn); // 1,600
    t.ok(A, Action::Call);
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, B);
    assert_eq!(legal.bet_or_raise, None);
}

#[test]
fn wph_33_and_hippodrome_short_all_ins_never_reopen() {
    // WPH 33: "an all-in wager of less than a full raise does not reopen the betting to a
    // player who has already acted." The same table as Oracle's example.
    for rules in [HouseRules::wph(), HouseRules::hippodrome()] {
        let t = oracle_example(rules);
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, B);
        assert_eq!(legal.bet_or_raise, None, "{:?}", rules.preset);
        assert_eq!(legal.call, Some(700));
    }
}

#[test]
fn queensix_nlhe_5_short_all_ins_that_add_up_to_a_raise_reopen() {
    // QueenSix NLHE 5: "Multiple all-in wagers, each of an amount too small to qualify as a
    // raise, still act as a raise and reopen the betting if the resulting wager size to a
    // player qualifies as a raise." B faces 1,700 - 1,000 = 700 >= 500.
    let t = oracle_example(HouseRules::queensix());
    let range = t.state.legal_actions().unwrap().bet_or_raise;
    assert_eq!(range.map(|r| r.min), Some(2_200));
}

#[test]
fn queensix_nlhe_5_example_b_was_not_fully_raised() {
    // QueenSix NLHE 5.1: "Player A bets 100 and Player B raises 100 more, making the total
    // bet 200. If Player C goes all in for less than 300 total (not a full 100 raise), and
    // Player A calls, then Player B has no option to raise again, because he wasn't fully
    // raised. (Player A could have raised, because Player B raised.)"
    for rules in [
        HouseRules::queensix(),
        HouseRules::invitational(),
        HouseRules::wsop(),
    ] {
        let mut t = Table::new(rules, &[1_020, 1_020, 270, 1_020], 10, 20);
        t.limp_to_flop("2c7d9h");
        t.ok(A, Action::Bet(100));
        t.ok(B, Action::RaiseTo(200));
        t.ok(C, Action::AllIn); // 250
        t.ok(D, Action::Fold);
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, A);
        assert!(legal.bet_or_raise.is_some(), "A could have raised");
        t.ok(A, Action::Call);
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, B);
        assert_eq!(
            legal.bet_or_raise, None,
            "{:?}: B has no option",
            rules.preset
        );
        assert_eq!(
            t.act(B, Action::RaiseTo(400)),
            Err(RuleError::RaiseNotAllowed)
        );
    }
}

#[test]
fn queensix_nlhe_4_raise_over_a_short_all_in_goes_on_top_of_it() {
    // QueenSix NLHE 4: "if a player bets 100 and the next player goes all-in for 140, a
    // player wishing to raise must make the total bet at least 240 (unless going all-in)."
    for preset in league_engine::rules::Preset::ALL {
        let mut t = Table::new(preset.rules(), &[1_020, 160, 1_020], 10, 20);
        t.limp_to_flop("2c7d9h");
        t.ok(A, Action::Bet(100));
        t.ok(B, Action::AllIn);
        let range = t.state.legal_actions().unwrap().bet_or_raise.unwrap();
        assert_eq!(range.min, 240, "{preset:?}");
    }
}

#[test]
fn big_blind_keeps_its_option_after_a_short_all_in() {
    // QueenSix tournament 3: "Although chips posted by the big blind are considered a bet,
    // this option to raise is retained if someone goes all-in with a wager of less than the
    // minimum raise."
    for preset in league_engine::rules::Preset::ALL {
        let mut t = Table::new(preset.rules(), &[1_000, 1_000, 150], 50, 100);
        // Three-handed: C (the button) acts first pre-flop.
        t.ok(C, Action::AllIn); // 150: less than a raise to 200
        t.ok(A, Action::Call);
        let legal = t.state.legal_actions().unwrap();
        assert_eq!(legal.seat, B);
        assert_eq!(legal.call, Some(50));
        assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(250), "{preset:?}");
    }
}

/// Facing a bet of 100 (minimum raise to 200), a player declares a raise to `declared`.
fn undersized(rules: HouseRules, declared: u64) -> Result<Vec<Event>, RuleError> {
    let mut t = Table::new(rules, &[1_020, 1_020, 1_020], 10, 20);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(100));
    t.act(B, Action::RaiseTo(declared))
}

fn raised_to(events: &[Event]) -> Option<u64> {
    events.iter().find_map(|e| match e {
        Event::PlayerRaised { to, .. } => Some(*to),
        _ => None,
    })
}

fn called(events: &[Event]) -> bool {
    events
        .iter()
        .any(|e| matches!(e, Event::PlayerCalled { .. }))
}

#[test]
fn queensix_nlhe_12_an_undersized_raise_is_brought_up_to_the_minimum() {
    // QueenSix NLHE 12: "If a player tries to bet or raise less than the legal minimum and
    // has more chips, the wager must be increased to the proper size. [...] The wager is
    // brought up to the sufficient amount only, no greater size."
    let events = undersized(HouseRules::queensix(), 120).unwrap();
    assert_eq!(raised_to(&events), Some(200));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PlayerRaised {
            declared: Some(120),
            ..
        }
    )));
}

#[test]
fn wph_33_oracle_13_hippodrome_11_the_fifty_percent_rule() {
    // WPH 33: "If a player puts in a raise of 50% or more of the previous bet but less than
    // the minimum raise, he or she must make a full raise. The raise will be exactly the
    // minimum raise allowed." Less than 50% is a call.
    for rules in [
        HouseRules::wph(),
        HouseRules::oracle(),
        HouseRules::hippodrome(),
    ] {
        let events = undersized(rules, 150).unwrap();
        assert_eq!(raised_to(&events), Some(200), "{:?}", rules.preset);
        let events = undersized(rules, 140).unwrap();
        assert_eq!(raised_to(&events), None);
        assert!(called(&events));
        assert!(events.iter().any(|e| matches!(
            e,
            Event::RaiseTreatedAsCall {
                declared: 140,
                rule: UndersizedRaise::HalfRule,
                ..
            }
        )));
    }
}

#[test]
fn invitational_5_6_a_bet_and_a_half_is_a_raise_less_is_a_call() {
    // Invitational 5.6: "Placing a full bet plus a half bet or more into the pot shall be
    // deemed a raise, and the raise must be completed. Putting more chips in the pot than a
    // full bet, but less than a bet and a half shall be deemed a call."
    let events = undersized(HouseRules::invitational(), 150).unwrap();
    assert_eq!(raised_to(&events), Some(200));
    let events = undersized(HouseRules::invitational(), 149).unwrap();
    assert!(called(&events));
}

#[test]
fn wsop_refuses_an_undersized_raise_with_the_numbers() {
    assert_eq!(
        undersized(HouseRules::wsop(), 150),
        Err(RuleError::RaiseBelowMinimum { min: 200, got: 150 })
    );
}

/// Four players, A B C D (D on the button); the board is a royal flush so every hand
/// ties; D folds on the flop after putting 2 in, leaving 14 chips for three winners.
fn three_way_split(rules: HouseRules) -> Table {
    let mut t = Table::new(rules, &[100, 100, 100, 100], 1, 2);
    t.hole(A, "2c3d");
    t.hole(B, "4c5d");
    t.hole(C, "6c7d");
    t.limp_to_flop("AhKhQh");
    t.ok(A, Action::Bet(2));
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    t.ok(D, Action::Fold);
    t.board("Jh");
    for seat in [A, B, C] {
        t.ok(seat, Action::Check);
    }
    t.board("Th");
    for seat in [A, B, C] {
        t.ok(seat, Action::Check);
    }
    for seat in [A, B, C] {
        t.send(Command::Show { seat, cards: None }).unwrap();
    }
    assert_eq!(t.state.phase(), Phase::Complete);
    t
}

#[test]
fn oracle_odd_chips_one_each_clockwise_from_the_button() {
    // Oracle odd chip 4-5: "No player may receive more than one odd chip. If two or more
    // hands tie, an odd chip will be awarded as follows: The first hand clockwise from the
    // button gets the odd chip." 14 = 4 + 4 + 4 and two odd chips: A and B get one each.
    for rules in [
        HouseRules::oracle(),
        HouseRules::queensix(),
        HouseRules::hippodrome(),
    ] {
        let t = three_way_split(rules);
        assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [101, 101, 100]);
    }
}

#[test]
fn wph_12_and_invitational_7_4_high_hand_then_left_of_the_button() {
    // Invitational 7.4: "the odd chip [...] will go to the player with the high hand, if
    // multiple players have the high hand, the odd chip will go to the player [...] closest
    // to the left of the dealer button." All three hands are the same royal flush.
    for rules in [HouseRules::wph(), HouseRules::invitational()] {
        let t = three_way_split(rules);
        assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [101, 101, 100]);
    }
}

#[test]
fn wsop_gives_every_odd_chip_to_the_first_winner_left_of_the_button() {
    // The PHH reference (PokerKit): the remainder goes to the first winner.
    let t = three_way_split(HouseRules::wsop());
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [102, 100, 100]);
}

/// Four players with 10,000 in 25s (the smallest chip in play: `chip_unit`), A B C D (D on
/// the button), blinds 25/50, everyone limps; the board is a royal flush so every hand
/// ties; D folds on the flop, leaving 200 for three winners.
fn three_way_split_in(rules: HouseRules, chip_unit: u64) -> Table {
    let mut setup = HandSetup::standard(
        D,
        support::seats(&[10_000; 4]),
        25,
        50,
        league_engine::hand::AnteStructure::None,
        None,
        Dealing::Recorded,
        rules,
    )
    .unwrap();
    setup.chip_unit = chip_unit;
    let mut t = Table::start(setup);
    t.hole(A, "2c3d");
    t.hole(B, "4c5d");
    t.hole(C, "6c7d");
    t.limp_to_flop("AhKhQh");
    if chip_unit == 25 {
        // Oracle betting 5: "The smallest chip that may be wagered in a game is the
        // smallest chip used in the antes, blinds, rake or collection."
        assert_eq!(
            t.act(A, Action::Bet(60)),
            Err(RuleError::NotInChipUnit { unit: 25, got: 60 })
        );
    }
    for seat in [A, B, C] {
        t.ok(seat, Action::Check);
    }
    t.ok(D, Action::Fold);
    for card in ["Jh", "Th"] {
        t.board(card);
        for seat in [A, B, C] {
            t.ok(seat, Action::Check);
        }
    }
    for seat in [A, B, C] {
        t.send(Command::Show { seat, cards: None }).unwrap();
    }
    assert_eq!(t.state.phase(), Phase::Complete);
    t
}

#[test]
fn queensix_odd_chips_2_a_split_pot_is_broken_down_to_the_smallest_chip_in_play() {
    // QueenSix odd chips 2, Oracle odd chips 3 and Hippodrome ties 2: "An odd chip will be
    // broken down to the smallest unit used in the game." Invitational 7.4: "the odd chip--In increments of
    // the minimum betting unit". With 25s in play, 200 three ways is eight 25s: two each
    // and two odd ones, one each to A and B (the first winners left of the button): 75,
    // 75 and 50, where single chips would give 67, 67 and 66.
    for rules in [
        HouseRules::queensix(),
        HouseRules::oracle(),
        HouseRules::invitational(),
        HouseRules::wph(),
        HouseRules::hippodrome(),
    ] {
        let t = three_way_split_in(rules, 25);
        assert_eq!(
            [t.stack(A), t.stack(B), t.stack(C), t.stack(D)],
            [10_025, 10_025, 10_000, 9_950],
            "{:?}",
            rules.preset
        );
        let t = three_way_split_in(rules, 1);
        assert_eq!(
            [t.stack(A), t.stack(B), t.stack(C)],
            [10_017, 10_017, 10_016]
        );
    }
    // PokerKit's rule: every odd 25 to the first winner.
    let t = three_way_split_in(HouseRules::wsop(), 25);
    assert_eq!(
        [t.stack(A), t.stack(B), t.stack(C)],
        [10_050, 10_000, 10_000]
    );
}

#[test]
fn showdown_the_last_aggressor_shows_first() {
    // QueenSix showdown 7: "If there is wagering on the final betting round, the last player
    // to take aggressive action by a bet or raise is the first to show the hand."
    for preset in league_engine::rules::Preset::ALL {
        let mut t = Table::new(preset.rules(), &[1_000, 1_000, 1_000], 5, 10);
        t.limp_to_flop("2c7d9h");
        for card in ["Ts", "3h"] {
            for seat in [A, B, C] {
                t.ok(seat, Action::Check);
            }
            t.board(card);
        }
        assert_eq!(t.state.board().count(), 5);
        t.ok(A, Action::Check);
        t.ok(B, Action::Bet(50));
        t.ok(C, Action::Call);
        t.ok(A, Action::Call);
        assert_eq!(t.state.to_show(), Some(B), "{preset:?}");
        // Out of order is refused: it is B's turn to show.
        assert!(matches!(
            t.send(Command::Muck { seat: C }),
            Err(RuleError::NotYourTurn { .. })
        ));
    }
}

#[test]
fn showdown_without_a_bet_starts_left_of_the_button() {
    // WPH 10: "If there was no bet, the player to the left of the button shows first and so
    // on clockwise."
    let mut t = Table::new(HouseRules::wph(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    for card in ["Ts", "3h"] {
        for seat in [A, B, C] {
            t.ok(seat, Action::Check);
        }
        t.board(card);
    }
    for seat in [A, B, C] {
        t.ok(seat, Action::Check);
    }
    assert_eq!(t.state.to_show(), Some(A));
}

#[test]
fn queensix_7_side_pot_players_show_before_a_main_pot_all_in() {
    // QueenSix showdown 7: "If there is a side pot, players involved in the side pot should
    // show their hands before anyone who is all-in for only the main pot." C is all-in for
    // the main pot; B bets the river and A calls: B, then A, then C.
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000, 20], 5, 10);
    t.ok(C, Action::AllIn);
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    t.board("2c7d9h");
    for card in ["Ts", "3h"] {
        t.ok(A, Action::Check);
        t.ok(B, Action::Check);
        t.board(card);
    }
    t.ok(A, Action::Check);
    t.ok(B, Action::Bet(100));
    t.ok(A, Action::Call);
    let order = t.events.iter().rev().find_map(|e| match e {
        Event::ShowdownStarted { order } => Some(order.clone()),
        _ => None,
    });
    assert_eq!(order, Some(vec![B, A, C]));
    // The same table under the shared default shows clockwise from the aggressor.
    let mut t = Table::new(HouseRules::hippodrome(), &[1_000, 1_000, 20], 5, 10);
    t.ok(C, Action::AllIn);
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    t.board("2c7d9h");
    for card in ["Ts", "3h"] {
        t.ok(A, Action::Check);
        t.ok(B, Action::Check);
        t.board(card);
    }
    t.ok(A, Action::Check);
    t.ok(B, Action::Bet(100));
    t.ok(A, Action::Call);
    assert!(t.events.iter().any(|e| matches!(
        e,
        Event::ShowdownStarted { order } if order == &vec![B, C, A]
    )));
}

#[test]
fn queensix_misdeal_before_two_players_have_acted_only() {
    // QueenSix dealing 1: "The following circumstances cause a misdeal, provided attention
    // is called to the error before two players have acted on their hands."
    let misdeal = Command::Void {
        reason: VoidReason::Misdeal("first card exposed".into()),
    };
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000, 1_000, 1_000], 5, 10);
    t.ok(C, Action::Fold);
    let mut early = Table {
        state: t.state,
        events: Vec::new(),
    };
    early.send(misdeal.clone()).unwrap();
    assert_eq!(early.state.phase(), Phase::Voided);
    assert_eq!(early.state.stacks().map(|(_, s)| s).sum::<u64>(), 4_000);
    assert_eq!(early.stack(A), 1_000, "the small blind is returned");
    t.ok(D, Action::Call);
    assert_eq!(
        t.send(misdeal),
        Err(RuleError::MisdealPastCutoff {
            cutoff: HouseRules::queensix().misdeal_cutoff
        })
    );
}

#[test]
fn queensix_no_misdeal_once_the_big_blind_has_acted() {
    // QueenSix dealing 2: "Once the big blind has acted, a misdeal cannot be called."
    // Heads-up the big blind is the second to act.
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000], 5, 10);
    // Heads-up: seat 1 is the button and small blind; seat 0 the big blind.
    t.ok(1, Action::Call);
    let MisdealCutoff::PlayersActed { .. } = HouseRules::queensix().misdeal_cutoff else {
        panic!("queensix counts players");
    };
    t.ok(0, Action::Check);
    assert!(matches!(
        t.send(Command::Void {
            reason: VoidReason::Misdeal("boxed card".into())
        }),
        Err(RuleError::MisdealPastCutoff { .. }) | Err(RuleError::HandOver)
    ));
}

#[test]
fn wph_28_substantial_action_ends_the_misdeal_window() {
    // WPH 28: "Once substantial action occurs, a misdeal cannot be declared" - two actions
    // that put chips in, or three actions of any kind, blinds not counted.
    let misdeal = Command::Void {
        reason: VoidReason::Misdeal("dealt out of order".into()),
    };
    let five = [1_000; 5];
    let mut t = Table::new(HouseRules::wph(), &five, 5, 10);
    t.ok(C, Action::Fold);
    t.ok(D, Action::Fold);
    assert!(
        t.clone_state_send(&misdeal).is_ok(),
        "two folds are not substantial"
    );
    t.ok(E, Action::Fold);
    assert!(t.clone_state_send(&misdeal).is_err(), "three actions are");
    let mut t = Table::new(HouseRules::wph(), &five, 5, 10);
    t.ok(C, Action::Call);
    assert!(t.clone_state_send(&misdeal).is_ok());
    t.ok(D, Action::Call);
    assert!(t.clone_state_send(&misdeal).is_err(), "two calls are");
}

trait TryOnCopy {
    fn clone_state_send(&self, command: &Command) -> Result<Vec<Event>, RuleError>;
}

impl TryOnCopy for Table {
    fn clone_state_send(&self, command: &Command) -> Result<Vec<Event>, RuleError> {
        league_engine::hand::decide(&self.state, command)
    }
}

#[test]
fn heads_up_the_button_posts_the_small_blind_and_acts_first_only_pre_flop() {
    // Every house: "Heads-up with two blinds: the small blind is on the button, acts first
    // pre-flop and last after."
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000], 5, 10);
    assert!(t.events.iter().any(|e| matches!(
        e,
        Event::BlindPosted {
            seat: 1,
            amount: 5,
            ..
        }
    )));
    assert_eq!(t.to_act(), Some(1));
    t.ok(1, Action::Call);
    t.ok(0, Action::Check);
    t.board("2c7d9h");
    assert_eq!(
        t.to_act(),
        Some(0),
        "the big blind acts first after the flop"
    );
}

#[test]
fn a_duplicate_card_is_refused_and_voids_the_hand_with_every_chip_returned() {
    // Every house: "Two cards of the same rank and suit [...]: all action void, every chip
    // returned."
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000, 1_000], 5, 10);
    t.hole(A, "AhAd");
    t.ok(C, Action::RaiseTo(40));
    t.ok(A, Action::Call);
    t.ok(B, Action::Call);
    let duplicate = league_engine::card::parse_cards("Ah2c3c").unwrap();
    // Refused without naming the card or whose hand holds it (the dealer may not see it).
    let refused = t.send(Command::DealBoard { cards: duplicate }).unwrap_err();
    assert_eq!(
        refused,
        RuleError::CardUnavailable {
            target: league_engine::hand::CardTarget::Board
        }
    );
    assert_eq!(
        refused.to_string(),
        "that card cannot be dealt to the board"
    );
    t.send(Command::Void {
        reason: VoidReason::DuplicateCard("Ah".parse().unwrap()),
    })
    .unwrap();
    assert_eq!([t.stack(A), t.stack(B), t.stack(C)], [1_000; 3]);
}

#[test]
fn the_clock_kills_the_hand_and_absent_players_are_folded() {
    // QueenSix NLHE 13: "they will have thirty seconds to act on their hand [...] after
    // which the hand is dead if the player has not acted."
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000, 1_000], 5, 10);
    t.send(Command::ClockExpired { seat: C }).unwrap();
    assert!(t.events.iter().any(|e| matches!(
        e,
        Event::PlayerFolded {
            seat: C,
            reason: league_engine::hand::FoldReason::ClockExpired
        }
    )));
    // Absent players are dealt in, blinded, and folded when the action reaches them.
    let mut seats = support::seats(&[1_000, 1_000, 1_000, 1_000]);
    seats[3].absent = true;
    let setup = league_engine::hand::HandSetup::standard(
        3,
        seats,
        5,
        10,
        league_engine::hand::AnteStructure::None,
        None,
        league_engine::hand::Dealing::Recorded,
        HouseRules::wph(),
    )
    .unwrap();
    let mut t = Table::start(setup);
    t.ok(C, Action::Call);
    assert_eq!(t.to_act(), Some(A), "the absent button was folded");
}

#[test]
fn chips_above_a_short_all_in_that_only_folded_players_put_in_stay_in_play() {
    // An absent big blind is folded behind an all-in for less than the small blind: the
    // blinds' chips above the all-in form a level nobody still in the hand reached. They
    // go to the all-in player, the only one left (as PokerKit pushes every pot to the last
    // player standing); none may vanish.
    let mut seats = support::seats(&[1_000, 1_000, 1_000, 30]);
    seats[1].absent = true;
    let setup = league_engine::hand::HandSetup::standard(
        3,
        seats,
        50,
        100,
        league_engine::hand::AnteStructure::None,
        None,
        league_engine::hand::Dealing::Recorded,
        HouseRules::wph(),
    )
    .unwrap();
    // Button D; A small blind, B (absent) big blind; C is first to act.
    let mut t = Table::start(setup);
    t.ok(C, Action::Fold);
    t.ok(D, Action::AllIn); // 30, short of the small blind
    t.ok(A, Action::Fold); // B is folded as absent
    let uncalled: u64 = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::UncalledBetReturned { amount, .. } => Some(*amount),
            _ => None,
        })
        .sum();
    assert_eq!(
        uncalled, 50,
        "the big blind's 50 over the small blind comes back"
    );
    let awarded: Vec<(u64, usize)> = t
        .events
        .iter()
        .filter_map(|e| match e {
            Event::PotAwarded { amount, shares, .. } => Some((*amount, shares.len())),
            _ => None,
        })
        .collect();
    // 30 from each of A, B and D, and the 20 each of A and B put in above that.
    assert_eq!(
        awarded,
        vec![(30 * 3 + 20 + 20, 1)],
        "one pot, with a winner"
    );
    assert_eq!(t.stack(D), 130);
    assert_eq!(t.stack(A) + t.stack(B) + t.stack(C) + t.stack(D), 3_030);
}

#[test]
fn an_uncalled_bet_goes_back() {
    let mut t = Table::new(HouseRules::wsop(), &[1_000, 300, 1_000], 5, 10);
    t.ok(C, Action::Fold);
    t.ok(A, Action::AllIn); // 1,000
    t.ok(B, Action::AllIn); // calls 300 all-in
    assert!(t.events.iter().any(|e| matches!(
        e,
        Event::UncalledBetReturned {
            seat: A,
            amount: 700
        }
    )));
}

#[test]
fn a_short_big_blind_is_all_in_and_the_minimum_raise_stays_at_the_full_blind() {
    // The rule: a short blind puts the player all-in; min bet and raise stay at
    // the full big blind.
    let mut t = Table::new(HouseRules::wsop(), &[1_000, 60, 1_000], 50, 100);
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, C);
    assert_eq!(legal.call, Some(60));
    assert_eq!(legal.bet_or_raise.map(|r| r.min), Some(160));
    t.ok(C, Action::Call);
    t.ok(A, Action::Call);
    assert_eq!(t.state.phase(), Phase::RoundComplete);
}

/// Three players on the flop: A (first to act), B, C. `declare` lets C act out of turn
/// before A and B act.
fn flop_with_out_of_turn(rules: HouseRules, declared: Action) -> Table {
    let mut t = Table::new(rules, &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.send(Command::OutOfTurn {
        seat: C,
        action: declared,
    })
    .unwrap();
    assert_eq!(
        t.to_act(),
        Some(A),
        "the action stays with the player in turn"
    );
    t
}

fn last_ruling(t: &Table) -> Option<league_engine::hand::OutOfTurnRuling> {
    t.events.iter().rev().find_map(|e| match e {
        Event::OutOfTurnRuled { ruling, .. } => Some(*ruling),
        _ => None,
    })
}

use league_engine::hand::OutOfTurnRuling;

#[test]
fn oracle_8_a_check_out_of_turn_may_not_bet_or_raise_and_stands_if_nothing_changes() {
    // Oracle 8: "A player who checks out of turn may not bet or raise on the next turn to
    // act. An action or verbal declaration out of turn may be ruled binding if there is no
    // bet, call, or raise by any intervening player acting after the infraction."
    let mut t = flop_with_out_of_turn(HouseRules::oracle(), Action::Check);
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Binding));
    assert!(
        t.state.awaiting_board().is_some(),
        "C's check was taken: the flop is over"
    );

    let mut t = flop_with_out_of_turn(HouseRules::oracle(), Action::Check);
    t.ok(A, Action::Bet(50));
    t.ok(B, Action::Call);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::NoRaise));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(
        (legal.seat, legal.call, legal.bet_or_raise),
        (C, Some(50), None)
    );
}

#[test]
fn queensix_betting_5_a_raise_out_of_turn_binds_to_a_call_and_a_call_may_not_raise() {
    // QueenSix betting 5: "A player who has called out of turn may not change his wager to
    // a raise under any circumstances, but he can fold to any intervening raise. A player
    // who has raised out of turn is bound to call the existing bet, unless an intervening
    // player raises."
    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::RaiseTo(200),
    })
    .unwrap();
    t.ok(B, Action::Call);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::MustCall));
    assert_eq!(t.stack(C), 940, "C called 50, not raised");

    let mut t = Table::new(HouseRules::queensix(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::Call,
    })
    .unwrap();
    t.ok(B, Action::RaiseTo(150));
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::NoRaise));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!((legal.seat, legal.bet_or_raise), (C, None));
    assert!(legal.can_fold);
}

/// C bets 100 out of turn; then A and B act in turn. Returns the table at C's turn.
fn bet_out_of_turn_then(rules: HouseRules, a: Action, b: Action) -> Table {
    let mut t = flop_with_out_of_turn(rules, Action::Bet(100));
    t.ok(A, a);
    t.ok(B, b);
    t
}

/// Each case: A's and B's actions after C's out-of-turn bet of 100, the ruling at C's turn,
/// and C's stack after it.
fn assert_rulings(rules: HouseRules, cases: [(Action, Action, OutOfTurnRuling, u64); 3]) {
    for (a, b, ruling, stack) in cases {
        let t = bet_out_of_turn_then(rules, a, b);
        assert_eq!(last_ruling(&t), Some(ruling), "{:?}: A {a:?}", rules.preset);
        assert_eq!(t.stack(C), stack, "{:?}: A {a:?}", rules.preset);
    }
}

#[test]
fn wph_31_a_bet_out_of_turn_after_a_check_a_smaller_bet_or_a_larger_bet() {
    // WPH 31: "Where a player bets out of turn, action will go back to the in turn player.
    // If this player: - CHECKS, the out of turn player is forced to check and take back
    // their bet. - BET LESS THAN THE OUT OF TURN PLAYER, the out of turn player is forced to
    // flat call. - BET MORE THAN THE OUT OF TURN PLAYER, the out of turn player is given all
    // options with the exception of checking."
    let cases = [
        (
            Action::Check,
            Action::Check,
            OutOfTurnRuling::MustCheck,
            990,
        ),
        (
            Action::Bet(40),
            Action::Fold,
            OutOfTurnRuling::MustCall,
            950,
        ),
        (
            Action::Bet(300),
            Action::Fold,
            OutOfTurnRuling::Released,
            990,
        ),
    ];
    assert_rulings(HouseRules::wph(), cases);
    let t = bet_out_of_turn_then(HouseRules::wph(), Action::Bet(300), Action::Fold);
    let legal = t.state.legal_actions().unwrap();
    assert!(!legal.can_check && legal.call.is_some() && legal.bet_or_raise.is_some());
}

#[test]
fn hippodrome_5_out_of_turn_action_stands_unless_the_action_changes() {
    // Hippodrome 5: "All Action out of turn stands unless the action changes. If there is
    // an intervening bet or raise of less than the out of turn action, the out of turn
    // bettor must call the bet [...] If there is an intervening bet or raise higher than
    // the out of turn action this releases the out of turn bettor from his action."
    let cases = [
        (Action::Check, Action::Check, OutOfTurnRuling::Binding, 890),
        (
            Action::Bet(60),
            Action::Fold,
            OutOfTurnRuling::MustCall,
            930,
        ),
        (
            Action::Bet(200),
            Action::Fold,
            OutOfTurnRuling::Released,
            990,
        ),
    ];
    assert_rulings(HouseRules::hippodrome(), cases);
}

#[test]
fn invitational_5_3_held_to_it_unless_the_action_it_faces_changes() {
    // Invitational 5.3: "If a player checks out of turn he must check when it comes to him.
    // [...] If a player calls out of turn and a player in between the better and the caller
    // raises then the calling player may have the option to act on his hand as if he had
    // not acted out of turn."
    let mut t = flop_with_out_of_turn(HouseRules::invitational(), Action::Check);
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Binding));

    let mut t = Table::new(HouseRules::invitational(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::Call,
    })
    .unwrap();
    t.ok(B, Action::RaiseTo(150));
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Released));
    assert!(t.state.legal_actions().unwrap().bet_or_raise.is_some());
}

/// Three players on the flop: A bets 50, C declares `declared` out of turn, B calls. The
/// bet C faces has not changed, but a player in between called.
fn call_between_an_out_of_turn_declaration(rules: HouseRules, declared: Action) -> Table {
    let mut t = Table::new(rules, &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    t.send(Command::OutOfTurn {
        seat: C,
        action: declared,
    })
    .unwrap();
    t.ok(B, Action::Call);
    t
}

#[test]
fn oracle_8_a_call_between_releases_an_out_of_turn_raise() {
    // Oracle 8: "An action or verbal declaration out of turn may be ruled binding if there
    // is no bet, call, or raise by any intervening player acting after the infraction has
    // been committed." B's call comes between: C's raise does not bind, and C acts freely.
    let t = call_between_an_out_of_turn_declaration(HouseRules::oracle(), Action::RaiseTo(200));
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Released));
    assert_eq!(t.stack(C), 990, "C's raise was not taken");
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, C);
    assert!(legal.can_fold && legal.call == Some(50) && legal.bet_or_raise.is_some());
    // With nobody betting, calling or raising in between, it binds.
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Bet(50));
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::RaiseTo(200),
    })
    .unwrap();
    t.ok(B, Action::Fold);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Binding));
    assert_eq!(t.stack(C), 790, "C raised to 200");
}

#[test]
fn invitational_5_5_a_check_out_of_turn_then_facing_a_bet_acts_as_if_it_had_not_declared() {
    // Invitational 5.5: "A player who makes a verbal declaration of action out of turn
    // shall be held to that action when it is his turn, unless intervening action changes
    // the action the out-of-turn actor is facing, in which case the player may act on his
    // hand as if he had made no declaration." C checked out of turn; A bet: C may raise.
    let mut t = flop_with_out_of_turn(HouseRules::invitational(), Action::Check);
    t.ok(A, Action::Bet(50));
    t.ok(B, Action::Call);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Released));
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.seat, C);
    assert!(
        legal.bet_or_raise.is_some(),
        "free to raise, as if no declaration"
    );
    t.ok(C, Action::RaiseTo(200));
    // Oracle's own rule is unchanged: the same check may not then bet or raise.
    let mut t = flop_with_out_of_turn(HouseRules::oracle(), Action::Check);
    t.ok(A, Action::Bet(50));
    t.ok(B, Action::Call);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::NoRaise));
}

#[test]
fn wph_40_a_fold_out_of_turn_is_binding_whatever_comes_between() {
    // WPH 40: "Anytime before the last action on the last betting round of a hand is
    // finished, folding in-turn when facing a check or folding out of turn are both binding
    // folds and may be subject to penalty." A bets and B calls before C's turn: C's fold
    // stands.
    let mut t = flop_with_out_of_turn(HouseRules::wph(), Action::Fold);
    t.ok(A, Action::Bet(50));
    t.ok(B, Action::Call);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Binding));
    assert!(
        t.events
            .iter()
            .any(|e| matches!(e, Event::PlayerFolded { seat, .. } if *seat == C)),
        "C's hand is folded"
    );
    assert_ne!(t.to_act(), Some(C));
    // Nothing between: it binds as well.
    let mut t = flop_with_out_of_turn(HouseRules::wph(), Action::Fold);
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Binding));
}

#[test]
fn an_out_of_turn_action_from_a_player_not_due_is_refused() {
    let mut t = Table::new(HouseRules::oracle(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.ok(A, Action::Fold);
    assert_eq!(
        t.send(Command::OutOfTurn {
            seat: A,
            action: Action::Check
        }),
        Err(RuleError::NotDueToAct { seat: A })
    );
}

mod house_overrides {
    use league_engine::rules::Preset;
    use league_engine::tournament::ColourUpPolicy;
    use league_engine::tournament::play::{HouseOverrides, HouseRule, TournamentRules};

    #[test]
    fn a_preset_takes_its_own_rules_back_and_an_open_rule_changed() {
        for preset in Preset::ALL {
            let own = TournamentRules::for_preset(preset);
            let same = HouseOverrides {
                bust_order: Some(own.bust_order),
                balance: Some(own.balance),
                redraw_at: Some(own.redraw_at.clone()),
                final_table_button_draw: Some(own.final_table_button_draw),
                colour_up: Some(own.colour_up),
                absent_removal: Some(own.absent_removal),
            };
            assert_eq!(
                TournamentRules::with_overrides(preset, &same),
                Ok(own.clone())
            );
            let other = match own.colour_up {
                ColourUpPolicy::RoundUp => ColourUpPolicy::ChipRace,
                ColourUpPolicy::ChipRace => ColourUpPolicy::RoundUp,
            };
            let changed = HouseOverrides {
                colour_up: Some(other),
                ..HouseOverrides::default()
            };
            let got = TournamentRules::with_overrides(preset, &changed);
            match HouseRule::ColourUp.fixed_by(preset) {
                Some(by) => {
                    let refused = got.unwrap_err();
                    assert_eq!((refused.rule, refused.by), (HouseRule::ColourUp, by));
                }
                None => assert_eq!(got.unwrap().colour_up, other, "{preset:?}"),
            }
        }
    }

    #[test]
    fn the_rules_each_rulebook_fixes_are_refused_changed() {
        // QueenSix 16 redraws at three, two and one tables; WPH says nothing of redraws.
        let redraw = HouseOverrides {
            redraw_at: Some(vec![1]),
            ..HouseOverrides::default()
        };
        let refused = TournamentRules::with_overrides(Preset::QueenSix, &redraw).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "queensix fixes redrawAt (QueenSix 16); leave it out, or choose the preset's own"
        );
        assert_eq!(
            TournamentRules::with_overrides(Preset::Wph, &redraw)
                .unwrap()
                .redraw_at,
            vec![1]
        );
        // Oracle 14 draws for the button at the final table.
        let no_draw = HouseOverrides {
            final_table_button_draw: Some(false),
            ..HouseOverrides::default()
        };
        assert!(TournamentRules::with_overrides(Preset::Oracle, &no_draw).is_err());
    }
}

/// Blinds `sb`/`bb` from seats A and B and a live straddle from seat C; D on the button
/// acts first. The straddler has `straddler` chips (a short straddle is posted all-in).
fn straddled(rules: HouseRules, blinds: [u64; 3], straddler: u64) -> Table {
    let [sb, bb, straddle] = blinds;
    let blind = |seat, kind, amount| Blind { seat, kind, amount };
    Table::start(HandSetup {
        button: D,
        seats: support::seats(&[100_000, 100_000, straddler, 100_000]),
        big_blind: bb,
        blinds: vec![
            blind(A, BlindKind::SmallBlind, sb),
            blind(B, BlindKind::BigBlind, bb),
            blind(C, BlindKind::Straddle, straddle),
        ],
        antes: Vec::new(),
        chip_unit: 1,
        absent_hands_dead: false,
        dealing: Dealing::Recorded,
        rules,
        rake: None,
        run_twice: None,
    })
}

fn smallest_raise(t: &Table) -> Option<u64> {
    t.state.legal_actions()?.bet_or_raise.map(|r| r.min)
}

#[test]
fn oracle_a_raise_over_the_live_straddle_is_to_twice_the_straddle() {
    // Oracle 12: "One live "straddle bet" is allowed."; 4: "Any wager must be at least the
    // amount of the previous bet or raise in that round, unless a player is going all-in."
    // The straddle of 400 is that bet: the smallest raise is to 800.
    let mut t = straddled(HouseRules::oracle(), [66, 200, 400], 100_000);
    assert_eq!(t.to_act(), Some(D));
    assert_eq!(t.state.legal_actions().unwrap().call, Some(400));
    assert_eq!(smallest_raise(&t), Some(800));
    // Oracle 13's 50% rule: a declared 600 (half the straddle more) is made the full raise.
    let declared = t.ok(D, Action::RaiseTo(600));
    assert_eq!(raised_to(&declared), Some(800));
    // A short straddle, posted all-in (blinds 5/10, a straddle of 20 from a stack of 12):
    // the call is what was posted, the smallest raise the straddle's full size more.
    let t = straddled(HouseRules::oracle(), [5, 10, 20], 12);
    assert_eq!(t.state.legal_actions().unwrap().call, Some(12));
    assert_eq!(smallest_raise(&t), Some(32));
}

#[test]
fn hippodrome_a_raise_over_the_button_straddle_is_to_twice_it() {
    // Hippodrome betting 9: "A button straddle will be permitted on three and four handed
    // tables". Three-handed, the button (seat C) straddles 400 over blinds 100/200; the
    // small blind acts first and may raise to 800, no less.
    let blind = |seat, kind, amount| Blind { seat, kind, amount };
    let t = Table::start(HandSetup {
        button: C,
        seats: support::seats(&[100_000, 100_000, 100_000]),
        big_blind: 200,
        blinds: vec![
            blind(A, BlindKind::SmallBlind, 100),
            blind(B, BlindKind::BigBlind, 200),
            blind(C, BlindKind::Straddle, 400),
        ],
        antes: Vec::new(),
        chip_unit: 1,
        absent_hands_dead: false,
        dealing: Dealing::Recorded,
        rules: HouseRules::hippodrome(),
        rake: None,
        run_twice: None,
    });
    assert_eq!(t.to_act(), Some(A));
    assert_eq!(t.state.legal_actions().unwrap().call, Some(300));
    assert_eq!(smallest_raise(&t), Some(800));
}

#[test]
fn wsop_reads_blinds_and_straddles_as_posted_bets_as_pokerkit_does() {
    // PokerKit: the smallest raise is `min_bet` over the largest bet posted. Blinds 66/200,
    // a straddle of 400: a raise to 600.
    let mut t = straddled(HouseRules::wsop(), [66, 200, 400], 100_000);
    assert_eq!(smallest_raise(&t), Some(600));
    assert!(matches!(
        t.act(D, Action::RaiseTo(599)),
        Err(RuleError::RaiseBelowMinimum { min: 600, got: 599 })
    ));
    assert_eq!(raised_to(&t.ok(D, Action::RaiseTo(600))), Some(600));
    // Blinds 5/10, a straddle of 20 posted as 12 all-in: a raise to 22 or more.
    let mut t = straddled(HouseRules::wsop(), [5, 10, 20], 12);
    assert_eq!(smallest_raise(&t), Some(22));
    assert_eq!(raised_to(&t.ok(D, Action::RaiseTo(23))), Some(23));
}

/// On the flop (blinds 50/100) A and B check, C bets all-in for 60, less than the
/// smallest bet of 100, and D and E call: back to A, who checked.
fn short_all_in_bet(rules: HouseRules) -> Table {
    let mut t = five_on_the_flop(rules, [10_000, 10_000, 60, 10_000, 10_000]);
    t.ok(A, Action::Check);
    t.ok(B, Action::Check);
    t.ok(C, Action::AllIn);
    t.ok(D, Action::Call);
    t.ok(E, Action::Call);
    assert_eq!(t.to_act(), Some(A));
    t
}

#[test]
fn queensix_a_player_who_checked_may_not_raise_a_short_all_in_bet() {
    // QueenSix NLHE 3: "A player who has already acted and is not facing a full size wager
    // may not subsequently raise an all-in bet that is less than the minimum bet".
    let mut t = short_all_in_bet(HouseRules::queensix());
    let legal = t.state.legal_actions().unwrap();
    assert_eq!(legal.call, Some(60));
    assert_eq!(legal.bet_or_raise, None);
    assert!(matches!(
        t.act(A, Action::RaiseTo(1_000)),
        Err(RuleError::RaiseNotAllowed)
    ));
    // The same for every house but the PHH reference.
    for rules in [
        HouseRules::wph(),
        HouseRules::oracle(),
        HouseRules::invitational(),
        HouseRules::hippodrome(),
    ] {
        let t = short_all_in_bet(rules);
        assert_eq!(smallest_raise(&t), None, "{:?}", rules.preset);
    }
}

#[test]
fn a_short_all_in_bet_opens_the_betting_where_the_house_says_so_and_under_wsop() {
    // PokerKit: the round's first bet opens the betting whatever its size; the smallest
    // raise is then the big blind over it.
    for rules in [
        HouseRules::wsop(),
        HouseRules {
            short_all_in_bet: ShortAllInBet::OpensTheBetting,
            ..HouseRules::queensix()
        },
    ] {
        let mut t = short_all_in_bet(rules);
        assert_eq!(smallest_raise(&t), Some(160), "{:?}", rules.preset);
        assert_eq!(raised_to(&t.ok(A, Action::RaiseTo(1_144))), Some(1_144));
    }
}

#[test]
fn wph_31_a_released_bettor_who_folds_leaves_the_out_of_turn_bet_in_the_pot() {
    // WPH 31: "BET MORE THAN THE OUT OF TURN PLAYER, the out of turn player is given all
    // options with the exception of checking. If the out of turn player folds, their out of
    // turn bet will stay in the pot." C bets 100 out of turn; A bets 300 and B folds; C is
    // released and folds: C's 100 stays, and A takes it with the blinds.
    let mut t = bet_out_of_turn_then(HouseRules::wph(), Action::Bet(300), Action::Fold);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::Released));
    let events = t.ok(C, Action::Fold);
    assert!(
        events.contains(&Event::OutOfTurnBetForfeited {
            seat: C,
            amount: 100
        }),
        "{events:?}"
    );
    assert_eq!(t.stack(C), 890, "C's out-of-turn bet stays in the pot");
    assert_eq!(t.stack(B), 990);
    assert_eq!(
        t.stack(A),
        1_120,
        "A's 200 over C's bet comes back; A wins 30 + 100 + 100"
    );
    assert_eq!(t.state.phase(), Phase::Complete);
    // Calling or raising instead is an ordinary action: nothing is left over.
    let mut t = bet_out_of_turn_then(HouseRules::wph(), Action::Bet(300), Action::Fold);
    let events = t.ok(C, Action::Call);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::OutOfTurnBetForfeited { .. }))
    );
    assert_eq!(t.stack(C), 690);
    // A hand started under the rule as releases before 0.17.0 read it keeps it: the
    // released bettor folds without the bet.
    let mut before = HouseRules::wph();
    before.out_of_turn = OutOfTurn::WphRules31And40;
    let mut t = bet_out_of_turn_then(before, Action::Bet(300), Action::Fold);
    t.ok(C, Action::Fold);
    assert_eq!(t.stack(C), 990);
}

#[test]
fn wph_31_an_all_in_out_of_turn_is_a_bet_of_the_whole_stack() {
    // WPH 31: facing a smaller in-turn bet, "the out of turn player is forced to flat call";
    // an all-in is a bet of everything the player has.
    let mut t = Table::new(HouseRules::wph(), &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    t.send(Command::OutOfTurn {
        seat: C,
        action: Action::AllIn,
    })
    .unwrap();
    t.ok(A, Action::Bet(300));
    t.ok(B, Action::Fold);
    assert_eq!(last_ruling(&t), Some(OutOfTurnRuling::MustCall));
    assert_eq!(t.stack(C), 690, "C flat calls the 300");
}

/// A three-way river where A bets and B and C call, in recorded tracking: the showdown
/// starts with A, the last aggressor.
fn river_showdown_of_three(rules: HouseRules) -> Table {
    let mut t = Table::new(rules, &[1_000, 1_000, 1_000], 5, 10);
    t.limp_to_flop("2c7d9h");
    for card in ["Ts", "3h"] {
        for seat in [A, B, C] {
            t.ok(seat, Action::Check);
        }
        t.board(card);
    }
    t.ok(A, Action::Bet(100));
    t.ok(B, Action::Call);
    t.ok(C, Action::Call);
    assert_eq!(t.state.to_show(), Some(A));
    t
}

#[test]
fn wph_10b_and_oracle_showdown_7_the_last_hand_wins_unseen_when_the_others_muck() {
    // WPH 10B: "In a non all-in showdown, when the opponent(s) cards have been mucked
    // without being revealed, the last remaining hand wins. The opponents also lose their
    // right to ask to see the winning hand." Oracle showdown 7: "In a muck muck situation
    // the last player doesn't need to show his cards to win the pot."
    for rules in [HouseRules::wph(), HouseRules::oracle()] {
        let mut t = river_showdown_of_three(rules);
        t.send(Command::Muck { seat: A }).unwrap();
        t.send(Command::Muck { seat: B }).unwrap();
        assert_eq!(t.state.phase(), Phase::Complete, "{:?}", rules.preset);
        assert!(
            !t.events
                .iter()
                .any(|e| matches!(e, Event::HandShown { seat: C, .. })),
            "{:?}: C's cards are never turned up",
            rules.preset
        );
        assert_eq!(
            t.stack(C),
            1_220,
            "{:?}: 890 and the pot of 330",
            rules.preset
        );
        // Its hand history leaves C's `sm` out, as PokerKit ends the showdown; read back
        // (under the rules PHH is defined by) it ends on the same stacks.
        let text = league_engine::phh::write(&t.events).unwrap();
        assert!(!text.contains("p3 sm"), "{text}");
        let read = league_engine::phh::parse(&text)
            .and_then(|hand| league_engine::phh::replay(&hand, HouseRules::wsop()))
            .unwrap();
        assert_eq!(read.stacks, vec![890, 890, 1_220], "{text}");
        // A hand that was shown keeps the showdown open: the last hand must beat it face up.
        let mut t = river_showdown_of_three(rules);
        t.send(Command::Show {
            seat: A,
            cards: Some([cards("AhAd")[0], cards("AhAd")[1]]),
        })
        .unwrap();
        t.send(Command::Muck { seat: B }).unwrap();
        assert_eq!(t.state.to_show(), Some(C), "{:?}", rules.preset);
    }
    // QueenSix's book says nothing of it: the last hand is shown to take the pot.
    let mut t = river_showdown_of_three(HouseRules::queensix());
    t.send(Command::Muck { seat: A }).unwrap();
    t.send(Command::Muck { seat: B }).unwrap();
    assert_eq!(t.state.to_show(), Some(C));
    assert!(matches!(
        t.send(Command::Muck { seat: C }),
        Err(RuleError::LastHandCannotMuck { .. })
    ));
}

#[test]
fn oracle_showdown_7_side_pot_players_show_before_a_main_pot_all_in_left_of_the_button_first() {
    // Oracle showdown 7: "If everyone checks (or is all-in), on the final betting round, the
    // closest to the button clockwise is the first to show the hand. [...] If there is a
    // side pot, players involved in the side pot should show their hands before anyone who
    // is all-in for only the main pot." A (left of the button) is all-in for the main pot;
    // B bets the flop and C calls; the river is checked: B, C, then A.
    let order_under = |rules: HouseRules| {
        let mut t = Table::new(rules, &[20, 1_000, 1_000], 5, 10);
        t.ok(C, Action::Call);
        t.ok(A, Action::AllIn);
        t.ok(B, Action::Call);
        t.ok(C, Action::Call);
        t.board("2c7d9h");
        t.ok(B, Action::Bet(50));
        t.ok(C, Action::Call);
        for card in ["Ts", "3h"] {
            t.board(card);
            t.ok(B, Action::Check);
            t.ok(C, Action::Check);
        }
        t.events.iter().rev().find_map(|e| match e {
            Event::ShowdownStarted { order } => Some(order.clone()),
            _ => None,
        })
    };
    assert_eq!(order_under(HouseRules::oracle()), Some(vec![B, C, A]));
    // Hands started under Oracle's preset before release 0.17.0 keep the order they had.
    let mut before = HouseRules::oracle();
    before.showdown_order = ShowdownOrder::LastAggressorElseLeftOfButton;
    assert_eq!(order_under(before), Some(vec![A, B, C]));
}

#[test]
fn invitational_7_5_the_last_side_pot_shows_first_then_the_next_to_last() {
    // Invitational 7.5: "If there are multiple side pots then those participating for the
    // last side pot shall show their hands down first, followed by those involved in the
    // next-to-last side pot, etc., until the main pot is awarded." A is all-in for 20 (the
    // main pot), B for 50 (the first side pot); C and D play on, D bets the river and C
    // calls: D and C (the last side pot), then B, then A.
    let order_under = |rules: HouseRules| {
        let mut t = Table::new(rules, &[20, 50, 1_000, 1_000], 5, 10);
        t.ok(C, Action::Call);
        t.ok(D, Action::Call);
        t.ok(A, Action::AllIn);
        t.ok(B, Action::AllIn);
        t.ok(C, Action::Call);
        t.ok(D, Action::Call);
        t.board("2c7d9h");
        for card in ["Ts", "3h"] {
            t.ok(C, Action::Check);
            t.ok(D, Action::Check);
            t.board(card);
        }
        t.ok(C, Action::Check);
        t.ok(D, Action::Bet(100));
        t.ok(C, Action::Call);
        t.events.iter().rev().find_map(|e| match e {
            Event::ShowdownStarted { order } => Some(order.clone()),
            _ => None,
        })
    };
    assert_eq!(
        order_under(HouseRules::invitational()),
        Some(vec![D, C, B, A])
    );
    // Moving only the main pot's all-in last (QueenSix 7, and the invitational's hands
    // before release 0.17.0) leaves B between D and C.
    let mut before = HouseRules::invitational();
    before.showdown_order = ShowdownOrder::SidePotsFirst;
    assert_eq!(order_under(before), Some(vec![D, B, C, A]));
}

#[test]
fn queensix_30_wph_9_invitational_5_8_no_hand_is_mucked_once_a_player_is_all_in() {
    // QueenSix 30 and invitational 5.8: "All hands will be turned face up whenever a player
    // is all-in and betting action is complete." WPH 9: "All cards will be turned face up
    // once a player is all-in and all betting action at the table is complete." A is all-in
    // for 200 and B and C check it down: in recorded tracking B may not muck.
    let all_in_showdown = |rules: HouseRules| {
        let mut t = Table::new(rules, &[200, 1_000, 1_000], 5, 10);
        t.ok(C, Action::Call);
        t.ok(A, Action::AllIn);
        t.ok(B, Action::Call);
        t.ok(C, Action::Call);
        t.board("2c7d9h");
        for card in ["Ts", "3h"] {
            t.ok(B, Action::Check);
            t.ok(C, Action::Check);
            t.board(card);
        }
        t.ok(B, Action::Check);
        t.ok(C, Action::Check);
        assert_eq!(t.state.phase(), Phase::Showdown);
        t
    };
    for rules in [
        HouseRules::queensix(),
        HouseRules::wph(),
        HouseRules::invitational(),
    ] {
        let mut t = all_in_showdown(rules);
        assert!(
            matches!(
                t.send(Command::Muck { seat: B }),
                Err(RuleError::AllInHandsFaceUp { seat: B })
            ),
            "{:?}",
            rules.preset
        );
    }
    // Oracle's book has no such rule: a hand may still be mucked there.
    let mut t = all_in_showdown(HouseRules::oracle());
    t.send(Command::Muck { seat: B }).unwrap();
    // Nor did a hand started before release 0.17.0, which re-derives as it was played.
    let mut before = HouseRules::wph();
    before.all_in_face_up = false;
    let mut t = all_in_showdown(before);
    t.send(Command::Muck { seat: B }).unwrap();
}
