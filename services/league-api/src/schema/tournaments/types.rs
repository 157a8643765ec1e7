//! The tournament domain's GraphQL types: output types wrapping the read models of
//! `league-projections` (a tournament's dashboard view, a table as a caller may see it),
//! and the enums and input objects its mutations take.

use super::inputs::TrackingMode;
use crate::schema::scalars::{Cents, Chips, Millis};
use async_graphql::{Enum, ID, InputObject, Object, SimpleObject};
use league_engine::card::Card;
use league_engine::hand::{Action, AnteStructure, LegalActions, Seat, Street};
use league_engine::tournament::play::{Blinds, Level, Penalty, Pending, Stage, Tracking};

pub use super::penalties::{LeastPenalty, PenaltyKind, PenaltyOut, SittingOut};
use league_projections::views::{TableView, TournamentView};

/// Where a tournament is.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TournamentStage {
    /// Not scheduled: no schedule has been accepted for the id.
    New,
    /// Scheduled and taking registrations; not started.
    Scheduled,
    /// Started: the seats are drawn and the clock runs.
    Running,
    /// Over: `results` holds every player's finish.
    Finished,
    /// Called off by the venue's staff: `cancelled` says why and what each entrant was
    /// refunded; every command is refused.
    Cancelled,
}

impl From<Stage> for TournamentStage {
    fn from(s: Stage) -> TournamentStage {
        match s {
            Stage::New => TournamentStage::New,
            Stage::Scheduled => TournamentStage::Scheduled,
            Stage::Running => TournamentStage::Running,
            Stage::Finished => TournamentStage::Finished,
            Stage::Cancelled => TournamentStage::Cancelled,
        }
    }
}

/// A cancelled tournament.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "Cancellation")]
pub struct CancellationOut {
    /// Why, as the staff gave it.
    pub reason: String,
    /// Each entrant who had paid, and everything they paid (entries, re-buys, add-ons and
    /// fees), refunded.
    pub refunds: Vec<RefundOut>,
}

/// One entrant's refund.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "Refund")]
pub struct RefundOut {
    /// The player's id.
    pub player: ID,
    /// What they are refunded.
    pub amount: Cents,
}

/// How antes are posted.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum AnteKind {
    /// No ante.
    None,
    /// Every player dealt in posts `amount`.
    Uniform,
    /// The big blind posts one ante of `amount` for the table.
    BigBlind,
}

/// The antes of a level or a hand.
#[derive(SimpleObject, Clone, Copy, Debug)]
#[graphql(name = "Ante")]
pub struct AnteOut {
    /// How the antes are posted.
    pub kind: AnteKind,
    /// Chips each ante is (0 with no ante).
    pub amount: Chips,
}

impl From<AnteStructure> for AnteOut {
    fn from(a: AnteStructure) -> AnteOut {
        match a {
            AnteStructure::None => AnteOut {
                kind: AnteKind::None,
                amount: Chips::of(0),
            },
            AnteStructure::Uniform(amount) => AnteOut {
                kind: AnteKind::Uniform,
                amount: Chips::of(amount),
            },
            AnteStructure::BigBlind(amount) => AnteOut {
                kind: AnteKind::BigBlind,
                amount: Chips::of(amount),
            },
        }
    }
}

/// The forced bets a hand starts with.
#[derive(SimpleObject, Clone, Copy, Debug)]
#[graphql(name = "Blinds")]
pub struct BlindsOut {
    /// The small blind, in chips.
    pub small_blind: Chips,
    /// The big blind, in chips.
    pub big_blind: Chips,
    /// The antes.
    pub ante: AnteOut,
}

impl From<Blinds> for BlindsOut {
    fn from(b: Blinds) -> BlindsOut {
        BlindsOut {
            small_blind: Chips(b.small_blind),
            big_blind: Chips(b.big_blind),
            ante: b.ante.into(),
        }
    }
}

/// A betting round.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "Street")]
pub enum StreetOut {
    /// Before the flop: hole cards only.
    Preflop,
    /// After the first three board cards.
    Flop,
    /// After the fourth board card.
    Turn,
    /// After the fifth and last board card.
    River,
}

impl From<Street> for StreetOut {
    fn from(s: Street) -> StreetOut {
        match s {
            Street::Preflop => StreetOut::Preflop,
            Street::Flop => StreetOut::Flop,
            Street::Turn => StreetOut::Turn,
            Street::River => StreetOut::River,
        }
    }
}

/// The amounts a bet or raise may go to: any total for the round from `min` to `max`
/// (`max` puts the player all-in).
#[derive(SimpleObject, Clone, Copy, Debug)]
pub struct BetRange {
    /// `true`: a raise (`RAISE_TO`); `false`: an opening bet (`BET`).
    pub raise: bool,
    /// The smallest total for the round, in chips: a full bet or raise, or all the player's
    /// chips when they have less.
    pub min: Chips,
    /// The largest total for the round, in chips: all the player's chips (their stack and
    /// what they have put in this round).
    pub max: Chips,
}

/// What the seat to act may do now, with exact amounts, as the engine offers them: a venue
/// app offers these and nothing else.
#[derive(SimpleObject, Clone, Copy, Debug)]
#[graphql(name = "LegalActions")]
pub struct LegalActionsOut {
    /// The seat to act.
    pub seat: Seat,
    /// Whether the seat may fold (always, even with nothing to call).
    pub can_fold: bool,
    /// Whether the seat may check: there is nothing to call.
    pub can_check: bool,
    /// Chips a call adds (less than the amount facing when it puts the player all-in);
    /// `null` when there is nothing to call.
    pub call: Option<Chips>,
    /// The bet or raise the seat may make; `null` when it may not (covered, or the betting
    /// is not open to it).
    pub bet_or_raise: Option<BetRange>,
}

impl From<LegalActions> for LegalActionsOut {
    fn from(l: LegalActions) -> LegalActionsOut {
        LegalActionsOut {
            seat: l.seat,
            can_fold: l.can_fold,
            can_check: l.can_check,
            call: l.call.map(Chips::of),
            bet_or_raise: l.bet_or_raise.map(|r| BetRange {
                raise: r.raise,
                min: Chips::of(r.min),
                max: Chips::of(r.max),
            }),
        }
    }
}

/// The clock called on the player to act.
#[derive(SimpleObject, Clone, Debug)]
pub struct TableClock {
    /// The seat the clock runs on, from 0.
    pub seat: Seat,
    /// When it was called, in milliseconds since the epoch.
    pub called_at: Millis,
    /// When the hand is dead if the seat has not acted, in milliseconds since the epoch:
    /// the house's time and its final countdown after `calledAt`.
    pub expires_at: Millis,
}

/// Where the button and the blinds go for a table's next hand.
#[derive(SimpleObject, Clone, Copy, Debug)]
pub struct NextHand {
    /// The button's seat, from 0: a player's, or an empty seat under a dead button.
    pub button: Seat,
    /// The small blind's seat, from 0: the button's own heads-up, or an empty seat when
    /// the small blind is dead (nobody posts it).
    pub small_blind: Seat,
    /// The big blind's seat, from 0: always a player's.
    pub big_blind: Seat,
}

/// An action declared out of turn, waiting for its player's turn.
#[derive(SimpleObject, Clone, Debug)]
#[graphql(name = "OutOfTurn")]
pub struct OutOfTurnOut {
    /// The seat that acted out of turn, from 0.
    pub seat: Seat,
    /// What it declared.
    pub action: ActionKind,
    /// For a bet or raise, the total declared for the street.
    pub amount: Option<Chips>,
}

/// A pot of the hand in progress.
#[derive(SimpleObject, Clone, Debug)]
pub struct Pot {
    /// The chips in the pot; `null` where the table's `pot` is (a house that does not
    /// count no-limit pots for players).
    pub amount: Option<Chips>,
    /// The seats that have put in this pot's share and not folded: they can win it as the
    /// betting stands. During a betting round the pots are as the bets stand now: a seat
    /// yet to act joins the pots it calls, and a bet no one has matched yet shows as a pot
    /// of its bettor alone (returned to them if no one does).
    pub seats: Vec<Seat>,
}

/// A level of the structure.
#[derive(SimpleObject, Clone, Debug)]
pub struct LevelOut {
    /// `play` or `break`.
    pub kind: String,
    /// The level's length, in minutes.
    pub minutes: u32,
    /// The small blind of a play level, in chips; `null` for a break.
    pub small_blind: Option<Chips>,
    /// The big blind of a play level, in chips; `null` for a break.
    pub big_blind: Option<Chips>,
    /// The antes of a play level.
    pub ante: Option<AnteOut>,
    /// A colour-up during this break: the chip leaving play; `null` without a colour-up.
    pub colour_up_low: Option<Chips>,
    /// A colour-up during this break: the chip `colourUpLow` chips are exchanged for;
    /// `null` without a colour-up.
    pub colour_up_high: Option<Chips>,
}

impl From<Level> for LevelOut {
    fn from(l: Level) -> LevelOut {
        match l {
            Level::Play { blinds, minutes } => LevelOut {
                kind: "play".into(),
                minutes,
                small_blind: Some(Chips(blinds.small_blind)),
                big_blind: Some(Chips(blinds.big_blind)),
                ante: Some(blinds.ante.into()),
                colour_up_low: None,
                colour_up_high: None,
            },
            Level::Break { minutes, colour_up } => LevelOut {
                kind: "break".into(),
                minutes,
                small_blind: None,
                big_blind: None,
                ante: None,
                colour_up_low: colour_up.map(|d| Chips(d.low)),
                colour_up_high: colour_up.map(|d| Chips(d.high)),
            },
        }
    }
}

/// A player's chips at a seat.
#[derive(SimpleObject, Clone, Debug)]
pub struct SeatChips {
    /// The seat number, from 0.
    pub seat: Seat,
    /// The player's id.
    pub player: ID,
    /// The player's chips: as they were when the hand in progress at the table started;
    /// between hands, now.
    pub chips: Chips,
}

/// One table's seating.
#[derive(SimpleObject, Clone, Debug)]
pub struct TableSeating {
    /// The table number, from 1.
    pub table: u32,
    /// The occupied seats, by seat number.
    pub seats: Vec<SeatChips>,
}

/// A player's place (players still in share place 1).
#[derive(SimpleObject, Clone, Debug)]
pub struct Place {
    /// The player's id.
    pub player: ID,
    /// The place: 1 for every player still in; for a player who is out, the place they
    /// finished in (players sharing a place all have the top place they share).
    pub place: u32,
    /// How many players share the place: for place 1 while play goes on, the players still
    /// in; players out in the same hand-for-hand round, or out at separate tables in an
    /// unknown order (`eliminate` with `orderUnknown`), share theirs; else 1.
    pub shared: u32,
}

/// One player's final result.
#[derive(SimpleObject, Clone, Debug)]
pub struct FinishOut {
    /// The player's id.
    pub player: ID,
    /// The finishing place; 1 is the winner, and players sharing a place all have the top
    /// place they share.
    pub place: u32,
    /// How many players share the place (1 when alone).
    pub shared: u32,
    /// The prize won, in cents.
    pub prize: Cents,
    /// Entries the player bought, re-entries included.
    pub entries: u32,
    /// Re-buys the player made.
    pub rebuys: u32,
    /// Add-ons the player made.
    pub add_ons: u32,
    /// Players this player knocked out.
    pub knockouts: u32,
}

/// What is pending at a tournament.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum PendingKind {
    /// Run the redraw (`redraw`) onto `tables` tables; no hand starts before it
    /// (`REDRAW_DUE`).
    Redraw,
    /// Colour up (`colourUp`): `low` chips leave play for `high` ones (`COLOUR_UP_DUE`).
    ColourUp,
    /// `players` must re-buy or decline before their table deals again
    /// (`REBUY_DECISION_PENDING`).
    RebuyDecisions,
    /// Hand-for-hand: `tables` are still to play this round's hand; the others wait
    /// (`HAND_FOR_HAND_WAITING`).
    HandForHand,
    /// Play halts at `tables` until players are moved there (`TABLE_HALTED`).
    Halted,
    /// Table `tables[0]` breaks once its hand in progress is over.
    TableToBreak,
    /// A player moves from `fromTable`/`fromSeat` to `toTable`/`toSeat` once the hand there
    /// is over (`rule`, `reason`).
    Move,
    /// Every window that adds to the prize pool has closed: the `pool` is final, and the
    /// payout table's `prizes` for it wait to be announced (`setPayouts`, with these or
    /// others). Nothing waits on it.
    AnnouncePayouts,
}

/// One thing pending at a tournament: what the host must do, or what waits on a hand.
#[derive(SimpleObject, Clone, Debug)]
pub struct PendingAction {
    /// What is pending.
    pub kind: PendingKind,
    /// The tables concerned (empty for a colour-up: every table).
    pub tables: Vec<u32>,
    /// The players concerned.
    pub players: Vec<ID>,
    /// A redraw that draws seats (else buttons only).
    pub seats: Option<bool>,
    /// A colour-up's chip leaving play (`COLOUR_UP`).
    pub low: Option<Chips>,
    /// A colour-up's chip the `low` chips are exchanged for (`COLOUR_UP`).
    pub high: Option<Chips>,
    /// A move's table the player leaves (`MOVE`).
    pub from_table: Option<u32>,
    /// A move's seat the player leaves, from 0 (`MOVE`).
    pub from_seat: Option<Seat>,
    /// A move's table the player goes to (`MOVE`).
    pub to_table: Option<u32>,
    /// A move's seat the player goes to, from 0 (`MOVE`).
    pub to_seat: Option<Seat>,
    /// The house rule applied to a move.
    pub rule: Option<String>,
    /// Why, in words an auditor can check.
    pub reason: Option<String>,
    /// The final prize pool, in cents (`ANNOUNCE_PAYOUTS`).
    pub pool: Option<Cents>,
    /// The payout table's prizes for the pool, first place first, in cents
    /// (`ANNOUNCE_PAYOUTS`).
    pub prizes: Option<Vec<Cents>>,
}

impl From<&Pending> for PendingAction {
    fn from(p: &Pending) -> PendingAction {
        let bare = |kind| PendingAction {
            kind,
            tables: Vec::new(),
            players: Vec::new(),
            seats: None,
            low: None,
            high: None,
            from_table: None,
            from_seat: None,
            to_table: None,
            to_seat: None,
            rule: None,
            reason: None,
            pool: None,
            prizes: None,
        };
        match p {
            Pending::Redraw { tables, seats } => PendingAction {
                seats: Some(*seats),
                tables: (1..=*tables).collect(),
                ..bare(PendingKind::Redraw)
            },
            Pending::ColourUp { low, high } => PendingAction {
                low: Some(Chips(*low)),
                high: Some(Chips(*high)),
                ..bare(PendingKind::ColourUp)
            },
            Pending::RebuyDecisions { players } => PendingAction {
                players: players.iter().map(|p| p.to_string().into()).collect(),
                ..bare(PendingKind::RebuyDecisions)
            },
            Pending::HandForHand { waiting } => PendingAction {
                tables: waiting.clone(),
                ..bare(PendingKind::HandForHand)
            },
            Pending::Halted { tables } => PendingAction {
                tables: tables.clone(),
                ..bare(PendingKind::Halted)
            },
            Pending::AnnouncePayouts { pool, prizes } => PendingAction {
                pool: Some(Cents(*pool)),
                prizes: Some(prizes.iter().copied().map(Cents).collect()),
                ..bare(PendingKind::AnnouncePayouts)
            },
            Pending::TableToBreak { table } => PendingAction {
                tables: vec![*table],
                ..bare(PendingKind::TableToBreak)
            },
            Pending::Move(m) => PendingAction {
                tables: vec![m.from_table, m.to_table],
                from_table: Some(m.from_table),
                from_seat: Some(m.from_seat),
                to_table: Some(m.to_table),
                to_seat: Some(m.to_seat),
                rule: Some(m.rule.clone()),
                reason: Some(m.reason.clone()),
                ..bare(PendingKind::Move)
            },
        }
    }
}

/// A tournament as its dashboard shows it.
pub struct TournamentOut(pub TournamentView);

/// A tournament as its dashboard shows it: its stage and clock, entries and money, seating
/// and places, and what is pending.
#[Object(name = "Tournament")]
impl TournamentOut {
    /// The tournament's id (its stream is `tournament:<id>`).
    async fn id(&self) -> async_graphql::ID {
        league_events::StreamKind::Tournament
            .id_of(&self.0.stream)
            .unwrap_or(&self.0.stream)
            .into()
    }
    /// The tournament's name, as scheduled.
    async fn name(&self) -> &str {
        &self.0.name
    }
    /// The id of the venue it is played at.
    async fn venue(&self) -> async_graphql::ID {
        self.0.venue.as_str().into()
    }
    /// When it is scheduled to start, in milliseconds since the epoch (`startsAt` of the
    /// schedule).
    async fn starts_at(&self) -> Millis {
        Millis(self.0.starts_at)
    }
    /// Where the tournament is: scheduled, running or finished.
    async fn stage(&self) -> TournamentStage {
        self.0.stage.into()
    }
    /// `dealt`, `recorded` or `results`.
    async fn tracking(&self) -> Option<TrackingMode> {
        self.0.tracking.map(|t| match t {
            Tracking::Dealt => TrackingMode::Dealt,
            Tracking::Recorded => TrackingMode::Recorded,
            Tracking::Results => TrackingMode::Results,
        })
    }
    /// The current level, numbered from 1 in the structure's order, breaks included (1
    /// before the start); `null` only for a tournament not yet scheduled.
    async fn level(&self) -> Option<u32> {
        self.0.level
    }
    /// The current level's blinds, antes and length (before the start, the first level's).
    async fn level_spec(&self) -> Option<LevelOut> {
        self.0.level_spec.map(LevelOut::from)
    }
    /// When the current level started, in milliseconds since the epoch; 0 before the start.
    async fn level_started_at(&self) -> Millis {
        Millis(self.0.level_started_at)
    }
    /// When the clock was paused (or, for a level started while it was paused, when that
    /// level started), in milliseconds since the epoch; `null` while the clock runs.
    async fn paused_since(&self) -> Option<Millis> {
        self.0.paused_since.map(Millis)
    }
    /// Whether the clock is paused.
    async fn paused(&self) -> bool {
        self.0.paused_since.is_some()
    }
    /// When the current level ends (milliseconds since the epoch) if the clock keeps
    /// running; `null` while paused, at the last level, or before the start. The server
    /// starts the next level then; a dashboard counts down to it.
    async fn level_ends_at(&self) -> Option<Millis> {
        self.0.level_ends_at.map(Millis)
    }
    /// Milliseconds left in the level when this answer was made (a subscription's answer
    /// is made when the tournament changes: count down from `levelEndsAt` instead).
    async fn time_left(&self, ctx: &async_graphql::Context<'_>) -> Option<i64> {
        self.0
            .level_ends_at
            .map(|end| end.saturating_sub(crate::schema::now_millis(ctx)).max(0))
    }
    /// The level after this one (before the start: the second level); `null` at the last
    /// level and once the tournament is over.
    async fn next_level(&self) -> Option<LevelOut> {
        self.0.next_level.map(LevelOut::from)
    }
    /// When the next break starts (milliseconds since the epoch) if the clock keeps
    /// running.
    async fn next_break_at(&self) -> Option<Millis> {
        self.0.next_break_at.map(Millis)
    }
    /// The chips in play divided by the players still in, rounded down; 0 unless running.
    async fn average_stack(&self) -> Chips {
        Chips(self.0.average_stack)
    }
    /// What the host must do, or what waits on a hand in progress, before play goes on.
    /// A command refused because of one names it in its code.
    async fn pending(&self) -> Vec<PendingAction> {
        self.0.pending.iter().map(PendingAction::from).collect()
    }
    /// Entries bought, late entries and re-entries included.
    async fn entries(&self) -> u64 {
        self.0.entries
    }
    /// Re-buys made, all players together.
    async fn rebuys(&self) -> u64 {
        self.0.rebuys
    }
    /// Add-ons made, all players together.
    async fn add_ons(&self) -> u64 {
        self.0.add_ons
    }
    /// Players still in: seated, or busted and still free to re-buy.
    async fn remaining(&self) -> u32 {
        self.0.remaining
    }
    /// Players who entered, each counted once however many times they re-entered.
    async fn field(&self) -> u32 {
        self.0.field
    }
    /// The prize pool, in cents: what the purchases put in (after the house's cut), or the
    /// guarantee when that is more.
    async fn prize_pool(&self) -> Cents {
        Cents(self.0.prize_pool)
    }
    /// The prizes as they stand, in cents, first place first: the amounts `setPayouts`
    /// announced for the current pool, else the payout table's for this field and pool;
    /// once the tournament is over, what its results pay, so after a deal the places its
    /// players share carry the deal's amounts, largest first.
    async fn prizes(&self) -> Vec<Cents> {
        match &self.0.results {
            Some(results) => {
                let mut paid: Vec<(u32, u64)> = results
                    .iter()
                    .filter(|r| !r.prize.is_zero())
                    .map(|r| (r.place, r.prize.get()))
                    .collect();
                paid.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
                paid.into_iter()
                    .map(|(_, prize)| Cents::of(prize))
                    .collect()
            }
            None => self.0.prizes.iter().copied().map(Cents).collect(),
        }
    }
    /// Whether play is hand-for-hand (from one player off the money, while two or more
    /// tables play): every table plays one hand per round, and players out in the same round
    /// share their places.
    async fn hand_for_hand(&self) -> bool {
        self.0.hand_for_hand
    }
    /// Each table's seats and chips, by table number (from 1).
    async fn tables(&self) -> Vec<TableSeating> {
        self.0
            .tables
            .iter()
            .map(|(&table, seats)| TableSeating {
                table,
                seats: seats
                    .iter()
                    .map(|(seat, player, chips)| SeatChips {
                        seat: *seat,
                        player: player.to_string().into(),
                        chips: Chips(*chips),
                    })
                    .collect(),
            })
            .collect()
    }
    /// Every player's place so far: players still in share place 1, players out hold the
    /// place they finished in.
    async fn places(&self) -> Vec<Place> {
        self.0
            .places
            .iter()
            .map(|(player, (place, shared))| Place {
                player: player.to_string().into(),
                place: *place,
                shared: *shared,
            })
            .collect()
    }
    /// Once the tournament is cancelled: why, and what each entrant was refunded.
    async fn cancelled(&self) -> Option<CancellationOut> {
        self.0.cancelled.as_ref().map(|c| CancellationOut {
            reason: c.reason.clone(),
            refunds: c
                .refunds
                .iter()
                .map(|r| RefundOut {
                    player: r.player.to_string().into(),
                    amount: Cents(r.amount),
                })
                .collect(),
        })
    }
    /// Every penalty the staff gave, in the order given.
    async fn penalties(&self) -> Vec<PenaltyOut> {
        self.0.penalties.iter().map(PenaltyOut::from).collect()
    }
    /// The least penalty `player`'s next infraction may get where the house's book says
    /// repeat infractions escalate (WPH 47, Oracle tournament 4): the rung above the
    /// heaviest they have had on warning, one hand, one to four rounds, then
    /// disqualification. `null` for a first infraction, a house that leaves it to its
    /// staff, a player who is out, or an id not in the tournament. `penalise` refuses a lighter one
    /// (`CONTRADICTS_PRESET`, field `penalty`); a forfeiture of chips is taken at any
    /// time.
    async fn least_penalty(&self, player: ID) -> Option<LeastPenalty> {
        let penalty = *self.0.least_penalties.get(player.as_str())?;
        Some(LeastPenalty {
            kind: PenaltyKind::of(penalty),
            count: match penalty {
                Penalty::MissHands(n) | Penalty::MissRounds(n) => Some(n),
                _ => None,
            },
            text: penalty.to_string(),
        })
    }
    /// The players sitting out a missed-hands penalty, with the hands each has left: dealt
    /// in, their blinds and antes posted, their hand folded, until it is served.
    async fn sitting_out(&self) -> Vec<SittingOut> {
        self.0
            .sitting_out
            .iter()
            .map(|(player, &hands_left)| SittingOut {
                player: ID(player.to_string()),
                hands_left,
            })
            .collect()
    }
    /// The final results, once the tournament is over.
    async fn results(&self) -> Option<Vec<FinishOut>> {
        self.0.results.as_ref().map(|r| {
            r.iter()
                .map(|f| FinishOut {
                    player: f.player.to_string().into(),
                    place: f.place,
                    shared: f.shared,
                    prize: Cents(f.prize),
                    entries: f.entries,
                    rebuys: f.rebuys,
                    add_ons: f.add_ons,
                    knockouts: f.knockouts,
                })
                .collect()
        })
    }
}

/// One seat at a table.
#[derive(SimpleObject, Clone, Debug)]
pub struct SeatOut {
    /// The seat number, from 0.
    pub seat: Seat,
    /// The player's id.
    pub player: ID,
    /// The player's stack, in chips: during a hand, what is left after this hand's bets;
    /// between hands, all their chips.
    pub chips: Chips,
    /// Whether the player is marked absent (`markAbsent`) and has not yet arrived.
    pub absent: bool,
    /// Whether the player is dealt into the hand in progress and has neither folded nor
    /// mucked (all-in included).
    pub in_hand: bool,
    /// The hole cards this caller may see (`["Ah", "Kd"]`): shown cards, a player's own,
    /// or for an auditor every card of a completed hand; `null` otherwise.
    pub cards: Option<Vec<String>>,
    /// Chips put in during this betting round (blinds count); 0 between hands.
    pub bet: Chips,
    /// Whether the floor took the player's aggressive action away for the hand in progress
    /// (`forfeitAggression`: Oracle exposing cards, Hippodrome irregularities 9): they may
    /// check, call or fold, never bet or raise. `false` between hands.
    pub aggression_forfeited: bool,
}

/// An unsold seat's stack: placed by the staff (`placeUnsoldStack`) where the house's
/// book says (invitational 2.7, QueenSix tournament 4), dealt in, blinded and folded as an
/// absent player's; it has no player, place or prize.
#[derive(SimpleObject, Clone, Debug)]
pub struct UnsoldSeat {
    /// The seat number, from 0.
    pub seat: Seat,
    /// The stack, in chips: during a hand, what is left after this hand's bets; between
    /// hands, all of it.
    pub chips: Chips,
    /// Whether the stack is dealt into the hand in progress and its hand not folded (an
    /// unsold seat all in on a blind, where the house keeps such a hand live).
    pub in_hand: bool,
    /// Chips put in during this betting round (blinds count); 0 between hands.
    pub bet: Chips,
}

/// A table as the caller may see it.
pub struct TableOut {
    pub view: TableView,
    /// The tournament stream's version the view reflects.
    pub version: u64,
    /// The current (or last) hand's id, as [`crate::schema::object_ids::hand_id`] gives it.
    pub hand_id: Option<String>,
}

impl TableOut {
    /// The view of a table of the tournament `tournament` at `version`.
    pub fn new(tournament: &str, view: TableView, version: u64) -> TableOut {
        TableOut {
            hand_id: crate::schema::object_ids::hand_id(tournament, &view),
            view,
            version,
        }
    }
}

/// A table as the caller may see it: its seats and chips, the hand in progress and what
/// the seat to act may do. The public sees shown cards; a player also their own; an
/// auditor (or admin) every card of a completed hand.
#[Object(name = "Table")]
impl TableOut {
    /// The table number, from 1.
    async fn table(&self) -> u32 {
        self.view.table
    }
    /// The tournament stream's version this view reflects: a command's result carries the
    /// version it produced, so a dashboard can tell which command it is seeing.
    async fn version(&self) -> u64 {
        self.version
    }
    /// Hands started at this table.
    async fn hand(&self) -> u32 {
        self.view.hand
    }
    /// The id of the hand in progress (or of the last one between hands; `null` before the
    /// table's first): the UUID `startHand` named or generated, or, for a hand started
    /// without one, the id derived from its tournament, table and number
    /// (`docs/graphql.md`, Identifiers).
    async fn hand_id(&self) -> Option<ID> {
        self.hand_id.clone().map(ID)
    }
    /// Whether a hand is in progress at the table.
    async fn in_hand(&self) -> bool {
        self.view.in_hand
    }
    /// The button's seat (from 0) in the hand in progress, or in the last one between
    /// hands; `null` before the table's first hand, and after a redraw or a button
    /// correction (`correctButton`) until the next hand (`nextHand` shows where it goes).
    async fn button(&self) -> Option<Seat> {
        self.view.button
    }
    /// The board cards dealt so far (`["Ah", "Kd", "7c"]`) in the hand in progress, or in
    /// the last one between hands; empty before the flop.
    async fn board(&self) -> Vec<String> {
        self.view.board.iter().map(Card::to_string).collect()
    }
    /// The chips in the middle for the hand in progress (every bet, blind and ante put in,
    /// less what has been awarded); 0 between hands. `null` while a hand is played at a
    /// house that tells players the pot's size in pot-limit games only (WPH 38, Oracle
    /// "Pot Size": every game here is no-limit) to anyone but an auditor or an admin of
    /// the venue's league: players, the venue's screens and its host see each seat's `bet`,
    /// as at the table, and not the count.
    async fn pot(&self) -> Option<Chips> {
        self.view.pot.map(Chips)
    }
    /// The seat (from 0) to act while a betting round is in progress; `null` otherwise.
    async fn to_act(&self) -> Option<Seat> {
        self.view.to_act
    }
    /// The highest total bet of the betting round in progress, in chips (blinds count): the
    /// total a call matches. Read it while a seat is to act (`toAct`); otherwise it may
    /// still hold the last round's figure.
    async fn current_bet(&self) -> Chips {
        Chips(self.view.current_bet)
    }
    /// The occupied seats, by seat number.
    async fn seats(&self) -> Vec<SeatOut> {
        self.view
            .seats
            .iter()
            .map(|s| SeatOut {
                seat: s.seat,
                player: s.player.to_string().into(),
                chips: Chips(s.chips),
                absent: s.absent,
                in_hand: s.in_hand,
                cards: s.cards.map(|c| c.iter().map(Card::to_string).collect()),
                bet: Chips(s.bet),
                aggression_forfeited: s.aggression_forfeited,
            })
            .collect()
    }
    /// The seats holding an unsold seat's stack (`placeUnsoldStack`), by seat number: the
    /// button and blinds move over them and they are dealt in, but they are nobody's.
    async fn unsold_seats(&self) -> Vec<UnsoldSeat> {
        self.view
            .unsold
            .iter()
            .map(|s| UnsoldSeat {
                seat: s.seat,
                chips: Chips(s.chips),
                in_hand: s.in_hand,
                bet: Chips(s.bet),
            })
            .collect()
    }
    /// The betting round in progress; `null` between hands, between rounds and at
    /// showdown.
    async fn street(&self) -> Option<StreetOut> {
        self.view.street.map(StreetOut::from)
    }
    /// What the seat to act (`toAct`) may do, with the amount to call and the smallest and
    /// largest bet or raise; `null` when no seat is to act.
    async fn legal_actions(&self) -> Option<LegalActionsOut> {
        self.view.legal.map(LegalActionsOut::from)
    }
    /// At showdown: the seat whose turn it is to show or muck (`show`, `muck`).
    async fn to_show(&self) -> Option<Seat> {
        self.view.to_show
    }
    /// A hand tracked as `recorded`: the street whose board cards it waits for (`board`).
    async fn awaiting_board(&self) -> Option<StreetOut> {
        self.view.awaiting_board.map(StreetOut::from)
    }
    /// The pots of the hand in progress as the bets stand now, the main pot first; empty
    /// between hands.
    async fn pots(&self) -> Vec<Pot> {
        self.view
            .pots
            .iter()
            .map(|p| Pot {
                amount: p.amount.map(Chips),
                seats: p.seats.clone(),
            })
            .collect()
    }
    /// The blinds and antes the hand in progress started with (capped blinds included);
    /// `null` between hands.
    async fn blinds(&self) -> Option<BlindsOut> {
        self.view.blinds.map(BlindsOut::from)
    }
    /// The clock called on the player to act (`callClock`), while it runs: a screen counts
    /// down to `expiresAt`, when the server kills the hand. `null` when no clock runs.
    async fn clock(&self) -> Option<TableClock> {
        self.view.clock.map(|c| TableClock {
            seat: c.seat,
            called_at: Millis(c.at),
            expires_at: Millis(c.expires_at),
        })
    }
    /// The floor holds the pot of the hand in progress pending a decision (`impoundPot`):
    /// nothing is awarded, and no next hand starts, until `releasePot`.
    async fn pot_impounded(&self) -> bool {
        self.view.pot_impounded
    }
    /// An action recorded out of turn (`actOutOfTurn`) that waits for its player's turn,
    /// when the house's rule settles it; `null` when none waits.
    async fn out_of_turn(&self) -> Option<OutOfTurnOut> {
        self.view.out_of_turn.map(|(seat, action)| {
            let (kind, amount) = match action {
                Action::Fold => (ActionKind::Fold, None),
                Action::Check => (ActionKind::Check, None),
                Action::Call => (ActionKind::Call, None),
                Action::Bet(to) => (ActionKind::Bet, Some(Chips::of(to))),
                Action::RaiseTo(to) => (ActionKind::RaiseTo, Some(Chips::of(to))),
                Action::AllIn => (ActionKind::AllIn, None),
            };
            OutOfTurnOut {
                seat,
                action: kind,
                amount,
            }
        })
    }
    /// Where the button and the blinds go for the table's next hand, as the house moves
    /// them, or as `correctButton` put the button: for the dealer to place the button
    /// and for a screen to show who posts. While the tournament runs, between hands, with
    /// two or more players seated; `null` during a hand.
    async fn next_hand(&self) -> Option<NextHand> {
        self.view.next.map(|p| NextHand {
            button: p.button,
            small_blind: p.small_blind,
            big_blind: p.big_blind,
        })
    }
}

/// A page of tournaments.
#[derive(async_graphql::SimpleObject)]
pub struct TournamentPage {
    /// The page's tournaments, in id order.
    pub tournaments: Vec<TournamentOut>,
    /// The cursor of the page's last tournament (pass it as `after`).
    pub end_cursor: Option<String>,
    /// Whether tournaments follow this page's last one.
    pub has_next_page: bool,
}

/// A player's action.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// Give up the hand.
    Fold,
    /// Pass, with nothing to call.
    Check,
    /// Match the bet facing (all the player's chips, when they have less).
    Call,
    /// Bet to `amount` (no bet facing).
    Bet,
    /// Raise to a total of `amount` for the round.
    RaiseTo,
    /// Put in all the player's chips: a call when they come to no more than the round's
    /// highest bet, else a bet or raise to all of them (refused when the seat may not bet
    /// or raise).
    AllIn,
}

/// One player's chips in a count.
#[derive(InputObject, Clone, Debug)]
pub struct ChipCount {
    /// The player's id.
    pub player: async_graphql::ID,
    /// The chips counted in front of the player.
    pub chips: crate::schema::scalars::Chips,
}
