//! The GraphQL service end to end, an auditor's proofs: the latest signed tree head, an
//! inclusion proof for an event and a consistency proof between two heads, each checked
//! here with the RFC 9162 algorithms against the signed root; `verify` finds an edited
//! byte at its position. On SQLite and (with `LEAGUE_TEST_POSTGRES_URL`) PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use league_api::auth::Role;
use league_engine::tournament::play::Tracking;
use league_store::hash::{from_hex, to_hex};
use league_store::{SealerConfig, SigningKey, merkle};
use league_tests::{TestApp, code, play_to_a_winner, started};
use serde_json::{Value, json};

fn hash(v: &Value) -> [u8; 32] {
    from_hex(v.as_str().unwrap()).unwrap().try_into().unwrap()
}

fn hashes(v: &Value) -> Vec<[u8; 32]> {
    v.as_array().unwrap().iter().map(hash).collect()
}

async fn ask(app: &TestApp, token: &str, query: &str, variables: Value) -> Value {
    let body = app.graphql(Some(token), query, variables).await;
    assert!(body.get("errors").is_none(), "{query}: {body:#}");
    body["data"].clone()
}

async fn an_auditor_proves_the_log_only_grew(app: &TestApp) {
    let key = SigningKey::from_bytes(&[7; 32]);
    let public = to_hex(key.verifying_key().as_bytes());
    let sealer = SealerConfig {
        signing_key: Some(key.clone()),
        sign_every_events: 1,
        ..SealerConfig::default()
    };
    started(app, "p1", "crown", Tracking::Dealt, &["ann", "bob", "cat"]).await;
    app.store.seal_all(&sealer).await.unwrap();
    let auditor = app.token(Role::Auditor, None, None).await;
    const HEAD: &str = "query($n: TreeSize) { treeHead(treeSize: $n) { treeSize root signedAt publicKey signature json } }";
    let old = ask(app, &auditor, HEAD, json!({})).await["treeHead"].clone();
    let old_size = old["treeSize"].as_u64().unwrap();
    assert!(old_size > 0, "{old:#}");
    play_to_a_winner(app, "p1", 15_000, 7).await;
    app.store.seal_all(&sealer).await.unwrap();
    let new = ask(app, &auditor, HEAD, json!({})).await["treeHead"].clone();
    let new_size = new["treeSize"].as_u64().unwrap();
    assert!(new_size > old_size);
    assert_eq!(new["publicKey"], public.as_str());

    // The head as saved JSON: it reads back and its signature holds under the key.
    let saved = league_store::parse_heads(new["json"].as_str().unwrap()).unwrap();
    assert!(saved[0].verify(&key.verifying_key()));
    assert_eq!(to_hex(&saved[0].root), new["root"].as_str().unwrap());
    // The old head, asked for by its size, is the one saved before.
    let again = ask(app, &auditor, HEAD, json!({"n": old_size})).await["treeHead"].clone();
    assert_eq!(again, old);

    // Every event of the old tree is in the new one.
    let events = app.store.read_all(0, 100_000).await.unwrap();
    let new_root = hash(&new["root"]);
    for e in events
        .iter()
        .take(usize::try_from(old_size).unwrap())
        .step_by(7)
    {
        let proof = ask(
            app,
            &auditor,
            "query($p: Position!) { inclusionProof(position: $p) { leafIndex treeSize eventHash leafHash auditPath root } }",
            json!({"p": e.position}),
        )
        .await["inclusionProof"]
            .clone();
        assert_eq!(proof["treeSize"].as_u64(), Some(new_size));
        assert_eq!(proof["eventHash"].as_str().unwrap(), to_hex(&e.hash));
        assert_eq!(hash(&proof["leafHash"]), merkle::leaf_hash(&e.hash));
        assert!(
            merkle::verify_inclusion(
                &merkle::leaf_hash(&e.hash),
                proof["leafIndex"].as_u64().unwrap(),
                new_size,
                &hashes(&proof["auditPath"]),
                &new_root
            ),
            "{proof:#}"
        );
    }
    // The old tree is the start of the new one.
    let proof = ask(
        app,
        &auditor,
        "query($o: TreeSize!) { consistencyProof(oldSize: $o) { oldSize newSize oldRoot newRoot proof } }",
        json!({"o": old_size}),
    )
    .await["consistencyProof"]
        .clone();
    assert_eq!(proof["oldRoot"], old["root"]);
    assert_eq!(proof["newRoot"], new["root"]);
    assert!(merkle::verify_consistency(
        old_size,
        new_size,
        &hash(&old["root"]),
        &new_root,
        &hashes(&proof["proof"])
    ));
    // A proof against another root does not hold.
    assert!(!merkle::verify_consistency(
        old_size,
        new_size,
        &hash(&old["root"]),
        &merkle::leaf_hash(&new_root),
        &hashes(&proof["proof"])
    ));

    // verify: the whole log, against the league's key, every hand decided again.
    const VERIFY: &str = "query($k: String, $f: Position, $t: Position) { verify(publicKey: $k, from: $f, to: $t) { ok eventsChecked treeSize signedSize againstLeagueKey handsRederived outcomesRederived { draws finishes } firstBreak { position kind message } differences { position } } }";
    let v = ask(app, &auditor, VERIFY, json!({"k": public})).await["verify"].clone();
    assert_eq!(v["ok"], true, "{v:#}");
    assert_eq!(v["againstLeagueKey"], true);
    assert_eq!(v["signedSize"].as_u64(), Some(new_size));
    assert!(v["handsRederived"].as_u64().unwrap() >= 1, "{v:#}");
    assert_eq!(v["outcomesRederived"]["draws"], 1, "{v:#}");
    assert_eq!(v["outcomesRederived"]["finishes"], 1, "{v:#}");

    // Bad input is refused, and changes nothing.
    for (vars, expected) in [
        (json!({"k": "zz"}), "BAD_INPUT"),
        (json!({"f": 10, "t": 5}), "BAD_INPUT"),
    ] {
        let body = app.graphql(Some(&auditor), VERIFY, vars).await;
        assert_eq!(code(&body), expected, "{body:#}");
    }
    let beyond = app
        .graphql(
            Some(&auditor),
            "query($p: Position!, $n: TreeSize) { inclusionProof(position: $p, treeSize: $n) { root } }",
            json!({"p": events[0].position, "n": new_size + 1}),
        )
        .await;
    assert_eq!(code(&beyond), "NOT_FOUND", "{beyond:#}");

    // One byte of a payload edited: verify names its position.
    let edited = &events[3];
    let sql = if app.store.backend() == league_store::Backend::Postgres {
        format!(
            "UPDATE events SET payload = set_byte(payload, 1, 32) WHERE position = {}",
            edited.position
        )
    } else {
        format!(
            "UPDATE events SET payload = CAST(substr(payload, 1, 1) || ' ' || substr(payload, 3) AS BLOB) WHERE position = {}",
            edited.position
        )
    };
    assert_eq!(app.store.execute_raw(&sql).await.unwrap(), 1);
    let v = ask(app, &auditor, VERIFY, json!({"k": public})).await["verify"].clone();
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["firstBreak"]["kind"], "HASH_MISMATCH", "{v:#}");
    assert_eq!(v["firstBreak"]["position"].as_u64(), Some(edited.position));
}

league_tests::on_every_backend!(an_auditor_proves_the_log_only_grew);
