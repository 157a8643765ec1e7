//! `audit::rederive_hands`, what `league audit verify` runs after the hash chains: on a
//! simulated season every hand is decided again to the same events; then one figure of
//! one hand is changed with SQL and its stream's hash chain computed again (so that the
//! chains verify and only the re-derivation can see it): a pot, a dealt card, a final
//! stack. Each is found, at its position. On SQLite and (with `LEAGUE_TEST_POSTGRES_URL`)
//! PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_app::audit::rederive_hands;
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

/// Changes, with SQL, the first hand event of `stream` whose type is `kind`, by `edit`,
/// and hashes the stream's chain again from there, as someone with write access to the
/// database would to hide the change. Returns the event's position.
async fn rewrite(
    store: &Store,
    backend: Backend,
    stream: &str,
    kind: &str,
    edit: impl Fn(&mut Value),
) -> u64 {
    let events = store.read_stream(stream, 1).await.unwrap();
    let at = events
        .iter()
        .position(|e| {
            serde_json::from_slice::<Value>(&e.payload).unwrap()["data"]["event"]["type"] == kind
        })
        .unwrap_or_else(|| panic!("no {kind} in {stream}"));
    let mut prev = events[at].prev_hash;
    for (i, e) in events.iter().enumerate().skip(at) {
        let mut payload = e.payload.clone();
        if i == at {
            let mut value: Value = serde_json::from_slice(&payload).unwrap();
            edit(&mut value["data"]["event"]["data"]);
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

/// A change to a hand event's data.
type Edit = fn(&mut Value);

async fn rederives(backend: Backend, url: Option<&str>) {
    let changes: [(&str, Edit); 3] = [
        ("PotAwarded", |d| {
            let amount = d["amount"].as_u64().unwrap();
            d["amount"] = (amount + 1).into();
            let share = d["shares"][0]["amount"].as_u64().unwrap();
            d["shares"][0]["amount"] = (share + 1).into();
        }),
        ("HoleCardsDealt", |d| {
            let cards = d["cards"].as_array_mut().unwrap();
            cards.swap(0, 1);
        }),
        ("HandEnded", |d| {
            let stack = d["stacks"][0]["amount"].as_u64().unwrap();
            d["stacks"][0]["amount"] = (stack + 1).into();
        }),
    ];
    for (kind, edit) in changes {
        let scratch = Scratch::new(backend, url).await.unwrap();
        let store = scratch.open().await.unwrap();
        let options = simulate::Options {
            venues: 2,
            weeks: 2,
            seed: 5,
        };
        simulate::run(&store, &options, None).await.unwrap();
        let clean = rederive_hands(&store, 0, u64::MAX).await.unwrap();
        assert_eq!(clean.hands, 152, "{clean:?}");
        assert!(clean.seeded > 0, "{clean:?}");
        assert!(clean.failures.is_empty(), "{:#?}", clean.failures);

        // venue-01-w02 is dealt from seeds: its cards are the server's.
        let stream = "tournament:venue-01-w02";
        let position = rewrite(&store, backend, stream, kind, edit).await;
        let chains = store.verify(0, u64::MAX, None).await.unwrap();
        assert!(
            chains.first_break.is_none(),
            "the chain was hashed again: {chains:?}"
        );
        let found = rederive_hands(&store, 0, u64::MAX).await.unwrap();
        assert_eq!(found.failures.len(), 1, "{kind}: {:#?}", found.failures);
        let line = found.failures[0].to_string();
        assert!(
            line.starts_with(&format!("position {position} (tournament:venue-01-w02, ")),
            "{kind} changed at {position}: {line}"
        );
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
