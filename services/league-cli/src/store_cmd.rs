//! The event store's subcommands: `league migrate`, `league audit verify`,
//! `league bench store`. Each opens the log named by `--database` / `DATABASE_URL`
//! (default: the SQLite file `league.db`).

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use league_store::bench::{self, BenchSize};
use league_store::hash::from_hex;
use league_store::{Backend, Store, StoreOptions, VerifyingKey, backend_of, migrator};

/// Where the log lives.
#[derive(Args, Debug, Clone)]
pub struct DatabaseArgs {
    /// `sqlite:PATH` or `postgres://...`.
    #[arg(
        long = "database",
        env = "DATABASE_URL",
        default_value = "sqlite:league.db"
    )]
    pub url: String,
}

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
    /// hash chain or the tree breaks. Exits 1 if something is broken.
    Verify {
        #[command(flatten)]
        db: DatabaseArgs,
        /// First position to check.
        #[arg(long, default_value_t = 0)]
        from: u64,
        /// Last position to check.
        #[arg(long, default_value_t = u64::MAX)]
        to: u64,
        /// The league's Ed25519 public key (hex) to check signed tree heads against.
        #[arg(long, env = "LEAGUE_PUBLIC_KEY")]
        public_key: Option<String>,
    },
}

/// `league bench ...`.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Append and read rates of the event store next to a plain INSERT of the same rows.
    Store {
        /// Which database to measure. SQLite uses a scratch file in the working directory;
        /// PostgreSQL a scratch schema in `--database`; both are removed afterwards.
        #[arg(long, value_enum)]
        backend: BackendArg,
        /// The PostgreSQL server (ignored for SQLite).
        #[arg(long = "database", env = "DATABASE_URL")]
        url: Option<String>,
        /// Scale every case's work by this factor (1 = the documented run).
        #[arg(long, default_value_t = 1)]
        scale: u32,
    },
}

/// `--backend`.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum BackendArg {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, ExitCode> {
    tokio::runtime::Runtime::new().map_err(|e| {
        eprintln!("error: cannot start the async runtime: {e}");
        ExitCode::from(2)
    })
}

pub(crate) fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {e}");
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
    let AuditCommand::Verify {
        db,
        from,
        to,
        public_key,
    } = command;
    let key = match public_key.as_deref().map(parse_key).transpose() {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
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
        let report = store.verify(from, to, key.as_ref()).await;
        store.close().await;
        match report {
            Ok(r) => {
                println!("{r}");
                if r.first_break.is_some() {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => fail(e),
        }
    })
}

fn parse_key(hex: &str) -> Result<VerifyingKey, String> {
    let bytes = from_hex(hex).ok_or("the public key is not hex")?;
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| "the public key must be 32 bytes")?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| format!("invalid public key: {e}"))
}

/// `league bench ...`.
pub fn bench(command: BenchCommand) -> ExitCode {
    let BenchCommand::Store {
        backend,
        url,
        scale,
    } = command;
    let backend = match backend {
        BackendArg::Sqlite => Backend::Sqlite,
        BackendArg::Postgres => Backend::Postgres,
    };
    let d = BenchSize::default();
    let s = scale.max(1);
    let size = BenchSize {
        single: d.single * s,
        hundreds: d.hundreds * s,
        thousands: d.thousands * s,
        concurrent_each: d.concurrent_each * s,
        read_events: d.read_events * s,
    };
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(bench::run(backend, url.as_deref(), size)) {
        Ok(report) => {
            println!("{report}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
