//! What the process tests share: `league serve` as a child process, killed when the test
//! ends, and waiting for an address to answer.

#![allow(dead_code, reason = "each test file uses what it needs of these")]

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The seed of the signing key [`serve`] gives its servers (32 bytes of 7).
pub const SIGNING_SEED: [u8; 32] = [7; 32];

/// Kills a process when the test ends, however it ends.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `league serve` on `database`, on a port of its choosing; returns the process and its
/// address (`http://127.0.0.1:<port>`), once it says it is serving.
pub fn serve(database: &str) -> (Process, String) {
    serve_with(database, &[])
}

/// [`serve`] with more flags.
pub fn serve_with(database: &str, flags: &[&str]) -> (Process, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_league"))
        .args([
            "serve",
            "--database",
            database,
            "--host",
            "127.0.0.1",
            "--port",
            "0",
        ])
        .args(flags)
        .env("LEAGUE_SIGNING_KEY", "07".repeat(32)) // SIGNING_SEED
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let process = Process(child);
    let mut lines = BufReader::new(stderr).lines();
    let mut said = String::new();
    let address = loop {
        let line = lines
            .next()
            .unwrap_or_else(|| panic!("league serve stopped:\n{said}"))
            .unwrap();
        said.push_str(&line);
        said.push('\n');
        if let Some(at) = line.find("serving http://") {
            let url = &line[at + "serving ".len()..];
            break url.trim_end_matches("/graphql").trim().to_owned();
        }
    };
    // Keep draining its output so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    (process, address)
}

/// Waits until `url` answers 200.
pub async fn ready(url: &str) {
    let started = Instant::now();
    loop {
        if let Ok(response) = awc::Client::new().get(url).send().await
            && response.status().is_success()
        {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{url} not ready in 30 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
