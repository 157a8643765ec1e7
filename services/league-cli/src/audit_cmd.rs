//! `league audit export`: the log's hands and tournaments written for other tools; `league
//! audit replay`: one tournament, or one cash table, as a person reads it.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use league_app::AppError;
use league_app::audit::{self, LoggedHand};
use league_store::{Store, StoreOptions, TreeHead};

use crate::config::DatabaseArgs;
use crate::store_cmd::{fail, runtime};

/// What `league audit export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One PHH file per completed hand: `OUT/<tournament>/<hand>.phh` (the hand's place
    /// among the tournament's hands, from 1), every card shown.
    Phh,
    /// PokerStars-style hand-history text, one file per tournament: `OUT/<tournament>.txt`.
    Pokerstars,
    /// Each tournament's entries, re-buys, places, prizes and league points:
    /// `OUT/summary.csv` (a row per place) and `OUT/summary.json`.
    Summary,
    /// The whole log for an auditor's own verifier (`tools/verify_log.py`): every event
    /// with every field its hash covers (`OUT/events.jsonl`), the seals
    /// (`OUT/seals.jsonl`) and the signed tree heads (`OUT/tree-heads.jsonl`).
    Log,
}

/// `league audit export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    // `id`: the global `--log-format`'s own id is `format`.
    #[arg(long = "format", id = "export_format", value_enum)]
    format: Format,
    /// Only this tournament (its id).
    #[arg(long)]
    tournament: Option<String>,
    /// The folder to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
}

/// `league audit replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    /// The tournament's id.
    #[arg(
        long,
        required_unless_present = "cash_table",
        conflicts_with = "cash_table"
    )]
    tournament: Option<String>,
    /// A cash table's id, instead of a tournament.
    #[arg(long)]
    cash_table: Option<String>,
}

pub fn replay(args: &ReplayArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let store = match open(&args.db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let (text, what) = match (&args.tournament, &args.cash_table) {
            (Some(id), _) => (
                league_app::replay::replay(&store, id).await,
                format!("tournament {id:?}"),
            ),
            (None, Some(id)) => (
                league_app::replay::replay_cash(&store, id).await,
                format!("cash table {id:?}"),
            ),
            (None, None) => (Ok(None), "tournament or cash table".to_owned()),
        };
        store.close().await;
        match text {
            Ok(Some(text)) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Ok(None) => fail(format!("the log holds no {what}")),
            Err(e) => fail(e),
        }
    })
}

/// The store at `db`, opened to read: no migrations.
async fn open(db: &DatabaseArgs) -> Result<Store, ExitCode> {
    refuse_missing(&db.url)?;
    let options = StoreOptions {
        migrate: false,
        ..StoreOptions::default()
    };
    Store::open_with(&db.url, options).await.map_err(fail)
}

pub fn export(args: &ExportArgs) -> ExitCode {
    if args.format == Format::Log && args.tournament.is_some() {
        return fail(
            "--format log exports the whole log (its tree covers every stream): leave out --tournament",
        );
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        return fail(format!(
            "cannot create the output folder {}: {e}",
            args.out.display()
        ));
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let store = match open(&args.db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let outcome = run(&store, args).await;
        store.close().await;
        match outcome {
            Ok(line) => {
                println!("{line}");
                ExitCode::SUCCESS
            }
            Err(Failed::NotFound(id)) => fail(format!("the log holds no tournament {id:?}")),
            Err(Failed::App(e)) => fail(e),
            Err(Failed::Io(path, e)) => fail(format!("{}: {e}", path.display())),
        }
    })
}

enum Failed {
    NotFound(String),
    App(AppError),
    Io(PathBuf, std::io::Error),
}

/// Counts of what was written.
#[derive(Default)]
struct Written {
    hands: u64,
    voided: u64,
    /// Hands with a killed hand PHH cannot record (after its last action): no PHH form.
    killed: u64,
    files: u64,
}

async fn run(store: &Store, args: &ExportArgs) -> Result<String, Failed> {
    let out = &args.out;
    if args.format == Format::Log {
        return export_log(store, out).await;
    }
    let mut written = Written::default();
    let mut io_error: Option<(PathBuf, std::io::Error)> = None;
    let mut seen: HashSet<String> = HashSet::new();
    let findings = audit::read_log(store, args.tournament.as_deref(), |hand| {
        if io_error.is_some() {
            return Ok(());
        }
        if hand.voided() {
            written.voided += 1;
            return Ok(());
        }
        let result = match args.format {
            Format::Phh if hand.phh_cannot_record_its_kills() => {
                written.killed += 1;
                return Ok(());
            }
            Format::Phh => {
                let text = hand.phh().map_err(|e| hand_error(&hand, &e))?;
                write_phh(out, &hand, &text)
            }
            Format::Pokerstars => {
                // One file per tournament; hands of several tournaments interleave in
                // the log, so each tournament's text is appended as it comes.
                let text = hand.pokerstars().map_err(|e| hand_error(&hand, &e))?;
                let file = out.join(format!("{}.txt", audit::file_name(&hand.tournament)));
                let fresh = seen.insert(hand.tournament.clone());
                append(&file, &text, fresh)
            }
            Format::Summary | Format::Log => Ok(()),
        };
        match result {
            Ok(()) => written.hands += 1,
            Err(e) => io_error = Some(e),
        }
        Ok(())
    })
    .await
    .map_err(Failed::App)?;
    if let Some((path, e)) = io_error {
        return Err(Failed::Io(path, e));
    }
    if let Some(id) = &args.tournament
        && !findings.summaries.contains_key(id)
        && !(id.starts_with(league_events::StreamKind::Cash.prefix()) && findings.cash_tables > 0)
    {
        return Err(Failed::NotFound(id.clone()));
    }
    let tournaments = count(findings.summaries.len(), "tournament", "tournaments");
    let tournaments = match findings.cash_tables {
        0 => tournaments,
        cash => format!(
            "{tournaments} and {}",
            count(cash, "cash table", "cash tables")
        ),
    };
    let mut skipped = format!(
        "{} no hand-history form; {} still running {} left out",
        count(written.voided, "voided hand has", "voided hands have"),
        count(findings.unfinished_hands, "hand", "hands"),
        if findings.unfinished_hands == 1 {
            "was"
        } else {
            "were"
        },
    );
    if written.killed > 0 {
        let _ = write!(
            skipped,
            "; {} a hand killed by the floor that PHH cannot record, left out",
            count(written.killed, "hand with", "hands with"),
        );
    }
    match args.format {
        Format::Phh => {
            written.files = written.hands;
            Ok(format!(
                "wrote {} ({tournaments}) to {}; {skipped}",
                count(written.files, "PHH file", "PHH files"),
                out.display()
            ))
        }
        Format::Pokerstars => Ok(format!(
            "wrote {} of {tournaments} as PokerStars text to {}; {skipped}",
            count(written.hands, "hand", "hands"),
            out.display()
        )),
        // Written above, before the hands are read.
        Format::Log => Ok(String::new()),
        Format::Summary => {
            let csv = out.join("summary.csv");
            std::fs::write(&csv, audit::summary_csv(&findings.summaries))
                .map_err(|e| Failed::Io(csv.clone(), e))?;
            let json = out.join("summary.json");
            let list: Vec<&audit::TournamentSummary> = findings.summaries.values().collect();
            let text = serde_json::to_string_pretty(&list)
                .map_err(|e| Failed::App(AppError::Encode(e)))?;
            std::fs::write(&json, text + "\n").map_err(|e| Failed::Io(json.clone(), e))?;
            Ok(format!(
                "wrote the summary of {tournaments} tournaments to {} and {}",
                csv.display(),
                json.display()
            ))
        }
    }
}

/// `--format log`: the three files, each written whole or reported.
async fn export_log(store: &Store, out: &Path) -> Result<String, Failed> {
    use std::io::{BufWriter, Write as _};
    let create = |name: &str| {
        let path = out.join(name);
        std::fs::File::create(&path)
            .map(BufWriter::new)
            .map_err(|e| Failed::Io(path, e))
    };
    let (mut events, mut seals, mut heads) = (
        create("events.jsonl")?,
        create("seals.jsonl")?,
        create("tree-heads.jsonl")?,
    );
    let written = store
        .export_log(&mut events, &mut seals, &mut heads)
        .await
        .map_err(|e| Failed::App(AppError::Store(e)))?;
    for (name, file) in [
        ("events.jsonl", &mut events),
        ("seals.jsonl", &mut seals),
        ("tree-heads.jsonl", &mut heads),
    ] {
        file.flush().map_err(|e| Failed::Io(out.join(name), e))?;
    }
    Ok(format!(
        "wrote {} events, {} seals and {} signed tree heads to {} (events.jsonl, seals.jsonl, tree-heads.jsonl)",
        written.events,
        written.seals,
        written.tree_heads,
        out.display()
    ))
}

fn hand_error(hand: &LoggedHand, why: &str) -> AppError {
    AppError::Other(format!(
        "the hand at position {} (tournament {}, table {}): {why}",
        hand.position, hand.tournament, hand.table
    ))
}

fn write_phh(out: &Path, hand: &LoggedHand, text: &str) -> Result<(), (PathBuf, std::io::Error)> {
    let dir = out.join(audit::file_name(&hand.tournament));
    std::fs::create_dir_all(&dir).map_err(|e| (dir.clone(), e))?;
    let file = dir.join(format!("{:05}.phh", hand.ordinal));
    std::fs::write(&file, text).map_err(|e| (file, e))
}

/// `n` and the word for that many (`one` for exactly one).
fn count(n: impl TryInto<u64>, one: &str, many: &str) -> String {
    let n: u64 = n.try_into().unwrap_or(u64::MAX);
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Appends one hand's text to a tournament's file (hands apart by two blank lines, as the
/// format's readers split them); `fresh` truncates the file first.
fn append(file: &Path, text: &str, fresh: bool) -> Result<(), (PathBuf, std::io::Error)> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(!fresh)
        .write(true)
        .truncate(fresh)
        .open(file)
        .map_err(|e| (file.to_owned(), e))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.write_all(b"\n\n\n"))
        .map_err(|e| (file.to_owned(), e))
}

/// Refuses an SQLite file that is not there: opening it would create an empty database,
/// and an audit must change nothing (nor answer on a log that is not the one meant).
pub(crate) fn refuse_missing(url: &str) -> Result<(), ExitCode> {
    match crate::store_cmd::missing_sqlite_file(url) {
        Some(path) => Err(fail(format!(
            "no database at {}: nothing to audit",
            path.display()
        ))),
        None => Ok(()),
    }
}

/// `league audit tree-head`.
#[derive(Args, Debug)]
pub struct TreeHeadArgs {
    #[command(flatten)]
    db: DatabaseArgs,
    /// Every signed head, smallest first, one per line (default: the latest only).
    #[arg(long)]
    all: bool,
    /// Write to this file instead of stdout (replacing it).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `league audit tree-head`: the signed tree heads as JSON lines, to keep outside the
/// database and check the log against later (`league audit verify --tree-head FILE`).
pub fn tree_head(args: &TreeHeadArgs) -> ExitCode {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    rt.block_on(async {
        let store = match open(&args.db).await {
            Ok(s) => s,
            Err(code) => return code,
        };
        let heads = store.tree_heads().await;
        store.close().await;
        let heads = match heads {
            Ok(h) => h,
            Err(e) => return fail(e),
        };
        let chosen: Vec<&TreeHead> = if args.all {
            heads.iter().collect()
        } else {
            heads.last().into_iter().collect()
        };
        if chosen.is_empty() {
            return fail(
                "the log has no signed tree head (heads are signed by `league serve --signing-key`)",
            );
        }
        let mut text = String::new();
        for h in chosen {
            text.push_str(&h.to_json());
            text.push('\n');
        }
        match &args.out {
            None => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Some(file) => match std::fs::write(file, text) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(format!("{}: {e}", file.display())),
            },
        }
    })
}

/// Opens `file` to append the heads the sealer signs, one JSON line each, synced to disk;
/// first the store's latest head, unless the file already ends with it. Fails now, at
/// start-up, if the file cannot be written.
pub async fn publish_heads(
    store: &Store,
    file: &Path,
) -> Result<tokio::sync::mpsc::UnboundedSender<TreeHead>, String> {
    let shown = file.display().to_string();
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .map_err(|e| format!("--publish-tree-heads {shown}: {e}"))?;
    let last_saved = last_line(file).map_err(|e| format!("--publish-tree-heads {shown}: {e}"))?;
    let latest = store.tree_heads().await.map_err(|e| e.to_string())?.pop();
    if let Some(head) = latest {
        let line = head.to_json();
        if last_saved.as_deref() != Some(line.as_str()) {
            write_head(&mut out, &line).map_err(|e| format!("{shown}: {e}"))?;
        }
    }
    let (sender, mut heads) = tokio::sync::mpsc::unbounded_channel::<TreeHead>();
    tokio::spawn(async move {
        let out = std::sync::Arc::new(std::sync::Mutex::new(out));
        while let Some(head) = heads.recv().await {
            let out = out.clone();
            let line = head.to_json();
            let written = tokio::task::spawn_blocking(move || match out.lock() {
                Ok(mut f) => write_head(&mut f, &line),
                Err(_) => Err(std::io::Error::other("the file's lock was poisoned")),
            })
            .await;
            match written {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::error!(
                    "could not publish the tree head of {} events to {shown}: {e}",
                    head.tree_size
                ),
                Err(e) => tracing::error!("publishing a tree head to {shown} failed: {e}"),
            }
        }
    });
    Ok(sender)
}

fn write_head(out: &mut std::fs::File, line: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    out.write_all(format!("{line}\n").as_bytes())?;
    out.sync_data()
}

/// The last non-empty line of a file (read from its end: a published file grows for years).
fn last_line(file: &Path) -> std::io::Result<Option<String>> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    let mut f = std::fs::File::open(file)?;
    let len = f.seek(SeekFrom::End(0))?;
    let start = len.saturating_sub(4096);
    f.seek(SeekFrom::Start(start))?;
    let mut tail = String::new();
    f.read_to_string(&mut tail)?;
    Ok(tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(str::to_owned))
}
