//! A house's money and entry rules through the API, as a host scheduling a night and a
//! player entering it meet them: the invitational's schedule refused when it breaks its book
//! (with the rule and the field), and its entry by invitation only.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a test")]

use league_api::auth::Role;
use league_engine::rules::Preset;
use league_engine::tournament::play::Tracking;
use league_engine::tournament::sim::weekly_schedule;
use league_tests::{REGISTER, SCHEDULE, TestApp, a_league, code, on_every_backend, seed};
use serde_json::{Value, json};

fn invitational() -> Value {
    let schedule = weekly_schedule(
        "crown",
        Preset::Invitational,
        Tracking::Dealt,
        seed(1).commitment(),
    );
    league_api::schema::tournaments::inputs::schedule_input(&schedule)
}

async fn an_invitational_schedule_that_breaks_its_book_is_refused_with_the_rule(app: &TestApp) {
    a_league(app).await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let last = app.last_position().await;
    let add_on = json!({"price": {"price": 1000}, "chips": 3000, "perPlayer": 1, "untilLevel": 2});
    for (change, field, rule) in [
        (json!({"addOns": add_on}), "schedule.addOns", "1.4"),
        (json!({"houseCut": "FEES"}), "schedule.houseCut", "1.5"),
        (
            json!({"lateRegistration": {"untilLevel": 2}}),
            "schedule.lateRegistration",
            "1.2",
        ),
    ] {
        let mut schedule = invitational();
        for (k, v) in change.as_object().unwrap() {
            schedule[k] = v.clone();
        }
        let body = app
            .graphql(Some(&host), SCHEDULE, json!({"id": "inv", "s": schedule}))
            .await;
        assert_eq!(code(&body), "CONTRADICTS_PRESET", "{field}: {body:#}");
        let extensions = &body["errors"][0]["extensions"];
        assert_eq!(extensions["field"], field, "{body:#}");
        assert_eq!(extensions["rule"], rule, "{body:#}");
        let message = body["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("invitational {rule}:")),
            "{message}"
        );
    }
    // A small blind at three quarters of the big blind (section 3).
    let mut schedule = invitational();
    schedule["levels"][0]["play"]["smallBlind"] = json!(75);
    schedule["levels"][0]["play"]["bigBlind"] = json!(100);
    let body = app
        .graphql(Some(&host), SCHEDULE, json!({"id": "inv", "s": schedule}))
        .await;
    assert_eq!(code(&body), "CONTRADICTS_PRESET", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["rule"], "3", "{body:#}");
    assert_eq!(app.last_position().await, last, "refusals append nothing");
    // As the book has it: taken.
    let body = app
        .graphql(
            Some(&host),
            SCHEDULE,
            json!({"id": "inv", "s": invitational()}),
        )
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

async fn invitational_1_1_by_invitation_only_the_staff_register_and_no_show_ups(app: &TestApp) {
    // Invitational 1.1: "All participants are joining the tournament by invitation only. We
    // do not allow 'show-ups' to participate."
    a_league(app).await;
    app.admin(SCHEDULE, json!({"id": "inv", "s": invitational()}))
        .await;
    let host = app.token(Role::Host, Some("crown"), None).await;
    let ann = app.token(Role::Player, None, Some("ann")).await;
    let last = app.last_position().await;
    // A player cannot enter themselves.
    let body = app
        .graphql(Some(&ann), REGISTER, json!({"t": "inv", "p": "ann"}))
        .await;
    assert_eq!(code(&body), "FORBIDDEN", "{body:#}");
    assert!(
        body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("invitational 1.1"),
        "{body:#}"
    );
    // A walk-in is a show-up.
    let body = app
        .graphql(
            Some(&host),
            "mutation { register(input: {tournamentId: \"inv\", player: \"zoe\", walkIn: {name: \"Zoe\", membership: \"77\"}}) { events } }",
            json!({}),
        )
        .await;
    assert_eq!(code(&body), "CONTRADICTS_PRESET", "{body:#}");
    assert_eq!(body["errors"][0]["extensions"]["field"], "walkIn");
    assert_eq!(app.last_position().await, last, "refusals append nothing");
    // The host registers the players invited.
    let body = app
        .graphql(Some(&host), REGISTER, json!({"t": "inv", "p": "ann"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
    // Under another house a player enters themselves, as before.
    let wph = weekly_schedule("crown", Preset::Wph, Tracking::Dealt, seed(1).commitment());
    let wph = league_api::schema::tournaments::inputs::schedule_input(&wph);
    app.admin(SCHEDULE, json!({"id": "open", "s": wph})).await;
    let body = app
        .graphql(Some(&ann), REGISTER, json!({"t": "open", "p": "ann"}))
        .await;
    assert!(body.get("errors").is_none(), "{body:#}");
}

on_every_backend!(
    an_invitational_schedule_that_breaks_its_book_is_refused_with_the_rule,
    invitational_1_1_by_invitation_only_the_staff_register_and_no_show_ups,
);
