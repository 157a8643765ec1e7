//! Tournament money: the prize pool, payouts by place, ties, and deals at the final table.
//!
//! Pure functions over integers: money is `u64` cents ([`Cents`]), chips are `u64`
//! ([`Chips`]); there are no floats, ICM included. Every division says where its
//! remainder goes, so whatever is divided is paid out to the cent.
//!
//! # Layout
//!
//! - [`pool`]: [`PoolRules`] (entry, re-buy and add-on prices with their fees, the house's
//!   cut, a guarantee) and the [`PrizePool`] they give for some [`Purchases`].
//! - [`payouts`]: [`PayoutStructure`] (basis points by place), [`PayoutTable`] (which
//!   structure for which field size, with a default), amounts by place, and [`split_tie`].
//! - [`deal`]: [`chip_chop`] and [`icm`] for a deal at the final table.
//!
//! # Rules
//!
//! - **Prize pool.** Each purchase has a `price` (to the pool) and a `fee` (the house's).
//!   The house cut is one of: the fees ([`HouseCut::Fees`], the venue tournaments); nothing,
//!   all money to the pool ([`HouseCut::AllToPool`], invitational 1.5: "All moneys paid
//!   will be placed into the pot"); or the QueenSix sit-and-go rule
//!   ([`HouseCut::QueenSixSitAndGo`], QueenSix House Policies, tournament rule 5: one
//!   entry price from the pool when more than four players are seated, half of one at
//!   four or fewer, rounded down). The pool is `max(collected - house, guarantee)`; the
//!   difference is the overlay, which the house pays.
//! - **Payouts.** A structure is basis points by place, summing to 10,000, each place
//!   paid and none more than the place above; the default [`PayoutTable`] pays the winner
//!   alone up to four players, two places at five or six, three at seven to ten, and
//!   about a quarter to a fifth of larger fields. A place's amount is
//!   `floor(pool * bp / 10_000)`; the left-over cents, fewer than the places, go one each
//!   to the highest places.
//! - **Ties.** Players who share places (busted in the same hand-for-hand hand) split the
//!   sum of those places' prizes equally; the odd cents go one each to the higher
//!   finishers in the house's tiebreak order ([`split_tie`] for one group, [`pay_finish`]
//!   for a whole finishing order).
//! - **Deals.** A chip chop guarantees every remaining player the last remaining place's
//!   prize and splits the rest in proportion to chips, odd cents to the biggest stacks.
//!   ICM is Malmuth-Harville computed with exact big-integer fractions for up to nine
//!   players; each player gets the floor of their equity, and the odd cents go to the
//!   largest fractional parts (then the bigger stack, then the lower index).

pub mod balance;
pub mod colour_up;
pub mod deal;
pub mod draw;
pub mod payouts;
pub mod play;
pub mod pool;
pub mod sim;

pub use balance::{BalanceRule, Balancing, Move, balance};
pub use colour_up::{ColourUp, ColourUpError, ColourUpPolicy, Coloured, Holding, colour_up};
pub use deal::{DealError, DealKind, ICM_MAX_PLAYERS, chip_chop, deal, icm};
pub use draw::{
    ButtonDraw, DrawError, SeatAssignment, draw_button, draw_seats, mix_entropy, pool_entropy,
};
pub use payouts::{FULL_POOL_BP, PayoutError, PayoutStructure, PayoutTable, split_tie};
pub use pool::{HouseCut, PoolError, PoolRules, Price, PrizePool, Purchases};

pub use crate::units::{Cents, Chips};
