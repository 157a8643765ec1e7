//! The schedule and its parts: tracking, blinds and levels, the house's tournament rules.

use super::*;

pub use crate::units::PlayerId;

/// Milliseconds since the Unix epoch, as the command says (the engine reads no clock).
pub type Millis = i64;

/// How the tournament is tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Tracking {
    /// The server deals every hand from a committed seed.
    Dealt,
    /// A physical deck: the host records the cards.
    Recorded,
    /// The host records only eliminations, re-buys and chip counts.
    Results,
}

impl std::fmt::Display for Tracking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Tracking::Dealt => "dealt",
            Tracking::Recorded => "recorded",
            Tracking::Results => "results",
        })
    }
}

/// The forced bets of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Blinds {
    pub small_blind: Chips,
    pub big_blind: Chips,
    pub ante: AnteStructure,
}

/// Chips leaving play at a colour-up: `low` is exchanged for `high`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Denominations {
    pub low: Chips,
    pub high: Chips,
}

/// One level of the structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Level {
    Play {
        blinds: Blinds,
        minutes: u32,
    },
    /// A break; `colour_up` takes a denomination out of play during it.
    Break {
        minutes: u32,
        colour_up: Option<Denominations>,
    },
}

impl Level {
    pub fn minutes(&self) -> u32 {
        match *self {
            Level::Play { minutes, .. } | Level::Break { minutes, .. } => minutes,
        }
    }
}

/// When a re-buy, add-on or re-entry may be bought (the price is in [`PoolRules`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PurchasePolicy {
    /// How many one player may buy.
    pub per_player: u32,
    /// The first and last level (1-based, inclusive) at which it may be bought.
    pub from_level: u32,
    pub until_level: u32,
    /// And only in the first this many minutes of the tournament clock (see
    /// [`Tournament::played`]); the window closes at the level or the time, whichever comes
    /// first (invitational 1.3: "in the first 2 hours of play").
    #[serde(default)]
    pub until_minutes: Option<u32>,
    /// Chips it gives.
    pub chips: Chips,
    /// Only when the player's stack is at most this (e.g. the starting stack).
    pub max_stack: Option<Chips>,
    /// Only straight after the player busts (invitational 1.3); re-buys only.
    pub after_bust_only: bool,
}

/// In which order players busted in one hand finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum BustOrder {
    /// The player who started the hand with more chips finishes higher (QueenSix 31; WPH
    /// does not say, and gets this default; Oracle: "the player with the higher chip
    /// count will receive higher finishing place").
    LargerStartingStack,
    /// The better hand finishes higher, then the larger starting stack (invitational 10.1).
    BetterHandThenStack,
}

/// When an absent player's chips may be taken out of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum AbsentRemoval {
    /// QueenSix 3: "the chips may be removed from play at the discretion of the Host
    /// anytime after a new betting level is begun or a half-hour has elapsed, whichever
    /// occurs first."
    AfterNewLevelOrHalfHour,
    /// At the director's discretion, at any time (invitational 2.7: "the stacks will be
    /// removed by the director"; the other houses do not say).
    Director,
}

/// The tournament rules where the houses differ ([`TournamentRules::for_preset`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TournamentRules {
    pub bust_order: BustOrder,
    pub balance: BalanceRule,
    /// Redraw every seat when the field comes down to this many tables (QueenSix 16: three,
    /// two and one; invitational 2.2: combined tables start "as if it were a new game").
    pub redraw_at: Vec<u32>,
    /// Draw for the button again at the final table (Oracle 14).
    pub final_table_button_draw: bool,
    pub colour_up: ColourUpPolicy,
    pub absent_removal: AbsentRemoval,
    /// The rule named in penalty events.
    pub penalty_rule: String,
    /// Whether the players left may agree a deal that shares out the prizes and ends the
    /// event (QueenSix 33: "Private agreements by remaining players in an event regarding
    /// distribution of the prize pool are not allowed"; 34: an agreement that removes all
    /// prize money from being at stake is unethical). Tournaments scheduled before release
    /// 0.7.0 read with `true`: the engine took deals under every preset then.
    pub deals_allowed: bool,
    /// Whether a repeat offender's penalty must climb the ladder a warning, one hand, one to
    /// four rounds, then out (WPH 47 and Oracle tournament 4: "repeat infractions are
    /// subject to escalating penalties"); elsewhere the host decides. Tournaments scheduled before release 0.15.0 read with `false`:
    /// the engine left escalation to the staff then.
    pub escalating_penalties: bool,
    /// Whether a player a penalty put out (disqualified or eliminated) is out for good: no
    /// re-entry (WPH 47: "A player who is disqualified shall have his or her chips removed
    /// from play"; QueenSix: "disqualified from the tournament"). Every preset says so;
    /// tournaments scheduled before release 0.15.0 read with `false`, as the engine took
    /// such a player's re-entry then.
    pub out_for_good_when_penalised: bool,
    /// Whether the hands of players absent when the deal ends are dead at once, all-in ones
    /// included (QueenSix tournament 10: "The dealer is instructed to kill the hands of all
    /// absent players immediately after dealing each player a starting hand"; Oracle
    /// tournament 1: "the dealer will muck their hand immediately"). Players sitting out
    /// missed hands are absent. Elsewhere an absent player's hand is folded when the action
    /// reaches it (invitational 3.1). Tournaments scheduled before release 0.16.0 read with
    /// `false`, as their hands were played.
    pub absent_hands_dead: bool,
}

impl TournamentRules {
    pub fn for_preset(preset: Preset) -> TournamentRules {
        match preset {
            Preset::QueenSix => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::QueenSix,
                redraw_at: vec![3, 2, 1],
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::RoundUp,
                absent_removal: AbsentRemoval::AfterNewLevelOrHalfHour,
                penalty_rule: "QueenSix code of conduct".into(),
                deals_allowed: false,
                escalating_penalties: false,
                out_for_good_when_penalised: true,
                absent_hands_dead: true,
            },
            Preset::Wph => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::RoundUp,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "WPH 47".into(),
                deals_allowed: true,
                escalating_penalties: true,
                out_for_good_when_penalised: true,
                absent_hands_dead: false,
            },
            Preset::Oracle => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: true,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "Oracle tournament rule 4".into(),
                deals_allowed: true,
                escalating_penalties: true,
                out_for_good_when_penalised: true,
                absent_hands_dead: true,
            },
            Preset::Invitational => TournamentRules {
                bust_order: BustOrder::BetterHandThenStack,
                balance: BalanceRule::Invitational,
                redraw_at: vec![1],
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "director's discretion".into(),
                deals_allowed: true,
                escalating_penalties: false,
                out_for_good_when_penalised: true,
                absent_hands_dead: false,
            },
            Preset::Hippodrome | Preset::Wsop => TournamentRules {
                bust_order: BustOrder::LargerStartingStack,
                balance: BalanceRule::WorstPosition,
                redraw_at: Vec::new(),
                final_table_button_draw: false,
                colour_up: ColourUpPolicy::ChipRace,
                absent_removal: AbsentRemoval::Director,
                penalty_rule: "director's discretion".into(),
                deals_allowed: true,
                escalating_penalties: false,
                out_for_good_when_penalised: true,
                absent_hands_dead: false,
            },
        }
    }
}

/// A house rule a schedule may name ([`HouseOverrides`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HouseRule {
    BustOrder,
    Balance,
    RedrawAt,
    FinalTableButtonDraw,
    ColourUp,
    AbsentRemoval,
}

impl HouseRule {
    /// The rule's name as a schedule writes it.
    pub fn name(self) -> &'static str {
        match self {
            HouseRule::BustOrder => "bustOrder",
            HouseRule::Balance => "balance",
            HouseRule::RedrawAt => "redrawAt",
            HouseRule::FinalTableButtonDraw => "finalTableButtonDraw",
            HouseRule::ColourUp => "colourUp",
            HouseRule::AbsentRemoval => "absentRemoval",
        }
    }

    /// Where `preset`'s rulebook fixes this rule, the rule it is fixed by; `None` where
    /// the rulebook leaves it to the director (`../shared/RULEBOOKS.md`, "where they
    /// differ").
    pub fn fixed_by(self, preset: Preset) -> Option<&'static str> {
        use HouseRule as R;
        match (preset, self) {
            (Preset::QueenSix, R::BustOrder) => Some("QueenSix 31"),
            (Preset::QueenSix, R::Balance) => Some("QueenSix 13 and 15"),
            (Preset::QueenSix, R::RedrawAt) => Some("QueenSix 16"),
            (Preset::QueenSix, R::ColourUp) => Some("QueenSix 8"),
            (Preset::QueenSix, R::AbsentRemoval) => Some("QueenSix 3"),
            (Preset::Wph, R::Balance) => Some("WPH 7"),
            (Preset::Oracle, R::BustOrder) => Some("Oracle: the larger chip count finishes higher"),
            (Preset::Oracle, R::Balance) => Some("Oracle: the big blind to the worst position"),
            (Preset::Oracle, R::FinalTableButtonDraw) => Some("Oracle 14"),
            (Preset::Oracle, R::ColourUp) => Some("Oracle: chip race"),
            (Preset::Invitational, R::BustOrder) => Some("invitational 10.1"),
            (Preset::Invitational, R::Balance) => Some("invitational 2.1"),
            (Preset::Invitational, R::RedrawAt) => Some("invitational 2.2"),
            (Preset::Invitational, R::ColourUp) => Some("invitational: chip race"),
            (Preset::Invitational, R::AbsentRemoval) => Some("invitational 2.7"),
            _ => None,
        }
    }
}

/// The house rules a schedule chooses where the preset's rulebook leaves them open; a rule
/// left out is the preset's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HouseOverrides {
    pub bust_order: Option<BustOrder>,
    pub balance: Option<BalanceRule>,
    pub redraw_at: Option<Vec<u32>>,
    pub final_table_button_draw: Option<bool>,
    pub colour_up: Option<ColourUpPolicy>,
    pub absent_removal: Option<AbsentRemoval>,
}

/// An override that contradicts the preset's rulebook.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{preset} fixes {} ({by}); leave it out, or choose the preset's own", rule.name())]
pub struct OverrideRefused {
    pub preset: &'static str,
    pub rule: HouseRule,
    pub by: &'static str,
}

impl TournamentRules {
    /// The preset's rules with `overrides` applied. An override equal to the preset's rule
    /// is accepted; a different one only where the preset's rulebook leaves the rule open.
    pub fn with_overrides(
        preset: Preset,
        overrides: &HouseOverrides,
    ) -> std::result::Result<TournamentRules, OverrideRefused> {
        let mut rules = TournamentRules::for_preset(preset);
        let check = |rule: HouseRule, same: bool| match rule.fixed_by(preset) {
            Some(by) if !same => Err(OverrideRefused {
                preset: preset.name(),
                rule,
                by,
            }),
            _ => Ok(()),
        };
        if let Some(v) = overrides.bust_order {
            check(HouseRule::BustOrder, v == rules.bust_order)?;
            rules.bust_order = v;
        }
        if let Some(v) = overrides.balance {
            check(HouseRule::Balance, v == rules.balance)?;
            rules.balance = v;
        }
        if let Some(v) = &overrides.redraw_at {
            check(HouseRule::RedrawAt, *v == rules.redraw_at)?;
            rules.redraw_at.clone_from(v);
        }
        if let Some(v) = overrides.final_table_button_draw {
            check(
                HouseRule::FinalTableButtonDraw,
                v == rules.final_table_button_draw,
            )?;
            rules.final_table_button_draw = v;
        }
        if let Some(v) = overrides.colour_up {
            check(HouseRule::ColourUp, v == rules.colour_up)?;
            rules.colour_up = v;
        }
        if let Some(v) = overrides.absent_removal {
            check(HouseRule::AbsentRemoval, v == rules.absent_removal)?;
            rules.absent_removal = v;
        }
        Ok(rules)
    }
}

/// Everything fixed when the tournament is scheduled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Schedule {
    pub name: String,
    pub venue: VenueId,
    pub starts_at: Millis,
    pub preset: Preset,
    pub house: TournamentRules,
    pub tracking: Tracking,
    /// Entry, re-buy and add-on prices, the house's cut, a guarantee.
    pub pool: PoolRules,
    pub starting_chips: Chips,
    /// The smallest chip in play at the start.
    pub chip_unit: Chips,
    pub levels: Vec<Level>,
    pub table_size: u8,
    pub rebuys: Option<PurchasePolicy>,
    pub add_ons: Option<PurchasePolicy>,
    pub reentries: Option<PurchasePolicy>,
    /// Late entries are taken up to the end of this level (1-based); 0 for none.
    pub late_registration_until_level: u32,
    /// And only in the first this many minutes of the tournament clock; registration
    /// closes at the level or the time, whichever comes first.
    #[serde(default)]
    pub late_registration_until_minutes: Option<u32>,
    pub payouts: PayoutTable,
    /// QueenSix House Policies 4: the blinds are capped at this percentage of the average
    /// stack at the table.
    pub blind_cap_percent: Option<u32>,
    /// Tables break in this order (table numbers); tables not listed break highest first.
    pub break_order: Vec<u32>,
    /// `sha256` of the seed of the first draw.
    pub draw_commitment: Commitment,
}
