//! Every error a client receives carries an `extensions.code`, including those async-graphql
//! makes itself before a resolver runs: a document that does not parse
//! (`GRAPHQL_PARSE_FAILED`), one the schema refuses (`GRAPHQL_VALIDATION_FAILED`), and an
//! argument or variable whose value does not fit its type (`BAD_INPUT`, with `field`
//! naming the argument or variable).

use std::sync::Arc;

use async_graphql::extensions::{
    Extension, ExtensionContext, ExtensionFactory, NextParseQuery, NextRequest, NextResolve,
    NextSubscribe, NextValidation, ResolveInfo,
};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{Response, ServerError, ServerResult, ValidationResult, Value, Variables};
use async_graphql_value::Value as ParsedValue;
use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;

use crate::error::code;

pub const GRAPHQL_PARSE_FAILED: &str = "GRAPHQL_PARSE_FAILED";
pub const GRAPHQL_VALIDATION_FAILED: &str = "GRAPHQL_VALIDATION_FAILED";

/// The extension: `Schema::build(..).extension(ErrorCodes)`.
pub struct ErrorCodes;

impl ExtensionFactory for ErrorCodes {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(ErrorCodes)
    }
}

fn has_code(e: &ServerError) -> bool {
    e.extensions
        .as_ref()
        .is_some_and(|x| x.get("code").is_some())
}

fn set(e: &mut ServerError, key: &str, value: &str) {
    e.extensions
        .get_or_insert_with(Default::default)
        .set(key, Value::String(value.to_owned()));
}

/// Whether async-graphql wrote `message` about a value that does not fit its type.
fn is_bad_value(message: &str) -> bool {
    message.starts_with("Failed to parse")
        || message.starts_with("Expected input type")
        || message.starts_with("Invalid value for argument")
        || (message.starts_with("Variable") && message.contains("got invalid value"))
}

/// The first `"name"` quoted in `message` after `after`.
fn quoted_after<'a>(message: &'a str, after: &str) -> Option<&'a str> {
    let rest = &message[message.find(after)? + after.len()..];
    let rest = rest.strip_prefix('"')?;
    Some(&rest[..rest.find('"')?])
}

/// The code (and `field`) of an error async-graphql made.
fn classify(mut e: ServerError, otherwise: &str) -> ServerError {
    if has_code(&e) {
        return e;
    }
    if is_bad_value(&e.message) {
        set(&mut e, "code", code::BAD_INPUT);
        let field = quoted_after(&e.message, "argument ")
            .or_else(|| quoted_after(&e.message, "Variable "))
            .map(|f| f.trim_start_matches('$').to_owned());
        if let Some(field) = field {
            set(&mut e, "field", &field);
        }
    } else {
        set(&mut e, "code", otherwise);
    }
    e
}

/// The innermost type async-graphql could not parse a value as: `Failed to parse "Chips":
/// ...` names `Chips`.
fn failed_type(message: &str) -> Option<&str> {
    quoted_after(message, "Failed to parse ")
}

/// The path (`amount`, `schedule.levels.0.play.minutes`) inside an input value of the one
/// number that does not parse as the type `ty` (a whole number for `Int`, or one of the
/// schema's integer scalars); `None` unless exactly one does, or when a variable stands in
/// the input.
fn failing_path(value: &ParsedValue, ty: &str) -> Option<String> {
    fn fails(ty: &str, leaf: &ParsedValue) -> Option<bool> {
        use crate::schema::scalars;
        use async_graphql::InputType;
        let parsed = |v: &ParsedValue| -> Option<bool> {
            let v = v.clone().into_const()?;
            Some(match ty {
                "Int" => v
                    .clone()
                    .into_json()
                    .ok()
                    .and_then(|n| n.as_u64())
                    .is_none_or(|n| n > u64::from(u32::MAX)),
                "Chips" => scalars::Chips::parse(Some(v)).is_err(),
                "Cents" => scalars::Cents::parse(Some(v)).is_err(),
                "Points" => scalars::Points::parse(Some(v)).is_err(),
                "Position" => scalars::Position::parse(Some(v)).is_err(),
                "Millis" => scalars::Millis::parse(Some(v)).is_err(),
                _ => return None,
            })
        };
        match leaf {
            // The integer types fail on numbers: a negative, a fraction, one too large.
            ParsedValue::Number(_) => parsed(leaf),
            // A variable's value is not in the document.
            ParsedValue::Variable(_) => None,
            _ => Some(false),
        }
    }
    fn walk(
        value: &ParsedValue,
        ty: &str,
        path: &mut Vec<String>,
        found: &mut Vec<String>,
    ) -> bool {
        match value {
            ParsedValue::Object(fields) => {
                for (name, v) in fields {
                    path.push(name.to_string());
                    let known = walk(v, ty, path, found);
                    path.pop();
                    if !known {
                        return false;
                    }
                }
                true
            }
            ParsedValue::List(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push(i.to_string());
                    let known = walk(v, ty, path, found);
                    path.pop();
                    if !known {
                        return false;
                    }
                }
                true
            }
            leaf => match fails(ty, leaf) {
                Some(true) => {
                    found.push(path.join("."));
                    true
                }
                Some(false) => true,
                None => false,
            },
        }
    }
    if !matches!(value, ParsedValue::Object(_)) {
        return None;
    }
    let mut found = Vec::new();
    if !walk(value, ty, &mut Vec::new(), &mut found) {
        return None;
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// async-graphql's words for a value that does not fit, said for people: a count (a seat,
/// a table) below zero or too large reads `Invalid number`; the schema's own scalars
/// (`Chips`, `Cents`, `Points`...) say what they take, without the `Failed to parse` prefix.
fn plain_value_message(message: &str) -> String {
    // async-graphql names each input type a bad value sat in, innermost first:
    // `... (occurred while parsing "PriceInput") (occurred while parsing "ScheduleInput")`.
    const WITHIN: &str = " (occurred while parsing \"";
    let (message, within) = match message.find(WITHIN) {
        Some(at) => {
            let types: Vec<&str> = message[at..]
                .split(WITHIN)
                .filter_map(|t| t.split('"').next())
                .filter(|t| !t.is_empty())
                .collect();
            (&message[..at], format!(" (in {})", types.join(", in ")))
        }
        None => (message, String::new()),
    };
    format!("{}{within}", plain_value_alone(message))
}

/// [`plain_value_message`] of a message without its input types.
fn plain_value_alone(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("Failed to parse \"Int\": ") {
        return match rest {
            "Invalid number" => "expected a whole number of 0 or more".to_owned(),
            detail if detail.starts_with("Only integers from") => {
                format!("expected a whole number: {detail}")
            }
            _ => message.to_owned(),
        };
    }
    message
        .strip_prefix("Failed to parse \"")
        .and_then(|rest| rest.split_once("\": "))
        .map_or_else(|| message.to_owned(), |(_, detail)| detail.to_owned())
}

/// The limit a document's nesting went past, in words, when that is why it was refused:
/// the parser's stack guard (nested list and object values), its bound on nested
/// selections (64), or the schema's on the depth of selections once fragments are spread
/// (32).
fn nesting_limit(message: &str) -> Option<String> {
    if message.contains("stack limit reached") {
        return Some(
            "the document nests lists, objects or selections deeper than the parser's stack \
             limit (a few thousand levels)"
                .to_owned(),
        );
    }
    if message.contains("recursion limit exceeded") {
        return Some(
            "the document nests selections deeper than 64 levels, the most the parser takes"
                .to_owned(),
        );
    }
    let depth = message
        .strip_prefix("The recursion depth of the query cannot be greater than `")?
        .strip_suffix('`')?;
    Some(format!(
        "the document nests selections deeper than {depth} levels (fragments spread), the \
         most the server takes"
    ))
}

/// A parse error's message without the parser's drawing of the line (`--> 1:14 | ^---`):
/// its position is in `locations`.
fn plain_parse_message(message: &str) -> String {
    let expected = message
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("= "));
    match expected {
        Some(what) => format!("the document does not parse: {what}"),
        None => format!("the document does not parse: {}", message.trim()),
    }
}

#[async_graphql::async_trait::async_trait]
impl Extension for ErrorCodes {
    async fn request(&self, ctx: &ExtensionContext<'_>, next: NextRequest<'_>) -> Response {
        let mut response = next.run(ctx).await;
        response.errors = std::mem::take(&mut response.errors)
            .into_iter()
            .map(|e| classify(e, code::BAD_INPUT))
            .collect();
        response
    }

    fn subscribe<'s>(
        &self,
        ctx: &ExtensionContext<'_>,
        stream: BoxStream<'s, Response>,
        next: NextSubscribe<'_>,
    ) -> BoxStream<'s, Response> {
        next.run(ctx, stream)
            .map(|mut response| {
                response.errors = std::mem::take(&mut response.errors)
                    .into_iter()
                    .map(|e| classify(e, code::BAD_INPUT))
                    .collect();
                response
            })
            .boxed()
    }

    async fn parse_query(
        &self,
        ctx: &ExtensionContext<'_>,
        query: &str,
        variables: &Variables,
        next: NextParseQuery<'_>,
    ) -> ServerResult<ExecutableDocument> {
        next.run(ctx, query, variables).await.map_err(|mut e| {
            if has_code(&e) {
                return e;
            }
            // A document past a nesting bound is input past a limit, not broken GraphQL.
            if let Some(limit) = nesting_limit(&e.message) {
                e.message = limit;
                set(&mut e, "code", code::BAD_INPUT);
                return e;
            }
            e.message = plain_parse_message(&e.message);
            set(&mut e, "code", GRAPHQL_PARSE_FAILED);
            e
        })
    }

    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        next.run(ctx).await.map_err(|errors| {
            errors
                .into_iter()
                .map(|e| classify(e, GRAPHQL_VALIDATION_FAILED))
                .collect()
        })
    }

    async fn resolve(
        &self,
        ctx: &ExtensionContext<'_>,
        info: ResolveInfo<'_>,
        next: NextResolve<'_>,
    ) -> ServerResult<Option<Value>> {
        // Every field of every request passes here: only a reference is kept, and the
        // arguments are looked at only when one failed.
        let field = info.field;
        next.run(ctx, info).await.map_err(|mut e| {
            if has_code(&e) || !is_bad_value(&e.message) {
                return e;
            }
            set(&mut e, "code", code::BAD_INPUT);
            // The argument whose value failed: async-graphql reports the value's position.
            // A bad value nested inside an argument (a schedule's level) is reported at its
            // own position: the argument is the last one that starts before it.
            let at = e.locations.first().copied();
            let key = |p: async_graphql::Pos| (p.line, p.column);
            let exact = field
                .arguments
                .iter()
                .find(|(name, value)| Some(value.pos) == at || Some(name.pos) == at);
            let containing = || {
                let at = key(at?);
                field
                    .arguments
                    .iter()
                    .filter(|(name, _)| key(name.pos) <= at)
                    .max_by_key(|(name, _)| key(name.pos))
            };
            if let Some((name, value)) = exact.or_else(containing) {
                // Inside a mutation's `input`: the path to the one value that fails, with
                // the words of its type alone.
                let nested = failed_type(&e.message)
                    .and_then(|ty| failing_path(&value.node, ty))
                    .filter(|path| !path.is_empty());
                match nested {
                    Some(path) => {
                        let words = plain_value_alone(
                            e.message
                                .split(" (occurred while parsing")
                                .next()
                                .unwrap_or(""),
                        );
                        e.message = format!("{path}: {words}");
                        set(&mut e, "field", &path);
                    }
                    None => {
                        let name = name.node.to_string();
                        set(&mut e, "field", &name);
                        e.message = format!("{name}: {}", plain_value_message(&e.message));
                    }
                }
            }
            e
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_past_a_bound_names_the_bound() {
        assert_eq!(
            nesting_limit("recursion limit exceeded."),
            Some(
                "the document nests selections deeper than 64 levels, the most the parser \
                 takes"
                    .to_owned()
            )
        );
        assert_eq!(
            nesting_limit("The recursion depth of the query cannot be greater than `32`"),
            Some(
                "the document nests selections deeper than 32 levels (fragments spread), the \
                 most the server takes"
                    .to_owned()
            )
        );
        assert!(nesting_limit("stack limit reached").is_some());
        assert_eq!(nesting_limit("expected name"), None);
    }

    #[test]
    fn a_parse_error_loses_its_drawing() {
        let pest =
            " --> 1:14\n  |\n1 | { tournaments(\n  |              ^---\n  |\n  = expected name";
        assert_eq!(
            plain_parse_message(pest),
            "the document does not parse: expected name"
        );
    }

    #[test]
    fn a_negative_count_is_said_in_words() {
        assert_eq!(
            plain_value_message("Failed to parse \"Int\": Invalid number"),
            "expected a whole number of 0 or more"
        );
        assert_eq!(plain_value_message("something else"), "something else");
        assert_eq!(
            plain_value_message("Failed to parse \"Chips\": chips are a whole number"),
            "chips are a whole number"
        );
        assert_eq!(
            plain_value_message(
                "Failed to parse \"Int\": Invalid number (occurred while parsing \"PlayLevelInput\") (occurred while parsing \"ScheduleInput\")"
            ),
            "expected a whole number of 0 or more (in PlayLevelInput, in ScheduleInput)"
        );
    }

    #[test]
    fn a_bad_value_names_its_argument_or_variable() {
        let e = classify(
            ServerError::new(
                r#"Invalid value for argument "amount", expected type "Int""#,
                None,
            ),
            GRAPHQL_VALIDATION_FAILED,
        );
        let ext = e.extensions.unwrap();
        assert_eq!(ext.get("code"), Some(&Value::String("BAD_INPUT".into())));
        assert_eq!(ext.get("field"), Some(&Value::String("amount".into())));
        let e = classify(
            ServerError::new("Unknown field \"nope\" on type \"Query\".", None),
            GRAPHQL_VALIDATION_FAILED,
        );
        let ext = e.extensions.unwrap();
        assert_eq!(
            ext.get("code"),
            Some(&Value::String(GRAPHQL_VALIDATION_FAILED.into()))
        );
    }
}
