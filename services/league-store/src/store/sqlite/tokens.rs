//! The API's tokens, the idempotency-key lookup and the reachability check on SQLite:
//! the SQL is the same on both backends and written once, in `store/tokens_sql.rs`.

super::super::tokens_sql::token_sql!(sqlx::SqlitePool);
