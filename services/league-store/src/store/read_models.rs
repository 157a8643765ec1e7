//! Read models and snapshots: the documents a projection set folds from the log, the
//! snapshots of its streams, and the checkpoint they are stored with.

use super::{Db, Store, postgres, sqlite, to_i64, to_u64};
use crate::error::StoreError;

/// One read-model document: its kind (e.g. `tournament`), its key and its JSON bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadModelDoc {
    pub kind: String,
    pub key: String,
    pub doc: Vec<u8>,
}

/// A read-model document as a backend reads it: kind, key and JSON bytes.
pub(super) type DocRow = (String, String, Vec<u8>);

/// How [`Store::put_read_models`] moves a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointMove {
    /// Only forward: nothing is written at or behind the stored checkpoint.
    Forward,
    /// To the position given, whatever is stored.
    Replace,
}

/// A projection set's saved state of one stream at its checkpoint: the stream's version,
/// the format of `state` (the projector's to name and read) and its digest. A snapshot
/// with an empty `state` is deleted when written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub stream: String,
    pub version: u64,
    pub format: u32,
    pub state: Vec<u8>,
    pub digest: Vec<u8>,
}

/// A snapshot as a backend reads it: stream, version, format, state and digest.
pub(super) type SnapshotRow = (String, i64, i64, Vec<u8>, Vec<u8>);

impl Store {
    /// Upserts `docs` and `snapshots` of the projection set `projection` (a document with
    /// an empty `doc`, or a snapshot with an empty `state`, is deleted) and moves its
    /// checkpoint to `position`, in one transaction: a reader never sees documents or
    /// snapshots ahead of (or behind) the checkpoint they are stored with.
    ///
    /// With `CheckpointMove::Forward` nothing is written when the stored checkpoint is past
    /// `position` (answer `false`): with several instances each writing its own
    /// checkpoints, one that lags never writes older documents over newer ones. A writer
    /// that keeps what was not written for its next checkpoint keeps the stored set what
    /// one projector folded to the stored checkpoint: every stream changed up to it is
    /// written as of it. `CheckpointMove::Replace` writes in any case (a rebuild).
    pub async fn put_read_models(
        &self,
        projection: &str,
        (position, mode): (u64, CheckpointMove),
        docs: &[ReadModelDoc],
        snapshots: &[Snapshot],
    ) -> Result<bool, StoreError> {
        let position = to_i64(position);
        let forward = mode == CheckpointMove::Forward;
        match &self.inner.db {
            Db::Postgres(pool) => {
                postgres::put_read_models(pool, projection, (position, forward), docs, snapshots)
                    .await
            }
            Db::Sqlite(pool) => {
                sqlite::put_read_models(pool, projection, (position, forward), docs, snapshots)
                    .await
            }
        }
    }

    /// The checkpoint and every snapshot of a projection set, by stream.
    pub async fn read_snapshots(
        &self,
        projection: &str,
    ) -> Result<(Option<u64>, Vec<Snapshot>), StoreError> {
        let (position, rows) = match &self.inner.db {
            Db::Postgres(pool) => postgres::read_snapshots(pool, projection).await?,
            Db::Sqlite(pool) => sqlite::read_snapshots(pool, projection).await?,
        };
        let snapshots = rows
            .into_iter()
            .map(|(stream, version, format, state, digest)| {
                Ok(Snapshot {
                    stream,
                    version: to_u64("snapshot version", version)?,
                    format: u32::try_from(format).unwrap_or(u32::MAX),
                    state,
                    digest,
                })
            })
            .collect::<Result<_, StoreError>>()?;
        Ok((
            position.map(|p| to_u64("checkpoint", p)).transpose()?,
            snapshots,
        ))
    }

    /// The stored documents of kind `kind` under `keys`, in the order of `keys` (a key
    /// with no document is left out).
    pub async fn read_docs(
        &self,
        projection: &str,
        kind: &str,
        keys: &[&str],
    ) -> Result<Vec<ReadModelDoc>, StoreError> {
        let rows = match &self.inner.db {
            Db::Postgres(pool) => postgres::read_docs(pool, projection, kind, keys).await?,
            Db::Sqlite(pool) => sqlite::read_docs(pool, projection, kind, keys).await?,
        };
        Ok(rows
            .into_iter()
            .map(|(kind, key, doc)| ReadModelDoc { kind, key, doc })
            .collect())
    }

    /// The checkpoint and every document of a projection set, ordered by kind and key.
    pub async fn read_models(
        &self,
        projection: &str,
    ) -> Result<(Option<u64>, Vec<ReadModelDoc>), StoreError> {
        let (position, rows) = match &self.inner.db {
            Db::Postgres(pool) => postgres::read_models(pool, projection).await?,
            Db::Sqlite(pool) => sqlite::read_models(pool, projection).await?,
        };
        let docs = rows
            .into_iter()
            .map(|(kind, key, doc)| ReadModelDoc { kind, key, doc })
            .collect();
        Ok((position.map(|p| to_u64("checkpoint", p)).transpose()?, docs))
    }
}
