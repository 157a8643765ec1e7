//! `docs/rulebooks.md`, the rule-by-rule table of the five houses, names real tests: every
//! test it names is a test function of the workspace, every rule marked enforced names
//! one, and every row has one of the statuses the page defines.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != "node_modules" {
                sources(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The names of the workspace's test functions: a `fn` under `#[test]`,
/// `#[tokio::test(...)]` or `#[actix_web::test]` (other attributes between), inside a
/// `proptest!` block, or a scenario `on_every_backend!` runs on each backend.
fn test_functions() -> BTreeSet<String> {
    let mut files = Vec::new();
    for dir in ["services", "tests"] {
        sources(&root().join(dir), &mut files);
    }
    let mut names = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let mut test_attribute = false;
        let mut in_proptest = false;
        let mut in_backends = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with("proptest!") {
                in_proptest = true;
            }
            if let Some((_, listed)) = line.split_once("on_every_backend!(")
                && !line.starts_with("macro_rules")
                && !line.contains('"')
            {
                match listed.strip_suffix(");") {
                    // On one line: `on_every_backend!(a, b);`.
                    Some(listed) => names.extend(
                        listed
                            .split(',')
                            .map(str::trim)
                            .filter(|n| !n.is_empty())
                            .map(str::to_owned),
                    ),
                    None => in_backends = true,
                }
                continue;
            }
            if in_backends {
                if line.starts_with(')') {
                    in_backends = false;
                } else {
                    names.insert(line.trim_end_matches(',').to_owned());
                }
                continue;
            }
            if line == "#[test]"
                || line.starts_with("#[tokio::test")
                || line.starts_with("#[actix_web::test")
                || line.starts_with("#[::actix_web::test")
            {
                test_attribute = true;
                continue;
            }
            if let Some(rest) = line
                .strip_prefix("fn ")
                .or_else(|| line.strip_prefix("async fn "))
            {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if test_attribute || in_proptest {
                    names.insert(name);
                }
                test_attribute = false;
            } else if !line.starts_with("#[") && !line.starts_with("//") && !line.is_empty() {
                test_attribute = false;
            }
        }
    }
    names
}

const STATUSES: [&str; 5] = [
    "enforced",
    "enforced, untested",
    "recorded only",
    "missing",
    "contradicted",
];

#[test]
fn every_test_the_rulebook_table_names_exists_and_every_enforced_rule_names_one() {
    let page = std::fs::read_to_string(root().join("docs/rulebooks.md")).unwrap();
    let tests = test_functions();
    assert!(tests.len() > 300, "found only {} tests", tests.len());
    let mut house = None;
    let mut houses = Vec::new();
    let mut rows = 0;
    let mut named = BTreeSet::new();
    let mut problems = Vec::new();
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            house = Some(title.to_owned());
            houses.push(title.to_owned());
            continue;
        }
        let Some(house) = &house else { continue };
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| Rule | What it says | Status | Test |`: five cells around the bars.
        if cells.len() != 6 || cells[1] == "Rule" || cells[1].starts_with("---") {
            continue;
        }
        rows += 1;
        let (rule, status, test) = (cells[1], cells[3], cells[4]);
        if !STATUSES.contains(&status) && !status.starts_with("not applicable: ") {
            problems.push(format!("{house} {rule}: status {status:?}"));
        }
        let names: Vec<&str> = test
            .split(',')
            .map(|n| n.trim().trim_matches('`'))
            .filter(|n| !n.is_empty() && *n != "—")
            .collect();
        if status == "enforced" && names.is_empty() {
            problems.push(format!("{house} {rule}: enforced, but names no test"));
        }
        for name in names {
            if !tests.contains(name) {
                problems.push(format!("{house} {rule}: no test function {name}"));
            }
            named.insert(name.to_owned());
        }
    }
    assert_eq!(problems, Vec::<String>::new());
    for preset in ["queensix", "wph", "oracle", "invitational", "hippodrome"] {
        assert!(
            houses.iter().any(|h| h.contains(&format!("`{preset}`"))),
            "no section for {preset}: {houses:?}"
        );
    }
    assert!(rows >= 250, "{rows} rows");
    assert!(named.len() >= 100, "{} tests named", named.len());
}
