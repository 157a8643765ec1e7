//! The event store's subcommands: `league migrate`, `league audit verify` (and the
//! dispatch of `league audit export` and `replay`). Each opens the
//! log named by `--database` / `DATABASE_URL` (default: the SQLite file `league.db`).

use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::config::DatabaseArgs;
use league_store::hash::from_hex;
use league_store::{Store, StoreOptions, TrustedKeys, VerifyingKey, backend_of, migrator};

/// `league migrate`.
#[derive(Args, Debug)]
pub struct MigrateArgs {
    #[command(flatten)]
    db: DatabaseArgs,
}

/// `league audit ...`.
#[derive(Subcommand, Debug)]
pub enum AuditCommand {
    /// Walk the log and the sealed Merkle tree; report the first position where a stream's
    /// hash chain or the tree breaks; then decide every hand started in the range again
    /// with the engine (every card from its revealed seed, every pot, odd chip and final
    /// stack), every draw (seats, buttons, late seats, chip races, from their seeds), every
    /// finish, payout and deal (places and prizes) and every league result and re-scoring
    /// (points under every formula version), and name each that differs. Exits 1 if
    /// something is broken or differs, 2 on an error, and 3 when `--public-key` is given
    /// and the end of the log is covered by no tree head signed with it (saying so when
    /// those events are younger than the sealing interval).
    Verify {
        #[command(flatten)]
        db: DatabaseArgs,
        /// First position to check.
        #[arg(long, default_value_t = 0)]
        from: u64,
        /// Last position to check.
        #[arg(long, default_value_t = u64::MAX)]
        to: u64,
        /// The league's Ed25519 public key (hex) to check signed tree heads against. A league
        /// that rotated its key gives each key with the first tree size it signed,
        /// `HEX@SIZE` (the first key from 0: `HEX` or `HEX@0`), repeating the option.
        #[arg(long, env = "LEAGUE_PUBLIC_KEY", value_delimiter = ',')]
        public_key: Vec<String>,
        /// Signed tree heads saved outside the database (`league audit tree-head`, `league
        /// serve --publish-tree-heads`, the `treeHead` query): the log's first events must
        /// still have each head's root, recomputed from the events themselves, so a log
        /// whose end was removed together with its seals and heads is caught. One JSON head,
        /// an array, or one per line; the option repeats.
        #[arg(long, value_name = "FILE")]
        tree_head: Vec<std::path::PathBuf>,
    },
    /// Print the latest signed tree head (`--all`: every one) as a JSON line, to keep
    /// outside the database for `league audit verify --tree-head FILE`.
    TreeHead(crate::audit_cmd::TreeHeadArgs),
    /// Write every completed hand of the log (or of one tournament) for other tools: PHH
    /// files PokerKit replays, or PokerStars-style hand-history text; or each tournament's
    /// summary (entries, re-buys, places, prizes, league points) as CSV and JSON.
    Export(crate::audit_cmd::ExportArgs),
    /// Print one tournament as a person reads it: the schedule and levels, the draws, each
    /// hand in the PokerStars layout (every card shown), busts, eliminations and places,
    /// re-buys, table moves with their rule and reason, colour-ups, penalties, payouts,
    /// deals and the final places.
    Replay(crate::audit_cmd::ReplayArgs),
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Runtime::new().map_err(|e| {
        crate::error(format!("cannot start the async runtime: {e}"));
        ExitCode::from(2)
    })
}

pub(crate) fn fail(e: impl std::fmt::Display) -> ExitCode {
    crate::error(e);
    ExitCode::from(2)
}

/// `league migrate`: applies the migrations of the database's backend.
pub fn migrate(args: MigrateArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let backend = match backend_of(&args.db.url) {
            Ok(b) => b,
            Err(e) => return fail(e),
        };
        let options = StoreOptions {
            migrate: false,
            ..StoreOptions::default()
        };
        let store = match Store::open_with(&args.db.url, options).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        let applied = store.apply_migrations(&migrator(backend)).await;
        store.close().await;
        match applied {
            Ok(()) => {
                println!("migrated {}", args.db.url);
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        }
    })
}

/// `league audit ...`.
pub fn audit(command: AuditCommand) -> ExitCode {
    let (db, from, to, public_key, tree_head) = match command {
        AuditCommand::Verify {
            db,
            from,
            to,
            public_key,
            tree_head,
        } => (db, from, to, public_key, tree_head),
        AuditCommand::Export(args) => return crate::audit_cmd::export(&args),
        AuditCommand::Replay(args) => return crate::audit_cmd::replay(&args),
        AuditCommand::TreeHead(args) => return crate::audit_cmd::tree_head(&args),
    };
    let keys = match trusted_keys(&public_key) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let mut saved_heads = Vec::new();
    for file in &tree_head {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => return fail(format!("--tree-head {}: {e}", file.display())),
        };
        match league_store::parse_heads(&text) {
            Ok(heads) => saved_heads.extend(heads),
            Err(e) => return fail(format!("--tree-head {}: {e}", file.display())),
        }
    }
    if let Err(code) = crate::audit_cmd::refuse_missing(&db.url) {
        return code;
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        // An audit reads; it must not change the database it audits (no migrations).
        let options = StoreOptions {
            migrate: false,
            ..StoreOptions::default()
        };
        let store = match Store::open_with(&db.url, options).await {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        let mut bar = Progress::on_a_terminal(&store).await;
        let verified = league_app::audit::verify(&store, from, to, keys.as_ref(), &mut |p, n| {
            bar.show(p, n);
        })
        .await;
        bar.clear();
        let saved = if saved_heads.is_empty() {
            Ok(Vec::new())
        } else {
            store.check_saved_heads(&saved_heads, keys.as_ref()).await
        };
        store.close().await;
        let saved = match saved {
            Ok(s) => s,
            Err(e) => return fail(e),
        };
        match verified {
            Ok((r, hands)) => {
                println!("{r}");
                let saved_failed = print_saved_heads(&saved, keys.is_none());
                if let Some(hands) = &hands {
                    println!("{hands}");
                    for failure in &hands.failures {
                        println!("DIFFERS: {failure}");
                    }
                }
                if r.first_break.is_some()
                    || saved_failed
                    || hands.is_some_and(|h| !h.failures.is_empty())
                {
                    ExitCode::from(1)
                } else if let Some(u) = r.uncovered.filter(|_| r.not_covered()) {
                    // Signed heads lag the log by up to the sealer's interval: say whether
                    // the unsigned end is just young, or was left unsigned (or stripped).
                    let interval = league_store::SealerConfig::default().sign_every;
                    let age_micros = now_micros().saturating_sub(u.recorded_at.as_micros());
                    let young = u64::try_from(age_micros)
                        .is_ok_and(|a| u128::from(a) < interval.as_micros());
                    if young {
                        println!(
                            "those events are younger than the sealing interval ({} s): verify again once it has passed",
                            interval.as_secs()
                        );
                    }
                    ExitCode::from(NOT_COVERED)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => fail(e),
        }
    })
}

/// A progress line on stderr while `verify` walks the log, when stderr is a terminal (never
/// in a pipe or a log file): the position reached, of the last, the events checked and
/// their rate, redrawn at most five times a second.
struct Progress {
    on: bool,
    last: Option<u64>,
    started: std::time::Instant,
    drawn: Option<std::time::Instant>,
}

impl Progress {
    async fn on_a_terminal(store: &Store) -> Progress {
        use std::io::IsTerminal as _;
        let on = std::io::stderr().is_terminal();
        Progress {
            on,
            last: if on {
                store.last_position().await.ok().flatten()
            } else {
                None
            },
            started: std::time::Instant::now(),
            drawn: None,
        }
    }

    fn show(&mut self, position: u64, events: u64) {
        if !self.on
            || self
                .drawn
                .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(200))
        {
            return;
        }
        self.drawn = Some(std::time::Instant::now());
        let millis = self.started.elapsed().as_millis().max(1);
        let of = self.last.map(|l| format!(" of {l}")).unwrap_or_default();
        let rate = u128::from(events).saturating_mul(1_000) / millis;
        eprint!("\r\x1b[2Kverifying: position {position}{of}, {events} events ({rate}/s)");
    }

    fn clear(&mut self) {
        if self.on {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Prints what the log says to each saved head (a summary when they all hold); true if one
/// does not hold.
fn print_saved_heads(saved: &[league_store::SavedHeadCheck], self_checked: bool) -> bool {
    if saved.is_empty() {
        return false;
    }
    let failed: Vec<_> = saved.iter().filter(|c| c.failed()).collect();
    let largest = saved.iter().map(|c| c.head.tree_size).max().unwrap_or(0);
    if failed.is_empty() {
        println!(
            "saved tree heads:   {} hold (the largest covers {largest} events){}",
            saved.len(),
            if self_checked {
                ", signatures checked against their own key: pass --public-key to trust"
            } else {
                ""
            }
        );
        return false;
    }
    println!(
        "saved tree heads:   {} of {} do not hold",
        failed.len(),
        saved.len()
    );
    // The smallest first: every larger head fails with it once an early event changed.
    for c in failed.iter().take(3) {
        println!("SAVED HEAD FAILS: {c}");
    }
    if failed.len() > 3 {
        println!("... and {} larger heads", failed.len() - 3);
    }
    true
}

/// The keys of `--public-key`: `HEX` (from tree size 0) or `HEX@SIZE` each; none given,
/// none to check against.
fn trusted_keys(given: &[String]) -> Result<Option<TrustedKeys>, String> {
    if given.is_empty() {
        return Ok(None);
    }
    let mut keys = Vec::with_capacity(given.len());
    for key in given {
        let (hex, from) = match key.split_once('@') {
            Some((hex, from)) => (
                hex,
                from.trim()
                    .parse()
                    .map_err(|_| format!("{from:?} is not a tree size (in HEX@SIZE)"))?,
            ),
            None => (key.as_str(), 0),
        };
        keys.push((from, parse_key(hex.trim())?));
    }
    TrustedKeys::new(keys).map(Some)
}

/// `league audit verify`'s exit code when the league's key was given and the end of the log
/// is covered by no tree head signed with it.
pub const NOT_COVERED: u8 = 3;

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

fn parse_key(hex: &str) -> Result<VerifyingKey, String> {
    let bytes = from_hex(hex).ok_or("the public key is not hex")?;
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| "the public key must be 32 bytes")?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| format!("invalid public key: {e}"))
}

/// `league copy`.
#[derive(Args, Debug)]
pub struct CopyArgs {
    /// The store to copy (`sqlite:PATH` or `postgres://...`); stop the service on it first.
    #[arg(long)]
    from: String,
    /// An empty database to copy it into (`postgres://...` or `sqlite:PATH`); its tables
    /// are created first.
    #[arg(long)]
    to: String,
}

/// `league copy`: every row of one store into an empty one, then both audited and compared.
pub fn copy(args: CopyArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    if let Some(path) = missing_sqlite_file(&args.from) {
        return fail(format!("{}: there is no such file", path.display()));
    }
    rt.block_on(async {
        // The source is read as it is: not migrated (an older release's store is refused
        // below: migrate it first), never written.
        let as_it_is = StoreOptions {
            migrate: false,
            ..StoreOptions::default()
        };
        let source = match Store::open_with(&args.from, as_it_is).await {
            Ok(s) => s,
            Err(e) => return fail(format!("{}: {e}", args.from)),
        };
        match source.last_position().await {
            Ok(Some(_)) => {}
            Ok(None) => return fail(format!("{}: the store holds no events", args.from)),
            Err(e) => return fail(format!("{}: {e}", args.from)),
        }
        let target = match Store::open(&args.to).await {
            Ok(t) => t,
            Err(e) => return fail(format!("{}: {e}", args.to)),
        };
        let copied = source
            .copy_to(&target, |table, rows| {
                if rows % 100_000 == 0 {
                    eprintln!("{table}: {rows} rows");
                }
            })
            .await;
        let copied = match copied {
            Ok(c) => c,
            Err(e @ league_store::StoreError::Database(_)) => {
                return fail(format!(
                    "{e} (a store of an older release is copied once migrated: `league migrate --database {}`)",
                    args.from
                ));
            }
            Err(e) => return fail(e),
        };
        for (table, rows) in &copied.tables {
            println!("{table}: {rows} rows");
        }
        // The copy is audited like the original: the same hashes, chains, tree and signed
        // heads, found intact on both sides.
        let (before, after) = (
            source.verify(0, u64::MAX, None).await,
            target.verify(0, u64::MAX, None).await,
        );
        source.close().await;
        let audited = match (before, after) {
            (Ok(b), Ok(a)) => Ok((b, a)),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        let refused = match &audited {
            Err(e) => Some(e.to_string()),
            Ok((before, after)) => {
                println!("== the source audited\n{before}");
                println!("== the copy audited\n{after}");
                let same = before.events_checked == after.events_checked
                    && before.tree_size == after.tree_size
                    && before.root == after.root
                    && before.tree_heads_checked == after.tree_heads_checked;
                match (&before.first_break, same && after.first_break.is_none()) {
                    (Some(b), _) => Some(format!("the source's log is broken at {b}")),
                    (None, false) => Some("the copy does not audit as the source does".into()),
                    (None, true) => None,
                }
            }
        };
        if let Some(why) = refused {
            // Nothing is left half-done: the target is emptied again.
            let undone = target.undo_copy().await;
            target.close().await;
            eprintln!("error: {why}: the copy was removed from the target");
            if let Err(e) = undone {
                eprintln!("error: removing it failed: {e}");
            }
            return ExitCode::from(1);
        }
        target.close().await;
        let Ok((_, after)) = audited else {
            return ExitCode::from(1);
        };
        println!(
            "copied {} events, {} sealed, {} signed tree heads: the copy audits as the source",
            after.events_checked, after.tree_size, after.tree_heads_checked
        );
        ExitCode::SUCCESS
    })
}

/// The file of a `sqlite:` URL when it does not exist (opening it would create it).
pub(crate) fn missing_sqlite_file(url: &str) -> Option<std::path::PathBuf> {
    let path = url.strip_prefix("sqlite:")?;
    let path = path.strip_prefix("//").unwrap_or(path);
    let path = path.split('?').next().unwrap_or(path);
    if path.is_empty() || path == ":memory:" || url.contains("mode=memory") {
        return None;
    }
    let path = std::path::PathBuf::from(path);
    (!path.exists()).then_some(path)
}
