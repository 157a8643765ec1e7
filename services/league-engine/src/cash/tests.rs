//! The cash rules of the two cardrooms, each quoted from its rulebook, and random sessions.

use proptest::prelude::*;

use super::*;
use crate::deck::Seed;
use crate::hand::{Action, BlindKind, Command, Event};
use crate::sim::Simulator;
use crate::units::VenueId;

const HOUR: Seconds = 3600;

fn config(preset: Preset) -> TableConfig {
    TableConfig {
        venue: VenueId::new("oracle-casino"),
        name: "1/2 No-Limit".into(),
        small_blind: Chips::new(1),
        big_blind: Chips::new(2),
        min_buy_in: Chips::new(40),
        max_buy_in: Chips::new(200),
        seats: 9,
        rules: preset.rules(),
        straddle: CashRules::straddle(preset),
        take: HouseTake::None,
        run_twice: None,
    }
}

fn player(n: u8) -> PlayerId {
    PlayerId::new(format!("p{n}"))
}

/// A table with its events, checked after every command.
struct Table {
    state: CashState,
    events: Vec<CashEvent>,
    sim: Simulator,
    seeds: u8,
}

impl Table {
    fn open(config: TableConfig) -> Table {
        let sim = Simulator::new(7, config.rules);
        let mut table = Table {
            state: CashState::new(),
            events: Vec::new(),
            sim,
            seeds: 0,
        };
        table.ok(CashCommand::Open { config, at: 0 });
        table
    }

    fn run(&mut self, command: CashCommand) -> Result<Vec<CashEvent>, CashError> {
        let before = self.state.clone();
        let events = decide(&self.state, &command);
        assert_eq!(before, self.state, "decide changed nothing");
        let events = events?;
        for event in &events {
            self.state.apply(event);
            if let Err(e) = self.state.check_invariants() {
                panic!("after {event:?}: {e}");
            }
        }
        self.events.extend(events.iter().cloned());
        Ok(events)
    }

    fn ok(&mut self, command: CashCommand) -> Vec<CashEvent> {
        match self.run(command.clone()) {
            Ok(events) => events,
            Err(e) => panic!("{command:?} refused: {e}"),
        }
    }

    fn refused(&mut self, command: CashCommand) -> CashError {
        let before = self.state.clone();
        let error = self
            .run(command)
            .expect_err("the command should be refused");
        assert_eq!(before, self.state);
        error
    }

    fn sit(&mut self, seat: Seat, buy_in: u64, post: bool) -> Vec<CashEvent> {
        self.ok(CashCommand::Sit {
            seat,
            player: player(seat),
            buy_in: Chips::new(buy_in),
            entry: Entry::BuyIn,
            post,
            at: 0,
        })
    }

    fn seed(&mut self) -> Seed {
        self.seeds = self.seeds.wrapping_add(1);
        Seed::from_bytes([self.seeds; 32])
    }

    fn deal(&mut self, straddle: Option<Seat>) -> Result<Vec<CashEvent>, CashError> {
        let seed = self.seed();
        self.run(CashCommand::StartHand {
            at: 0,
            seed: Some(seed),
            straddle,
        })
    }

    /// Plays the running hand to its end with random legal actions.
    fn play_out(&mut self) {
        while self.state.in_hand() {
            let hand = self.state.hand.expect("a hand");
            let command = self.sim.next_command(&hand).expect("a command");
            self.ok(CashCommand::Hand(command));
        }
    }

    /// Folds round to the big blind: the cheapest way through a hand.
    fn fold_round(&mut self) {
        while self.state.in_hand() {
            let hand = self.state.hand.expect("a hand");
            let Some(legal) = hand.legal_actions() else {
                let command = self.sim.next_command(&hand).expect("a show or a muck");
                self.ok(CashCommand::Hand(command));
                continue;
            };
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Fold
            };
            self.ok(CashCommand::Hand(Command::Act {
                seat: legal.seat,
                action,
            }));
        }
    }

    fn setup(&self) -> hand::HandSetup {
        self.events
            .iter()
            .rev()
            .find_map(|e| match e {
                CashEvent::HandEvent {
                    event: Event::HandStarted { setup },
                } => Some((**setup).clone()),
                _ => None,
            })
            .expect("a hand was dealt")
    }

    fn dealt(&self) -> Vec<Seat> {
        self.setup().seats.iter().map(|s| s.seat).collect()
    }

    fn blind_of(&self, seat: Seat) -> Option<(BlindKind, u64)> {
        self.setup()
            .blinds
            .iter()
            .find(|b| b.seat == seat)
            .map(|b| (b.kind, b.amount))
    }
}

#[test]
fn only_the_cardrooms_run_cash_games() {
    for preset in Preset::ALL {
        let result = decide(
            &CashState::new(),
            &CashCommand::Open {
                config: config(preset),
                at: 0,
            },
        );
        assert_eq!(
            result.is_ok(),
            matches!(preset, Preset::Oracle | Preset::Hippodrome),
            "{preset:?}"
        );
    }
}

/// Oracle, The buy-in 1: "When you enter a game, you must make a buy-in of at least the
/// minimum of the table." Hippodrome, The buy-in 1: "you must make a full buy-in for at
/// least the table minimum."
#[test]
fn a_buy_in_is_at_least_the_table_minimum() {
    for preset in [Preset::Oracle, Preset::Hippodrome] {
        let mut table = Table::open(config(preset));
        let error = table.refused(CashCommand::Sit {
            seat: 0,
            player: player(0),
            buy_in: Chips::new(39),
            entry: Entry::BuyIn,
            post: false,
            at: 0,
        });
        assert_eq!(error.code(), "BELOW_MINIMUM_BUY_IN");
        let error = table.refused(CashCommand::Sit {
            seat: 0,
            player: player(0),
            buy_in: Chips::new(201),
            entry: Entry::BuyIn,
            post: false,
            at: 0,
        });
        assert_eq!(error.code(), "ABOVE_MAXIMUM_BUY_IN");
        table.sit(0, 40, false);
    }
}

/// Oracle, The buy-in 2: "Adding to your stack is not considered a buy-in, and may be done
/// in any quantity (up to the table maximum) between hands."
#[test]
fn chips_are_added_between_hands_up_to_the_maximum() {
    let mut table = Table::open(config(Preset::Oracle));
    table.sit(0, 100, false);
    table.sit(1, 100, false);
    table.sit(2, 100, false);
    table.ok(CashCommand::TopUp {
        seat: 0,
        amount: Chips::new(1),
        at: 0,
    });
    let error = table.refused(CashCommand::TopUp {
        seat: 0,
        amount: Chips::new(100),
        at: 0,
    });
    assert_eq!(error.code(), "ABOVE_MAXIMUM_BUY_IN");
    table.deal(None).unwrap();
    let in_hand = table.dealt()[0];
    assert_eq!(table.dealt().len(), 3);
    let error = table.refused(CashCommand::TopUp {
        seat: in_hand,
        amount: Chips::new(5),
        at: 0,
    });
    assert_eq!(error, CashError::InHand(in_hand));
    table.play_out();
    let shortest = *table
        .state
        .seats
        .iter()
        .min_by_key(|(_, held)| held.stack)
        .unwrap()
        .0;
    // A stack left with nothing buys in again (at least the minimum); any other tops up.
    let amount = if table.state.seats[&shortest].stack.is_zero() {
        40
    } else {
        5
    };
    table.ok(CashCommand::TopUp {
        seat: shortest,
        amount: Chips::new(amount),
        at: 0,
    });
}

/// Oracle, The buy-in 3: "A player who is forced to transfer from a broken game or
/// must-move game to a game of the same limit may continue to play the same amount of
/// money, even if it is less than the minimum buy-in. A player switching games voluntarily
/// must have the proper buy-in amount for the new game."
#[test]
fn a_player_moved_from_a_broken_game_keeps_a_short_stack() {
    let mut table = Table::open(config(Preset::Oracle));
    table.ok(CashCommand::Sit {
        seat: 3,
        player: player(3),
        buy_in: Chips::new(12),
        entry: Entry::Transfer,
        post: false,
        at: 0,
    });
    let error = table.refused(CashCommand::Sit {
        seat: 4,
        player: player(4),
        buy_in: Chips::new(12),
        entry: Entry::BuyIn,
        post: false,
        at: 0,
    });
    assert_eq!(error.code(), "BELOW_MINIMUM_BUY_IN");
}

/// Oracle, The buy-in 4: "A new player entering the game has the following options: 1.
/// Wait for the big blind. 2. Post an amount equal to the big blind and immediately be
/// dealt a hand."
#[test]
fn an_oracle_newcomer_posts_a_big_blind_or_waits_for_it() {
    let mut table = Table::open(config(Preset::Oracle));
    for seat in [0, 2, 4, 6] {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    let button = table.state.button.unwrap();
    // Seat 1 is just after the button... wherever the button is, the next hand's big
    // blind is two players on: a newcomer who posts is dealt in at once.
    let newcomer = (0..9)
        .map(|i| (button + 1 + i) % 9)
        .find(|s| !table.state.seats.contains_key(s))
        .unwrap();
    table.sit(newcomer, 100, true);
    table.deal(None).unwrap();
    assert!(table.dealt().contains(&newcomer));
    let blind = table.blind_of(newcomer).unwrap();
    assert_eq!(blind.1, 2, "the newcomer posts a big blind");
    table.fold_round();

    // A newcomer who waits is dealt in only when the big blind reaches the seat.
    let mut hands = 0;
    let waiter = (0..9).find(|s| !table.state.seats.contains_key(s)).unwrap();
    table.sit(waiter, 100, false);
    loop {
        table.deal(None).unwrap();
        hands += 1;
        let dealt = table.dealt();
        let big = table.state.big_blind.unwrap();
        if dealt.contains(&waiter) {
            assert_eq!(big, waiter, "dealt in on the big blind");
            break;
        }
        table.fold_round();
        assert!(hands < 9, "the big blind reached the newcomer");
    }
}

/// Hippodrome, Rules for using blinds 4: "A new player entering the game can join without
/// posting until it is his turn for the Big Blind." 5: "A new player cannot be dealt in
/// between the big blind and the small blind, or on the small blind."
#[test]
fn a_hippodrome_newcomer_waits_for_the_big_blind() {
    let mut table = Table::open(config(Preset::Hippodrome));
    for seat in [0, 3, 6] {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    let error = table.refused(CashCommand::Sit {
        seat: 1,
        player: player(1),
        buy_in: Chips::new(100),
        entry: Entry::BuyIn,
        post: true,
        at: 0,
    });
    assert_eq!(error.code(), "MUST_WAIT_FOR_BIG_BLIND");
    table.sit(1, 100, false);
    for _ in 0..6 {
        table.deal(None).unwrap();
        let dealt = table.dealt();
        if dealt.contains(&1) {
            assert_eq!(table.state.big_blind, Some(1));
            return;
        }
        assert_ne!(table.state.small_blind, Some(1));
        table.fold_round();
    }
    panic!("the newcomer was never dealt in");
}

/// Oracle, Rules for using blinds 2a: "Moving button - the button always moves forward to
/// the next player and the blinds adjust accordingly."
#[test]
fn the_button_moves_on_one_player_each_hand() {
    let mut table = Table::open(config(Preset::Oracle));
    for seat in [1, 4, 5, 8] {
        table.sit(seat, 100, false);
    }
    let mut buttons = Vec::new();
    for _ in 0..6 {
        table.deal(None).unwrap();
        buttons.push(table.state.button.unwrap());
        table.fold_round();
    }
    assert_eq!(buttons, vec![1, 4, 5, 8, 1, 4]);
}

/// Missed blinds, as the table sees them: the big blind passing a player who sits out.
fn sit_out_past_the_blinds(preset: Preset) -> (Table, Seat) {
    let mut table = Table::open(config(preset));
    for seat in [0, 2, 4, 6, 8] {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    // The player due the big blind next sits out for a round.
    let big = table.state.big_blind.unwrap();
    let away = (1..9)
        .map(|i| (big + i) % 9)
        .find(|s| table.state.seats.contains_key(s))
        .unwrap();
    table.ok(CashCommand::SitOut { seat: away, at: 0 });
    for _ in 0..3 {
        table.deal(None).unwrap();
        assert!(!table.dealt().contains(&away));
        table.fold_round();
    }
    let held = &table.state.seats[&away];
    assert!(held.owes_big && held.owes_small, "{held:?}");
    let missed: Vec<_> = table
        .events
        .iter()
        .filter(|e| matches!(e, CashEvent::BlindMissed { seat, .. } if *seat == away))
        .collect();
    assert_eq!(missed.len(), 2, "each blind is missed once: {missed:?}");
    (table, away)
}

/// Oracle, Rules for using blinds 7: "A player who misses any or all blinds can resume play
/// by either posting all the blinds missed or waiting for the big blind. If you choose to
/// post the total amount of the blinds, an amount up to the size of the minimum opening bet
/// is live. The remainder is taken by the dealer to the centre of the pot and is not part
/// of you bet."
#[test]
fn an_oracle_player_back_posts_the_big_blind_live_and_the_small_blind_dead() {
    let (mut table, away) = sit_out_past_the_blinds(Preset::Oracle);
    table.ok(CashCommand::Return {
        seat: away,
        post: true,
        at: 0,
    });
    // Dealt in at once unless the small blind falls on the seat (then the big blind next).
    table.deal(None).unwrap();
    if !table.dealt().contains(&away) {
        assert!(table.state.seats[&away].posting);
        table.fold_round();
        table.deal(None).unwrap();
    }
    assert!(table.dealt().contains(&away));
    let setup = table.setup();
    if table.state.big_blind != Some(away) {
        assert_eq!(table.blind_of(away), Some((BlindKind::BigBlind, 2)));
        let dead: u64 = setup
            .antes
            .iter()
            .filter(|a| a.seat == away)
            .map(|a| a.amount)
            .sum();
        assert_eq!(dead, 1, "the small blind is dead");
    }
    let held = &table.state.seats[&away];
    assert!(!held.owes_big && !held.owes_small);
}

/// Hippodrome, Rules for using blinds 8: "A player who misses any or all blinds can resume
/// play by either posting the missed Big Blind or waiting for the big blind."
#[test]
fn a_hippodrome_player_back_posts_the_big_blind_or_waits() {
    let (mut posting, away) = sit_out_past_the_blinds(Preset::Hippodrome);
    let (mut waiting, _) = sit_out_past_the_blinds(Preset::Hippodrome);
    posting.ok(CashCommand::Return {
        seat: away,
        post: true,
        at: 0,
    });
    posting.deal(None).unwrap();
    if !posting.dealt().contains(&away) {
        posting.fold_round();
        posting.deal(None).unwrap();
    }
    assert!(posting.dealt().contains(&away));
    assert_eq!(posting.blind_of(away).map(|b| b.1), Some(2));
    assert!(posting.setup().antes.is_empty(), "nothing is dead");

    waiting.ok(CashCommand::Return {
        seat: away,
        post: false,
        at: 0,
    });
    for _ in 0..6 {
        waiting.deal(None).unwrap();
        if waiting.dealt().contains(&away) {
            assert_eq!(waiting.state.big_blind, Some(away));
            return;
        }
        waiting.fold_round();
    }
    panic!("never dealt back in");
}

/// Hippodrome, Rules for using blinds 3: "When play becomes heads-up, the player who had
/// the big blind the most recently is given the button, and his opponent is given the big
/// blind."
#[test]
fn when_play_becomes_heads_up_the_last_big_blind_takes_the_button() {
    let mut table = Table::open(config(Preset::Hippodrome));
    for seat in [0, 3, 6] {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    let (button, big) = (table.state.button.unwrap(), table.state.big_blind.unwrap());
    // The button leaves: two players are left, and the one who just had the big blind
    // gets the button.
    table.ok(CashCommand::Leave {
        seat: button,
        at: 0,
    });
    table.deal(None).unwrap();
    assert_eq!(table.state.button, Some(big));
    assert_eq!(table.state.small_blind, Some(big));
    assert_ne!(table.state.big_blind, Some(big));
}

/// Hippodrome, Rules for using blinds 10: "A player who goes all-in and loses is not
/// obligated to make up the blinds if they are missed before a rebuy is made. (The person
/// is treated as a new player when re-entering.)"
#[test]
fn a_player_who_went_broke_comes_back_as_a_new_player() {
    let mut table = Table::open(config(Preset::Hippodrome));
    for seat in [0, 2, 3, 5, 6, 7] {
        table.sit(seat, 100, false);
    }
    // Play until someone goes broke.
    let mut broke = None;
    for _ in 0..2_000 {
        table.deal(None).unwrap();
        table.play_out();
        broke = table
            .state
            .seats
            .iter()
            .find(|(_, h)| h.stack.is_zero())
            .map(|(&s, _)| s);
        if broke.is_some() {
            break;
        }
    }
    let broke = broke.expect("someone goes broke");
    // Others broke in the same hand leave; newcomers keep a game going.
    let gone: Vec<Seat> = table
        .state
        .seats
        .iter()
        .filter(|(s, h)| **s != broke && h.stack.is_zero())
        .map(|(s, _)| *s)
        .collect();
    for seat in gone {
        table.ok(CashCommand::Leave { seat, at: 0 });
    }
    while table
        .state
        .seats
        .values()
        .filter(|h| !h.stack.is_zero())
        .count()
        < 3
    {
        let seat = (0..9).find(|s| !table.state.seats.contains_key(s)).unwrap();
        table.ok(CashCommand::Sit {
            seat,
            player: PlayerId::new(format!("new-{seat}")),
            buy_in: Chips::new(100),
            entry: Entry::BuyIn,
            post: false,
            at: 0,
        });
    }
    // Hands go by without them: they owe nothing for it.
    table.deal(None).unwrap();
    assert!(!table.dealt().contains(&broke));
    table.play_out();
    let held = &table.state.seats[&broke];
    assert!(!held.owes_big && !held.owes_small);
    // Buying again is a buy-in: at least the table minimum.
    let error = table.refused(CashCommand::TopUp {
        seat: broke,
        amount: Chips::new(39),
        at: 0,
    });
    assert_eq!(error.code(), "BELOW_MINIMUM_BUY_IN");
    table.ok(CashCommand::TopUp {
        seat: broke,
        amount: Chips::new(100),
        at: 0,
    });
    assert!(table.state.seats[&broke].waiting_for_big_blind);
    for _ in 0..6 {
        table.deal(None).unwrap();
        if table.dealt().contains(&broke) {
            assert_eq!(table.state.big_blind, Some(broke));
            return;
        }
        table.play_out();
    }
    panic!("never dealt back in");
}

/// Oracle, Rules for using blinds 12: "One live 'straddle bet' is allowed."
#[test]
fn oracle_allows_one_live_straddle_left_of_the_big_blind() {
    let mut table = Table::open(config(Preset::Oracle));
    for seat in [0, 1, 2, 3] {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    // Next hand: button 1, blinds 2 and 3, under the gun 0.
    let error = table.deal(Some(1)).unwrap_err();
    assert_eq!(error.code(), "STRADDLE_NOT_ALLOWED");
    table.deal(Some(0)).unwrap();
    assert_eq!(table.blind_of(0), Some((BlindKind::Straddle, 4)));
    // The straddle is a live bet: the small blind acts first after it and faces 4.
    let hand = table.state.hand.unwrap();
    let legal = hand.legal_actions().unwrap();
    assert_eq!(legal.seat, 1);
    assert_eq!(legal.call, Some(4));
}

/// Hippodrome, Procedures 9: "A button straddle will be permitted on three and four handed
/// tables where the game rules are applicable."
#[test]
fn hippodrome_allows_a_button_straddle_three_or_four_handed() {
    let mut table = Table::open(config(Preset::Hippodrome));
    for seat in [0, 1, 2, 3, 4] {
        table.sit(seat, 100, false);
    }
    let error = table.deal(Some(0)).unwrap_err();
    assert!(
        error.to_string().contains("three- or four-handed"),
        "{error}"
    );
    table.ok(CashCommand::SitOut { seat: 4, at: 0 });
    let button = 1; // the first hand's button is the first seat, then it moves on.
    table.deal(None).unwrap();
    table.fold_round();
    assert_eq!(table.state.button, Some(0));
    let error = table.deal(Some(2)).unwrap_err();
    assert_eq!(error.code(), "STRADDLE_NOT_ALLOWED");
    table.deal(Some(button)).unwrap();
    assert_eq!(table.blind_of(button), Some((BlindKind::Straddle, 4)));
}

/// Hippodrome, Procedures 7: "If you return to the same stake within two hours of cashing
/// out, your buy-in must be equal to the amount removed when leaving that game."
#[test]
fn a_hippodrome_player_back_within_two_hours_brings_back_what_was_taken() {
    let mut table = Table::open(config(Preset::Hippodrome));
    table.sit(0, 200, false);
    table.sit(1, 200, false);
    // Seat 0 wins 100 from seat 1 (chips moved by a top-up-free route: cash-out values).
    table.ok(CashCommand::Leave { seat: 0, at: HOUR });
    let sit = |buy_in: u64, at: Seconds| CashCommand::Sit {
        seat: 0,
        player: player(0),
        buy_in: Chips::new(buy_in),
        entry: Entry::BuyIn,
        post: false,
        at,
    };
    let error = table.refused(sit(100, HOUR + HOUR));
    assert_eq!(error.code(), "BELOW_AMOUNT_TAKEN");
    table.ok(sit(100, HOUR + 2 * HOUR));
    // Oracle has no such rule.
    let mut oracle = Table::open(config(Preset::Oracle));
    oracle.sit(0, 200, false);
    oracle.ok(CashCommand::Leave { seat: 0, at: HOUR });
    oracle.ok(CashCommand::Sit {
        seat: 0,
        player: player(0),
        buy_in: Chips::new(40),
        entry: Entry::BuyIn,
        post: false,
        at: HOUR + 60,
    });
}

fn with_fee(preset: Preset) -> TableConfig {
    TableConfig {
        take: HouseTake::SessionFee {
            amount: Chips::new(5),
            period_minutes: 30,
        },
        ..config(preset)
    }
}

/// Hippodrome, Procedures 4a: "Session Fees - will be requested on the hour and 30 minutes
/// past the hour. Players away from the table at the time of season fee collection will be
/// required to pay on their return. ... New players to the table will be required to pay
/// the previous charge if in their seat upto ten minutes after charge was taken."
#[test]
fn session_fees_are_charged_each_half_hour_and_paid_on_return() {
    let mut table = Table::open(with_fee(Preset::Hippodrome));
    table.sit(0, 100, false);
    table.sit(1, 100, false);
    table.sit(2, 100, false);
    table.ok(CashCommand::SitOut { seat: 2, at: 0 });
    table.ok(CashCommand::ChargeSessionFee { at: HOUR });
    assert_eq!(table.state.seats[&0].stack, Chips::new(95));
    assert_eq!(table.state.seats[&2].stack, Chips::new(100));
    assert_eq!(table.state.seats[&2].fees_due, Chips::new(5));
    let error = table.refused(CashCommand::ChargeSessionFee { at: HOUR + 29 * 60 });
    assert_eq!(error, CashError::FeeNotDue { due: HOUR + 1800 });
    table.ok(CashCommand::Return {
        seat: 2,
        post: false,
        at: HOUR + 60,
    });
    assert_eq!(table.state.seats[&2].stack, Chips::new(95));
    assert!(table.state.seats[&2].fees_due.is_zero());
    // A newcomer within ten minutes of the charge pays it; later, not.
    table.sit(3, 100, false);
    assert_eq!(table.state.seats[&3].stack, Chips::new(95));
    table.ok(CashCommand::Sit {
        seat: 4,
        player: player(4),
        buy_in: Chips::new(100),
        entry: Entry::BuyIn,
        post: false,
        at: HOUR + 11 * 60,
    });
    assert_eq!(table.state.seats[&4].stack, Chips::new(100));
    assert_eq!(table.state.takings, Chips::new(20));
    table.ok(CashCommand::ChargeSessionFee { at: HOUR + 1800 });
    assert_eq!(table.state.takings, Chips::new(45));
}

/// Hippodrome, Seating 2 and 7: the waiting list is seated in order, and the house may hold
/// a seat for a player.
#[test]
fn the_waiting_list_goes_first_and_a_reserved_seat_waits_for_its_player() {
    let mut table = Table::open(config(Preset::Hippodrome));
    table.ok(CashCommand::JoinWaitingList { player: player(7) });
    let error = table.refused(CashCommand::Sit {
        seat: 0,
        player: player(0),
        buy_in: Chips::new(100),
        entry: Entry::BuyIn,
        post: false,
        at: 0,
    });
    assert_eq!(error, CashError::WaitingListFirst { first: player(7) });
    table.ok(CashCommand::Reserve {
        seat: 5,
        player: player(7),
        until: 600,
        at: 0,
    });
    let taken = table.refused(CashCommand::Sit {
        seat: 5,
        player: player(8),
        buy_in: Chips::new(100),
        entry: Entry::Transfer,
        post: false,
        at: 10,
    });
    assert_eq!(taken.code(), "SEAT_RESERVED");
    table.ok(CashCommand::Sit {
        seat: 5,
        player: player(7),
        buy_in: Chips::new(100),
        entry: Entry::BuyIn,
        post: false,
        at: 10,
    });
    assert!(table.state.waiting_list.is_empty());
    assert!(table.state.reservations.is_empty());
    table.sit(0, 100, false);
}

#[test]
fn closing_cashes_everyone_out() {
    let mut table = Table::open(config(Preset::Oracle));
    table.sit(0, 100, false);
    table.sit(1, 150, false);
    table.deal(None).unwrap();
    assert_eq!(
        table.refused(CashCommand::Close { at: 5 }),
        CashError::HandInProgress
    );
    table.play_out();
    table.ok(CashCommand::Close { at: 5 });
    assert!(table.state.seats.is_empty());
    assert_eq!(table.state.cashed, Chips::new(250));
    assert_eq!(
        table.refused(CashCommand::TopUp {
            seat: 0,
            amount: Chips::new(1),
            at: 0,
        }),
        CashError::Closed
    );
}

#[derive(Clone, Debug)]
enum Step {
    Sit(Seat, u64, bool),
    TopUp(Seat, u64),
    SitOut(Seat),
    Return(Seat, bool),
    Leave(Seat),
    Fee,
    Hand(Option<Seat>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => (0u8..6, 1u64..260, any::<bool>()).prop_map(|(s, b, p)| Step::Sit(s, b, p)),
        1 => (0u8..6, 1u64..120).prop_map(|(s, a)| Step::TopUp(s, a)),
        1 => (0u8..6).prop_map(Step::SitOut),
        1 => (0u8..6, any::<bool>()).prop_map(|(s, p)| Step::Return(s, p)),
        1 => (0u8..6).prop_map(Step::Leave),
        1 => Just(Step::Fee),
        4 => proptest::option::of(0u8..6).prop_map(Step::Hand),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Chips are conserved through buy-ins, top-ups, cash-outs, fees, rakes and hands;
    /// refusals change nothing; a replay of the events gives the same table; the house's
    /// takings are the fees and rakes of the events.
    #[test]
    fn random_sessions_conserve_chips(
        preset in prop_oneof![Just(Preset::Oracle), Just(Preset::Hippodrome)],
        rake in proptest::option::of((1u16..=10_000, 1u64..50, any::<bool>())),
        run_twice in proptest::option::of(0u64..400),
        steps in proptest::collection::vec(step(), 1..60),
    ) {
        let mut config = TableConfig { seats: 6, ..with_fee(preset) };
        if preset == Preset::Hippodrome {
            config.run_twice = run_twice.map(Chips::new);
        }
        if let Some((basis_points, cap, no_flop_no_drop)) = rake {
            config.take = HouseTake::Rake(hand::Rake { basis_points, cap, no_flop_no_drop });
        }
        let mut table = Table::open(config);
        for seat in 0..3 {
            table.sit(seat, 100, false);
        }
        for (i, step) in steps.into_iter().enumerate() {
            let at = Seconds::try_from(i).unwrap() * 600;
            let command = match step {
                Step::Sit(seat, buy_in, post) => CashCommand::Sit {
                    seat,
                    player: player(seat),
                    buy_in: Chips::new(buy_in),
                    entry: Entry::BuyIn,
                    post,
                    at,
                },
                Step::TopUp(seat, amount) => CashCommand::TopUp { seat, amount: Chips::new(amount), at },
                Step::SitOut(seat) => CashCommand::SitOut { seat, at },
                Step::Return(seat, post) => CashCommand::Return { seat, post, at },
                Step::Leave(seat) => CashCommand::Leave { seat, at },
                Step::Fee => CashCommand::ChargeSessionFee { at },
                Step::Hand(straddle) => {
                    let seed = table.seed();
                    CashCommand::StartHand { at, seed: Some(seed), straddle }
                }
            };
            if table.run(command).is_ok() {
                table.play_out();
            }
        }
        prop_assert_eq!(replay(&table.events), table.state.clone());
        // Each pot's rake (with the first run's part), and the whole pot.
        let mut pots: Vec<(u64, u64)> = Vec::new();
        let taken: u64 = table.events.iter().map(|e| match e {
            CashEvent::SessionFeeCharged { paid, .. } => paid.iter().map(|f| f.amount.get()).sum(),
            CashEvent::SessionFeePaid { amount, .. } => amount.get(),
            CashEvent::HandEvent { event: Event::PotAwarded { rake, amount, run, .. } } => {
                match (run, pots.last_mut()) {
                    (1, Some(last)) => last.1 += amount,
                    _ => pots.push((*rake, *amount)),
                }
                *rake
            }
            _ => 0,
        }).sum();
        for (rake, amount) in pots {
            if let Some((basis_points, cap, _)) = rake_of(&table.state) {
                prop_assert!(rake <= cap && u128::from(rake) * 10_000 <= u128::from(amount) * u128::from(basis_points));
            } else {
                prop_assert_eq!(rake, 0);
            }
        }
        prop_assert_eq!(table.state.takings, Chips::new(taken));
        table.ok(CashCommand::Close { at: 1 << 40 });
        prop_assert_eq!(table.state.cashed, table.state.bought_in.checked_sub(table.state.takings).unwrap());
    }
}

/// Long random sessions in both houses: chips conserved after every event, and every part
/// of the cash rules reached (posted and missed blinds, straddles, fees, cash-outs).
#[test]
fn long_sessions_reach_every_rule_and_conserve_chips() {
    for (seed, preset) in [(1, Preset::Oracle), (2, Preset::Hippodrome)] {
        let config = TableConfig {
            seats: 6,
            take: if preset == Preset::Hippodrome {
                HouseTake::SessionFee {
                    amount: Chips::new(3),
                    period_minutes: 30,
                }
            } else {
                HouseTake::Rake(hand::Rake {
                    basis_points: 500,
                    cap: 6,
                    no_flop_no_drop: true,
                })
            },
            run_twice: (preset == Preset::Hippodrome).then_some(Chips::new(40)),
            ..config(preset)
        };
        let mut session = sim::Session::open(seed, config, 0).unwrap();
        let mut checked = 0;
        let dealt = session.play(1_000, 120).unwrap();
        assert_eq!(dealt, 1_000, "{preset:?}");
        let mut state = CashState::new();
        for event in &session.events {
            state.apply(event);
            state.check_invariants().unwrap();
            checked += 1;
        }
        assert_eq!(state, session.state);
        let count = |f: &dyn Fn(&CashEvent) -> bool| session.events.iter().filter(|e| f(e)).count();
        let missed = count(&|e| matches!(e, CashEvent::BlindMissed { .. }));
        let straddles = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::BlindPosted {
                        kind: BlindKind::Straddle,
                        ..
                    }
                }
            )
        });
        let dead = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::AntePosted { .. }
                }
            )
        });
        let posted = count(&|e| matches!(e, CashEvent::PlayerReturned { posts: true, .. }));
        let cashed = count(&|e| matches!(e, CashEvent::PlayerCashedOut { .. }));
        let fees = count(&|e| matches!(e, CashEvent::SessionFeeCharged { .. }));
        let listed = count(&|e| matches!(e, CashEvent::WaitingListJoined { .. }));
        let held = count(&|e| matches!(e, CashEvent::SeatReserved { .. }));
        let released = count(&|e| matches!(e, CashEvent::ReservationCancelled { .. }));
        let gave_up = count(&|e| matches!(e, CashEvent::WaitingListLeft { .. }));
        assert!(
            listed > 10 && held > 5 && released > 0 && gave_up > 0,
            "{preset:?}: {listed} listed, {held} seats held, {released} released, {gave_up} gave up"
        );
        assert!(
            missed > 20 && straddles > 20 && posted > 20 && cashed > 20,
            "{preset:?}: {missed} missed, {straddles} straddles, {posted} posted, {cashed} cashed out"
        );
        let raked = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::PotAwarded { rake: 1.., .. }
                }
            )
        });
        if preset == Preset::Oracle {
            assert!(dead > 5, "dead small blinds: {dead}");
            assert!(raked > 200, "raked pots: {raked}");
        } else {
            assert!(fees > 50, "fees: {fees}");
            let twice = count(&|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: Event::BoardRunAgain { .. }
                    }
                )
            });
            let asked = count(&|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: Event::RunTwiceChosen { .. }
                    }
                )
            });
            assert!(
                twice > 10 && asked > 2 * twice,
                "run twice: {twice} of {asked} answers"
            );
        }
        assert!(checked > 10_000);
    }
}

#[test]
fn a_table_seats_as_many_as_a_hand_deals() {
    assert_eq!(usize::from(MAX_TABLE_SEATS), hand::MAX_SEATS);
}

fn rake_of(state: &CashState) -> Option<(u16, u64, bool)> {
    match state.config.as_ref()?.take {
        HouseTake::Rake(r) => Some((r.basis_points, r.cap, r.no_flop_no_drop)),
        _ => None,
    }
}

fn raking(basis_points: u16, cap: u64) -> TableConfig {
    TableConfig {
        take: HouseTake::Rake(hand::Rake {
            basis_points,
            cap,
            no_flop_no_drop: true,
        }),
        ..config(Preset::Oracle)
    }
}

fn cards(text: &str) -> Vec<crate::card::Card> {
    crate::card::parse_cards(text).expect("cards")
}

fn hole(text: &str) -> [crate::card::Card; 2] {
    let c = cards(text);
    [c[0], c[1]]
}

impl Table {
    /// Plays a hand dealt from a physical deck: every player all-in at their turn, the
    /// board `board`, and each hand shown with the cards in `holes` (by seat).
    fn all_in_recorded(&mut self, holes: &[(Seat, &str)], board: &str) {
        self.ok(CashCommand::StartHand {
            at: 0,
            seed: None,
            straddle: None,
        });
        let board = cards(board);
        while self.state.in_hand() {
            let hand = self.state.hand.expect("a hand");
            let command = if let Some(legal) = hand.legal_actions() {
                Command::Act {
                    seat: legal.seat,
                    action: if legal.call.is_some() || legal.bet_or_raise.is_some() {
                        Action::AllIn
                    } else {
                        Action::Check
                    },
                }
            } else if let Some(seat) = hand.to_show() {
                let (_, text) = holes.iter().find(|(s, _)| *s == seat).expect("cards");
                Command::Show {
                    seat,
                    cards: Some(hole(text)),
                }
            } else if let Some(street) = hand.awaiting_board() {
                let dealt = hand.board().count();
                let count = if street == hand::Street::Flop { 3 } else { 1 };
                Command::DealBoard {
                    cards: board[dealt..dealt + count].to_vec(),
                }
            } else {
                panic!("the hand is stuck: {hand:?}");
            };
            self.ok(CashCommand::Hand(command));
        }
    }

    fn awards(&self) -> Vec<(u64, u64, u64)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                CashEvent::HandEvent {
                    event:
                        Event::PotAwarded {
                            amount,
                            shares,
                            rake,
                            ..
                        },
                } => Some((*amount, shares.iter().map(|s| s.amount).sum(), *rake)),
                _ => None,
            })
            .collect()
    }
}

/// Oracle, Betting 5: "the smallest chip used in the antes, blinds, rake or collection".
/// The rake is taken from the pot before it is awarded, rounded down to a chip and capped:
/// 10% of a 300 pot is 30, capped at 5; the winner is paid 295 and the house's takings are
/// 5, on the day the hand was dealt.
#[test]
fn the_rake_is_taken_from_the_pot_before_it_is_awarded_up_to_its_cap() {
    let mut table = Table::open(raking(1_000, 5));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.all_in_recorded(&[(0, "AsAh"), (1, "7c2d"), (2, "8c3d")], "KdQc9s4h5h");
    assert_eq!(table.awards(), vec![(300, 295, 5)]);
    assert_eq!(table.state.takings, Chips::new(5));
    assert_eq!(table.state.takings_by_day.get(&0), Some(&Chips::new(5)));
    assert_eq!(table.state.seats[&0].stack, Chips::new(295));
}

/// No flop, no drop: a hand won before the flop is not raked.
#[test]
fn a_hand_that_ends_before_the_flop_is_not_raked() {
    let mut table = Table::open(raking(1_000, 5));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    table.fold_round();
    let awards = table.awards();
    assert_eq!(awards.len(), 1);
    assert_eq!(awards[0].2, 0, "{awards:?}");
    assert_eq!(table.state.takings, Chips::ZERO);
}

/// A pot is raked once: a short all-in's main pot and the side pot above it, both won by
/// one player, are one pot of 440 (raked 10% up to the cap of 30: 30), not 120 and 320
/// raked apart (12 + 30). This is how PokerKit, the reference, builds the pots it rakes.
#[test]
fn pots_won_by_the_same_hand_are_raked_as_one() {
    let mut table = Table::open(raking(1_000, 30));
    table.sit(0, 40, false);
    table.sit(1, 200, false);
    table.sit(2, 200, false);
    table.all_in_recorded(&[(0, "7c2d"), (1, "AsAh"), (2, "8c3d")], "KdQc9s4h5h");
    assert_eq!(table.awards(), vec![(440, 410, 30)]);
    // Won by different hands they are two pots, each raked: the short stack wins the
    // main pot (120: 12), the big stack with the better of the other two the side (320:
    // capped at 30).
    let mut table = Table::open(raking(1_000, 30));
    table.sit(0, 40, false);
    table.sit(1, 200, false);
    table.sit(2, 200, false);
    table.all_in_recorded(&[(0, "AsAh"), (1, "KsKh"), (2, "8c3d")], "2d7c9s4h5h");
    let mut awards = table.awards();
    awards.sort();
    assert_eq!(awards, vec![(120, 108, 12), (320, 290, 30)]);
    assert_eq!(table.state.takings, Chips::new(42));
}

/// A rake of nothing, of more than the pot, or without a cap is refused when the table
/// opens.
#[test]
fn a_rake_is_a_share_of_the_pot_with_a_cap() {
    for (basis_points, cap) in [(0, 5), (10_001, 5), (500, 0)] {
        let result = decide(
            &CashState::new(),
            &CashCommand::Open {
                config: raking(basis_points, cap),
                at: 0,
            },
        );
        assert_eq!(
            result.map(|_| ()).map_err(|e| e.code()),
            Err("BAD_TABLE"),
            "{basis_points} {cap}"
        );
    }
}

impl Table {
    /// A hand from a physical deck: every player all-in at their turn, each asked to run it
    /// twice answering `agree(seat)`, the board cards dealt from `boards` in order (the
    /// second run's after the first's), and each hand shown with `holes`.
    fn all_in_twice(&mut self, holes: &[(Seat, &str)], boards: &str, agree: impl Fn(Seat) -> bool) {
        self.ok(CashCommand::StartHand {
            at: 0,
            seed: None,
            straddle: None,
        });
        let boards = cards(boards);
        let mut next = 0;
        while self.state.in_hand() {
            let hand = self.state.hand.expect("a hand");
            let command = if let Some(legal) = hand.legal_actions() {
                Command::Act {
                    seat: legal.seat,
                    action: if legal.call.is_some() || legal.bet_or_raise.is_some() {
                        Action::AllIn
                    } else {
                        Action::Check
                    },
                }
            } else if let Some(&seat) = hand.run_twice_pending().first() {
                Command::RunTwice {
                    seat,
                    agree: agree(seat),
                }
            } else if let Some(seat) = hand.to_show() {
                let (_, text) = holes.iter().find(|(s, _)| *s == seat).expect("cards");
                Command::Show {
                    seat,
                    cards: Some(hole(text)),
                }
            } else if let Some(street) = hand.awaiting_board() {
                let count = if street == hand::Street::Flop { 3 } else { 1 };
                next += count;
                Command::DealBoard {
                    cards: boards[next - count..next].to_vec(),
                }
            } else {
                panic!("the hand is stuck: {hand:?}");
            };
            self.ok(CashCommand::Hand(command));
        }
    }

    fn awarded_by_run(&self) -> Vec<(u8, Seat, u64)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                CashEvent::HandEvent {
                    event: Event::PotAwarded { run, shares, .. },
                } => Some(
                    shares
                        .iter()
                        .map(|s| (*run, s.seat, s.amount))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            })
            .flatten()
            .collect()
    }
}

fn running_twice(min_pot: u64) -> TableConfig {
    TableConfig {
        run_twice: Some(Chips::new(min_pot)),
        ..config(Preset::Hippodrome)
    }
}

/// Hippodrome, Showdown 8: "Running it twice ... MINIMUM £500 IN THE POT ... All players
/// involved in a pot should agree to run it twice to make the pot eligible." Three players
/// all-in before the flop for 300, above the table's minimum of 100, all agree: the board
/// is dealt twice, each run wins half the pot (150): the kings make a set on the first
/// board, the aces hold on the second.
#[test]
fn hippodrome_runs_it_twice_when_every_player_agrees() {
    let mut table = Table::open(running_twice(100));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.all_in_twice(
        &[(0, "AsAh"), (1, "KsKh"), (2, "7c2d")],
        "Kd9s4h2c3dQc8s5h6dJc",
        |_| true,
    );
    let hand = table.state.hand.expect("a hand");
    assert_eq!(hand.runs(), 2);
    assert_eq!(hand.first_run_board(), Some(cards("Kd9s4h2c3d")));
    assert_eq!(hand.board().collect::<Vec<_>>(), cards("Qc8s5h6dJc"));
    let first: Vec<Event> = table
        .events
        .iter()
        .filter_map(|e| match e {
            CashEvent::HandEvent {
                event: event @ Event::BoardRunAgain { .. },
            } => Some(event.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        first,
        vec![Event::BoardRunAgain {
            first: cards("Kd9s4h2c3d")
        }]
    );
    let mut awarded = table.awarded_by_run();
    awarded.sort();
    assert_eq!(awarded, vec![(0, 1, 150), (1, 0, 150)]);
    assert_eq!(table.state.seats[&0].stack, Chips::new(150));
    assert_eq!(table.state.seats[&1].stack, Chips::new(150));
}

/// One player who does not agree, and the board runs once: the aces win it all. A pot
/// below the table's minimum is not run twice, and nobody is asked.
#[test]
fn the_board_runs_once_unless_everyone_agrees_on_a_pot_at_the_minimum() {
    let mut table = Table::open(running_twice(100));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.all_in_twice(
        &[(0, "AsAh"), (1, "KsKh"), (2, "7c2d")],
        "Qc8s5h6dJc",
        |seat| seat != 2,
    );
    assert_eq!(table.state.hand.expect("a hand").runs(), 1);
    assert_eq!(table.awarded_by_run(), vec![(0, 0, 300)]);

    let mut table = Table::open(running_twice(301));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.all_in_twice(
        &[(0, "AsAh"), (1, "KsKh"), (2, "7c2d")],
        "Qc8s5h6dJc",
        |_| panic!("nobody is asked below the minimum"),
    );
    assert_eq!(table.awarded_by_run(), vec![(0, 0, 300)]);
    // Answering while nobody is asked is refused.
    let mut table = Table::open(running_twice(100));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.deal(None).unwrap();
    let seat = table
        .state
        .hand
        .expect("a hand")
        .to_act()
        .expect("a player to act");
    let error = table.refused(CashCommand::Hand(Command::RunTwice { seat, agree: true }));
    assert_eq!(error, CashError::Rule(hand::RuleError::RunTwiceNotOffered));
}

/// Only the Hippodrome's book offers to run it twice: an Oracle table that would is refused.
#[test]
fn only_the_hippodrome_runs_it_twice() {
    let result = decide(
        &CashState::new(),
        &CashCommand::Open {
            config: TableConfig {
                run_twice: Some(Chips::new(100)),
                ..config(Preset::Oracle)
            },
            at: 0,
        },
    );
    assert_eq!(result.map(|_| ()).map_err(|e| e.code()), Err("BAD_TABLE"));
}

/// The rake is taken from the middle: a player who raises on the flop and sees everyone
/// fold takes back the raise nobody called, and their own bet of 10 stays in front of them
/// (the dealer never pulls it in). The middle is the 6 of the blinds and calls before the
/// flop and the 10 each of the two who folded: 26, raked 10% (rounded down) to 2, not the
/// 3 of a pot of 36 that counts the winner's own bet. PokerKit collects the same chips.
#[test]
fn a_pot_won_when_everyone_folds_is_raked_on_the_chips_in_the_middle() {
    let mut table = Table::open(raking(1_000, 100));
    for seat in 0..3 {
        table.sit(seat, 100, false);
    }
    table.ok(CashCommand::StartHand {
        at: 0,
        seed: None,
        straddle: None,
    });
    let act = |table: &mut Table, action: Action| {
        let seat = table
            .state
            .hand
            .expect("a hand")
            .to_act()
            .expect("a seat to act");
        table.ok(CashCommand::Hand(Command::Act { seat, action }));
    };
    act(&mut table, Action::Call);
    act(&mut table, Action::Call);
    act(&mut table, Action::Check);
    table.ok(CashCommand::Hand(Command::DealBoard {
        cards: cards("Kd9s4h"),
    }));
    act(&mut table, Action::Bet(10));
    act(&mut table, Action::Call);
    act(&mut table, Action::RaiseTo(20));
    act(&mut table, Action::Fold);
    act(&mut table, Action::Fold);
    assert!(!table.state.in_hand());
    assert_eq!(table.awards(), vec![(36, 34, 2)]);
    assert_eq!(table.state.takings, Chips::new(2));
}
