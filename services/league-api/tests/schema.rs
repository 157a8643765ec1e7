//! The checked-in SDL (`schema/league.graphql`) is what the code builds: run
//! `league schema` after changing the schema.

#[test]
fn the_checked_in_schema_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../schema/league.graphql");
    let checked_in = std::fs::read_to_string(path).unwrap_or_default();
    let code = league_api::sdl();
    assert!(
        checked_in == code,
        "schema/league.graphql differs from the code: run `league schema` and commit it"
    );
}
