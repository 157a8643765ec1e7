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

#[test]
fn a_table_seats_as_many_as_a_hand_deals() {
    assert_eq!(usize::from(MAX_TABLE_SEATS), hand::MAX_SEATS);
}

mod sessions;
mod take;
