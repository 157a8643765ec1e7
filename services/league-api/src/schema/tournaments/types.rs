//! The tournament domain's GraphQL types: output types wrapping the read models of
//! `league-projections` (a tournament's dashboard view, a table as a caller may see it),
//! and the enums and input objects its mutations take.

use async_graphql::{Enum, InputObject, Object, SimpleObject};
use league_engine::card::Card;
use league_engine::hand::{AnteStructure, LegalActions, Seat, Street};
use league_engine::tournament::play::{Blinds, Level, Pending, Stage, Tracking};
use league_projections::views::{TableView, TournamentView};

/// Where a tournament is.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum TournamentStage {
    New,
    Scheduled,
    Running,
    Finished,
}

impl From<Stage> for TournamentStage {
    fn from(s: Stage) -> TournamentStage {
        match s {
            Stage::New => TournamentStage::New,
            Stage::Scheduled => TournamentStage::Scheduled,
            Stage::Running => TournamentStage::Running,
            Stage::Finished => TournamentStage::Finished,
        }
    }
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
    pub kind: AnteKind,
    /// Chips each ante is (0 with no ante).
    pub amount: u64,
}

impl From<AnteStructure> for AnteOut {
    fn from(a: AnteStructure) -> AnteOut {
        match a {
            AnteStructure::None => AnteOut {
                kind: AnteKind::None,
                amount: 0,
            },
            AnteStructure::Uniform(amount) => AnteOut {
                kind: AnteKind::Uniform,
                amount,
            },
            AnteStructure::BigBlind(amount) => AnteOut {
                kind: AnteKind::BigBlind,
                amount,
            },
        }
    }
}

/// The forced bets a hand starts with.
#[derive(SimpleObject, Clone, Copy, Debug)]
#[graphql(name = "Blinds")]
pub struct BlindsOut {
    pub small_blind: u64,
    pub big_blind: u64,
    pub ante: AnteOut,
}

impl From<Blinds> for BlindsOut {
    fn from(b: Blinds) -> BlindsOut {
        BlindsOut {
            small_blind: b.small_blind.get(),
            big_blind: b.big_blind.get(),
            ante: b.ante.into(),
        }
    }
}

/// A betting round.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "Street")]
pub enum StreetOut {
    Preflop,
    Flop,
    Turn,
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
    pub min: u64,
    pub max: u64,
}

/// What the seat to act may do now, with exact amounts, as the engine offers them: a venue
/// app offers these and nothing else.
#[derive(SimpleObject, Clone, Copy, Debug)]
#[graphql(name = "LegalActions")]
pub struct LegalActionsOut {
    /// The seat to act.
    pub seat: Seat,
    pub can_fold: bool,
    pub can_check: bool,
    /// Chips a call adds (less than the amount facing when it puts the player all-in);
    /// `null` when there is nothing to call.
    pub call: Option<u64>,
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
            call: l.call,
            bet_or_raise: l.bet_or_raise.map(|r| BetRange {
                raise: r.raise,
                min: r.min,
                max: r.max,
            }),
        }
    }
}

/// A pot of the hand in progress.
#[derive(SimpleObject, Clone, Debug)]
pub struct Pot {
    pub amount: u64,
    /// The seats still able to win it.
    pub seats: Vec<Seat>,
}

/// A level of the structure.
#[derive(SimpleObject, Clone, Debug)]
pub struct LevelOut {
    /// `play` or `break`.
    pub kind: String,
    pub minutes: u32,
    pub small_blind: Option<u64>,
    pub big_blind: Option<u64>,
    /// The antes of a play level.
    pub ante: Option<AnteOut>,
    /// A colour-up during this break: the chip leaving play and the one it becomes.
    pub colour_up_low: Option<u64>,
    pub colour_up_high: Option<u64>,
}

impl From<Level> for LevelOut {
    fn from(l: Level) -> LevelOut {
        match l {
            Level::Play { blinds, minutes } => LevelOut {
                kind: "play".into(),
                minutes,
                small_blind: Some(blinds.small_blind.get()),
                big_blind: Some(blinds.big_blind.get()),
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
                colour_up_low: colour_up.map(|d| d.low.get()),
                colour_up_high: colour_up.map(|d| d.high.get()),
            },
        }
    }
}

/// A player's chips at a seat.
#[derive(SimpleObject, Clone, Debug)]
pub struct SeatChips {
    pub seat: Seat,
    pub player: String,
    pub chips: u64,
}

/// One table's seating.
#[derive(SimpleObject, Clone, Debug)]
pub struct TableSeating {
    pub table: u32,
    pub seats: Vec<SeatChips>,
}

/// A player's place (players still in share place 1).
#[derive(SimpleObject, Clone, Debug)]
pub struct Place {
    pub player: String,
    pub place: u32,
    pub shared: u32,
}

/// One player's final result.
#[derive(SimpleObject, Clone, Debug)]
pub struct FinishOut {
    pub player: String,
    pub place: u32,
    pub shared: u32,
    /// Cents.
    pub prize: u64,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
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
}

/// One thing pending at a tournament: what the host must do, or what waits on a hand.
#[derive(SimpleObject, Clone, Debug)]
pub struct PendingAction {
    pub kind: PendingKind,
    /// The tables concerned.
    pub tables: Vec<u32>,
    /// The players concerned.
    pub players: Vec<String>,
    /// A redraw that draws seats (else buttons only).
    pub seats: Option<bool>,
    /// A colour-up's chip leaving play, and the chip it becomes.
    pub low: Option<u64>,
    pub high: Option<u64>,
    pub from_table: Option<u32>,
    pub from_seat: Option<Seat>,
    pub to_table: Option<u32>,
    pub to_seat: Option<Seat>,
    /// The house rule applied to a move.
    pub rule: Option<String>,
    /// Why, in words an auditor can check.
    pub reason: Option<String>,
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
        };
        match p {
            Pending::Redraw { tables, seats } => PendingAction {
                seats: Some(*seats),
                tables: (1..=*tables).collect(),
                ..bare(PendingKind::Redraw)
            },
            Pending::ColourUp { low, high } => PendingAction {
                low: Some(low.get()),
                high: Some(high.get()),
                ..bare(PendingKind::ColourUp)
            },
            Pending::RebuyDecisions { players } => PendingAction {
                players: players.iter().map(ToString::to_string).collect(),
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

#[Object(name = "Tournament")]
impl TournamentOut {
    /// The tournament's id (its stream is `tournament:<id>`).
    async fn id(&self) -> &str {
        league_events::StreamKind::Tournament
            .id_of(&self.0.stream)
            .unwrap_or(&self.0.stream)
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn venue(&self) -> &str {
        &self.0.venue
    }
    async fn stage(&self) -> TournamentStage {
        self.0.stage.into()
    }
    /// `dealt`, `recorded` or `results`.
    async fn tracking(&self) -> Option<&'static str> {
        self.0.tracking.map(|t| match t {
            Tracking::Dealt => "dealt",
            Tracking::Recorded => "recorded",
            Tracking::Results => "results",
        })
    }
    /// The current level (1-based).
    async fn level(&self) -> Option<u32> {
        self.0.level
    }
    async fn level_spec(&self) -> Option<LevelOut> {
        self.0.level_spec.map(LevelOut::from)
    }
    /// Milliseconds since the epoch.
    async fn level_started_at(&self) -> i64 {
        self.0.level_started_at
    }
    async fn paused_since(&self) -> Option<i64> {
        self.0.paused_since
    }
    /// Whether the clock is paused.
    async fn paused(&self) -> bool {
        self.0.paused_since.is_some()
    }
    /// When the current level ends (milliseconds since the epoch) if the clock keeps
    /// running; `null` while paused, at the last level, or before the start. The server
    /// starts the next level then; a dashboard counts down to it.
    async fn level_ends_at(&self) -> Option<i64> {
        self.0.level_ends_at
    }
    /// Milliseconds left in the level when this answer was made (a subscription's answer
    /// is made when the tournament changes: count down from `levelEndsAt` instead).
    async fn time_left(&self) -> Option<i64> {
        self.0
            .level_ends_at
            .map(|end| end.saturating_sub(crate::schema::now_millis()).max(0))
    }
    /// The level after this one.
    async fn next_level(&self) -> Option<LevelOut> {
        self.0.next_level.map(LevelOut::from)
    }
    /// When the next break starts (milliseconds since the epoch) if the clock keeps
    /// running.
    async fn next_break_at(&self) -> Option<i64> {
        self.0.next_break_at
    }
    /// The chips in play over the players still in.
    async fn average_stack(&self) -> u64 {
        self.0.average_stack.get()
    }
    /// What the host must do, or what waits on a hand in progress, before play goes on.
    /// A command refused because of one names it in its code.
    async fn pending(&self) -> Vec<PendingAction> {
        self.0.pending.iter().map(PendingAction::from).collect()
    }
    async fn entries(&self) -> u64 {
        self.0.entries
    }
    async fn rebuys(&self) -> u64 {
        self.0.rebuys
    }
    async fn add_ons(&self) -> u64 {
        self.0.add_ons
    }
    async fn remaining(&self) -> u32 {
        self.0.remaining
    }
    async fn field(&self) -> u32 {
        self.0.field
    }
    /// Cents.
    async fn prize_pool(&self) -> u64 {
        self.0.prize_pool.get()
    }
    /// The prizes as they stand, by place, in cents: the payout table's for the field
    /// (or those `setPayouts` announced); once the tournament is over, what its results
    /// pay, so after a deal the places its players share carry the deal's amounts,
    /// largest first.
    async fn prizes(&self) -> Vec<u64> {
        match &self.0.results {
            Some(results) => {
                let mut paid: Vec<(u32, u64)> = results
                    .iter()
                    .filter(|r| !r.prize.is_zero())
                    .map(|r| (r.place, r.prize.get()))
                    .collect();
                paid.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
                paid.into_iter().map(|(_, prize)| prize).collect()
            }
            None => self.0.prizes.iter().map(|p| p.get()).collect(),
        }
    }
    async fn hand_for_hand(&self) -> bool {
        self.0.hand_for_hand
    }
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
                        player: player.to_string(),
                        chips: chips.get(),
                    })
                    .collect(),
            })
            .collect()
    }
    async fn places(&self) -> Vec<Place> {
        self.0
            .places
            .iter()
            .map(|(player, (place, shared))| Place {
                player: player.to_string(),
                place: *place,
                shared: *shared,
            })
            .collect()
    }
    /// The final results, once the tournament is over.
    async fn results(&self) -> Option<Vec<FinishOut>> {
        self.0.results.as_ref().map(|r| {
            r.iter()
                .map(|f| FinishOut {
                    player: f.player.to_string(),
                    place: f.place,
                    shared: f.shared,
                    prize: f.prize.get(),
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
    pub seat: Seat,
    pub player: String,
    pub chips: u64,
    pub absent: bool,
    pub in_hand: bool,
    /// The hole cards this caller may see (`["Ah", "Kd"]`).
    pub cards: Option<Vec<String>>,
    /// Chips put in during this betting round (blinds count); 0 between hands.
    pub bet: u64,
}

/// A table as the caller may see it.
pub struct TableOut {
    pub view: TableView,
    /// The tournament stream's version the view reflects.
    pub version: u64,
}

#[Object(name = "Table")]
impl TableOut {
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
    async fn in_hand(&self) -> bool {
        self.view.in_hand
    }
    async fn button(&self) -> Option<Seat> {
        self.view.button
    }
    async fn board(&self) -> Vec<String> {
        self.view.board.iter().map(Card::to_string).collect()
    }
    async fn pot(&self) -> u64 {
        self.view.pot.get()
    }
    async fn to_act(&self) -> Option<Seat> {
        self.view.to_act
    }
    async fn current_bet(&self) -> u64 {
        self.view.current_bet.get()
    }
    async fn seats(&self) -> Vec<SeatOut> {
        self.view
            .seats
            .iter()
            .map(|s| SeatOut {
                seat: s.seat,
                player: s.player.to_string(),
                chips: s.chips.get(),
                absent: s.absent,
                in_hand: s.in_hand,
                cards: s.cards.map(|c| c.iter().map(Card::to_string).collect()),
                bet: s.bet.get(),
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
    /// The pots of the hand in progress, the main pot first; empty between hands.
    async fn pots(&self) -> Vec<Pot> {
        self.view
            .pots
            .iter()
            .map(|p| Pot {
                amount: p.amount.get(),
                seats: p.seats.clone(),
            })
            .collect()
    }
    /// The blinds and antes the hand in progress started with (capped blinds included);
    /// `null` between hands.
    async fn blinds(&self) -> Option<BlindsOut> {
        self.view.blinds.map(BlindsOut::from)
    }
}

/// A page of tournaments.
#[derive(async_graphql::SimpleObject)]
pub struct TournamentPage {
    pub tournaments: Vec<TournamentOut>,
    /// The cursor of the page's last tournament (pass it as `after`).
    pub end_cursor: Option<String>,
    pub has_next_page: bool,
}

/// A player's action.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum ActionKind {
    Fold,
    Check,
    Call,
    /// Bet to `amount` (no bet facing).
    Bet,
    /// Raise to a total of `amount` for the round.
    RaiseTo,
    AllIn,
}

/// A penalty.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
pub enum PenaltyKind {
    Warning,
    MissHands,
    MissRounds,
    Disqualify,
}

/// One player's chips in a count.
#[derive(InputObject, Clone, Debug)]
pub struct ChipCount {
    pub player: String,
    pub chips: crate::schema::scalars::Chips,
}
