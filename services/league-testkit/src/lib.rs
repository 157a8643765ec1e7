//! Fixtures for the tests and benchmarks of the league's crates; no product crate depends
//! on this one.
//!
//! - [`Scratch`]: a fresh database of either backend (a new SQLite file in the working
//!   directory, or a new schema in a PostgreSQL database), dropped with
//!   [`Scratch::drop_it`].
//! - [`ScratchDatabase`]: a fresh PostgreSQL database of its own, for processes that
//!   take only a URL.
//! - [`fill`]: appends many small events to one stream, to give a log its size.
//! - [`read_whole_log_in_pages`]: reads a whole log page by page, as a catching-up reader.

use std::str::FromStr as _;

use league_store::{Backend, ExpectedVersion, NewEvent, Store, StoreError, StoreOptions};
use sqlx::postgres::PgConnectOptions;
use sqlx::{AssertSqlSafe, ConnectOptions as _, Connection as _};

/// A payload of the size and shape of a table action.
pub const PAYLOAD: &str = r#"{"hand":123456,"seat":4,"action":"raise","amount":1200,"to":3600,"table":"t-17","street":"flop"}"#;

/// `n` events of [`PAYLOAD`]'s size and shape.
pub fn events(n: u32) -> Vec<NewEvent> {
    (0..n)
        .map(|_| NewEvent::new("PlayerRaised", PAYLOAD.as_bytes().to_vec()))
        .collect()
}

/// A fresh SQLite file or a fresh schema in the given PostgreSQL database; removed
/// afterwards ([`Scratch::drop_it`]).
pub struct Scratch {
    url: String,
    schema: Option<String>,
    file: Option<std::path::PathBuf>,
}

impl Scratch {
    /// A new, empty database of `backend`. PostgreSQL needs `database_url` (a
    /// `postgres://` URL; a schema named after the process and the time is created in it).
    pub async fn new(backend: Backend, database_url: Option<&str>) -> Result<Self, StoreError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let tag = format!("league_scratch_{}_{nanos}", std::process::id());
        match backend {
            Backend::Sqlite => {
                // In the working directory, not /tmp: /tmp may be a RAM disk, which would
                // flatter every SQLite figure.
                let file = std::path::PathBuf::from(format!("{tag}.db"));
                remove_sqlite(&file);
                Ok(Self {
                    url: format!("sqlite:{}", file.display()),
                    schema: None,
                    file: Some(file),
                })
            }
            Backend::Postgres => {
                let url = database_url
                    .filter(|u| league_store::backend_of(u).ok() == Some(Backend::Postgres))
                    .ok_or_else(|| {
                        StoreError::UnsupportedUrl(
                            "a PostgreSQL scratch database needs a postgres:// URL".into(),
                        )
                    })?
                    .to_owned();
                let mut conn = PgConnectOptions::from_str(&url)?.connect().await?;
                sqlx::raw_sql(AssertSqlSafe(format!(
                    "DROP SCHEMA IF EXISTS {tag} CASCADE; CREATE SCHEMA {tag}"
                )))
                .execute(&mut conn)
                .await?;
                conn.close().await?;
                Ok(Self {
                    url,
                    schema: Some(tag),
                    file: None,
                })
            }
        }
    }

    /// The database's URL (for PostgreSQL, the server's; see [`Scratch::schema`]).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// PostgreSQL: the scratch schema, which [`StoreOptions::pg_schema`] must name.
    pub fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
    }

    /// Store options that open this scratch database (`pg_schema` set), the rest default.
    pub fn options(&self) -> StoreOptions {
        StoreOptions {
            pg_schema: self.schema.clone(),
            ..StoreOptions::default()
        }
    }

    /// Opens the scratch store (migrated).
    pub async fn open(&self) -> Result<Store, StoreError> {
        Store::open_with(&self.url, self.options()).await
    }

    /// Drops the schema or deletes the file (with its WAL files).
    pub async fn drop_it(&self) {
        if let Some(schema) = &self.schema
            && let Ok(opts) = PgConnectOptions::from_str(&self.url)
            && let Ok(mut conn) = opts.connect().await
        {
            let _ = sqlx::raw_sql(AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
                .execute(&mut conn)
                .await;
        }
        if let Some(file) = &self.file {
            remove_sqlite(file);
        }
    }
}

/// A fresh PostgreSQL database of its own (not a schema in a shared one), for processes
/// that take only a URL (`league serve --database`): [`ScratchDatabase::url`] names it;
/// dropped, whoever is still connected, by [`ScratchDatabase::drop_it`].
pub struct ScratchDatabase {
    server: String,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// Creates it on the server of `server_url` (a `postgres://` URL of any database there).
    pub async fn new(server_url: &str) -> Result<Self, StoreError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!("league_scratch_{}_{nanos}", std::process::id());
        let mut conn = PgConnectOptions::from_str(server_url)?.connect().await?;
        sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await?;
        conn.close().await?;
        let url = PgConnectOptions::from_str(server_url)?
            .database(&name)
            .to_url_lossy()
            .to_string();
        Ok(Self {
            server: server_url.to_owned(),
            name,
            url,
        })
    }

    /// The new database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Drops it, closing whatever connections remain.
    pub async fn drop_it(&self) {
        if let Ok(opts) = PgConnectOptions::from_str(&self.server)
            && let Ok(mut conn) = opts.connect().await
        {
            let _ = sqlx::raw_sql(AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            )))
            .execute(&mut conn)
            .await;
        }
    }
}

fn remove_sqlite(file: &std::path::Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

/// Appends `count` of [`events`] to the new stream `fill`, in batches of 1,000.
pub async fn fill(store: &Store, count: u32) -> Result<(), StoreError> {
    let big = events(1000);
    let mut left = count;
    let mut version = 0;
    while left > 0 {
        let n = left.min(1000);
        let slice = big.get(..usize::try_from(n).unwrap_or(0)).unwrap_or(&big);
        let expected = if version == 0 {
            ExpectedVersion::NoStream
        } else {
            ExpectedVersion::Exact(version)
        };
        version = store
            .append("fill", expected, slice, None)
            .await?
            .last_version;
        left -= n;
    }
    Ok(())
}

/// Reads the whole log with `read_all` in pages of `page`; returns the number of events.
pub async fn read_whole_log_in_pages(store: &Store, page: usize) -> Result<u32, StoreError> {
    let mut next = 0;
    let mut count = 0u32;
    loop {
        let events = store.read_all(next, page).await?;
        let Some(last) = events.last() else {
            return Ok(count);
        };
        next = last.position + 1;
        count += u32::try_from(events.len()).unwrap_or(0);
    }
}
