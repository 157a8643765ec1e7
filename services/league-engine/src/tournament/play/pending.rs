//! What the host must do, or what waits on a hand in progress, before play goes on: read
//! from the state, so a venue app shows it rather than meeting it as an error.

use super::*;

/// One thing pending at a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Pending {
    /// The host must run a redraw onto `tables` tables (`seats`: seats are drawn, else
    /// only buttons); no hand starts, and in results tracking nobody is eliminated, until
    /// it is done (`RedrawDue`).
    Redraw { tables: u32, seats: bool },
    /// The host must colour up: `low` chips leave play for `high` ones; no hand starts,
    /// and nobody is eliminated, until it is done (`ColourUpDue`).
    ColourUp { low: Chips, high: Chips },
    /// Busted players who may re-buy must re-buy or decline before their table deals
    /// again (`RebuyDecisionPending`).
    RebuyDecisions { players: Vec<PlayerId> },
    /// Hand-for-hand: tables still to play this round's hand; the others wait.
    HandForHand { waiting: Vec<u32> },
    /// Tables where play halts until players are moved to them (WPH 7).
    Halted { tables: Vec<u32> },
    /// A table breaks once its hand in progress is over (the engine moves its players).
    TableToBreak { table: u32 },
    /// A player moves to balance the tables once the hand at `from_table` is over.
    Move(Move),
    /// Every window that adds to the prize pool has closed (late entries, re-entries,
    /// re-buys, add-ons), so the pool is final and the prizes can be announced: the payout
    /// table's `prizes` for it, until the host announces them (`SetPayouts`) or others.
    AnnouncePayouts { pool: Cents, prizes: Vec<Cents> },
}

impl Tournament {
    /// What is pending now, in the order a host deals with it.
    pub fn pending(&self) -> Vec<Pending> {
        let mut pending = Vec::new();
        if self.stage != Stage::Running {
            return pending;
        }
        if let Some(redraw) = self.redraw {
            pending.push(Pending::Redraw {
                tables: redraw.tables,
                seats: redraw.seats,
            });
        }
        if let Some(d) = self.colour_up_due {
            pending.push(Pending::ColourUp {
                low: d.low,
                high: d.high,
            });
        }
        let busted: Vec<PlayerId> = self
            .players
            .iter()
            .filter(|(_, p)| matches!(p.standing, Standing::Busted { .. }))
            .map(|(id, _)| id.clone())
            .collect();
        if !busted.is_empty() {
            pending.push(Pending::RebuyDecisions { players: busted });
        }
        if let Some(hfh) = &self.hand_for_hand {
            let waiting: Vec<u32> = self
                .tables
                .keys()
                .filter(|t| !hfh.played.contains(t))
                .copied()
                .collect();
            if !waiting.is_empty() {
                pending.push(Pending::HandForHand { waiting });
            }
        }
        let halted = self.halted();
        if !halted.is_empty() {
            pending.push(Pending::Halted { tables: halted });
        }
        if let Some(announce) = self.payouts_to_announce() {
            pending.push(announce);
        }
        if self.redraw.is_none()
            && let Some(schedule) = self.schedule.as_deref()
        {
            let size = usize::from(schedule.table_size).max(1);
            let seated: usize = self.tables.values().map(|t| t.seats.len()).sum();
            let needed = seated.div_ceil(size).max(1);
            if self.tables.len() > needed {
                if let Some(table) = seating::next_to_break(&self.tables, &schedule.break_order) {
                    pending.push(Pending::TableToBreak { table });
                }
            } else if let Some(m) =
                balance::balance(schedule.house.balance, &self.balance_view()).next_move
            {
                pending.push(Pending::Move(m));
            }
        }
        pending
    }
}

impl Tournament {
    /// [`Pending::AnnouncePayouts`] when the pool can grow no more and its prizes have not
    /// been announced. A window closes at its last level or its minutes on the tournament
    /// clock (as of the last event), whichever comes first.
    fn payouts_to_announce(&self) -> Option<Pending> {
        let schedule = self.schedule.as_deref()?;
        let level = level_no(self.level);
        let played = self.played(self.last_at);
        let minutes_passed =
            |m: Option<u32>| m.is_some_and(|m| played >= Millis::from(m).saturating_mul(60_000));
        let closed = |until_level: u32, until_minutes: Option<u32>| {
            level > until_level || minutes_passed(until_minutes)
        };
        let late_open = schedule.late_registration_until_level > 0
            && !closed(
                schedule.late_registration_until_level,
                schedule.late_registration_until_minutes,
            );
        let purchase_open = [schedule.rebuys, schedule.reentries, schedule.add_ons]
            .iter()
            .flatten()
            .any(|p| !closed(p.until_level, p.until_minutes));
        if late_open || purchase_open {
            return None;
        }
        let pool = self.prize_pool().ok()?.total;
        if self
            .payouts
            .as_ref()
            .is_some_and(|(set_for, _)| *set_for == pool)
        {
            return None;
        }
        let prizes = self.prizes().ok()?;
        Some(Pending::AnnouncePayouts { pool, prizes })
    }
}
