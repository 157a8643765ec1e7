//! The releases that have appended to the log (migration 0005): each build records its own
//! before its first append, and refuses to append to a log that a newer release has appended
//! to, since that release may have written event versions this one cannot read back.

use std::fmt;

use super::Db;
use crate::error::StoreError;
use crate::types::Timestamp;

/// This build's release: the workspace's semantic version.
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// A release's `major.minor.patch` (a pre-release or build suffix is not compared).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Release {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl Release {
    /// Reads `major.minor.patch`, ignoring a `-pre` or `+build` suffix.
    pub fn parse(text: &str) -> Option<Release> {
        let core = text.split(['-', '+']).next()?;
        let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
        let release = Release {
            major: parts.next()??,
            minor: parts.next()??,
            patch: parts.next()??,
        };
        parts.next().is_none().then_some(release)
    }

    /// This build's release.
    pub fn this() -> Release {
        // The workspace's version is always `major.minor.patch`; a test checks it.
        Release::parse(RELEASE).unwrap_or(Release {
            major: 0,
            minor: 0,
            patch: 0,
        })
    }
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

const NEWEST: &str = "SELECT release, major, minor, patch FROM releases \
    ORDER BY major DESC, minor DESC, patch DESC LIMIT 1";

const RECORD: &str = "INSERT INTO releases (release, major, minor, patch, first_appended_at) \
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (release) DO NOTHING";

const ALL: &str = "SELECT release, first_appended_at FROM releases \
    ORDER BY major, minor, patch, release";

type Row = (String, i64, i64, i64);

/// The newest release that has appended to the log, when it is newer than this build.
pub(super) async fn newer_than_this(db: &Db) -> Result<Option<String>, StoreError> {
    let row: Option<Row> = match db {
        Db::Sqlite(pool) => sqlx::query_as(NEWEST).fetch_optional(pool).await?,
        Db::Postgres(pool) => sqlx::query_as(NEWEST).fetch_optional(pool).await?,
    };
    let newer = row.and_then(|(text, major, minor, patch)| {
        let stored = Release {
            major: u64::try_from(major).ok()?,
            minor: u64::try_from(minor).ok()?,
            patch: u64::try_from(patch).ok()?,
        };
        (stored > Release::this()).then_some(text)
    });
    Ok(newer)
}

/// Records this build's release as one that appends to the log (once; later calls keep the
/// first time).
pub(super) async fn record_this(db: &Db, now: Timestamp) -> Result<(), StoreError> {
    let this = Release::this();
    let part = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let (major, minor, patch) = (part(this.major), part(this.minor), part(this.patch));
    match db {
        Db::Sqlite(pool) => {
            sqlx::query(RECORD)
                .bind(RELEASE)
                .bind(major)
                .bind(minor)
                .bind(patch)
                .bind(now.as_micros())
                .execute(pool)
                .await?
        }
        .rows_affected(),
        Db::Postgres(pool) => {
            sqlx::query(RECORD)
                .bind(RELEASE)
                .bind(major)
                .bind(minor)
                .bind(patch)
                .bind(now.as_micros())
                .execute(pool)
                .await?
        }
        .rows_affected(),
    };
    Ok(())
}

/// Every release that has appended to the log, oldest first, with when it first did.
pub(super) async fn all(db: &Db) -> Result<Vec<(String, Timestamp)>, StoreError> {
    let rows: Vec<(String, i64)> = match db {
        Db::Sqlite(pool) => sqlx::query_as(ALL).fetch_all(pool).await?,
        Db::Postgres(pool) => sqlx::query_as(ALL).fetch_all(pool).await?,
    };
    Ok(rows
        .into_iter()
        .map(|(release, at)| (release, Timestamp::from_micros(at)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_compare_by_their_numbers() {
        let this = Release::parse(RELEASE).expect("the workspace's version is major.minor.patch");
        assert_eq!(this.to_string(), RELEASE.split(['-', '+']).next().unwrap());
        let v = |s| Release::parse(s).unwrap();
        assert!(v("0.10.0") > v("0.9.7"));
        assert!(v("1.0.0") > v("0.99.99"));
        assert!(v("0.2.1") > v("0.2.0"));
        assert_eq!(v("1.2.3-rc.1"), v("1.2.3"));
        assert_eq!(v("1.2.3+build.5"), v("1.2.3"));
        for bad in ["", "1", "1.2", "1.2.x", "1.2.3.4", "a.b.c", "-1.0.0"] {
            assert_eq!(Release::parse(bad), None, "{bad}");
        }
    }
}
