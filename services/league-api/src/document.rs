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

use std::collections::HashMap;

use async_graphql::parser::types::{ExecutableDocument, OperationType, Selection, SelectionSet};

use crate::error::ApiError;

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
/// caller may introspect). A document that does not parse is admitted as one request of
/// unknown type: the schema refuses it with the parser's reason.
pub fn admit(
    request: &mut async_graphql::Request,
    introspection: bool,
) -> Result<Admitted, ApiError> {
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
        let admitted = admit(&mut request, true).unwrap();
        assert_eq!(admitted.operation, Some(OperationType::Mutation));
        assert_eq!(admitted.mutations, 4);
        let mut request = async_graphql::Request::new("{ __schema { types { name } } }");
        assert_eq!(
            admit(&mut request, false).unwrap_err().code(),
            crate::error::code::FORBIDDEN
        );
        let mut request = async_graphql::Request::new("{ a(");
        assert_eq!(
            admit(&mut request, true).unwrap(),
            Admitted {
                operation: None,
                mutations: 1
            }
        );
    }
}
