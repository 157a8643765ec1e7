//! The folded state of a tournament (entrants, tables, busts, stage) and the ways to read it.

use super::*;

/// Where the tournament is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Stage {
    #[default]
    New,
    Scheduled,
    Running,
    Finished,
    /// Called off: every command is refused.
    Cancelled,
}

/// Where a player is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Standing {
    /// Registered, not yet seated.
    #[default]
    Registered,
    Seated {
        table: u32,
        seat: Seat,
    },
    /// Busted: may re-buy before the next hand at the table.
    Busted {
        table: u32,
        seat: Seat,
    },
    Out,
}

/// One entrant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Entrant {
    pub standing: Standing,
    /// Chips at the start of the current hand, or now between hands.
    pub chips: Chips,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub knockouts: u32,
    pub paid: Cents,
    pub absent: bool,
    /// Absent since the start, never seen at the table: the level and time they were
    /// first absent from.
    pub absent_entrant: bool,
    pub missed_hands: u32,
    pub warnings: u32,
    pub rebuy_announced: bool,
}

impl Entrant {
    pub(super) fn seat(&self) -> Option<(u32, Seat)> {
        match self.standing {
            Standing::Seated { table, seat } | Standing::Busted { table, seat } => {
                Some((table, seat))
            }
            _ => None,
        }
    }

    pub(super) fn is_in(&self) -> bool {
        matches!(
            self.standing,
            Standing::Seated { .. } | Standing::Busted { .. }
        )
    }
}

/// The id of the `ordinal`th hand (from 1, in log order) of `tournament` when its command
/// named none: the first 16 bytes of SHA-256(`league-hand` NUL tournament NUL ordinal in
/// decimal) as a UUIDv8 (the version nibble set to 8 and the variant bits to `10`, as for
/// an event's derived id). A client never names a hand with a UUIDv8, so the two never
/// meet.
pub fn derived_hand_id(tournament: &str, ordinal: u32) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::new()
        .chain_update(b"league-hand\0")
        .chain_update(tournament.as_bytes())
        .chain_update(b"\0")
        .chain_update(ordinal.to_string().as_bytes())
        .finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    crate::units::uuid_text(&bytes)
}

/// One table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    pub seats: BTreeMap<Seat, PlayerId>,
    /// The drawn button for the first hand.
    pub(super) button: Option<Seat>,
    pub(super) last: Option<Positions>,
    /// The positions before the current hand's: a void hand is re-dealt with them.
    pub(super) before: Option<Positions>,
    pub(super) big_blinds: Vec<Seat>,
    /// The current (or last) hand.
    pub(super) hand: Option<Box<HandState>>,
    pub hands: u32,
    /// The current (or last) hand's id, when its command named one.
    pub(super) hand_id: Option<HandId>,
    /// The current (or last) hand's place among every hand the tournament has started,
    /// from 1, in log order.
    pub(super) hand_ordinal: u32,
    /// Seats dealt in with their starting stacks.
    pub(super) hand_start: Vec<(Seat, Chips)>,
    /// The players the current (or last) hand was dealt to while they served a
    /// missed-hands penalty.
    pub(super) penalised: Vec<PlayerId>,
    /// For each pot of the last hand: who could win it and its first winner.
    pub(super) awards: Vec<(Vec<Seat>, Option<Seat>)>,
    /// The forced bets of the current (or last) hand, as it started with them (capped
    /// blinds included).
    pub(super) blinds: Option<Blinds>,
    /// The clock called on the player to act, until they act or the hand ends.
    #[serde(default)]
    pub(super) clock: Option<CalledClock>,
    /// The stacks in unsold seats (`UnsoldStackPlaced`): seats dealt in and blinded as an
    /// absent player's, held by no entrant. Their chips at the start of the current hand,
    /// or now between hands. Left out of a snapshot when there are none, so a table
    /// without them is stored as before release 0.18.0.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) unsold: BTreeMap<Seat, Chips>,
}

/// A clock called on the player to act (`TournamentEvent::ClockCalled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CalledClock {
    pub seat: Seat,
    /// When it was called.
    pub at: Millis,
    /// When the hand is dead if the player has not acted.
    pub expires_at: Millis,
}

impl Table {
    pub fn hand(&self) -> Option<&HandState> {
        self.hand.as_deref()
    }

    /// The clock called on the player to act, while it runs.
    pub fn clock(&self) -> Option<&CalledClock> {
        self.clock.as_ref()
    }

    /// The id the current (or last) hand's command named, if it named one.
    pub fn hand_id(&self) -> Option<&str> {
        self.hand_id.as_deref()
    }

    /// The current (or last) hand's place among every hand the tournament has started
    /// (1 for its first, in log order; 0 before this table's first hand). Unlike the
    /// table's hand number, it never repeats within a tournament: a redraw or a table
    /// opened again numbers its hands from 1.
    pub fn hand_ordinal(&self) -> u32 {
        self.hand_ordinal
    }

    /// The positions of the current (or last) hand.
    pub fn positions(&self) -> Option<Positions> {
        self.last
    }

    pub fn in_hand(&self) -> bool {
        self.hand.as_ref().is_some_and(|h| !h.is_over())
    }

    /// The blinds and antes the current (or last) hand started with.
    pub fn blinds(&self) -> Option<Blinds> {
        self.blinds
    }

    /// The stacks in unsold seats, by seat: their chips at the start of the current
    /// hand, or now between hands.
    pub fn unsold(&self) -> &BTreeMap<Seat, Chips> {
        &self.unsold
    }

    /// Every seat with chips in it, a player's or an unsold seat's stack, in seat order:
    /// the seats dealt in, and those the button and blinds move over.
    pub(super) fn occupied(&self) -> Vec<Seat> {
        let mut seats: Vec<Seat> = self
            .seats
            .keys()
            .chain(self.unsold.keys())
            .copied()
            .collect();
        seats.sort_unstable();
        seats
    }

    /// Whether `seat` holds a player or an unsold seat's stack.
    pub(super) fn taken(&self, seat: Seat) -> bool {
        self.seats.contains_key(&seat) || self.unsold.contains_key(&seat)
    }

    /// Seats holding a player or an unsold seat's stack.
    pub(super) fn taken_count(&self) -> usize {
        self.seats.len() + self.unsold.len()
    }
}

/// Where an eliminated player's seat and chips went, so a mistaken elimination can be
/// undone (results tracking).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Lost {
    pub(super) table: u32,
    pub(super) seat: Seat,
    pub(super) chips: Chips,
    /// Who was given the chips (`None`: nobody yet).
    pub(super) to: Option<PlayerId>,
    /// Who was credited with the knockout.
    pub(super) knocked_out_by: Option<PlayerId>,
}

/// A group of players out together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Bust {
    pub players: Vec<PlayerId>,
    pub tied: bool,
    /// The hand-for-hand round, when busted hand-for-hand.
    pub round: Option<u32>,
    /// For tied players, each one's rank in the round from the lowest (0): players of one
    /// rank share their places, a higher rank finishes above a lower one.
    pub ranks: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct HandForHand {
    pub(super) round: u32,
    pub(super) played: BTreeSet<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct RedrawDue {
    pub(super) tables: u32,
    pub(super) seats: bool,
}

/// The tournament, folded from its events.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    pub(super) stage: Stage,
    pub(super) schedule: Option<Box<Schedule>>,
    pub(super) rules: Option<HouseRules>,
    pub(super) players: BTreeMap<PlayerId, Entrant>,
    pub(super) tables: BTreeMap<u32, Table>,
    /// Index into the levels.
    pub(super) level: usize,
    pub(super) level_started_at: Millis,
    pub(super) last_at: Millis,
    pub(super) paused_since: Option<Millis>,
    pub(super) paused_in_level: Millis,
    /// When the clock started, and how long it has been paused since (both closed pauses
    /// only): the tournament clock for time windows.
    pub(super) started_at: Millis,
    pub(super) paused_total: Millis,
    pub(super) commitment: Option<Commitment>,
    pub(super) purchases: Purchases,
    pub(super) busts: Vec<Bust>,
    pub(super) hand_for_hand: Option<HandForHand>,
    pub(super) redraw: Option<RedrawDue>,
    pub(super) colour_up_due: Option<Denominations>,
    pub(super) chip_unit: Chips,
    pub(super) issued: Chips,
    pub(super) added: Chips,
    pub(super) removed: Chips,
    /// Results tracking: chips of eliminated players given to nobody yet.
    pub(super) unallocated: Chips,
    pub(super) payouts: Option<(Cents, Vec<Cents>)>,
    pub(super) deal: Option<(Vec<PlayerId>, Vec<Cents>)>,
    pub(super) results: Option<Vec<Finish>>,
    /// Level (index) and time when absent entrants may first be removed.
    pub(super) absent_from: Option<(usize, Millis)>,
    /// Players out (or busted) and where their seat and chips went.
    pub(super) lost: BTreeMap<PlayerId, Lost>,
    /// Why the tournament was cancelled, and what each entrant was refunded.
    pub(super) cancelled: Option<Cancellation>,
    /// Entropy added since the last draw, pooled, for the next draw to mix in.
    pub(super) entropy: Option<Seed>,
    /// The ids named by the commands that started hands.
    pub(super) hand_ids: BTreeSet<HandId>,
    /// Hands started, at every table.
    pub(super) hands_started: u32,
    /// Every penalty given, in the order given.
    #[serde(default)]
    pub(super) penalties: Vec<GivenPenalty>,
}

/// A penalty the staff gave, as `PenaltyGiven` recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GivenPenalty {
    pub player: PlayerId,
    pub penalty: Penalty,
    /// Hands to miss (missed-hands penalties).
    pub hands: u32,
    /// The house's penalty rule, as the schedule names it.
    pub rule: String,
}

// ---------------------------------------------------------------------------------------
// Reading the state
// ---------------------------------------------------------------------------------------

impl Tournament {
    pub fn new() -> Tournament {
        Tournament::default()
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The button and blinds of table `number`'s next hand, as the house moves them (or
    /// where `CorrectButton` put the button): while the tournament runs, between hands,
    /// with two or more players seated; `None` otherwise. The small blind or the button
    /// may be an empty seat (a dead button).
    pub fn next_positions(&self, number: u32) -> Option<Positions> {
        let table = self.tables.get(&number)?;
        (self.stage == Stage::Running && !table.in_hand() && table.occupied().len() >= 2)
            .then(|| self.upcoming(table))
    }

    pub fn schedule(&self) -> Option<&Schedule> {
        self.schedule.as_deref()
    }

    /// Why the tournament was cancelled and the refunds, once it is.
    pub fn cancellation(&self) -> Option<&Cancellation> {
        self.cancelled.as_ref()
    }

    pub fn players(&self) -> &BTreeMap<PlayerId, Entrant> {
        &self.players
    }

    /// Every penalty given, in the order given.
    pub fn penalties(&self) -> &[GivenPenalty] {
        &self.penalties
    }

    /// The penalties given to `player`, in the order given.
    pub fn penalties_of<'a>(&'a self, player: &'a str) -> impl Iterator<Item = &'a GivenPenalty> {
        self.penalties
            .iter()
            .filter(move |g| g.player.as_str() == player)
    }

    /// The least penalty `player`'s next infraction may get where the house's book says
    /// repeat infractions escalate (WPH 47, Oracle tournament 4): the rung of
    /// [`PENALTY_LADDER`] above the heaviest they have had. `None` for a first infraction,
    /// under a house that leaves escalation to its staff (or a tournament scheduled before
    /// release 0.15.0), or once nothing is left to climb. A forfeiture of chips neither
    /// climbs the ladder nor is held to it.
    pub fn least_penalty(&self, player: &str) -> Option<Penalty> {
        if !self.schedule.as_ref()?.house.escalating_penalties {
            return None;
        }
        let heaviest = self
            .penalties_of(player)
            .filter_map(|g| g.penalty.rung())
            .max()?;
        PENALTY_LADDER.get(heaviest + 1).copied()
    }

    pub fn player(&self, id: &str) -> Option<&Entrant> {
        self.players.get(id)
    }

    pub fn tables(&self) -> &BTreeMap<u32, Table> {
        &self.tables
    }

    /// The current level (1-based) and its spec.
    pub fn level(&self) -> Option<(u32, Level)> {
        let schedule = self.schedule.as_ref()?;
        schedule
            .levels
            .get(self.level)
            .map(|l| (level_no(self.level), *l))
    }

    pub fn is_paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// The clock as recorded: when the level started, since when it is paused, and how
    /// long it was paused before (milliseconds); a client works out the time left.
    pub fn clock(&self) -> (Millis, Option<Millis>, Millis) {
        (
            self.level_started_at,
            self.paused_since,
            self.paused_in_level,
        )
    }

    /// Milliseconds on the tournament clock at `now`: since the start, less the time it
    /// was paused (breaks run on the clock). Purchase and late-registration windows by
    /// time are measured on it.
    pub fn played(&self, now: Millis) -> Millis {
        if !matches!(self.stage, Stage::Running | Stage::Finished) {
            return 0;
        }
        self.paused_since
            .unwrap_or(now)
            .saturating_sub(self.started_at)
            .saturating_sub(self.paused_total)
            .max(0)
    }

    /// Milliseconds of play left in the current level at `now`.
    pub fn time_left(&self, now: Millis) -> Option<Millis> {
        let (_, level) = self.level()?;
        let length = Millis::from(level.minutes()).saturating_mul(60_000);
        let until = self.paused_since.unwrap_or(now);
        let played = until
            .saturating_sub(self.level_started_at)
            .saturating_sub(self.paused_in_level);
        Some(length.saturating_sub(played).max(0))
    }

    pub fn purchases(&self) -> Purchases {
        self.purchases
    }

    pub fn busts(&self) -> &[Bust] {
        &self.busts
    }

    /// A redraw is due before play goes on.
    pub fn redraw_due(&self) -> bool {
        self.redraw.is_some()
    }

    /// The colour-up due during this break.
    pub fn colour_up_due(&self) -> Option<Denominations> {
        self.colour_up_due
    }

    pub fn hand_for_hand(&self) -> bool {
        self.hand_for_hand.is_some()
    }

    pub fn chip_unit(&self) -> Chips {
        self.chip_unit
    }

    pub fn results(&self) -> Option<&[Finish]> {
        self.results.as_deref()
    }

    /// The finished tournament as a league records it (`None` until it has finished):
    /// its field, buy-in (entry price and fee, cents), prize pool and every finish.
    pub fn outcome(
        &self,
        tournament: &str,
        season: &str,
        day: u32,
    ) -> Option<crate::league::TournamentOutcome> {
        let schedule = self.schedule.as_ref()?;
        let results = self.results.as_ref()?;
        Some(crate::league::TournamentOutcome {
            tournament: tournament.into(),
            venue: schedule.venue.clone(),
            season: season.into(),
            day,
            buyin: schedule
                .pool
                .entry
                .price
                .saturating_add(schedule.pool.entry.fee),
            prizepool: self.prize_pool().map_or(Cents::ZERO, |p| p.total),
            field: u32::try_from(results.len()).unwrap_or(u32::MAX),
            finishes: results
                .iter()
                .map(|r| crate::league::Finish {
                    player: r.player.clone(),
                    place: r.place,
                    shared: r.shared,
                    rebuys: r.rebuys,
                    knockouts: r.knockouts,
                    prize: r.prize,
                })
                .collect(),
        })
    }

    /// The commitment the next draw must reveal a seed for.
    pub fn commitment(&self) -> Option<Commitment> {
        self.commitment
    }

    /// Players still in (seated, or busted and free to re-buy).
    pub fn remaining(&self) -> usize {
        self.players.values().filter(|p| p.is_in()).count()
    }

    /// The field: every player who entered.
    pub fn field(&self) -> usize {
        self.players.len()
    }

    /// The prize pool from what was bought so far.
    pub fn prize_pool(&self) -> Result<PrizePool, TournamentError> {
        let schedule = self
            .schedule
            .as_ref()
            .ok_or(TournamentError::NotScheduled)?;
        Ok(schedule.pool.prize_pool(self.purchases)?)
    }

    /// The places paid for the current field.
    pub fn paid_places(&self) -> usize {
        let field = u64::try_from(self.field()).unwrap_or(u64::MAX);
        self.schedule
            .as_ref()
            .map_or(0, |s| s.payouts.for_field(field).places().min(self.field()))
    }

    /// The prize of each place (cents).
    pub fn prizes(&self) -> Result<Vec<Cents>, TournamentError> {
        let schedule = self
            .schedule
            .as_ref()
            .ok_or(TournamentError::NotScheduled)?;
        let pool = self.prize_pool()?.total;
        if let Some((set_for, amounts)) = &self.payouts
            && *set_for == pool
        {
            return Ok(amounts.clone());
        }
        let field = u64::try_from(self.field()).unwrap_or(u64::MAX);
        Ok(schedule.payouts.for_field(field).amounts(pool, field)?)
    }

    /// Every player's place so far: the players still in share the top places (place 1,
    /// `shared` = the number still in) until the tournament finishes.
    pub fn places(&self) -> Vec<(PlayerId, u32, u32)> {
        let mut out = Vec::with_capacity(self.players.len());
        let remaining = self.remaining();
        for (id, p) in &self.players {
            if p.is_in() {
                out.push((id.clone(), 1, count(remaining)));
            }
        }
        let mut above = remaining;
        for bust in self.busts.iter().rev() {
            if !bust.tied {
                for (i, player) in bust.players.iter().enumerate() {
                    out.push((player.clone(), count(above + i + 1), 1));
                }
                above += bust.players.len();
                continue;
            }
            // Tied: the highest rank first, each rank sharing its places.
            let rank = |i: usize| bust.ranks.get(i).copied().unwrap_or(0);
            let top = (0..bust.players.len()).map(rank).max().unwrap_or(0);
            for r in (0..=top).rev() {
                let sharing: Vec<&PlayerId> = bust
                    .players
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| rank(i) == r)
                    .map(|(_, p)| p)
                    .collect();
                for player in &sharing {
                    out.push(((*player).clone(), count(above + 1), count(sharing.len())));
                }
                above += sharing.len();
            }
        }
        out
    }

    /// The chips the players hold, plus chips given to nobody yet and the stacks in unsold
    /// seats.
    pub fn chips_in_play(&self) -> Chips {
        self.players.values().map(|p| p.chips).sum::<Chips>()
            + self.unallocated
            + self.unsold_chips()
    }

    /// The chips in unsold seats' stacks, at every table.
    pub fn unsold_chips(&self) -> Chips {
        self.tables
            .values()
            .flat_map(|t| t.unsold.values().copied())
            .sum::<Chips>()
    }

    /// Chips conserved, seats consistent, every entrant once in places.
    pub fn check_invariants(&self) -> Result<(), String> {
        let expected = (self.issued + self.added)
            .checked_sub(self.removed)
            .ok_or("more chips removed than issued")?;
        if self.chips_in_play() != expected {
            return Err(format!(
                "chips not conserved: {} in play, {} issued + {} added - {} removed",
                self.chips_in_play(),
                self.issued,
                self.added,
                self.removed
            ));
        }
        for (number, table) in &self.tables {
            if let Some(hand) = &table.hand {
                hand.check_invariants()?;
            }
            if let Some(seat) = table.unsold.keys().find(|s| table.seats.contains_key(s)) {
                return Err(format!(
                    "{number}/{seat} holds a player and an unsold stack"
                ));
            }
            for (seat, id) in &table.seats {
                let p = self.players.get(id).ok_or("unknown player seated")?;
                if p.seat() != Some((*number, *seat)) {
                    return Err(format!("{id} seated at {number}/{seat} but is {p:?}"));
                }
            }
        }
        for (id, p) in &self.players {
            if let Some((t, s)) = p.seat()
                && self.tables.get(&t).and_then(|t| t.seats.get(&s)) != Some(id)
            {
                return Err(format!("{id} thinks they sit at {t}/{s}"));
            }
            if p.standing == Standing::Out && p.chips != Chips::ZERO {
                return Err(format!("{id} is out with {} chips", p.chips));
            }
        }
        // A cancelled tournament has no places.
        if matches!(self.stage, Stage::Running | Stage::Finished) {
            let places = self.places();
            let ids: BTreeSet<&PlayerId> = places.iter().map(|(id, _, _)| id).collect();
            if ids.len() != places.len() || ids.len() != self.players.len() {
                return Err("every entrant must have exactly one place".into());
            }
        }
        Ok(())
    }

    pub(super) fn rules(&self) -> HouseRules {
        self.rules.unwrap_or_else(HouseRules::wsop)
    }

    pub(super) fn house(&self) -> Option<&TournamentRules> {
        self.schedule.as_ref().map(|s| &s.house)
    }

    pub(super) fn in_any_hand(&self) -> bool {
        self.tables.values().any(Table::in_hand)
    }

    /// The positions of a table's next hand (a placeholder for fewer than two players).
    pub(super) fn upcoming(&self, table: &Table) -> Positions {
        let occupied = table.occupied();
        let result = match (table.last, table.button) {
            (Some(last), _) => next_positions(&self.rules(), last, &occupied, &table.big_blinds),
            (None, Some(button)) => Positions::first(button, &occupied),
            (None, None) => occupied
                .first()
                .map_or(Err(RuleError::NotEnoughPlayers { players: 0 }), |&b| {
                    Positions::first(b, &occupied)
                }),
        };
        result.unwrap_or_else(|_| {
            let seat = occupied.first().copied().unwrap_or(0);
            Positions {
                button: seat,
                small_blind: seat,
                big_blind: seat,
            }
        })
    }

    pub(super) fn balance_view(&self) -> Vec<balance::Table> {
        let size = self.schedule.as_ref().map_or(0, |s| s.table_size);
        self.tables
            .iter()
            .map(|(&number, table)| balance::Table {
                number,
                seats: (0..size).collect(),
                occupied: table.seats.keys().copied().collect(),
                held: table.unsold.keys().copied().collect(),
                next: self.upcoming(table),
            })
            .collect()
    }

    pub(super) fn halted(&self) -> Vec<u32> {
        match self.house() {
            Some(house) => balance::balance(house.balance, &self.balance_view()).halted,
            None => Vec::new(),
        }
    }
}
