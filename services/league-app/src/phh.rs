//! Hand histories on disk: finding the PHH files below some folders, and the verdict on
//! one file (parsed, replayed under the `wsop` rules, its final stacks compared with the
//! recorded `finishing_stacks`). `league phh check` and the engine benchmark share them.

use std::path::{Path, PathBuf};

use league_engine::phh;
use league_engine::rules::HouseRules;

/// Every `.phh` file below the paths, sorted.
pub fn collect(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for path in paths {
        walk(path, &mut found)?;
    }
    found.sort();
    Ok(found)
}

fn walk(path: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            walk(&entry?.path(), found)?;
        }
    } else if path.extension().is_some_and(|e| e == "phh") {
        found.push(path.to_path_buf());
    }
    Ok(())
}

/// The verdict on one file.
pub fn check_text(text: &str) -> Result<(), String> {
    let refused = |e: phh::PhhError| format!("refused [{}]: {e}", e.code());
    let hand = phh::parse(text).map_err(refused)?;
    let replayed = phh::replay(&hand, HouseRules::wsop()).map_err(refused)?;
    let Some(recorded) = &hand.finishing_stacks else {
        return Err("no finishing_stacks to compare".into());
    };
    let expected = phh::expected_stacks(recorded);
    if replayed.stacks == expected {
        Ok(())
    } else {
        Err(format!(
            "differs: engine {:?}, recorded {:?}",
            replayed.stacks, expected
        ))
    }
}
