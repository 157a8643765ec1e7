//! PostgreSQL reads of the global log through `COPY (SELECT ...) TO STDOUT (FORMAT binary)`.
//!
//! Used by `read_log`, the four-column read that rebuilds fold, and by `read_all`'s large
//! pages (whole events). The same query as a row-by-row `SELECT`, but the rows arrive as
//! PostgreSQL's binary copy format and are split here directly into log entries or events,
//! without building a row object and decoding each column through it (most of the client's
//! cost of such a read). `COPY` takes no bind parameters: the only values in its statements
//! are integers formatted by us.
//!
//! The format (PostgreSQL's documentation, "COPY", "Binary Format"): an 11-byte signature,
//! a 32-bit flags field and a 32-bit header-extension length followed by that many bytes;
//! then per row a 16-bit field count and per field a 32-bit length (-1 for NULL) and the
//! value in its type's binary form (`bigint`: 8 bytes; `text`: its UTF-8 bytes; `bytea`:
//! its bytes); a field count of -1 ends the data. All integers are big-endian.

use std::sync::Arc;

use futures_util::TryStreamExt as _;
use sqlx::pool::PoolConnection;
use sqlx::{PgPool, Postgres};

use crate::error::StoreError;
use crate::pg_warm::WarmConnections;
use crate::store::{EVENT_COLUMNS, LogEntry, StreamIds, to_hash, to_u64};
use crate::types::{RecordedEvent, Timestamp};

const SIGNATURE: &[u8; 11] = b"PGCOPY\n\xff\r\n\0";

/// Below the commit horizon: only events no reader can later see appear before them.
const HORIZON: &str = "position < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)";

/// The rows of `read_log`: `position >= from`, below the commit horizon, in order.
/// A `COPY` is planned with its real bounds each time: a generic plan for `position >= $1
/// ... LIMIT $2` may sort the whole table for every page (seen right after a bulk load).
fn log_statement(from: u64, limit: usize) -> String {
    let from = i64::try_from(from).unwrap_or(i64::MAX);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    format!(
        "COPY (SELECT position, stream_id, stream_version, payload FROM events \
         WHERE position >= {from} AND {HORIZON} \
         ORDER BY position LIMIT {limit}) TO STDOUT (FORMAT binary)"
    )
}

/// `read_all`'s rows: every column of an event (`EVENT_COLUMNS`), up to `limit` from the
/// event `skip` events after the first at or after `from`, below the commit horizon.
///
/// With a `skip` (the second half of a large page), the start is found where the log is
/// sealed by the Merkle tree's leaves, which number the sealed log densely (the function
/// `sealed_position_after`, in `migrations/postgres/0004_seals_by_position.sql`), and
/// otherwise by an index scan that skips `skip` rows, reading each skipped row's heap tuple
/// wherever the visibility map is not set (on a server without autovacuum, everywhere).
/// The skip, an init plan, runs only if the sealed start is NULL.
pub(crate) fn events_statement(from: u64, skip: usize, limit: usize) -> String {
    let from = i64::try_from(from).unwrap_or(i64::MAX);
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let start = if skip == 0 {
        format!("position >= {from}")
    } else {
        format!(
            "position >= COALESCE(sealed_position_after({from}, {skip}), \
             (SELECT position FROM events WHERE position >= {from} AND {HORIZON} \
              ORDER BY position OFFSET {skip} LIMIT 1))"
        )
    };
    format!(
        "COPY (SELECT {EVENT_COLUMNS} FROM events WHERE {start} AND {HORIZON} \
         ORDER BY position LIMIT {limit}) TO STDOUT (FORMAT binary)"
    )
}

/// Runs `statement` (of [`events_statement`]) on `conn` and splits its binary copy into
/// events appended to `out`, checked as sqlx's row decoding checks them: types by their
/// binary lengths, text as UTF-8, NULL only where the column allows it. Returns the
/// connection once the copy is read to its end.
pub(crate) async fn read_events(
    conn: PoolConnection<Postgres>,
    statement: &str,
    out: &mut Vec<RecordedEvent>,
) -> Result<PoolConnection<Postgres>, StoreError> {
    copy_rows(conn, statement, 13, |row| {
        let position = to_u64("position", row.int8()?)?;
        let stream_id = row.text()?.to_owned();
        let stream_version = to_u64("stream version", row.int8()?)?;
        let event_type = row.text()?.to_owned();
        let schema_version = row.int4()?;
        out.push(RecordedEvent {
            position,
            stream_id,
            stream_version,
            event_type,
            schema_version: u32::try_from(schema_version)
                .map_err(|_| StoreError::Corrupt(format!("schema version {schema_version}")))?,
            payload: row.bytes()?.to_vec(),
            actor: row.opt_text()?,
            correlation_id: row.opt_text()?,
            causation_id: row.opt_text()?,
            idempotency_key: row.opt_text()?,
            recorded_at: Timestamp::from_micros(row.int8()?),
            prev_hash: to_hash("prev_hash", row.bytes()?)?,
            hash: to_hash("hash", row.bytes()?)?,
        });
        Ok(())
    })
    .await
}

/// Up to `limit` log entries (what a projection folds) from `from` on, in global order, into
/// `out`, on a warm connection if one is kept (`pg_warm`).
pub(crate) async fn read_log(
    pool: &PgPool,
    warm: &Arc<WarmConnections>,
    from: u64,
    limit: usize,
    out: &mut Vec<LogEntry>,
) -> Result<(), StoreError> {
    let mut streams = StreamIds::default();
    let conn = warm.acquire(pool).await?;
    let conn = copy_rows(conn, &log_statement(from, limit), 4, |row| {
        out.push(LogEntry {
            position: to_u64("position", row.int8()?)?,
            stream_id: streams.get(row.text()?),
            stream_version: to_u64("stream version", row.int8()?)?,
            payload: bytes::Bytes::copy_from_slice(row.bytes()?),
        });
        Ok(())
    })
    .await?;
    warm.give_back(pool, conn);
    Ok(())
}

/// Runs a `COPY ... TO STDOUT (FORMAT binary)` on `conn` and hands each row of `fields`
/// fields to `row` as it arrives; returns the connection once the copy is read to its end.
///
/// A connection whose copy was cut short (an error, a bad row, or this future dropped by a
/// caller that gave up) is closed: sqlx would hand it back to the pool with the rest of the
/// copy unread, and the next query on it would fail ("expected ..., got CopyData").
async fn copy_rows(
    conn: PoolConnection<Postgres>,
    statement: &str,
    fields: i16,
    mut row: impl FnMut(&mut Fields<'_>) -> Result<(), StoreError>,
) -> Result<PoolConnection<Postgres>, StoreError> {
    let mut copy = CopyConnection { conn: Some(conn) };
    let conn = copy.conn.as_mut().ok_or_else(|| corrupt("no connection"))?;
    let mut chunks = conn.copy_out_raw(statement).await?;
    let mut rows = CopyRows::new(fields);
    while let Some(chunk) = chunks.try_next().await? {
        rows.push(&chunk, &mut row)?;
    }
    rows.finish()?;
    drop(chunks);
    copy.conn.take().ok_or_else(|| corrupt("no connection"))
}

/// A connection running a copy: closed if dropped before the copy was read to its end (it is
/// taken out once it was).
struct CopyConnection {
    conn: Option<PoolConnection<Postgres>>,
}

impl Drop for CopyConnection {
    fn drop(&mut self) {
        if let Some(conn) = &mut self.conn {
            conn.close_on_drop();
        }
    }
}

/// Splits binary copy data into rows, whatever chunks it arrives in.
struct CopyRows {
    fields: i16,
    /// Received bytes not yet split into rows: a chunk is usually one whole row, but the
    /// protocol does not promise it.
    pending: Vec<u8>,
    header_read: bool,
    ended: bool,
}

impl CopyRows {
    fn new(fields: i16) -> Self {
        CopyRows {
            fields,
            pending: Vec::new(),
            header_read: false,
            ended: false,
        }
    }

    /// Adds a chunk and hands every row it completes to `row`. Rows that lie whole in the
    /// chunk (almost all: the server sends a row a message) are read where they lie; only a
    /// row cut between chunks is gathered in `pending`.
    fn push(
        &mut self,
        chunk: &[u8],
        row: &mut impl FnMut(&mut Fields<'_>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        if self.ended && !chunk.is_empty() {
            return Err(corrupt("data after the end marker"));
        }
        if self.pending.is_empty() {
            let used = self.split(chunk, row)?;
            self.pending.extend_from_slice(&chunk[used..]);
        } else {
            let mut pending = std::mem::take(&mut self.pending);
            pending.extend_from_slice(chunk);
            let used = self.split(&pending, row)?;
            pending.drain(..used);
            self.pending = pending;
        }
        if self.ended && !self.pending.is_empty() {
            return Err(corrupt("data after the end marker"));
        }
        Ok(())
    }

    /// Hands every whole row at the start of `data` to `row` (the header first, once);
    /// returns the bytes used.
    fn split(
        &mut self,
        data: &[u8],
        row: &mut impl FnMut(&mut Fields<'_>) -> Result<(), StoreError>,
    ) -> Result<usize, StoreError> {
        let mut at = 0;
        if !self.header_read {
            let Some(len) = header_len(data)? else {
                return Ok(0);
            };
            at = len;
            self.header_read = true;
        }
        while let Some(&[a, b]) = data.get(at..at + 2) {
            let count = i16::from_be_bytes([a, b]);
            if count == -1 {
                self.ended = true;
                at += 2;
                break;
            }
            if count != self.fields {
                return Err(corrupt(&format!("{count} fields, not {}", self.fields)));
            }
            let Some(len) = row_len(&data[at + 2..], count) else {
                break;
            };
            let mut fields = Fields {
                rest: &data[at + 2..at + 2 + len],
            };
            row(&mut fields)?;
            if !fields.rest.is_empty() {
                return Err(corrupt("row has unread fields"));
            }
            at += 2 + len;
        }
        Ok(at)
    }

    /// Fails unless the data ended with its end marker.
    fn finish(self) -> Result<(), StoreError> {
        if !self.ended || !self.pending.is_empty() {
            return Err(corrupt("copy data cut short"));
        }
        Ok(())
    }
}

/// The header's length, once `data` holds all of it.
fn header_len(data: &[u8]) -> Result<Option<usize>, StoreError> {
    let Some(fixed) = data.get(..19) else {
        return Ok(None);
    };
    if &fixed[..11] != SIGNATURE {
        return Err(corrupt("not binary copy data"));
    }
    let ext = u32::from_be_bytes([fixed[15], fixed[16], fixed[17], fixed[18]]);
    let len = 19 + usize::try_from(ext).map_err(|_| corrupt("header extension"))?;
    Ok((data.len() >= len).then_some(len))
}

/// The length of a row's `fields` fields at the start of `data`, if they are all there.
fn row_len(data: &[u8], fields: i16) -> Option<usize> {
    let mut at = 0usize;
    for _ in 0..fields {
        let &[a, b, c, d] = data.get(at..at + 4)? else {
            return None;
        };
        at += 4;
        let len = i32::from_be_bytes([a, b, c, d]);
        // -1 is NULL; other negative lengths never occur and are refused when read.
        at += usize::try_from(len).unwrap_or(0);
    }
    (at <= data.len()).then_some(at)
}

fn utf8(field: &[u8]) -> Result<&str, StoreError> {
    std::str::from_utf8(field).map_err(|_| corrupt("text is not UTF-8"))
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("copy read: {what}"))
}

/// The fields of one row, read in order.
struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    /// The next field: `None` for NULL.
    fn next(&mut self) -> Result<Option<&'a [u8]>, StoreError> {
        let Some((&[a, b, c, d], rest)) = self.rest.split_first_chunk::<4>() else {
            return Err(corrupt("row cut short"));
        };
        let len = i32::from_be_bytes([a, b, c, d]);
        if len == -1 {
            self.rest = rest;
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| corrupt("negative length"))?;
        if len > rest.len() {
            return Err(corrupt("field cut short"));
        }
        let (field, rest) = rest.split_at(len);
        self.rest = rest;
        Ok(Some(field))
    }

    fn bytes(&mut self) -> Result<&'a [u8], StoreError> {
        self.next()?
            .ok_or_else(|| corrupt("NULL in a NOT NULL column"))
    }

    fn int8(&mut self) -> Result<i64, StoreError> {
        let field = self.bytes()?;
        <[u8; 8]>::try_from(field)
            .map(i64::from_be_bytes)
            .map_err(|_| corrupt("bigint is not 8 bytes"))
    }

    fn int4(&mut self) -> Result<i32, StoreError> {
        let field = self.bytes()?;
        <[u8; 4]>::try_from(field)
            .map(i32::from_be_bytes)
            .map_err(|_| corrupt("integer is not 4 bytes"))
    }

    fn text(&mut self) -> Result<&'a str, StoreError> {
        utf8(self.bytes()?)
    }

    /// A nullable text column, owned.
    fn opt_text(&mut self) -> Result<Option<String>, StoreError> {
        self.next()?.map(|b| utf8(b).map(str::to_owned)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Binary copy data as PostgreSQL writes it, with a header extension of `ext` bytes.
    fn encode(rows: &[Vec<Option<Vec<u8>>>], ext: usize) -> Vec<u8> {
        let mut out = SIGNATURE.to_vec();
        out.extend(0u32.to_be_bytes());
        out.extend(u32::try_from(ext).unwrap().to_be_bytes());
        out.extend(vec![7u8; ext]);
        for row in rows {
            out.extend(i16::try_from(row.len()).unwrap().to_be_bytes());
            for field in row {
                match field {
                    None => out.extend((-1i32).to_be_bytes()),
                    Some(bytes) => {
                        out.extend(i32::try_from(bytes.len()).unwrap().to_be_bytes());
                        out.extend(bytes);
                    }
                }
            }
        }
        out.extend((-1i16).to_be_bytes());
        out
    }

    fn sample() -> Vec<Vec<Option<Vec<u8>>>> {
        (0..5i64)
            .map(|i| {
                vec![
                    Some((i << 16).to_be_bytes().to_vec()),
                    Some(format!("stream:{i} é").into_bytes()),
                    (i % 2 == 0).then(|| b"actor".to_vec()),
                    Some(vec![0, 255, 1, 2][..usize::try_from(i % 4).unwrap()].to_vec()),
                ]
            })
            .collect()
    }

    type Decoded = (i64, String, Option<String>, Vec<u8>);

    /// Feeds `data` in the given chunks and returns the rows read.
    fn decode(chunks: &[&[u8]]) -> Result<Vec<Decoded>, StoreError> {
        let mut out = Vec::new();
        let mut rows = CopyRows::new(4);
        let mut row = |f: &mut Fields<'_>| {
            let (position, stream) = (f.int8()?, f.text()?.to_owned());
            let actor = f.next()?.map(|b| String::from_utf8(b.to_vec()).unwrap());
            out.push((position, stream, actor, f.bytes()?.to_vec()));
            Ok(())
        };
        for chunk in chunks {
            rows.push(chunk, &mut row)?;
        }
        rows.finish()?;
        Ok(out)
    }

    #[test]
    fn rows_are_the_same_however_the_data_is_cut_into_chunks() {
        let data = encode(&sample(), 3);
        let whole = decode(&[&data]).unwrap();
        assert_eq!(whole.len(), 5);
        assert_eq!(
            whole[3],
            (3 << 16, "stream:3 é".into(), None, vec![0, 255, 1])
        );
        assert_eq!(whole[0].2.as_deref(), Some("actor"));
        for cut in 0..=data.len() {
            let (a, b) = data.split_at(cut);
            assert_eq!(decode(&[a, b]).unwrap(), whole, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        assert_eq!(decode(&bytes).unwrap(), whole);
    }

    #[test]
    fn broken_copy_data_is_refused() {
        let data = encode(&sample(), 0);
        let cut_short = &data[..data.len() - 2];
        assert!(decode(&[cut_short]).is_err(), "no end marker");
        let mut extra = data.clone();
        extra.push(0);
        assert!(decode(&[&extra]).is_err(), "data after the end marker");
        assert!(
            decode(&[&data, &[0, 1]]).is_err(),
            "a chunk after the end marker"
        );
        let mut bad_signature = data.clone();
        bad_signature[0] = b'X';
        assert!(decode(&[&bad_signature]).is_err());
        let three_fields: Vec<_> = sample().into_iter().map(|r| r[..3].to_vec()).collect();
        assert!(decode(&[&encode(&three_fields, 0)]).is_err(), "field count");
        let mut null_text = sample();
        null_text[1][1] = None;
        assert!(
            decode(&[&encode(&null_text, 0)]).is_err(),
            "NULL in NOT NULL"
        );
        let mut short_int = sample();
        short_int[2][0] = Some(vec![1, 2, 3]);
        assert!(
            decode(&[&encode(&short_int, 0)]).is_err(),
            "a 3-byte bigint"
        );
        let mut bad_utf8 = sample();
        bad_utf8[0][1] = Some(vec![0xff, 0xfe]);
        assert!(decode(&[&encode(&bad_utf8, 0)]).is_err(), "text not UTF-8");
    }
}
