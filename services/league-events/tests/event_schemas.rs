//! The event catalogue cannot drift from the Rust types: each event type's JSON Schema, as
//! `schemars` derives it from the type and its serde attributes, must equal the schema
//! checked in for the version the catalogue says this build writes
//! (`schema/events/<kind>/<Type>.v<N>.json`), and `docs/events.md` must be the page those
//! schemas render to. A changed shape without a new version fails here; so does a schema
//! file of an old version that went missing, or an old version without its upcaster.
//!
//! `UPDATE_EVENT_SCHEMAS=1 cargo test -p league-events --test event_schemas` writes the
//! schema of a new version (never over an existing file) and `docs/events.md`.

#![expect(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use league_events::{CATALOGUE, CODEC, StreamKind};
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn updating() -> bool {
    std::env::var_os("UPDATE_EVENT_SCHEMAS").is_some_and(|v| v == "1")
}

/// Every `$ref` target (`#/$defs/<name>`) reachable from `value`.
fn refs(value: &Value, defs: &serde_json::Map<String, Value>, found: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref"
                    && let Some(name) = v.as_str().and_then(|r| r.strip_prefix("#/$defs/"))
                {
                    if found.insert(name.to_owned())
                        && let Some(def) = defs.get(name)
                    {
                        refs(def, defs, found);
                    }
                } else {
                    refs(v, defs, found);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, defs, found)),
        _ => {}
    }
}

/// Each variant of a tagged enum's schema, standalone (with the definitions it uses), by
/// its `type` tag.
fn variants(kind: &str, schema: &schemars::Schema) -> BTreeMap<String, Value> {
    let root = schema.as_value();
    let defs = root["$defs"].as_object().cloned().unwrap_or_default();
    let mut out = BTreeMap::new();
    for variant in root["oneOf"]
        .as_array()
        .expect("a tagged enum's schema is a oneOf")
    {
        let tag = &variant["properties"]["type"];
        let name = tag["const"]
            .as_str()
            .or_else(|| tag["enum"][0].as_str())
            .expect("each variant has a constant type tag")
            .to_owned();
        let mut used = BTreeSet::new();
        refs(variant, &defs, &mut used);
        let mut standalone = serde_json::Map::new();
        standalone.insert("$schema".into(), root["$schema"].clone());
        standalone.insert("title".into(), json!(format!("{kind} event {name}")));
        for (k, v) in variant.as_object().unwrap() {
            standalone.insert(k.clone(), v.clone());
        }
        if !used.is_empty() {
            let used: serde_json::Map<String, Value> = used
                .into_iter()
                .filter_map(|name| Some((name.clone(), defs.get(&name)?.clone())))
                .collect();
            standalone.insert("$defs".into(), Value::Object(used));
        }
        out.insert(name, Value::Object(standalone));
    }
    out
}

/// What one stream kind's types look like in this build, against the files in `dir`.
struct Kind<'a> {
    name: &'a str,
    /// `(type, version this build writes)`.
    catalogue: Vec<(&'a str, u32)>,
    /// The types' schemas as derived now.
    derived: BTreeMap<String, Value>,
    /// Whether each older version has its upcaster.
    upcaster: &'a dyn Fn(&str, u32) -> bool,
}

fn file(dir: &Path, kind: &str, name: &str, version: u32) -> PathBuf {
    dir.join(kind).join(format!("{name}.v{version}.json"))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

/// Every way the derived shapes and the checked-in schemas disagree; with `update`, writes
/// the schema of a version that has none yet.
fn check(dir: &Path, kind: &Kind<'_>, update: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let listed: BTreeSet<&str> = kind.catalogue.iter().map(|(n, _)| *n).collect();
    for name in kind.derived.keys() {
        if !listed.contains(name.as_str()) {
            problems.push(format!(
                "{} event {name} is not in the catalogue: add it to league_events::versions::CATALOGUE",
                kind.name
            ));
        }
    }
    for (name, version) in &kind.catalogue {
        let Some(derived) = kind.derived.get(*name) else {
            problems.push(format!(
                "{} event {name} is in the catalogue but no longer a variant: old logs hold it, so it must stay readable",
                kind.name
            ));
            continue;
        };
        let path = file(dir, kind.name, name, *version);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let stored: Value = serde_json::from_str(&text).unwrap();
                if &stored != derived {
                    problems.push(format!(
                        "{} event {name}: its serialized shape changed without a new version: \
                         version {version} is released as {}; raise its version in the \
                         catalogue to {}, add an upcaster from {version}, and run with \
                         UPDATE_EVENT_SCHEMAS=1",
                        kind.name,
                        path.display(),
                        version + 1
                    ));
                }
            }
            Err(_) if update => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, pretty(derived)).unwrap();
            }
            Err(_) => problems.push(format!(
                "{} event {name} version {version} has no schema at {}: run with UPDATE_EVENT_SCHEMAS=1",
                kind.name,
                path.display()
            )),
        }
        for old in 1..*version {
            if !file(dir, kind.name, name, old).exists() {
                problems.push(format!(
                    "{} event {name} version {old}: its schema file is missing (a released version's schema is kept)",
                    kind.name
                ));
            }
            if !(kind.upcaster)(name, old) {
                problems.push(format!(
                    "{} event {name} version {old} has no upcaster to version {}",
                    kind.name,
                    old + 1
                ));
            }
        }
    }
    // A file for a type or version this build does not know.
    if let Ok(entries) = std::fs::read_dir(dir.join(kind.name)) {
        for entry in entries {
            let file_name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let known = file_name
                .strip_suffix(".json")
                .and_then(|stem| stem.rsplit_once(".v"))
                .and_then(|(name, v)| Some((name.to_owned(), v.parse::<u32>().ok()?)))
                .is_some_and(|(name, v)| {
                    kind.catalogue
                        .iter()
                        .any(|(n, current)| *n == name && v >= 1 && v <= *current)
                });
            if !known {
                problems.push(format!(
                    "{}/{file_name}: no type and version of the catalogue",
                    kind.name
                ));
            }
        }
    }
    problems
}

fn product_kinds() -> Vec<(StreamKind, BTreeMap<String, Value>)> {
    use league_engine::league;
    use league_engine::tournament::play::TournamentEvent;
    vec![
        (
            StreamKind::Tournament,
            variants("tournament", &schemars::schema_for!(TournamentEvent)),
        ),
        (
            StreamKind::League,
            variants("league", &schemars::schema_for!(league::Event)),
        ),
        (
            StreamKind::Cash,
            variants(
                "cash",
                &schemars::schema_for!(league_engine::cash::CashEvent),
            ),
        ),
    ]
}

#[test]
fn every_event_type_has_the_checked_in_schema_of_its_version() {
    let dir = root().join("schema/events");
    let update = updating();
    let mut problems = Vec::new();
    let mut rendered = Vec::new();
    for (stream_kind, derived) in product_kinds() {
        let catalogue: Vec<(&str, u32)> = CATALOGUE
            .iter()
            .filter(|t| t.kind == stream_kind)
            .map(|t| (t.name, t.version))
            .collect();
        let upcaster = |name: &str, from: u32| {
            CODEC
                .upcasters
                .iter()
                .any(|u| u.kind == stream_kind && u.event_type == name && u.from == from)
        };
        let kind = Kind {
            name: stream_kind.name(),
            catalogue: catalogue.clone(),
            derived,
            upcaster: &upcaster,
        };
        problems.extend(check(&dir, &kind, update));
        rendered.push((stream_kind.name(), catalogue));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // The hand events a golden log must hold are the variants of the hand's event.
    let hand = schemars::schema_for!(league_engine::hand::Event);
    let kinds: BTreeSet<String> = variants("hand", &hand).into_keys().collect();
    let listed: BTreeSet<String> = league_events::versions::HAND_EVENTS
        .iter()
        .map(|k| (*k).to_owned())
        .collect();
    assert_eq!(kinds, listed, "league_events::versions::HAND_EVENTS");

    let page = render(&dir, &rendered);
    let path = root().join("docs/events.md");
    if update {
        std::fs::write(&path, &page).unwrap();
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == page,
        "docs/events.md is not the page the checked-in schemas render to: run with UPDATE_EVENT_SCHEMAS=1"
    );
}

/// A field's type in a few words.
fn type_of(schema: &Value) -> String {
    if let Some(r) = schema["$ref"].as_str() {
        return r.trim_start_matches("#/$defs/").to_owned();
    }
    if let Some(any) = schema["anyOf"].as_array().or(schema["oneOf"].as_array()) {
        let parts: Vec<String> = any.iter().map(type_of).collect();
        return parts.join(" or ");
    }
    let one = |t: &str| -> String {
        match t {
            "integer" => schema["format"].as_str().map_or("integer".to_owned(), |f| {
                f.replace("uint", "u").replace("int", "i")
            }),
            "array" => {
                if let Some(items) = schema["prefixItems"].as_array() {
                    let parts: Vec<String> = items.iter().map(type_of).collect();
                    format!("({})", parts.join(", "))
                } else {
                    format!("[{}]", type_of(&schema["items"]))
                }
            }
            "null" => "null".to_owned(),
            other => other.to_owned(),
        }
    };
    match &schema["type"] {
        Value::String(t) => one(t),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema.get("const").is_some() => format!("`{}`", schema["const"]),
        _ => "any".to_owned(),
    }
}

/// The fields of an object schema: `(name, type, required, description)`.
fn fields(object: &Value) -> Vec<(String, String, bool, String)> {
    let required: BTreeSet<&str> = object["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    object["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .filter(|(name, _)| name.as_str() != "type")
                .map(|(name, p)| {
                    (
                        name.clone(),
                        type_of(p),
                        required.contains(name.as_str()),
                        one_line(p["description"].as_str().unwrap_or("")),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

fn table(out: &mut String, rows: &[(String, String, bool, String)]) {
    if rows.is_empty() {
        out.push_str("No fields.\n\n");
        return;
    }
    out.push_str("| field | type | required | meaning |\n|---|---|---|---|\n");
    for (name, ty, required, doc) in rows {
        let required = if *required { "yes" } else { "no (default)" };
        writeln!(out, "| `{name}` | {ty} | {required} | {doc} |").unwrap();
    }
    out.push('\n');
}

/// `docs/events.md`, from the checked-in schemas of every version.
fn render(dir: &Path, kinds: &[(&str, Vec<(&str, u32)>)]) -> String {
    let mut out = String::from(
        "# The event catalogue\n\n\
         Generated from the checked-in JSON Schemas (`schema/events/<kind>/<Type>.v<N>.json`) by\n\
         `UPDATE_EVENT_SCHEMAS=1 cargo test -p league-events --test event_schemas`; the same test\n\
         fails when this page, a schema, or a Rust type disagree. Do not edit by hand.\n\n\
         Every stored event has a type (`event_type`) and the version of that type's shape\n\
         (`schema_version`). A build reads every version up to the one it writes: older ones are\n\
         upcast on read, one version at a time, by the functions in\n\
         `services/league-events/src/versions.rs`; the stored bytes are never rewritten, and\n\
         verification hashes them as stored. A type or version newer than the build is refused\n\
         with an error naming it. Tournament events are written as `{\"type\": T, \"data\": {...}}`,\n\
         league events as `{\"type\": T, ...}`. Each type below is listed with the version this\n\
         release writes and every earlier one.\n\n",
    );
    let mut shared: BTreeMap<String, Value> = BTreeMap::new();
    for (kind, catalogue) in kinds {
        writeln!(
            out,
            "## {} events (`{kind}:<id>` streams)\n",
            capitalise(kind)
        )
        .unwrap();
        out.push_str("| type | versions |\n|---|---|\n");
        for (name, version) in catalogue {
            let versions: Vec<String> = (1..=*version).map(|v| v.to_string()).collect();
            writeln!(
                out,
                "| [`{name}`](#{kind}-{}) | {} |",
                name.to_lowercase(),
                versions.join(", ")
            )
            .unwrap();
        }
        out.push('\n');
        for (name, version) in catalogue {
            writeln!(
                out,
                "<a id=\"{kind}-{}\"></a>\n### {kind} `{name}`\n",
                name.to_lowercase()
            )
            .unwrap();
            for v in (1..=*version).rev() {
                let text = std::fs::read_to_string(file(dir, kind, name, v)).unwrap_or_default();
                let schema: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                if let Some(defs) = schema["$defs"].as_object() {
                    for (def, s) in defs {
                        shared.entry(def.clone()).or_insert_with(|| s.clone());
                    }
                }
                writeln!(
                    out,
                    "Version {v}{}.",
                    if v == *version {
                        " (written by this release)"
                    } else {
                        ""
                    }
                )
                .unwrap();
                let doc = one_line(schema["description"].as_str().unwrap_or(""));
                if !doc.is_empty() {
                    writeln!(out, " {doc}").unwrap();
                }
                out.push('\n');
                let body = if schema["properties"]["data"].is_object() {
                    &schema["properties"]["data"]
                } else {
                    &schema
                };
                table(&mut out, &fields(body));
            }
        }
    }
    out.push_str("## Shared types\n\nThe types the events' fields refer to.\n\n");
    for (name, schema) in &shared {
        writeln!(out, "### `{name}`\n").unwrap();
        let doc = one_line(schema["description"].as_str().unwrap_or(""));
        if !doc.is_empty() {
            writeln!(out, "{doc}\n").unwrap();
        }
        if schema["properties"].is_object() {
            table(&mut out, &fields(schema));
        } else if let Some(variants) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
            out.push_str("One of:\n\n");
            for v in variants {
                let label = v["const"]
                    .as_str()
                    .map(|c| format!("`\"{c}\"`"))
                    .or_else(|| {
                        let tag = &v["properties"]["type"];
                        tag["const"].as_str().map(|c| format!("`{c}`"))
                    })
                    .or_else(|| {
                        let keys: Vec<String> = v["properties"]
                            .as_object()?
                            .keys()
                            .map(|k| format!("`{k}`"))
                            .collect();
                        Some(keys.join(", "))
                    })
                    .unwrap_or_else(|| type_of(v));
                // The variant's own fields: adjacently tagged (`data`), externally tagged
                // (the one key's value) or internally tagged (beside `type`).
                let props = &v["properties"];
                let body = if props["data"].is_object() {
                    &props["data"]
                } else if props["type"].is_null()
                    && let Some(map) = props.as_object()
                    && map.len() == 1
                {
                    map.values().next().unwrap()
                } else {
                    v
                };
                let inner = fields(body);
                let doc = one_line(v["description"].as_str().unwrap_or(""));
                let described: Vec<String> = inner
                    .iter()
                    .map(|(n, t, _, _)| format!("`{n}`: {t}"))
                    .collect();
                let mut line = format!("- {label}");
                if !doc.is_empty() {
                    write!(line, ": {doc}").unwrap();
                }
                if !described.is_empty() {
                    write!(line, " ({})", described.join(", ")).unwrap();
                }
                out.push_str(&line);
                out.push('\n');
            }
            out.push('\n');
        } else if let Some(values) = schema["enum"].as_array() {
            let values: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
            writeln!(out, "One of {}.\n", values.join(", ")).unwrap();
        } else {
            writeln!(out, "{}.\n", type_of(schema)).unwrap();
        }
    }
    out
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A stream kind's events in a test fixture: version 1, and the same type with a field
/// added, as a careless change would make it.
mod fixture {
    pub mod v1 {
        #[derive(serde::Serialize, schemars::JsonSchema)]
        #[serde(tag = "type")]
        #[expect(dead_code, reason = "only its schema is used")]
        pub enum FixtureEvent {
            Opened { at: u64 },
            Renamed { name: String },
        }
    }
    pub mod changed {
        #[derive(serde::Serialize, schemars::JsonSchema)]
        #[serde(tag = "type")]
        #[expect(dead_code, reason = "only its schema is used")]
        pub enum FixtureEvent {
            Opened { at: u64 },
            Renamed { name: String, reason: String },
        }
    }
}

#[test]
fn the_schema_check_fails_on_a_changed_event_until_it_has_a_new_version() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schemas");
    let v1 = variants("fixture", &schemars::schema_for!(fixture::v1::FixtureEvent));
    let changed = variants(
        "fixture",
        &schemars::schema_for!(fixture::changed::FixtureEvent),
    );
    let no_upcasters = |_: &str, _: u32| false;
    let all_upcasters = |_: &str, _: u32| true;
    let kind =
        |catalogue: Vec<(&'static str, u32)>, derived: &BTreeMap<String, Value>, upcaster| Kind {
            name: "fixture",
            catalogue,
            derived: derived.clone(),
            upcaster,
        };
    let released = vec![("Opened", 1), ("Renamed", 1)];

    // The released shapes match their checked-in schemas.
    assert_eq!(
        check(
            &fixtures,
            &kind(released.clone(), &v1, &no_upcasters),
            updating()
        ),
        Vec::<String>::new()
    );

    // A field added to `Renamed` without a new version: refused, naming the type.
    let problems = check(
        &fixtures,
        &kind(released.clone(), &changed, &no_upcasters),
        false,
    );
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "fixture event Renamed: its serialized shape changed without a new version"
        ),
        "{problems:?}"
    );

    // A new version, but no schema for it and no upcaster from version 1: refused.
    let bumped = vec![("Opened", 1), ("Renamed", 2)];
    let problems = check(
        &fixtures,
        &kind(bumped.clone(), &changed, &no_upcasters),
        false,
    );
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("Renamed version 2 has no schema"),
        "{problems:?}"
    );
    assert!(
        problems[1].contains("Renamed version 1 has no upcaster to version 2"),
        "{problems:?}"
    );

    // With the upcaster, the update writes version 2's schema beside version 1's, and the
    // check passes; version 1's file is kept.
    let scratch = std::env::temp_dir().join(format!("event-schemas-{}", std::process::id()));
    std::fs::create_dir_all(scratch.join("fixture")).unwrap();
    for name in ["Opened.v1.json", "Renamed.v1.json"] {
        std::fs::copy(
            fixtures.join("fixture").join(name),
            scratch.join("fixture").join(name),
        )
        .unwrap();
    }
    let updated = check(
        &scratch,
        &kind(bumped.clone(), &changed, &all_upcasters),
        true,
    );
    assert_eq!(updated, Vec::<String>::new());
    assert!(scratch.join("fixture/Renamed.v2.json").exists());
    assert_eq!(
        check(
            &scratch,
            &kind(bumped.clone(), &changed, &all_upcasters),
            false
        ),
        Vec::<String>::new()
    );

    // Losing a released version's schema, or a type, is refused too.
    std::fs::remove_file(scratch.join("fixture/Renamed.v1.json")).unwrap();
    let problems = check(&scratch, &kind(bumped, &changed, &all_upcasters), false);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("Renamed version 1: its schema file is missing"),
        "{problems:?}"
    );
    let problems = check(
        &fixtures,
        &kind(vec![("Opened", 1)], &v1, &no_upcasters),
        false,
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("Renamed is not in the catalogue")),
        "{problems:?}"
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}
