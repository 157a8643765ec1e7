//! Random cash sessions played through the table, for simulation, property tests and the
//! PokerKit check: players sit down, top up, sit out, come back (posting or waiting), leave
//! and return; straddles are offered where the house allows them; session fees fall due
//! every half hour. Seeded, so repeatable; every command is decided by the table, and a
//! refused one is simply not played.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use super::*;
use crate::deck::Seed;
use crate::sim::Simulator;

/// A cash session in play.
pub struct Session {
    rng: ChaCha8Rng,
    actions: Simulator,
    pub state: CashState,
    pub events: Vec<CashEvent>,
    /// The time of the table, in seconds.
    pub now: Seconds,
    players: u32,
}

impl Session {
    /// Opens a table of `config` at time `now`.
    pub fn open(seed: u64, config: TableConfig, now: Seconds) -> Result<Session, CashError> {
        let mut session = Session {
            rng: ChaCha8Rng::seed_from_u64(seed),
            actions: Simulator::new(seed ^ 0x5eed, config.rules),
            state: CashState::new(),
            events: Vec::new(),
            now,
            players: 0,
        };
        session.run(&CashCommand::Open { config, at: now })?;
        Ok(session)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.rng.next_u64() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// Decides and applies one command.
    pub fn run(&mut self, command: &CashCommand) -> Result<(), CashError> {
        let events = decide(&self.state, command)?;
        for event in &events {
            self.state.apply(event);
        }
        self.events.extend(events);
        Ok(())
    }

    fn config(&self) -> TableConfig {
        self.state
            .config
            .clone()
            .unwrap_or_else(|| unreachable!("the table is open"))
    }

    /// What happens at the table between two hands: a few random comings and goings.
    pub fn between_hands(&mut self) {
        let config = self.config();
        let at = self.now;
        if let HouseTake::SessionFee { period_minutes, .. } = config.take {
            let due = self
                .state
                .last_fee
                .map_or(at, |(last, _)| last + u64::from(period_minutes) * 60);
            if at >= due {
                let _ = self.run(&CashCommand::ChargeSessionFee { at });
            }
        }
        self.waiting_list(at);
        for _ in 0..self.below(3) {
            let seat = u8::try_from(self.below(u64::from(config.seats))).unwrap_or(0);
            let command = match self.state.seats.get(&seat) {
                None => {
                    // A newcomer, or a regular coming back.
                    let player = if self.players > 0 && self.chance(30) {
                        let n = self.below(u64::from(self.players));
                        PlayerId::new(format!("cash-{n}"))
                    } else {
                        self.players += 1;
                        PlayerId::new(format!("cash-{}", self.players - 1))
                    };
                    let span = config.max_buy_in.get() - config.min_buy_in.get();
                    let mut buy_in = config.min_buy_in.get() + self.below(span + 1);
                    if let Some((taken, _)) = self.state.cashed_out.get(&player) {
                        buy_in = buy_in.max(taken.get());
                    }
                    CashCommand::Sit {
                        seat,
                        player,
                        buy_in: Chips::new(buy_in),
                        entry: Entry::BuyIn,
                        post: self.chance(40),
                        at,
                    }
                }
                Some(held) if held.sitting_out => {
                    if self.chance(20) {
                        CashCommand::Leave { seat, at }
                    } else {
                        CashCommand::Return {
                            seat,
                            post: self.chance(50),
                            at,
                        }
                    }
                }
                Some(held) => {
                    let room = config.max_buy_in.get().saturating_sub(held.stack.get());
                    match self.below(10) {
                        0..=2 if room > 0 => CashCommand::TopUp {
                            seat,
                            amount: Chips::new(1 + self.below(room)),
                            at,
                        },
                        3..=5 => CashCommand::SitOut { seat, at },
                        6 => CashCommand::Leave { seat, at },
                        _ => continue,
                    }
                }
            };
            let _ = self.run(&command);
        }
    }

    /// The waiting list: now and then a newcomer puts their name down; the first on it is
    /// called to a free seat (sometimes held for them a while first), or gives up.
    fn waiting_list(&mut self, at: Seconds) {
        let config = self.config();
        let free: Vec<Seat> = (0..config.seats)
            .filter(|s| !self.state.seats.contains_key(s))
            .collect();
        if self.chance(if free.is_empty() { 30 } else { 5 }) {
            self.players += 1;
            let player = PlayerId::new(format!("cash-{}", self.players - 1));
            let _ = self.run(&CashCommand::JoinWaitingList { player });
        }
        let Some(first) = self.state.waiting_list.first().cloned() else {
            return;
        };
        if self.chance(10) {
            let _ = self.run(&CashCommand::LeaveWaitingList { player: first });
            return;
        }
        let held = self
            .state
            .reservations
            .iter()
            .find(|(_, (p, until))| *p == first && *until > at)
            .map(|(&seat, _)| seat);
        let seat = match (held, free.first()) {
            (Some(seat), _) => seat,
            (None, Some(&seat)) => {
                if self.chance(40) {
                    let until = at + 600;
                    let _ = self.run(&CashCommand::Reserve {
                        seat,
                        player: first,
                        until,
                        at,
                    });
                    if self.chance(20) {
                        let _ = self.run(&CashCommand::CancelReservation { seat });
                    }
                    return;
                }
                seat
            }
            (None, None) => return,
        };
        let buy_in = config.min_buy_in.get()
            + self.below(config.max_buy_in.get() - config.min_buy_in.get() + 1);
        let _ = self.run(&CashCommand::Sit {
            seat,
            player: first,
            buy_in: Chips::new(buy_in),
            entry: Entry::BuyIn,
            post: false,
            at,
        });
    }

    /// Deals and plays one hand with random legal actions (a straddle now and then).
    /// `Ok(false)` when the table cannot deal (too few players ready).
    pub fn play_hand(&mut self, seed: Seed) -> Result<bool, CashError> {
        let now = self.now;
        let deal = |straddle| CashCommand::StartHand {
            at: now,
            seed: Some(seed),
            straddle,
        };
        // A straddle now and then, by whoever may straddle this hand.
        let mut dealt = Err(CashError::NoHand);
        if self.config().straddle != StraddlePolicy::None && self.chance(30) {
            for seat in 0..self.config().seats {
                dealt = self.run(&deal(Some(seat)));
                if !matches!(dealt, Err(CashError::StraddleNotAllowed(_))) {
                    break;
                }
            }
        }
        if matches!(
            dealt,
            Err(CashError::StraddleNotAllowed(_)) | Err(CashError::NoHand)
        ) {
            dealt = self.run(&deal(None));
        }
        match dealt {
            Ok(()) => {}
            Err(CashError::Rule(hand::RuleError::NotEnoughPlayers { .. })) => return Ok(false),
            Err(e) => return Err(e),
        }
        while self.state.in_hand() {
            let hand = self.state.hand.unwrap_or_default();
            let command = self.actions.next_command(&hand).ok_or(CashError::NoHand)?;
            self.run(&CashCommand::Hand(command))?;
        }
        Ok(true)
    }

    /// Plays until `hands` hands are dealt, `seconds_per_hand` apart; seats players when
    /// the table runs short. Returns the hands dealt.
    pub fn play(&mut self, hands: u32, seconds_per_hand: Seconds) -> Result<u32, CashError> {
        let mut dealt = 0;
        let mut idle = 0;
        while dealt < hands {
            self.between_hands();
            let mut bytes = [0u8; 32];
            self.rng.fill_bytes(&mut bytes);
            if self.play_hand(Seed::from_bytes(bytes))? {
                dealt += 1;
                idle = 0;
            } else {
                idle += 1;
                if idle > 1_000 {
                    break;
                }
            }
            self.now += seconds_per_hand;
        }
        Ok(dealt)
    }
}
