//! A tournament's summary for auditors (`league audit export --format summary`): what it
//! collected and each place, with league points once a league recorded it; as JSON and CSV.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use league_engine::league::LeagueState;
use league_engine::tournament::play::Stage;
use serde::Serialize;

use super::Tracked;

/// A tournament's summary: what it collected, and each place.
#[derive(Clone, Debug, Serialize)]
pub struct TournamentSummary {
    pub tournament: String,
    pub name: String,
    pub venue: String,
    /// The league season it counts for, once a league recorded it.
    pub season: Option<String>,
    /// The scheduled start, in milliseconds since the Unix epoch.
    pub starts_at: i64,
    /// `scheduled`, `running`, `finished` or `cancelled`.
    pub stage: &'static str,
    pub entries: u64,
    pub rebuys: u64,
    pub add_ons: u64,
    /// The prize pool in cents (`None` when it cannot be worked out).
    pub prize_pool_cents: Option<u64>,
    /// Completed hands in the log.
    pub hands: u64,
    /// The scoring version `points` are under (the season's current one).
    pub points_version: Option<u32>,
    pub places: Vec<PlaceLine>,
}

/// One player's finish.
#[derive(Clone, Debug, Serialize)]
pub struct PlaceLine {
    pub place: u32,
    /// Players sharing the place (1 when alone).
    pub shared: u32,
    pub player: String,
    pub prize_cents: u64,
    pub entries: u32,
    pub rebuys: u32,
    pub add_ons: u32,
    pub knockouts: u32,
    /// League points in hundredths, once the league recorded the tournament.
    pub points_centi: Option<i64>,
}

pub(super) fn summary(
    id: &str,
    t: &Tracked,
    leagues: &BTreeMap<String, LeagueState>,
    closed: &[LeagueState],
) -> TournamentSummary {
    let state = &t.state;
    let schedule = state.schedule();
    let purchases = state.purchases();
    // The league (or the closed season) that recorded it, and the points under its
    // season's current version.
    let recorded = leagues.values().chain(closed).find_map(|l| {
        let outcome = l.tournament(id)?;
        let version = l.season(&outcome.season).map_or(0, |s| s.version());
        Some((outcome, version, l.tournament_points(id, version)))
    });
    let points_of = |player: &str| -> Option<i64> {
        let (outcome, _, points) = recorded.as_ref()?;
        let i = outcome
            .finishes
            .iter()
            .position(|f| f.player.as_str() == player)?;
        (*points)?.get(i).map(|p| p.get())
    };
    let places = state
        .results()
        .unwrap_or_default()
        .iter()
        .map(|f| PlaceLine {
            place: f.place,
            shared: f.shared,
            player: f.player.to_string(),
            prize_cents: f.prize.get(),
            entries: f.entries,
            rebuys: f.rebuys,
            add_ons: f.add_ons,
            knockouts: f.knockouts,
            points_centi: points_of(f.player.as_str()),
        })
        .collect();
    TournamentSummary {
        tournament: id.to_owned(),
        name: schedule.map(|s| s.name.clone()).unwrap_or_default(),
        venue: schedule.map(|s| s.venue.to_string()).unwrap_or_default(),
        season: recorded.as_ref().map(|(o, _, _)| o.season.to_string()),
        starts_at: schedule.map_or(0, |s| s.starts_at),
        stage: match state.stage() {
            Stage::New | Stage::Scheduled => "scheduled",
            Stage::Running => "running",
            Stage::Finished => "finished",
            Stage::Cancelled => "cancelled",
        },
        entries: purchases.entries,
        rebuys: purchases.rebuys,
        add_ons: purchases.add_ons,
        prize_pool_cents: state.prize_pool().ok().map(|p| p.total.get()),
        hands: t.hands,
        points_version: recorded.as_ref().map(|(_, v, _)| *v),
        places,
    }
}

/// The summaries as CSV: a row per place (a tournament without places has one row with
/// empty place columns), in tournament order.
pub fn summary_csv(summaries: &BTreeMap<String, TournamentSummary>) -> String {
    let mut out = String::from(
        "tournament,name,venue,season,starts_at,stage,entries,rebuys,add_ons,prize_pool_cents,\
         hands,points_version,place,shared,player,prize_cents,player_entries,player_rebuys,\
         player_add_ons,knockouts,points_centi\n",
    );
    let opt = |v: Option<String>| v.unwrap_or_default();
    for s in summaries.values() {
        let head = [
            csv_field(&s.tournament),
            csv_field(&s.name),
            csv_field(&s.venue),
            csv_field(&opt(s.season.clone())),
            s.starts_at.to_string(),
            s.stage.to_owned(),
            s.entries.to_string(),
            s.rebuys.to_string(),
            s.add_ons.to_string(),
            opt(s.prize_pool_cents.map(|c| c.to_string())),
            s.hands.to_string(),
            opt(s.points_version.map(|v| v.to_string())),
        ]
        .join(",");
        if s.places.is_empty() {
            let _ = writeln!(out, "{head},,,,,,,,,");
        }
        for p in &s.places {
            let _ = writeln!(
                out,
                "{head},{},{},{},{},{},{},{},{},{}",
                p.place,
                p.shared,
                csv_field(&p.player),
                p.prize_cents,
                p.entries,
                p.rebuys,
                p.add_ons,
                p.knockouts,
                opt(p.points_centi.map(|v| v.to_string()))
            );
        }
    }
    out
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
pub(super) fn csv_field(value: &str) -> String {
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}
