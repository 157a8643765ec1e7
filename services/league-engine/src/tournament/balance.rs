//! Balancing tables: when a table must give up a player, who moves, and to which seat.
//!
//! Every house moves the player due the big blind next, so nobody dodges a blind. They
//! differ on when tables are out of balance and where the player sits:
//!
//! - QueenSix 15: "With more than six tables, table size will be kept within two players.
//!   With six tables or less, table size will be kept within one player." QueenSix 13: the
//!   player "will be given the earliest seat due for the big blind if more than one seat is
//!   open."
//! - WPH 7 and Oracle: the player goes "to the worst position, including taking a single
//!   big blind when available [...] Worst position is never the small blind." WPH 7 also:
//!   "Play will halt on any table that is three or more players short." Neither states a
//!   threshold; tables are kept within one player (the engine default).
//! - Invitational 2.1: tables are out of balance when they "have a difference of at least 2
//!   players, and have less than 5 players or more than 8 players"; the moved player
//!   "should sit in the same position as the old table", typically the big blind.
//!
//! The decision is a [`Move`] naming the rule and the reason, so a dispute can be settled
//! from the log.

use serde::{Deserialize, Serialize};

use crate::button::Positions;
use crate::hand::Seat;

/// How a house balances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum BalanceRule {
    /// QueenSix 13 and 15.
    QueenSix,
    /// WPH 7 and Oracle: the big blind to the worst position, never the small blind.
    WorstPosition,
    /// Invitational 2.1.
    Invitational,
}

/// One table as balancing sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Table {
    pub number: u32,
    /// Every seat of the table, in seat order.
    pub seats: Vec<Seat>,
    /// The seats with players.
    pub occupied: Vec<Seat>,
    /// Seats held by an unsold seat's stack: not a player to balance, not a seat to move
    /// one into.
    #[serde(default)]
    pub held: Vec<Seat>,
    /// The positions of the table's next hand.
    pub next: Positions,
}

impl Table {
    fn players(&self) -> usize {
        self.occupied.len()
    }

    fn empty_seats(&self) -> impl Iterator<Item = Seat> + '_ {
        self.seats
            .iter()
            .copied()
            .filter(|s| !self.occupied.contains(s) && !self.held.contains(s))
    }

    /// Seats clockwise starting at `from` (included).
    fn clockwise_from(&self, from: Seat) -> Vec<Seat> {
        let mut seats = self.seats.clone();
        let split = seats.iter().position(|&s| s >= from).unwrap_or(0);
        seats.rotate_left(split);
        seats
    }
}

/// A player moved to balance the tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Move {
    pub from_table: u32,
    pub from_seat: Seat,
    pub to_table: u32,
    pub to_seat: Seat,
    /// The house rule applied, e.g. "QueenSix 13, 15".
    pub rule: String,
    /// Why, in words an auditor can check: the table sizes and the seat chosen.
    pub reason: String,
}

/// What balancing asks for now.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Balancing {
    /// The next move, if the tables are out of balance.
    pub next_move: Option<Move>,
    /// Tables where play halts until players arrive (WPH 7: three or more short).
    pub halted: Vec<u32>,
}

/// Decides the next balancing move (one at a time: after it, sizes change).
pub fn balance(rule: BalanceRule, tables: &[Table]) -> Balancing {
    let halted = match rule {
        BalanceRule::WorstPosition => {
            let largest = tables.iter().map(Table::players).max().unwrap_or(0);
            tables
                .iter()
                .filter(|t| largest.saturating_sub(t.players()) >= 3)
                .map(|t| t.number)
                .collect()
        }
        _ => Vec::new(),
    };
    // The largest table gives (ties: the lowest number), the smallest with a seat takes.
    let Some(from) = tables
        .iter()
        .min_by_key(|t| (std::cmp::Reverse(t.players()), t.number))
    else {
        return Balancing {
            next_move: None,
            halted,
        };
    };
    let Some(to) = tables
        .iter()
        .filter(|t| t.empty_seats().next().is_some())
        .min_by_key(|t| (t.players(), t.number))
    else {
        return Balancing {
            next_move: None,
            halted,
        };
    };
    let gap = from.players().saturating_sub(to.players());
    let out_of_balance = match rule {
        BalanceRule::QueenSix if tables.len() > 6 => gap > 2,
        BalanceRule::QueenSix | BalanceRule::WorstPosition => gap > 1,
        BalanceRule::Invitational => {
            gap >= 2 && tables.iter().any(|t| t.players() < 5 || t.players() > 8)
        }
    };
    if !out_of_balance || from.number == to.number {
        return Balancing {
            next_move: None,
            halted,
        };
    }
    // Every house moves the player due the big blind next (an unsold seat's stack is
    // not a player: the player due it after).
    let from_seat = from
        .clockwise_from(from.next.big_blind)
        .into_iter()
        .find(|s| from.occupied.contains(s))
        .unwrap_or(from.next.big_blind);
    let (to_seat, rule_name, how) = match rule {
        BalanceRule::QueenSix => {
            let seat = earliest_due_big_blind(to, false);
            (
                seat,
                "QueenSix 13, 15",
                "the earliest seat due the big blind",
            )
        }
        BalanceRule::WorstPosition => {
            let seat = earliest_due_big_blind(to, true);
            (
                seat,
                "WPH 7 / Oracle balancing",
                "the worst position, never the small blind",
            )
        }
        BalanceRule::Invitational => {
            // The same position as at the old table: the big blind's seat if it is free,
            // else the next seat due the big blind.
            let seat = if to.empty_seats().any(|s| s == to.next.big_blind) {
                to.next.big_blind
            } else {
                earliest_due_big_blind(to, false)
            };
            (
                seat,
                "invitational 2.1",
                "the big blind position at the new table",
            )
        }
    };
    Balancing {
        next_move: Some(Move {
            from_table: from.number,
            from_seat,
            to_table: to.number,
            to_seat,
            rule: rule_name.to_owned(),
            reason: format!(
                "table {} has {} players and table {} has {}: the player due the big blind \
                 at table {} moves to {} (seat {})",
                from.number,
                from.players(),
                to.number,
                to.players(),
                from.number,
                how,
                to_seat
            ),
        }),
        halted,
    }
}

/// The empty seat the big blind reaches first, going clockwise from the next big blind;
/// with `never_small_blind`, the next hand's small blind seat is skipped when another is
/// open.
fn earliest_due_big_blind(table: &Table, never_small_blind: bool) -> Seat {
    let empty: Vec<Seat> = table
        .clockwise_from(table.next.big_blind)
        .into_iter()
        .filter(|s| !table.occupied.contains(s) && !table.held.contains(s))
        .collect();
    let preferred = empty
        .iter()
        .copied()
        .find(|&s| !never_small_blind || s != table.next.small_blind);
    preferred
        .or_else(|| empty.first().copied())
        .unwrap_or(table.next.big_blind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(number: u32, occupied: &[Seat], next: (Seat, Seat, Seat)) -> Table {
        Table {
            number,
            seats: (1..=9).collect(),
            occupied: occupied.to_vec(),
            held: Vec::new(),
            next: Positions {
                button: next.0,
                small_blind: next.1,
                big_blind: next.2,
            },
        }
    }

    #[test]
    fn queensix_15_within_one_player_at_six_tables_or_fewer() {
        // QueenSix 15: "With six tables or less, table size will be kept within one player."
        let tables = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8, 9], (1, 2, 3)),
            table(2, &[1, 2, 3, 4, 5, 6, 7], (4, 5, 6)),
        ];
        let decision = balance(BalanceRule::QueenSix, &tables);
        let m = decision
            .next_move
            .expect("nine against seven is out of balance");
        // QueenSix 13: "the player due for the big blind will be automatically selected to
        // move, and will be given the earliest seat due for the big blind".
        assert_eq!((m.from_table, m.from_seat, m.to_table), (1, 3, 2));
        assert_eq!(
            m.to_seat, 8,
            "empty seats 8 and 9: the big blind (6) reaches 8 first"
        );
        assert!(m.rule.contains("QueenSix 13"));
        let even = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8], (1, 2, 3)),
            table(2, &[1, 2, 3, 4, 5, 6, 7], (4, 5, 6)),
        ];
        assert_eq!(balance(BalanceRule::QueenSix, &even).next_move, None);
    }

    #[test]
    fn queensix_15_within_two_players_above_six_tables() {
        let mut tables: Vec<Table> = (1..=7)
            .map(|n| table(n, &[1, 2, 3, 4, 5, 6, 7, 8], (1, 2, 3)))
            .collect();
        tables[6].occupied = vec![1, 2, 3, 4, 5, 6];
        assert_eq!(
            balance(BalanceRule::QueenSix, &tables).next_move,
            None,
            "two apart is fine"
        );
        tables[6].occupied = vec![1, 2, 3, 4, 5];
        assert!(balance(BalanceRule::QueenSix, &tables).next_move.is_some());
    }

    #[test]
    fn wph_7_worst_position_never_the_small_blind_and_halt_three_short() {
        // WPH 7: "the player who will be big blind next will be moved to the worst position
        // [...] Worst position is never the small blind. [...] Play will halt on any table
        // that is three or more players short."
        // Table 2: seats 4, 5 and 9 are empty; the next hand's small blind is dead (seat
        // 4) and seat 6 posts the big blind. Going on from the big blind, seat 9 is the
        // next to post it: the worst position.
        let tables = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8, 9], (1, 2, 3)),
            table(2, &[1, 2, 3, 6, 7, 8], (3, 4, 6)),
        ];
        let decision = balance(BalanceRule::WorstPosition, &tables);
        assert_eq!(
            decision.halted,
            vec![2],
            "six players against nine: three short"
        );
        let m = decision.next_move.unwrap();
        assert_eq!((m.from_table, m.from_seat, m.to_seat), (1, 3, 9));
        // Nine against eight is within one: no move.
        let only_small_blind = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8, 9], (1, 2, 3)),
            table(2, &[1, 2, 3, 5, 6, 7, 8, 9], (3, 4, 5)),
        ];
        assert_eq!(
            balance(BalanceRule::WorstPosition, &only_small_blind).next_move,
            None
        );
        let tables = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8, 9], (1, 2, 3)),
            table(2, &[1, 2, 5, 6, 7, 8, 9], (3, 4, 5)),
        ];
        let m = balance(BalanceRule::WorstPosition, &tables)
            .next_move
            .unwrap();
        assert_eq!(m.to_seat, 3, "seats 3 and 4 are open; 4 is the small blind");
    }

    #[test]
    fn invitational_2_1_two_apart_and_a_table_below_five_or_above_eight() {
        // Invitational 2.1: "Tables need to have a difference of at least 2 players, and
        // have less than 5 players or more than 8 players to become imbalanced."
        let six_and_eight = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8], (1, 2, 3)),
            table(2, &[1, 2, 3, 4, 5, 6], (1, 2, 3)),
        ];
        assert_eq!(
            balance(BalanceRule::Invitational, &six_and_eight).next_move,
            None
        );
        let nine_and_seven = [
            table(1, &[1, 2, 3, 4, 5, 6, 7, 8, 9], (1, 2, 3)),
            table(2, &[1, 2, 4, 5, 6, 7, 8], (1, 2, 3)),
        ];
        let m = balance(BalanceRule::Invitational, &nine_and_seven)
            .next_move
            .unwrap();
        assert_eq!(m.to_seat, 3, "the big blind seat at the new table is free");
    }
}
