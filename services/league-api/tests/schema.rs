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

/// The SDL is a venue app's manual: no free `JSON` value anywhere, and every type, field,
/// input field and enum value says what it is.
#[tokio::test]
async fn every_type_and_field_is_typed_and_described() {
    let schema = league_api::schema::build(None);
    let query = "{ __schema { types { name kind description \
        fields { name description type { name ofType { name ofType { name ofType { name } } } } } \
        inputFields { name description } enumValues { name description } } } }";
    let response = schema.execute(query).await;
    assert!(response.errors.is_empty(), "{:?}", response.errors);
    let data = response.data.into_json().unwrap();
    let mut missing = Vec::new();
    let described = |v: &serde_json::Value| {
        v["description"]
            .as_str()
            .is_some_and(|d| !d.trim().is_empty())
    };
    for t in data["__schema"]["types"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        if name.starts_with("__") || ["String", "Int", "Float", "Boolean", "ID"].contains(&name) {
            continue;
        }
        assert_ne!(name, "JSON", "a free JSON scalar is in the schema");
        if !described(t) {
            missing.push(name.to_owned());
        }
        for list in ["fields", "inputFields", "enumValues"] {
            for f in t[list].as_array().into_iter().flatten() {
                if !described(f) {
                    missing.push(format!("{name}.{}", f["name"].as_str().unwrap()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "without a description: {missing:?}");
}
