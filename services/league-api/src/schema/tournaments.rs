//! Tournaments and their tables: the dashboard views, the commands that run a tournament
//! (from the schedule to the payouts), and live views over WebSocket.

use async_graphql::{
    ComplexObject, Context, Enum, InputObject, Json, Object, SimpleObject, Subscription,
};
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use league_app::commands::Command;
use league_engine::card::Card;
use league_engine::deck::{Commitment, Seed};
use league_engine::hand::{Action, Command as HandCommand, Seat};
use league_engine::tournament::play::{
    Level, Penalty, Schedule, Stage, Tournament, TournamentCommand, Tracking,
};
use league_engine::tournament::{Cents, Chips};
use league_projections::views::{TableView, TournamentView, table_view, tournament_view};

use super::{ApiState, CommandResult, from_json, now_millis, principal, run_command, state, watch};
use crate::auth::Principal;
use crate::error::{ApiError, ApiResult};

fn stream_of(id: &str) -> String {
    format!("tournament:{id}")
}

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

/// A level of the structure.
#[derive(SimpleObject, Clone, Debug)]
pub struct LevelOut {
    /// `play` or `break`.
    pub kind: String,
    pub minutes: u32,
    pub small_blind: Option<Chips>,
    pub big_blind: Option<Chips>,
    /// The ante structure, as the engine writes it.
    pub ante: Option<Json<serde_json::Value>>,
    /// A colour-up during this break: the chip leaving play and the one it becomes.
    pub colour_up_low: Option<Chips>,
    pub colour_up_high: Option<Chips>,
}

impl From<Level> for LevelOut {
    fn from(l: Level) -> LevelOut {
        match l {
            Level::Play { blinds, minutes } => LevelOut {
                kind: "play".into(),
                minutes,
                small_blind: Some(blinds.small_blind),
                big_blind: Some(blinds.big_blind),
                ante: serde_json::to_value(blinds.ante).ok().map(Json),
                colour_up_low: None,
                colour_up_high: None,
            },
            Level::Break { minutes, colour_up } => LevelOut {
                kind: "break".into(),
                minutes,
                small_blind: None,
                big_blind: None,
                ante: None,
                colour_up_low: colour_up.map(|d| d.low),
                colour_up_high: colour_up.map(|d| d.high),
            },
        }
    }
}

/// A player's chips at a seat.
#[derive(SimpleObject, Clone, Debug)]
pub struct SeatChips {
    pub seat: Seat,
    pub player: String,
    pub chips: Chips,
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
    pub prize: Cents,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub knockouts: u32,
}

/// A tournament as its dashboard shows it.
pub struct TournamentOut(pub TournamentView);

#[Object(name = "Tournament")]
impl TournamentOut {
    /// The tournament's id (its stream is `tournament:<id>`).
    async fn id(&self) -> &str {
        self.0
            .stream
            .strip_prefix("tournament:")
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
    async fn prize_pool(&self) -> Cents {
        self.0.prize_pool
    }
    /// Prizes by place, cents.
    async fn prizes(&self) -> &[Cents] {
        &self.0.prizes
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
                        player: player.clone(),
                        chips: *chips,
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
                player: player.clone(),
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
                    player: f.player.clone(),
                    place: f.place,
                    shared: f.shared,
                    prize: f.prize,
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
    pub chips: Chips,
    pub absent: bool,
    pub in_hand: bool,
    /// The hole cards this caller may see (`["Ah", "Kd"]`).
    pub cards: Option<Vec<String>>,
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
    async fn pot(&self) -> Chips {
        self.view.pot
    }
    async fn to_act(&self) -> Option<Seat> {
        self.view.to_act
    }
    async fn current_bet(&self) -> Chips {
        self.view.current_bet
    }
    async fn seats(&self) -> Vec<SeatOut> {
        self.view
            .seats
            .iter()
            .map(|s| SeatOut {
                seat: s.seat,
                player: s.player.clone(),
                chips: s.chips,
                absent: s.absent,
                in_hand: s.in_hand,
                cards: s.cards.map(|c| c.iter().map(Card::to_string).collect()),
            })
            .collect()
    }
}

/// Most tournaments in one page.
const MAX_PAGE: usize = 1_000;

/// A page of tournaments.
#[derive(async_graphql::SimpleObject)]
pub struct TournamentPage {
    pub tournaments: Vec<TournamentOut>,
    /// The cursor of the page's last tournament (pass it as `after`).
    pub end_cursor: Option<String>,
    pub has_next_page: bool,
}

/// The tournament id of a stream (`tournament:<id>`).
fn id_of(stream: &str) -> &str {
    stream.strip_prefix("tournament:").unwrap_or(stream)
}

#[derive(Default)]
pub struct TournamentQuery;

#[Object]
impl TournamentQuery {
    /// A tournament's dashboard view.
    async fn tournament(&self, ctx: &Context<'_>, id: String) -> ApiResult<Option<TournamentOut>> {
        let state = state(ctx)?;
        let stream = stream_of(&id);
        let p = state.live.read();
        Ok(p.tournament(&stream)
            .map(|t| TournamentOut(tournament_view(&stream, t))))
    }

    /// The tournaments (optionally of one venue) in id order, a page at a time: `first`
    /// (default 100, at most 1,000) after the cursor `after` (a page's `endCursor`).
    async fn tournaments(
        &self,
        ctx: &Context<'_>,
        venue: Option<String>,
        first: Option<u32>,
        after: Option<String>,
    ) -> ApiResult<TournamentPage> {
        let state = state(ctx)?;
        let first = first
            .map_or(100, |n| usize::try_from(n).unwrap_or(MAX_PAGE))
            .clamp(1, MAX_PAGE);
        let after = after
            .map(|c| {
                c.strip_prefix("t:")
                    .map(stream_of)
                    .ok_or_else(|| ApiError::bad_input(format!("not a cursor: {c:?}")))
            })
            .transpose()?;
        let p = state.live.read();
        let from = match &after {
            Some(stream) => std::ops::Bound::Excluded(stream.clone()),
            None => std::ops::Bound::Unbounded,
        };
        let mut page: Vec<TournamentOut> = p
            .tournaments_in((from, std::ops::Bound::Unbounded))
            .filter(|(_, t)| t.schedule().is_some())
            .map(|(stream, t)| tournament_view(stream, t))
            .filter(|v| venue.as_ref().is_none_or(|venue| &v.venue == venue))
            .take(first.saturating_add(1))
            .map(TournamentOut)
            .collect();
        let has_next_page = page.len() > first;
        page.truncate(first);
        Ok(TournamentPage {
            end_cursor: page.last().map(|t| format!("t:{}", id_of(&t.0.stream))),
            tournaments: page,
            has_next_page,
        })
    }

    /// A table as the caller may see it: the public sees shown cards; a player also their
    /// own; an auditor (or admin) every card of a completed hand.
    async fn table(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
    ) -> ApiResult<Option<TableOut>> {
        Ok(table_now(
            state(ctx)?,
            &stream_of(&tournament_id),
            table,
            &principal(ctx),
        ))
    }
}

#[ComplexObject]
impl CommandResult {
    /// For a command to a tournament: its table `table` as the caller may see it now (the
    /// version the command produced, or a later one), so a venue app learns who acts next
    /// without another request. Null for a league command or a table the tournament does
    /// not have.
    async fn table(&self, ctx: &Context<'_>, table: u32) -> ApiResult<Option<TableOut>> {
        if !self.stream.starts_with("tournament:") {
            return Ok(None);
        }
        Ok(table_now(state(ctx)?, &self.stream, table, &principal(ctx)))
    }
}

/// Table `table` of the tournament `stream` as `caller` may see it now.
fn table_now(state: &ApiState, stream: &str, table: u32, caller: &Principal) -> Option<TableOut> {
    let p = state.live.read();
    p.tournament(stream)
        .and_then(|t| table_view(t, table, &caller.viewer()))
        .map(|view| TableOut {
            view,
            version: p.version(stream),
        })
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
    pub chips: Chips,
}

fn seed(what: &str, hex: &str) -> ApiResult<Seed> {
    hex.parse()
        .map_err(|e| ApiError::bad_input(format!("{what}: {e}")))
}

fn commitment(what: &str, hex: &str) -> ApiResult<Commitment> {
    hex.parse()
        .map_err(|e| ApiError::bad_input(format!("{what}: {e}")))
}

fn card(text: &str) -> ApiResult<Card> {
    text.parse()
        .map_err(|_| ApiError::bad_input(format!("not a card: {text:?}")))
}

fn two_cards(cards: &[String]) -> ApiResult<[Card; 2]> {
    match cards {
        [a, b] => Ok([card(a)?, card(b)?]),
        _ => Err(ApiError::bad_input("give exactly two hole cards")),
    }
}

/// A fresh 256-bit seed from the operating system (a dealt hand's deck).
fn fresh_seed() -> ApiResult<Seed> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(ApiError::internal)?;
    Ok(Seed::from_bytes(bytes))
}

/// Reads what authorisation needs from the projected tournament.
async fn with_tournament<T>(
    state: &ApiState,
    id: &str,
    f: impl FnOnce(&Tournament) -> T,
) -> ApiResult<T> {
    let p = state.live.read();
    p.tournament(&stream_of(id))
        .filter(|t| t.schedule().is_some())
        .map(f)
        .ok_or_else(|| ApiError::not_found(format!("no tournament {id:?}")))
}

async fn venue_of(state: &ApiState, id: &str) -> ApiResult<String> {
    with_tournament(state, id, |t| {
        t.schedule().map(|s| s.venue.clone()).unwrap_or_default()
    })
    .await
}

/// Runs a tournament command that the venue's staff may send.
async fn staff_command(
    ctx: &Context<'_>,
    id: String,
    command: TournamentCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    let venue = venue_of(state, &id).await?;
    caller.require_venue(&venue)?;
    send(state, &caller, id, command, idempotency_key).await
}

/// Runs a command to the hand at `table` for the player at `seat`, who may send it
/// themselves.
async fn seat_command(
    ctx: &Context<'_>,
    id: String,
    table: u32,
    seat: Seat,
    command: HandCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let state = state(ctx)?;
    let caller = principal(ctx);
    let (venue, seated) = with_tournament(state, &id, |t| {
        (
            t.schedule().map(|s| s.venue.clone()).unwrap_or_default(),
            t.tables()
                .get(&table)
                .and_then(|tb| tb.seats.get(&seat))
                .cloned(),
        )
    })
    .await?;
    caller.require_seat(&venue, seated.as_deref())?;
    let command = TournamentCommand::Hand { table, command };
    send(state, &caller, id, command, idempotency_key).await
}

async fn send(
    state: &ApiState,
    caller: &Principal,
    id: String,
    command: TournamentCommand,
    idempotency_key: Option<String>,
) -> ApiResult<CommandResult> {
    let command = Command::Tournament {
        id,
        command: Box::new(command),
    };
    run_command(state, caller, command, idempotency_key).await
}

#[derive(Default)]
pub struct TournamentMutation;

#[Object]
impl TournamentMutation {
    /// Schedules a tournament. `schedule` is the engine's `Schedule` as JSON (name, venue,
    /// structure, prices, payouts, the first draw's commitment...). An admin, or a host of
    /// the schedule's venue.
    async fn schedule_tournament(
        &self,
        ctx: &Context<'_>,
        id: String,
        schedule: Json<serde_json::Value>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let schedule: Schedule = from_json("schedule", schedule)?;
        caller.require_venue(&schedule.venue)?;
        let command = TournamentCommand::Schedule(Box::new(schedule));
        send(state, &caller, id, command, idempotency_key).await
    }

    /// Registers a player (the venue's staff, or the player themselves).
    async fn register(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let venue = venue_of(state, &tournament_id).await?;
        caller.require_seat(&venue, Some(&player))?;
        let command = TournamentCommand::Register { player };
        send(state, &caller, tournament_id, command, idempotency_key).await
    }

    /// Unregisters a player before the start; the entry is refunded.
    async fn unregister(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let caller = principal(ctx);
        let venue = venue_of(state, &tournament_id).await?;
        caller.require_seat(&venue, Some(&player))?;
        let command = TournamentCommand::Unregister { player };
        send(state, &caller, tournament_id, command, idempotency_key).await
    }

    /// A late entry, or a re-entry of a player who is out: reveals the seed committed to
    /// by the last draw (it picks the open seat) and commits to the next. Refused once the
    /// late-registration (or re-entry) window has closed, by level or by time.
    async fn late_entry(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        seed: String,
        next_commitment: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::LateEntry {
            player,
            at: now_millis(),
            seed: self::seed("seed", &seed)?,
            next_commitment: commitment("nextCommitment", &next_commitment)?,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Stops the tournament clock.
    async fn pause(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Pause { at: now_millis() };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Restarts the tournament clock.
    async fn resume(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Resume { at: now_millis() };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Marks a player absent: dealt in, blinded and folded until they arrive.
    async fn mark_absent(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::MarkAbsent { player };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// An absent player has arrived.
    async fn arrived(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Arrived { player };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Removes an absent entrant's chips from play, when the house's rule allows it.
    async fn remove_absent(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::RemoveAbsent {
            player,
            at: now_millis(),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A player announces a re-buy: during a hand it obliges them when the hand ends;
    /// between hands it is made at once.
    async fn announce_rebuy(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::AnnounceRebuy {
            player,
            at: now_millis(),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A busted player declines to re-buy, and is out.
    async fn decline_rebuy(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::DeclineRebuy { player };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// The director moves a player to an open seat at another table, between hands; the
    /// tables must stay within the house's balancing rule.
    async fn move_player(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        to_table: u32,
        to_seat: Seat,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::MovePlayer {
            player,
            to_table,
            to_seat,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Starts the tournament: reveals the seed committed to in the schedule (64 hex
    /// digits), which draws the seats, and commits to the next draw's seed.
    async fn start(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        seed: String,
        next_commitment: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Start {
            at: now_millis(),
            seed: self::seed("seed", &seed)?,
            next_commitment: commitment("nextCommitment", &next_commitment)?,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Starts the next level now.
    async fn advance_level(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::AdvanceLevel { at: now_millis() };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Starts the next hand at a table. A dealt tournament's deck comes from a fresh seed
    /// drawn by the server, committed to in the hand's start and revealed at its end.
    async fn start_hand(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let state = state(ctx)?;
        let tracking =
            with_tournament(state, &tournament_id, |t| t.schedule().map(|s| s.tracking)).await?;
        let seed = match tracking {
            Some(Tracking::Dealt) => Some(fresh_seed()?),
            _ => None,
        };
        let command = TournamentCommand::StartHand { table, seed };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A player's action at a table (the player themselves, or the venue's staff).
    #[allow(clippy::too_many_arguments)]
    async fn act(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        seat: Seat,
        action: ActionKind,
        amount: Option<Chips>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let need = || ApiError::bad_input("this action needs an amount");
        let action = match action {
            ActionKind::Fold => Action::Fold,
            ActionKind::Check => Action::Check,
            ActionKind::Call => Action::Call,
            ActionKind::Bet => Action::Bet(amount.ok_or_else(need)?),
            ActionKind::RaiseTo => Action::RaiseTo(amount.ok_or_else(need)?),
            ActionKind::AllIn => Action::AllIn,
        };
        let command = HandCommand::Act { seat, action };
        seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await
    }

    /// Recorded tracking: a player's hole cards as dealt from the physical deck.
    async fn deal_hole(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        seat: Seat,
        cards: Vec<String>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::DealHole {
                seat,
                cards: two_cards(&cards)?,
            },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Recorded tracking: the next board cards (three for the flop, then one).
    async fn deal_board(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        cards: Vec<String>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let cards = cards.iter().map(|c| card(c)).collect::<ApiResult<_>>()?;
        let command = TournamentCommand::Hand {
            table,
            command: HandCommand::DealBoard { cards },
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Shows a hand at the showdown (`cards` omitted: the cards the engine knows).
    async fn show(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        seat: Seat,
        cards: Option<Vec<String>>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let cards = cards.map(|c| two_cards(&c)).transpose()?;
        let command = HandCommand::Show { seat, cards };
        seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await
    }

    /// Gives up the pot at the showdown without showing.
    async fn muck(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
        seat: Seat,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = HandCommand::Muck { seat };
        seat_command(ctx, tournament_id, table, seat, command, idempotency_key).await
    }

    /// Results tracking: players out in one hand (best first when the house's order cannot
    /// be worked out from chips); `by` took their chips.
    async fn eliminate(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        players: Vec<String>,
        by: Option<String>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Eliminate { players, by };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Results tracking: every remaining player's chips.
    async fn record_chips(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        counts: Vec<ChipCount>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let counts = counts.into_iter().map(|c| (c.player, c.chips)).collect();
        let command = TournamentCommand::RecordChips { counts };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    async fn rebuy(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Rebuy {
            player,
            at: now_millis(),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    async fn add_on(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::AddOn {
            player,
            at: now_millis(),
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Colours up during a break; a chip race reveals the committed seed and commits to
    /// the next.
    async fn colour_up(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        seed: Option<String>,
        next_commitment: Option<String>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::ColourUp {
            seed: seed.map(|s| self::seed("seed", &s)).transpose()?,
            next_commitment: next_commitment
                .map(|c| commitment("nextCommitment", &c))
                .transpose()?,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Redraws every seat from the committed seed.
    async fn redraw(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        seed: String,
        next_commitment: String,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Redraw {
            seed: self::seed("seed", &seed)?,
            next_commitment: commitment("nextCommitment", &next_commitment)?,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A penalty; `count` is the hands or rounds to miss.
    async fn penalise(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        player: String,
        penalty: PenaltyKind,
        count: Option<u32>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let need = || ApiError::bad_input("this penalty needs a count");
        let penalty = match penalty {
            PenaltyKind::Warning => Penalty::Warning,
            PenaltyKind::MissHands => Penalty::MissHands(count.ok_or_else(need)?),
            PenaltyKind::MissRounds => Penalty::MissRounds(count.ok_or_else(need)?),
            PenaltyKind::Disqualify => Penalty::Disqualify,
        };
        let command = TournamentCommand::Penalise { player, penalty };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// Announces the prizes by place (cents); they must sum to the prize pool.
    async fn set_payouts(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        amounts: Vec<Cents>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::SetPayouts { amounts };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }

    /// A deal at the final table (`kind`: `"ChipChop"` or `"Icm"`), accepted by every
    /// remaining player.
    async fn deal(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        kind: Json<serde_json::Value>,
        accepted: Vec<String>,
        idempotency_key: Option<String>,
    ) -> ApiResult<CommandResult> {
        let command = TournamentCommand::Deal {
            kind: from_json("kind", kind)?,
            accepted,
        };
        staff_command(ctx, tournament_id, command, idempotency_key).await
    }
}

#[derive(Default)]
pub struct TournamentSubscription;

#[Subscription]
impl TournamentSubscription {
    /// The tournament's view now, then again on every change.
    async fn tournament(
        &self,
        ctx: &Context<'_>,
        id: String,
    ) -> async_graphql::Result<BoxStream<'static, TournamentOut>> {
        let state = state(ctx)?.clone();
        let stream = stream_of(&id);
        let key = stream.clone();
        let views = watch(state, stream, move |t| Some(tournament_view(&key, t)));
        Ok(views.map(|(_, view)| TournamentOut(view)).boxed())
    }

    /// A table as the caller may see it now, then again on every change.
    async fn table(
        &self,
        ctx: &Context<'_>,
        tournament_id: String,
        table: u32,
    ) -> async_graphql::Result<BoxStream<'static, TableOut>> {
        let state = state(ctx)?.clone();
        let viewer = principal(ctx).viewer();
        let stream = stream_of(&tournament_id);
        let views = watch(state, stream, move |t| table_view(t, table, &viewer));
        Ok(views
            .map(|(version, view)| TableOut { view, version })
            .boxed())
    }
}
