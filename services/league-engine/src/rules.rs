//! House rules: the options where the five houses (and the PHH/WSOP reference) differ.
//!
//! Every option is a named enum so a preset reads like the rulebook it comes from, and an
//! event can name the rule it applied. The presets quote the rule numbers of
//! `../shared/rulebooks/`; where a house's book is silent the engine default applies and
//! the preset's documentation says so.

use serde::{Deserialize, Serialize};

/// How the button moves when players bust (applied by the tournament, not within a hand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ButtonRule {
    /// The button always moves to the next occupied seat.
    Moving,
    /// The big blind always moves to the next player; the button may land on an empty
    /// seat (a "dead button") and the small blind may be skipped.
    Dead,
    /// Dead button with the invitational's three bust-out cases (rules 3.2-3.4).
    DeadInvitational,
}

/// Who takes the button when play becomes heads-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum HeadsUpStart {
    /// The small blind is on the button; the button moves on as usual.
    SmallBlindOnButton,
    /// Adjust so that nobody takes the big blind twice in a row (WPH 26, invitational 3.5).
    NoBigBlindTwice,
    /// The player who had the big blind most recently gets the button (Hippodrome).
    LastBigBlindGetsButton,
}

/// Until when a misdeal voids the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum MisdealCutoff {
    /// A misdeal stands until this many players have acted after the blinds; with
    /// `never_after_big_blind` it is also too late once the big blind has acted.
    PlayersActed {
        players: u8,
        never_after_big_blind: bool,
    },
    /// "Substantial action" (WPH 28): two chip-putting actions or three actions of any
    /// kind, blinds not counted.
    SubstantialAction,
}

impl std::fmt::Display for MisdealCutoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MisdealCutoff::PlayersActed {
                players,
                never_after_big_blind,
            } => {
                write!(f, "{players} players acted after the blinds")?;
                if *never_after_big_blind {
                    f.write_str(", or the big blind acted")?;
                }
                Ok(())
            }
            MisdealCutoff::SubstantialAction => f.write_str("substantial action"),
        }
    }
}

/// Whether all-ins of less than a full raise reopen the betting to players who acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ShortAllIn {
    /// Never: only a full raise reopens (WPH 33, Hippodrome).
    NeverReopens,
    /// Short all-ins reopen the betting to a player once together they make the bet
    /// facing that player at least a full raise more than when they last acted
    /// (QueenSix NLHE 5, the invitational).
    CumulativeReopens,
    /// As `CumulativeReopens`, and never a raise that PokerKit refuses: its own running
    /// count of short all-ins is kept and honoured too. The `wsop` preset's rule up to
    /// release 0.3.0, kept so that the hands played under it read as they were played.
    CumulativeAsPokerKit,
    /// Exactly PokerKit's rule (the reference the PHH format is defined by; the `wsop`
    /// preset): a bet or raise whose increment is at least the largest of the round so far
    /// reopens the betting, however small, so a short all-in opening bet opens it like any
    /// bet; short all-ins that follow one another reopen it once together they reach that
    /// increment; a player facing less than it to call may not raise.
    AsPokerKit,
    /// Only two consecutive all-ins that together exceed the minimum raise reopen
    /// (Oracle 13, example A 500, B 1,000, C call, D 1,300, E 1,700).
    TwoConsecutiveReopen,
}

/// How big the smallest raise over the blinds and straddles is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum StraddleRaise {
    /// A live straddle is the bet and its full size the smallest raise: a raise over a
    /// straddle is to at least twice the straddle, and over a short (all-in) straddle by
    /// at least the straddle's full size. The live convention (Oracle 4 and 12: "any
    /// wager must be at least the amount of the previous bet", "one live straddle bet").
    TwiceTheStraddle,
    /// Blinds and straddles are posted bets, not raises: the smallest raise is the big
    /// blind over the largest of them (blinds 66/200 and a straddle of 400: a raise to
    /// 600). PokerKit and the PHH format read them so (the `wsop` preset).
    BigBlindOverTheStraddle,
}

/// Whether an all-in bet below the minimum bet, the first bet of a betting round, opens the
/// betting to the players who checked before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ShortAllInBet {
    /// No: it is an all-in of less than a full bet, and a player who checked may only call
    /// or fold unless what they face comes to a full bet (QueenSix NLHE 3: "a player who
    /// has already acted and is not facing a full size wager may not subsequently raise an
    /// all-in bet that is less than the minimum bet"; Oracle 13 and WPH 33 say it of every
    /// short all-in).
    DoesNotReopen,
    /// Yes: the round's first bet opens the betting whatever its size (PokerKit; under
    /// `ShortAllIn::AsPokerKit` every bet reads this way).
    OpensTheBetting,
}

/// What happens to a raise (or bet) declared below the legal minimum by a player who has
/// more chips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum UndersizedRaise {
    /// Refused with a typed error: the app must send a legal amount (digital play, PHH).
    Refused,
    /// Brought up to the legal minimum, no more (QueenSix NLHE 12).
    BroughtUpToMinimum,
    /// 50% rule: a raise of at least half the minimum raise becomes the minimum raise,
    /// less is a call (WPH 33, Oracle 13, Hippodrome 11).
    HalfRule,
    /// A full bet plus half a bet or more is a raise (completed to the minimum); less is
    /// a call (invitational 5.6).
    BetAndAHalf,
}

/// Who gets the odd chip of a split pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum OddChip {
    /// All odd chips to the first winner clockwise from the button (PokerKit, the PHH
    /// reference).
    AllToFirstLeftOfButton,
    /// One chip each to the winners clockwise from the button, no player more than one
    /// (QueenSix, Oracle 5, Hippodrome 3).
    OneEachLeftOfButton,
    /// The high hand; between equal high hands, the player closest to the left of the
    /// button (WPH 12, invitational 7.4). In hold'em every tied hand is equally high, so
    /// this gives the chips one each clockwise from the button.
    HighHandThenLeftOfButton,
}

/// Who shows first at the showdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ShowdownOrder {
    /// Last aggressor of the final betting round; else the first player to act on it.
    LastAggressorElseFirstToAct,
    /// Last aggressor; else the first player clockwise from the button (WPH 10, Oracle).
    LastAggressorElseLeftOfButton,
    /// As `LastAggressorElseFirstToAct`, and players in a side pot show before a player
    /// who is all-in for the main pot only (QueenSix 7). Hands started under it by the
    /// invitational's preset before release 0.17.0 keep it.
    SidePotsFirst,
    /// As `LastAggressorElseLeftOfButton`, and players in a side pot show before a player
    /// who is all-in for the main pot only (Oracle showdown 7).
    SidePotsFirstElseLeftOfButton,
    /// As `LastAggressorElseFirstToAct`, and with several side pots those in the last side
    /// pot show first, then those in the next-to-last, down to the main pot (invitational
    /// 7.5: "those participating for the last side pot shall show their hands down first,
    /// followed by those involved in the next-to-last side pot, etc.").
    LastSidePotFirst,
}

/// Whether the last hand left at a showdown must be shown to win.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LastHand {
    /// The last hand is shown to take the pot, even when every other hand was mucked
    /// unseen (every hand before release 0.17.0 was played so).
    #[default]
    MustShow,
    /// When every other hand at a showdown without an all-in was mucked unseen, the last
    /// hand wins without being shown (WPH 10B; Oracle showdown 7, "in a muck muck
    /// situation the last player doesn't need to show his cards to win the pot"). A hand
    /// that has shown keeps the showdown open: the last hand must then beat it face up.
    WinsUnseen,
}

/// The consequence of an action taken out of turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum OutOfTurn {
    /// The action is binding if the action it faced has not changed when the turn comes;
    /// if it has changed the player is released and may act freely, except that a check
    /// out of turn may not then bet or raise (Oracle 8, invitational 5.3/5.5).
    BindingUnlessActionChanges,
    /// QueenSix betting 5: a check out of turn may not bet or raise on its turn; a call
    /// out of turn may not raise; a raise out of turn is bound to at least call.
    Restricted,
    /// WPH 31: facing an in-turn check the out-of-turn bet is withdrawn and the player
    /// must check; a smaller intervening bet must be called; a larger one releases.
    WphRule31,
    /// Hippodrome 5: out-of-turn action stands unless the action changes; an intervening
    /// bet smaller than the out-of-turn bet must be called, a larger one releases.
    StandsUnlessChanged,
    /// Oracle 8: the action binds if no intervening player bets, calls or raises after the
    /// infraction; otherwise the player is released, except that a check out of turn may
    /// not then bet or raise. (`BindingUnlessActionChanges` read a call in between as no
    /// change; hands started under it keep it.)
    OracleRule8,
    /// Invitational 5.3 and 5.5: the player is held to the action when the turn comes,
    /// unless intervening action changes the action faced; then the player acts "as if he
    /// had made no declaration" (a check out of turn is then free to bet or raise).
    HeldUnlessActionChanges,
    /// WPH 31 and 40: as `WphRule31`, and a fold out of turn is binding whatever happens
    /// before the turn comes (40: "folding out of turn [is a] binding fold"). A released
    /// bettor who folds takes the out-of-turn bet back; hands started under it keep it.
    WphRules31And40,
    /// WPH 31 and 40 as written: as `WphRules31And40`, an all-in out of turn counts as a
    /// bet of the whole stack, and a bettor released by a larger bet who then folds leaves
    /// the out-of-turn bet in the pot (31: "If the out of turn player folds, their out of
    /// turn bet will stay in the pot").
    WphRules31And40BetStays,
}

/// The clock a player can be put on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Clock {
    /// Seconds to act once the clock is called.
    pub seconds: u32,
    /// A final countdown after `seconds`, if the house has one.
    pub countdown: u32,
}

/// The hand-level rules of one house.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HouseRules {
    pub preset: Preset,
    pub button: ButtonRule,
    pub heads_up_start: HeadsUpStart,
    pub misdeal_cutoff: MisdealCutoff,
    pub short_all_in: ShortAllIn,
    pub undersized_raise: UndersizedRaise,
    pub straddle_raise: StraddleRaise,
    pub short_all_in_bet: ShortAllInBet,
    pub odd_chip: OddChip,
    pub showdown_order: ShowdownOrder,
    pub out_of_turn: OutOfTurn,
    pub clock: Clock,
    /// Whether the last hand at a showdown must be shown to win (release 0.17.0).
    pub last_hand: LastHand,
    /// Once a player is all-in and the betting is complete every hand is turned face up,
    /// and none may be mucked (QueenSix 30, WPH 9, invitational 5.8). Hands before release
    /// 0.17.0 read `false`: a hand recorded by the host could then be mucked. (A dealt
    /// hand's cards are turned up by the server under every house.)
    pub all_in_face_up: bool,
}

/// The named presets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    QueenSix,
    Wph,
    Oracle,
    Invitational,
    Hippodrome,
    Wsop,
}

impl Preset {
    pub const ALL: [Preset; 6] = [
        Preset::QueenSix,
        Preset::Wph,
        Preset::Oracle,
        Preset::Invitational,
        Preset::Hippodrome,
        Preset::Wsop,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::QueenSix => "queensix",
            Preset::Wph => "wph",
            Preset::Oracle => "oracle",
            Preset::Invitational => "invitational",
            Preset::Hippodrome => "hippodrome",
            Preset::Wsop => "wsop",
        }
    }

    pub fn from_name(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn rules(self) -> HouseRules {
        match self {
            Preset::QueenSix => HouseRules::queensix(),
            Preset::Wph => HouseRules::wph(),
            Preset::Oracle => HouseRules::oracle(),
            Preset::Invitational => HouseRules::invitational(),
            Preset::Hippodrome => HouseRules::hippodrome(),
            Preset::Wsop => HouseRules::wsop(),
        }
    }
}

impl HouseRules {
    /// Whether players (and the screens they read) are told the size of the pot while a
    /// hand is played. Every game here is no-limit, and WPH 38 and Oracle's "Pot Size" give
    /// players the pot's size in pot-limit games only: "Dealers will not count the pot in
    /// limit and no-limit games." The other books say nothing, and their tables show it.
    pub fn tells_pot_size(&self) -> bool {
        !matches!(self.preset, Preset::Wph | Preset::Oracle)
    }

    /// QueenSix pub league (Sydney).
    pub fn queensix() -> HouseRules {
        HouseRules {
            preset: Preset::QueenSix,
            button: ButtonRule::Dead,                         // rule 27
            heads_up_start: HeadsUpStart::SmallBlindOnButton, // the shared default
            misdeal_cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: true,
            },
            short_all_in: ShortAllIn::CumulativeReopens, // NLHE 5
            undersized_raise: UndersizedRaise::BroughtUpToMinimum, // NLHE 12
            straddle_raise: StraddleRaise::TwiceTheStraddle, // no straddles: the convention
            short_all_in_bet: ShortAllInBet::DoesNotReopen, // NLHE 3
            odd_chip: OddChip::OneEachLeftOfButton,
            showdown_order: ShowdownOrder::SidePotsFirst, // showdown 7
            out_of_turn: OutOfTurn::Restricted,           // betting 5
            clock: Clock {
                seconds: 30,
                countdown: 0,
            }, // NLHE 13: warnings at 20 s and 10 s
            last_hand: LastHand::MustShow,
            all_in_face_up: true, // tournament 30
        }
    }

    /// West Pennant Hills lounge league (2023).
    pub fn wph() -> HouseRules {
        HouseRules {
            preset: Preset::Wph,
            button: ButtonRule::Dead,                         // 24
            heads_up_start: HeadsUpStart::NoBigBlindTwice,    // 26
            misdeal_cutoff: MisdealCutoff::SubstantialAction, // 28
            short_all_in: ShortAllIn::NeverReopens,           // 33
            undersized_raise: UndersizedRaise::HalfRule,      // 33
            straddle_raise: StraddleRaise::TwiceTheStraddle,  // no straddles: the convention
            short_all_in_bet: ShortAllInBet::DoesNotReopen,   // 33
            odd_chip: OddChip::HighHandThenLeftOfButton,      // 12
            showdown_order: ShowdownOrder::LastAggressorElseLeftOfButton, // 10
            out_of_turn: OutOfTurn::WphRules31And40BetStays,  // 31, 40
            clock: Clock {
                seconds: 60,
                countdown: 10,
            }, // 20
            last_hand: LastHand::WinsUnseen,                  // 10B
            all_in_face_up: true,                             // 9
        }
    }

    /// Oracle casino house rules. The button is "moving or dead, designated per game":
    /// the preset takes the dead button, a tournament may override it.
    pub fn oracle() -> HouseRules {
        HouseRules {
            preset: Preset::Oracle,
            button: ButtonRule::Dead,
            heads_up_start: HeadsUpStart::SmallBlindOnButton,
            misdeal_cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: false,
            },
            short_all_in: ShortAllIn::TwoConsecutiveReopen, // 13
            undersized_raise: UndersizedRaise::HalfRule,    // 13
            straddle_raise: StraddleRaise::TwiceTheStraddle, // 4, 12: a live straddle bet
            short_all_in_bet: ShortAllInBet::DoesNotReopen, // 13
            odd_chip: OddChip::OneEachLeftOfButton,         // odd chip 4-5
            showdown_order: ShowdownOrder::SidePotsFirstElseLeftOfButton, // showdown 7
            out_of_turn: OutOfTurn::OracleRule8,            // 8
            clock: Clock {
                seconds: 60,
                countdown: 10,
            },
            last_hand: LastHand::WinsUnseen, // showdown 7
            all_in_face_up: false,
        }
    }

    /// The invitational home tournament (2010). The misdeal cut-off is not stated: the
    /// engine default of two players applies.
    pub fn invitational() -> HouseRules {
        HouseRules {
            preset: Preset::Invitational,
            button: ButtonRule::DeadInvitational, // 3.2-3.4
            heads_up_start: HeadsUpStart::NoBigBlindTwice, // 3.5
            misdeal_cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: false,
            },
            short_all_in: ShortAllIn::CumulativeReopens, // as QueenSix
            undersized_raise: UndersizedRaise::BetAndAHalf, // 5.6
            straddle_raise: StraddleRaise::TwiceTheStraddle, // no straddles: the convention
            short_all_in_bet: ShortAllInBet::DoesNotReopen, // as QueenSix
            odd_chip: OddChip::HighHandThenLeftOfButton, // 7.4
            showdown_order: ShowdownOrder::LastSidePotFirst, // 7.1, 7.5
            out_of_turn: OutOfTurn::HeldUnlessActionChanges, // 5.3, 5.5
            clock: Clock {
                seconds: 60,
                countdown: 10,
            }, // 1.10
            last_hand: LastHand::MustShow,
            all_in_face_up: true, // 5.8
        }
    }

    /// The Hippodrome cardroom (London, 2022): cash games.
    pub fn hippodrome() -> HouseRules {
        HouseRules {
            preset: Preset::Hippodrome,
            button: ButtonRule::Moving,
            heads_up_start: HeadsUpStart::LastBigBlindGetsButton,
            misdeal_cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: false,
            },
            short_all_in: ShortAllIn::NeverReopens,
            undersized_raise: UndersizedRaise::HalfRule, // 11
            straddle_raise: StraddleRaise::TwiceTheStraddle, // 9: a live button straddle
            short_all_in_bet: ShortAllInBet::DoesNotReopen,
            odd_chip: OddChip::OneEachLeftOfButton, // 3
            showdown_order: ShowdownOrder::LastAggressorElseFirstToAct,
            out_of_turn: OutOfTurn::StandsUnlessChanged,
            clock: Clock {
                seconds: 10,
                countdown: 0,
            }, // exposed hand facing a bet: 10 s to act
            last_hand: LastHand::MustShow,
            all_in_face_up: false,
        }
    }

    /// The rules the PHH format (and PokerKit) are defined by: PokerKit's reading of short
    /// all-ins, of raises over straddles and of short all-in bets; all odd chips to the
    /// first winner left of the button; bets below the minimum are refused rather than
    /// corrected.
    pub fn wsop() -> HouseRules {
        HouseRules {
            preset: Preset::Wsop,
            button: ButtonRule::Dead,
            heads_up_start: HeadsUpStart::SmallBlindOnButton,
            misdeal_cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: false,
            },
            short_all_in: ShortAllIn::AsPokerKit,
            undersized_raise: UndersizedRaise::Refused,
            straddle_raise: StraddleRaise::BigBlindOverTheStraddle,
            short_all_in_bet: ShortAllInBet::OpensTheBetting,
            odd_chip: OddChip::AllToFirstLeftOfButton,
            showdown_order: ShowdownOrder::LastAggressorElseFirstToAct,
            out_of_turn: OutOfTurn::BindingUnlessActionChanges,
            clock: Clock {
                seconds: 30,
                countdown: 0,
            },
            last_hand: LastHand::MustShow,
            all_in_face_up: false,
        }
    }
}
