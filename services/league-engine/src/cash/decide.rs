//! The commands a cash table takes, and deciding them.

use std::collections::BTreeSet;

use super::*;
use crate::deck::Seed;
use crate::hand::{Ante, Blind, BlindKind, Dealing, HandSetup, SeatSetup};

/// A command to the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CashCommand {
    Open {
        config: TableConfig,
        at: Seconds,
    },
    /// Cashes out every seat and closes the table, between hands.
    Close {
        at: Seconds,
    },
    /// Sits a player down. `post` asks to post a big blind and be dealt in at once
    /// instead of waiting for the big blind (where the house allows it).
    Sit {
        seat: Seat,
        player: PlayerId,
        buy_in: Chips,
        entry: Entry,
        post: bool,
        at: Seconds,
    },
    /// Adds chips between hands, up to the table maximum.
    TopUp {
        seat: Seat,
        amount: Chips,
        at: Seconds,
    },
    SitOut {
        seat: Seat,
        at: Seconds,
    },
    /// Back from sitting out: `post` posts what was missed (the house's rule), otherwise
    /// the player waits for the big blind.
    Return {
        seat: Seat,
        post: bool,
        at: Seconds,
    },
    /// Leaves the table with the chips (a cash-out).
    Leave {
        seat: Seat,
        at: Seconds,
    },
    Reserve {
        seat: Seat,
        player: PlayerId,
        until: Seconds,
        at: Seconds,
    },
    CancelReservation {
        seat: Seat,
    },
    JoinWaitingList {
        player: PlayerId,
    },
    LeaveWaitingList {
        player: PlayerId,
    },
    /// Collects the session fee of the period starting `at`.
    ChargeSessionFee {
        at: Seconds,
    },
    /// Deals the next hand: a seeded deck (the server's seed) or a physical one (`None`),
    /// with the straddle of `straddle` if the house allows it there.
    StartHand {
        at: Seconds,
        seed: Option<Seed>,
        straddle: Option<Seat>,
    },
    /// A command to the running hand (anything but `Start`).
    Hand(hand::Command),
}

/// Checks a command against the table and says what happens, without changing anything.
pub fn decide(state: &CashState, command: &CashCommand) -> Result<Vec<CashEvent>, CashError> {
    let mut run = Run {
        state: state.clone(),
        events: Vec::new(),
    };
    run.command(command)?;
    Ok(run.events)
}

struct Run {
    state: CashState,
    events: Vec<CashEvent>,
}

impl Run {
    fn emit(&mut self, event: CashEvent) {
        self.state.apply(&event);
        self.events.push(event);
    }

    fn config(&self) -> Result<&TableConfig, CashError> {
        if self.state.closed {
            return Err(CashError::Closed);
        }
        self.state.config.as_ref().ok_or(CashError::NotOpen)
    }

    fn rules(&self) -> Result<CashRules, CashError> {
        let config = self.config()?;
        CashRules::of(config.rules.preset)
            .ok_or(CashError::NotACashHouse(config.rules.preset.name()))
    }

    fn seat(&self, seat: Seat) -> Result<&CashSeat, CashError> {
        let config = self.config()?;
        if seat >= config.seats {
            return Err(CashError::NoSuchSeat {
                seat,
                last: config.seats - 1,
            });
        }
        self.state
            .seats
            .get(&seat)
            .ok_or(CashError::EmptySeat(seat))
    }

    fn between_hands(&self, seat: Seat) -> Result<(), CashError> {
        if self.state.is_dealt_in(seat) {
            return Err(CashError::InHand(seat));
        }
        Ok(())
    }

    fn command(&mut self, command: &CashCommand) -> Result<(), CashError> {
        match command {
            CashCommand::Open { config, at } => self.open(config, *at),
            CashCommand::Close { at } => self.close(*at),
            CashCommand::Sit {
                seat,
                player,
                buy_in,
                entry,
                post,
                at,
            } => self.sit(*seat, player, *buy_in, *entry, *post, *at),
            CashCommand::TopUp { seat, amount, at } => self.top_up(*seat, *amount, *at),
            CashCommand::SitOut { seat, at } => {
                if self.seat(*seat)?.sitting_out {
                    return Err(CashError::AlreadySittingOut(*seat));
                }
                self.emit(CashEvent::PlayerSatOut {
                    seat: *seat,
                    at: *at,
                });
                Ok(())
            }
            CashCommand::Return { seat, post, at } => self.back(*seat, *post, *at),
            CashCommand::Leave { seat, at } => self.leave(*seat, *at),
            CashCommand::Reserve {
                seat,
                player,
                until,
                at,
            } => self.reserve(*seat, player, *until, *at),
            CashCommand::CancelReservation { seat } => {
                self.config()?;
                if !self.state.reservations.contains_key(seat) {
                    return Err(CashError::EmptySeat(*seat));
                }
                self.emit(CashEvent::ReservationCancelled { seat: *seat });
                Ok(())
            }
            CashCommand::JoinWaitingList { player } => {
                self.config()?;
                if self.state.waiting_list.contains(player) {
                    return Err(CashError::AlreadyWaiting(player.clone()));
                }
                if self.state.seat_of(player).is_some() {
                    return Err(CashError::AlreadySeated(player.clone()));
                }
                self.emit(CashEvent::WaitingListJoined {
                    player: player.clone(),
                });
                Ok(())
            }
            CashCommand::LeaveWaitingList { player } => {
                self.config()?;
                if !self.state.waiting_list.contains(player) {
                    return Err(CashError::NotWaiting(player.clone()));
                }
                self.emit(CashEvent::WaitingListLeft {
                    player: player.clone(),
                });
                Ok(())
            }
            CashCommand::ChargeSessionFee { at } => self.charge_fee(*at),
            CashCommand::StartHand { at, seed, straddle } => {
                self.start_hand(*at, seed.as_ref(), *straddle)
            }
            CashCommand::Hand(command) => self.hand(command),
        }
    }

    fn open(&mut self, config: &TableConfig, at: Seconds) -> Result<(), CashError> {
        if self.state.closed {
            return Err(CashError::Closed);
        }
        if self.state.config.is_some() {
            return Err(CashError::AlreadyOpen);
        }
        let preset = config.rules.preset;
        if CashRules::of(preset).is_none() {
            return Err(CashError::NotACashHouse(preset.name()));
        }
        let bad = |what: &str| Err(CashError::BadConfig(what.to_owned()));
        if !crate::units::is_text(&config.name) {
            return Err(CashError::BadConfig(format!(
                "the name must be {}",
                crate::units::TEXT_RULE
            )));
        }
        if config.small_blind.is_zero() || config.small_blind > config.big_blind {
            return bad("the small blind must be positive and at most the big blind");
        }
        if config.min_buy_in < config.big_blind {
            return bad("the minimum buy-in must be at least the big blind");
        }
        if config.max_buy_in < config.min_buy_in {
            return bad("the maximum buy-in must be at least the minimum");
        }
        if !(2..=MAX_TABLE_SEATS).contains(&config.seats) {
            return bad("a table has 2 to 10 seats");
        }
        if config.straddle != StraddlePolicy::None && config.straddle != CashRules::straddle(preset)
        {
            return Err(CashError::BadConfig(format!(
                "the {} house allows {}",
                preset.name(),
                match CashRules::straddle(preset) {
                    StraddlePolicy::UnderTheGun => "one live straddle, left of the big blind",
                    StraddlePolicy::Button => "a button straddle three- or four-handed",
                    StraddlePolicy::None => "no straddle",
                }
            )));
        }
        if let HouseTake::SessionFee {
            amount,
            period_minutes,
        } = config.take
            && (amount.is_zero() || period_minutes == 0)
        {
            return bad("a session fee needs a positive amount and period");
        }
        if config.run_twice.is_some() && !CashRules::of(preset).is_some_and(|r| r.run_twice) {
            return Err(CashError::BadConfig(format!(
                "the {} house does not run the board twice",
                preset.name()
            )));
        }
        if let HouseTake::Rake(rake) = config.take
            && (rake.basis_points == 0 || rake.basis_points > 10_000 || rake.cap == 0)
        {
            return bad("a rake is more than 0% and at most 100% of a pot, with a positive cap");
        }
        self.emit(CashEvent::TableOpened {
            config: Box::new(config.clone()),
            at,
        });
        Ok(())
    }

    fn close(&mut self, at: Seconds) -> Result<(), CashError> {
        self.config()?;
        if self.state.in_hand() {
            return Err(CashError::HandInProgress);
        }
        let seats: Vec<Seat> = self.state.seats.keys().copied().collect();
        for seat in seats {
            self.leave(seat, at)?;
        }
        self.emit(CashEvent::TableClosed { at });
        Ok(())
    }

    fn sit(
        &mut self,
        seat: Seat,
        player: &PlayerId,
        buy_in: Chips,
        entry: Entry,
        post: bool,
        at: Seconds,
    ) -> Result<(), CashError> {
        let rules = self.rules()?;
        match self.seat(seat) {
            Err(CashError::EmptySeat(_)) => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(CashError::SeatTaken(seat)),
        }
        if self.state.seat_of(player).is_some() {
            return Err(CashError::AlreadySeated(player.clone()));
        }
        if let Some((holder, until)) = self.state.reservations.get(&seat)
            && *until > at
            && holder != player
        {
            return Err(CashError::Reserved {
                seat,
                player: holder.clone(),
            });
        }
        let reserved_for_them = self
            .state
            .reservations
            .get(&seat)
            .is_some_and(|(holder, until)| holder == player && *until > at);
        if entry == Entry::BuyIn
            && !reserved_for_them
            && let Some(first) = self.state.waiting_list.first()
            && first != player
        {
            return Err(CashError::WaitingListFirst {
                first: first.clone(),
            });
        }
        if buy_in.is_zero() {
            return Err(CashError::ZeroAmount);
        }
        let config = self.config()?;
        if entry == Entry::BuyIn {
            let taken = rules.return_window.and_then(|window| {
                self.state
                    .cashed_out
                    .get(player)
                    .filter(|(_, when)| at < when.saturating_add(window))
                    .map(|(amount, _)| *amount)
            });
            if let Some(taken) = taken
                && buy_in < taken
            {
                return Err(CashError::BelowAmountTaken {
                    player: player.clone(),
                    taken,
                });
            }
            if buy_in < config.min_buy_in {
                return Err(CashError::BelowMinimumBuyIn {
                    min: config.min_buy_in,
                    got: buy_in,
                });
            }
            // Hippodrome, Procedures 7: restoring what was taken may exceed the maximum.
            let max = config.max_buy_in.max(taken.unwrap_or(Chips::ZERO));
            if buy_in > max {
                return Err(CashError::AboveMaximumBuyIn { max, got: buy_in });
            }
        }
        if post && rules.new_player == NewPlayer::Wait {
            return Err(CashError::MustWaitForBigBlind {
                house: config.rules.preset.name(),
            });
        }
        let fee = match (config.take, self.state.last_fee) {
            (HouseTake::SessionFee { .. }, Some((charged, amount)))
                if at < charged.saturating_add(rules.fee_grace) =>
            {
                Some(amount)
            }
            _ => None,
        };
        self.emit(CashEvent::PlayerSeated {
            seat,
            player: player.clone(),
            buy_in,
            entry,
            waits_for_big_blind: !post,
            posts_big_blind: post,
            at,
        });
        if let Some(amount) = fee {
            // Hippodrome, Procedures 4a: a new player pays the charge just taken.
            let amount = amount.min(buy_in);
            self.emit(CashEvent::SessionFeePaid { seat, amount, at });
        }
        Ok(())
    }

    fn top_up(&mut self, seat: Seat, amount: Chips, at: Seconds) -> Result<(), CashError> {
        let held = self.seat(seat)?;
        let stack = held.stack;
        let due = held.fees_due;
        self.between_hands(seat)?;
        if amount.is_zero() {
            return Err(CashError::ZeroAmount);
        }
        let (min, max) = {
            let config = self.config()?;
            (config.min_buy_in, config.max_buy_in)
        };
        // Broke, the player buys in again as a new player (Hippodrome, Blinds 10): at least
        // the table minimum.
        if stack.is_zero() && amount < min {
            return Err(CashError::BelowMinimumBuyIn { min, got: amount });
        }
        let after = stack.checked_add(amount).ok_or(CashError::Overflow)?;
        if after > max {
            return Err(CashError::AboveMaximumBuyIn { max, got: after });
        }
        self.emit(CashEvent::ChipsAdded { seat, amount });
        if !due.is_zero() && !self.seat(seat)?.sitting_out {
            let amount = due.min(after);
            self.emit(CashEvent::SessionFeePaid { seat, amount, at });
        }
        Ok(())
    }

    fn back(&mut self, seat: Seat, post: bool, at: Seconds) -> Result<(), CashError> {
        let held = self.seat(seat)?;
        if !held.sitting_out {
            return Err(CashError::NotSittingOut(seat));
        }
        let due = held.fees_due;
        let stack = held.stack;
        self.emit(CashEvent::PlayerReturned {
            seat,
            posts: post,
            at,
        });
        if !due.is_zero() && !stack.is_zero() {
            // Hippodrome, Procedures 4a: fees charged while away are paid on return.
            self.emit(CashEvent::SessionFeePaid {
                seat,
                amount: due.min(stack),
                at,
            });
        }
        Ok(())
    }

    fn leave(&mut self, seat: Seat, at: Seconds) -> Result<(), CashError> {
        let held = self.seat(seat)?;
        self.between_hands(seat)?;
        let player = held.player.clone();
        let due = held.fees_due.min(held.stack);
        if !due.is_zero() {
            self.emit(CashEvent::SessionFeePaid {
                seat,
                amount: due,
                at,
            });
        }
        let amount = self.seat(seat)?.stack;
        self.emit(CashEvent::PlayerCashedOut {
            seat,
            player,
            amount,
            at,
        });
        Ok(())
    }

    fn reserve(
        &mut self,
        seat: Seat,
        player: &PlayerId,
        until: Seconds,
        at: Seconds,
    ) -> Result<(), CashError> {
        match self.seat(seat) {
            Err(CashError::EmptySeat(_)) => {}
            Err(e) => return Err(e),
            Ok(_) => return Err(CashError::SeatTaken(seat)),
        }
        if let Some((holder, held_until)) = self.state.reservations.get(&seat)
            && *held_until > at
            && holder != player
        {
            return Err(CashError::Reserved {
                seat,
                player: holder.clone(),
            });
        }
        if until <= at {
            return Err(CashError::BadConfig(
                "a reservation must end after it is made".into(),
            ));
        }
        self.emit(CashEvent::SeatReserved {
            seat,
            player: player.clone(),
            until,
        });
        Ok(())
    }

    fn charge_fee(&mut self, at: Seconds) -> Result<(), CashError> {
        let HouseTake::SessionFee {
            amount,
            period_minutes,
        } = self.config()?.take
        else {
            return Err(CashError::NoSessionFee);
        };
        if self.state.in_hand() {
            return Err(CashError::HandInProgress);
        }
        if let Some((last, _)) = self.state.last_fee {
            let due = last.saturating_add(u64::from(period_minutes) * 60);
            if at < due {
                return Err(CashError::FeeNotDue { due });
            }
        }
        let mut paid = Vec::new();
        let mut owed = Vec::new();
        for (&seat, held) in &self.state.seats {
            let fee = Fee { seat, amount };
            if held.sitting_out || held.stack < amount {
                owed.push(fee);
            } else {
                paid.push(fee);
            }
        }
        self.emit(CashEvent::SessionFeeCharged { at, paid, owed });
        Ok(())
    }

    fn start_hand(
        &mut self,
        at: Seconds,
        seed: Option<&Seed>,
        straddle: Option<Seat>,
    ) -> Result<(), CashError> {
        let config = self.config()?.clone();
        let rules = self.rules()?;
        if self.state.in_hand() {
            return Err(CashError::HandInProgress);
        }
        let deal = Deal::plan(&self.state, &config)?;
        for (seat, blind) in deal.missed(&self.state) {
            self.emit(CashEvent::BlindMissed { seat, blind });
        }
        let bb = config.big_blind.get();
        let sb = config.small_blind.get();
        let mut blinds = Vec::new();
        if deal.small_blind != deal.big_blind {
            blinds.push(Blind {
                seat: deal.small_blind,
                kind: BlindKind::SmallBlind,
                amount: sb,
            });
        }
        blinds.push(Blind {
            seat: deal.big_blind,
            kind: BlindKind::BigBlind,
            amount: bb,
        });
        let mut antes = Vec::new();
        for &seat in &deal.dealt {
            let held = &self.state.seats[&seat];
            if !held.posting || seat == deal.small_blind || seat == deal.big_blind {
                continue;
            }
            let owes = held.owes_big || held.owes_small;
            match (owes, rules.missed_blinds) {
                // Oracle, Blinds 7: the big blind live, the small blind dead.
                (true, MissedBlinds::PostAll) if held.owes_big => {
                    blinds.push(Blind {
                        seat,
                        kind: BlindKind::BigBlind,
                        amount: bb,
                    });
                    if held.owes_small {
                        antes.push(Ante { seat, amount: sb });
                    }
                }
                (true, MissedBlinds::PostAll) => blinds.push(Blind {
                    seat,
                    kind: BlindKind::SmallBlind,
                    amount: sb,
                }),
                // Hippodrome, Blinds 8; and a new player posting (Oracle, Buy-in 4b).
                _ => blinds.push(Blind {
                    seat,
                    kind: BlindKind::BigBlind,
                    amount: bb,
                }),
            }
        }
        if let Some(seat) = straddle {
            let taken: BTreeSet<Seat> = blinds.iter().map(|b| b.seat).collect();
            let allowed = match config.straddle {
                StraddlePolicy::None => Err("this table takes no straddle".to_owned()),
                StraddlePolicy::UnderTheGun => {
                    let utg = deal.after(deal.big_blind);
                    if deal.dealt.len() < 3 {
                        Err("a straddle needs three or more players".to_owned())
                    } else if seat != utg {
                        Err(format!(
                            "only the player left of the big blind (seat {utg}) may straddle (Oracle, Blinds 12)"
                        ))
                    } else {
                        Ok(())
                    }
                }
                StraddlePolicy::Button => {
                    if !(3..=4).contains(&deal.dealt.len()) {
                        Err("the button straddles only three- or four-handed (Hippodrome, Procedures 9)".to_owned())
                    } else if seat != deal.button {
                        Err(format!(
                            "only the button (seat {}) may straddle",
                            deal.button
                        ))
                    } else {
                        Ok(())
                    }
                }
            };
            allowed.map_err(CashError::StraddleNotAllowed)?;
            if taken.contains(&seat) {
                return Err(CashError::StraddleNotAllowed(format!(
                    "seat {seat} is already posting a blind"
                )));
            }
            blinds.push(Blind {
                seat,
                kind: BlindKind::Straddle,
                amount: bb.checked_mul(2).ok_or(CashError::Overflow)?,
            });
        }
        let seats: Vec<SeatSetup> = deal
            .dealt
            .iter()
            .map(|&seat| SeatSetup {
                seat,
                stack: self.state.seats[&seat].stack.get(),
                absent: false,
            })
            .collect();
        let mut seats = seats;
        seats.sort_by_key(|s| s.seat);
        let setup = HandSetup {
            button: deal.button,
            seats,
            big_blind: bb,
            blinds,
            antes,
            chip_unit: 1,
            // A cash table deals no absent player in: they sit out.
            absent_hands_dead: false,
            dealing: match seed {
                Some(seed) => Dealing::Seeded {
                    commitment: seed.commitment(),
                },
                None => Dealing::Recorded,
            },
            rules: config.rules,
            rake: match config.take {
                HouseTake::Rake(rake) => Some(rake),
                _ => None,
            },
            run_twice: config.run_twice.map(Chips::get),
        };
        let number = self.state.hands.checked_add(1).ok_or(CashError::Overflow)?;
        self.emit(CashEvent::HandDealt { number, at });
        self.hand(&hand::Command::Start {
            setup,
            seed: seed.copied(),
        })
    }

    fn hand(&mut self, command: &hand::Command) -> Result<(), CashError> {
        self.config()?;
        let starting = matches!(command, hand::Command::Start { .. });
        if starting == self.state.in_hand() {
            return Err(if starting {
                CashError::HandInProgress
            } else {
                CashError::NoHand
            });
        }
        let mut hand = self.state.hand.unwrap_or_default();
        let mut events = Vec::new();
        hand::execute(&mut hand, command, &mut events)?;
        for event in events {
            self.emit(CashEvent::HandEvent { event });
        }
        Ok(())
    }
}

/// Who is dealt into the next hand, and where the button and the blinds go.
struct Deal {
    button: Seat,
    small_blind: Seat,
    big_blind: Seat,
    /// In seat order.
    dealt: Vec<Seat>,
    seats: u8,
}

impl Deal {
    fn plan(state: &CashState, config: &TableConfig) -> Result<Deal, CashError> {
        let ready = |s: &CashSeat| !s.sitting_out && !s.stack.is_zero() && s.fees_due.is_zero();
        let mut active: BTreeSet<Seat> = BTreeSet::new();
        let mut waiting: BTreeSet<Seat> = BTreeSet::new();
        for (&seat, held) in &state.seats {
            if !ready(held) {
                continue;
            }
            if held.waiting_for_big_blind {
                waiting.insert(seat);
            } else {
                active.insert(seat);
            }
        }
        // A game starting: nobody waits for a blind that is not going round yet (Oracle,
        // Blinds 9).
        if active.len() < 2 {
            active.append(&mut waiting);
        }
        if active.len() < 2 {
            return Err(hand::RuleError::NotEnoughPlayers {
                players: active.len(),
            }
            .into());
        }
        let n = config.seats;
        let next = |from: Seat, pool: &dyn Fn(Seat) -> bool| {
            clockwise(from, n).find(|&s| pool(s)).unwrap_or(from)
        };
        // The button moves on one player (Oracle and Hippodrome, Blinds 2a).
        let button = match state.button {
            Some(last) => next(last, &|s| active.contains(&s)),
            None => *active.first().unwrap_or(&0),
        };
        // A player posting to come back cannot come in on the small blind (Hippodrome,
        // Blinds 5): they take the big blind next hand instead.
        let posting = |s: Seat| state.seats.get(&s).is_some_and(|h| h.posting);
        let small = next(button, &|s| active.contains(&s) && !posting(s));
        let big = next(small, &|s| active.contains(&s) || waiting.contains(&s));
        let mut dealt: BTreeSet<Seat> = active.clone();
        dealt.insert(big);
        // Posting players the small blind skipped wait out this hand.
        for s in clockwise(button, n).take_while(|&s| s != small) {
            if posting(s) {
                dealt.remove(&s);
            }
        }
        let dealt: Vec<Seat> = dealt.into_iter().collect();
        if dealt.len() == 2 {
            // Heads-up: the button posts the small blind. When play becomes heads-up, the
            // player who had the big blind most recently is given the button (Hippodrome,
            // Blinds 3; Oracle's button rule reads the same way: no one takes the big blind
            // twice in a row).
            let was_ringed = state
                .hand
                .as_ref()
                .is_some_and(|h| h.seats_in_order().count() > 2);
            let button = match state.big_blind {
                Some(last_big) if was_ringed && dealt.contains(&last_big) => last_big,
                _ => button,
            };
            let other = dealt.iter().copied().find(|&s| s != button).unwrap_or(big);
            return Ok(Deal {
                button,
                small_blind: button,
                big_blind: other,
                dealt,
                seats: n,
            });
        }
        Ok(Deal {
            button,
            small_blind: small,
            big_blind: big,
            dealt,
            seats: n,
        })
    }

    /// The dealt seat after `seat`.
    fn after(&self, seat: Seat) -> Seat {
        clockwise(seat, self.seats)
            .find(|s| self.dealt.contains(s))
            .unwrap_or(seat)
    }

    /// The blinds that pass the seats of players sitting out: those strictly between
    /// where each blind was last hand and where it is now.
    fn missed(&self, state: &CashState) -> Vec<(Seat, Owed)> {
        let mut missed = Vec::new();
        let away = |s: Seat| {
            state
                .seats
                .get(&s)
                .is_some_and(|h| h.sitting_out && !h.stack.is_zero())
        };
        let owed = |h: &CashSeat, blind: Owed| match blind {
            Owed::SmallBlind => h.owes_small,
            Owed::BigBlind => h.owes_big,
        };
        for (last, now, blind) in [
            (state.small_blind, self.small_blind, Owed::SmallBlind),
            (state.big_blind, self.big_blind, Owed::BigBlind),
        ] {
            let Some(last) = last.filter(|&last| last != now) else {
                continue;
            };
            for s in clockwise(last, self.seats).take_while(|&s| s != now) {
                if away(s) && !state.seats.get(&s).is_some_and(|h| owed(h, blind)) {
                    missed.push((s, blind));
                }
            }
        }
        missed
    }
}
