//! The house's take and running it twice: the rake from each pot (Oracle, Betting 5) and
//! the Hippodrome's two boards (Showdown 8).

use super::*;

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
