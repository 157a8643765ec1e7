//! Times `Store::read_all` over a whole log:
//! `read_all URL [schema S] [connections N] [fill N] [spread N] [rounds R] [page P]`.
//! With `fill N`, first appends N ~100-byte events to the stream `fill` (as `league-bench
//! store` does, with `league_testkit::fill`); with `spread N`, N single events from 16 writers at
//! once. `schema S` reads a PostgreSQL schema's log, e.g. one that `league-bench store` left
//! behind with `LEAGUE_BENCH_KEEP=1`; `connections N` caps the store's pool; `page P` reads
//! in pages of P events instead of 10,000 (`league-bench store`'s pages). Prints each
//! round's rate.
use league_store::Store;
use std::time::Instant;

/// As in the `league` binary: allocation-heavy reads measure the same here as there.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PAYLOAD: &[u8] = br#"{"table":7,"seat":3,"action":"raise","amount":1200,"street":"turn","note":"a typical table action payload"}"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let url = args.get(1).ok_or(
        "usage: read_all URL [schema S] [connections N] [fill N] [spread N] [rounds R] [page P]",
    )?;
    let mut fill = 0u32;
    let mut rounds = 5u32;
    let mut spread = 0u32;
    let mut schema = None;
    let mut page = 10_000usize;
    let mut connections = None;
    for pair in args.get(2..).unwrap_or_default().chunks(2) {
        match pair {
            [k, v] if k == "fill" => fill = v.parse()?,
            [k, v] if k == "rounds" => rounds = v.parse()?,
            [k, v] if k == "page" => page = v.parse()?,
            [k, v] if k == "spread" => spread = v.parse()?,
            [k, v] if k == "schema" => schema = Some(v.clone()),
            [k, v] if k == "connections" => connections = Some(v.parse()?),
            _ => return Err("bad arguments".into()),
        }
    }
    let defaults = league_store::StoreOptions::default();
    let options = league_store::StoreOptions {
        pg_schema: schema,
        max_connections: connections.unwrap_or(defaults.max_connections),
        ..defaults
    };
    let store = Store::open_with(url, options).await?;
    league_testkit::fill(&store, fill).await?;
    let writers: Vec<_> = (0..16u32)
        .map(|w| {
            let store = store.clone();
            tokio::spawn(async move {
                let event = league_store::NewEvent::new("PlayerRaised", PAYLOAD.to_vec());
                let stream = format!("spread-{w}");
                let mut version = store.stream_head(&stream).await?.map_or(0, |h| h.0);
                for _ in 0..spread / 16 {
                    let expected = if version == 0 {
                        league_store::ExpectedVersion::NoStream
                    } else {
                        league_store::ExpectedVersion::Exact(version)
                    };
                    version = store
                        .append(&stream, expected, std::slice::from_ref(&event), None)
                        .await?
                        .last_version;
                }
                Ok::<(), league_store::StoreError>(())
            })
        })
        .collect();
    for w in writers {
        w.await??;
    }
    for _ in 0..rounds {
        let started = Instant::now();
        let count = league_testkit::read_whole_log_in_pages(&store, page).await?;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{count} events in {secs:.3} s: {:.0}/s",
            f64::from(count) / secs
        );
    }
    store.close().await;
    Ok(())
}
