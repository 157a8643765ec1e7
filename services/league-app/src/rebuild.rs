//! Rebuilding the read models from position 0.

use std::time::{Duration, Instant};

use league_projections::{Projector, first_difference};
use league_store::Store;

use crate::{AppError, PROJECTION};

/// Events per read.
const PAGE: usize = 10_000;

/// What a rebuild did.
pub struct Rebuilt {
    pub events: u64,
    pub elapsed: Duration,
    /// The position rebuilt up to (the stored checkpoint, or the end of the log).
    pub position: Option<u64>,
    pub projector: Projector,
}

impl Rebuilt {
    pub fn events_per_second(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        // Display only; the count itself stays an integer.
        #[expect(clippy::as_conversions, reason = "a rate for display")]
        let rate = (self.events as f64 / secs) as u64;
        rate
    }
}

/// Folds the log from position 0 up to `until` (inclusive; `None` for all of it).
pub async fn rebuild(store: &Store, until: Option<u64>) -> Result<Rebuilt, AppError> {
    let started = Instant::now();
    // The next page is read while this one is folded.
    let (pages, mut receive) = tokio::sync::mpsc::channel(2);
    let reader = store.clone();
    let read = tokio::spawn(async move {
        let mut from = 0u64;
        loop {
            let page = reader.read_log(from, PAGE).await?;
            let Some(last) = page.last() else {
                break;
            };
            from = last.position.saturating_add(1);
            let full = page.len() == PAGE;
            let done = until.is_some_and(|u| last.position >= u);
            if pages.send(page).await.is_err() || !full || done {
                break;
            }
        }
        Ok::<(), league_store::StoreError>(())
    });
    let mut projector = Projector::new();
    'pages: while let Some(page) = receive.recv().await {
        for event in &page {
            if until.is_some_and(|u| event.position > u) {
                break 'pages;
            }
            projector.apply_log(event)?;
        }
    }
    drop(receive);
    read.await
        .map_err(|e| AppError::Other(format!("the reader panicked: {e}")))??;
    Ok(Rebuilt {
        events: projector.events(),
        elapsed: started.elapsed(),
        position: projector.position(),
        projector,
    })
}

/// The outcome of `league rebuild --check`.
pub struct Check {
    pub rebuilt: Rebuilt,
    /// `None` when identical.
    pub difference: Option<String>,
}

/// Rebuilds up to the live projector's stored checkpoint and compares every document.
pub async fn check(store: &Store) -> Result<Check, AppError> {
    let (checkpoint, live) = store.read_models(PROJECTION).await?;
    let rebuilt = rebuild(store, checkpoint).await?;
    let docs = rebuilt.projector.docs()?;
    let difference = if checkpoint != rebuilt.position {
        Some(format!(
            "the live checkpoint is at {checkpoint:?}, the log ends at {:?}",
            rebuilt.position
        ))
    } else {
        first_difference(&live, &docs)
    };
    Ok(Check {
        rebuilt,
        difference,
    })
}
