//! Which shape of each event this build writes, and how it reads every shape a release has
//! ever written.
//!
//! Every stored event carries its type (`event_type`) and the version of that type's shape
//! (`schema_version`). The [`CATALOGUE`] names each type of each stream kind with the
//! version this build writes. A log's bytes are never rewritten (they are hashed, sealed and
//! signed), so when a type's shape changes its version goes up by one and an [`Upcaster`]
//! from the old version to the new one is added to [`UPCASTERS`]: reading an old event
//! parses its stored bytes as JSON, upcasts them version by version to the current shape,
//! and only then reads them into the Rust type. Verification always hashes the stored
//! bytes, never the upcast ones.
//!
//! A type this build does not know, or a version newer than the one it writes, is refused
//! with a [`DecodeError`] that names it: a build never skips or guesses at an event a newer
//! release wrote.
//!
//! The checked-in JSON Schemas (`schema/events/<kind>/<Type>.v<N>.json`) and
//! `docs/events.md` are compared with the Rust types by `league-events`' tests, which fail
//! when a type's serialized shape changes without a new version here.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::StreamKind;

/// One event type of a stream kind and the version of its shape this build writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventType {
    pub kind: StreamKind,
    pub name: &'static str,
    pub version: u32,
}

const fn tournament(name: &'static str, version: u32) -> EventType {
    EventType {
        kind: StreamKind::Tournament,
        name,
        version,
    }
}

const fn cash(name: &'static str, version: u32) -> EventType {
    EventType {
        kind: StreamKind::Cash,
        name,
        version,
    }
}

const fn league(name: &'static str, version: u32) -> EventType {
    EventType {
        kind: StreamKind::League,
        name,
        version,
    }
}

/// Every event type this build reads and writes, with the version it writes. A type is
/// never removed from this list (old logs hold it); a changed shape raises its version and
/// adds an upcaster.
pub const CATALOGUE: &[EventType] = &[
    // Version 2 (release 0.7.0) adds the house rules' `deals_allowed`.
    // Version 3 (release 0.15.0) adds the house rules' `escalating_penalties` and
    // `out_for_good_when_penalised`.
    // Version 4 (release 0.16.0) adds the house rules' `absent_hands_dead`.
    tournament("TournamentScheduled", 4),
    tournament("PlayerRegistered", 1),
    tournament("PlayerUnregistered", 1),
    tournament("TournamentStarted", 1),
    tournament("LevelStarted", 1),
    tournament("ClockPaused", 1),
    tournament("ClockResumed", 1),
    tournament("PlayerMarkedAbsent", 1),
    tournament("PlayerArrived", 1),
    tournament("AbsentPlayerRemoved", 1),
    tournament("PlayerEntered", 1),
    // Version 2 (release 0.6.0) adds the `hand_id` a command may name.
    tournament("TableHandStarted", 2),
    // One version for every hand event: the hand's events are one shape, `HandEvent`'s.
    // Version 2 (release 0.4.0) adds the house rules' `straddle_raise` and `short_all_in_bet`.
    // Version 3 (release 0.8.0) adds three out-of-turn rules (`OracleRule8`,
    // `HeldUnlessActionChanges`, `WphRules31And40`).
    // Version 4 (release 0.11.0) adds a cash table's `rake` and `run_twice` to the setup,
    // `rake` and `run` to each pot, and the events of running the board twice.
    // Version 5 (release 0.14.0) adds `HandKilled`, a hand the floor declared dead.
    // Version 6 (release 0.16.0) adds the setup's `chip_unit` (pots split in the smallest
    // chip in play) and `absent_hands_dead`, the kill's cause `Absent` (an absent player's
    // hand dead at the deal), and a pot in dispute: `PotImpounded`, `PotReleased`,
    // `HandRetrieved` and `HandSeenOnRequest`.
    // Version 7 (release 0.17.0) adds the house rules' `last_hand` (WPH 10B, Oracle
    // showdown 7) and `all_in_face_up` (QueenSix 30, WPH 9, invitational 5.8), the show
    // orders `SidePotsFirstElseLeftOfButton` and `LastSidePotFirst`, the out-of-turn rule
    // `WphRules31And40BetStays` and its `OutOfTurnBetForfeited`.
    // Version 8 (release 0.19.0) adds `CallRetracted`, a call the floor ruled not binding.
    // Version 9 (release 0.19.0) adds `AggressionForfeited`, a player's bets and raises
    // taken away for the rest of the hand.
    tournament("HandEvent", 9),
    tournament("PlayerBusted", 1),
    tournament("RebuyAnnounced", 1),
    tournament("RebuyMade", 1),
    tournament("AddOnMade", 1),
    // Version 2 (release 0.7.0) adds `ranked`.
    tournament("PlayersEliminated", 2),
    tournament("ChipsCounted", 1),
    tournament("PlayerMoved", 1),
    tournament("TableBroken", 1),
    tournament("TableOpened", 1),
    tournament("RedrawRequired", 1),
    tournament("SeatsRedrawn", 1),
    tournament("HandForHandStarted", 1),
    tournament("HandForHandEnded", 1),
    tournament("ChipsColouredUp", 1),
    // Version 2 (release 0.15.0) adds the penalties `Forfeit` (chips) and `Eliminate`.
    tournament("PenaltyGiven", 2),
    tournament("PlayerDisqualified", 1),
    tournament("PayoutsSet", 1),
    tournament("DealMade", 1),
    tournament("TournamentFinished", 1),
    tournament("TournamentCancelled", 1),
    tournament("PlayerReinstated", 1),
    // Release 0.3.0: entropy a host or player adds, and the pool a draw mixes in.
    tournament("EntropyAdded", 1),
    tournament("EntropyMixed", 1),
    // Release 0.7.0: a void hand is not counted as a hand played.
    tournament("VoidHandNotCounted", 1),
    // Release 0.8.0: the clock called on a player to act.
    tournament("ClockCalled", 1),
    // Release 0.12.0: a stack put right between hands.
    tournament("ChipsCorrected", 1),
    // Release 0.13.0: a seat and the button put right between hands.
    tournament("SeatCorrected", 1),
    tournament("ButtonCorrected", 1),
    // Release 0.18.0: a stack in an unsold seat, and its leaving play.
    tournament("UnsoldStackPlaced", 1),
    tournament("UnsoldStackRemoved", 1),
    league("LeagueCreated", 1),
    league("VenueAdded", 1),
    // Release 0.6.0: readable codes beside the ids of a league and its venues.
    league("LeagueCodeSet", 1),
    league("VenueCodeSet", 1),
    // Release 0.5.0: a venue's name and logo for its screens.
    league("VenueDisplaySet", 1),
    league("SeasonAdded", 1),
    league("FormulaSet", 1),
    // Release 0.4.0: a season's score formulas.
    league("SeasonScoreSet", 1),
    // Release 0.9.0: a season closed, its results final.
    league("SeasonClosed", 1),
    league("PlayerRegistered", 1),
    league("PlayerRenamed", 1),
    league("PlayersMerged", 1),
    league("PlayersUnmerged", 1),
    league("TournamentRecorded", 1),
    // Version 2 (release 0.2.0) adds `reason`.
    league("TournamentAmended", 2),
    // Cash tables (release 0.10.0).
    // Version 2 (release 0.11.0) adds the house's take `Rake` and `run_twice`.
    // Version 3 (release 0.17.0): the house rules as in the tournament's `HandEvent` 7.
    cash("TableOpened", 3),
    cash("TableClosed", 1),
    cash("PlayerSeated", 1),
    cash("ChipsAdded", 1),
    cash("PlayerSatOut", 1),
    cash("PlayerReturned", 1),
    cash("BlindMissed", 1),
    cash("PlayerCashedOut", 1),
    cash("SeatReserved", 1),
    cash("ReservationCancelled", 1),
    cash("WaitingListJoined", 1),
    cash("WaitingListLeft", 1),
    cash("SessionFeeCharged", 1),
    cash("SessionFeePaid", 1),
    cash("HandDealt", 1),
    // Version 2 (release 0.11.0): as the tournament's `HandEvent` version 4.
    // Version 3 (release 0.14.0): as the tournament's `HandEvent` version 5.
    // Version 4 (release 0.16.0): as the tournament's `HandEvent` version 6.
    // Version 5 (release 0.17.0): as the tournament's `HandEvent` version 7.
    // Version 6 (release 0.19.0): as the tournament's `HandEvent` version 8.
    // Version 7 (release 0.19.0): as the tournament's `HandEvent` version 9.
    cash("HandEvent", 7),
];

/// Every kind of event a hand records (inside `HandEvent`): a golden log holds each.
pub const HAND_EVENTS: &[&str] = &[
    "HandStarted",
    "DeckSealed",
    "AntePosted",
    "BlindPosted",
    "HoleCardsDealt",
    "PreflopStarted",
    "PlayerFolded",
    "PlayerChecked",
    "PlayerCalled",
    "PlayerBet",
    "PlayerRaised",
    "RaiseTreatedAsCall",
    "UncalledBetReturned",
    "BoardDealt",
    "ShowdownStarted",
    "HandShown",
    "HandMucked",
    "PotAwarded",
    "HandEnded",
    "ActedOutOfTurn",
    "OutOfTurnRuled",
    "HandVoided",
    "RunTwiceChosen",
    "BoardRunAgain",
    "HandKilled",
    "PotImpounded",
    "PotReleased",
    "HandRetrieved",
    "HandSeenOnRequest",
    "OutOfTurnBetForfeited",
    "CallRetracted",
    "AggressionForfeited",
];

/// A pure function from one version of a type's JSON to the next.
pub type UpcastFn = fn(Value) -> Result<Value, String>;

/// Reads version `from` of a type as version `from + 1`.
#[derive(Clone, Copy, Debug)]
pub struct Upcaster {
    pub kind: StreamKind,
    pub event_type: &'static str,
    pub from: u32,
    pub upcast: UpcastFn,
}

/// Every upcaster, each with a test on a stored example of the version it reads.
pub const UPCASTERS: &[Upcaster] = &[
    Upcaster {
        kind: StreamKind::League,
        event_type: "TournamentAmended",
        from: 1,
        upcast: amended_v1_to_v2,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 1,
        upcast: hand_event_v1_to_v2,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 2,
        upcast: hand_event_v2_to_v3,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 3,
        upcast: hand_event_without_rake,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 4,
        upcast: hand_event_before_kills,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 5,
        upcast: hand_event_before_chip_units,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 1,
        upcast: hand_event_without_rake,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 2,
        upcast: hand_event_before_kills,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 3,
        upcast: hand_event_before_chip_units,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 6,
        upcast: hand_event_before_muck_muck,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 4,
        upcast: hand_event_before_muck_muck,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 7,
        upcast: hand_event_before_retracted_calls,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 5,
        upcast: hand_event_before_retracted_calls,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "HandEvent",
        from: 8,
        upcast: hand_event_before_forfeited_aggression,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "HandEvent",
        from: 6,
        upcast: hand_event_before_forfeited_aggression,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "TableOpened",
        from: 1,
        upcast: cash_table_without_rake,
    },
    Upcaster {
        kind: StreamKind::Cash,
        event_type: "TableOpened",
        from: 2,
        upcast: cash_table_before_muck_muck,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "TableHandStarted",
        from: 1,
        upcast: hand_started_v1_to_v2,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "TournamentScheduled",
        from: 1,
        upcast: scheduled_v1_to_v2,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "PlayersEliminated",
        from: 1,
        upcast: eliminated_v1_to_v2,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "TournamentScheduled",
        from: 2,
        upcast: scheduled_before_escalation,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "PenaltyGiven",
        from: 1,
        upcast: penalty_before_forfeits,
    },
    Upcaster {
        kind: StreamKind::Tournament,
        event_type: "TournamentScheduled",
        from: 3,
        upcast: scheduled_before_absent_kills,
    },
];

/// `TournamentScheduled` version 3 (release 0.15.0): the house rules did not say whether an
/// absent player's hand is dead at the deal, and the engine folded it when the action
/// reached it. A tournament of version 3 reads with `absent_hands_dead: false`, as its
/// hands were played.
fn scheduled_before_absent_kills(mut value: Value) -> Result<Value, String> {
    let house = value
        .pointer_mut("/data/schedule/house")
        .and_then(Value::as_object_mut)
        .ok_or("a TournamentScheduled event holds data.schedule.house")?;
    if house.contains_key("absent_hands_dead") {
        return Err("version 3 has no absent_hands_dead".into());
    }
    house.insert("absent_hands_dead".into(), Value::Bool(false));
    Ok(value)
}

/// `HandEvent` version 5 (tournaments, releases 0.14.0 and 0.15.0) and 3 (cash tables):
/// pots were split in single chips, and no hand was dead at the deal for its player's
/// absence. Version 6 (cash 4) adds the setup's `chip_unit`, written only when it is not 1,
/// and `absent_hands_dead`, written only when `true`, the kill's cause `Absent`, and the
/// events of a pot in dispute (impounded, released, a mucked hand retrieved or seen on
/// request); a hand of the old version reads as written (a chip unit of 1: the single
/// chips it was split in), and one holding any of these is not what those releases wrote.
fn hand_event_before_chip_units(value: Value) -> Result<Value, String> {
    let event = value
        .pointer("/data/event")
        .ok_or("a HandEvent holds data.event")?;
    let newer = match event.get("type").and_then(Value::as_str) {
        Some("HandStarted") => {
            let setup = event.pointer("/data/setup");
            ["chip_unit", "absent_hands_dead"]
                .iter()
                .any(|field| setup.and_then(|s| s.get(field)).is_some())
        }
        Some("HandKilled") => {
            event.pointer("/data/cause").and_then(Value::as_str) == Some("Absent")
        }
        Some("PotImpounded" | "PotReleased" | "HandRetrieved" | "HandSeenOnRequest") => true,
        _ => false,
    };
    if newer {
        return Err(
            "a hand before release 0.16.0 splits in single chips, has no hand dead at the deal \
             and no pot in dispute"
                .into(),
        );
    }
    Ok(value)
}

/// House rules as releases before 0.17.0 wrote them: the last hand at a showdown was shown
/// to win, a hand recorded by the host could be mucked at an all-in showdown, the show
/// orders were three and the out-of-turn rules eight. They read with `last_hand: MustShow`
/// and `all_in_face_up: false`, as their hands were played; rules holding anything newer
/// are not what those releases wrote.
fn rules_before_muck_muck(rules: &mut Value) -> Result<(), String> {
    let rules = rules
        .as_object_mut()
        .ok_or("the house rules are a JSON object")?;
    for field in ["last_hand", "all_in_face_up"] {
        if rules.contains_key(field) {
            return Err(format!("house rules before release 0.17.0 have no {field}"));
        }
    }
    let order = rules.get("showdown_order").and_then(Value::as_str);
    if matches!(
        order,
        Some("SidePotsFirstElseLeftOfButton" | "LastSidePotFirst")
    ) {
        return Err("house rules before release 0.17.0 have no such showdown_order".into());
    }
    if rules.get("out_of_turn").and_then(Value::as_str) == Some("WphRules31And40BetStays") {
        return Err("house rules before release 0.17.0 have no such out_of_turn rule".into());
    }
    rules.insert("last_hand".into(), Value::String("MustShow".into()));
    rules.insert("all_in_face_up".into(), Value::Bool(false));
    Ok(())
}

/// `HandEvent` version 6 (tournaments, release 0.16.0) and 4 (cash tables): the last hand
/// at a showdown was shown to take the pot, and no out-of-turn bet stayed in the pot.
/// Version 7 (cash 5) adds the house rules' `last_hand` and `all_in_face_up`, two show
/// orders, an out-of-turn rule and `OutOfTurnBetForfeited`: an old `HandStarted` reads with
/// `last_hand: MustShow` and `all_in_face_up: false`, every other old hand event as written.
fn hand_event_before_muck_muck(mut value: Value) -> Result<Value, String> {
    let event = value
        .pointer_mut("/data/event")
        .ok_or("a HandEvent holds data.event")?;
    match event.get("type").and_then(Value::as_str) {
        Some("HandStarted") => {
            let rules = event
                .pointer_mut("/data/setup/rules")
                .ok_or("a HandStarted event holds data.setup.rules")?;
            rules_before_muck_muck(rules)?;
        }
        Some("OutOfTurnBetForfeited") => {
            return Err("a hand before release 0.17.0 leaves no out-of-turn bet in the pot".into());
        }
        _ => {}
    }
    Ok(value)
}

/// A `HandEvent` as stored, refused when it holds the hand event `kind`, which the version it
/// was stored as could not write (`why` says so).
fn refuse_hand_event_kind(value: Value, kind: &str, why: &str) -> Result<Value, String> {
    let found = value
        .pointer("/data/event/type")
        .and_then(Value::as_str)
        .ok_or("a HandEvent holds data.event.type")?;
    if found == kind {
        return Err(why.into());
    }
    Ok(value)
}

/// `HandEvent` version 7 (tournaments, releases 0.17.0 and 0.18.0) and 5 (cash tables): no
/// call was ruled not binding. Version 8 (cash 6) adds only the event `CallRetracted`, so an
/// old hand reads as written; an old version holding one is not what those releases wrote.
fn hand_event_before_retracted_calls(value: Value) -> Result<Value, String> {
    refuse_hand_event_kind(
        value,
        "CallRetracted",
        "a hand before release 0.19.0 has no call ruled not binding",
    )
}

/// `HandEvent` version 8 (tournaments) and 6 (cash tables): no player's aggressive action
/// was taken away for a hand. Version 9 (cash 7) adds only the event `AggressionForfeited`,
/// so an older hand reads as written; one holding it is not what an older version wrote.
fn hand_event_before_forfeited_aggression(value: Value) -> Result<Value, String> {
    refuse_hand_event_kind(
        value,
        "AggressionForfeited",
        "a hand of HandEvent version 8 has no aggressive action forfeited",
    )
}

/// `TableOpened` version 2 (releases 0.11.0 to 0.16.0): its house rules read as
/// [`rules_before_muck_muck`] says.
fn cash_table_before_muck_muck(mut value: Value) -> Result<Value, String> {
    let rules = value
        .pointer_mut("/data/config/rules")
        .ok_or("a TableOpened event holds data.config.rules")?;
    rules_before_muck_muck(rules)?;
    Ok(value)
}

/// `PenaltyGiven` version 1 (releases 0.1.0 to 0.14.0): a penalty was a warning, missed
/// hands or rounds, or disqualification. Version 2 adds a forfeiture of chips and
/// elimination and changes nothing else, so an old penalty reads as written; an old version
/// holding one of the new two is not what those releases wrote.
fn penalty_before_forfeits(value: Value) -> Result<Value, String> {
    let penalty = value
        .pointer("/data/penalty")
        .ok_or("a PenaltyGiven event holds data.penalty")?;
    let newer = penalty.get("Forfeit").is_some() || penalty.as_str() == Some("Eliminate");
    if newer {
        return Err(
            "a penalty before release 0.15.0 forfeits no chips and eliminates nobody".into(),
        );
    }
    Ok(value)
}

/// `PlayersEliminated` version 1 (releases 0.1.0 to 0.6.0): players out in one
/// hand-for-hand round all shared their places, even several out in one hand at one table.
/// A version 1 elimination reads with `ranked: false`, as it was placed.
fn eliminated_v1_to_v2(mut value: Value) -> Result<Value, String> {
    let data = value
        .pointer_mut("/data")
        .and_then(Value::as_object_mut)
        .ok_or("a PlayersEliminated event holds data")?;
    if data.contains_key("ranked") {
        return Err("version 1 has no ranked".into());
    }
    data.insert("ranked".into(), Value::Bool(false));
    Ok(value)
}

/// `TournamentScheduled` version 1 (releases 0.1.0 to 0.6.0): the house rules did not say
/// whether the players left may agree a deal, and the engine took one under every preset.
/// A tournament of version 1 reads with `deals_allowed: true`, the rule it was played
/// under, so its log re-derives as it was decided (QueenSix's schedules of version 2 say
/// `false`: QueenSix 33).
fn scheduled_v1_to_v2(mut value: Value) -> Result<Value, String> {
    let house = value
        .pointer_mut("/data/schedule/house")
        .and_then(Value::as_object_mut)
        .ok_or("a TournamentScheduled event holds data.schedule.house")?;
    if house.contains_key("deals_allowed") {
        return Err("version 1 has no deals_allowed".into());
    }
    house.insert("deals_allowed".into(), Value::Bool(true));
    Ok(value)
}

/// `TournamentScheduled` version 2 (releases 0.7.0 to 0.14.0): the house rules did not
/// say whether repeat infractions escalate, and the engine took any penalty the host gave;
/// nor whether a disqualified player is out for good, and the engine took their re-entry.
/// A tournament of version 2 reads with `escalating_penalties: false` and
/// `out_for_good_when_penalised: false`, the rules it was played under, so its log
/// re-derives as it was decided (the golden logs of 0.6.0 to 0.14.0 hold such re-entries).
fn scheduled_before_escalation(mut value: Value) -> Result<Value, String> {
    let house = value
        .pointer_mut("/data/schedule/house")
        .and_then(Value::as_object_mut)
        .ok_or("a TournamentScheduled event holds data.schedule.house")?;
    for field in ["escalating_penalties", "out_for_good_when_penalised"] {
        if house.contains_key(field) {
            return Err(format!("version 2 has no {field}"));
        }
        house.insert(field.into(), Value::Bool(false));
    }
    Ok(value)
}

/// `TableHandStarted` version 1 (releases 0.1.0 to 0.5.0) named no hand id: version 2 may
/// carry the `hand_id` the command named, and a hand of version 1 reads without one (its id
/// is derived from its tournament, table and number when it is shown).
fn hand_started_v1_to_v2(mut value: Value) -> Result<Value, String> {
    let data = value
        .pointer_mut("/data")
        .and_then(Value::as_object_mut)
        .ok_or("a TableHandStarted event holds data")?;
    if data.contains_key("hand_id") {
        return Err("version 1 has no hand_id".into());
    }
    Ok(value)
}

/// `HandEvent` version 3 (releases 0.8.0 to 0.10.0) of a tournament and version 1 (release
/// 0.10.0) of a cash table: no hand was raked or run twice. Version 4 (2 of a cash table)
/// adds only what a table's rake and running the board twice write, each absent when
/// unused, so an old hand reads as written.
fn hand_event_without_rake(value: Value) -> Result<Value, String> {
    let event = value
        .pointer("/data/event")
        .ok_or("a HandEvent holds data.event")?;
    let newer = [
        "/data/setup/rake",
        "/data/setup/run_twice",
        "/data/rake",
        "/data/run",
    ]
    .iter()
    .any(|field| event.pointer(field).is_some())
        || matches!(
            event.get("type").and_then(Value::as_str),
            Some("RunTwiceChosen" | "BoardRunAgain")
        );
    if newer {
        return Err("a hand before release 0.11.0 has no rake and runs its board once".into());
    }
    Ok(value)
}

/// `HandEvent` version 4 (releases 0.11.0 to 0.13.0) of a tournament and version 2 of a
/// cash table: no hand was killed by the floor. Version 5 (3 of a cash table) adds only
/// the event `HandKilled`, so an old hand reads as written; an old version holding one is
/// not what those releases wrote.
fn hand_event_before_kills(value: Value) -> Result<Value, String> {
    refuse_hand_event_kind(
        value,
        "HandKilled",
        "a hand before release 0.14.0 has no killed hand",
    )
}

/// `TableOpened` version 1 (release 0.10.0): the house's take was none or a session fee,
/// and no board ran twice; version 2 adds a rake and `run_twice`. A table of version 1
/// reads as it was opened.
fn cash_table_without_rake(value: Value) -> Result<Value, String> {
    let config = value
        .pointer("/data/config")
        .ok_or("a TableOpened event holds data.config")?;
    let take = config
        .get("take")
        .ok_or("a TableOpened event holds data.config.take")?;
    if take.get("Rake").is_some() || config.get("run_twice").is_some() {
        return Err("version 1 has no rake and no run_twice".into());
    }
    Ok(value)
}

/// `HandEvent` version 2 (releases 0.4.0 to 0.7.0): the house rules' `out_of_turn` had
/// four values; version 3 adds three (the presets of Oracle, the invitational and WPH take
/// them), and no other field changes. A hand of version 2 reads as it was written, with
/// the rule it was decided by.
fn hand_event_v2_to_v3(value: Value) -> Result<Value, String> {
    let rule = value
        .pointer("/data/event/data/setup/rules/out_of_turn")
        .and_then(Value::as_str);
    match rule {
        Some("OracleRule8" | "HeldUnlessActionChanges" | "WphRules31And40") => {
            Err("version 2 has no such out_of_turn rule".into())
        }
        _ => Ok(value),
    }
}

/// `HandEvent` version 1 (releases 0.1.0 to 0.3.0): a hand's house rules had no
/// `straddle_raise` or `short_all_in_bet`. Every hand of those releases was played with a
/// straddle's full size as the smallest raise over it and with a short all-in bet that did
/// not reopen the betting, so a `HandStarted` of version 1 reads with those two values;
/// every other hand event is unchanged.
fn hand_event_v1_to_v2(mut value: Value) -> Result<Value, String> {
    let event = value
        .pointer_mut("/data/event")
        .ok_or("a HandEvent holds data.event")?;
    if event.get("type").and_then(Value::as_str) != Some("HandStarted") {
        return Ok(value);
    }
    let rules = event
        .pointer_mut("/data/setup/rules")
        .and_then(Value::as_object_mut)
        .ok_or("a HandStarted event holds data.setup.rules")?;
    for (field, old) in [
        ("straddle_raise", "TwiceTheStraddle"),
        ("short_all_in_bet", "DoesNotReopen"),
    ] {
        if rules.contains_key(field) {
            return Err(format!("version 1 has no {field}"));
        }
        rules.insert(field.into(), Value::String(old.into()));
    }
    Ok(value)
}

/// `TournamentAmended` version 1 (release 0.1.0) said nothing of why: version 2 adds
/// `reason`, which an amendment of version 1 reads as empty.
fn amended_v1_to_v2(mut value: Value) -> Result<Value, String> {
    let object = value
        .as_object_mut()
        .ok_or("a TournamentAmended event is a JSON object")?;
    if object.contains_key("reason") {
        return Err("version 1 has no reason".into());
    }
    object.insert("reason".into(), Value::String(String::new()));
    Ok(value)
}

/// The event types a build knows and how it reads their old versions.
#[derive(Clone, Copy, Debug)]
pub struct Codec {
    pub catalogue: &'static [EventType],
    pub upcasters: &'static [Upcaster],
}

/// This build's codec.
pub const CODEC: Codec = Codec {
    catalogue: CATALOGUE,
    upcasters: UPCASTERS,
};

/// Why a stored event could not be read.
#[derive(Debug)]
pub enum DecodeError {
    /// The type is not one this build knows: a newer release wrote it.
    UnknownType {
        kind: StreamKind,
        event_type: String,
    },
    /// The version is newer than the one this build writes: a newer release wrote it.
    NewerVersion {
        kind: StreamKind,
        event_type: String,
        version: u32,
        known: u32,
    },
    /// Version 0 is never written.
    NoVersion {
        kind: StreamKind,
        event_type: String,
    },
    /// An old version with no upcaster to the next one (a defect of this build).
    NoUpcaster {
        kind: StreamKind,
        event_type: String,
        from: u32,
    },
    /// An upcaster refused the stored JSON.
    Upcast {
        kind: StreamKind,
        event_type: String,
        from: u32,
        reason: String,
    },
    /// The payload (upcast to the current version) is not the type's shape.
    Json(serde_json::Error),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let release = crate::RELEASE;
        match self {
            Self::UnknownType { kind, event_type } => write!(
                f,
                "{kind} event type {event_type} is not known to release {release}: a newer \
                 release wrote it; read this log with that release or a later one"
            ),
            Self::NewerVersion {
                kind,
                event_type,
                version,
                known,
            } => write!(
                f,
                "{kind} event {event_type} version {version} is newer than release {release} \
                 reads (up to version {known}): a newer release wrote it; read this log with \
                 that release or a later one"
            ),
            Self::NoVersion { kind, event_type } => {
                write!(f, "{kind} event {event_type} has schema version 0")
            }
            Self::NoUpcaster {
                kind,
                event_type,
                from,
            } => write!(
                f,
                "{kind} event {event_type} version {from} has no upcaster to version {}",
                from.saturating_add(1)
            ),
            Self::Upcast {
                kind,
                event_type,
                from,
                reason,
            } => write!(
                f,
                "{kind} event {event_type} version {from} cannot be upcast: {reason}"
            ),
            Self::Json(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for DecodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Json(e) => Some(e),
            _ => None,
        }
    }
}

impl From<serde_json::Error> for DecodeError {
    fn from(e: serde_json::Error) -> Self {
        Self::Json(e)
    }
}

impl Codec {
    /// The version of `event_type` this codec writes, if it knows the type.
    pub fn current(&self, kind: StreamKind, event_type: &str) -> Option<u32> {
        self.catalogue
            .iter()
            .find(|t| t.kind == kind && t.name == event_type)
            .map(|t| t.version)
    }

    /// Reads a stored event: refuses what this codec does not know, reads the current
    /// version with `current` (which may take a short path), and upcasts older versions
    /// to the current one before reading them with serde.
    pub fn read<T: DeserializeOwned>(
        &self,
        kind: StreamKind,
        event_type: &str,
        version: u32,
        payload: &[u8],
        current: impl FnOnce(&[u8]) -> Result<T, serde_json::Error>,
    ) -> Result<T, DecodeError> {
        let known = self
            .current(kind, event_type)
            .ok_or_else(|| DecodeError::UnknownType {
                kind,
                event_type: event_type.to_owned(),
            })?;
        if version == known {
            return Ok(current(payload)?);
        }
        if version > known {
            return Err(DecodeError::NewerVersion {
                kind,
                event_type: event_type.to_owned(),
                version,
                known,
            });
        }
        if version == 0 {
            return Err(DecodeError::NoVersion {
                kind,
                event_type: event_type.to_owned(),
            });
        }
        let value = self.upcast(kind, event_type, version, crate::parse(payload)?)?;
        Ok(serde_json::from_value(value)?)
    }

    /// `value`, of version `from` of `event_type`, upcast to the version this codec writes.
    pub fn upcast(
        &self,
        kind: StreamKind,
        event_type: &str,
        from: u32,
        mut value: Value,
    ) -> Result<Value, DecodeError> {
        let known = self.current(kind, event_type).unwrap_or(from);
        for version in from..known {
            let step = self
                .upcasters
                .iter()
                .find(|u| u.kind == kind && u.event_type == event_type && u.from == version)
                .ok_or_else(|| DecodeError::NoUpcaster {
                    kind,
                    event_type: event_type.to_owned(),
                    from: version,
                })?;
            value = (step.upcast)(value).map_err(|reason| DecodeError::Upcast {
                kind,
                event_type: event_type.to_owned(),
                from: version,
                reason,
            })?;
        }
        Ok(value)
    }

    /// Whether every older version of every type has its upcaster (checked by a test).
    pub fn missing_upcasters(&self) -> Vec<(StreamKind, &'static str, u32)> {
        let mut missing = Vec::new();
        for t in self.catalogue {
            for from in 1..t.version {
                if !self
                    .upcasters
                    .iter()
                    .any(|u| u.kind == t.kind && u.event_type == t.name && u.from == from)
                {
                    missing.push((t.kind, t.name, from));
                }
            }
        }
        missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_listed_once_and_every_old_version_has_its_upcaster() {
        for (i, a) in CATALOGUE.iter().enumerate() {
            assert!(a.version >= 1, "{a:?}");
            for b in &CATALOGUE[i + 1..] {
                assert!(a.kind != b.kind || a.name != b.name, "{a:?} twice");
            }
        }
        assert_eq!(CODEC.missing_upcasters(), Vec::new());
        for u in UPCASTERS {
            let current = CODEC.current(u.kind, u.event_type);
            assert!(current.is_some_and(|v| u.from < v), "{u:?}");
        }
    }

    /// A `TournamentAmended` as release 0.1.0 wrote it (from its golden log, one finish
    /// kept) reads as version 2 with an empty reason; its bytes are only read.
    #[test]
    fn an_amendment_of_version_1_reads_with_an_empty_reason() {
        use league_engine::league::Event;
        let stored = br#"{"type":"TournamentAmended","outcome":{"tournament":"queens-arms-1","venue":"queens-arms","season":"season-1","day":7,"buyin":2500,"prizepool":40000,"field":14,"finishes":[{"player":"pl007","place":1,"shared":1,"rebuys":0,"knockouts":4,"prize":18000}]},"points":[{"version":1,"points":[2800]}]}"#;
        let read: Event = CODEC
            .read(StreamKind::League, "TournamentAmended", 1, stored, |b| {
                serde_json::from_slice(b)
            })
            .unwrap();
        let Event::TournamentAmended {
            outcome,
            points,
            reason,
        } = read
        else {
            panic!("read as another event: {read:?}");
        };
        assert_eq!(reason, "");
        assert_eq!(outcome.tournament.as_str(), "queens-arms-1");
        assert_eq!(outcome.finishes.len(), 1);
        assert_eq!(points.len(), 1);
        // Version 2 as written now reads as it is.
        let written = br#"{"type":"TournamentAmended","outcome":{"tournament":"t","venue":"v","season":"s","day":1,"buyin":0,"prizepool":0,"field":2,"finishes":[]},"points":[],"reason":"wrong winner entered"}"#;
        let read: Event = CODEC
            .read(StreamKind::League, "TournamentAmended", 2, written, |b| {
                serde_json::from_slice(b)
            })
            .unwrap();
        assert!(
            matches!(read, Event::TournamentAmended { ref reason, .. } if reason == "wrong winner entered")
        );
        // A version 1 that already has a reason is not what release 0.1.0 wrote.
        let odd = br#"{"type":"TournamentAmended","outcome":{"tournament":"t","venue":"v","season":"s","day":1,"buyin":0,"prizepool":0,"field":2,"finishes":[]},"points":[],"reason":"x"}"#;
        let refused = CODEC.read::<Event>(StreamKind::League, "TournamentAmended", 1, odd, |b| {
            serde_json::from_slice(b)
        });
        assert!(
            matches!(refused, Err(DecodeError::Upcast { from: 1, .. })),
            "{refused:?}"
        );
    }

    /// A pot and a cash table as release 0.10.0 wrote them (from its golden log) read as
    /// the current versions unchanged: no rake; an old version that names a rake is not
    /// what that release wrote, and is refused.
    #[test]
    fn hands_and_tables_before_the_rake_read_as_written() {
        use league_engine::cash::{CashEvent, HouseTake};
        use league_engine::tournament::play::TournamentEvent;
        let pot = br#"{"type":"HandEvent","data":{"event":{"type":"PotAwarded","data":{"pot":0,"amount":284,"eligible":[8,5],"shares":[{"seat":5,"amount":284}],"value":5862}}}}"#;
        let cash = |version, bytes: &[u8]| {
            CODEC.read::<CashEvent>(StreamKind::Cash, "HandEvent", version, bytes, |b| {
                serde_json::from_slice(b)
            })
        };
        let old = cash(1, pot).unwrap();
        assert_eq!(old, cash(2, pot).unwrap());
        assert!(matches!(
            old,
            CashEvent::HandEvent {
                event: league_engine::hand::Event::PotAwarded {
                    rake: 0,
                    amount: 284,
                    ..
                }
            }
        ));
        let raked = String::from_utf8(pot.to_vec())
            .unwrap()
            .replace(r#""value":5862"#, r#""value":5862,"rake":14"#);
        assert!(matches!(
            cash(1, raked.as_bytes()),
            Err(DecodeError::Upcast { from: 1, .. })
        ));
        assert!(matches!(
            cash(2, raked.as_bytes()),
            Ok(CashEvent::HandEvent {
                event: league_engine::hand::Event::PotAwarded { rake: 14, .. }
            })
        ));
        // A tournament's pot of version 3 reads as version 4.
        let tournament_pot = String::from_utf8(pot.to_vec())
            .unwrap()
            .replace(r#""data":{"event""#, r#""data":{"table":2,"event""#);
        let tournament = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "HandEvent",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        assert_eq!(
            tournament(3, tournament_pot.as_bytes()).unwrap(),
            tournament(4, tournament_pot.as_bytes()).unwrap()
        );
        // And versions 4 and 2 (no hand killed) as versions 5 and 3.
        assert_eq!(
            tournament(4, tournament_pot.as_bytes()).unwrap(),
            tournament(5, tournament_pot.as_bytes()).unwrap()
        );
        assert_eq!(cash(2, pot).unwrap(), cash(3, pot).unwrap());
        let killed = br#"{"type":"HandEvent","data":{"table":2,"event":{"type":"HandKilled","data":{"seat":3,"cause":"Exposed","reason":"both cards turned face up"}}}}"#;
        assert!(matches!(
            tournament(4, killed),
            Err(DecodeError::Upcast { from: 4, .. })
        ));
        assert!(matches!(
            tournament(5, killed),
            Ok(TournamentEvent::HandEvent {
                table: 2,
                event: league_engine::hand::Event::HandKilled {
                    seat: 3,
                    cause: league_engine::hand::KillCause::Exposed,
                    ..
                }
            })
        ));
        // Versions 5 and 3 (no hand dead at the deal) as versions 6 and 4: a kill and a
        // setup as written; a hand killed for absence, or a setup that kills absent hands,
        // only in the new version.
        assert_eq!(
            tournament(5, killed).unwrap(),
            tournament(6, killed).unwrap()
        );
        assert_eq!(cash(3, pot).unwrap(), cash(4, pot).unwrap());
        let started = br#"{"type":"HandEvent","data":{"table":1,"event":{"type":"HandStarted","data":{"setup":{"button":3,"seats":[{"seat":0,"stack":5000,"absent":true},{"seat":1,"stack":5000,"absent":false}],"big_blind":50,"blinds":[{"seat":0,"kind":"SmallBlind","amount":25},{"seat":1,"kind":"BigBlind","amount":50}],"antes":[],"dealing":"Recorded","rules":{"preset":"oracle","button":"Dead","heads_up_start":"SmallBlindOnButton","misdeal_cutoff":{"PlayersActed":{"players":2,"never_after_big_blind":false}},"short_all_in":"TwoConsecutiveReopen","undersized_raise":"HalfRule","straddle_raise":"TwiceTheStraddle","short_all_in_bet":"DoesNotReopen","odd_chip":"OneEachLeftOfButton","showdown_order":"LastAggressorElseLeftOfButton","out_of_turn":"OracleRule8","clock":{"seconds":60,"countdown":10}}}}}}}"#;
        let old_setup = tournament(5, started).unwrap();
        assert_eq!(old_setup, tournament(6, started).unwrap());
        assert!(matches!(
            &old_setup,
            TournamentEvent::HandEvent {
                event: league_engine::hand::Event::HandStarted { setup },
                ..
            } if !setup.absent_hands_dead && setup.chip_unit == 1
        ));
        let killing = String::from_utf8(started.to_vec())
            .unwrap()
            .replace(r#""antes":[]"#, r#""antes":[],"absent_hands_dead":true"#);
        let absent = String::from_utf8(killed.to_vec())
            .unwrap()
            .replace(r#""Exposed""#, r#""Absent""#);
        let in_25s = String::from_utf8(started.to_vec())
            .unwrap()
            .replace(r#""antes":[]"#, r#""antes":[],"chip_unit":25"#);
        // A pot in dispute (release 0.16.0) only in the new version.
        let impounded =
            r#"{"type":"HandEvent","data":{"table":2,"event":{"type":"PotImpounded","data":{"reason":"disputed count"}}}}"#.to_owned();
        let retrieved = r#"{"type":"HandEvent","data":{"table":2,"event":{"type":"HandRetrieved","data":{"seat":1,"cards":["As","Ah"],"reason":"mucked on a misread"}}}}"#.to_owned();
        for newer in [&killing, &absent, &in_25s, &impounded, &retrieved] {
            assert!(matches!(
                tournament(5, newer.as_bytes()),
                Err(DecodeError::Upcast { from: 5, .. })
            ));
            assert!(tournament(6, newer.as_bytes()).is_ok());
        }
        assert!(matches!(
            tournament(6, killing.as_bytes()),
            Ok(TournamentEvent::HandEvent {
                event: league_engine::hand::Event::HandStarted { setup },
                ..
            }) if setup.absent_hands_dead && setup.chip_unit == 1
        ));
        assert!(matches!(
            tournament(6, in_25s.as_bytes()),
            Ok(TournamentEvent::HandEvent {
                event: league_engine::hand::Event::HandStarted { setup },
                ..
            }) if setup.chip_unit == 25
        ));
        let cash_absent = absent.replace(r#""table":2,"#, "");
        assert!(matches!(
            cash(3, cash_absent.as_bytes()),
            Err(DecodeError::Upcast { from: 3, .. })
        ));
        assert!(cash(4, cash_absent.as_bytes()).is_ok());
        let opened = br#"{"type":"TableOpened","data":{"config":{"venue":"queens-arms","name":"oracle 1/2 No-Limit","small_blind":1,"big_blind":2,"min_buy_in":40,"max_buy_in":200,"seats":9,"rules":{"preset":"oracle","button":"Dead","heads_up_start":"SmallBlindOnButton","misdeal_cutoff":{"PlayersActed":{"players":2,"never_after_big_blind":false}},"short_all_in":"TwoConsecutiveReopen","undersized_raise":"HalfRule","straddle_raise":"TwiceTheStraddle","short_all_in_bet":"DoesNotReopen","odd_chip":"OneEachLeftOfButton","showdown_order":"LastAggressorElseLeftOfButton","out_of_turn":"OracleRule8","clock":{"seconds":60,"countdown":10}},"straddle":"UnderTheGun","take":"None"},"at":1000000}}"#;
        let table = |version, bytes: &[u8]| {
            CODEC.read::<CashEvent>(StreamKind::Cash, "TableOpened", version, bytes, |b| {
                serde_json::from_slice(b)
            })
        };
        let Ok(CashEvent::TableOpened { config, .. }) = table(1, opened) else {
            panic!("not read as a table");
        };
        assert_eq!(config.take, HouseTake::None);
        let raking = String::from_utf8(opened.to_vec()).unwrap().replace(
            r#""take":"None""#,
            r#""take":{"Rake":{"basis_points":500,"cap":6,"no_flop_no_drop":true}}"#,
        );
        assert!(matches!(
            table(1, raking.as_bytes()),
            Err(DecodeError::Upcast { from: 1, .. })
        ));
        assert!(table(2, raking.as_bytes()).is_ok());
    }

    /// Hands and cash tables as release 0.16.0 wrote them read with the last hand shown to
    /// win (`last_hand: MustShow`), as they were played; an old version naming a rule or an
    /// event of release 0.17.0 is refused.
    #[test]
    fn hands_and_tables_before_0_17_0_read_with_the_last_hand_shown() {
        use league_engine::cash::CashEvent;
        use league_engine::rules::LastHand;
        use league_engine::tournament::play::TournamentEvent;
        let tournament = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "HandEvent",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let cash = |version, bytes: &[u8]| {
            CODEC.read::<CashEvent>(StreamKind::Cash, "HandEvent", version, bytes, |b| {
                serde_json::from_slice(b)
            })
        };
        let table = |version, bytes: &[u8]| {
            CODEC.read::<CashEvent>(StreamKind::Cash, "TableOpened", version, bytes, |b| {
                serde_json::from_slice(b)
            })
        };
        let started = r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"HandStarted","data":{"setup":{"button":3,"seats":[{"seat":0,"stack":5000,"absent":false},{"seat":1,"stack":5000,"absent":false}],"big_blind":50,"blinds":[{"seat":0,"kind":"SmallBlind","amount":25},{"seat":1,"kind":"BigBlind","amount":50}],"antes":[],"dealing":"Recorded","rules":{"preset":"wph","button":"Dead","heads_up_start":"NoBigBlindTwice","misdeal_cutoff":"SubstantialAction","short_all_in":"NeverReopens","undersized_raise":"HalfRule","straddle_raise":"TwiceTheStraddle","short_all_in_bet":"DoesNotReopen","odd_chip":"HighHandThenLeftOfButton","showdown_order":"LastAggressorElseLeftOfButton","out_of_turn":"WphRules31And40","clock":{"seconds":60,"countdown":10}}}}}}}"#;
        let Ok(TournamentEvent::HandEvent {
            event: league_engine::hand::Event::HandStarted { setup },
            ..
        }) = tournament(6, started.as_bytes())
        else {
            panic!("not read as a hand's start");
        };
        assert_eq!(setup.rules.last_hand, LastHand::MustShow);
        assert!(!setup.rules.all_in_face_up);
        assert_eq!(
            setup.rules.out_of_turn,
            league_engine::rules::OutOfTurn::WphRules31And40
        );
        // The current version says it: without it, it is not what this release writes.
        assert!(tournament(7, started.as_bytes()).is_err());
        let unseen = started.replace(
            r#""countdown":10}"#,
            r#""countdown":10},"last_hand":"WinsUnseen","all_in_face_up":true"#,
        );
        let oracle_order = unseen.replace(
            r#""LastAggressorElseLeftOfButton""#,
            r#""SidePotsFirstElseLeftOfButton""#,
        );
        let last_side_pot = unseen.replace(
            r#""LastAggressorElseLeftOfButton""#,
            r#""LastSidePotFirst""#,
        );
        let bet_stays = unseen.replace(r#""WphRules31And40""#, r#""WphRules31And40BetStays""#);
        let forfeited = r#"{"type":"HandEvent","data":{"table":1,"event":{"type":"OutOfTurnBetForfeited","data":{"seat":2,"amount":100}}}}"#.to_owned();
        for newer in [
            &unseen,
            &oracle_order,
            &last_side_pot,
            &bet_stays,
            &forfeited,
        ] {
            assert!(
                matches!(
                    tournament(6, newer.as_bytes()),
                    Err(DecodeError::Upcast { from: 6, .. })
                ),
                "{newer}"
            );
            assert!(tournament(7, newer.as_bytes()).is_ok(), "{newer}");
            let in_cash = newer.replace(r#""table":1,"#, "");
            assert!(matches!(
                cash(4, in_cash.as_bytes()),
                Err(DecodeError::Upcast { from: 4, .. })
            ));
            assert!(cash(5, in_cash.as_bytes()).is_ok());
        }
        // Any other hand event reads as it is.
        let called = br#"{"type":"HandEvent","data":{"table":2,"event":{"type":"PlayerCalled","data":{"seat":3,"amount":50,"all_in":false}}}}"#;
        assert_eq!(
            tournament(6, called).unwrap(),
            tournament(7, called).unwrap()
        );
        let opened = r#"{"type":"TableOpened","data":{"config":{"venue":"queens-arms","name":"oracle 1/2 No-Limit","small_blind":1,"big_blind":2,"min_buy_in":40,"max_buy_in":200,"seats":9,"rules":{"preset":"oracle","button":"Dead","heads_up_start":"SmallBlindOnButton","misdeal_cutoff":{"PlayersActed":{"players":2,"never_after_big_blind":false}},"short_all_in":"TwoConsecutiveReopen","undersized_raise":"HalfRule","straddle_raise":"TwiceTheStraddle","short_all_in_bet":"DoesNotReopen","odd_chip":"OneEachLeftOfButton","showdown_order":"LastAggressorElseLeftOfButton","out_of_turn":"OracleRule8","clock":{"seconds":60,"countdown":10}},"straddle":"UnderTheGun","take":"None"},"at":1000000}}"#;
        let Ok(CashEvent::TableOpened { config, .. }) = table(2, opened.as_bytes()) else {
            panic!("not read as a table");
        };
        assert_eq!(config.rules.last_hand, LastHand::MustShow);
        let oracle_now = opened
            .replace(
                r#""countdown":10}"#,
                r#""countdown":10},"last_hand":"WinsUnseen","all_in_face_up":false"#,
            )
            .replace(
                r#""LastAggressorElseLeftOfButton""#,
                r#""SidePotsFirstElseLeftOfButton""#,
            );
        assert!(matches!(
            table(2, oracle_now.as_bytes()),
            Err(DecodeError::Upcast { from: 2, .. })
        ));
        let Ok(CashEvent::TableOpened { config, .. }) = table(3, oracle_now.as_bytes()) else {
            panic!("not read as a table");
        };
        assert_eq!(config.rules, league_engine::rules::HouseRules::oracle());
    }

    /// A hand of releases 0.17.0 and 0.18.0 (`HandEvent` 7, cash 5) reads as written; one
    /// holding a call ruled not binding, which those releases could not write, is refused.
    /// So with version 8 (cash 6) and a player's aggressive action forfeited.
    #[test]
    fn hands_before_0_19_0_read_as_written_and_hold_no_retracted_call_or_forfeited_aggression() {
        use league_engine::cash::CashEvent;
        use league_engine::tournament::play::TournamentEvent;
        let tournament = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "HandEvent",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let cash = |version, bytes: &[u8]| {
            CODEC.read::<CashEvent>(StreamKind::Cash, "HandEvent", version, bytes, |b| {
                serde_json::from_slice(b)
            })
        };
        let called = r#"{"type":"HandEvent","data":{"table":2,"event":{"type":"PlayerCalled","data":{"seat":3,"amount":400,"all_in":false}}}}"#;
        assert_eq!(
            tournament(7, called.as_bytes()).unwrap(),
            tournament(8, called.as_bytes()).unwrap()
        );
        let in_cash = called.replace(r#""table":2,"#, "");
        assert_eq!(
            cash(5, in_cash.as_bytes()).unwrap(),
            cash(6, in_cash.as_bytes()).unwrap()
        );
        let retracted = r#"{"type":"HandEvent","data":{"table":2,"event":{"type":"CallRetracted","data":{"seat":3,"amount":400,"reason":"thought the bet was 100"}}}}"#;
        let Ok(TournamentEvent::HandEvent {
            table: 2,
            event:
                league_engine::hand::Event::CallRetracted {
                    seat: 3,
                    amount: 400,
                    ..
                },
        }) = tournament(8, retracted.as_bytes())
        else {
            panic!("not read as a retracted call");
        };
        assert!(matches!(
            tournament(7, retracted.as_bytes()),
            Err(DecodeError::Upcast { from: 7, .. })
        ));
        let in_cash = retracted.replace(r#""table":2,"#, "");
        assert!(cash(6, in_cash.as_bytes()).is_ok());
        assert!(matches!(
            cash(5, in_cash.as_bytes()),
            Err(DecodeError::Upcast { from: 5, .. })
        ));
        // Version 9 (cash 7) adds `AggressionForfeited`: every older version reads as
        // written and holds none.
        assert_eq!(
            tournament(8, retracted.as_bytes()).unwrap(),
            tournament(9, retracted.as_bytes()).unwrap()
        );
        let in_cash = retracted.replace(r#""table":2,"#, "");
        assert_eq!(
            cash(6, in_cash.as_bytes()).unwrap(),
            cash(7, in_cash.as_bytes()).unwrap()
        );
        let forfeited = r#"{"type":"HandEvent","data":{"table":2,"event":{"type":"AggressionForfeited","data":{"seat":1,"reason":"flashed a card"}}}}"#;
        assert!(matches!(
            tournament(9, forfeited.as_bytes()),
            Ok(TournamentEvent::HandEvent {
                table: 2,
                event: league_engine::hand::Event::AggressionForfeited { seat: 1, .. },
            })
        ));
        for version in [7, 8] {
            assert!(matches!(
                tournament(version, forfeited.as_bytes()),
                Err(DecodeError::Upcast { from: 8, .. })
            ));
        }
        let in_cash = forfeited.replace(r#""table":2,"#, "");
        assert!(cash(7, in_cash.as_bytes()).is_ok());
        for version in [5, 6] {
            assert!(matches!(
                cash(version, in_cash.as_bytes()),
                Err(DecodeError::Upcast { from: 6, .. })
            ));
        }
    }

    /// A hand of version 2 (releases 0.4.0 to 0.7.0) reads as written, with the out-of-turn
    /// rule it was decided by; a version 2 naming a rule only version 3 has is refused.
    #[test]
    fn a_hand_of_version_2_reads_with_the_out_of_turn_rule_it_was_played_under() {
        use league_engine::rules::OutOfTurn;
        use league_engine::tournament::play::TournamentEvent;
        let stored = br#"{"type":"HandEvent","data":{"table":1,"event":{"type":"HandStarted","data":{"setup":{"button":3,"seats":[{"seat":0,"stack":5000,"absent":false},{"seat":1,"stack":5000,"absent":false}],"big_blind":50,"blinds":[{"seat":0,"kind":"SmallBlind","amount":25},{"seat":1,"kind":"BigBlind","amount":50}],"antes":[],"dealing":"Recorded","rules":{"preset":"oracle","button":"Dead","heads_up_start":"SmallBlindOnButton","misdeal_cutoff":{"PlayersActed":{"players":2,"never_after_big_blind":false}},"short_all_in":"TwoConsecutiveReopen","undersized_raise":"HalfRule","straddle_raise":"TwiceTheStraddle","short_all_in_bet":"DoesNotReopen","odd_chip":"OneEachLeftOfButton","showdown_order":"LastAggressorElseLeftOfButton","out_of_turn":"BindingUnlessActionChanges","clock":{"seconds":60,"countdown":10}}}}}}}"#;
        let read = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "HandEvent",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let TournamentEvent::HandEvent { event, .. } = read(2, stored).unwrap() else {
            panic!("not read as a hand event");
        };
        let league_engine::hand::Event::HandStarted { setup } = event else {
            panic!("read as another hand event: {event:?}");
        };
        assert_eq!(
            setup.rules.out_of_turn,
            OutOfTurn::BindingUnlessActionChanges
        );
        assert_eq!(read(2, stored).unwrap(), read(3, stored).unwrap());
        let odd = String::from_utf8(stored.to_vec())
            .unwrap()
            .replace("BindingUnlessActionChanges", "OracleRule8");
        assert!(matches!(
            read(2, odd.as_bytes()),
            Err(DecodeError::Upcast { from: 2, .. })
        ));
        assert!(read(3, odd.as_bytes()).is_ok());
    }

    /// A `HandStarted` as releases 0.1.0 to 0.3.0 wrote it (from the 0.3.0 golden log)
    /// reads as version 2 with the rules those hands were played under; other hand events
    /// read unchanged.
    #[test]
    fn a_hand_of_version_1_reads_with_the_straddle_and_short_bet_rules_it_was_played_under() {
        use league_engine::rules::{ShortAllInBet, StraddleRaise};
        use league_engine::tournament::play::TournamentEvent;
        let stored = br#"{"type":"HandEvent","data":{"table":1,"event":{"type":"HandStarted","data":{"setup":{"button":3,"seats":[{"seat":0,"stack":5000,"absent":false},{"seat":1,"stack":5000,"absent":false},{"seat":2,"stack":5000,"absent":false},{"seat":3,"stack":5000,"absent":false}],"big_blind":50,"blinds":[{"seat":0,"kind":"SmallBlind","amount":25},{"seat":1,"kind":"BigBlind","amount":50}],"antes":[],"dealing":{"Seeded":{"commitment":"8f988e839d7f7053fb04bcacd67de0e89325ccbdb2fe25c4bd579ea096d29c54"}},"rules":{"preset":"queensix","button":"Dead","heads_up_start":"SmallBlindOnButton","misdeal_cutoff":{"PlayersActed":{"players":2,"never_after_big_blind":true}},"short_all_in":"CumulativeReopens","undersized_raise":"BroughtUpToMinimum","odd_chip":"OneEachLeftOfButton","showdown_order":"SidePotsFirst","out_of_turn":"Restricted","clock":{"seconds":30,"countdown":0}}}}}}}"#;
        let read = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "HandEvent",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let Ok(TournamentEvent::HandEvent { table: 1, event }) = read(1, stored) else {
            panic!("not read as a hand event");
        };
        let league_engine::hand::Event::HandStarted { setup } = event else {
            panic!("read as another hand event: {event:?}");
        };
        assert_eq!(setup.rules.straddle_raise, StraddleRaise::TwiceTheStraddle);
        assert_eq!(setup.rules.short_all_in_bet, ShortAllInBet::DoesNotReopen);
        assert_eq!(setup.rules, {
            let mut queensix = league_engine::rules::HouseRules::queensix();
            queensix.straddle_raise = StraddleRaise::TwiceTheStraddle;
            queensix.short_all_in_bet = ShortAllInBet::DoesNotReopen;
            // Before release 0.17.0 a recorded hand could be mucked at an all-in showdown.
            queensix.all_in_face_up = false;
            queensix
        });
        // Version 1 lacks the fields: read as the current version it is refused.
        assert!(read(2, stored).is_err());
        // Any other hand event of version 1 reads as it is.
        let called = br#"{"type":"HandEvent","data":{"table":2,"event":{"type":"PlayerCalled","data":{"seat":3,"amount":50,"all_in":false}}}}"#;
        assert_eq!(read(1, called).unwrap(), read(2, called).unwrap());
        // A version 1 that already says how straddles are raised is not what those
        // releases wrote.
        let odd = String::from_utf8(stored.to_vec()).unwrap().replace(
            r#""clock""#,
            r#""straddle_raise":"TwiceTheStraddle","clock""#,
        );
        assert!(matches!(
            read(1, odd.as_bytes()),
            Err(DecodeError::Upcast { from: 1, .. })
        ));
    }

    /// A QueenSix `TournamentScheduled` as releases 0.1.0 to 0.6.0 wrote it (from the 0.6.0
    /// golden log) reads as version 2 with deals allowed, as that engine allowed them; a
    /// schedule of version 2 says what its preset says.
    #[test]
    fn a_schedule_of_version_1_reads_with_the_deals_it_was_played_under() {
        use league_engine::rules::Preset;
        use league_engine::tournament::play::{TournamentEvent, TournamentRules};
        let stored = br#"{"type":"TournamentScheduled","data":{"schedule":{"name":"sim 1000","venue":"queens-arms","starts_at":0,"preset":"queensix","house":{"bust_order":"LargerStartingStack","balance":"QueenSix","redraw_at":[3,2,1],"final_table_button_draw":false,"colour_up":"RoundUp","absent_removal":"AfterNewLevelOrHalfHour","penalty_rule":"QueenSix code of conduct"},"tracking":"dealt","pool":{"entry":{"price":2000,"fee":500},"rebuy":{"price":2000,"fee":0},"add_on":{"price":1000,"fee":0},"house":"Fees","guarantee":0},"starting_chips":5000,"chip_unit":25,"levels":[{"Play":{"blinds":{"small_blind":25,"big_blind":50,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":50,"big_blind":100,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":75,"big_blind":150,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":100,"big_blind":200,"ante":{"BigBlind":200}},"minutes":20}},{"Break":{"minutes":10,"colour_up":{"low":25,"high":100}}},{"Play":{"blinds":{"small_blind":200,"big_blind":400,"ante":{"BigBlind":400}},"minutes":20}},{"Play":{"blinds":{"small_blind":300,"big_blind":600,"ante":{"BigBlind":600}},"minutes":20}},{"Play":{"blinds":{"small_blind":500,"big_blind":1000,"ante":{"BigBlind":1000}},"minutes":20}},{"Play":{"blinds":{"small_blind":1000,"big_blind":2000,"ante":{"BigBlind":2000}},"minutes":20}},{"Break":{"minutes":10,"colour_up":{"low":100,"high":1000}}},{"Play":{"blinds":{"small_blind":2000,"big_blind":4000,"ante":{"BigBlind":4000}},"minutes":20}},{"Play":{"blinds":{"small_blind":3000,"big_blind":6000,"ante":{"BigBlind":6000}},"minutes":20}},{"Play":{"blinds":{"small_blind":5000,"big_blind":10000,"ante":{"BigBlind":10000}},"minutes":20}},{"Play":{"blinds":{"small_blind":10000,"big_blind":20000,"ante":{"BigBlind":20000}},"minutes":20}},{"Play":{"blinds":{"small_blind":20000,"big_blind":40000,"ante":{"BigBlind":40000}},"minutes":20}},{"Play":{"blinds":{"small_blind":50000,"big_blind":100000,"ante":{"BigBlind":100000}},"minutes":20}},{"Play":{"blinds":{"small_blind":100000,"big_blind":200000,"ante":{"BigBlind":200000}},"minutes":20}},{"Play":{"blinds":{"small_blind":200000,"big_blind":400000,"ante":{"BigBlind":400000}},"minutes":20}},{"Play":{"blinds":{"small_blind":500000,"big_blind":1000000,"ante":{"BigBlind":1000000}},"minutes":20}}],"table_size":9,"rebuys":{"per_player":2,"from_level":1,"until_level":4,"until_minutes":3,"chips":5000,"max_stack":5000,"after_bust_only":false},"add_ons":{"per_player":1,"from_level":4,"until_level":4,"until_minutes":3,"chips":3000,"max_stack":null,"after_bust_only":false},"reentries":{"per_player":1,"from_level":1,"until_level":3,"until_minutes":3,"chips":5000,"max_stack":null,"after_bust_only":false},"late_registration_until_level":3,"late_registration_until_minutes":3,"payouts":[[1,[10000]],[5,[6500,3500]],[7,[5000,3000,2000]],[11,[4500,2700,1700,1100]],[16,[4000,2500,1600,1100,800]],[21,[3500,2300,1500,1100,900,700]],[31,[3000,2000,1400,1050,850,650,550,500]],[46,[2800,1800,1250,950,750,600,500,450,450,450]],[71,[2500,1600,1100,850,700,570,480,400,340,300,260,240,230,220,210]]],"blind_cap_percent":10,"break_order":[],"draw_commitment":"bea59e4f0041889c1deb311323f57d7b9c7d07ddc24e7549f541c502aee4f71d"}}}"#;
        let read = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "TournamentScheduled",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let Ok(TournamentEvent::TournamentScheduled { schedule }) = read(1, stored) else {
            panic!("not read as a schedule");
        };
        assert_eq!(schedule.preset, Preset::QueenSix);
        assert!(schedule.house.deals_allowed);
        assert_eq!(schedule.house, {
            let mut queensix = TournamentRules::for_preset(Preset::QueenSix);
            queensix.deals_allowed = true;
            // And, read up to version 4, as release 0.14.0's engine played it.
            queensix.out_for_good_when_penalised = false;
            queensix.absent_hands_dead = false;
            queensix
        });
        assert!(!schedule.house.escalating_penalties);
        assert!(!schedule.house.out_for_good_when_penalised);
        assert!(!TournamentRules::for_preset(Preset::QueenSix).deals_allowed);
        // Version 1 lacks the field: read as the current version it is refused.
        assert!(read(2, stored).is_err());
        // A version 1 that already says whether deals are allowed is not what those
        // releases wrote.
        let odd = String::from_utf8(stored.to_vec()).unwrap().replace(
            r#""penalty_rule""#,
            r#""deals_allowed":false,"penalty_rule""#,
        );
        assert!(matches!(
            read(1, odd.as_bytes()),
            Err(DecodeError::Upcast { from: 1, .. })
        ));
        // Version 4 as this release writes it reads as it is; as version 3 it is refused,
        // since version 3 never said whether absent hands are dead at the deal, and as
        // version 2 too, since version 2 never said whether penalties escalate.
        let mut written = schedule.clone();
        written.house.deals_allowed = false;
        written.house.escalating_penalties = true;
        written.house.out_for_good_when_penalised = true;
        written.house.absent_hands_dead = true;
        let bytes = serde_json::to_vec(&TournamentEvent::TournamentScheduled {
            schedule: written.clone(),
        })
        .unwrap();
        assert!(matches!(
            read(4, &bytes),
            Ok(TournamentEvent::TournamentScheduled { schedule }) if *schedule == *written
        ));
        assert!(matches!(
            read(3, &bytes),
            Err(DecodeError::Upcast { from: 3, .. })
        ));
        let version_3 = String::from_utf8(bytes)
            .unwrap()
            .replace(r#","absent_hands_dead":true"#, "");
        assert!(matches!(
            read(2, version_3.as_bytes()),
            Err(DecodeError::Upcast { from: 2, .. })
        ));
        written.house.absent_hands_dead = false;
        assert!(matches!(
            read(3, version_3.as_bytes()),
            Ok(TournamentEvent::TournamentScheduled { schedule }) if *schedule == *written
        ));
    }

    /// A WPH `TournamentScheduled` as releases 0.7.0 to 0.14.0 wrote it (from the 0.14.0
    /// golden log) reads as version 3 with penalties left to the staff, as they were given
    /// then; a penalty as those releases wrote it reads as written, and one of the two
    /// kinds release 0.15.0 adds is refused in the old version.
    #[test]
    fn schedules_and_penalties_before_escalation_read_as_they_were_played() {
        use league_engine::rules::Preset;
        use league_engine::tournament::Chips;
        use league_engine::tournament::play::{Penalty, TournamentEvent, TournamentRules};
        let read = |name, version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                name,
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        let stored = br#"{"type":"TournamentScheduled","data":{"schedule":{"name":"sim 1002","venue":"queens-arms","starts_at":0,"preset":"wph","house":{"bust_order":"LargerStartingStack","balance":"WorstPosition","redraw_at":[],"final_table_button_draw":false,"colour_up":"ChipRace","absent_removal":"Director","penalty_rule":"WPH 47","deals_allowed":true},"tracking":"recorded","pool":{"entry":{"price":2000,"fee":500},"rebuy":null,"add_on":null,"house":"Fees","guarantee":0},"starting_chips":5000,"chip_unit":25,"levels":[{"Play":{"blinds":{"small_blind":25,"big_blind":50,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":50,"big_blind":100,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":75,"big_blind":150,"ante":"None"},"minutes":20}},{"Play":{"blinds":{"small_blind":100,"big_blind":200,"ante":{"BigBlind":200}},"minutes":20}},{"Break":{"minutes":10,"colour_up":{"low":25,"high":100}}},{"Play":{"blinds":{"small_blind":200,"big_blind":400,"ante":{"BigBlind":400}},"minutes":20}},{"Play":{"blinds":{"small_blind":300,"big_blind":600,"ante":{"BigBlind":600}},"minutes":20}},{"Play":{"blinds":{"small_blind":500,"big_blind":1000,"ante":{"BigBlind":1000}},"minutes":20}},{"Play":{"blinds":{"small_blind":1000,"big_blind":2000,"ante":{"BigBlind":2000}},"minutes":20}},{"Break":{"minutes":10,"colour_up":{"low":100,"high":1000}}},{"Play":{"blinds":{"small_blind":2000,"big_blind":4000,"ante":{"BigBlind":4000}},"minutes":20}},{"Play":{"blinds":{"small_blind":3000,"big_blind":6000,"ante":{"BigBlind":6000}},"minutes":20}},{"Play":{"blinds":{"small_blind":5000,"big_blind":10000,"ante":{"BigBlind":10000}},"minutes":20}},{"Play":{"blinds":{"small_blind":10000,"big_blind":20000,"ante":{"BigBlind":20000}},"minutes":20}},{"Play":{"blinds":{"small_blind":20000,"big_blind":40000,"ante":{"BigBlind":40000}},"minutes":20}},{"Play":{"blinds":{"small_blind":50000,"big_blind":100000,"ante":{"BigBlind":100000}},"minutes":20}},{"Play":{"blinds":{"small_blind":100000,"big_blind":200000,"ante":{"BigBlind":200000}},"minutes":20}},{"Play":{"blinds":{"small_blind":200000,"big_blind":400000,"ante":{"BigBlind":400000}},"minutes":20}},{"Play":{"blinds":{"small_blind":500000,"big_blind":1000000,"ante":{"BigBlind":1000000}},"minutes":20}}],"table_size":9,"rebuys":null,"add_ons":null,"reentries":{"per_player":1,"from_level":1,"until_level":3,"until_minutes":null,"chips":5000,"max_stack":null,"after_bust_only":false},"late_registration_until_level":3,"late_registration_until_minutes":null,"payouts":[[1,[10000]],[5,[6500,3500]],[7,[5000,3000,2000]],[11,[4500,2700,1700,1100]],[16,[4000,2500,1600,1100,800]],[21,[3500,2300,1500,1100,900,700]],[31,[3000,2000,1400,1050,850,650,550,500]],[46,[2800,1800,1250,950,750,600,500,450,450,450]],[71,[2500,1600,1100,850,700,570,480,400,340,300,260,240,230,220,210]]],"blind_cap_percent":null,"break_order":[],"draw_commitment":"51214833c020d038c153c9d8b166a1d7d7e98d0461be89669933b4d8b7f0abbc"}}}"#;
        let mut wph = TournamentRules::for_preset(Preset::Wph);
        assert!(wph.escalating_penalties && wph.out_for_good_when_penalised);
        wph.escalating_penalties = false;
        wph.out_for_good_when_penalised = false;
        // This simulated WPH night races its chips off (a schedule may choose).
        wph.colour_up = league_engine::tournament::colour_up::ColourUpPolicy::ChipRace;
        let Ok(TournamentEvent::TournamentScheduled { schedule }) =
            read("TournamentScheduled", 2, stored)
        else {
            panic!("not read as a schedule");
        };
        assert_eq!(schedule.preset, Preset::Wph);
        assert_eq!(schedule.house, wph);
        assert!(read("TournamentScheduled", 3, stored).is_err());
        assert!(read("TournamentScheduled", 4, stored).is_err());
        let given = br#"{"type":"PenaltyGiven","data":{"player":"pl015","penalty":{"MissRounds":1},"hands":7,"rule":"Oracle tournament rule 4"}}"#;
        assert_eq!(
            read("PenaltyGiven", 1, given).unwrap(),
            read("PenaltyGiven", 2, given).unwrap()
        );
        for (newer, penalty) in [
            (r#"{"Forfeit":500}"#, Penalty::Forfeit(Chips::new(500))),
            (r#""Eliminate""#, Penalty::Eliminate),
        ] {
            let bytes = String::from_utf8(given.to_vec())
                .unwrap()
                .replace(r#"{"MissRounds":1}"#, newer);
            assert!(matches!(
                read("PenaltyGiven", 1, bytes.as_bytes()),
                Err(DecodeError::Upcast { from: 1, .. })
            ));
            assert!(matches!(
                read("PenaltyGiven", 2, bytes.as_bytes()),
                Ok(TournamentEvent::PenaltyGiven { penalty: p, hands: 7, .. }) if p == penalty
            ));
        }
    }

    /// A `PlayersEliminated` as releases 0.1.0 to 0.6.0 wrote it (from the 0.6.0 golden
    /// log, and the same shape tied as hand-for-hand wrote it) reads as version 2 unranked:
    /// every tied player of that version shared.
    #[test]
    fn an_elimination_of_version_1_reads_unranked() {
        use league_engine::tournament::play::TournamentEvent;
        let stored = br#"{"type":"PlayersEliminated","data":{"players":["pl009"],"table":1,"hand":null,"tied":false,"knockouts":[],"chips_to":null,"chips":0,"rule":"re-buy declined","reason":"the player declined the re-buy"}}"#;
        let tied = br#"{"type":"PlayersEliminated","data":{"players":["pl003","pl007"],"table":2,"hand":41,"tied":true,"knockouts":[],"chips_to":null,"chips":0,"rule":"hand-for-hand","reason":"out in the same hand-for-hand round: the places and prizes are shared"}}"#;
        let read = |version, bytes: &[u8]| {
            CODEC.read::<TournamentEvent>(
                StreamKind::Tournament,
                "PlayersEliminated",
                version,
                bytes,
                crate::parse_tournament,
            )
        };
        for (bytes, was_tied) in [(&stored[..], false), (&tied[..], true)] {
            let Ok(TournamentEvent::PlayersEliminated { tied, ranked, .. }) = read(1, bytes) else {
                panic!("not read as an elimination");
            };
            assert_eq!((tied, ranked), (was_tied, false));
            // Version 1 lacks the field: read as the current version it is refused.
            assert!(read(2, bytes).is_err());
        }
        let odd = String::from_utf8(tied.to_vec())
            .unwrap()
            .replace(r#""tied":true"#, r#""tied":true,"ranked":true"#);
        assert!(matches!(
            read(1, odd.as_bytes()),
            Err(DecodeError::Upcast { from: 1, .. })
        ));
        // Version 2 as this release writes it reads as it is.
        assert!(matches!(
            read(2, odd.as_bytes()),
            Ok(TournamentEvent::PlayersEliminated { ranked: true, .. })
        ));
    }

    /// A stream kind's events in two versions: `Renamed` gained `reason` in version 2 (a
    /// default for old events) and `by` in version 3 (split out of `reason`).
    const FIXTURE: Codec = Codec {
        catalogue: &[tournament("Renamed", 3), tournament("Opened", 1)],
        upcasters: &[
            Upcaster {
                kind: StreamKind::Tournament,
                event_type: "Renamed",
                from: 1,
                upcast: |mut v| {
                    v.as_object_mut()
                        .ok_or("not an object")?
                        .insert("reason".into(), Value::from("host: not given"));
                    Ok(v)
                },
            },
            Upcaster {
                kind: StreamKind::Tournament,
                event_type: "Renamed",
                from: 2,
                upcast: |mut v| {
                    let object = v.as_object_mut().ok_or("not an object")?;
                    let reason = object
                        .remove("reason")
                        .and_then(|r| r.as_str().map(str::to_owned))
                        .ok_or("no reason")?;
                    let (by, reason) = reason.split_once(": ").ok_or("reason has no author")?;
                    object.insert("by".into(), Value::from(by));
                    object.insert("reason".into(), Value::from(reason));
                    Ok(v)
                },
            },
        ],
    };

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(tag = "type")]
    enum FixtureEvent {
        Renamed {
            name: String,
            reason: String,
            by: String,
        },
        Opened {
            at: u64,
        },
    }

    fn read(event_type: &str, version: u32, payload: &str) -> Result<FixtureEvent, DecodeError> {
        FIXTURE.read(
            StreamKind::Tournament,
            event_type,
            version,
            payload.as_bytes(),
            crate::parse,
        )
    }

    #[test]
    fn old_versions_are_upcast_step_by_step_and_the_stored_bytes_are_only_read() {
        let v1 = r#"{"type":"Renamed","name":"Friday"}"#;
        let v2 = r#"{"type":"Renamed","name":"Friday","reason":"td: typo"}"#;
        let v3 = r#"{"type":"Renamed","name":"Friday","reason":"typo","by":"td"}"#;
        let renamed = |reason: &str, by: &str| FixtureEvent::Renamed {
            name: "Friday".into(),
            reason: reason.into(),
            by: by.into(),
        };
        assert_eq!(
            read("Renamed", 1, v1).unwrap(),
            renamed("not given", "host")
        );
        assert_eq!(read("Renamed", 2, v2).unwrap(), renamed("typo", "td"));
        assert_eq!(read("Renamed", 3, v3).unwrap(), renamed("typo", "td"));
        // The current version is read as it is, not upcast: version 1's bytes read as
        // version 3 lack fields.
        assert!(matches!(read("Renamed", 3, v1), Err(DecodeError::Json(_))));
        assert_eq!(
            read("Opened", 1, r#"{"type":"Opened","at":5}"#).unwrap(),
            FixtureEvent::Opened { at: 5 }
        );
        let broken = read(
            "Renamed",
            2,
            r#"{"type":"Renamed","name":"F","reason":"x"}"#,
        );
        let message = broken.unwrap_err().to_string();
        assert_eq!(
            message,
            "tournament event Renamed version 2 cannot be upcast: reason has no author"
        );
    }

    #[test]
    fn types_and_versions_newer_than_the_build_are_refused_by_name() {
        let newer = read("Renamed", 4, r#"{"type":"Renamed"}"#).unwrap_err();
        assert!(matches!(
            newer,
            DecodeError::NewerVersion {
                version: 4,
                known: 3,
                ..
            }
        ));
        let message = newer.to_string();
        assert!(
            message.starts_with("tournament event Renamed version 4 is newer than release "),
            "{message}"
        );
        assert!(message.contains("(up to version 3)"), "{message}");
        let unknown = read("Closed", 1, r#"{"type":"Closed"}"#).unwrap_err();
        assert!(matches!(unknown, DecodeError::UnknownType { .. }));
        assert!(
            unknown
                .to_string()
                .starts_with("tournament event type Closed is not known to release "),
            "{unknown}"
        );
        assert!(matches!(
            read("Opened", 0, r#"{"type":"Opened","at":5}"#),
            Err(DecodeError::NoVersion { .. })
        ));
        let missing = Codec {
            catalogue: FIXTURE.catalogue,
            upcasters: &FIXTURE.upcasters[..1],
        };
        assert_eq!(
            missing.missing_upcasters(),
            vec![(StreamKind::Tournament, "Renamed", 2)]
        );
        let error = missing
            .read(
                StreamKind::Tournament,
                "Renamed",
                1,
                br#"{"type":"Renamed","name":"F"}"#,
                crate::parse::<FixtureEvent>,
            )
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "tournament event Renamed version 2 has no upcaster to version 3"
        );
    }
}
