//! Golden logs: a league's log as a release wrote it, checked in under
//! `tests/golden/<release>/` and replayed by every later build (`tests/golden.rs`).
//!
//! [`write`] plays, through the engine's commands, a small league that holds every event
//! type of the catalogue (`league_events::CATALOGUE`, and every kind of hand event): a
//! season whose formula is changed (re-scoring it), players renamed, merged and unmerged,
//! a result amended, and the season closed; tournaments under every tournament preset and in every tracking mode
//! (dealt, recorded, results-only), and one where the floor rules (a walk-in unregistered,
//! an absent entrant removed, a hand voided, an out-of-turn action, the clock called and
//! run out, an under-sized raise ruled a call, payouts set by hand, a deal); a player
//! reinstated after a mistaken elimination, and a tournament cancelled after some play.
//! The log is sealed and its tree heads signed with [`signing_key`], a key published for
//! this purpose only. Beside the database,
//! `read_models.json` holds every read model the log projects to, and `public_key.hex` the
//! key that verifies it.
//!
//! Run `cargo run -p league-tests --bin write-golden` when cutting a release: it writes
//! the release's directory, which is then checked in and never changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use league_engine::hand::{Action, Command as HandCommand, KillCause, VoidReason};
use league_engine::league::{
    self, Command as LeagueCommand, LeagueState, ScoreOrder, ScoringRule, SeasonScoreRule,
    TournamentOutcome,
};
use league_engine::rules::Preset;
use league_engine::tournament::DealKind;
use league_engine::tournament::play::{
    Penalty, Standing, TournamentCommand, TournamentEvent, Tracking,
};
use league_engine::tournament::sim::{SimOptions, TournamentSim};
use league_engine::units::PlayerId;
use league_events::{LogEvent, StreamKind, encode};
use league_store::{ExpectedVersion, Metadata, SealerConfig, SigningKey, Store};

/// The golden logs' signing key: published (it is in this file), so it proves nothing
/// about who wrote a golden log, only that the log verifies as a league's would.
pub fn signing_key() -> SigningKey {
    SigningKey::from_bytes(&[0x60; 32])
}

/// Where the golden logs are checked in: `tests/golden/`.
pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

/// The database file of a golden log.
pub const DATABASE: &str = "league.db";
/// The read models it projects to, as JSON: `{"<kind>/<key>": document}`.
pub const READ_MODELS: &str = "read_models.json";
/// The hex public key its tree heads verify with.
pub const PUBLIC_KEY: &str = "public_key.hex";

/// What was written.
#[derive(Debug, Default)]
pub struct Written {
    pub events: u64,
    /// Events of each `(stream kind, event type)`; hand events as `HandEvent/<kind>`.
    pub types: BTreeMap<(String, String), u64>,
}

type Failure = Box<dyn std::error::Error>;

/// Appends events to their stream, each with the version it was decided on.
struct Writer<'a> {
    store: &'a Store,
    written: Written,
    /// Each stream's version.
    versions: BTreeMap<String, u64>,
    commands: u64,
}

impl Writer<'_> {
    async fn append<E: LogEvent>(&mut self, stream: &str, events: &[E]) -> Result<(), Failure> {
        if events.is_empty() {
            return Ok(());
        }
        self.commands += 1;
        let metadata = Metadata {
            actor: Some("golden-writer".into()),
            correlation_id: Some(format!("golden-{}", self.commands)),
            causation_id: None,
            recorded_at: None,
        };
        let mut batch = Vec::with_capacity(events.len());
        for e in events {
            let value = serde_json::to_value(e)?;
            let mut name = value["type"].as_str().unwrap_or_default().to_owned();
            if let Some(inner) = value["data"]["event"]["type"].as_str() {
                name = format!("{name}/{inner}");
            }
            *self
                .written
                .types
                .entry((E::KIND.to_string(), name))
                .or_default() += 1;
            batch.push(encode(e)?.with_metadata(metadata.clone()));
        }
        let version = self.versions.entry(stream.to_owned()).or_default();
        for chunk in batch.chunks(league_store::MAX_BATCH_EVENTS) {
            // One append in ten carries an idempotency key, as a venue app's retries do.
            let key = format!("golden-{}", self.commands);
            let key = self.commands.is_multiple_of(10).then_some(key.as_str());
            let appended = self
                .store
                .append(stream, ExpectedVersion::Exact(*version), chunk, key)
                .await?;
            *version = appended.last_version;
            self.written.events += u64::try_from(chunk.len())?;
        }
        Ok(())
    }
}

struct League {
    stream: String,
    state: LeagueState,
}

impl League {
    async fn send(&mut self, w: &mut Writer<'_>, command: LeagueCommand) -> Result<(), Failure> {
        let events = league::decide(&self.state, &command)?;
        for e in &events {
            league::apply(&mut self.state, e);
        }
        w.append(&self.stream, &events).await
    }
}

/// The floor's rulings to make in a tournament, where its play allows.
#[derive(Clone, Copy, Debug, Default)]
struct Rulings {
    /// Register a walk-in and take the registration back before the start.
    walk_in: bool,
    /// Mark an entrant absent before the start and remove them after it; disqualify another.
    absent_removed: bool,
    /// In a dealt or recorded hand: an out-of-turn fold, an under-sized raise, a misdeal,
    /// the clock run out; between hands (release 0.12.0), a stack put right; (release
    /// 0.13.0) a seat and the button put right; (release 0.14.0) a hand killed out of turn;
    /// (release 0.15.0) after the start, a forfeiture of chips, a repeat infraction a rung
    /// up the ladder and an elimination; (release 0.16.0) a pot in dispute; (release
    /// 0.17.0) an out-of-turn bet that stays in the pot.
    hands: bool,
    /// Set the payouts by hand, then deal at three (or two) players left.
    payouts_and_deal: bool,
    /// Results tracking: reinstate the first player eliminated (by mistake).
    reinstate: bool,
    /// QueenSix (release 0.19.0): the first call the floor can reach ruled not binding
    /// (NLHE 10).
    retract_call: bool,
    /// Oracle (release 0.19.0): the first live hand with betting left loses its aggressive
    /// action for the hand (exposing cards 2).
    forfeit_aggression: bool,
}

/// Plays one tournament into its stream and returns its outcome.
async fn tournament(
    w: &mut Writer<'_>,
    id: &str,
    seed: u64,
    options: SimOptions,
    rulings: Rulings,
) -> Result<TournamentOutcome, Failure> {
    let stream = StreamKind::Tournament.stream(id);
    let mut sim = TournamentSim::new(seed, options.clone())?;
    if rulings.walk_in {
        sim.send(&TournamentCommand::Register {
            player: PlayerId::from("walk-in"),
        })?;
        sim.send(&TournamentCommand::Unregister {
            player: PlayerId::from("walk-in"),
        })?;
        // A host adds entropy to the seat draw: pooled, then mixed in at the start.
        sim.send(&TournamentCommand::AddEntropy {
            entropy: league_engine::deck::Seed::from_bytes([0x5e; 32]),
        })?;
    }
    let absentee = options.ids.get(1).cloned();
    if rulings.absent_removed
        && let Some(player) = &absentee
    {
        sim.send(&TournamentCommand::MarkAbsent {
            player: player.clone(),
        })?;
    }
    sim.start()?;
    if rulings.absent_removed
        && let Some(player) = absentee
    {
        let (now, _, _) = sim.state.clock();
        sim.send(&TournamentCommand::RemoveAbsent {
            player,
            at: now.saturating_add(60_000),
        })?;
        if let Some(player) = options.ids.get(5).cloned() {
            sim.send(&TournamentCommand::Penalise {
                player,
                penalty: Penalty::Disqualify,
            })?;
        }
    }
    // Release 0.15.0, at the WPH table ruled on hand by hand: a forfeiture of chips, a
    // repeat infraction a rung up WPH 47's ladder, and an elimination.
    if rulings.hands {
        if let Some(player) = options.ids.get(6).cloned() {
            for penalty in [
                Penalty::Forfeit(league_engine::units::Chips::new(500)),
                Penalty::Warning,
                Penalty::MissHands(1),
            ] {
                sim.send(&TournamentCommand::Penalise {
                    player: player.clone(),
                    penalty,
                })?;
            }
        }
        if let Some(player) = options.ids.get(7).cloned() {
            sim.send(&TournamentCommand::Penalise {
                player,
                penalty: Penalty::Eliminate,
            })?;
        }
    }
    let mut to_rule = if rulings.hands {
        vec![
            Ruling::BetStays,
            Ruling::SeeHand,
            Ruling::Retrieve,
            Ruling::Kill,
            Ruling::ButtonCorrection,
            Ruling::SeatCorrection,
            Ruling::Correction,
            Ruling::Clock,
            Ruling::Misdeal,
            Ruling::Undersized,
            Ruling::OutOfTurn,
        ]
    } else {
        Vec::new()
    };
    let mut awaiting_ruling: Option<usize> = None;
    let mut reinstate = rulings.reinstate;
    let mut retract = rulings.retract_call;
    let mut forfeit = rulings.forfeit_aggression;
    let mut payouts = rulings.payouts_and_deal;
    let mut deal = rulings.payouts_and_deal;
    let mut sent = 0;
    while !sim.finished() {
        if sim.commands > 1_000_000 {
            return Err(format!("{id} did not finish").into());
        }
        if let Some(ruling) = to_rule.last().copied()
            && ruling.try_on(&mut sim)?
        {
            to_rule.pop();
            if matches!(ruling, Ruling::OutOfTurn) {
                awaiting_ruling = Some(sim.events.len());
            }
        }
        // A declaration the hand ended before ruling on is made again in a later hand.
        if let Some(from) = awaiting_ruling
            && !sim.state.tables().values().any(|t| t.in_hand())
        {
            let ruled = sim.events[from..].iter().any(|e| {
                matches!(
                    e,
                    TournamentEvent::HandEvent {
                        event: league_engine::hand::Event::OutOfTurnRuled { .. },
                        ..
                    }
                )
            });
            awaiting_ruling = None;
            if !ruled {
                to_rule.push(Ruling::OutOfTurn);
            }
        }
        if retract && retract_call(&mut sim)? {
            retract = false;
        }
        if forfeit && forfeit_aggression(&mut sim)? {
            forfeit = false;
        }
        if payouts && sim.state.remaining() <= 6 {
            let amounts = sim.state.prizes()?;
            sim.send(&TournamentCommand::SetPayouts { amounts })?;
            payouts = false;
        }
        // A deal between hands, once nobody still has a re-buy to decide.
        let deciding = sim
            .state
            .players()
            .values()
            .any(|p| matches!(p.standing, Standing::Busted { .. }));
        if deal
            && !deciding
            && (2..=3).contains(&sim.state.remaining())
            && !sim.state.tables().values().any(|t| t.in_hand())
        {
            let accepted = sim
                .state
                .players()
                .iter()
                .filter(|(_, p)| p.chips.get() > 0)
                .map(|(id, _)| id.clone())
                .collect();
            sim.send(&TournamentCommand::Deal {
                kind: DealKind::ChipChop,
                accepted,
            })?;
            deal = false;
        }
        if !sim.finished() {
            sim.step()?;
        }
        if reinstate
            && sim.state.remaining() > 2
            && let Some(TournamentEvent::PlayersEliminated { players, .. }) = sim.events.last()
            && let Some(player) = players.first().cloned()
            && sim
                .send(&TournamentCommand::Reinstate {
                    player,
                    reason: "eliminated by mistake: the wrong player was called out".into(),
                })
                .is_ok()
        {
            reinstate = false;
        }
        if sim.events.len() > sent {
            w.append(&stream, &sim.events[sent..]).await?;
            sent = sim.events.len();
        }
    }
    if sim.events.len() > sent {
        w.append(&stream, &sim.events[sent..]).await?;
    }
    if !to_rule.is_empty() || payouts || deal || reinstate || retract || forfeit {
        return Err(format!(
            "{id}: rulings not made: {to_rule:?}, payouts {payouts}, deal {deal}, reinstate \
             {reinstate}, retract a call {retract}, forfeit aggression {forfeit}"
        )
        .into());
    }
    let outcome = sim
        .state
        .outcome(id, "season-1", 7)
        .ok_or_else(|| format!("{id} finished without a result"))?;
    Ok(outcome)
}

/// The first call in play the floor can rule not binding (QueenSix NLHE 10), if any.
fn retract_call(sim: &mut TournamentSim) -> Result<bool, Failure> {
    for (table, hand) in hands_in_play(sim) {
        let live: Vec<_> = hand.seats_in_order().filter(|s| hand.is_live(*s)).collect();
        for seat in live {
            let command = HandCommand::RetractCall {
                seat,
                reason: "the bet was said softly; the caller put in a fifth of it".into(),
            };
            if league_engine::hand::decide(&hand, &command).is_ok() {
                sim.send(&TournamentCommand::Hand { table, command })?;
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The first live hand in play the floor can take the aggressive action of (Oracle exposing
/// cards 2), if any.
fn forfeit_aggression(sim: &mut TournamentSim) -> Result<bool, Failure> {
    for (table, hand) in hands_in_play(sim) {
        let live: Vec<_> = hand.seats_in_order().filter(|s| hand.is_live(*s)).collect();
        for seat in live {
            let command = HandCommand::ForfeitAggression {
                seat,
                reason: "turned a card face up after betting".into(),
            };
            if league_engine::hand::decide(&hand, &command).is_ok() {
                sim.send(&TournamentCommand::Hand { table, command })?;
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Each table with a hand in play, and the hand.
fn hands_in_play(sim: &TournamentSim) -> Vec<(u32, league_engine::hand::HandState)> {
    sim.state
        .tables()
        .iter()
        .filter_map(|(n, t)| Some((*n, *t.hand()?)).filter(|(_, h)| !h.is_over()))
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Ruling {
    Misdeal,
    Undersized,
    OutOfTurn,
    /// The clock called on the seat to act, and run out.
    Clock,
    /// Between hands, a chip moved from one stack to another at a table that has played.
    Correction,
    /// Between hands, a player put in an open seat at their table.
    SeatCorrection,
    /// Between hands, the next hand's button put at another player's seat.
    ButtonCorrection,
    /// A hand with three or more still in: the hand of a seat still to act, other than the
    /// one to act, declared dead.
    Kill,
    /// At a showdown with another hand still in, the floor impounds the pot, the first
    /// hand to show mucks, the floor retrieves it and releases the pot.
    Retrieve,
    /// At a showdown with another hand still in, the floor impounds the pot, the first
    /// hand to show mucks, another player asks to see it, and the pot is released.
    SeeHand,
    /// Release 0.17.0, WPH 31: on a street nobody has bet, the seat due after the one to
    /// act bets the least out of turn; the seat in turn bets three times as much, which
    /// releases it, and it folds, leaving its bet in the pot.
    BetStays,
}

impl Ruling {
    /// A seat or the button put right at the first table between hands that has played
    /// one, if any: the first seated player into the first open seat, or the button to
    /// the first seat it is not already due at.
    fn correct_position(self, sim: &mut TournamentSim) -> bool {
        let tables: Vec<(u32, Vec<(u8, PlayerId)>)> = sim
            .state
            .tables()
            .iter()
            .filter(|(_, t)| !t.in_hand() && t.hands > 0)
            .map(|(n, t)| (*n, t.seats.iter().map(|(s, p)| (*s, p.clone())).collect()))
            .collect();
        let size = sim.state.schedule().map_or(0, |s| s.table_size);
        for (table, seated) in tables {
            let commands: Vec<TournamentCommand> = match self {
                Ruling::SeatCorrection => {
                    let open = (0..size).find(|s| !seated.iter().any(|(t, _)| t == s));
                    match (seated.first(), open) {
                        (Some((_, player)), Some(seat)) => vec![TournamentCommand::CorrectSeat {
                            player: player.clone(),
                            table,
                            seat,
                            reason: "sat down at the wrong seat".into(),
                        }],
                        _ => continue,
                    }
                }
                _ => seated
                    .iter()
                    .map(|(seat, _)| TournamentCommand::CorrectButton {
                        table,
                        button: *seat,
                        reason: "the button was out of position last hand".into(),
                    })
                    .collect(),
            };
            for command in commands {
                if sim.send(&command).is_ok() {
                    return true;
                }
            }
        }
        false
    }

    /// A mucked hand turned up at the first table at a showdown with two hands or more.
    fn dispute(self, sim: &mut TournamentSim) -> Result<bool, Failure> {
        let tables = hands_in_play(sim);
        for (table, hand) in tables {
            let Some(first) = hand.to_show() else {
                continue;
            };
            let Some(other) = hand
                .seats_in_order()
                .find(|s| hand.is_live(*s) && *s != first)
            else {
                continue;
            };
            let hand_command = |command| TournamentCommand::Hand { table, command };
            let muck = HandCommand::Muck { seat: first };
            if league_engine::hand::decide(&hand, &muck).is_err() {
                continue;
            }
            // The pot is impounded before the muck: where the last hand wins unseen (WPH
            // 10B, Oracle showdown 7, release 0.17.0) a muck would otherwise end the hand.
            let commands = match self {
                Ruling::Retrieve => vec![
                    HandCommand::Impound {
                        reason: "the player says the dealer misread the board".into(),
                    },
                    muck,
                    HandCommand::Retrieve {
                        seat: first,
                        cards: None,
                        reason: "mucked on the dealer's misread; the cards lay apart".into(),
                    },
                    HandCommand::Release {
                        reason: "the hand is retrieved and live".into(),
                    },
                ],
                _ => vec![
                    HandCommand::Impound {
                        reason: "a player asks to see the mucked hand".into(),
                    },
                    muck,
                    HandCommand::SeeHand {
                        seat: first,
                        asked_by: other,
                        cards: None,
                    },
                    HandCommand::Release {
                        reason: "the hand is seen".into(),
                    },
                ],
            };
            for command in commands {
                sim.send(&hand_command(command))?;
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// The out-of-turn bet a larger bet releases, and the fold that leaves it in the pot.
    fn bet_stays(sim: &mut TournamentSim) -> Result<bool, Failure> {
        for (table, hand) in hands_in_play(sim) {
            let Some(legal) = hand.legal_actions() else {
                continue;
            };
            let Some(range) = legal.bet_or_raise else {
                continue;
            };
            let least = range.min;
            let three_times = least.saturating_mul(3);
            if hand.street() == league_engine::hand::Street::Preflop
                || hand.current_bet() != 0
                || range.raise
                || three_times > range.max
            {
                continue;
            }
            // Those still to act, in acting order from the seat to act.
            let due: Vec<_> = hand
                .seats_in_order()
                .filter(|s| hand.is_live(*s) && hand.stack(*s).is_some_and(|c| c > 0))
                .collect();
            let Some(at) = due.iter().position(|s| *s == legal.seat) else {
                continue;
            };
            let next = due[(at + 1) % due.len()];
            if next == legal.seat || hand.stack(next).is_none_or(|c| c < least) {
                continue;
            }
            let hand_command = |command| TournamentCommand::Hand { table, command };
            let declared = HandCommand::OutOfTurn {
                seat: next,
                action: Action::Bet(least),
            };
            if sim.send(&hand_command(declared)).is_err() {
                continue;
            }
            for (seat, action) in [(legal.seat, Action::Bet(three_times)), (next, Action::Fold)] {
                sim.send(&hand_command(HandCommand::Act { seat, action }))?;
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// Makes the ruling at the first table where it can be made now.
    fn try_on(self, sim: &mut TournamentSim) -> Result<bool, Failure> {
        if matches!(self, Ruling::Retrieve | Ruling::SeeHand) {
            return self.dispute(sim);
        }
        if let Ruling::BetStays = self {
            return Ruling::bet_stays(sim);
        }
        if matches!(self, Ruling::SeatCorrection | Ruling::ButtonCorrection) {
            return Ok(self.correct_position(sim));
        }
        if let Ruling::Correction = self {
            let tables: Vec<(u32, Vec<PlayerId>)> = sim
                .state
                .tables()
                .iter()
                .filter(|(_, t)| !t.in_hand() && t.hands > 0)
                .map(|(n, t)| (*n, t.seats.values().cloned().collect()))
                .collect();
            for (table, seated) in tables {
                let [from, to, ..] = seated.as_slice() else {
                    continue;
                };
                let correct = TournamentCommand::CorrectChips {
                    table,
                    from: from.clone(),
                    to: to.clone(),
                    chips: league_engine::units::Chips::new(1),
                    reason: "the pot was pushed to the wrong player".into(),
                };
                if sim.send(&correct).is_ok() {
                    return Ok(true);
                }
            }
            return Ok(false);
        }
        let tables = hands_in_play(sim);
        for (table, hand) in tables {
            let Some(legal) = hand.legal_actions() else {
                continue;
            };
            if let Ruling::Clock = self {
                let (now, _, _) = sim.state.clock();
                let call = TournamentCommand::CallClock {
                    table,
                    seat: legal.seat,
                    at: now,
                };
                if sim.send(&call).is_err() {
                    continue;
                }
                let expires = sim.state.tables()[&table]
                    .clock()
                    .map_or(now, |c| c.expires_at);
                sim.send(&TournamentCommand::ClockRanOut { table, at: expires })?;
                return Ok(true);
            }
            let command = match self {
                // Before anyone acts: the first seat to act is still the first.
                Ruling::Misdeal if hand.street() == league_engine::hand::Street::Preflop => {
                    HandCommand::Void {
                        reason: VoidReason::Misdeal("a card exposed in the deal".into()),
                    }
                }
                // A raise by one smallest chip (release 0.16.0: bets are made in it), less
                // than half a full raise, so that WPH 33's half rule makes it a call.
                Ruling::Undersized => match legal.bet_or_raise {
                    Some(range)
                        if range.raise && range.min > hand.current_bet() + 2 * hand.chip_unit() =>
                    {
                        HandCommand::Act {
                            seat: legal.seat,
                            action: Action::RaiseTo(hand.current_bet() + hand.chip_unit()),
                        }
                    }
                    _ => continue,
                },
                // The next seat to act declares a fold early, so that its turn comes (and
                // the declaration is ruled on) before the hand can end.
                Ruling::OutOfTurn => {
                    let mut live: Vec<_> =
                        hand.seats_in_order().filter(|s| hand.is_live(*s)).collect();
                    live.sort_unstable();
                    if live.len() < 3 {
                        continue;
                    }
                    let Some(seat) = live
                        .iter()
                        .find(|s| **s > legal.seat)
                        .or(live.first())
                        .copied()
                    else {
                        continue;
                    };
                    HandCommand::OutOfTurn {
                        seat,
                        action: Action::Fold,
                    }
                }
                Ruling::Kill => {
                    let Some(seat) = hand
                        .seats_in_order()
                        .filter(|s| hand.is_live(*s) && *s != legal.seat)
                        .find(|s| hand.bet(*s) < Some(hand.current_bet()))
                    else {
                        continue;
                    };
                    if hand.seats_in_order().filter(|s| hand.is_live(*s)).count() < 3 {
                        continue;
                    }
                    HandCommand::Kill {
                        seat,
                        cause: KillCause::ClearIntent,
                        reason: "pushed both cards toward the muck facing a bet".into(),
                    }
                }
                Ruling::Misdeal
                | Ruling::Clock
                | Ruling::Correction
                | Ruling::SeatCorrection
                | Ruling::ButtonCorrection
                | Ruling::Retrieve
                | Ruling::SeeHand
                | Ruling::BetStays => continue,
            };
            if sim
                .send(&TournamentCommand::Hand { table, command })
                .is_ok()
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// A results-only tournament cancelled after some play (re-buys made): its stream.
async fn cancelled(w: &mut Writer<'_>, players: &[PlayerId]) -> Result<(), Failure> {
    let id = "pennant-cancelled";
    let options = SimOptions {
        players: 12,
        preset: Preset::Wph,
        tracking: Tracking::Results,
        table_size: 9,
        rebuys: true,
        late: 0,
        ids: players.iter().take(14).cloned().collect(),
        venue: "pennant".into(),
        name_hands: false,
    };
    let mut sim = TournamentSim::new(2_000, options)?;
    sim.start()?;
    for _ in 0..12 {
        if sim.finished() {
            return Err(format!("{id} finished before it was cancelled").into());
        }
        sim.step()?;
    }
    sim.send(&TournamentCommand::Cancel {
        reason: "power cut: the venue closed for the night".into(),
    })?;
    w.append(&StreamKind::Tournament.stream(id), &sim.events)
        .await
}

/// Writes a golden log into `dir` (which must not hold one yet).
/// A cash table played through [`league_engine::cash::sim`] and closed, each command's
/// events appended as one batch.
async fn cash_table(
    w: &mut Writer<'_>,
    id: &str,
    preset: Preset,
    venue: &str,
    seed: u64,
) -> Result<(), Failure> {
    use league_engine::cash::{self, CashRules, HouseTake, TableConfig};
    use league_engine::units::Chips;
    let config = TableConfig {
        venue: venue.into(),
        name: format!("{} 1/2 No-Limit", preset.name()),
        small_blind: Chips::new(1),
        big_blind: Chips::new(2),
        min_buy_in: Chips::new(40),
        max_buy_in: Chips::new(200),
        seats: 9,
        rules: preset.rules(),
        straddle: CashRules::straddle(preset),
        take: match preset {
            Preset::Hippodrome => HouseTake::SessionFee {
                amount: Chips::new(3),
                period_minutes: 30,
            },
            _ => HouseTake::Rake(league_engine::hand::Rake {
                basis_points: 500,
                cap: 6,
                no_flop_no_drop: true,
            }),
        },
        run_twice: (preset == Preset::Hippodrome).then_some(Chips::new(100)),
    };
    let stream = StreamKind::Cash.stream(id);
    let mut session = cash::sim::Session::open(seed, config, 1_000_000)?;
    let mut sent = 0;
    for _ in 0..60 {
        session.between_hands();
        w.append(&stream, &session.events[sent..]).await?;
        sent = session.events.len();
        session.play(1, 120)?;
        w.append(&stream, &session.events[sent..]).await?;
        sent = session.events.len();
    }
    session.run(&cash::CashCommand::Close { at: session.now })?;
    w.append(&stream, &session.events[sent..]).await?;
    Ok(())
}

pub async fn write(dir: &Path) -> Result<Written, Failure> {
    std::fs::create_dir_all(dir)?;
    let db = dir.join(DATABASE);
    if db.exists() {
        return Err(format!("{} exists: a golden log is never rewritten", db.display()).into());
    }
    let url = format!("sqlite:{}", db.display());
    let store = Store::open(&url).await?;
    let written = play(&store).await?;
    let key = signing_key();
    let config = SealerConfig {
        signing_key: Some(key.clone()),
        sign_every_events: 2_000,
        ..SealerConfig::default()
    };
    store.seal_all(&config).await?;
    let rebuilt = league_app::rebuild::rebuild(&store, None).await?;
    let mut models = serde_json::Map::new();
    for doc in rebuilt.projector.docs()? {
        let value: serde_json::Value = serde_json::from_slice(&doc.doc)?;
        models.insert(format!("{}/{}", doc.kind, doc.key), value);
    }
    std::fs::write(
        dir.join(READ_MODELS),
        serde_json::to_string_pretty(&models)? + "\n",
    )?;
    std::fs::write(
        dir.join(PUBLIC_KEY),
        league_store::hash::to_hex(key.verifying_key().as_bytes()) + "\n",
    )?;
    store.execute_raw("VACUUM").await?;
    store.close().await;
    Ok(written)
}

async fn play(store: &Store) -> Result<Written, Failure> {
    let mut w = Writer {
        store,
        written: Written::default(),
        versions: BTreeMap::new(),
        commands: 0,
    };
    let mut league = League {
        stream: StreamKind::League.stream("golden"),
        state: LeagueState::new(),
    };
    league
        .send(
            &mut w,
            LeagueCommand::CreateLeague {
                name: "The golden league".into(),
                final_table: None,
                code: Some("golden".into()),
            },
        )
        .await?;
    for (venue, region) in [("queens-arms", "north"), ("pennant", "south")] {
        league
            .send(
                &mut w,
                LeagueCommand::AddVenue {
                    venue: venue.into(),
                    region: region.into(),
                    code: Some(venue.into()),
                },
            )
            .await?;
    }
    // A venue's code changed (release 0.6.0): the old one is free again.
    league
        .send(
            &mut w,
            LeagueCommand::SetVenueCode {
                venue: "pennant".into(),
                code: "wph".into(),
            },
        )
        .await?;
    // A venue's name and logo for its screens (release 0.5.0): a 1x1 PNG.
    league
        .send(
            &mut w,
            LeagueCommand::SetVenueDisplay {
                venue: "queens-arms".into(),
                name: "The Queen's Arms".into(),
                logo: Some(
                    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==".into(),
                ),
            },
        )
        .await?;
    league
        .send(
            &mut w,
            LeagueCommand::AddSeason {
                season: "season-1".into(),
                best_n: Some(3),
                scoring: ScoringRule::Formula {
                    text: "round(10 * sqrt(n) / sqrt(r)) - 9".into(),
                },
            },
        )
        .await?;
    let players: Vec<PlayerId> = (1..=40)
        .map(|i| PlayerId::new(format!("pl{i:03}")))
        .collect();
    for (i, player) in players.iter().enumerate() {
        league
            .send(
                &mut w,
                LeagueCommand::RegisterPlayer {
                    player: player.clone(),
                    name: format!("Player {}", i + 1),
                    membership: format!("M{:04}", i + 1),
                },
            )
            .await?;
    }
    // Every preset (the four tournament houses in two tracking modes each, the cardroom's
    // and the PHH format's in one), and every tracking mode under three presets at least.
    let plays: [(Preset, Tracking, usize, Rulings); 10] = [
        (
            Preset::QueenSix,
            Tracking::Dealt,
            12,
            Rulings {
                retract_call: true,
                ..Rulings::default()
            },
        ),
        (
            Preset::Oracle,
            Tracking::Dealt,
            12,
            Rulings {
                forfeit_aggression: true,
                ..Rulings::default()
            },
        ),
        (Preset::Wph, Tracking::Recorded, 12, Rulings::default()),
        (
            Preset::Invitational,
            Tracking::Recorded,
            12,
            Rulings::default(),
        ),
        (
            Preset::Hippodrome,
            Tracking::Recorded,
            10,
            Rulings::default(),
        ),
        (Preset::Wsop, Tracking::Dealt, 10, Rulings::default()),
        (
            Preset::QueenSix,
            Tracking::Results,
            30,
            Rulings {
                reinstate: true,
                ..Rulings::default()
            },
        ),
        (Preset::Oracle, Tracking::Results, 30, Rulings::default()),
        (
            Preset::Invitational,
            Tracking::Results,
            30,
            Rulings {
                absent_removed: true,
                ..Rulings::default()
            },
        ),
        (
            Preset::Wph,
            Tracking::Dealt,
            12,
            Rulings {
                walk_in: true,
                hands: true,
                payouts_and_deal: true,
                ..Rulings::default()
            },
        ),
    ];
    let mut recorded = Vec::new();
    for (i, (preset, tracking, field, rulings)) in plays.into_iter().enumerate() {
        let venue = if i % 2 == 0 { "queens-arms" } else { "pennant" };
        let id = format!("{venue}-{}", i + 1);
        let ids: Vec<PlayerId> = players
            .iter()
            .cycle()
            .skip(i * 3)
            .take(field + 2)
            .cloned()
            .collect();
        let options = SimOptions {
            players: field,
            preset,
            tracking,
            table_size: 9,
            rebuys: i % 3 != 2,
            late: 2,
            ids,
            venue: venue.into(),
            // Release 0.6.0: a hand named by its command; the other venue's hands have no
            // id (their ids are derived).
            name_hands: i % 2 == 1,
        };
        let seed = 1_000 + u64::try_from(i)?;
        let outcome = tournament(&mut w, &id, seed, options, rulings).await?;
        if i == 5 {
            // Halfway: the formula changes, and the season is re-scored.
            league
                .send(
                    &mut w,
                    LeagueCommand::SetFormula {
                        season: "season-1".into(),
                        scoring: ScoringRule::Formula {
                            text: "n - r + 1".into(),
                        },
                    },
                )
                .await?;
            // And the season gets TD3's log-method score (release 0.4.0).
            league
                .send(
                    &mut w,
                    LeagueCommand::SetSeasonScore {
                        season: "season-1".into(),
                        score: Some(SeasonScoreRule {
                            tournament: "log((n + 1) / r)".into(),
                            overall: "(1 - exp(-average(scores))) * 100".into(),
                            order: ScoreOrder::BreaksTies,
                        }),
                    },
                )
                .await?;
        }
        league
            .send(
                &mut w,
                LeagueCommand::RecordTournament {
                    outcome: outcome.clone(),
                },
            )
            .await?;
        recorded.push(outcome);
    }
    // A result corrected: the first tournament's winner and runner-up swapped.
    if let Some(mut outcome) = recorded.first().cloned() {
        if outcome.finishes.len() >= 2 {
            let (a, b) = (
                outcome.finishes[0].player.clone(),
                outcome.finishes[1].player.clone(),
            );
            outcome.finishes[0].player = b;
            outcome.finishes[1].player = a;
        }
        league
            .send(
                &mut w,
                LeagueCommand::AmendTournament {
                    outcome,
                    reason: "winner and runner-up entered the wrong way round".into(),
                },
            )
            .await?;
    }
    // A tournament called off after some play: every entrant refunded.
    cancelled(&mut w, &players).await?;
    // Release 0.12.0: the tournaments ruled on hand by hand also have a stack put right
    // between hands (`Ruling::Correction`); release 0.13.0, a seat and the button
    // (`Ruling::SeatCorrection`, `Ruling::ButtonCorrection`); release 0.14.0, a hand killed
    // out of turn (`Ruling::Kill`); release 0.16.0, a mucked hand retrieved with the pot
    // impounded (`Ruling::Retrieve`) and one seen on request (`Ruling::SeeHand`); release
    // 0.17.0, an out-of-turn bet left in the pot by a released bettor who folds
    // (`Ruling::BetStays`).
    // Cash tables (release 0.10.0): an Oracle table with its straddle and (release 0.11.0)
    // a rake from each pot, and a Hippodrome table with a session fee, each appended
    // command by command.
    for (i, (preset, venue)) in [
        (Preset::Oracle, "queens-arms"),
        (Preset::Hippodrome, "pennant"),
    ]
    .into_iter()
    .enumerate()
    {
        cash_table(
            &mut w,
            &format!("{venue}-cash"),
            preset,
            venue,
            2_000 + u64::try_from(i)?,
        )
        .await?;
    }
    league
        .send(
            &mut w,
            LeagueCommand::RenamePlayer {
                player: players[4].clone(),
                name: "Player Five (Jo)".into(),
            },
        )
        .await?;
    // Duplicate registrations found: one merged into the player it duplicates, and one
    // merged into the wrong player, then unmerged.
    for (keep, duplicate, undo) in [(0, "pl001-again", false), (1, "pl002-again", true)] {
        let (keep, merge) = (players[keep].clone(), PlayerId::from(duplicate));
        league
            .send(
                &mut w,
                LeagueCommand::RegisterPlayer {
                    player: merge.clone(),
                    name: format!("{} (registered twice)", keep.as_str()),
                    membership: format!("M-{duplicate}"),
                },
            )
            .await?;
        league
            .send(
                &mut w,
                LeagueCommand::MergePlayers {
                    keep: keep.clone(),
                    merge: merge.clone(),
                },
            )
            .await?;
        if undo {
            league
                .send(&mut w, LeagueCommand::UnmergePlayers { keep, merge })
                .await?;
        }
    }
    // The season over: its standings final, its results no longer held (release 0.9.0).
    league
        .send(
            &mut w,
            LeagueCommand::CloseSeason {
                season: "season-1".into(),
            },
        )
        .await?;
    Ok(w.written)
}
