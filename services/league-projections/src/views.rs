//! The read models, built from the engine's aggregates.

use std::collections::BTreeMap;

use league_engine::button::Positions;
use league_engine::card::Card;
use league_engine::cash::{CashState, TableConfig};
use league_engine::hand::AnteStructure;
use league_engine::hand::{Action, HandState, LegalActions, Phase, Seat, Street};
use league_engine::league::{LeagueState, Totals};
use league_engine::points::Centipoints;
use league_engine::tournament::play::{
    Blinds, CalledClock, Cancellation, Finish, GivenPenalty, Level, Millis, Penalty, Pending,
    PlayerId, Stage, Standing, Tournament, Tracking,
};
use league_engine::tournament::{Cents, Chips};
use serde::{Deserialize, Serialize};

/// Who is looking at a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// Anyone: shown cards only.
    Public,
    /// A player: their own cards too.
    Player(PlayerId),
    /// An auditor: every card of a completed hand.
    Auditor,
}

/// One seat at a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub seat: Seat,
    pub player: PlayerId,
    /// Chips behind (during a hand: what is left after this hand's bets).
    pub chips: Chips,
    pub absent: bool,
    pub in_hand: bool,
    /// Hole cards the viewer may see.
    pub cards: Option<[Card; 2]>,
    /// Chips put in during this betting round (blinds count); 0 between hands.
    #[serde(default)]
    pub bet: Chips,
    /// The floor took the player's aggressive action away for the hand in progress.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aggression_forfeited: bool,
}

/// An unsold seat's stack (invitational 2.7, QueenSix tournament 4): dealt in and
/// blinded as an absent player's, held by no entrant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnsoldSeatView {
    pub seat: Seat,
    /// Chips behind (during a hand: what is left after this hand's bets).
    pub chips: Chips,
    pub in_hand: bool,
    /// Chips put in during this betting round (blinds count); 0 between hands.
    pub bet: Chips,
}

/// A pot of the hand in progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotView {
    /// `None` where the viewer is not told the pot's size ([`pots_told`]).
    pub amount: Option<Chips>,
    /// The seats still able to win it.
    pub seats: Vec<Seat>,
}

/// A table as a dashboard shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableView {
    pub table: u32,
    pub hand: u32,
    /// The id the command that started the current (or last) hand named; `None` for a
    /// hand started without one (its id is then derived from its tournament, table and
    /// number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hand_id: Option<String>,
    /// The hand's place among the tournament's hands (from 1; 0 before the table's first),
    /// from which the id of a hand without one is derived.
    #[serde(skip)]
    pub hand_ordinal: u32,
    pub seats: Vec<SeatView>,
    /// The stacks in unsold seats, in seat order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsold: Vec<UnsoldSeatView>,
    pub in_hand: bool,
    pub button: Option<Seat>,
    pub board: Vec<Card>,
    /// The chips in the middle; 0 between hands. `None` during a hand where the viewer is
    /// not told the pot's size ([`pots_told`]).
    pub pot: Option<Chips>,
    pub to_act: Option<Seat>,
    pub current_bet: Chips,
    /// The betting round of the hand in progress; `None` between hands and at showdown.
    #[serde(default)]
    pub street: Option<Street>,
    /// What the seat to act may do, with exact amounts, as the engine offers them.
    #[serde(default)]
    pub legal: Option<LegalActions>,
    /// At showdown: the seat whose turn it is to show or muck.
    #[serde(default)]
    pub to_show: Option<Seat>,
    /// Recorded tracking: the street whose board cards the hand waits for.
    #[serde(default)]
    pub awaiting_board: Option<Street>,
    /// The pots of the hand in progress, the main pot first; empty between hands.
    #[serde(default)]
    pub pots: Vec<PotView>,
    /// The blinds and antes the hand in progress started with; `None` between hands.
    #[serde(default)]
    pub blinds: Option<Blinds>,
    /// The clock called on the player to act, while it runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<CalledClock>,
    /// An action declared out of turn, waiting for the player's turn: the seat and what it
    /// declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_turn: Option<(Seat, Action)>,
    /// The floor holds the pot of the hand in progress pending a decision.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pot_impounded: bool,
    /// The button and blinds of the table's next hand, while the tournament runs, between
    /// hands, with two or more players seated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Positions>,
}

/// A tournament as its dashboard shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TournamentView {
    pub stream: String,
    pub name: String,
    pub venue: String,
    pub stage: Stage,
    pub tracking: Option<Tracking>,
    pub level: Option<u32>,
    pub level_spec: Option<Level>,
    pub level_started_at: Millis,
    pub paused_since: Option<Millis>,
    pub paused_in_level: Millis,
    pub entries: u64,
    pub rebuys: u64,
    pub add_ons: u64,
    pub remaining: u32,
    pub field: u32,
    pub prize_pool: Cents,
    pub prizes: Vec<Cents>,
    pub hand_for_hand: bool,
    /// Table number -> (seat, player, chips).
    pub tables: BTreeMap<u32, Vec<(Seat, PlayerId, Chips)>>,
    /// Player -> (place, shared); players still in share place 1.
    pub places: BTreeMap<PlayerId, (u32, u32)>,
    pub results: Option<Vec<Finish>>,
    /// When the current level ends if the clock keeps running (`None` while paused, at
    /// the last level, or before the start); a dashboard counts down to it.
    #[serde(default)]
    pub level_ends_at: Option<Millis>,
    /// The next level's spec, before the start and while running.
    #[serde(default)]
    pub next_level: Option<Level>,
    /// When the next break starts if the clock keeps running.
    #[serde(default)]
    pub next_break_at: Option<Millis>,
    /// The chips in play over the players still in, while running (else 0).
    #[serde(default)]
    pub average_stack: Chips,
    /// What the host must do, or what waits on a hand, before play goes on.
    #[serde(default)]
    pub pending: Vec<Pending>,
    /// Why the tournament was cancelled and each entrant's refund, once it is.
    #[serde(default)]
    pub cancelled: Option<Cancellation>,
    /// When the tournament is scheduled to start (0 before it is scheduled).
    #[serde(default)]
    pub starts_at: Millis,
    /// Every penalty given, in the order given.
    #[serde(default)]
    pub penalties: Vec<GivenPenalty>,
    /// For each player still in with a penalty behind them, the least their next
    /// infraction may get where the house escalates repeat infractions (WPH 47, Oracle
    /// tournament 4).
    #[serde(default)]
    pub least_penalties: BTreeMap<PlayerId, Penalty>,
    /// Players still in with missed-hands penalty hands left to sit out, and how many.
    #[serde(default)]
    pub sitting_out: BTreeMap<PlayerId, u32>,
}

/// When the level after `level` (0-based) up to the next break starts, if the current one
/// ends at `ends_at`: the next break's start.
fn next_break_at(levels: &[Level], level: usize, ends_at: Millis) -> Option<Millis> {
    let mut at = ends_at;
    for l in levels.iter().skip(level.saturating_add(1)) {
        if matches!(l, Level::Break { .. }) {
            return Some(at);
        }
        at = at.saturating_add(Millis::from(l.minutes()).saturating_mul(60_000));
    }
    None
}

pub fn tournament_view(stream: &str, t: &Tournament) -> TournamentView {
    let schedule = t.schedule();
    let (level_started_at, paused_since, paused_in_level) = t.clock();
    let purchases = t.purchases();
    let level_ends_at = level_ends_at(t);
    TournamentView {
        stream: stream.to_owned(),
        name: schedule.map(|s| s.name.clone()).unwrap_or_default(),
        venue: schedule.map(|s| s.venue.to_string()).unwrap_or_default(),
        starts_at: schedule.map_or(0, |s| s.starts_at),
        stage: t.stage(),
        tracking: schedule.map(|s| s.tracking),
        level: t.level().map(|(n, _)| n),
        level_spec: t.level().map(|(_, l)| l),
        level_started_at,
        paused_since,
        paused_in_level,
        entries: purchases.entries,
        rebuys: purchases.rebuys,
        add_ons: purchases.add_ons,
        remaining: u32::try_from(t.remaining()).unwrap_or(u32::MAX),
        field: u32::try_from(t.field()).unwrap_or(u32::MAX),
        prize_pool: t.prize_pool().map_or(Cents::ZERO, |p| p.total),
        prizes: t.prizes().unwrap_or_default(),
        hand_for_hand: t.hand_for_hand(),
        tables: t
            .tables()
            .iter()
            .map(|(&n, table)| {
                let seats = table
                    .seats
                    .iter()
                    .map(|(&s, id)| (s, id.clone(), t.player(id).map_or(Chips::ZERO, |p| p.chips)))
                    .collect();
                (n, seats)
            })
            .collect(),
        places: t
            .places()
            .into_iter()
            .map(|(id, place, shared)| (id, (place, shared)))
            .collect(),
        results: t.results().map(<[Finish]>::to_vec),
        level_ends_at,
        next_level: t
            .level()
            .filter(|_| matches!(t.stage(), Stage::Scheduled | Stage::Running))
            .and_then(|(n, _)| schedule?.levels.get(usize::try_from(n).ok()?).copied()),
        next_break_at: level_ends_at.and_then(|ends_at| {
            let (n, _) = t.level()?;
            let current = usize::try_from(n).ok()?.checked_sub(1)?;
            next_break_at(&schedule?.levels, current, ends_at)
        }),
        average_stack: match u64::try_from(t.remaining()).unwrap_or(0) {
            // The players' chips: an unsold seat's stack is nobody's.
            n if n > 0 && t.stage() == Stage::Running => Chips::new(
                t.chips_in_play()
                    .checked_sub(t.unsold_chips())
                    .unwrap_or_default()
                    .get()
                    / n,
            ),
            _ => Chips::ZERO,
        },
        pending: t.pending(),
        cancelled: t.cancellation().cloned(),
        penalties: t.penalties().to_vec(),
        least_penalties: t
            .players()
            .iter()
            .filter(|(_, p)| p.standing != Standing::Out)
            .filter_map(|(id, _)| Some((id.clone(), t.least_penalty(id.as_str())?)))
            .collect(),
        sitting_out: t
            .players()
            .iter()
            .filter(|(_, p)| p.standing != Standing::Out && p.missed_hands > 0)
            .map(|(id, p)| (id.clone(), p.missed_hands))
            .collect(),
    }
}

/// When the current level ends if the clock keeps running: running, not paused, and a
/// level after it.
pub fn level_ends_at(t: &Tournament) -> Option<Millis> {
    if t.stage() != Stage::Running || t.is_paused() {
        return None;
    }
    let (number, level) = t.level()?;
    if usize::try_from(number).ok()? >= t.schedule()?.levels.len() {
        return None;
    }
    let (started_at, _, paused_in_level) = t.clock();
    Some(
        started_at
            .saturating_add(paused_in_level)
            .saturating_add(Millis::from(level.minutes()).saturating_mul(60_000)),
    )
}

/// A table as `viewer` may see it; `None` for a table that does not exist.
pub fn table_view(t: &Tournament, number: u32, viewer: &Viewer) -> Option<TableView> {
    let table = t.tables().get(&number)?;
    let hand = table.hand();
    let in_hand = table.in_hand();
    let over = hand.is_some_and(|h| h.is_over());
    // The hand in progress, if any: what comes next is read from it.
    let live = hand.filter(|_| in_hand);
    let seats = table
        .seats
        .iter()
        .map(|(&seat, id)| {
            let entrant = t.player(id);
            let dealt = hand.and_then(|h| h.stack(seat)).is_some();
            let chips = match (in_hand, hand.and_then(|h| h.stack(seat))) {
                (true, Some(stack)) => Chips::new(stack),
                _ => entrant.map_or(Chips::ZERO, |p| p.chips),
            };
            let cards = hand.and_then(|h| {
                let cards = h.hole_cards(seat)?;
                let visible = h.is_shown(seat)
                    || matches!(viewer, Viewer::Player(p) if p == id)
                    || (matches!(viewer, Viewer::Auditor) && over);
                visible.then_some(cards)
            });
            SeatView {
                seat,
                player: id.clone(),
                chips,
                absent: entrant.is_some_and(|p| p.absent),
                in_hand: dealt && hand.is_some_and(|h| h.is_live(seat)) && in_hand,
                cards,
                bet: match (in_hand, hand.and_then(|h| h.bet(seat))) {
                    (true, Some(bet)) => Chips::new(bet),
                    _ => Chips::ZERO,
                },
                aggression_forfeited: in_hand && hand.is_some_and(|h| h.aggression_forfeited(seat)),
            }
        })
        .collect();
    let unsold = table
        .unsold()
        .iter()
        .map(|(&seat, &start)| {
            let stack = hand.filter(|_| in_hand).and_then(|h| h.stack(seat));
            UnsoldSeatView {
                seat,
                chips: stack.map_or(start, Chips::new),
                in_hand: stack.is_some() && hand.is_some_and(|h| h.is_live(seat)),
                bet: match (in_hand, hand.and_then(|h| h.bet(seat))) {
                    (true, Some(bet)) => Chips::new(bet),
                    _ => Chips::ZERO,
                },
            }
        })
        .collect();
    let (pot, pots) = pots_told(hand, live, viewer);
    Some(TableView {
        table: number,
        hand: table.hands,
        hand_id: table.hand_id().map(str::to_owned),
        hand_ordinal: table.hand_ordinal(),
        seats,
        unsold,
        in_hand,
        button: table.positions().map(|p| p.button),
        board: hand.map(|h| h.board().collect()).unwrap_or_default(),
        pot,
        to_act: hand.and_then(|h| h.to_act()),
        current_bet: hand.map_or(Chips::ZERO, |h| Chips::new(h.current_bet())),
        street: live
            .filter(|h| h.phase() == Phase::Betting)
            .map(|h| h.street()),
        legal: live.and_then(|h| h.legal_actions()),
        to_show: live.and_then(|h| h.to_show()),
        awaiting_board: live.and_then(|h| h.awaiting_board()),
        pots,
        blinds: live.and_then(|_| table.blinds()),
        clock: live.and(table.clock().copied()),
        out_of_turn: live.and_then(|h| h.out_of_turn()),
        pot_impounded: live.is_some_and(|h| h.impounded()),
        next: t.next_positions(number),
    })
}

/// The pot of `hand` (0 once it is complete) and the pots of the hand in progress (`live`),
/// as `viewer` is told them. Where the house does not tell players the pot's size in a
/// no-limit game (WPH 38, Oracle "Pot Size": [`HandState::tells_pot_size`]) the amounts are
/// `None` while the hand is played, for everyone but an auditor: a player, a venue's
/// screen and its host see the bets in front of each seat, as at the table, and not the
/// count. Who can win each pot is still shown.
fn pots_told(
    hand: Option<&HandState>,
    live: Option<&HandState>,
    viewer: &Viewer,
) -> (Option<Chips>, Vec<PotView>) {
    let told = matches!(viewer, Viewer::Auditor) || live.is_none_or(HandState::tells_pot_size);
    let pot = hand
        .filter(|h| h.phase() != Phase::Complete)
        .map_or(Chips::ZERO, |h| Chips::new(h.pot_total()));
    let pots = live
        .map(|h| {
            h.pots_by_seat()
                .into_iter()
                .filter(|(amount, _)| *amount > 0)
                .map(|(amount, seats)| PotView {
                    amount: told.then(|| Chips::new(amount)),
                    seats,
                })
                .collect()
        })
        .unwrap_or_default();
    (told.then_some(pot), pots)
}

/// One result in a player's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordLine {
    pub tournament: String,
    pub venue: String,
    pub season: String,
    pub day: u32,
    pub place: u32,
    pub field: u32,
    pub prize: Cents,
    pub knockouts: u32,
    pub rebuys: u32,
    /// Points under the season's current scoring version.
    pub points: Centipoints,
}

/// A player's record across the league: the totals of every season, and the result lines
/// of the seasons still open (a closed season's lines are in its `player-season` record,
/// [`player_season_key`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    pub player: PlayerId,
    pub name: String,
    pub played: u32,
    pub wins: u32,
    pub cashes: u32,
    pub winnings: Cents,
    pub knockouts: u32,
    pub results: Vec<RecordLine>,
}

/// The key of a player's record in one closed season of the league stream `stream`.
pub fn player_season_key(stream: &str, season: &str, player: &str) -> String {
    format!("{stream}/{season}/{player}")
}

/// Every registered player's record (results of merged ids count for the survivor; the
/// closed seasons' totals as they were counted when each closed).
pub fn player_records(l: &LeagueState) -> BTreeMap<PlayerId, PlayerRecord> {
    let mut records: BTreeMap<PlayerId, PlayerRecord> = l
        .players()
        .iter()
        .filter(|(id, _)| l.surviving(id) == id.as_str())
        .map(|(id, p)| {
            (
                id.clone(),
                PlayerRecord {
                    player: id.clone(),
                    name: p.name.clone(),
                    played: 0,
                    wins: 0,
                    cashes: 0,
                    winnings: Cents::ZERO,
                    knockouts: 0,
                    results: Vec::new(),
                },
            )
        })
        .collect();
    for id in l.players().keys() {
        let closed = l.closed_totals(id);
        if closed == Totals::default() {
            continue;
        }
        if let Some(record) = records.get_mut(l.surviving(id)) {
            record.played = record.played.saturating_add(closed.played);
            record.wins = record.wins.saturating_add(closed.wins);
            record.cashes = record.cashes.saturating_add(closed.cashes);
            record.winnings = record.winnings.saturating_add(closed.winnings);
            record.knockouts = record.knockouts.saturating_add(closed.knockouts);
        }
    }
    for outcome in l.tournaments() {
        let version = l.season(&outcome.season).map_or(0, |s| s.version());
        let points = l.tournament_points(&outcome.tournament, version);
        for (i, finish) in outcome.finishes.iter().enumerate() {
            let id = l.surviving(&finish.player);
            let Some(record) = records.get_mut(id) else {
                continue;
            };
            record.played += 1;
            record.wins += u32::from(finish.place == 1);
            record.cashes += u32::from(finish.prize > 0);
            record.winnings += finish.prize;
            record.knockouts += finish.knockouts;
            record.results.push(RecordLine {
                tournament: outcome.tournament.to_string(),
                venue: outcome.venue.to_string(),
                season: outcome.season.to_string(),
                day: outcome.day,
                place: finish.place,
                field: outcome.field,
                prize: finish.prize,
                knockouts: finish.knockouts,
                rebuys: finish.rebuys,
                points: points
                    .and_then(|p| p.get(i).copied())
                    .unwrap_or(Centipoints::ZERO),
            });
        }
    }
    for record in records.values_mut() {
        record
            .results
            .sort_by(|a, b| (a.day, &a.tournament).cmp(&(b.day, &b.tournament)));
    }
    records
}

/// A seat at a cash table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashSeatView {
    pub seat: Seat,
    pub player: PlayerId,
    /// Chips now (during a hand: what is left after this hand's bets).
    pub chips: Chips,
    pub sitting_out: bool,
    /// Dealt in only when the big blind reaches the seat.
    pub waiting_for_big_blind: bool,
    /// Posts a big blind, or the blinds owed, to be dealt in next hand.
    pub posting: bool,
    pub owes_small_blind: bool,
    pub owes_big_blind: bool,
    /// Session fees charged while away, paid on return.
    pub fees_due: Chips,
}

/// A cash table: its seats as the table holds them, and its hand in a tournament table's
/// shape (`hand`), as `viewer` may see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CashTableView {
    pub config: TableConfig,
    pub closed: bool,
    pub seats: Vec<CashSeatView>,
    pub waiting_list: Vec<PlayerId>,
    /// Seats held: the seat, for whom, until when (seconds since the Unix epoch).
    pub reservations: Vec<(Seat, PlayerId, u64)>,
    /// When the last session fee was charged (seconds since the Unix epoch).
    pub last_fee_at: Option<u64>,
    pub takings: Chips,
    pub hand: TableView,
    /// Running the board twice: the seats still to answer, the runs decided (0 while
    /// answers are awaited or none was asked), and the first run's board once the
    /// second is dealt.
    pub run_twice_asked: Vec<Seat>,
    pub runs: u8,
    pub first_run_board: Option<Vec<league_engine::card::Card>>,
}

/// The cash table `id` as `viewer` may see it.
pub fn cash_table_view(id: &str, c: &CashState, viewer: &Viewer) -> Option<CashTableView> {
    let config = c.config.clone()?;
    let hand = c.hand.as_ref();
    let in_hand = c.in_hand();
    let over = hand.is_some_and(|h| h.is_over());
    let live = hand.filter(|_| in_hand);
    let seats: Vec<SeatView> = c
        .seats
        .iter()
        .map(|(&seat, held)| {
            let dealt = c.is_dealt_in(seat);
            let cards = hand.and_then(|h| {
                let cards = h.hole_cards(seat)?;
                let visible = h.is_shown(seat)
                    || matches!(viewer, Viewer::Player(p) if *p == held.player)
                    || (matches!(viewer, Viewer::Auditor) && over);
                visible.then_some(cards)
            });
            SeatView {
                seat,
                player: held.player.clone(),
                chips: c.chips(seat).unwrap_or(held.stack),
                absent: held.sitting_out,
                in_hand: dealt && hand.is_some_and(|h| h.is_live(seat)),
                cards,
                bet: match (dealt, hand.and_then(|h| h.bet(seat))) {
                    (true, Some(bet)) => Chips::new(bet),
                    _ => Chips::ZERO,
                },
                aggression_forfeited: in_hand && hand.is_some_and(|h| h.aggression_forfeited(seat)),
            }
        })
        .collect();
    let (pot, pots) = pots_told(hand, live, viewer);
    let table = TableView {
        table: 1,
        hand: c.hands,
        hand_id: (c.hands > 0).then(|| format!("{id}-{}", c.hands)),
        hand_ordinal: c.hands,
        seats,
        unsold: Vec::new(),
        in_hand,
        button: c.button,
        board: hand.map(|h| h.board().collect()).unwrap_or_default(),
        pot,
        to_act: live.and_then(|h| h.to_act()),
        current_bet: live.map_or(Chips::ZERO, |h| Chips::new(h.current_bet())),
        street: live
            .filter(|h| h.phase() == Phase::Betting)
            .map(|h| h.street()),
        legal: live.and_then(|h| h.legal_actions()),
        to_show: live.and_then(|h| h.to_show()),
        awaiting_board: live.and_then(|h| h.awaiting_board()),
        pots,
        blinds: live.map(|_| Blinds {
            small_blind: config.small_blind,
            big_blind: config.big_blind,
            ante: AnteStructure::None,
        }),
        clock: None,
        out_of_turn: live.and_then(|h| h.out_of_turn()),
        pot_impounded: live.is_some_and(|h| h.impounded()),
        next: None,
    };
    Some(CashTableView {
        seats: c
            .seats
            .iter()
            .map(|(&seat, held)| CashSeatView {
                seat,
                player: held.player.clone(),
                chips: c.chips(seat).unwrap_or(held.stack),
                sitting_out: held.sitting_out,
                waiting_for_big_blind: held.waiting_for_big_blind,
                posting: held.posting,
                owes_small_blind: held.owes_small,
                owes_big_blind: held.owes_big,
                fees_due: held.fees_due,
            })
            .collect(),
        run_twice_asked: live.map(|h| h.run_twice_pending()).unwrap_or_default(),
        runs: hand.map_or(0, |h| h.runs()),
        first_run_board: hand.and_then(|h| h.first_run_board()),
        config,
        closed: c.closed,
        waiting_list: c.waiting_list.clone(),
        reservations: c
            .reservations
            .iter()
            .map(|(&seat, (player, until))| (seat, player.clone(), *until))
            .collect(),
        last_fee_at: c.last_fee.map(|(at, _)| at),
        takings: c.takings,
        hand: table,
    })
}
