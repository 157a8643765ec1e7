//! SQLite reads of the global log, packed: a few values per page instead of one row per event.
//!
//! sqlx's SQLite driver copies every column of every row into an allocation of its own and
//! hands every row across a channel from the connection's worker thread to the reader. At
//! 13 columns a row that was most of the cost of `read_all` (about 4 µs an event). Here SQLite
//! itself packs each event into one record with `concat` and each run of up to
//! [`PACK_EVENTS`] events into one value with `group_concat`, and Rust splits them again.
//!
//! A record is a header of decimal integers separated by `,` and ended by `;`, then the
//! variable-length fields' bytes back to back, each as long as its header says (`-1` for
//! NULL, which contributes no bytes):
//!
//! ```text
//! read_all:  position,stream_version,schema_version,recorded_at,
//!            len(stream_id),len(event_type),len(payload),len(actor),len(correlation_id),
//!            len(causation_id),len(idempotency_key),len(prev_hash),len(hash);
//!            stream_id event_type payload actor correlation_id causation_id
//!            idempotency_key prev_hash hash
//! read_log:  position,stream_version,len(stream_id),len(payload);stream_id payload
//! ```
//!
//! `concat` and `group_concat` copy values by their byte length (`sqlite3_value_bytes`), so
//! blobs with any bytes, NULs included, pass through unchanged; `octet_length` counts bytes,
//! not characters. Every record's position must exceed the one before it, or the read fails
//! as corrupt rather than return events out of order.

use bytes::Bytes;
use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnection;

use crate::error::StoreError;
use crate::store::{LogEntry, StreamIds, to_hash, to_u64};
use crate::types::{MAX_PAYLOAD_BYTES, RecordedEvent, Timestamp};

/// Events packed into one value. A value may not exceed SQLite's limit of 10^9 bytes, and a
/// payload may be 1 MiB: 512 of them stay well below it.
const PACK_EVENTS: usize = 512;
const _: () = assert!(PACK_EVENTS * (MAX_PAYLOAD_BYTES + 4096) < 1_000_000_000);

const EVENTS_SQL: &str = "SELECT CAST(group_concat(r, '') AS BLOB), count(*), max(p) FROM (\
    SELECT position AS p, concat(\
    position, ',', stream_version, ',', schema_version, ',', recorded_at, ',', \
    octet_length(stream_id), ',', octet_length(event_type), ',', octet_length(payload), ',', \
    ifnull(octet_length(actor), -1), ',', ifnull(octet_length(correlation_id), -1), ',', \
    ifnull(octet_length(causation_id), -1), ',', ifnull(octet_length(idempotency_key), -1), \
    ',', octet_length(prev_hash), ',', octet_length(hash), ';', \
    stream_id, event_type, payload, actor, correlation_id, causation_id, idempotency_key, \
    prev_hash, hash) AS r \
    FROM events WHERE position >= $1 AND ($3 IS NULL OR position < $3) \
    ORDER BY position LIMIT $2)";

/// One `read_log` record, as an SQL expression (see the module documentation).
macro_rules! log_record {
    () => {
        "concat(position, ',', stream_version, ',', octet_length(stream_id), ',', \
        octet_length(payload), ';', stream_id, payload)"
    };
}

const LOG_SQL: &str = concat!(
    "SELECT CAST(group_concat(r, '') AS BLOB), count(*), max(p) FROM (\
    SELECT position AS p, ",
    log_record!(),
    " AS r FROM events WHERE position >= $1 AND ($3 IS NULL OR position < $3) \
    ORDER BY position LIMIT $2)"
);

/// [`LOG_SQL`] for the events of the range `[$1, $1 + $2)`, without the sub-query and its
/// limit: SQLite runs it as one scan of the table's rowid range, with less work per event.
/// The scan visits rows in rowid order, `position`'s; [`read_packed`] checks that
/// positions increase, so another order would fail the read rather than reorder it.
const LOG_RANGE_SQL: &str = concat!(
    "SELECT CAST(group_concat(",
    log_record!(),
    ", '') AS BLOB), count(*), max(position) \
    FROM events WHERE position >= $1 AND position < $1 + $2"
);

/// Up to `limit` events from `from` on, in global order, into `out`.
pub(crate) async fn read_events(
    pool: &SqlitePool,
    from: u64,
    limit: usize,
    out: &mut Vec<RecordedEvent>,
) -> Result<(), StoreError> {
    read_packed(
        pool,
        EVENTS_SQL,
        None,
        Pairs::Yes,
        from,
        limit,
        out,
        |_, records| unpack_event(records),
        |e| e.position,
    )
    .await
}

/// [`read_events`] reduced to what a projection folds.
pub(crate) async fn read_log(
    pool: &SqlitePool,
    from: u64,
    limit: usize,
    out: &mut Vec<LogEntry>,
) -> Result<(), StoreError> {
    // One pack at a time: a rebuild folds on the other core while this reads.
    let mut streams = StreamIds::default();
    read_packed(
        pool,
        LOG_SQL,
        Some(LOG_RANGE_SQL),
        Pairs::No,
        from,
        limit,
        out,
        |pack, records| unpack_log_entry(pack, records, &mut streams),
        |e| e.position,
    )
    .await
}

/// Runs `sql` for consecutive packs of at most [`PACK_EVENTS`] events and splits each
/// pack's records with `unpack` into `out`, checking that positions increase. SQLite
/// computes the next packs on the connections' worker threads while this task splits the
/// last ones. `unpack` splits the first record off the records left, and is also given the
/// whole pack they are part of, to share rather than copy what it hands out.
///
/// With a second idle connection, two packs are computed at once, each for a range of
/// [`PACK_EVENTS`] positions (SQLite assigns positions densely under its single writer, so
/// a range normally holds that many events). A range's pack is taken only while every
/// range before it in this read was full: the two connections may read at different
/// moments, and a later snapshot's range must not be joined to an earlier one's end. At the
/// first range that is not full (the end of the log, or a gap left by a deleted event) the
/// read goes on one pack at a time from the last event taken, which finds any later event.
#[expect(
    clippy::too_many_arguments,
    reason = "one private helper for two reads"
)]
async fn read_packed<T>(
    pool: &SqlitePool,
    sql: &'static str,
    range_sql: Option<&'static str>,
    pairs: Pairs,
    from: u64,
    limit: usize,
    out: &mut Vec<T>,
    mut unpack: impl FnMut(&Bytes, &mut &[u8]) -> Result<T, StoreError>,
    position: impl Fn(&T) -> u64,
) -> Result<(), StoreError> {
    if limit == 0 {
        return Ok(());
    }
    let mut conn = pool.acquire().await?;
    let conn: &mut SqliteConnection = &mut conn;
    let mut previous = None;
    let mut split = |pack: Pack| -> Result<(), StoreError> {
        let pack_bytes = Bytes::from(pack.records.unwrap_or_default());
        let mut records: &[u8] = &pack_bytes;
        let mut last = None;
        while !records.is_empty() {
            let item = unpack(&pack_bytes, &mut records)?;
            previous = Some(check_order(previous, position(&item))?);
            last = previous;
            out.push(item);
        }
        if last != pack.last {
            return Err(corrupt("the last position disagrees with the records"));
        }
        Ok(())
    };
    let mut next = from;
    let mut remaining = limit;
    if pairs == Pairs::Yes
        && remaining >= 2 * PACK_EVENTS
        && let Some(mut second) = second_connection(pool).await
    {
        let other: &mut SqliteConnection = &mut second;
        // The pair of packs in hand covers the ranges from `start` and from `start + RANGE`.
        let mut start = next;
        let (mut a, mut b) = tokio::try_join!(
            fetch_range(conn, sql, start, PACK_EVENTS),
            fetch_range(other, sql, start.saturating_add(RANGE), PACK_EVENTS),
        )?;
        loop {
            let a_full = a.count == PACK_EVENTS;
            if !(a_full && b.count == PACK_EVENTS) {
                // Take the first pack, and the second only if the first was full; go on
                // from after the last event taken (or the start of an empty range taken).
                let (taken, taken_start) = if a_full {
                    (&b, start.saturating_add(RANGE))
                } else {
                    (&a, start)
                };
                next = taken
                    .last
                    .map_or(taken_start, |last| last.saturating_add(1));
                remaining -= a.count + if a_full { b.count } else { 0 };
                split(a)?;
                if a_full {
                    split(b)?;
                }
                break;
            }
            remaining -= 2 * PACK_EVENTS;
            start = start.saturating_add(2 * RANGE);
            next = start;
            if remaining < 2 * PACK_EVENTS {
                split(a)?;
                split(b)?;
                break;
            }
            let (fetched, splits) = tokio::join!(
                async {
                    tokio::try_join!(
                        fetch_range(conn, sql, start, PACK_EVENTS),
                        fetch_range(other, sql, start.saturating_add(RANGE), PACK_EVENTS),
                    )
                },
                async {
                    split(a)?;
                    split(b)
                }
            );
            splits?;
            (a, b) = fetched?;
        }
    }
    // One pack at a time, each from the last event taken. With `range_sql`, each pack is
    // the range of positions that follows the last while those ranges come back full (a
    // range holds every event of its positions committed before it was read: SQLite
    // assigns positions densely under its single writer). At the first range that is not
    // full (the end of the log, or a gap) the read goes on with `sql` from the last event
    // taken, which finds any later event.
    let mut want = remaining.min(PACK_EVENTS);
    if want == 0 {
        return Ok(());
    }
    let mut by_range = range_sql;
    let mut pack = fetch_next(conn, sql, by_range, next, want).await?;
    loop {
        remaining = remaining.saturating_sub(pack.count);
        let full = pack.count == want;
        let next = match pack.last {
            Some(last) if full && remaining > 0 => last.saturating_add(1),
            // A short range: from its last event on (or its start, when it was empty).
            _ if by_range.is_some() && !full && remaining > 0 => {
                by_range = None;
                pack.last.map_or(next, |last| last.saturating_add(1))
            }
            _ => return split(pack),
        };
        want = remaining.min(PACK_EVENTS);
        let (fetched, split) = tokio::join!(fetch_next(conn, sql, by_range, next, want), async {
            split(pack)
        });
        split?;
        pack = fetched?;
    }
}

/// The next pack of at most `want` events from `from`: the range `[from, from + want)`
/// by `range_sql` if given, else the first `want` events by `sql`.
async fn fetch_next(
    conn: &mut SqliteConnection,
    sql: &'static str,
    range_sql: Option<&'static str>,
    from: u64,
    want: usize,
) -> Result<Pack, StoreError> {
    match range_sql {
        Some(range_sql) => {
            let (records, count, last): (Option<Vec<u8>>, i64, Option<i64>) =
                sqlx::query_as(range_sql)
                    .bind(i64::try_from(from).unwrap_or(i64::MAX))
                    .bind(i64::try_from(want).unwrap_or(i64::MAX))
                    .fetch_one(&mut *conn)
                    .await?;
            Pack::new(records, count, last)
        }
        None => fetch_pack(conn, sql, from, want, None).await,
    }
}

/// Whether a read may compute two packs at once, on two connections.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pairs {
    Yes,
    No,
}

/// Positions per range when two connections read at once.
#[expect(clippy::as_conversions, reason = "a small constant, widened")]
const RANGE: u64 = PACK_EVENTS as u64;

/// Another connection for a read, if one is idle or the pool may open one; a pool that is
/// busy is not waited for (readers holding one connection each must not wait on each
/// other for a second).
async fn second_connection(pool: &SqlitePool) -> Option<sqlx::pool::PoolConnection<sqlx::Sqlite>> {
    if let Some(conn) = pool.try_acquire() {
        return Some(conn);
    }
    if pool.size() >= pool.options().get_max_connections() {
        return None;
    }
    tokio::time::timeout(std::time::Duration::from_millis(100), pool.acquire())
        .await
        .ok()?
        .ok()
}

/// The pack of the range `[from, from + RANGE)`, at most `want` events.
async fn fetch_range(
    conn: &mut SqliteConnection,
    sql: &'static str,
    from: u64,
    want: usize,
) -> Result<Pack, StoreError> {
    fetch_pack(conn, sql, from, want, Some(from.saturating_add(RANGE))).await
}

/// One packed value: its records, how many, and the last position among them.
struct Pack {
    records: Option<Vec<u8>>,
    count: usize,
    last: Option<u64>,
}

/// The pack of at most `want` events from `from` on (and before `end`, if given).
async fn fetch_pack(
    conn: &mut SqliteConnection,
    sql: &'static str,
    from: u64,
    want: usize,
    end: Option<u64>,
) -> Result<Pack, StoreError> {
    let (records, count, last): (Option<Vec<u8>>, i64, Option<i64>) = sqlx::query_as(sql)
        .bind(i64::try_from(from).unwrap_or(i64::MAX))
        .bind(i64::try_from(want).unwrap_or(i64::MAX))
        .bind(end.map(|e| i64::try_from(e).unwrap_or(i64::MAX)))
        .fetch_one(&mut *conn)
        .await?;
    Pack::new(records, count, last)
}

impl Pack {
    fn new(records: Option<Vec<u8>>, count: i64, last: Option<i64>) -> Result<Pack, StoreError> {
        Ok(Pack {
            records,
            count: usize::try_from(count).map_err(|_| corrupt("negative count"))?,
            last: last.map(|p| to_u64("position", p)).transpose()?,
        })
    }
}

fn check_order(last: Option<u64>, position: u64) -> Result<u64, StoreError> {
    match last {
        Some(last) if position <= last => Err(StoreError::Corrupt(format!(
            "packed read returned position {position} after {last}"
        ))),
        _ => Ok(position),
    }
}

/// Splits the first event record off `records`.
fn unpack_event(records: &mut &[u8]) -> Result<RecordedEvent, StoreError> {
    let mut header = Header::new(records);
    let position = to_u64("position", header.int()?)?;
    let stream_version = to_u64("stream version", header.int()?)?;
    let schema_version = header.int()?;
    let schema_version = u32::try_from(schema_version)
        .map_err(|_| StoreError::Corrupt(format!("schema version {schema_version}")))?;
    let recorded_at = Timestamp::from_micros(header.int()?);
    let lens = [(); 9].map(|()| header.len());
    let [
        stream,
        kind,
        payload,
        actor,
        correlation,
        causation,
        idempotency,
        prev,
        hash,
    ] = lens;
    let mut body = header.body()?;
    let event = RecordedEvent {
        position,
        stream_id: body.string(stream?)?,
        stream_version,
        event_type: body.string(kind?)?,
        schema_version,
        payload: body.bytes(payload?)?.to_vec(),
        actor: body.opt_string(actor?)?,
        correlation_id: body.opt_string(correlation?)?,
        causation_id: body.opt_string(causation?)?,
        idempotency_key: body.opt_string(idempotency?)?,
        recorded_at,
        prev_hash: to_hash("prev_hash", body.bytes(prev?)?)?,
        hash: to_hash("hash", body.bytes(hash?)?)?,
    };
    *records = body.rest;
    Ok(event)
}

/// Splits the first log-entry record off `records`, a part of `pack`: the payload is shared
/// with the pack, the stream id with the read's other events of the stream.
fn unpack_log_entry(
    pack: &Bytes,
    records: &mut &[u8],
    streams: &mut StreamIds,
) -> Result<LogEntry, StoreError> {
    let mut header = Header::new(records);
    let position = to_u64("position", header.int()?)?;
    let stream_version = to_u64("stream version", header.int()?)?;
    let stream = header.len()?;
    let payload = header.len()?;
    let mut body = header.body()?;
    let entry = LogEntry {
        position,
        stream_id: streams.get(body.str(stream)?),
        stream_version,
        payload: pack.slice_ref(body.bytes(payload)?),
    };
    *records = body.rest;
    Ok(entry)
}

fn corrupt(what: &str) -> StoreError {
    StoreError::Corrupt(format!("packed read: {what}"))
}

/// The header of one record: decimal integers separated by `,` and ended by `;`.
struct Header<'a> {
    rest: &'a [u8],
    ended: bool,
}

impl<'a> Header<'a> {
    fn new(records: &'a [u8]) -> Self {
        Header {
            rest: records,
            ended: false,
        }
    }

    /// The next integer, and past its separator.
    fn int(&mut self) -> Result<i64, StoreError> {
        let (negative, digits) = match self.rest.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, self.rest),
        };
        let mut value: i64 = 0;
        let mut used = 0;
        for &b in digits {
            if !b.is_ascii_digit() {
                break;
            }
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(b - b'0')))
                .ok_or_else(|| corrupt("integer out of range"))?;
            used += 1;
        }
        let Some((&sep, rest)) = digits.get(used..).and_then(<[u8]>::split_first) else {
            return Err(corrupt("header cut short"));
        };
        if used == 0 || self.ended || !matches!(sep, b',' | b';') {
            return Err(corrupt("bad header"));
        }
        self.ended = sep == b';';
        self.rest = rest;
        Ok(if negative { -value } else { value })
    }

    /// The next length: `None` for NULL (`-1`).
    fn len(&mut self) -> Result<Option<usize>, StoreError> {
        match self.int()? {
            -1 => Ok(None),
            n => usize::try_from(n)
                .map(Some)
                .map_err(|_| corrupt("negative length")),
        }
    }

    /// The record's fields, after the header.
    fn body(self) -> Result<Body<'a>, StoreError> {
        if !self.ended {
            return Err(corrupt("header not ended"));
        }
        Ok(Body { rest: self.rest })
    }
}

/// The fields of one record, then the records after it.
struct Body<'a> {
    rest: &'a [u8],
}

impl<'a> Body<'a> {
    fn bytes(&mut self, len: Option<usize>) -> Result<&'a [u8], StoreError> {
        let len = len.ok_or_else(|| corrupt("NULL in a NOT NULL column"))?;
        if len > self.rest.len() {
            return Err(corrupt("field cut short"));
        }
        let (field, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(field)
    }

    fn str(&mut self, len: Option<usize>) -> Result<&'a str, StoreError> {
        std::str::from_utf8(self.bytes(len)?).map_err(|_| corrupt("text is not UTF-8"))
    }

    fn string(&mut self, len: Option<usize>) -> Result<String, StoreError> {
        self.str(len).map(str::to_owned)
    }

    fn opt_string(&mut self, len: Option<usize>) -> Result<Option<String>, StoreError> {
        len.map(|len| self.string(Some(len))).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(header: &str, body: &[u8]) -> Vec<u8> {
        let mut out = header.as_bytes().to_vec();
        out.extend(body);
        out
    }

    #[test]
    fn a_record_splits_into_its_fields_and_leaves_the_next() {
        let hash = [0u8, b';', b',', 255].repeat(8);
        let mut body = b"s,1;{\"a\":\"\\u0000\"}".to_vec();
        body.extend(&hash);
        body.extend(&hash);
        let mut data = record("7,2,1,-5,3,1,14,-1,0,-1,-1,32,32;", &body);
        data.extend(b"NEXT");
        let mut rest: &[u8] = &data;
        let event = unpack_event(&mut rest).unwrap();
        assert_eq!(rest, b"NEXT");
        assert_eq!((event.position, event.stream_version), (7, 2));
        assert_eq!(event.recorded_at, Timestamp::from_micros(-5));
        assert_eq!(
            (event.stream_id.as_str(), event.event_type.as_str()),
            ("s,1", ";")
        );
        assert_eq!(event.payload, b"{\"a\":\"\\u0000\"}".to_vec());
        assert_eq!(
            (event.actor, event.correlation_id),
            (None, Some(String::new()))
        );
        assert_eq!(event.hash.to_vec(), hash);
    }

    #[test]
    fn header_integers_are_read_up_to_the_limits_of_i64() {
        let ints = |text: &str| {
            let mut header = Header::new(text.as_bytes());
            let mut failed = false;
            std::iter::from_fn(|| {
                (!header.ended && !failed).then(|| {
                    let int = header.int();
                    failed = int.is_err();
                    int
                })
            })
            .collect::<Vec<_>>()
        };
        let got = ints("0,-1,123456789012345678,9223372036854775807,-9223372036854775807;");
        let got: Vec<i64> = got.into_iter().map(Result::unwrap).collect();
        assert_eq!(got, [0, -1, 123_456_789_012_345_678, i64::MAX, -i64::MAX]);
        for text in [
            "9223372036854775808;",
            "-9223372036854775808;",
            "12a;",
            "-;",
            ";",
        ] {
            assert!(ints(text).iter().any(Result::is_err), "{text}");
        }
    }

    #[test]
    fn a_broken_record_is_refused() {
        let hash = [1u8; 32];
        let good_body = [b"se{}".as_slice(), &hash, &hash].concat();
        let good = "7,2,1,5,1,1,2,-1,-1,-1,-1,32,32;";
        let mut ok: &[u8] = &record(good, &good_body);
        assert!(unpack_event(&mut ok).is_ok());
        for header in [
            "7,2,1,5,1,1,2,-1,-1,-1,-1,32;",     // a length missing
            "7,2,1,5,1,1,2,-1,-1,-1,-1,32,32,",  // not ended
            "7,2,1,5,1,1,2,-1,-1,-1,-1,32;32;",  // ended early
            "7,2,1,5,1,1,9,-1,-1,-1,-1,32,32;",  // a field longer than the record
            "7,2,1,5,1,1,2,-1,-1,-1,-1,31,33;",  // a 31-byte hash
            "7,2,1,5,-1,1,2,-1,-1,-1,-1,32,32;", // NULL stream id
            "7,2,1,5,1,1,2,-2,-1,-1,-1,32,32;",  // a negative length
            "-7,2,1,5,1,1,2,-1,-1,-1,-1,32,32;", // a negative position
            "7,2,x,5,1,1,2,-1,-1,-1,-1,32,32;",  // not a number
            "7,2,99999999999999999999,5,1,1,2,-1,-1,-1,-1,32,32;",
        ] {
            let data = record(header, &good_body);
            let mut rest: &[u8] = &data;
            assert!(unpack_event(&mut rest).is_err(), "{header}");
        }
        assert!(check_order(Some(5), 5).is_err());
        assert!(check_order(Some(5), 4).is_err());
        assert_eq!(check_order(Some(5), 6).unwrap(), 6);
        assert_eq!(check_order(None, 0).unwrap(), 0);
    }
}
