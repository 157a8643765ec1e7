//! Cash tables in the audit: each table folded with the engine, its completed hands handed
//! out like a tournament's, and what the table decided between hands decided again on the
//! table as it stood: who was dealt in, where the button and the blinds went, the blinds
//! missed, every buy-in and top-up against the limits, every session fee, every cash-out.

use league_engine::cash::{CashCommand, CashEvent, CashState, HouseTake};
use league_engine::hand::{self, BlindKind};
use league_engine::units::PlayerId;

use super::{Difference, Logged, LoggedHand, OutcomeCounts, versus};

/// A cash table being folded.
pub(crate) struct CashTracked {
    /// The log position of the table's first event.
    number: u64,
    pub(crate) state: CashState,
    running: Option<LoggedHand>,
    /// The table before the blinds missed that a deal records ahead of it, and those
    /// events, until the hand's setup arrives.
    before_deal: Option<Box<CashState>>,
    missed: Vec<CashEvent>,
    dealt_at: Option<u64>,
    /// Hands completed.
    pub(crate) hands: u64,
}

impl CashTracked {
    pub(crate) fn new(number: u64) -> CashTracked {
        CashTracked {
            number,
            state: CashState::new(),
            running: None,
            before_deal: None,
            missed: Vec::new(),
            dealt_at: None,
            hands: 0,
        }
    }
}

/// What the re-derivation of a cash table's decisions found: counts and differences.
pub(crate) struct CashOutcomes<'a> {
    pub(crate) counts: &'a mut OutcomeCounts,
    pub(crate) failures: &'a mut Vec<Difference>,
}

impl CashOutcomes<'_> {
    fn differs(&mut self, event: &Logged<'_>, what: String) {
        self.failures.push(Difference {
            position: event.position,
            stream: event.stream_id.to_owned(),
            what,
        });
    }

    /// The first event `command` decides on `state` must be `recorded`.
    fn first_is(
        &mut self,
        state: &CashState,
        command: &CashCommand,
        event: &Logged<'_>,
        recorded: &CashEvent,
        kind: &str,
    ) {
        match league_engine::cash::decide(state, command) {
            Ok(decided) if decided.first() == Some(recorded) => {}
            Ok(decided) => {
                let what = match decided.first() {
                    Some(first) => versus(recorded, first),
                    None => "the engine decides nothing".to_owned(),
                };
                self.differs(event, format!("the {kind}): {what}"));
            }
            Err(e) => self.differs(event, format!("the {kind}): the engine refuses it: {e}")),
        }
    }
}

/// Folds one event of a cash table; a hand it completes comes back. With `outcomes`, the
/// table's decisions are decided again first.
pub(crate) fn fold_cash(
    t: &mut CashTracked,
    event: &Logged<'_>,
    decoded: &CashEvent,
    outcomes: Option<CashOutcomes<'_>>,
) -> Option<LoggedHand> {
    if let Some(mut o) = outcomes {
        check(t, event, decoded, &mut o);
    }
    match decoded {
        CashEvent::BlindMissed { .. } => {
            if t.before_deal.is_none() {
                t.before_deal = Some(Box::new(t.state.clone()));
            }
            t.missed.push(decoded.clone());
        }
        CashEvent::HandDealt { at, .. } => {
            if t.before_deal.is_none() {
                t.before_deal = Some(Box::new(t.state.clone()));
            }
            t.dealt_at = Some(*at);
        }
        _ => {}
    }
    t.state.apply(decoded);
    let CashEvent::HandEvent { event: hand_event } = decoded else {
        return None;
    };
    if let hand::Event::HandStarted { .. } = hand_event {
        t.before_deal = None;
        t.missed.clear();
        t.dealt_at = None;
        let config = t.state.config.as_ref()?;
        let id = event
            .stream_id
            .strip_prefix(league_events::StreamKind::Cash.prefix())
            .unwrap_or(event.stream_id);
        t.running = Some(LoggedHand {
            stream: event.stream_id.to_owned(),
            tournament: id.to_owned(),
            tournament_number: t.number,
            venue: config.venue.to_string(),
            position: event.position,
            started_at: event.recorded_at.div_euclid(1000),
            table: 1,
            ordinal: t.state.hands,
            id: format!("{id}-{}", t.state.hands),
            level: 0,
            seat_count: u32::from(config.seats),
            players: t
                .state
                .seats
                .iter()
                .map(|(seat, held)| (*seat, held.player.to_string()))
                .collect(),
            events: Vec::new(),
            positions: Vec::new(),
            cash: true,
        });
    }
    let running = t.running.as_mut()?;
    running.events.push(hand_event.clone());
    running.positions.push(event.position);
    if matches!(
        hand_event,
        hand::Event::HandEnded { .. } | hand::Event::HandVoided { .. }
    ) {
        t.hands += 1;
        return t.running.take();
    }
    None
}

/// Decides again, on the table as it stood, what the table itself decided.
fn check(t: &mut CashTracked, event: &Logged<'_>, decoded: &CashEvent, o: &mut CashOutcomes<'_>) {
    let state = &t.state;
    match decoded {
        CashEvent::PlayerSeated {
            seat,
            player,
            buy_in,
            entry,
            posts_big_blind,
            at,
            ..
        } => {
            o.counts.cash_money += 1;
            let command = CashCommand::Sit {
                seat: *seat,
                player: player.clone(),
                buy_in: *buy_in,
                entry: *entry,
                post: *posts_big_blind,
                at: *at,
            };
            o.first_is(state, &command, event, decoded, "seating");
        }
        CashEvent::ChipsAdded { seat, amount } => {
            o.counts.cash_money += 1;
            let command = CashCommand::TopUp {
                seat: *seat,
                amount: *amount,
                at: 0,
            };
            o.first_is(state, &command, event, decoded, "top-up");
        }
        CashEvent::SessionFeeCharged { at, .. } => {
            o.counts.cash_money += 1;
            let command = CashCommand::ChargeSessionFee { at: *at };
            o.first_is(state, &command, event, decoded, "session fee");
        }
        CashEvent::SessionFeePaid { seat, amount, .. } => {
            o.counts.cash_money += 1;
            let fee = match state.config.as_ref().map(|c| c.take) {
                Some(HouseTake::SessionFee { amount, .. }) => amount,
                _ => league_engine::units::Chips::ZERO,
            };
            let held = state.seats.get(seat);
            // Owed fees, or a newcomer's fee for the charge just taken: never more than
            // the fee or than the stack.
            let most = held
                .map_or(fee, |h| h.fees_due.max(fee))
                .min(held.map_or(league_engine::units::Chips::ZERO, |h| h.stack));
            if *amount > most || amount.is_zero() {
                o.differs(
                    event,
                    format!(
                        "the session fee paid): {amount} by seat {seat}, which owed at most {most}"
                    ),
                );
            }
        }
        CashEvent::PlayerCashedOut {
            seat,
            player,
            amount,
            ..
        } => {
            o.counts.cash_money += 1;
            let held = state.seats.get(seat);
            let expected: Option<(&PlayerId, _)> = held.map(|h| (&h.player, h.stack));
            if expected != Some((player, *amount)) || state.is_dealt_in(*seat) {
                o.differs(
                    event,
                    format!(
                        "the cash-out): {player} takes {amount} from seat {seat}; the table holds {}",
                        match held {
                            Some(h) => format!("{} with {}", h.player, h.stack),
                            None => "nobody there".to_owned(),
                        }
                    ),
                );
            }
        }
        CashEvent::HandEvent {
            event: hand::Event::HandStarted { setup },
        } => {
            o.counts.cash_deals += 1;
            let before = t.before_deal.take();
            let missed = std::mem::take(&mut t.missed);
            let before = before.as_deref().unwrap_or(state);
            let straddle = setup
                .blinds
                .iter()
                .find(|b| b.kind == BlindKind::Straddle)
                .map(|b| b.seat);
            let command = CashCommand::StartHand {
                at: t.dealt_at.take().unwrap_or(0),
                seed: None,
                straddle,
            };
            let differs = match league_engine::cash::decide(before, &command) {
                Err(e) => Some(format!("the engine refuses the deal: {e}")),
                Ok(decided) => {
                    let decided_missed: Vec<&CashEvent> = decided
                        .iter()
                        .filter(|e| matches!(e, CashEvent::BlindMissed { .. }))
                        .collect();
                    let decided_setup = decided.iter().find_map(|e| match e {
                        CashEvent::HandEvent {
                            event: hand::Event::HandStarted { setup },
                        } => Some(setup),
                        _ => None,
                    });
                    if decided_missed != missed.iter().collect::<Vec<_>>() {
                        Some(format!(
                            "the blinds missed: the log holds {}; the engine decides {}",
                            serde_json::to_string(&missed).unwrap_or_default(),
                            serde_json::to_string(&decided_missed).unwrap_or_default()
                        ))
                    } else {
                        match decided_setup {
                            Some(d) => {
                                // The deck is the hand's own (checked with the hand).
                                let mut d = (**d).clone();
                                d.dealing = setup.dealing;
                                (d != **setup).then(|| versus(&**setup, &d))
                            }
                            None => Some("the engine deals no hand".to_owned()),
                        }
                    }
                }
            };
            if let Some(what) = differs {
                o.differs(
                    event,
                    format!(
                        "hand {} dealt: seats, button and blinds): {what}",
                        t.state.hands
                    ),
                );
            }
        }
        _ => {}
    }
}
