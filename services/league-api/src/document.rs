//! What the server checks of a GraphQL document before the schema sees it, over HTTP and
//! WebSocket alike ([`admit`]): the document is parsed once (the parse is kept for the
//! schema), its shape is held to the bounds below, anonymous introspection is allowed or not
//! as the operator says, and the mutations it runs are counted for the rate limit.
//!
//! - Data selections nest at most [`MAX_DATA_DEPTH`] levels: the views nest a few, and a
//!   deeper document only multiplies work.
//! - Selections under `__schema` and `__type` count against their own bound,
//!   [`MAX_INTROSPECTION_DEPTH`]: the standard introspection query (graphql-js's
//!   `getIntrospectionQuery()`, which GraphiQL, graphql-codegen and Apollo's tools send)
//!   nests `ofType` eight levels under a field's type, 14 levels in all, and is answered.
//! - A document comes to at most [`MAX_SELECTIONS`] selections once its fragments are
//!   spread. Each fragment is measured once here, so a fragment bomb (thirty fragments each
//!   spreading the next twice: a billion selections) is refused at once, before
//!   async-graphql's own checks, which visit every spread one by one, see it.
//!
//! It also keeps automatic persisted queries ([`PersistedQueries`], Apollo's protocol, which
//! urql's and Apollo Client's persisted-query links speak): a tablet on weak pub Wi-Fi sends
//! a document's SHA-256 alone, and its text only the first time the server does not know it.
//! A document is kept only once it has been admitted, and a hash alone is admitted again
//! like the text it stands for, so no bound is passed by hash.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};
use sha2::{Digest as _, Sha256};

use crate::error::{ApiError, code};

/// Deepest data selection accepted (fields nested in fields, fragments spread).
pub const MAX_DATA_DEPTH: usize = 12;
/// Deepest selection accepted under `__schema` or `__type`, counted from the root.
pub const MAX_INTROSPECTION_DEPTH: usize = 24;
/// Most selections a document may come to once every fragment is spread.
pub const MAX_SELECTIONS: u64 = 10_000;

/// What a document was admitted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    /// The type of the operation it runs; `None` when it does not parse, or names no
    /// operation it holds (the schema then refuses it with the reason).
    pub operation: Option<OperationType>,
    /// The mutations it runs: each is a request to the rate limit.
    pub mutations: u32,
}

/// Parses `request`'s document (keeping the parse for the schema) and checks it: its depths
/// and size against the bounds, and introspection against `introspection` (whether this
/// caller may introspect). A request that names a persisted query by its hash alone gets its
/// text from `persisted` first (`PERSISTED_QUERY_NOT_FOUND` when the server does not hold
/// it); one that sends the text with the hash has it kept once admitted. A document that
/// does not parse is admitted as one request of unknown type: the schema refuses it with the
/// parser's reason.
pub fn admit(
    request: &mut async_graphql::Request,
    introspection: bool,
    persisted: &PersistedQueries,
) -> Result<Admitted, ApiError> {
    let keep = persisted.resolve(request)?;
    let admitted = check(request, introspection)?;
    if let Some(hash) = keep {
        persisted.keep(hash, &request.query);
    }
    Ok(admitted)
}

fn check(request: &mut async_graphql::Request, introspection: bool) -> Result<Admitted, ApiError> {
    let wanted = request.operation_name.clone();
    let Ok(doc) = request.parsed_query() else {
        return Ok(Admitted {
            operation: None,
            mutations: 1,
        });
    };
    let shape = Shape::of(doc);
    if let Some(refusal) = shape.refusal() {
        return Err(ApiError::bad_input(refusal));
    }
    if shape.introspection > 0 && !introspection {
        return Err(ApiError::forbidden(
            "this server answers introspection (`__schema`, `__type`) only to callers with a \
             token",
        ));
    }
    let operation = doc
        .operations
        .iter()
        .find(|(name, _)| match (&wanted, name) {
            (Some(wanted), Some(name)) => name.as_str() == wanted,
            (Some(_), None) => false,
            (None, _) => true,
        })
        .map(|(_, op)| op);
    Ok(Admitted {
        operation: operation.map(|op| op.node.ty),
        mutations: operation
            .filter(|op| op.node.ty == OperationType::Mutation)
            .map_or(0, |op| root_fields(doc, &op.node.selection_set.node)),
    })
}

/// The documents clients sent with their SHA-256 (automatic persisted queries), kept by
/// that hash, the oldest forgotten first once they come to more than
/// [`MAX_PERSISTED_BYTES`]. A forgotten document costs its client one more round trip: it
/// sends the text again.
#[derive(Debug, Default)]
pub struct PersistedQueries {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    texts: HashMap<String, Arc<str>>,
    order: VecDeque<String>,
    bytes: usize,
}

/// The most bytes of documents kept for persisted queries.
pub const MAX_PERSISTED_BYTES: usize = 8 << 20;

/// What a client answers to learn that the server does not hold a hash: the message and
/// code Apollo's protocol names, on which the client sends the text.
pub const PERSISTED_QUERY_NOT_FOUND: &str = "PersistedQueryNotFound";

impl PersistedQueries {
    /// Puts the text of a hash-only request in place; the hash to keep the text under, when
    /// the request sent both.
    fn resolve(&self, request: &mut async_graphql::Request) -> Result<Option<String>, ApiError> {
        let Some(extension) = request.extensions.get("persistedQuery") else {
            return Ok(None);
        };
        let refused = |why: &str| {
            ApiError::bad_input(format!("extensions.persistedQuery: {why}"))
                .with_field("extensions.persistedQuery")
        };
        let extension = extension
            .clone()
            .into_json()
            .map_err(|_| refused("not an object"))?;
        if extension.get("version").and_then(serde_json::Value::as_u64) != Some(1) {
            return Err(refused("only version 1 is known"));
        }
        let hash = extension
            .get("sha256Hash")
            .and_then(serde_json::Value::as_str)
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| refused("`sha256Hash` is 64 hex digits"))?
            .to_ascii_lowercase();
        if request.query.is_empty() {
            let text = self
                .kept
                .lock()
                .ok()
                .and_then(|kept| kept.texts.get(&hash).cloned());
            return match text {
                Some(text) => {
                    request.query = text.to_string();
                    Ok(None)
                }
                None => Err(ApiError::client(
                    code::PERSISTED_QUERY_NOT_FOUND,
                    PERSISTED_QUERY_NOT_FOUND,
                )),
            };
        }
        if league_store::hash::to_hex(&Sha256::digest(request.query.as_bytes())) != hash {
            return Err(refused("`sha256Hash` is not the SHA-256 of the query sent"));
        }
        Ok(Some(hash))
    }

    fn keep(&self, hash: String, text: &str) {
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        if text.len() > MAX_PERSISTED_BYTES || kept.texts.contains_key(&hash) {
            return;
        }
        kept.bytes += text.len();
        kept.texts.insert(hash.clone(), Arc::from(text));
        kept.order.push_back(hash);
        while kept.bytes > MAX_PERSISTED_BYTES {
            let Some(oldest) = kept.order.pop_front() else {
                break;
            };
            if let Some(text) = kept.texts.remove(&oldest) {
                kept.bytes -= text.len();
            }
        }
    }
}

/// The top-level fields a mutation runs (fragments spread at its root counted by their
/// fields, each fragment once).
fn root_fields(doc: &ExecutableDocument, set: &SelectionSet) -> u32 {
    fn count<'a>(
        doc: &'a ExecutableDocument,
        set: &'a SelectionSet,
        seen: &mut Vec<&'a str>,
    ) -> u32 {
        set.items.iter().fold(0u32, |n, item| {
            n.saturating_add(match &item.node {
                Selection::Field(_) => 1,
                Selection::InlineFragment(f) => count(doc, &f.node.selection_set.node, seen),
                Selection::FragmentSpread(spread) => {
                    let name = spread.node.fragment_name.node.as_str();
                    match doc.fragments.get_key_value(name) {
                        Some((key, f)) if !seen.contains(&name) => {
                            seen.push(key.as_str());
                            count(doc, &f.node.selection_set.node, seen)
                        }
                        _ => 0,
                    }
                }
            })
        })
    }
    count(doc, set, &mut Vec::new())
}

/// How deep a document's data and introspection selections go, and how many selections it
/// comes to with its fragments spread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    pub data: usize,
    pub introspection: usize,
    pub selections: u64,
}

impl Shape {
    /// The shape of every operation of `doc` together. Each fragment is measured once (per
    /// whether it is spread inside introspection), and a cycle of fragments, which
    /// validation refuses, counts what it reaches before it turns round.
    pub fn of(doc: &ExecutableDocument) -> Shape {
        let mut walker = Walker {
            doc,
            measured: HashMap::new(),
            on_path: Vec::new(),
        };
        doc.operations
            .iter()
            .map(|(_, op)| walker.set(&op.node.selection_set.node, false))
            .fold(Shape::default(), Shape::beside)
    }

    /// The refusal, in words, when a bound is passed.
    pub fn refusal(self) -> Option<String> {
        if self.selections > MAX_SELECTIONS {
            Some(format!(
                "the document comes to more than {MAX_SELECTIONS} selections once its fragments \
                 are spread, the most the server takes"
            ))
        } else if self.data > MAX_DATA_DEPTH {
            Some(format!(
                "the document nests data selections deeper than {MAX_DATA_DEPTH} levels, the \
                 most the server takes (this one: {})",
                self.data
            ))
        } else if self.introspection > MAX_INTROSPECTION_DEPTH {
            Some(format!(
                "the document nests introspection selections deeper than \
                 {MAX_INTROSPECTION_DEPTH} levels, the most the server takes (this one: {})",
                self.introspection
            ))
        } else {
            None
        }
    }

    /// Two selections side by side: the deeper of each depth, the selections added.
    fn beside(self, other: Shape) -> Shape {
        Shape {
            data: self.data.max(other.data),
            introspection: self.introspection.max(other.introspection),
            selections: self.selections.saturating_add(other.selections),
        }
    }
}

struct Walker<'a> {
    doc: &'a ExecutableDocument,
    /// A fragment's shape, by its name and whether it is spread inside introspection.
    measured: HashMap<(&'a str, bool), Shape>,
    on_path: Vec<&'a str>,
}

impl<'a> Walker<'a> {
    /// The shape below a selection set (a leaf field is depth 1); `introspecting` when the
    /// set is under `__schema` or `__type`.
    fn set(&mut self, set: &'a SelectionSet, introspecting: bool) -> Shape {
        let mut shape = Shape::default();
        for selection in &set.items {
            let below = match &selection.node {
                Selection::Field(field) => {
                    let name = field.node.name.node.as_str();
                    let inside = introspecting || name == "__schema" || name == "__type";
                    let below = self.set(&field.node.selection_set.node, inside);
                    let selections = below.selections.saturating_add(1);
                    if inside {
                        Shape {
                            data: 0,
                            introspection: below.introspection + 1,
                            selections,
                        }
                    } else {
                        Shape {
                            data: below.data + 1,
                            introspection: if below.introspection > 0 {
                                below.introspection + 1
                            } else {
                                0
                            },
                            selections,
                        }
                    }
                }
                Selection::InlineFragment(inline) => {
                    self.set(&inline.node.selection_set.node, introspecting)
                }
                Selection::FragmentSpread(spread) => {
                    self.fragment(spread.node.fragment_name.node.as_str(), introspecting)
                }
            };
            shape = shape.beside(below);
        }
        shape
    }

    fn fragment(&mut self, name: &'a str, introspecting: bool) -> Shape {
        if let Some(shape) = self.measured.get(&(name, introspecting)) {
            return *shape;
        }
        if self.on_path.contains(&name) {
            return Shape::default();
        }
        let Some((key, fragment)) = self.doc.fragments.get_key_value(name) else {
            return Shape::default();
        };
        self.on_path.push(key.as_str());
        let shape = self.set(&fragment.node.selection_set.node, introspecting);
        self.on_path.pop();
        self.measured.insert((key.as_str(), introspecting), shape);
        shape
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use async_graphql::parser::parse_query;

    use super::*;

    fn of(query: &str) -> Shape {
        Shape::of(&parse_query(query).unwrap())
    }

    fn depths(query: &str) -> (usize, usize) {
        let shape = of(query);
        (shape.data, shape.introspection)
    }

    #[test]
    fn data_and_introspection_are_counted_apart() {
        assert_eq!(depths("{ a }"), (1, 0));
        assert_eq!(depths("{ a { b { c } } d }"), (3, 0));
        assert_eq!(
            depths("{ __schema { types { fields { type { ofType { name } } } } } a { b } }"),
            (2, 6)
        );
        assert_eq!(
            depths("query { a { ...F } } fragment F on T { b { ... on T { c { d } } } }"),
            (4, 0)
        );
        // A cycle (refused by validation) counts what it reaches before it turns round.
        assert_eq!(
            depths("{ a { ...F } } fragment F on T { b { ...G } } fragment G on T { ...F c }"),
            (3, 0)
        );
        assert_eq!(of("{ a { b c } d }").selections, 4);
    }

    #[test]
    fn the_standard_introspection_query_is_within_its_bound_and_deep_data_is_not() {
        // graphql-js 16's getIntrospectionQuery(): TypeRef nests ofType eight levels.
        let mut type_ref = "kind name".to_owned();
        for _ in 0..8 {
            type_ref = format!("kind name ofType {{ {type_ref} }}");
        }
        let query = format!(
            "{{ __schema {{ types {{ ...FullType }} }} }}
             fragment FullType on __Type {{
               fields {{ args {{ ...InputValue }} type {{ ...TypeRef }} }}
             }}
             fragment InputValue on __InputValue {{ type {{ ...TypeRef }} }}
             fragment TypeRef on __Type {{ {type_ref} }}"
        );
        let shape = of(&query);
        assert_eq!(shape.data, 0);
        assert_eq!(shape.introspection, 14, "{shape:?}");
        assert_eq!(shape.refusal(), None);

        let deep = format!("{{ {} x {} }}", "a {".repeat(12), "}".repeat(12));
        let refusal = of(&deep).refusal().unwrap();
        assert!(refusal.contains("deeper than 12 levels"), "{refusal}");
        assert!(refusal.contains("this one: 13"), "{refusal}");
        let twelve = format!("{{ {} x {} }}", "a {".repeat(11), "}".repeat(11));
        assert_eq!(of(&twelve).refusal(), None);
    }

    /// Thirty fragments each spreading the next twice: measured once each, and refused for
    /// the billion selections they come to.
    #[test]
    fn a_fragment_bomb_is_measured_once_and_refused() {
        let mut query = "{ a { ...F0 } }".to_owned();
        for i in 0..30 {
            let next = i + 1;
            query.push_str(&format!(" fragment F{i} on T {{ ...F{next} ...F{next} }}"));
        }
        query.push_str(" fragment F30 on T { c }");
        let started = std::time::Instant::now();
        let shape = of(&query);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(shape.data, 2);
        assert_eq!(shape.selections, 1 + (1 << 30));
        let refusal = shape.refusal().unwrap();
        assert!(refusal.contains("more than 10000 selections"), "{refusal}");
    }

    #[test]
    fn mutations_are_counted_at_the_root_of_the_operation_run() {
        let mut request = async_graphql::Request::new(
            "query Q { a } mutation M { a b ...F } fragment F on Mutation { c d }",
        )
        .operation_name("M");
        let admitted = admit(&mut request, true, &PersistedQueries::default()).unwrap();
        assert_eq!(admitted.operation, Some(OperationType::Mutation));
        assert_eq!(admitted.mutations, 4);
        let mut request = async_graphql::Request::new("{ __schema { types { name } } }");
        assert_eq!(
            admit(&mut request, false, &PersistedQueries::default())
                .unwrap_err()
                .code(),
            crate::error::code::FORBIDDEN
        );
        let mut request = async_graphql::Request::new("{ a(");
        assert_eq!(
            admit(&mut request, true, &PersistedQueries::default()).unwrap(),
            Admitted {
                operation: None,
                mutations: 1
            }
        );
    }

    #[test]
    fn a_persisted_query_is_kept_once_admitted_and_found_by_its_hash() {
        let persisted = PersistedQueries::default();
        let text = "{ __typename }";
        let hash = league_store::hash::to_hex(&Sha256::digest(text.as_bytes()));
        let by_hash = |hash: &str| {
            let mut request = async_graphql::Request::new("");
            request.extensions.insert(
                "persistedQuery".to_owned(),
                async_graphql::Value::from_json(
                    serde_json::json!({"version": 1, "sha256Hash": hash}),
                )
                .unwrap(),
            );
            request
        };
        let mut request = by_hash(&hash);
        let refused = admit(&mut request, true, &persisted).unwrap_err();
        assert_eq!(refused.code(), code::PERSISTED_QUERY_NOT_FOUND);
        // The text with a hash that is not its own: refused, and nothing kept.
        let mut request = by_hash(&"0".repeat(64));
        request.query = text.to_owned();
        assert_eq!(
            admit(&mut request, true, &persisted).unwrap_err().code(),
            code::BAD_INPUT
        );
        // The text with its hash: admitted and kept; then the hash alone is enough.
        let mut request = by_hash(&hash);
        request.query = text.to_owned();
        admit(&mut request, true, &persisted).unwrap();
        let mut request = by_hash(&hash.to_ascii_uppercase());
        admit(&mut request, true, &persisted).unwrap();
        assert_eq!(request.query, text);
        // A document refused is not kept, so its hash finds nothing.
        let deep = format!("{{ {} x {} }}", "a {".repeat(20), "}".repeat(20));
        let deep_hash = league_store::hash::to_hex(&Sha256::digest(deep.as_bytes()));
        let mut request = by_hash(&deep_hash);
        request.query = deep;
        assert_eq!(
            admit(&mut request, true, &persisted).unwrap_err().code(),
            code::BAD_INPUT
        );
        let mut request = by_hash(&deep_hash);
        assert_eq!(
            admit(&mut request, true, &persisted).unwrap_err().code(),
            code::PERSISTED_QUERY_NOT_FOUND
        );
    }

    #[test]
    fn the_oldest_persisted_queries_are_forgotten_past_the_bound() {
        let persisted = PersistedQueries::default();
        let big = "x".repeat(MAX_PERSISTED_BYTES / 4 + 1);
        for i in 0..4 {
            persisted.keep(format!("{i:064}"), &big);
        }
        let kept = persisted.kept.lock().unwrap();
        assert_eq!(kept.texts.len(), 3);
        assert!(!kept.texts.contains_key(&format!("{:064}", 0)));
        assert!(kept.bytes <= MAX_PERSISTED_BYTES);
    }
}
