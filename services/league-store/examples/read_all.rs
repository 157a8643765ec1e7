//! Times `Store::read_all` over a whole log: `read_all URL [fill N] [rounds R]`.
//! With `fill N`, first appends N ~100-byte events to the stream `fill` (as `league bench
//! store` does). Prints each round's rate.
use league_store::{ExpectedVersion, NewEvent, Store};
use std::time::Instant;

const PAYLOAD: &str = r#"{"hand":123456,"seat":4,"action":"raise","amount":1200,"to":3600,"table":"t-17","street":"flop"}"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let url = args
        .get(1)
        .ok_or("usage: read_all URL [fill N] [rounds R]")?;
    let mut fill = 0u32;
    let mut rounds = 5u32;
    for pair in args.get(2..).unwrap_or_default().chunks(2) {
        match pair {
            [k, v] if k == "fill" => fill = v.parse()?,
            [k, v] if k == "rounds" => rounds = v.parse()?,
            _ => return Err("bad arguments".into()),
        }
    }
    let store = Store::open(url).await?;
    let big: Vec<NewEvent> = (0..1000)
        .map(|_| NewEvent::new("PlayerRaised", PAYLOAD.as_bytes().to_vec()))
        .collect();
    let mut version = 0;
    while fill > 0 {
        let n = fill.min(1000);
        let expected = if version == 0 {
            ExpectedVersion::NoStream
        } else {
            ExpectedVersion::Exact(version)
        };
        let slice = big.get(..usize::try_from(n)?).ok_or("slice")?;
        version = store
            .append("fill", expected, slice, None)
            .await?
            .last_version;
        fill -= n;
    }
    for _ in 0..rounds {
        let started = Instant::now();
        let mut next = 0;
        let mut count = 0usize;
        let mut bytes = 0usize;
        loop {
            let page = store.read_all(next, 10_000).await?;
            let Some(last) = page.last() else { break };
            next = last.position + 1;
            count += page.len();
            bytes += page.iter().map(|e| e.payload.len()).sum::<usize>();
        }
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{count} events ({bytes} payload bytes) in {secs:.3} s: {:.0}/s",
            f64::from(u32::try_from(count)?) / secs
        );
    }
    store.close().await;
    Ok(())
}
