//! JSON Schemas of the values whose serde impls are written by hand (cards, seeds and
//! commitments, hand values, formulas), so that every event's shape can be described
//! (`league-events` checks those descriptions against the ones checked in). Built only
//! with the `schema` feature: the product does not need it.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::card::Card;
use crate::deck::{Commitment, Seed};
use crate::eval::HandValue;
use crate::points::Formula;

macro_rules! text_schema {
    ($ty:ty, $name:literal, $schema:tt) => {
        impl JsonSchema for $ty {
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

text_schema!(Card, "Card", {
    "description": "A card: its rank (2-9, T, J, Q, K, A) and suit (c, d, h, s), e.g. \"Ah\".",
    "type": "string",
    "pattern": "^[2-9TJQKA][cdhs]$"
});

text_schema!(Seed, "Seed", {
    "description": "A deck's or a draw's 32-byte seed, as 64 lowercase hex digits.",
    "type": "string",
    "pattern": "^[0-9a-f]{64}$"
});

text_schema!(Commitment, "Commitment", {
    "description": "The SHA-256 of a seed committed to before it is used, as 64 lowercase hex digits.",
    "type": "string",
    "pattern": "^[0-9a-f]{64}$"
});

text_schema!(HandValue, "HandValue", {
    "description": "A seven-card hand's strength: 1 (the best, a royal flush) to 7462.",
    "type": "integer",
    "minimum": 1,
    "maximum": 7462
});

text_schema!(Formula, "Formula", {
    "description": "A league points formula, as the league wrote it (The Tournament Director's syntax); checked when read.",
    "type": "string"
});
