//! A cash table as the caller may see it.

use async_graphql::{Enum, ID, Object, SimpleObject};
use league_engine::cash::{HouseTake, StraddlePolicy};
use league_engine::hand::Seat;
use league_projections::views::CashTableView;

use crate::schema::scalars::{Chips, Millis};
use crate::schema::tournaments::inputs::PresetName;
use crate::schema::tournaments::types::TableOut;

/// Who may straddle at a cash table.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum CashStraddle {
    /// No straddles.
    None,
    /// One live straddle of twice the big blind, by the player left of the big blind, three
    /// or more players (Oracle, Blinds 12).
    UnderTheGun,
    /// A straddle of twice the big blind by the button, three- or four-handed (Hippodrome,
    /// Procedures 9).
    Button,
}

impl From<StraddlePolicy> for CashStraddle {
    fn from(p: StraddlePolicy) -> CashStraddle {
        match p {
            StraddlePolicy::None => CashStraddle::None,
            StraddlePolicy::UnderTheGun => CashStraddle::UnderTheGun,
            StraddlePolicy::Button => CashStraddle::Button,
        }
    }
}

/// A session fee: `amount` from every seated player each `periodMinutes`.
#[derive(SimpleObject, Clone, Debug)]
pub struct SessionFeeOut {
    /// Chips from each seated player per period.
    pub amount: Chips,
    /// The period, in minutes.
    pub period_minutes: u32,
}

/// The rake a table takes from each pot.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "CashRake")]
pub struct RakeOut {
    /// Hundredths of a percent of each pot (500 is 5%), rounded down to a chip.
    pub basis_points: u16,
    /// The most taken from one pot.
    pub cap: Chips,
    /// No flop, no drop: a hand that ends before the flop is not raked.
    pub no_flop_no_drop: bool,
}

/// A player at a cash table.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "CashSeat")]
pub struct CashSeatOut {
    /// The seat's number, from 0.
    pub seat: Seat,
    /// The player's id.
    pub player: ID,
    /// Chips now (during a hand, what is left after this hand's bets).
    pub chips: Chips,
    /// Away from the table: not dealt in.
    pub sitting_out: bool,
    /// Dealt in only when the big blind reaches the seat.
    pub waiting_for_big_blind: bool,
    /// Posts a big blind, or the blinds owed, to be dealt in next hand.
    pub posting: bool,
    /// The small blind passed the seat while the player sat out.
    pub owes_small_blind: bool,
    /// The big blind passed the seat while the player sat out.
    pub owes_big_blind: bool,
    /// Session fees charged while away, paid on return.
    pub fees_due: Chips,
}

/// A seat held for a player.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "CashReservation")]
pub struct ReservationOut {
    /// The seat held, from 0.
    pub seat: Seat,
    /// For whom.
    pub player: ID,
    /// Until when the seat is held.
    pub until: Millis,
}

/// A cash table as the caller may see it.
pub struct CashTableOut {
    pub id: String,
    pub view: CashTableView,
    /// The table stream's version the view reflects.
    pub version: u64,
    /// The caller runs the venue (or audits it): the house's takings are shown.
    pub staff: bool,
}

/// A cash table (ring game): its stakes and limits, who sits where with how many chips,
/// who is sitting out, what they owe, the waiting list, and the hand being played in a
/// tournament table's shape (`table`: whose turn it is and what they may do).
#[Object(name = "CashTable")]
impl CashTableOut {
    /// The table's id: its stream is `cash:<id>`.
    async fn id(&self) -> ID {
        ID(self.id.clone())
    }
    /// The table stream's version this view reflects.
    async fn version(&self) -> u64 {
        self.version
    }
    /// The venue whose host runs the table.
    async fn venue(&self) -> ID {
        ID(self.view.config.venue.to_string())
    }
    /// What the venue calls it.
    async fn name(&self) -> &str {
        &self.view.config.name
    }
    /// The house whose cash rules the table plays by.
    async fn house(&self) -> PresetName {
        self.view.config.rules.preset.into()
    }
    /// The small blind, in chips.
    async fn small_blind(&self) -> Chips {
        Chips(self.view.config.small_blind)
    }
    /// The big blind, in chips: the smallest bet.
    async fn big_blind(&self) -> Chips {
        Chips(self.view.config.big_blind)
    }
    /// The smallest buy-in (a player moved from a broken or must-move game may bring less).
    async fn min_buy_in(&self) -> Chips {
        Chips(self.view.config.min_buy_in)
    }
    /// The most a stack may hold after a buy-in or a top-up.
    async fn max_buy_in(&self) -> Chips {
        Chips(self.view.config.max_buy_in)
    }
    /// Seats at the table, numbered from 0.
    async fn seat_count(&self) -> u8 {
        self.view.config.seats
    }
    /// Who may straddle.
    async fn straddle(&self) -> CashStraddle {
        self.view.config.straddle.into()
    }
    /// The session fee the table charges, if it charges one.
    async fn session_fee(&self) -> Option<SessionFeeOut> {
        match self.view.config.take {
            HouseTake::SessionFee {
                amount,
                period_minutes,
            } => Some(SessionFeeOut {
                amount: Chips(amount),
                period_minutes,
            }),
            HouseTake::None | HouseTake::Rake(_) => None,
        }
    }
    /// The rake the table takes from each pot, if it rakes.
    async fn rake(&self) -> Option<RakeOut> {
        match self.view.config.take {
            HouseTake::Rake(rake) => Some(RakeOut {
                basis_points: rake.basis_points,
                cap: Chips(league_engine::units::Chips::new(rake.cap)),
                no_flop_no_drop: rake.no_flop_no_drop,
            }),
            HouseTake::None | HouseTake::SessionFee { .. } => None,
        }
    }
    /// When the last session fee was charged.
    async fn last_fee_at(&self) -> Option<Millis> {
        self.view
            .last_fee_at
            .map(|s| Millis(i64::try_from(s.saturating_mul(1000)).unwrap_or(i64::MAX)))
    }
    /// Closed: every player cashed out.
    async fn closed(&self) -> bool {
        self.view.closed
    }
    /// The players seated, by seat.
    async fn seats(&self) -> Vec<CashSeatOut> {
        self.view
            .seats
            .iter()
            .map(|s| CashSeatOut {
                seat: s.seat,
                player: ID(s.player.to_string()),
                chips: Chips(s.chips),
                sitting_out: s.sitting_out,
                waiting_for_big_blind: s.waiting_for_big_blind,
                posting: s.posting,
                owes_small_blind: s.owes_small_blind,
                owes_big_blind: s.owes_big_blind,
                fees_due: Chips(s.fees_due),
            })
            .collect()
    }
    /// Seats free now.
    async fn seats_free(&self) -> u8 {
        let taken = u8::try_from(self.view.seats.len()).unwrap_or(u8::MAX);
        self.view.config.seats.saturating_sub(taken)
    }
    /// The players waiting for a seat, first first.
    async fn waiting_list(&self) -> Vec<ID> {
        self.view
            .waiting_list
            .iter()
            .map(|p| ID(p.to_string()))
            .collect()
    }
    /// Seats held for a player.
    async fn reservations(&self) -> Vec<ReservationOut> {
        self.view
            .reservations
            .iter()
            .map(|(seat, player, until)| ReservationOut {
                seat: *seat,
                player: ID(player.to_string()),
                until: Millis(i64::try_from(until.saturating_mul(1000)).unwrap_or(i64::MAX)),
            })
            .collect()
    }
    /// Everything the house has taken at this table (session fees): shown to the venue's
    /// staff and to auditors, null for anyone else.
    async fn takings(&self) -> Option<Chips> {
        self.staff.then_some(Chips(self.view.takings))
    }
    /// The smallest pot the players may run twice (Hippodrome); `null`: the board runs once.
    async fn run_it_twice_from(&self) -> Option<Chips> {
        self.view.config.run_twice.map(Chips)
    }
    /// The seats still to answer whether to run the board twice (`cashRunItTwice`): asked
    /// once the betting is over with cards to come and the pot at least
    /// `runItTwiceFrom`. The board is dealt when all have answered.
    async fn run_it_twice_asked(&self) -> &[Seat] {
        &self.view.run_twice_asked
    }
    /// How many times the current (or last) hand's board runs: 2 when every player
    /// agreed, 1 once one refused; `null` while no answer is due or awaited.
    async fn runs(&self) -> Option<u8> {
        (self.view.runs > 0).then_some(self.view.runs)
    }
    /// The first run's board, once the board has been dealt again for the second run
    /// (`table.board` is then the second run's).
    async fn first_run_board(&self) -> Option<Vec<String>> {
        self.view
            .first_run_board
            .as_ref()
            .map(|cards| cards.iter().map(ToString::to_string).collect())
    }
    /// The hand being played (or the last one), as a tournament's table shows it: seats,
    /// chips, bets, board, pots, whose turn it is and what they may do. Cards as the caller
    /// may see them.
    async fn table(&self) -> TableOut {
        TableOut::new(&self.id, self.view.hand.clone(), self.version)
    }
}

/// What the house took at one cash table on one day.
#[derive(SimpleObject, Clone, Debug)]
pub struct CashTakingsDay {
    /// The cash table's id.
    pub table: ID,
    /// The table's name.
    pub name: String,
    /// The day, `YYYY-MM-DD` (UTC).
    pub day: String,
    /// Chips the house took that day (session fees).
    pub amount: Chips,
}
