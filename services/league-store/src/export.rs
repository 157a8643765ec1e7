//! The log as files for an auditor's own verifier (`league audit export --format log`,
//! `tools/verify_log.py`): every stored event with every field its hash covers, the seals,
//! and the signed tree heads, each as JSON lines. `docs/event-store.md` ("Exported logs")
//! specifies the files; nothing here is needed to read them.

use std::io::Write;

use serde_json::{Value, json};

use crate::error::StoreError;
use crate::hash::to_hex;
use crate::store::{Db, Store, postgres, sqlite};
use crate::types::RecordedEvent;

/// What an export wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exported {
    /// Events (lines of `events.jsonl`).
    pub events: u64,
    /// Seal rows (lines of `seals.jsonl`).
    pub seals: u64,
    /// Signed tree heads (lines of `tree-heads.jsonl`).
    pub tree_heads: u64,
}

/// One event as a line of `events.jsonl` (no newline): the payload as text when its bytes
/// are UTF-8 (every payload the store accepted is JSON text), else as `payload_hex`.
pub fn event_json(e: &RecordedEvent) -> String {
    let mut line = json!({
        "position": e.position,
        "event_id": e.stored_id.map(|id| id.to_string()),
        "stream_id": e.stream_id,
        "stream_version": e.stream_version,
        "event_type": e.event_type,
        "schema_version": e.schema_version,
        "actor": e.actor,
        "correlation_id": e.correlation_id,
        "causation_id": e.causation_id,
        "idempotency_key": e.idempotency_key,
        "recorded_at": e.recorded_at.as_micros(),
        "prev_hash": to_hex(&e.prev_hash),
        "hash": to_hex(&e.hash),
    });
    if let Value::Object(fields) = &mut line {
        match std::str::from_utf8(&e.payload) {
            Ok(text) => fields.insert("payload".into(), Value::from(text)),
            Err(_) => fields.insert("payload_hex".into(), Value::from(to_hex(&e.payload))),
        };
    }
    line.to_string()
}

impl Store {
    /// Writes every stored event (ignoring the commit horizon: an auditor wants everything
    /// there), every `seals` row and every signed tree head, each as one JSON line.
    pub async fn export_log(
        &self,
        events: &mut impl Write,
        seals: &mut impl Write,
        heads: &mut impl Write,
    ) -> Result<Exported, StoreError> {
        let mut out = Exported::default();
        let io = |e: std::io::Error| StoreError::Corrupt(format!("writing the export: {e}"));
        let mut next = 0u64;
        loop {
            let page = self.read_range(next, u64::MAX, 5_000).await?;
            let Some(last) = page.last() else { break };
            next = last.position.saturating_add(1);
            for e in &page {
                writeln!(events, "{}", event_json(e)).map_err(io)?;
                out.events += 1;
            }
        }
        let rows = match &self.inner.db {
            Db::Postgres(pool) => postgres::seals::seals(pool).await?,
            Db::Sqlite(pool) => sqlite::seals::seals(pool).await?,
        };
        for (seal_id, first_leaf, leaf_count, positions, leaves, root) in rows {
            let positions: Vec<i64> = positions
                .chunks(8)
                .map(|p| i64::from_be_bytes(p.try_into().unwrap_or_default()))
                .collect();
            let leaves: Vec<String> = leaves.chunks(32).map(to_hex).collect();
            let line = json!({
                "seal_id": seal_id,
                "first_leaf": first_leaf,
                "leaf_count": leaf_count,
                "positions": positions,
                "leaf_hashes": leaves,
                "root": to_hex(&root),
            });
            writeln!(seals, "{line}").map_err(io)?;
            out.seals += 1;
        }
        for h in self.tree_heads().await? {
            writeln!(heads, "{}", h.to_json()).map_err(io)?;
            out.tree_heads += 1;
        }
        Ok(out)
    }
}
