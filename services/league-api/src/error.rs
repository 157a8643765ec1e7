//! The one place where failures become GraphQL errors with a stable `extensions.code`.
//!
//! Rule violations carry their data (`BET_BELOW_MINIMUM` with `min` and `got`); anything
//! internal (the database, a projection, a timeout) reaches the client as a generic message
//! with a correlation id, and its cause is logged under that id.

use async_graphql::ErrorExtensions as _;
use league_app::AppError;
use league_engine::cash::CashError;
use league_engine::hand::RuleError;
use league_engine::league::{LeagueError, ScoreFormula};
use league_engine::tournament::play::TournamentError;
use league_store::StoreError;

/// The stable error codes of the API.
pub mod code {
    pub const NOT_YOUR_TURN: &str = "NOT_YOUR_TURN";
    pub const BET_BELOW_MINIMUM: &str = "BET_BELOW_MINIMUM";
    pub const RAISE_BELOW_MINIMUM: &str = "RAISE_BELOW_MINIMUM";
    pub const BAD_INPUT: &str = "BAD_INPUT";
    pub const NOT_FOUND: &str = "NOT_FOUND";
    pub const CONFLICT: &str = "CONFLICT";
    pub const FORBIDDEN: &str = "FORBIDDEN";
    pub const UNAUTHENTICATED: &str = "UNAUTHENTICATED";
    pub const RULE_VIOLATION: &str = "RULE_VIOLATION";
    pub const INTERNAL: &str = "INTERNAL";
    pub const RATE_LIMITED: &str = "RATE_LIMITED";
    pub const IDEMPOTENCY_KEY_REUSED: &str = "IDEMPOTENCY_KEY_REUSED";
    pub const REDRAW_DUE: &str = "REDRAW_DUE";
    pub const COLOUR_UP_DUE: &str = "COLOUR_UP_DUE";
    pub const REBUY_DECISION_PENDING: &str = "REBUY_DECISION_PENDING";
    pub const HAND_FOR_HAND_WAITING: &str = "HAND_FOR_HAND_WAITING";
    pub const TABLE_HALTED: &str = "TABLE_HALTED";
    pub const CONTRADICTS_PRESET: &str = "CONTRADICTS_PRESET";
    pub const SEED_NOT_HELD: &str = "SEED_NOT_HELD";
    pub const NOT_A_MEMBER: &str = "NOT_A_MEMBER";
    pub const TOURNAMENT_CANCELLED: &str = "TOURNAMENT_CANCELLED";
    pub const METHOD_NOT_ALLOWED: &str = "METHOD_NOT_ALLOWED";
    pub const PERSISTED_QUERY_NOT_FOUND: &str = "PERSISTED_QUERY_NOT_FOUND";
    /// A malformed id for an object being created (`extensions.field` names it).
    pub const BAD_ID: &str = "BAD_ID";
    /// An id already used for an object of its kind.
    pub const ID_TAKEN: &str = "ID_TAKEN";
    /// A readable code (a league's or a venue's) another object already has.
    pub const CODE_TAKEN: &str = "CODE_TAKEN";
    /// This instance has not yet folded the log as far as the request needs (its
    /// `minPosition`, or the log's end for a command) within the time allowed: try again.
    pub const NOT_CAUGHT_UP: &str = "NOT_CAUGHT_UP";
    /// This instance is stopping (HTTP 503): send the request again, to another instance.
    pub const UNAVAILABLE: &str = "UNAVAILABLE";
}

/// Why a request failed, as the API reports it.
#[derive(Clone, Debug)]
pub enum ApiError {
    /// A client error with a code, a message and extra fields for `extensions`.
    Client {
        code: &'static str,
        message: String,
        extra: Vec<(&'static str, serde_json::Value)>,
    },
    /// Something the client cannot act on; only the correlation id reaches it.
    Internal(String),
}

impl ApiError {
    pub fn client(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::Client {
            code,
            message: message.into(),
            extra: Vec::new(),
        }
    }

    pub fn bad_input(message: impl Into<String>) -> ApiError {
        ApiError::client(code::BAD_INPUT, message)
    }

    /// `BAD_INPUT` naming the input field at fault (`schedule.levels[2].play.minutes`).
    pub fn bad_field(field: &str, message: impl Into<String>) -> ApiError {
        ApiError::bad_input(message).with_field(field)
    }

    /// Names the input field at fault (`extensions.field`).
    pub fn with_field(self, field: impl Into<String>) -> ApiError {
        self.with("field", field.into())
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::client(code::FORBIDDEN, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::client(code::NOT_FOUND, message)
    }

    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        ApiError::Internal(cause.to_string())
    }

    /// The code this error reports.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Client { code, .. } => code,
            ApiError::Internal(_) => code::INTERNAL,
        }
    }

    fn with(mut self, key: &'static str, value: impl Into<serde_json::Value>) -> ApiError {
        if let ApiError::Client { extra, .. } = &mut self {
            extra.push((key, value.into()));
        }
        self
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Client { code, message, .. } => write!(f, "{code}: {message}"),
            ApiError::Internal(cause) => write!(f, "internal error: {cause}"),
        }
    }
}

impl From<AppError> for ApiError {
    fn from(e: AppError) -> ApiError {
        match e {
            AppError::Tournament(e) => tournament_error(e),
            // The refusal on the state the winner left, as a conflict: its details kept.
            AppError::Raced(refusal) => match ApiError::from(*refusal) {
                ApiError::Client { message, extra, .. } => ApiError::Client {
                    code: code::CONFLICT,
                    message: format!("another command changed this first; now: {message}"),
                    extra,
                },
                internal @ ApiError::Internal(_) => internal,
            },
            AppError::League(e) => league_error(&e),
            AppError::Cash(e) => cash_error(e),
            AppError::Store(e) => e.into(),
            AppError::BadInput { field, message } => ApiError::bad_field(field, message),
            AppError::PastTheEnd { position, end } => {
                ApiError::bad_field("minPosition", e.to_string())
                    .with("minPosition", position)
                    .with("end", end)
            }
            AppError::NotCaughtUp { position, folded } => {
                ApiError::client(code::NOT_CAUGHT_UP, format!("{e}: try again"))
                    .with("minPosition", position)
                    .with("position", folded)
            }
            AppError::Projection(_) | AppError::Encode(_) | AppError::Other(_) => {
                ApiError::internal(e)
            }
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        match e {
            StoreError::Conflict { .. } => ApiError::client(
                code::CONFLICT,
                "the aggregate kept changing under the command; try again",
            ),
            StoreError::IdempotencyMismatch { .. } => key_reused(),
            StoreError::InvalidName { .. }
            | StoreError::BatchTooLarge { .. }
            | StoreError::PayloadTooLarge { .. } => ApiError::bad_input(e.to_string()),
            _ => ApiError::internal(e),
        }
    }
}

fn hand_error(e: RuleError) -> ApiError {
    let message = e.to_string();
    match e {
        RuleError::NotYourTurn { expected, got } => ApiError::client(code::NOT_YOUR_TURN, message)
            .with("expected", expected)
            .with("got", got),
        RuleError::BetBelowMinimum { min, got } => {
            ApiError::client(code::BET_BELOW_MINIMUM, message)
                .with("min", min)
                .with("got", got)
        }
        RuleError::RaiseBelowMinimum { min, got } => {
            ApiError::client(code::RAISE_BELOW_MINIMUM, message)
                .with("min", min)
                .with("got", got)
        }
        RuleError::NoSuchSeat { .. } => ApiError::bad_field("seat", message),
        RuleError::NotInChipUnit { unit, got } => ApiError::bad_field("amount", message)
            .with("unit", unit)
            .with("got", got),
        RuleError::BadSetup(_)
        | RuleError::WrongCardCount { .. }
        | RuleError::DuplicateCard { .. }
        | RuleError::OnTheBoard { .. }
        | RuleError::CardUnavailable { .. } => ApiError::bad_input(message),
        _ => ApiError::client(code::RULE_VIOLATION, message),
    }
}

/// A cash table's refusal: its own stable code goes in `extensions.rule`.
fn cash_error(e: CashError) -> ApiError {
    let message = e.to_string();
    let rule = e.code();
    match e {
        CashError::Rule(e) => hand_error(e),
        CashError::NotOpen => ApiError::not_found("no such cash table"),
        CashError::AlreadyOpen => ApiError::client(code::ID_TAKEN, message).with_field("id"),
        CashError::BadConfig(_) | CashError::NotACashHouse(_) => {
            ApiError::bad_field("table", message)
        }
        CashError::NoSuchSeat { .. } => ApiError::bad_field("seat", message),
        CashError::ZeroAmount => ApiError::bad_field("amount", message),
        _ => ApiError::client(code::RULE_VIOLATION, message).with("rule", rule),
    }
}

fn tournament_error(e: TournamentError) -> ApiError {
    let message = e.to_string();
    match e {
        TournamentError::Hand(e) => hand_error(e),
        TournamentError::NotScheduled => ApiError::not_found("no such tournament"),
        TournamentError::UnknownPlayer(_) | TournamentError::NoSuchTable(_) => {
            ApiError::not_found(message)
        }
        TournamentError::BadSchedule(_) => ApiError::bad_field("schedule", message),
        TournamentError::BreaksPreset { field, rule, .. } => {
            ApiError::client(code::CONTRADICTS_PRESET, message)
                .with_field(field)
                .with("rule", rule)
        }
        TournamentError::BadReason => ApiError::bad_field("reason", message),
        TournamentError::BadCorrection { field, .. } => ApiError::bad_field(field, message),
        TournamentError::BadPenalty { field, .. } => ApiError::bad_field(field, message),
        TournamentError::Cancelled => ApiError::client(code::TOURNAMENT_CANCELLED, message),
        TournamentError::AlreadyScheduled => {
            ApiError::client(code::ID_TAKEN, message).with_field("id")
        }
        TournamentError::HandIdTaken(_) => {
            ApiError::client(code::ID_TAKEN, message).with_field("handId")
        }
        TournamentError::BadPayouts(_) => ApiError::bad_field("amounts", message),
        TournamentError::BadPlayerId => {
            ApiError::client(code::BAD_ID, message).with_field("player")
        }
        TournamentError::BadSeed | TournamentError::DuplicatePlayer(_) => {
            ApiError::bad_input(message)
        }
        TournamentError::LevelMoved { current, .. } => {
            ApiError::client(code::CONFLICT, message).with("level", current)
        }
        // Refused until something pending is done: the code names it (the tournament's
        // `pending` lists it).
        TournamentError::RedrawDue => ApiError::client(code::REDRAW_DUE, message),
        TournamentError::ColourUpDue => ApiError::client(code::COLOUR_UP_DUE, message),
        TournamentError::RebuyDecisionPending { players } => {
            let players: Vec<String> = players.iter().map(ToString::to_string).collect();
            ApiError::client(code::REBUY_DECISION_PENDING, message).with("players", players)
        }
        TournamentError::WaitingForHandForHand { waiting } => {
            ApiError::client(code::HAND_FOR_HAND_WAITING, message).with("tables", waiting)
        }
        TournamentError::TableHalted { table, .. } => {
            ApiError::client(code::TABLE_HALTED, message).with("table", table)
        }
        _ => ApiError::client(code::RULE_VIOLATION, message),
    }
}

fn league_error(e: &LeagueError) -> ApiError {
    let message = e.to_string();
    match e {
        LeagueError::NoLeague => ApiError::not_found("no such league"),
        LeagueError::UnknownVenue { .. }
        | LeagueError::UnknownRegion { .. }
        | LeagueError::UnknownSeason { .. }
        | LeagueError::UnknownVersion { .. }
        | LeagueError::UnknownPlayer { .. }
        | LeagueError::UnknownTournament { .. } => ApiError::not_found(message),
        LeagueError::InvalidFormula { .. } | LeagueError::EmptyTable { .. } => {
            ApiError::bad_field("scoring", message)
        }
        LeagueError::InvalidSeasonScore { which, .. } => ApiError::bad_field(
            match which {
                ScoreFormula::Tournament => "tournamentScore",
                ScoreFormula::Overall => "overallScore",
            },
            message,
        ),
        LeagueError::BadLogo => ApiError::bad_field("logo", message),
        LeagueError::BadCode { .. } => ApiError::bad_field("code", message),
        LeagueError::VenueCodeTaken { .. } => {
            ApiError::client(code::CODE_TAKEN, message).with_field("code")
        }
        LeagueError::VenueIdIsACode { .. } => {
            ApiError::client(code::ID_TAKEN, message).with_field("venue")
        }
        LeagueError::LeagueExists => ApiError::client(code::ID_TAKEN, message).with_field("id"),
        LeagueError::VenueExists { .. } => {
            ApiError::client(code::ID_TAKEN, message).with_field("venue")
        }
        LeagueError::SeasonExists { .. } => {
            ApiError::client(code::ID_TAKEN, message).with_field("season")
        }
        LeagueError::BadId { what } => {
            let error = ApiError::client(code::BAD_ID, message);
            match what.as_str() {
                "the venue" => error.with_field("venue"),
                "the season" => error.with_field("season"),
                "the player id" => error.with_field("player"),
                _ => error,
            }
        }
        LeagueError::BadText { .. }
        | LeagueError::EmptyFinalTable
        | LeagueError::BestNZero { .. } => ApiError::bad_input(message),
        _ => ApiError::client(code::RULE_VIOLATION, message),
    }
}

/// An idempotency key sent again with another request: nothing is done.
pub fn key_reused() -> ApiError {
    ApiError::client(
        code::IDEMPOTENCY_KEY_REUSED,
        "this idempotency key was already used for a different request; \
         use a new key for a new request",
    )
}

/// A fresh id for a request or an internal error: 16 hex digits.
pub fn correlation_id() -> String {
    let mut bytes = [0u8; 8];
    // Without OS randomness the id is all zeros: still logged, just less unique.
    let _ = getrandom::fill(&mut bytes);
    league_store::hash::to_hex(&bytes)
}

impl From<ApiError> for async_graphql::Error {
    fn from(e: ApiError) -> async_graphql::Error {
        match e {
            ApiError::Client {
                code,
                message,
                extra,
            } => async_graphql::Error::new(message).extend_with(|_, ext| {
                ext.set("code", code);
                for (key, value) in extra {
                    if let Ok(value) = async_graphql::Value::from_json(value) {
                        ext.set(key, value);
                    }
                }
            }),
            ApiError::Internal(cause) => {
                let id = correlation_id();
                tracing::error!(correlation_id = %id, "internal error: {cause}");
                async_graphql::Error::new(format!("internal error (correlation id {id})"))
                    .extend_with(|_, ext| {
                        ext.set("code", code::INTERNAL);
                        ext.set("correlationId", id.as_str());
                    })
            }
        }
    }
}

/// Resolver result.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

    use league_engine::league::{
        Command, LeagueState, ScoreOrder, ScoringRule, SeasonScoreRule, decide, execute,
    };
    use proptest::prelude::*;

    use super::*;

    /// Text a hostile client might send as a points formula: deep nesting (past the
    /// parser's bound and far past the stack's), long chains of operators, huge and odd
    /// numbers, unknown names and functions, stray characters and any Unicode.
    fn hostile_formula() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            prop::sample::select(vec![
                "n",
                "r",
                "nr",
                "nh",
                "buyin",
                "prizepool",
                "rank",
                "mr",
                "(",
                ")",
                "((",
                "))",
                "+",
                "-",
                "*",
                "/",
                "^",
                "%",
                "=",
                "<=",
                ",",
                "sqrt(",
                "log10(",
                "ln(",
                "exp(",
                "round(",
                "if(",
                "min(",
                "max(",
                // A season score's lists and list functions.
                "scores",
                "listPoints",
                "points",
                "top(",
                "bottom(",
                "index(",
                "setListLength(",
                "1000",
                "sum(",
                "average(",
                "1e308",
                "1e999",
                "0",
                "0.0",
                "-0",
                "18446744073709551616",
                "9999999999999999999999999",
                ".",
                "..",
                "1.2.3",
                " ",
                "\u{0}",
                "\u{202e}",
                "∞",
                "NaN",
            ])
            .prop_map(String::from),
            "[ -~]{1,4}",
            any::<char>().prop_map(String::from),
        ];
        // Sizes just under, at and past the parser's bounds (64 levels, 256 operators), and
        // far past them. A formula the parser takes is then checked at some 125,000 inputs,
        // so the long ones it takes are kept to a few cases.
        let depth = || prop::sample::select(vec![63usize, 64, 65, 1_000, 3_000]);
        prop_oneof![
            90 => prop::collection::vec(token, 0..80).prop_map(|t| t.concat()),
            4 => (depth(), "[a-z0-9+*/-]{0,3}")
                .prop_map(|(depth, core)| format!("{}{core}{}", "(".repeat(depth), ")".repeat(depth))),
            2 => depth().prop_map(|depth| "sqrt(".repeat(depth)),
            2 => depth().prop_map(|depth| "-".repeat(depth) + "n"),
            1 => prop::sample::select(vec![255usize, 256, 257, 2_000])
                .prop_map(|terms| vec!["n"; terms + 1].join(" + ")),
        ]
    }

    /// A league with a season scored by a formula, made once.
    fn league() -> &'static LeagueState {
        static LEAGUE: std::sync::OnceLock<LeagueState> = std::sync::OnceLock::new();
        LEAGUE.get_or_init(a_league)
    }

    fn a_league() -> LeagueState {
        let mut state = LeagueState::new();
        let mut events = Vec::new();
        execute(
            &mut state,
            &Command::CreateLeague {
                name: "League".into(),
                final_table: None,
                code: None,
            },
            &mut events,
        )
        .unwrap();
        execute(
            &mut state,
            &Command::AddSeason {
                season: "2026".into(),
                best_n: None,
                scoring: ScoringRule::Formula {
                    text: "n - r + 1".into(),
                },
            },
            &mut events,
        )
        .unwrap();
        state
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// A formula sent to `addSeason`, `setFormula` or `setSeasonScore`, however hostile,
        /// is taken or refused with `BAD_INPUT` naming its field (`scoring`,
        /// `tournamentScore` or `overallScore`), in words: never a panic, a stack overflow or
        /// `INTERNAL`.
        #[test]
        fn hostile_formulas_are_refused_with_bad_input_naming_scoring(
            text in hostile_formula(),
            target in 0..4u8,
        ) {
            let scoring = ScoringRule::Formula { text: text.clone() };
            let score = |tournament: &str, overall: &str| Command::SetSeasonScore {
                season: "2026".into(),
                score: Some(SeasonScoreRule {
                    tournament: tournament.into(),
                    overall: overall.into(),
                    order: ScoreOrder::BreaksTies,
                }),
            };
            let (command, field) = match target {
                0 => (Command::AddSeason { season: "2027".into(), best_n: None, scoring }, "scoring"),
                1 => (Command::SetFormula { season: "2026".into(), scoring }, "scoring"),
                2 => (score(&text, "average(scores)"), "tournamentScore"),
                _ => (score("n - r + 1", &text), "overallScore"),
            };
            if let Err(refused) = decide(league(), &command) {
                let answer = ApiError::from(AppError::League(refused));
                let ApiError::Client { code, message, extra } = &answer else {
                    return Err(TestCaseError::fail(format!("{answer}")));
                };
                prop_assert_eq!(*code, code::BAD_INPUT, "{}", message);
                prop_assert!(
                    extra.iter().any(|(k, v)| *k == "field" && v == field),
                    "{:?}", extra
                );
                prop_assert!(!message.trim().is_empty());
                for debug in ["Some(", "None", "Ok(", "Err("] {
                    prop_assert!(!message.contains(debug) || text.contains(debug), "{}", message);
                }
            }
        }
    }
}
