//! The typed input of `scheduleTournament`: what the host decides (name, start, prices,
//! chips, levels, table size, tracking, purchases, payouts); the house rules come from the
//! preset, and a named override is accepted only where the preset's rulebook leaves the
//! rule open.

use async_graphql::{Enum, ID, InputObject, OneofObject};
use league_engine::deck::Commitment;
use league_engine::hand::AnteStructure;
use league_engine::rules::Preset;
use league_engine::tournament::play::{
    AbsentRemoval, Blinds, BustOrder, Denominations, HouseOverrides, HouseRule, Level,
    PurchasePolicy, Schedule, TournamentRules, Tracking,
};
use league_engine::tournament::{
    BalanceRule, ColourUpPolicy, DealKind, HouseCut, PayoutStructure, PayoutTable, PoolRules, Price,
};
use league_engine::tournament::{Cents as EngineCents, Chips as EngineChips};

use super::types::AnteKind;
use crate::error::{ApiError, ApiResult, code};
use crate::schema::scalars::{Cents, Chips, Millis};

/// A house's rulebook (`../shared/rulebooks/`): the tournament plays by its rules.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "Preset")]
pub enum PresetName {
    /// QueenSix pub leagues.
    Queensix,
    /// West Pennant Hills.
    Wph,
    /// The Oracle cardroom.
    Oracle,
    /// The invitational.
    Invitational,
    /// The Hippodrome cardroom.
    Hippodrome,
    /// The WSOP's rules (the rules the PHH hand-history format is defined by).
    Wsop,
}

impl From<PresetName> for Preset {
    fn from(p: PresetName) -> Preset {
        match p {
            PresetName::Queensix => Preset::QueenSix,
            PresetName::Wph => Preset::Wph,
            PresetName::Oracle => Preset::Oracle,
            PresetName::Invitational => Preset::Invitational,
            PresetName::Hippodrome => Preset::Hippodrome,
            PresetName::Wsop => Preset::Wsop,
        }
    }
}

impl From<Preset> for PresetName {
    fn from(p: Preset) -> PresetName {
        match p {
            Preset::QueenSix => PresetName::Queensix,
            Preset::Wph => PresetName::Wph,
            Preset::Oracle => PresetName::Oracle,
            Preset::Invitational => PresetName::Invitational,
            Preset::Hippodrome => PresetName::Hippodrome,
            Preset::Wsop => PresetName::Wsop,
        }
    }
}

/// What the server tracks of the play.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "Tracking")]
pub enum TrackingMode {
    /// The server deals every hand from a seed it commits to before the hand.
    Dealt,
    /// A dealer deals a physical deck; the host records the cards.
    Recorded,
    /// The host records only eliminations, re-buys and chip counts.
    Results,
}

impl From<TrackingMode> for Tracking {
    fn from(t: TrackingMode) -> Tracking {
        match t {
            TrackingMode::Dealt => Tracking::Dealt,
            TrackingMode::Recorded => Tracking::Recorded,
            TrackingMode::Results => Tracking::Results,
        }
    }
}

/// Who keeps what of the money paid.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "HouseCut")]
pub enum HouseCutKind {
    /// The house keeps each purchase's fee; every price goes to the prize pool.
    Fees,
    /// Everything paid, prices and fees, goes to the pool (invitational 1.5).
    AllToPool,
    /// QueenSix sit-and-go (House Policies, tournament rule 5): besides the fees, one entry
    /// price from the pool when more than four are seated, half of one at four or fewer.
    QueensixSitAndGo,
}

impl From<HouseCutKind> for HouseCut {
    fn from(h: HouseCutKind) -> HouseCut {
        match h {
            HouseCutKind::Fees => HouseCut::Fees,
            HouseCutKind::AllToPool => HouseCut::AllToPool,
            HouseCutKind::QueensixSitAndGo => HouseCut::QueenSixSitAndGo,
        }
    }
}

/// In which order players busted in one hand finish.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "BustOrder")]
pub enum BustOrderKind {
    /// The player who started the hand with more chips finishes higher.
    LargerStartingStack,
    /// The better hand finishes higher, then the larger starting stack.
    BetterHandThenStack,
}

/// How tables are balanced.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "BalanceRule")]
pub enum BalanceKind {
    /// QueenSix 13 and 15.
    Queensix,
    /// The player due the big blind moves to the worst position, never the small blind.
    WorstPosition,
    /// Invitational 2.1.
    Invitational,
}

/// How chips of a denomination leaving play are exchanged.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "ColourUp")]
pub enum ColourUpKind {
    /// Each player's left-over low chips round up to one higher chip.
    RoundUp,
    /// A chip race for the left-over chips.
    ChipRace,
}

/// When an absent player's chips may be taken out of play.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "AbsentRemoval")]
pub enum AbsentRemovalKind {
    /// After a new level begins or half an hour has passed, whichever is first.
    AfterNewLevelOrHalfHour,
    /// At the director's discretion.
    Director,
}

/// How a deal divides the money left.
#[derive(Enum, Copy, Clone, Debug, PartialEq, Eq)]
#[graphql(name = "DealKind")]
pub enum DealKindName {
    /// In proportion to the chips, above the least prize left.
    ChipChop,
    /// The Independent Chip Model, worked out exactly (at most 9 players).
    Icm,
}

impl From<DealKindName> for DealKind {
    fn from(k: DealKindName) -> DealKind {
        match k {
            DealKindName::ChipChop => DealKind::ChipChop,
            DealKindName::Icm => DealKind::Icm,
        }
    }
}

/// A player new to the league, made a member when a host registers them for a tournament.
#[derive(InputObject, Clone, Debug)]
pub struct WalkInInput {
    /// Their name, as the league shows it.
    pub name: String,
    /// Their membership number in the league.
    pub membership: String,
}

/// One purchase's price.
#[derive(InputObject, Clone, Debug)]
pub struct PriceInput {
    /// Cents that go to the prize pool.
    pub price: Cents,
    /// Cents the house keeps on top (0 by default).
    #[graphql(default_with = "Cents(EngineCents::ZERO)")]
    pub fee: Cents,
}

impl From<&PriceInput> for Price {
    fn from(p: &PriceInput) -> Price {
        Price::new(p.price.0, p.fee.0)
    }
}

/// The antes of a level.
#[derive(InputObject, Clone, Debug)]
pub struct AnteInput {
    /// How the antes are posted.
    pub kind: AnteKind,
    /// Chips each ante is (0 with `NONE`).
    #[graphql(default_with = "Chips(EngineChips::ZERO)")]
    pub amount: Chips,
}

/// A level of play.
#[derive(InputObject, Clone, Debug)]
pub struct PlayLevelInput {
    /// The small blind: at most the big blind, and a multiple of the smallest chip in play.
    pub small_blind: Chips,
    /// The big blind: more than 0, and a multiple of the smallest chip in play.
    pub big_blind: Chips,
    /// No ante when left out.
    pub ante: Option<AnteInput>,
    /// The level's length, in minutes (more than 0).
    pub minutes: u32,
}

/// A denomination leaving play during a break.
#[derive(InputObject, Clone, Debug)]
pub struct ChipsLeavingInput {
    /// The chip leaving play.
    pub low: Chips,
    /// The chip it is exchanged for.
    pub high: Chips,
}

/// A break.
#[derive(InputObject, Clone, Debug)]
pub struct BreakInput {
    /// The break's length, in minutes.
    pub minutes: u32,
    /// A colour-up during the break.
    pub colour_up: Option<ChipsLeavingInput>,
}

/// One level of the structure: `play` or `break`.
#[derive(OneofObject, Clone, Debug)]
pub enum LevelInput {
    /// A level of play.
    Play(PlayLevelInput),
    /// A break (never the first level).
    Break(BreakInput),
}

/// When re-buys, add-ons or re-entries may be bought, and what they give.
#[derive(InputObject, Clone, Debug)]
pub struct PurchaseInput {
    /// The price of one; required for re-buys and add-ons. A re-entry costs an entry and
    /// takes none.
    pub price: Option<PriceInput>,
    /// How many one player may buy.
    pub per_player: u32,
    /// The first level at which one may be bought: levels are numbered from 1 in the
    /// structure's order, breaks included.
    #[graphql(default = 1)]
    pub from_level: u32,
    /// The last level (inclusive), numbered as `fromLevel`.
    pub until_level: u32,
    /// And only in the first this many minutes of the tournament clock.
    pub until_minutes: Option<u32>,
    /// Chips one gives (more than 0); for re-entries, often the same as `startingChips`.
    pub chips: Chips,
    /// Only when the player's stack is at most this (e.g. the starting stack).
    pub max_stack: Option<Chips>,
    /// Re-buys only: only straight after the player busts (invitational 1.3).
    #[graphql(default = false)]
    pub after_bust_only: bool,
}

impl PurchaseInput {
    fn policy(&self) -> PurchasePolicy {
        PurchasePolicy {
            per_player: self.per_player,
            from_level: self.from_level,
            until_level: self.until_level,
            until_minutes: self.until_minutes,
            chips: self.chips.0,
            max_stack: self.max_stack.map(|c| c.0),
            after_bust_only: self.after_bust_only,
        }
    }
}

/// Late entries.
#[derive(InputObject, Clone, Debug)]
pub struct LateRegistrationInput {
    /// Taken up to the end of this level (numbered from 1 in the structure's order, breaks
    /// included).
    pub until_level: u32,
    /// And only in the first this many minutes of the tournament clock.
    pub until_minutes: Option<u32>,
}

/// The prizes for fields of `fromField` players up to the next row's.
#[derive(InputObject, Clone, Debug)]
pub struct PayoutRowInput {
    /// The smallest field this row is for (the first row's is 1).
    pub from_field: u64,
    /// Each paid place's share of the pool in hundredths of a percent, first place first,
    /// adding up to 10000.
    pub shares: Vec<u32>,
}

/// House rules named where the preset's rulebook leaves them to the director; a rule left
/// out is the preset's. An override the rulebook contradicts is refused
/// (`CONTRADICTS_PRESET`). The rulebooks fix: QUEENSIX `bustOrder` (31), `balance` (13,
/// 15), `redrawAt` (16), `colourUp` (8), `absentRemoval` (3); WPH `balance` (7); ORACLE
/// `bustOrder`, `balance`, `finalTableButtonDraw` (14), `colourUp`; INVITATIONAL
/// `bustOrder` (10.1), `balance` (2.1), `redrawAt` (2.2), `colourUp`, `absentRemoval`
/// (2.7); HIPPODROME and WSOP none.
#[derive(InputObject, Clone, Debug, Default)]
pub struct HouseRulesInput {
    /// In which order players out in one hand finish.
    pub bust_order: Option<BustOrderKind>,
    /// How tables are balanced.
    pub balance: Option<BalanceKind>,
    /// Redraw every seat when the field comes down to these numbers of tables.
    pub redraw_at: Option<Vec<u32>>,
    /// Draw for the button again at the final table.
    pub final_table_button_draw: Option<bool>,
    /// How the left-over chips of a denomination leaving play are exchanged.
    pub colour_up: Option<ColourUpKind>,
    /// When an absent entrant's chips may be removed from play (`removeAbsent`).
    pub absent_removal: Option<AbsentRemovalKind>,
}

impl HouseRulesInput {
    fn overrides(&self) -> HouseOverrides {
        HouseOverrides {
            bust_order: self.bust_order.map(|b| match b {
                BustOrderKind::LargerStartingStack => BustOrder::LargerStartingStack,
                BustOrderKind::BetterHandThenStack => BustOrder::BetterHandThenStack,
            }),
            balance: self.balance.map(|b| match b {
                BalanceKind::Queensix => BalanceRule::QueenSix,
                BalanceKind::WorstPosition => BalanceRule::WorstPosition,
                BalanceKind::Invitational => BalanceRule::Invitational,
            }),
            redraw_at: self.redraw_at.clone(),
            final_table_button_draw: self.final_table_button_draw,
            colour_up: self.colour_up.map(|c| match c {
                ColourUpKind::RoundUp => ColourUpPolicy::RoundUp,
                ColourUpKind::ChipRace => ColourUpPolicy::ChipRace,
            }),
            absent_removal: self.absent_removal.map(|a| match a {
                AbsentRemovalKind::AfterNewLevelOrHalfHour => {
                    AbsentRemoval::AfterNewLevelOrHalfHour
                }
                AbsentRemovalKind::Director => AbsentRemoval::Director,
            }),
        }
    }
}

/// A tournament as the host schedules it.
#[derive(InputObject, Clone, Debug)]
pub struct ScheduleInput {
    /// The tournament's name, as dashboards show it.
    pub name: String,
    /// The venue's id in its league.
    pub venue: ID,
    /// When play is due to start, as announced (shown to players; `start` may come earlier
    /// or later: the clock runs from the start).
    pub starts_at: Millis,
    /// The house's rulebook: the house rules come from it.
    pub preset: PresetName,
    /// What the server tracks of the play: every card, or only the results.
    pub tracking: TrackingMode,
    /// The price of an entry (and of a re-entry).
    pub entry: PriceInput,
    /// Who keeps what (`FEES` by default).
    #[graphql(default_with = "HouseCutKind::Fees")]
    pub house_cut: HouseCutKind,
    /// The least the prize pool will be; the house pays any shortfall (0 by default).
    #[graphql(default_with = "Cents(EngineCents::ZERO)")]
    pub guarantee: Cents,
    /// Chips an entry gives: more than 0, and a multiple of the smallest
    /// chip in play.
    pub starting_chips: Chips,
    /// The smallest chip in play at the start; by default the largest chip that makes the
    /// first level's blinds and ante.
    pub chip_unit: Option<Chips>,
    /// The structure, in order: levels of play and breaks.
    pub levels: Vec<LevelInput>,
    /// Seats at a table, 2 to 10 (9 by default); seats are numbered from 0.
    #[graphql(default = 9)]
    pub table_size: u8,
    /// Re-buys: when, how many, at what price and for how many chips; none when left out.
    pub rebuys: Option<PurchaseInput>,
    /// Add-ons: when, how many, at what price and for how many chips; none when left out.
    pub add_ons: Option<PurchaseInput>,
    /// Re-entries, through `lateEntry`, for a player who is out: when and how many; each
    /// costs an entry (`entry`, so no `price` here) and gives its `chips`. None when left
    /// out.
    pub reentries: Option<PurchaseInput>,
    /// Late entries; none by default.
    pub late_registration: Option<LateRegistrationInput>,
    /// The payout table by field size; by default the standard table (the tournament's
    /// `prizes` show what it pays for the field and pool).
    pub payouts: Option<Vec<PayoutRowInput>>,
    /// QueenSix House Policies 4: blinds capped at this percentage of the table's average
    /// stack.
    pub blind_cap_percent: Option<u32>,
    /// Tables break in this order (table numbers); tables not listed break highest first.
    #[graphql(default)]
    pub break_order: Vec<u32>,
    /// House rules named where the preset leaves them open.
    pub house: Option<HouseRulesInput>,
}

/// A preset's own value of `rule`, as a schedule writes it.
fn preset_value(rules: &TournamentRules, rule: HouseRule) -> String {
    match rule {
        HouseRule::BustOrder => match rules.bust_order {
            BustOrder::LargerStartingStack => "LARGER_STARTING_STACK".into(),
            BustOrder::BetterHandThenStack => "BETTER_HAND_THEN_STACK".into(),
        },
        HouseRule::Balance => match rules.balance {
            BalanceRule::QueenSix => "QUEENSIX".into(),
            BalanceRule::WorstPosition => "WORST_POSITION".into(),
            BalanceRule::Invitational => "INVITATIONAL".into(),
        },
        HouseRule::RedrawAt => {
            let tables: Vec<String> = rules.redraw_at.iter().map(u32::to_string).collect();
            format!("[{}]", tables.join(", "))
        }
        HouseRule::FinalTableButtonDraw => rules.final_table_button_draw.to_string(),
        HouseRule::ColourUp => match rules.colour_up {
            ColourUpPolicy::RoundUp => "ROUND_UP".into(),
            ColourUpPolicy::ChipRace => "CHIP_RACE".into(),
        },
        HouseRule::AbsentRemoval => match rules.absent_removal {
            AbsentRemoval::AfterNewLevelOrHalfHour => "AFTER_NEW_LEVEL_OR_HALF_HOUR".into(),
            AbsentRemoval::Director => "DIRECTOR".into(),
        },
    }
}

fn bad(field: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::bad_field(field, format!("{field}: {message}"))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl ScheduleInput {
    /// The engine's schedule, with the preset's rules and the named overrides, committed to
    /// the first draw's seed by `draw_commitment`.
    pub fn into_schedule(self, draw_commitment: Commitment) -> ApiResult<Schedule> {
        let preset = Preset::from(self.preset);
        let house = TournamentRules::with_overrides(
            preset,
            &self
                .house
                .as_ref()
                .map(HouseRulesInput::overrides)
                .unwrap_or_default(),
        )
        .map_err(|e| {
            let own = preset_value(&TournamentRules::for_preset(preset), e.rule);
            ApiError::client(code::CONTRADICTS_PRESET, format!("{e}: {own}"))
                .with_field(format!("schedule.house.{}", e.rule.name()))
        })?;
        let levels = self
            .levels
            .iter()
            .map(|level| match level {
                LevelInput::Play(p) => Level::Play {
                    blinds: Blinds {
                        small_blind: p.small_blind.0,
                        big_blind: p.big_blind.0,
                        ante: match &p.ante {
                            None => AnteStructure::None,
                            Some(a) => match a.kind {
                                AnteKind::None => AnteStructure::None,
                                AnteKind::Uniform => AnteStructure::Uniform(a.amount.0.get()),
                                AnteKind::BigBlind => AnteStructure::BigBlind(a.amount.0.get()),
                            },
                        },
                    },
                    minutes: p.minutes,
                },
                LevelInput::Break(b) => Level::Break {
                    minutes: b.minutes,
                    colour_up: b.colour_up.as_ref().map(|c| Denominations {
                        low: c.low.0,
                        high: c.high.0,
                    }),
                },
            })
            .collect::<Vec<_>>();
        let chip_unit = match self.chip_unit {
            Some(unit) => unit.0,
            None => {
                let first = levels.iter().find_map(|l| match l {
                    Level::Play { blinds, .. } => Some(*blinds),
                    Level::Break { .. } => None,
                });
                let Some(blinds) = first else {
                    return Err(bad("schedule.levels", "give at least one level of play"));
                };
                let ante = match blinds.ante {
                    AnteStructure::None => 0,
                    AnteStructure::Uniform(a) | AnteStructure::BigBlind(a) => a,
                };
                let unit = gcd(gcd(blinds.small_blind.get(), blinds.big_blind.get()), ante);
                EngineChips::new(unit)
            }
        };
        let price = |field: &str, purchase: &Option<PurchaseInput>| -> ApiResult<Option<Price>> {
            match purchase {
                None => Ok(None),
                Some(p) => match &p.price {
                    Some(price) => Ok(Some(Price::from(price))),
                    None => Err(bad(field, "give the price of one")),
                },
            }
        };
        if self.reentries.as_ref().is_some_and(|r| r.price.is_some()) {
            return Err(bad(
                "schedule.reentries.price",
                "a re-entry costs an entry (`entry`); leave its price out",
            ));
        }
        let payouts = match &self.payouts {
            None => PayoutTable::default(),
            Some(rows) => {
                let rows = rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| {
                        PayoutStructure::new(row.shares.clone())
                            .map(|s| (row.from_field, s))
                            .map_err(|e| bad(&format!("schedule.payouts[{i}].shares"), e))
                    })
                    .collect::<ApiResult<Vec<_>>>()?;
                PayoutTable::new(rows).map_err(|e| bad("schedule.payouts", e))?
            }
        };
        let late = self.late_registration.as_ref();
        Ok(Schedule {
            name: self.name,
            venue: self.venue.0.into(),
            starts_at: self.starts_at.0,
            preset,
            house,
            tracking: self.tracking.into(),
            pool: PoolRules {
                entry: Price::from(&self.entry),
                rebuy: price("schedule.rebuys.price", &self.rebuys)?,
                add_on: price("schedule.addOns.price", &self.add_ons)?,
                house: self.house_cut.into(),
                guarantee: self.guarantee.0,
            },
            starting_chips: self.starting_chips.0,
            chip_unit,
            levels,
            table_size: self.table_size,
            rebuys: self.rebuys.as_ref().map(PurchaseInput::policy),
            add_ons: self.add_ons.as_ref().map(PurchaseInput::policy),
            reentries: self.reentries.as_ref().map(PurchaseInput::policy),
            late_registration_until_level: late.map_or(0, |l| l.until_level),
            late_registration_until_minutes: late.and_then(|l| l.until_minutes),
            payouts,
            blind_cap_percent: self.blind_cap_percent,
            break_order: self.break_order,
            draw_commitment,
        })
    }
}

/// The `ScheduleInput` (as JSON variables) a client sends for `schedule`, whose house rules
/// must be its preset's with overrides only where the preset leaves them open (its draw
/// commitment is the server's to make): the tests' and the benchmark's schedules, written
/// as a venue app writes them.
pub fn schedule_input(schedule: &Schedule) -> serde_json::Value {
    use serde_json::json;
    let price = |p: &Price| json!({"price": p.price.get(), "fee": p.fee.get()});
    let purchase = |policy: &Option<PurchasePolicy>, cost: Option<Price>| {
        policy.map(|p| {
            let mut v = json!({
                "perPlayer": p.per_player,
                "fromLevel": p.from_level,
                "untilLevel": p.until_level,
                "untilMinutes": p.until_minutes,
                "chips": p.chips.get(),
                "maxStack": p.max_stack.map(EngineChips::get),
                "afterBustOnly": p.after_bust_only,
            });
            if let Some(cost) = cost {
                v["price"] = price(&cost);
            }
            v
        })
    };
    let levels: Vec<serde_json::Value> = schedule
        .levels
        .iter()
        .map(|l| match l {
            Level::Play { blinds, minutes } => {
                let (kind, amount) = match blinds.ante {
                    AnteStructure::None => ("NONE", 0),
                    AnteStructure::Uniform(a) => ("UNIFORM", a),
                    AnteStructure::BigBlind(a) => ("BIG_BLIND", a),
                };
                json!({"play": {
                    "smallBlind": blinds.small_blind.get(),
                    "bigBlind": blinds.big_blind.get(),
                    "ante": {"kind": kind, "amount": amount},
                    "minutes": minutes,
                }})
            }
            Level::Break { minutes, colour_up } => json!({"break": {
                "minutes": minutes,
                "colourUp": colour_up.map(|d| json!({"low": d.low.get(), "high": d.high.get()})),
            }}),
        })
        .collect();
    let rows: Vec<(u64, PayoutStructure)> = schedule.payouts.clone().into();
    let payouts: Vec<serde_json::Value> = rows
        .into_iter()
        .map(|(from, s)| json!({"fromField": from, "shares": Vec::<u32>::from(s)}))
        .collect();
    let preset_rules = TournamentRules::for_preset(schedule.preset);
    let (rules, mut house) = (&schedule.house, serde_json::Map::new());
    if rules.bust_order != preset_rules.bust_order {
        let name = match rules.bust_order {
            BustOrder::LargerStartingStack => "LARGER_STARTING_STACK",
            BustOrder::BetterHandThenStack => "BETTER_HAND_THEN_STACK",
        };
        house.insert("bustOrder".into(), json!(name));
    }
    if rules.balance != preset_rules.balance {
        let name = match rules.balance {
            BalanceRule::QueenSix => "QUEENSIX",
            BalanceRule::WorstPosition => "WORST_POSITION",
            BalanceRule::Invitational => "INVITATIONAL",
        };
        house.insert("balance".into(), json!(name));
    }
    if rules.redraw_at != preset_rules.redraw_at {
        house.insert("redrawAt".into(), json!(rules.redraw_at));
    }
    if rules.final_table_button_draw != preset_rules.final_table_button_draw {
        house.insert(
            "finalTableButtonDraw".into(),
            json!(rules.final_table_button_draw),
        );
    }
    if rules.colour_up != preset_rules.colour_up {
        let name = match rules.colour_up {
            ColourUpPolicy::RoundUp => "ROUND_UP",
            ColourUpPolicy::ChipRace => "CHIP_RACE",
        };
        house.insert("colourUp".into(), json!(name));
    }
    if rules.absent_removal != preset_rules.absent_removal {
        let name = match rules.absent_removal {
            AbsentRemoval::AfterNewLevelOrHalfHour => "AFTER_NEW_LEVEL_OR_HALF_HOUR",
            AbsentRemoval::Director => "DIRECTOR",
        };
        house.insert("absentRemoval".into(), json!(name));
    }
    let house_cut = match schedule.pool.house {
        HouseCut::Fees => "FEES",
        HouseCut::AllToPool => "ALL_TO_POOL",
        HouseCut::QueenSixSitAndGo => "QUEENSIX_SIT_AND_GO",
    };
    json!({
        "name": schedule.name,
        "venue": schedule.venue,
        "startsAt": schedule.starts_at,
        "preset": schedule.preset.name().to_uppercase(),
        "tracking": schedule.tracking.to_string().to_uppercase(),
        "entry": price(&schedule.pool.entry),
        "houseCut": house_cut,
        "guarantee": schedule.pool.guarantee.get(),
        "startingChips": schedule.starting_chips.get(),
        "chipUnit": schedule.chip_unit.get(),
        "levels": levels,
        "tableSize": schedule.table_size,
        "rebuys": purchase(&schedule.rebuys, schedule.pool.rebuy),
        "addOns": purchase(&schedule.add_ons, schedule.pool.add_on),
        "reentries": purchase(&schedule.reentries, None),
        "lateRegistration": (schedule.late_registration_until_level > 0).then(|| json!({
            "untilLevel": schedule.late_registration_until_level,
            "untilMinutes": schedule.late_registration_until_minutes,
        })),
        "payouts": payouts,
        "blindCapPercent": schedule.blind_cap_percent,
        "breakOrder": schedule.break_order,
        "house": house,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::InputType;
    use league_engine::deck::Seed;
    use league_engine::tournament::sim::weekly_schedule;

    fn parse(json: serde_json::Value) -> ApiResult<Schedule> {
        let value = async_graphql::Value::from_json(json).unwrap();
        ScheduleInput::parse(Some(value))
            .map_err(|e| ApiError::bad_input(e.into_server_error(Default::default()).message))?
            .into_schedule(Seed::from_bytes([7; 32]).commitment())
    }

    #[test]
    fn every_preset_and_mode_survives_the_typed_input() {
        let commitment = Seed::from_bytes([7; 32]).commitment();
        for preset in Preset::ALL {
            for tracking in [Tracking::Dealt, Tracking::Recorded, Tracking::Results] {
                let mut schedule = weekly_schedule("crown", preset, tracking, commitment);
                schedule.late_registration_until_level = 3;
                schedule.late_registration_until_minutes = Some(45);
                schedule.blind_cap_percent = Some(10);
                schedule.break_order = vec![2, 1];
                assert_eq!(
                    parse(schedule_input(&schedule)).unwrap(),
                    schedule,
                    "{preset:?}"
                );
            }
        }
    }

    #[test]
    fn an_override_the_rulebook_fixes_is_refused_one_it_leaves_open_is_taken() {
        let commitment = Seed::from_bytes([7; 32]).commitment();
        let schedule = weekly_schedule("crown", Preset::QueenSix, Tracking::Results, commitment);
        let mut input = schedule_input(&schedule);
        input["house"] = serde_json::json!({"colourUp": "CHIP_RACE"});
        let err = parse(input.clone()).unwrap_err();
        assert_eq!(err.code(), code::CONTRADICTS_PRESET);
        assert!(err.to_string().contains("QueenSix 8"), "{err}");
        assert!(
            err.to_string().ends_with("the preset's own: ROUND_UP"),
            "{err}"
        );
        // The preset's own value is no contradiction.
        input["house"] = serde_json::json!({"colourUp": "ROUND_UP"});
        assert_eq!(parse(input.clone()).unwrap(), schedule);
        // QueenSix says nothing of a button draw at the final table.
        input["house"] = serde_json::json!({"finalTableButtonDraw": true});
        assert!(parse(input).unwrap().house.final_table_button_draw);
    }

    /// A value a hostile client might put in a numeric or text field.
    fn hostile_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::json;
        prop_oneof![
            Just(json!(0)),
            Just(json!(1)),
            Just(json!(-1)),
            Just(json!(u64::MAX)),
            Just(json!(i64::MIN)),
            Just(json!(u32::MAX)),
            Just(json!(1.5)),
            Just(json!(null)),
            Just(json!("")),
            Just(json!("x\u{0}y")),
            Just(json!([])),
            Just(json!({})),
            any::<u64>().prop_map(|v| json!(v)),
            any::<i64>().prop_map(|v| json!(v)),
            "[ -~]{0,12}".prop_map(|v| json!(v)),
        ]
    }

    /// Every path to a leaf of `v`, as keys and indexes.
    fn leaves(v: &serde_json::Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, child) in map {
                    at.push(k.clone());
                    leaves(child, at, out);
                    at.pop();
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    at.push(i.to_string());
                    leaves(child, at, out);
                    at.pop();
                }
            }
            _ => out.push(at.clone()),
        }
    }

    fn at_path<'a>(
        v: &'a mut serde_json::Value,
        path: &[String],
    ) -> Option<&'a mut serde_json::Value> {
        path.iter().try_fold(v, |v, key| match v {
            serde_json::Value::Object(map) => map.get_mut(key),
            serde_json::Value::Array(items) => items.get_mut(key.parse::<usize>().ok()?),
            _ => None,
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(10_000))]

        /// A schedule with up to four fields set to hostile values, or removed, is taken or
        /// refused with a coded error, by the input and by the engine, never a panic.
        #[test]
        fn hostile_schedules_are_refused_with_a_code_never_panic(
            preset in proptest::sample::select(Preset::ALL.to_vec()),
            edits in proptest::collection::vec(
                (proptest::prelude::any::<proptest::sample::Index>(), proptest::option::of(hostile_value())),
                1..5,
            ),
        ) {
            use league_engine::tournament::play::{Tournament, TournamentCommand, decide};
            let commitment = Seed::from_bytes([7; 32]).commitment();
            let mut schedule = weekly_schedule("crown", preset, Tracking::Dealt, commitment);
            schedule.late_registration_until_level = 2;
            let mut input = schedule_input(&schedule);
            for (index, value) in edits {
                let mut paths = Vec::new();
                leaves(&input, &mut Vec::new(), &mut paths);
                let path = paths[index.index(paths.len())].clone();
                match value {
                    Some(value) => {
                        if let Some(slot) = at_path(&mut input, &path) {
                            *slot = value;
                        }
                    }
                    None => {
                        let (last, parent) = path.split_last().unwrap();
                        if let Some(serde_json::Value::Object(map)) = at_path(&mut input, parent) {
                            map.remove(last);
                        }
                    }
                }
            }
            let value = async_graphql::Value::from_json(input).unwrap();
            if let Ok(parsed) = ScheduleInput::parse(Some(value)) {
                match parsed.into_schedule(commitment) {
                    Ok(schedule) => {
                        let command = TournamentCommand::Schedule(Box::new(schedule));
                        // A refusal the service answers with a stable client code.
                        if let Err(e) = decide(&Tournament::new(), &command) {
                            let api = crate::error::ApiError::from(
                                league_app::AppError::Tournament(e),
                            );
                            proptest::prop_assert_ne!(api.code(), crate::error::code::INTERNAL);
                        }
                    }
                    Err(e) => proptest::prop_assert!(
                        matches!(
                            e.code(),
                            crate::error::code::BAD_INPUT | crate::error::code::CONTRADICTS_PRESET
                        ),
                        "{}: {e}",
                        e.code()
                    ),
                }
            }
        }
    }

    #[test]
    fn the_least_a_host_writes_is_a_schedule() {
        let input = serde_json::json!({
            "name": "Crown Monday", "venue": "crown", "startsAt": 1_796_671_800_000_i64,
            "preset": "QUEENSIX", "tracking": "RESULTS",
            "entry": {"price": 2000, "fee": 500}, "startingChips": 5000,
            "levels": [{"play": {"smallBlind": 25, "bigBlind": 50, "minutes": 20}},
                       {"break": {"minutes": 10, "colourUp": {"low": 25, "high": 100}}},
                       {"play": {"smallBlind": 50, "bigBlind": 100, "ante": {"kind": "BIG_BLIND", "amount": 100}, "minutes": 20}}],
        });
        let schedule = parse(input).unwrap();
        assert_eq!(
            schedule.house,
            TournamentRules::for_preset(Preset::QueenSix)
        );
        assert_eq!(schedule.chip_unit, EngineChips::new(25));
        assert_eq!(schedule.table_size, 9);
        assert_eq!(schedule.payouts, PayoutTable::default());
    }
}
