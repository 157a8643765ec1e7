//! The names a formula may use: The Tournament Director's variables under their long and
//! short names (case-insensitive, as TD3 reads them), the ones a recorded result cannot
//! give, and the functions. `docs/formulas.md` is the reader's copy of these tables.

use serde::{Deserialize, Serialize};

use super::{Extra, Inputs};

/// A variable a formula reads from a recorded result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Var {
    /// `buyins`, `numberOfPlayers`, `n`: entrants.
    N,
    /// `rank`, `r`: the finishing place.
    R,
    /// `numberOfRebuys`, `rebuys`, `nr`.
    Nr,
    /// `numberOfHits`, `nh`: knock-outs.
    Nh,
    /// `buyinCost`, `bc`, `buyin`, `defaultBuyinFee`.
    Buyin,
    /// `pot`, `prizepool`, `pp`.
    Prizepool,
    /// `inTheMoneyRank`, `mr`: the last place paid.
    Paid,
    /// `inTheMoney`, `placed`, `m`: 1 for a player paid a prize.
    InTheMoney,
    /// `prizeWinnings`, `pw`.
    Prize,
    /// `totalRebuys`, `totalNumberOfRebuys`, `tnr`.
    TotalRebuys,
    /// `position`: the first player out is 1 (`n - r + 1`).
    Position,
    /// `totalBuyinsAmount`: entrants times the buy-in.
    TotalBuyins,
    /// `points` (a season's tournament score only): the player's points in the tournament.
    Points,
    /// `scores` (an overall score only): the player's tournament scores, a list.
    Scores,
    /// `listPoints` (an overall score only): the player's points, a list.
    ListPoints,
    /// `numberOfTournaments`, `n` (an overall score only): the tournaments of the season.
    Tournaments,
}

impl Var {
    /// Whether the variable is a list, which only the list functions take.
    pub(super) fn is_list(self) -> bool {
        matches!(self, Var::Scores | Var::ListPoints)
    }
}

/// What a formula computes, which decides the names it may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum FormulaKind {
    /// A player's points in one tournament.
    Points,
    /// A season's tournament score: a player's score in one tournament (The Tournament
    /// Director's "Tournament Score"); it reads what a points formula reads, and `points`.
    TournamentScore,
    /// A season's overall score: over a player's tournament scores (TD3's "Overall
    /// Score"); it reads `scores`, `listPoints` and `n`, the number of tournaments.
    OverallScore,
}

/// Every variable with every name it goes by (lower case), its meaning, and its value.
pub(super) const VARIABLES: &[(Var, &[&str], &str)] = &[
    (
        Var::N,
        &["buyins", "numberofplayers", "n"],
        "entrants (the field)",
    ),
    (
        Var::R,
        &["rank", "r"],
        "the player's finishing place; 1 is the winner",
    ),
    (
        Var::Nr,
        &["numberofrebuys", "rebuys", "nr"],
        "the player's re-buys",
    ),
    (Var::Nh, &["numberofhits", "nh"], "the player's knock-outs"),
    (
        Var::Buyin,
        &["buyincost", "bc", "buyin", "defaultbuyinfee"],
        "the buy-in, whole currency units",
    ),
    (
        Var::Prizepool,
        &["pot", "prizepool", "pp"],
        "the prize pool, whole currency units",
    ),
    (
        Var::Paid,
        &["inthemoneyrank", "mr"],
        "the last place paid a prize (0 when none was)",
    ),
    (
        Var::InTheMoney,
        &["inthemoney", "placed", "m"],
        "1 for a player paid a prize, else 0",
    ),
    (
        Var::Prize,
        &["prizewinnings", "pw"],
        "the player's prize, whole currency units",
    ),
    (
        Var::TotalRebuys,
        &["totalrebuys", "totalnumberofrebuys", "tnr"],
        "re-buys by all players",
    ),
    (
        Var::Position,
        &["position"],
        "the inverse of the place: the first player out is 1 (n - r + 1)",
    ),
    (
        Var::TotalBuyins,
        &["totalbuyinsamount"],
        "entrants times the buy-in, whole currency units",
    ),
];

const ADD_ONS: &str = "a league's result records re-buys but not add-ons";
const BOUNTIES: &str = "bounty money is not recorded with a result";
const RAKE: &str = "the house's cut is not recorded per player";
const COSTS: &str = "re-buy and add-on prices are not recorded with a result";
const LIVE: &str = "a live figure of the clock or the tables, not of a finished tournament";
const LEAGUE: &str = "league membership and league rank are the league's own, not inputs";

/// TD3 variables a recorded result cannot give, and why: a formula naming one is refused
/// when it is set, naming it.
pub(super) const NOT_RECORDED: &[(&[&str], &str)] = &[
    (&["numberofaddons", "addons", "na"], ADD_ONS),
    (&["totaladdons", "totalnumberofaddons", "tna"], ADD_ONS),
    (&["totaladdonsamount", "defaultaddonfee"], ADD_ONS),
    (&["addoncost", "ac", "addonrake", "ar"], ADD_ONS),
    (
        &[
            "bountychipcost",
            "bcc",
            "bountymoneykept",
            "bmk",
            "bountywinnings",
            "bw",
            "numberofbountieskept",
            "nbk",
            "numberofbountieswon",
            "nb",
            "numberofbountychips",
            "nbc",
            "bountytotal",
        ],
        BOUNTIES,
    ),
    (&["totalwinnings", "tw", "take", "t"], BOUNTIES),
    (
        &[
            "rebuycost",
            "rc",
            "totalcost",
            "tc",
            "totalrebuysamount",
            "defaultrebuyfee",
        ],
        COSTS,
    ),
    (
        &[
            "buyinrake",
            "br",
            "rebuyrake",
            "rr",
            "totalrake",
            "tr",
            "totalbuyinsrake",
            "totalrebuysrake",
            "totaladdonsrake",
            "totalfixedrake",
            "fixedrake",
        ],
        RAKE,
    ),
    (
        &[
            "chipstack",
            "finaltable",
            "playersatsametable",
            "playingtime",
            "roundout",
            "ro",
            "playersleft",
            "players",
            "tablesleft",
            "tables",
            "bustsuntilmoney",
            "bustsuntilfinaltable",
            "level",
            "roundnum",
            "smallblind",
            "bigblind",
            "ante",
            "secondselapsed",
            "secondsleft",
            "time",
            "timeofday",
        ],
        LIVE,
    ),
    (
        &[
            "inleague",
            "leaguerank",
            "numberofleaguemembers",
            "nm",
            "id",
            "internalid",
        ],
        LEAGUE,
    ),
];

/// The variables only a season's score formulas read, with their names and meaning.
pub(super) const SCORE_VARIABLES: &[(Var, &[&str], &str)] = &[
    (
        Var::Points,
        &["points"],
        "tournament score only: the player's points in the tournament",
    ),
    (
        Var::Scores,
        &["scores"],
        "overall score only: the player's tournament scores in the season, oldest first (a list)",
    ),
    (
        Var::ListPoints,
        &["listpoints"],
        "overall score only: the player's points in the season, oldest first (a list)",
    ),
    (
        Var::Tournaments,
        &["numberoftournaments", "n"],
        "overall score only: the tournaments of the season (in the standings' venue or region)",
    ),
];

const PER_TOURNAMENT: &str = "it is one tournament's figure; an overall score reads `scores`, `listPoints` and `n` (the number of tournaments)";

/// What a name is, when it is a variable.
pub(super) enum Name {
    Var(Var),
    NotRecorded(&'static str),
    Unknown,
}

pub(super) fn lookup(lower: &str, kind: FormulaKind) -> Name {
    let score_var = |var: Var| match kind {
        FormulaKind::Points => false,
        FormulaKind::TournamentScore => var == Var::Points,
        FormulaKind::OverallScore => var != Var::Points,
    };
    for (var, names, _) in SCORE_VARIABLES {
        if names.contains(&lower) && score_var(*var) {
            return Name::Var(*var);
        }
    }
    for (var, names, _) in VARIABLES {
        if names.contains(&lower) {
            if kind == FormulaKind::OverallScore {
                return Name::NotRecorded(PER_TOURNAMENT);
            }
            return Name::Var(*var);
        }
    }
    for (names, why) in NOT_RECORDED {
        if names.contains(&lower) {
            return Name::NotRecorded(why);
        }
    }
    Name::Unknown
}

impl Var {
    /// A number variable's value (a list variable reads as 0 here: the type check keeps
    /// lists to the list functions).
    pub(super) fn value(self, inputs: &Inputs, extra: &Extra<'_>) -> f64 {
        match self {
            Var::N => f64::from(inputs.n),
            Var::R => f64::from(inputs.r),
            Var::Nr => f64::from(inputs.nr),
            Var::Nh => f64::from(inputs.nh),
            Var::Buyin => u64_to_f64(inputs.buyin),
            Var::Prizepool => u64_to_f64(inputs.prizepool),
            Var::Paid => f64::from(inputs.paid),
            Var::InTheMoney => f64::from(u8::from(inputs.prize > 0)),
            Var::Prize => u64_to_f64(inputs.prize),
            Var::TotalRebuys => f64::from(inputs.total_rebuys),
            Var::Position => f64::from(inputs.n) - f64::from(inputs.r) + 1.0,
            Var::TotalBuyins => f64::from(inputs.n) * u64_to_f64(inputs.buyin),
            Var::Points => i64_to_f64(extra.points.get()) / 100.0,
            Var::Tournaments => f64::from(extra.tournaments),
            Var::Scores | Var::ListPoints => 0.0,
        }
    }
}

pub(super) fn i64_to_f64(v: i64) -> f64 {
    let magnitude = u64_to_f64(v.unsigned_abs());
    if v < 0 { -magnitude } else { magnitude }
}

pub(super) fn u64_to_f64(v: u64) -> f64 {
    // Money below 2^53 cents converts exactly; anything larger is far beyond any pool.
    let high = u32::try_from(v >> 32).unwrap_or(u32::MAX);
    let low = u32::try_from(v & 0xffff_ffff).unwrap_or(0);
    f64::from(high) * 4_294_967_296.0 + f64::from(low)
}

/// A function: TD3's, with its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Func {
    If,
    Switch,
    LSwitch,
    OneOf,
    Max,
    Min,
    Sum,
    Product,
    Average,
    Count,
    Round,
    RoundToNearest,
    RoundUpToNearest,
    RoundDownToNearest,
    Floor,
    Ceil,
    Abs,
    Sqrt,
    Pow,
    Exp,
    Log,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Triangle,
    Assign,
    Top,
    Bottom,
    Index,
    SetListLength,
}

/// A function's names, the arguments it takes (least, most; `None`: any number), and what
/// it gives.
type FunctionSpec = (Func, &'static [&'static str], u8, Option<u8>, &'static str);

/// Every function.
pub(super) const FUNCTIONS: &[FunctionSpec] = &[
    (
        Func::If,
        &["if"],
        2,
        Some(3),
        "if(c, a, b): a when c is not 0, else b (0 when b is left out)",
    ),
    (
        Func::Switch,
        &["switch"],
        3,
        None,
        "switch(v, c1, r1, c2, r2, ..., d): the r paired with the first c equal to v, else d (0 without d)",
    ),
    (
        Func::LSwitch,
        &["lswitch"],
        2,
        None,
        "lswitch(k, r1, ..., rj): the k-th r; the last when k is out of range",
    ),
    (
        Func::OneOf,
        &["oneof"],
        2,
        None,
        "oneof(v, a, b, ...): 1 when v equals one of them, else 0",
    ),
    (
        Func::Max,
        &["max"],
        1,
        None,
        "the largest argument (each value of a list argument counts)",
    ),
    (
        Func::Min,
        &["min"],
        1,
        None,
        "the smallest argument (each value of a list argument counts)",
    ),
    (
        Func::Sum,
        &["sum"],
        1,
        None,
        "the sum of the arguments (of a list's values; 0 for an empty list)",
    ),
    (
        Func::Product,
        &["product"],
        1,
        None,
        "the product of the arguments (of a list's values; 1 for an empty list)",
    ),
    (
        Func::Average,
        &["average"],
        1,
        None,
        "the mean of the arguments (of a list's values; no value for an empty list)",
    ),
    (
        Func::Count,
        &["count"],
        1,
        None,
        "how many arguments there are (a list counts its values)",
    ),
    (
        Func::Top,
        &["top"],
        2,
        Some(2),
        "top(k, list): the list's k largest values, largest first (all of them when it has fewer)",
    ),
    (
        Func::Bottom,
        &["bottom"],
        2,
        Some(2),
        "bottom(k, list): the list's k smallest values, smallest first",
    ),
    (
        Func::Index,
        &["index"],
        2,
        Some(2),
        "index(i, list): the list's value at i, counting from 0",
    ),
    (
        Func::SetListLength,
        &["setlistlength"],
        2,
        Some(2),
        "setListLength(k, list): the list cut to its first k values, or filled to k with 0",
    ),
    (
        Func::Round,
        &["round"],
        1,
        Some(2),
        "round(x, d): x to d decimals (0 when left out), halves away from zero",
    ),
    (
        Func::RoundToNearest,
        &["roundtonearest"],
        2,
        Some(2),
        "roundToNearest(x, m): the nearest multiple of m",
    ),
    (
        Func::RoundUpToNearest,
        &["rounduptonearest"],
        2,
        Some(2),
        "roundUpToNearest(x, m): the next multiple of m up",
    ),
    (
        Func::RoundDownToNearest,
        &["rounddowntonearest"],
        2,
        Some(2),
        "roundDownToNearest(x, m): the next multiple of m down",
    ),
    (Func::Floor, &["floor"], 1, Some(1), "rounded down"),
    (Func::Ceil, &["ceil"], 1, Some(1), "rounded up"),
    (Func::Abs, &["abs"], 1, Some(1), "the absolute value"),
    (Func::Sqrt, &["sqrt"], 1, Some(1), "the square root"),
    (
        Func::Pow,
        &["pow", "power"],
        2,
        Some(2),
        "pow(x, y): x to the power y (also x ^ y)",
    ),
    (Func::Exp, &["exp"], 1, Some(1), "e to the power x"),
    (
        Func::Log,
        &["log", "ln"],
        1,
        Some(2),
        "log(x): the natural logarithm; log(x, b): to base b",
    ),
    (
        Func::Log10,
        &["log10"],
        1,
        Some(1),
        "the logarithm to base 10",
    ),
    (Func::Sin, &["sin"], 1, Some(1), "the sine (radians)"),
    (Func::Cos, &["cos"], 1, Some(1), "the cosine (radians)"),
    (Func::Tan, &["tan"], 1, Some(1), "the tangent (radians)"),
    (Func::Asin, &["asin"], 1, Some(1), "the arc sine"),
    (Func::Acos, &["acos"], 1, Some(1), "the arc cosine"),
    (Func::Atan, &["atan"], 1, Some(1), "the arc tangent"),
    (
        Func::Triangle,
        &["triangle"],
        1,
        Some(1),
        "triangle(k): 1 + 2 + ... + k",
    ),
    (
        Func::Assign,
        &["assign"],
        2,
        Some(2),
        "assign(\"name\", v): gives name the value v for what follows, and is v",
    ),
];

/// TD3 functions a league's points cannot use, and why.
pub(super) const REFUSED_FUNCTIONS: &[(&str, &str)] = &[(
    "random",
    "points must come out the same every time the log is replayed",
)];

/// A function's name as the reference writes it.
pub(super) fn function_name(func: Func) -> &'static str {
    match func {
        Func::SetListLength => "setListLength",
        Func::RoundToNearest => "roundToNearest",
        Func::RoundUpToNearest => "roundUpToNearest",
        Func::RoundDownToNearest => "roundDownToNearest",
        Func::LSwitch => "lswitch",
        Func::OneOf => "oneof",
        _ => FUNCTIONS
            .iter()
            .find(|(f, ..)| *f == func)
            .and_then(|(_, names, ..)| names.first())
            .copied()
            .unwrap_or("?"),
    }
}

pub(super) fn function(lower: &str) -> Option<(Func, u8, Option<u8>)> {
    FUNCTIONS
        .iter()
        .find(|(_, names, ..)| names.contains(&lower))
        .map(|&(func, _, least, most, _)| (func, least, most))
}
