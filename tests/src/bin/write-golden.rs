//! Writes this release's golden log into `tests/golden/<release>/` (see
//! `league_tests::golden`): run once when cutting a release, then check the directory in.

use std::process::ExitCode;

fn main() -> ExitCode {
    let release = league_events::RELEASE;
    let dir = league_tests::golden::golden_dir().join(release);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(league_tests::golden::write(&dir)) {
        Ok(written) => {
            println!("wrote {} events to {}", written.events, dir.display());
            for ((kind, name), count) in &written.types {
                println!("{kind:>10} {name:<36} {count:>6}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
