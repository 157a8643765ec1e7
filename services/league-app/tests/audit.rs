//! `audit::rederive`, what `league audit verify` runs after the hash chains: on a
//! simulated season every hand and every outcome is decided again to the same events; then
//! one figure is changed with SQL and its stream's hash chain computed again (so that the
//! chains verify and only the re-derivation can see it): a pot, a dealt card, a final
//! stack, a seat draw, a place, a prize, a league points figure. Each is found, at its position. On SQLite and (with `LEAGUE_TEST_POSTGRES_URL`)
//! PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_app::audit::rederive;
use league_app::simulate;
use league_store::hash::{EventFields, event_hash, to_hex};
use league_store::{Backend, Store};
use league_testkit::Scratch;
use serde_json::Value;

fn postgres_url() -> Option<String> {
    let url = std::env::var("LEAGUE_TEST_POSTGRES_URL").ok();
    if url.is_none() {
        assert!(
            std::env::var("LEAGUE_REQUIRE_POSTGRES").is_err(),
            "LEAGUE_REQUIRE_POSTGRES is set but LEAGUE_TEST_POSTGRES_URL is not"
        );
        eprintln!("skipped: LEAGUE_TEST_POSTGRES_URL is not set");
    }
    url
}

/// A byte string as an SQL literal of `backend`.
fn bytes(backend: Backend, b: &[u8]) -> String {
    match backend {
        Backend::Postgres => format!("decode('{}', 'hex')", to_hex(b)),
        Backend::Sqlite => format!("X'{}'", to_hex(b)),
    }
}

/// Where a change is made: the first event of a stream with a type, or the first hand
/// event (`HandEvent`) with a type.
#[derive(Clone, Copy)]
enum Target {
    Event(&'static str, &'static str),
    Hand(&'static str),
}

impl Target {
    fn stream(self) -> &'static str {
        match self {
            // venue-01-w02 is dealt from seeds: its cards are the server's.
            Target::Hand(_) => "tournament:venue-01-w02",
            Target::Event(stream, _) => stream,
        }
    }

    /// The part of the payload the edit changes, if `payload` is the target.
    fn part(self, payload: &mut Value) -> Option<&mut Value> {
        match self {
            Target::Hand(kind) => (payload["data"]["event"]["type"] == kind)
                .then(|| &mut payload["data"]["event"]["data"]),
            Target::Event(_, kind) => (payload["type"] == kind).then_some(payload),
        }
    }
}

/// Changes, with SQL, the first event `target` names, by `edit`, and hashes the stream's
/// chain again from there, as someone with write access to the database would to hide the
/// change. Returns the event's position.
async fn rewrite(store: &Store, backend: Backend, target: Target, edit: Edit) -> u64 {
    let stream = target.stream();
    let events = store.read_stream(stream, 1).await.unwrap();
    let at = events
        .iter()
        .position(|e| {
            let mut value = serde_json::from_slice::<Value>(&e.payload).unwrap();
            target.part(&mut value).is_some()
        })
        .unwrap_or_else(|| panic!("no such event in {stream}"));
    let mut prev = events[at].prev_hash;
    for (i, e) in events.iter().enumerate().skip(at) {
        let mut payload = e.payload.clone();
        if i == at {
            let mut value: Value = serde_json::from_slice(&payload).unwrap();
            edit(target.part(&mut value).unwrap());
            payload = serde_json::to_vec(&value).unwrap();
        }
        let fields = EventFields {
            payload: &payload,
            prev_hash: &prev,
            ..e.hash_fields()
        };
        let hash = event_hash(&fields);
        let sql = format!(
            "UPDATE events SET payload = {}, prev_hash = {}, hash = {} WHERE position = {}",
            bytes(backend, &payload),
            bytes(backend, &prev),
            bytes(backend, &hash),
            e.position
        );
        assert_eq!(store.execute_raw(&sql).await.unwrap(), 1, "{sql}");
        prev = hash;
    }
    events[at].position
}

/// A change to an event's data.
type Edit = fn(&mut Value);

async fn rederives(backend: Backend, url: Option<&str>) {
    let changes: [(Target, Edit); 7] = [
        (Target::Hand("PotAwarded"), |d| {
            let amount = d["amount"].as_u64().unwrap();
            d["amount"] = (amount + 1).into();
            let share = d["shares"][0]["amount"].as_u64().unwrap();
            d["shares"][0]["amount"] = (share + 1).into();
        }),
        (Target::Hand("HoleCardsDealt"), |d| {
            let cards = d["cards"].as_array_mut().unwrap();
            cards.swap(0, 1);
        }),
        (Target::Hand("HandEnded"), |d| {
            let stack = d["stacks"][0]["amount"].as_u64().unwrap();
            d["stacks"][0]["amount"] = (stack + 1).into();
        }),
        // A seat draw: the first two players drawn change seats.
        (
            Target::Event("tournament:venue-01-w02", "TournamentStarted"),
            |d| {
                let seats = &mut d["data"]["seats"];
                let first = seats[0]["player"].take();
                let second = std::mem::replace(&mut seats[1]["player"], first);
                seats[0]["player"] = second;
            },
        ),
        // A place row: the runner-up made the winner too.
        (
            Target::Event("tournament:venue-01-w02", "TournamentFinished"),
            |d| d["data"]["results"][1]["place"] = 1.into(),
        ),
        // A prize: a hundred cents moved from the winner to the runner-up.
        (
            Target::Event("tournament:venue-01-w02", "TournamentFinished"),
            |d| {
                let results = &mut d["data"]["results"];
                let (first, second) = (
                    results[0]["prize"].as_u64().unwrap(),
                    results[1]["prize"].as_u64().unwrap(),
                );
                results[0]["prize"] = (first - 100).into();
                results[1]["prize"] = (second + 100).into();
            },
        ),
        // A league points figure: the winner's points of the first result recorded.
        (Target::Event("league:sim-5", "TournamentRecorded"), |d| {
            let points = &mut d["points"][0]["points"][0];
            *points = (points.as_i64().unwrap() + 100).into();
        }),
    ];
    for (target, edit) in changes {
        let scratch = Scratch::new(backend, url).await.unwrap();
        let store = scratch.open().await.unwrap();
        let options = simulate::Options {
            venues: 2,
            weeks: 2,
            seed: 5,
            season_weeks: None,
        };
        simulate::run(&store, &options, None).await.unwrap();
        let clean = rederive(&store, 0, u64::MAX).await.unwrap();
        // 159 tournament hands and 60 at two cash tables.
        assert_eq!(clean.hands, 219, "{clean:?}");
        assert_eq!(clean.outcomes.cash_deals, 60, "{clean:?}");
        assert!(clean.outcomes.cash_money > 20, "{clean:?}");
        assert!(clean.seeded > 0, "{clean:?}");
        assert!(clean.failures.is_empty(), "{:#?}", clean.failures);
        assert_eq!(clean.outcomes.finishes, 4, "{clean:?}");
        assert_eq!(clean.outcomes.results, 4, "{clean:?}");
        assert_eq!(clean.outcomes.draws, 7, "{clean:?}");
        assert!(
            clean.outcomes.late_seats > 0 && clean.outcomes.colour_ups > 0,
            "{clean:?}"
        );

        let (stream, kind) = match target {
            Target::Hand(kind) | Target::Event(_, kind) => (target.stream(), kind),
        };
        let position = rewrite(&store, backend, target, edit).await;
        let chains = store.verify(0, u64::MAX, None).await.unwrap();
        assert!(
            chains.first_break.is_none(),
            "the chain was hashed again: {chains:?}"
        );
        let found = rederive(&store, 0, u64::MAX).await.unwrap();
        // The change is the first difference; a changed draw also moves what was decided
        // on it later in its stream (a late entrant's seat), and nothing else differs.
        assert!(!found.failures.is_empty(), "{kind}: nothing found");
        assert!(
            found
                .failures
                .iter()
                .all(|d| d.stream == stream && d.position >= position),
            "{kind}: {:#?}",
            found.failures
        );
        if !matches!(target, Target::Event(_, "TournamentStarted")) {
            assert_eq!(found.failures.len(), 1, "{kind}: {:#?}", found.failures);
        }
        let line = found.failures[0].to_string();
        assert!(
            line.starts_with(&format!("position {position} ({stream}, ")),
            "{kind} changed at {position}: {line}"
        );
        let said = match kind {
            "TournamentFinished" => "the finish): row ",
            "TournamentStarted" => "the seat draw): the log holds ",
            "TournamentRecorded" => "the result of tournament venue-01-w01): the points of ",
            _ => "hand ",
        };
        assert!(line.contains(said), "{kind}: {line}");
        store.close().await;
        scratch.drop_it().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_every_hand_rederives_and_a_rehashed_change_is_found() {
    rederives(Backend::Sqlite, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_every_hand_rederives_and_a_rehashed_change_is_found() {
    let Some(url) = postgres_url() else {
        return;
    };
    rederives(Backend::Postgres, Some(&url)).await;
}
