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
            if !has_code(&e) {
                e.message = plain_parse_message(&e.message);
                set(&mut e, "code", GRAPHQL_PARSE_FAILED);
            }
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
            if let Some(name) = exact
                .or_else(containing)
                .map(|(name, _)| name.node.to_string())
            {
                set(&mut e, "field", &name);
                e.message = format!("{name}: {}", plain_value_message(&e.message));
            }
            e
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
