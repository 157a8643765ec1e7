//! The prize pool: what was collected, what the house keeps, what is paid out.

use thiserror::Error;

use super::Cents;

/// What one purchase (an entry, a re-buy or an add-on) costs: `price` goes to the prize
/// pool, `fee` is the house's (unless the house rule says otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Price {
    /// Cents that go to the prize pool.
    pub price: Cents,
    /// Cents the house keeps, on top of the price.
    pub fee: Cents,
}

impl Price {
    /// A purchase of `price` to the pool plus `fee` to the house.
    #[must_use]
    pub const fn new(price: Cents, fee: Cents) -> Self {
        Self { price, fee }
    }
}

/// How the house takes its cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HouseCut {
    /// The house keeps each purchase's `fee`; every `price` goes to the pool (WPH, Oracle,
    /// Hippodrome, QueenSix venue tournaments: "fees collected at registration").
    Fees,
    /// Everything paid, price and fee alike, goes to the pool; the house keeps nothing
    /// (invitational 1.5: "All moneys paid will be placed into the pot").
    AllToPool,
    /// QueenSix sit-and-go (House Policies, tournament rule 5): on top of any per-purchase
    /// fee, the house takes one entry price from the pool when more than four players are
    /// seated, half an entry price (rounded down: an odd cent stays with the players) at
    /// four or fewer.
    QueenSixSitAndGo,
}

/// How a tournament's money is priced and cut; fixed when it is scheduled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PoolRules {
    /// One entry (and a re-entry).
    pub entry: Price,
    /// One re-buy, if re-buys are offered.
    pub rebuy: Option<Price>,
    /// One add-on, if add-ons are offered.
    pub add_on: Option<Price>,
    /// Who keeps what.
    pub house: HouseCut,
    /// The least the pool will be; the house pays any shortfall (the overlay).
    pub guarantee: Cents,
}

/// How many of each purchase were made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Purchases {
    /// Entries, re-entries included (the number of players seated, for a sit-and-go).
    pub entries: u64,
    /// Re-buys.
    pub rebuys: u64,
    /// Add-ons.
    pub add_ons: u64,
}

/// The money of a tournament, worked out. `collected == house + contributed` and
/// `total == contributed + overlay` always hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PrizePool {
    /// Everything the players paid, prices and fees.
    pub collected: Cents,
    /// What the house keeps out of `collected`.
    pub house: Cents,
    /// What the players' money puts in the pool: `collected - house`.
    pub contributed: Cents,
    /// What the house adds to reach the guarantee: `guarantee - contributed`, or 0.
    pub overlay: Cents,
    /// The prize pool paid out: `max(contributed, guarantee)`.
    pub total: Cents,
}

/// Why a prize pool cannot be worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PoolError {
    /// Re-buys were counted but the tournament offers none.
    #[error("{count} re-buys counted but this tournament offers no re-buys")]
    RebuysNotOffered {
        /// The re-buys counted.
        count: u64,
    },
    /// Add-ons were counted but the tournament offers none.
    #[error("{count} add-ons counted but this tournament offers no add-ons")]
    AddOnsNotOffered {
        /// The add-ons counted.
        count: u64,
    },
    /// The sums do not fit in 64 bits of cents.
    #[error("the prize pool overflows")]
    Overflow,
}

fn times(price: Price, count: u64) -> Result<(Cents, Cents), PoolError> {
    let to_pool = price.price.checked_mul(count).ok_or(PoolError::Overflow)?;
    let fees = price.fee.checked_mul(count).ok_or(PoolError::Overflow)?;
    Ok((to_pool, fees))
}

impl PoolRules {
    /// Works out the prize pool for the given purchases.
    ///
    /// # Errors
    ///
    /// [`PoolError::RebuysNotOffered`] / [`PoolError::AddOnsNotOffered`] when purchases
    /// were counted that the tournament does not offer, [`PoolError::Overflow`] when the
    /// money does not fit in a `u64` of cents.
    pub fn prize_pool(&self, bought: Purchases) -> Result<PrizePool, PoolError> {
        let none = Price::default();
        let rebuy = match self.rebuy {
            Some(p) => p,
            None if bought.rebuys == 0 => none,
            None => {
                return Err(PoolError::RebuysNotOffered {
                    count: bought.rebuys,
                });
            }
        };
        let add_on = match self.add_on {
            Some(p) => p,
            None if bought.add_ons == 0 => none,
            None => {
                return Err(PoolError::AddOnsNotOffered {
                    count: bought.add_ons,
                });
            }
        };
        let mut prices: Cents = Cents::ZERO;
        let mut fees: Cents = Cents::ZERO;
        for (price, count) in [
            (self.entry, bought.entries),
            (rebuy, bought.rebuys),
            (add_on, bought.add_ons),
        ] {
            let (p, f) = times(price, count)?;
            prices = prices.checked_add(p).ok_or(PoolError::Overflow)?;
            fees = fees.checked_add(f).ok_or(PoolError::Overflow)?;
        }
        let collected = prices.checked_add(fees).ok_or(PoolError::Overflow)?;
        let house = match self.house {
            HouseCut::Fees => fees,
            HouseCut::AllToPool => Cents::ZERO,
            HouseCut::QueenSixSitAndGo => {
                let seat = match bought.entries {
                    0 => Cents::ZERO,
                    1..=4 => self.entry.price / 2,
                    _ => self.entry.price,
                };
                // Never more than the pool holds (one player alone pays one seat).
                fees.checked_add(seat.min(prices))
                    .ok_or(PoolError::Overflow)?
            }
        };
        // `house <= collected` by construction: fees plus at most `prices`, or nothing.
        let contributed = collected.saturating_sub(house);
        let overlay = self.guarantee.saturating_sub(contributed);
        Ok(PrizePool {
            collected,
            house,
            contributed,
            overlay,
            total: contributed.max(self.guarantee),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(price: u64, fee: u64) -> Price {
        Price::new(Cents::new(price), Cents::new(fee))
    }
    use proptest::prelude::*;

    fn rules(entry: Price, house: HouseCut) -> PoolRules {
        PoolRules {
            entry,
            rebuy: None,
            add_on: None,
            house,
            guarantee: Cents::ZERO,
        }
    }

    fn entries(n: u64) -> Purchases {
        Purchases {
            entries: n,
            ..Purchases::default()
        }
    }

    #[test]
    fn a_venue_tournament_keeps_the_fees_and_pools_the_prices() {
        let r = PoolRules {
            entry: price(5_000, 500),
            rebuy: Some(price(5_000, 0)),
            add_on: Some(price(2_000, 200)),
            house: HouseCut::Fees,
            guarantee: Cents::ZERO,
        };
        let pool = r
            .prize_pool(Purchases {
                entries: 20,
                rebuys: 7,
                add_ons: 15,
            })
            .unwrap();
        assert_eq!(pool.total, Cents::new(20 * 5_000 + 7 * 5_000 + 15 * 2_000));
        assert_eq!(pool.house, Cents::new(20 * 500 + 15 * 200));
        assert_eq!(pool.collected, pool.house + pool.contributed);
        assert_eq!(pool.overlay, Cents::ZERO);
    }

    /// QueenSix, House Policies, tournament rule 5: "QueenSix will take the equivalent of one
    /// entry fee from the prize pool as reimbursement for equipment hire and use if more
    /// than 4 players are seated. If four or less players are playing, QueenSix will take
    /// the equivalent of half a seat in fees." (RULEBOOKS.md: "sit-and-go: the house keeps
    /// one entry fee above 4 players, half a fee at 4 or fewer".)
    #[test]
    fn a_queensix_sit_and_go_keeps_one_seat_above_four_players_and_half_a_seat_at_four() {
        let r = rules(price(2_000, 0), HouseCut::QueenSixSitAndGo);

        let five = r.prize_pool(entries(5)).unwrap();
        assert_eq!(five.house, Cents::new(2_000));
        assert_eq!(five.total, Cents::new(4 * 2_000));

        let four = r.prize_pool(entries(4)).unwrap();
        assert_eq!(four.house, Cents::new(1_000));
        assert_eq!(four.total, Cents::new(4 * 2_000 - 1_000));

        let nine = r.prize_pool(entries(9)).unwrap();
        assert_eq!(nine.house, Cents::new(2_000));
        assert_eq!(nine.total, Cents::new(8 * 2_000));
    }

    #[test]
    fn half_a_seat_of_an_odd_price_leaves_the_odd_cent_in_the_pool() {
        let r = rules(price(1_001, 0), HouseCut::QueenSixSitAndGo);
        let pool = r.prize_pool(entries(3)).unwrap();
        assert_eq!(pool.house, Cents::new(500));
        assert_eq!(pool.total, Cents::new(3 * 1_001 - 500));
    }

    /// Invitational 1.5: "All moneys paid will be placed into the pot, and distributed over
    /// the winning players." Invitational 1.2: "$15 in cash will buy 2000 tournament chips."
    #[test]
    fn the_invitational_puts_all_money_in_the_pool() {
        let r = PoolRules {
            rebuy: Some(price(1_500, 0)),
            ..rules(price(1_500, 0), HouseCut::AllToPool)
        };
        let pool = r
            .prize_pool(Purchases {
                entries: 12,
                rebuys: 3,
                add_ons: 0,
            })
            .unwrap();
        assert_eq!(pool.total, Cents::new(15 * 1_500));
        assert_eq!(pool.house, Cents::ZERO);
        // Even a fee, if one were charged, would go to the pot.
        let with_fee = rules(price(1_500, 100), HouseCut::AllToPool)
            .prize_pool(entries(10))
            .unwrap();
        assert_eq!(with_fee.total, Cents::new(10 * 1_600));
    }

    #[test]
    fn a_guarantee_is_met_by_an_overlay_from_the_house() {
        let r = PoolRules {
            guarantee: Cents::new(100_000),
            ..rules(price(5_000, 500), HouseCut::Fees)
        };
        let short = r.prize_pool(entries(12)).unwrap();
        assert_eq!(short.contributed, Cents::new(60_000));
        assert_eq!(short.overlay, Cents::new(40_000));
        assert_eq!(short.total, Cents::new(100_000));

        let over = r.prize_pool(entries(30)).unwrap();
        assert_eq!(over.overlay, Cents::ZERO);
        assert_eq!(over.total, Cents::new(150_000));
    }

    #[test]
    fn purchases_the_tournament_does_not_offer_are_refused() {
        let r = rules(price(5_000, 500), HouseCut::Fees);
        let bought = Purchases {
            entries: 10,
            rebuys: 2,
            add_ons: 0,
        };
        assert_eq!(
            r.prize_pool(bought),
            Err(PoolError::RebuysNotOffered { count: 2 })
        );
        let bought = Purchases {
            entries: 10,
            rebuys: 0,
            add_ons: 1,
        };
        assert_eq!(
            r.prize_pool(bought),
            Err(PoolError::AddOnsNotOffered { count: 1 })
        );
    }

    #[test]
    fn a_pool_that_does_not_fit_in_u64_is_an_overflow() {
        let r = rules(price(u64::MAX / 2, 0), HouseCut::Fees);
        assert_eq!(r.prize_pool(entries(3)), Err(PoolError::Overflow));
    }

    fn any_cut() -> impl Strategy<Value = HouseCut> {
        prop_oneof![
            Just(HouseCut::Fees),
            Just(HouseCut::AllToPool),
            Just(HouseCut::QueenSixSitAndGo),
        ]
    }

    proptest! {
        #[test]
        fn money_is_accounted_for(
            amount in 0u64..1_000_000, fee in 0u64..100_000,
            entries in 0u64..500, rebuys in 0u64..500, add_ons in 0u64..500,
            guarantee in 0u64..100_000_000, house in any_cut(),
        ) {
            let r = PoolRules {
                entry: price(amount, fee),
                rebuy: Some(price(amount, fee)),
                add_on: Some(price(amount / 2, fee)),
                house,
                guarantee: Cents::new(guarantee),
            };
            let p = r.prize_pool(Purchases { entries, rebuys, add_ons }).unwrap();
            prop_assert_eq!(p.collected, p.house + p.contributed);
            prop_assert_eq!(p.total, p.contributed + p.overlay);
            prop_assert!(p.total >= Cents::new(guarantee));
        }
    }
}
