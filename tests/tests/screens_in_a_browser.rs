//! The bar-TV screens in a real browser: headless Chromium (Debian's `chromium` and
//! `chromium-driver`) driven through WebDriver against the real server. The tournament
//! screen follows a hand, a level change, a payout and an elimination made through the API,
//! each within a second; it comes back by itself after the server restarts; the
//! leaderboard moves when a result is recorded; the TV rotation cycles; both screens fit
//! 1920x1080 and 1280x720 (screenshots are saved under the target directory) and a phone in
//! portrait; the page loads in under a second, and its JavaScript logs no error.

#![expect(clippy::unwrap_used, reason = "a test")]

use std::path::PathBuf;
use std::time::Duration;

use league_engine::tournament::play::Tracking;
use league_tests::webdriver::Browser;
use league_tests::*;
use serde_json::{Value, json};

/// How soon a change made through the API must be on the screen.
const LIVE: Duration = Duration::from_secs(1);

const LOGO: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The league `apl`: the venues crown (north, shown as "The Crown" with a logo) and pier
/// (south), the season `s1` (best 2 results; 125, 100, 75, 50 points) and four players with
/// names.
async fn the_league(app: &TestApp) {
    for (document, variables) in [
        (
            "mutation { createLeague(input: {id: \"apl\", name: \"Australian Pub League\"}) { events } }",
            json!({}),
        ),
        (
            "mutation { addVenue(input: {leagueId: \"apl\", venue: \"crown\", region: \"north\"}) { events } }",
            json!({}),
        ),
        (
            "mutation { addVenue(input: {leagueId: \"apl\", venue: \"pier\", region: \"south\"}) { events } }",
            json!({}),
        ),
        (
            "mutation($l: String) { setVenueDisplay(input: {leagueId: \"apl\", venue: \"crown\", name: \"The Crown\", logo: $l}) { events } }",
            json!({"l": LOGO}),
        ),
        (
            "mutation { addSeason(input: {leagueId: \"apl\", season: \"s1\", bestN: 2, scoring: {table: [125, 100, 75, 50]}}) { events } }",
            json!({}),
        ),
    ] {
        app.admin(document, variables).await;
    }
    for (id, name) in [
        ("ann", "Ann Archer"),
        ("bob", "Bob Baker"),
        ("cat", "Cat Cole"),
        ("dan", "Dan Dale"),
    ] {
        app.admin(
            "mutation($p: ID!, $n: String!) { registerPlayer(input: {leagueId: \"apl\", player: $p, name: $n, membership: $p}) { events } }",
            json!({"p": id, "n": name}),
        )
        .await;
    }
}

/// Waits for `expression` to hold on the page, at most `within`; panics naming `what`.
async fn seen(browser: &Browser, expression: &str, within: Duration, what: &str) -> Duration {
    match browser.until(expression, within).await {
        Some(took) => took,
        None => {
            let main = browser
                .eval("document.getElementById('main').innerText")
                .await;
            panic!("{what}: not on the page within {within:?} ({expression})\n{main}")
        }
    }
}

/// The chips of every seat of `id`'s tables, as the API answers them.
async fn seats(app: &TestApp, id: &str) -> Vec<(String, u64)> {
    let data = app
        .admin(
            "query($t: ID!) { tournament(id: $t) { tables { seats { player chips } } } }",
            json!({"t": id}),
        )
        .await;
    data["tournament"]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["seats"].as_array().unwrap().clone())
        .map(|s| (s["player"].as_str().unwrap().to_owned(), u(&s["chips"])))
        .collect()
}

/// Whether the page's tables show `seats`' chips, as a page expression.
fn tables_show(seats: &[(String, u64)]) -> String {
    let want: Vec<String> = seats.iter().map(|(p, c)| format!("[{p:?}, {c}]")).collect();
    format!(
        "[{}].every(([p, c]) => {{ const li = document.querySelector('#tables li[data-player=\"' + p + '\"]'); \
         return li !== null && Number(li.dataset.chips) === c; }}) && document.querySelectorAll('#tables li').length === {}",
        want.join(", "),
        seats.len()
    )
}

/// One move at table 1 of `id` chosen by `choose` from the table view (`None`: start the
/// next hand, or show at showdown); returns the view it chose from.
async fn step(
    app: &TestApp,
    id: &str,
    choose: impl Fn(&Value) -> (&'static str, Option<u64>),
) -> Value {
    let data = app.admin(TABLE_VIEW, json!({"t": id})).await;
    let table = &data["table"];
    if table["inHand"] != true {
        app.admin(
            "mutation($t: ID!) { startHand(input: {tournamentId: $t, table: 1}) { events } }",
            json!({"t": id}),
        )
        .await;
    } else if let Some(seat) = table["toShow"].as_u64() {
        app.admin(
            "mutation($t: ID!, $s: Int!) { show(input: {tournamentId: $t, table: 1, seat: $s}) { events } }",
            json!({"t": id, "s": seat}),
        )
        .await;
    } else {
        let (action, amount) = choose(table);
        app.admin(
            ACT,
            json!({"t": id, "table": 1, "seat": table["toAct"], "a": action, "amount": amount}),
        )
        .await;
    }
    data
}

/// Thousands grouped as the page writes them.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Where the test's screenshots go.
fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("screens")
}

/// Whether every part of the screen named, and its text, is inside the viewport (nothing
/// to scroll to, nothing cut off).
const FITS: &str = "[...document.querySelectorAll(arguments[0])].every((e) => { \
    const inside = (r) => r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight + 1 && r.right <= window.innerWidth + 1; \
    const text = document.createRange(); text.selectNodeContents(e); \
    const r = e.getBoundingClientRect(); return r.width > 0 && inside(r) && inside(text.getBoundingClientRect()); }) \
    && document.documentElement.scrollWidth <= window.innerWidth && document.documentElement.scrollHeight <= window.innerHeight";

async fn fits(browser: &Browser, selectors: &str, size: &str) {
    let ok = browser
        .run(&format!("return {FITS};"), json!([selectors]))
        .await;
    assert_eq!(ok, Value::Bool(true), "{selectors} do not fit {size}");
}

#[actix_web::test]
async fn the_bar_tv_screens_follow_the_night_in_a_real_browser() {
    let mut app = spawn_app(Backend::Sqlite).await;
    the_league(&app).await;
    started(
        &app,
        "night",
        "crown",
        Tracking::Dealt,
        &["ann", "bob", "cat", "dan"],
    )
    .await;
    let browser = Browser::start().await;
    browser.viewport(1920, 1080).await;

    // The page loads, and shows the tournament, in under a second.
    browser
        .open(&format!("{}/tournament/night", app.base))
        .await;
    seen(
        &browser,
        "document.body.dataset.updated !== undefined",
        LIVE,
        "the first view",
    )
    .await;
    let loaded = browser
        .eval("performance.getEntriesByType('navigation')[0].loadEventEnd")
        .await;
    let shown = browser
        .eval("Number(document.body.dataset.updated) - performance.timeOrigin")
        .await;
    let (loaded, shown) = (loaded.as_f64().unwrap(), shown.as_f64().unwrap());
    eprintln!("the tournament screen: loaded in {loaded:.0} ms, live view shown at {shown:.0} ms");
    assert!(loaded < 1000.0 && shown < 1000.0, "{loaded} ms, {shown} ms");
    assert_eq!(
        browser
            .eval("document.getElementById('venue').textContent")
            .await,
        "The Crown"
    );
    assert_eq!(
        browser
            .eval("!document.getElementById('logo').hidden && document.getElementById('logo').src")
            .await,
        LOGO
    );
    assert_eq!(
        browser
            .eval("document.getElementById('title').textContent")
            .await,
        "crown weekly"
    );
    let view = app
        .admin(
            "{ tournament(id: \"night\") { level timeLeft levelSpec { smallBlind bigBlind } nextLevel { smallBlind bigBlind } entries remaining } }",
            json!({}),
        )
        .await;
    let t = &view["tournament"];
    assert_eq!(
        browser
            .eval("document.getElementById('remaining').textContent")
            .await,
        format!("{} / {}", t["remaining"], t["entries"])
    );
    assert_eq!(
        browser
            .eval("document.getElementById('blinds').textContent")
            .await,
        format!(
            "{} / {}",
            grouped(u(&t["levelSpec"]["smallBlind"])),
            grouped(u(&t["levelSpec"]["bigBlind"]))
        )
    );
    assert!(
        browser
            .eval("document.getElementById('level').textContent")
            .await
            .as_str()
            .unwrap()
            .starts_with("Level 1"),
    );
    // Names, not ids, at the tables.
    assert!(
        browser
            .eval("document.getElementById('tables').textContent")
            .await
            .as_str()
            .unwrap()
            .contains("Ann Archer")
    );
    // The clock counts down between updates, on the server's time.
    let read_clock = "(() => { const [m, s] = document.getElementById('time').textContent.split(':').map(Number); return m * 60 + s; })()";
    let first = browser.eval(read_clock).await.as_i64().unwrap();
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let later = browser.eval(read_clock).await.as_i64().unwrap();
    assert!(
        (1..=3).contains(&(first - later)),
        "the clock went from {first} s to {later} s in 2.1 s"
    );
    let server_left = i64::try_from(u(&app
        .admin("{ tournament(id: \"night\") { timeLeft } }", json!({}))
        .await["tournament"]["timeLeft"]))
    .unwrap()
        / 1000;
    let page_left = browser.eval(read_clock).await.as_i64().unwrap();
    assert!(
        (server_left - page_left).abs() <= 2,
        "the page shows {page_left} s left, the server {server_left} s"
    );

    // A hand: folded round to the big blind, whose chips grow on the screen.
    assert!(
        browser
            .until(&tables_show(&seats(&app, "night").await), LIVE)
            .await
            .is_some()
    );
    let mut hands = 0;
    loop {
        let before = step(&app, "night", |table| {
            if table["legalActions"]["canFold"] == true {
                ("FOLD", None)
            } else {
                ("CHECK", None)
            }
        })
        .await;
        if before["table"]["inHand"] == true {
            let after = app.admin(TABLE_VIEW, json!({"t": "night"})).await;
            if after["table"]["inHand"] != true {
                hands += 1;
                break;
            }
        }
    }
    assert_eq!(hands, 1);
    let took = seen(
        &browser,
        &tables_show(&seats(&app, "night").await),
        LIVE,
        "the hand's chips",
    )
    .await;
    eprintln!("a hand: on the screen in {took:?}");

    // A level change.
    app.admin(
        "mutation { advanceLevel(input: {tournamentId: \"night\"}) { events } }",
        json!({}),
    )
    .await;
    let next = &t["nextLevel"];
    let blinds = format!(
        "{} / {}",
        grouped(u(&next["smallBlind"])),
        grouped(u(&next["bigBlind"]))
    );
    let took = seen(
        &browser,
        &format!(
            "document.getElementById('level').textContent.startsWith('Level 2') && document.getElementById('blinds').textContent === {blinds:?}"
        ),
        LIVE,
        "level 2",
    )
    .await;
    eprintln!("a level change: on the screen in {took:?}");

    // A payout: the host announces the prizes.
    let pool = u(&app
        .admin("{ tournament(id: \"night\") { prizePool } }", json!({}))
        .await["tournament"]["prizePool"]);
    let (first_prize, second_prize) = (pool - pool * 3 / 10, pool * 3 / 10);
    app.admin(
        "mutation($a: [Cents!]!) { setPayouts(input: {tournamentId: \"night\", amounts: $a}) { events } }",
        json!({"a": [first_prize, second_prize]}),
    )
    .await;
    let money = |c: u64| format!("{}.{:02}", grouped(c / 100), c % 100);
    let took = seen(
        &browser,
        &format!(
            "[...document.querySelectorAll('#prizes li .num')].map((e) => e.textContent).join('|') === {:?}",
            format!("{}|{}", money(first_prize), money(second_prize))
        ),
        LIVE,
        "the payouts",
    )
    .await;
    eprintln!("a payout: on the screen in {took:?}");

    // The server restarts: the screen says it is offline, then comes back by itself, in the
    // same document, and follows the next change.
    browser
        .run("window.sameDocument = 'yes'; return null;", json!([]))
        .await;
    app.stop_server().await;
    seen(
        &browser,
        "document.body.dataset.connection !== 'live' && document.getElementById('status').textContent.startsWith('Offline')",
        Duration::from_secs(20),
        "the offline sign",
    )
    .await;
    browser
        .screenshot(&shots().join("tournament-offline-1920x1080.png"))
        .await;
    app.start_server();
    let took = seen(
        &browser,
        "document.body.dataset.connection === 'live'",
        Duration::from_secs(20),
        "back online",
    )
    .await;
    eprintln!("the server restarted: the screen was live again after {took:?}");
    assert_eq!(
        browser.eval("window.sameDocument").await,
        "yes",
        "the page reloaded"
    );

    // An elimination: two players all in each hand until one is out.
    let out_before = u(&app
        .admin("{ tournament(id: \"night\") { remaining } }", json!({}))
        .await["tournament"]["remaining"]);
    let mut commands = 0;
    loop {
        let remaining = u(&app
            .admin("{ tournament(id: \"night\") { remaining } }", json!({}))
            .await["tournament"]["remaining"]);
        if remaining < out_before {
            break;
        }
        commands += 1;
        assert!(commands < 400, "nobody went out");
        step(&app, "night", |table| {
            let legal = &table["legalActions"];
            let seats = table["seats"].as_array().unwrap();
            let in_hand = |s: &&Value| s["inHand"] == true;
            let all_in = seats.iter().filter(in_hand).any(|s| s["chips"] == 0);
            // The seats that have put in the whole bet to match: the all-in and one caller.
            let matched = seats
                .iter()
                .filter(in_hand)
                .filter(|s| s["bet"] == table["currentBet"])
                .count();
            if !all_in && !legal["betOrRaise"].is_null() {
                ("RAISE_TO", legal["betOrRaise"]["max"].as_u64())
            } else if legal["canCheck"] == true {
                ("CHECK", None)
            } else if !legal["call"].is_null() && matched < 2 {
                ("CALL", None)
            } else {
                ("FOLD", None)
            }
        })
        .await;
    }
    let places = app
        .admin(
            "{ tournament(id: \"night\") { places { player place } } }",
            json!({}),
        )
        .await;
    let out: Vec<(String, u64)> = places["tournament"]["places"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| u(&p["place"]) > 1)
        .map(|p| (p["player"].as_str().unwrap().to_owned(), u(&p["place"])))
        .collect();
    assert!(!out.is_empty());
    let checks: Vec<String> = out
        .iter()
        .map(|(p, place)| {
            format!(
                "(document.querySelector('#eliminations li[data-player=\"{p}\"]') || {{textContent: ''}}).textContent.includes('{place}')"
            )
        })
        .collect();
    let took = seen(&browser, &checks.join(" && "), LIVE, "the elimination").await;
    eprintln!("an elimination: on the screen in {took:?}");
    seen(
        &browser,
        &tables_show(&seats(&app, "night").await),
        LIVE,
        "the tables after it",
    )
    .await;

    // Both TV sizes fit, with nothing to scroll; the screenshots are kept.
    let parts = "#time, #blinds, #level, #next, #remaining, #average, #pool, #prizes, #eliminations, #tables .table, #title, #status";
    for (w, h) in [(1920, 1080), (1280, 720)] {
        browser.viewport(w, h).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        fits(&browser, parts, &format!("{w}x{h}")).await;
        browser
            .screenshot(&shots().join(format!("tournament-{w}x{h}.png")))
            .await;
    }
    // A phone in portrait: one column, nothing wider than the screen.
    browser.viewport(390, 844).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Every figure's own text, not only its box, within the screen's width.
    assert_eq!(
        browser
            .eval("document.documentElement.scrollWidth <= window.innerWidth && \
                   [...document.querySelectorAll('#time, #blinds, .fact .value, #prizes li, #tables li')].every((e) => { \
                     const r = document.createRange(); r.selectNodeContents(e); const b = r.getBoundingClientRect(); \
                     return b.left >= 0 && b.right <= window.innerWidth; })")
            .await,
        true,
        "a figure is wider than a phone"
    );
    browser
        .screenshot(&shots().join("tournament-phone.png"))
        .await;
    browser.viewport(1920, 1080).await;

    // The leaderboard: a first result, then a second that moves it.
    a_results_night(&app, "r1", 1, &["ann", "bob", "cat", "dan"]).await;
    browser
        .open(&format!("{}/leaderboard/apl/s1", app.base))
        .await;
    let rows = "[...document.querySelectorAll('#standings tbody tr')].map((r) => r.dataset.player + ':' + r.dataset.rank + ':' + r.querySelector('.move').textContent).join(' ')";
    let expected = |standings: &Value| -> String {
        standings
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let (rank, previous) = (u(&s["rank"]), s["previousRank"].as_u64());
                let movement = match previous {
                    None => "new".to_owned(),
                    Some(p) if p > rank => format!("▲{}", p - rank),
                    Some(p) if p < rank => format!("▼{}", rank - p),
                    Some(_) => "–".to_owned(),
                };
                format!("{}:{rank}:{movement}", s["player"].as_str().unwrap())
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    const STANDINGS: &str =
        "{ standings(leagueId: \"apl\", season: \"s1\") { rank player previousRank } }";
    let now = expected(&app.admin(STANDINGS, json!({})).await["standings"]);
    seen(
        &browser,
        &format!("{rows} === {now:?}"),
        LIVE,
        "the first standings",
    )
    .await;
    // The tie-break columns and best-N are there.
    let text = browser
        .eval("document.getElementById('main').innerText")
        .await;
    let text = text.as_str().unwrap();
    for column in [
        "POINTS",
        "BEST 2",
        "WINS",
        "FINAL TABLES",
        "SPLIT BY",
        "Ann Archer",
    ] {
        assert!(text.contains(column), "{column} in {text}");
    }
    a_results_night(&app, "r2", 2, &["dan", "cat", "bob", "ann"]).await;
    let moved = expected(&app.admin(STANDINGS, json!({})).await["standings"]);
    assert_ne!(now, moved);
    assert!(moved.contains('▲'), "{moved}");
    let took = seen(
        &browser,
        &format!("{rows} === {moved:?}"),
        LIVE,
        "the standings after r2",
    )
    .await;
    eprintln!("a recorded result: the leaderboard moved in {took:?}");
    for (w, h) in [(1920, 1080), (1280, 720)] {
        browser.viewport(w, h).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        fits(
            &browser,
            "#standings thead, #standings tbody tr:not([hidden]), #title",
            &format!("{w}x{h}"),
        )
        .await;
        browser
            .screenshot(&shots().join(format!("leaderboard-{w}x{h}.png")))
            .await;
    }
    browser.viewport(1920, 1080).await;

    // A region's leaderboard, picked from the filters.
    browser
        .open(&format!("{}/leaderboard/apl/s1?region=south", app.base))
        .await;
    seen(
        &browser,
        "document.getElementById('main').innerText.includes('No results yet') && document.querySelector('.filters a.on').textContent === 'Region south'",
        LIVE,
        "the south's empty leaderboard",
    )
    .await;

    // The TV rotation cycles between the tournament and the leaderboard.
    browser
        .open(&format!(
            "{}/tv?tournament=night&league=apl&season=s1&every=5",
            app.base
        ))
        .await;
    seen(
        &browser,
        "document.body.dataset.shown === 'tournament'",
        LIVE,
        "the TV's tournament",
    )
    .await;
    seen(
        &browser,
        "document.body.dataset.shown === 'leaderboard'",
        Duration::from_secs(7),
        "the TV's leaderboard",
    )
    .await;
    seen(
        &browser,
        "document.body.dataset.shown === 'tournament'",
        Duration::from_secs(7),
        "the TV's tournament again",
    )
    .await;

    // The league and a venue by their codes, as a host types the address.
    app.admin(
        "mutation { setLeagueCode(input: {leagueId: \"apl\", code: \"pub-league\"}) { events } }",
        json!({}),
    )
    .await;
    app.admin(
        "mutation { setVenueCode(input: {leagueId: \"apl\", venue: \"crown\", code: \"the-crown\"}) { events } }",
        json!({}),
    )
    .await;
    browser
        .open(&format!(
            "{}/leaderboard/pub-league/s1?venue=the-crown",
            app.base
        ))
        .await;
    seen(
        &browser,
        "(document.querySelector('.filters a.on') || {}).textContent === 'The Crown' \
         && document.querySelector('.filters a.on').getAttribute('href') === '/leaderboard/pub-league/s1?venue=the-crown' \
         && document.querySelectorAll('#standings tbody tr').length > 0",
        LIVE,
        "the leaderboard by the league's and the venue's codes",
    )
    .await;
    browser
        .open(&format!("{}/leaderboard/no-such-league/s1", app.base))
        .await;
    seen(
        &browser,
        "document.getElementById('main').innerText.includes('There is no league no-such-league.')",
        LIVE,
        "an unknown code",
    )
    .await;

    // The picker lists the league and its season, linked by the league's code.
    browser.open(&format!("{}/", app.base)).await;
    seen(
        &browser,
        "document.querySelector('[data-league=\"apl\"] a[href=\"/leaderboard/pub-league/s1\"]') !== null",
        LIVE,
        "the picker",
    )
    .await;

    // The page's own JavaScript logged nothing wrong. The browser's own reports of the
    // connection refused while the server was down are network errors, not the page's.
    let log = browser.log().await;
    let wrong: Vec<&Value> = log
        .iter()
        .filter(|e| {
            let message = e["message"].as_str().unwrap_or_default();
            let network = e["source"] == "network"
                || message.contains("ERR_CONNECTION_REFUSED")
                || (message.contains("WebSocket connection to") && message.contains("failed"));
            !network && matches!(e["level"].as_str(), Some("SEVERE" | "WARNING"))
        })
        .collect();
    eprintln!(
        "the browser's log: {} entries, {} of them the page's own errors",
        log.len(),
        wrong.len()
    );
    assert!(wrong.is_empty(), "the browser's console: {wrong:#?}");
    eprintln!("screenshots in {}", shots().display());
    browser.quit().await;
    app.stop().await;
}

/// A cardroom's cash games on the bar TV: the venue's running tables with their stakes,
/// seats taken and waiting list, live within a second of a player sitting down, joining the
/// list or cashing out, and a table closed leaves the screen; the picker links the venue's
/// games; the screen fits 1920x1080 and the page logs no error.
#[actix_web::test]
async fn a_venues_cash_games_on_the_bar_tv_in_a_real_browser() {
    let app = spawn_app(Backend::Sqlite).await;
    the_league(&app).await;
    let open = "mutation($i: OpenCashTableInput!) { openCashTable(input: $i) { events } }";
    for (id, name, sb, bb, house) in [
        ("small", "1/2 No-Limit", 1, 2, "ORACLE"),
        ("big", "5/10 No-Limit", 5, 10, "HIPPODROME"),
    ] {
        app.admin(
            open,
            json!({"i": {"id": id, "venue": "crown", "name": name, "house": house,
                "smallBlind": sb, "bigBlind": bb, "minBuyIn": bb * 20, "maxBuyIn": bb * 100, "seats": 6,
                "rake": {"basisPoints": 500, "cap": 6}}}),
        )
        .await;
    }
    let sit = "mutation($i: SitDownInput!) { sitDown(input: $i) { events } }";
    for (seat, player) in [(0, "ann"), (1, "bob")] {
        app.admin(
            sit,
            json!({"i": {"table": "small", "seat": seat, "player": player, "buyIn": 100}}),
        )
        .await;
    }
    let browser = Browser::start().await;
    browser.viewport(1920, 1080).await;
    browser.open(&format!("{}/cash/crown", app.base)).await;
    seen(
        &browser,
        "document.querySelectorAll('#cash-tables [data-table]').length === 2          && document.querySelector('[data-table=\"small\"]').dataset.taken === '2'          && document.querySelector('[data-table=\"big\"]').dataset.taken === '0'",
        Duration::from_secs(3),
        "the venue's two tables",
    )
    .await;
    assert_eq!(
        browser
            .eval("document.getElementById('title').textContent")
            .await,
        "Cash games · The Crown"
    );
    let small = browser
        .eval("document.querySelector('[data-table=\"small\"]').innerText")
        .await;
    let small = small.as_str().unwrap();
    for text in [
        "1/2 No-Limit",
        "1 / 2",
        "Oracle",
        "2 of 6 seats taken",
        "Ann Archer",
        "Bob Baker",
        "nobody",
    ] {
        assert!(small.contains(text), "{text} in {small}");
    }
    // The tables by stakes, the smallest first.
    assert_eq!(
        browser
            .eval("[...document.querySelectorAll('#cash-tables [data-table]')].map(e => e.dataset.table).join(',')")
            .await,
        "small,big"
    );

    // A player sits down, another queues: on the screen within a second.
    app.admin(
        sit,
        json!({"i": {"table": "small", "seat": 2, "player": "cat", "buyIn": 80}}),
    )
    .await;
    app.admin(
        "mutation { joinCashWaitingList(input: {table: \"big\", player: \"dan\"}) { events } }",
        json!({}),
    )
    .await;
    seen(
        &browser,
        "document.querySelector('[data-table=\"small\"]').dataset.taken === '3'          && document.querySelector('[data-table=\"small\"] li[data-player=\"cat\"]').dataset.chips === '80'          && document.querySelector('[data-table=\"big\"]').dataset.waiting === '1'          && document.querySelector('[data-table=\"big\"] .waiting').textContent.includes('Dan Dale')",
        LIVE,
        "a seat taken and the waiting list",
    )
    .await;
    browser
        .screenshot(&shots().join("cash-1920x1080.png"))
        .await;
    fits(&browser, "#cash-tables [data-table]", "1920x1080").await;

    // Bob cashes out; the big table closes and leaves the screen at the next listing.
    app.admin(
        "mutation { cashOut(input: {table: \"small\", seat: 1}) { events } }",
        json!({}),
    )
    .await;
    seen(
        &browser,
        "document.querySelector('[data-table=\"small\"]').dataset.taken === '2'          && document.querySelector('[data-table=\"small\"] li[data-player=\"bob\"]') === null",
        LIVE,
        "a player cashed out",
    )
    .await;
    app.admin(
        "mutation { closeCashTable(input: {id: \"big\"}) { events } }",
        json!({}),
    )
    .await;
    seen(
        &browser,
        "document.querySelectorAll('#cash-tables [data-table]').length === 1",
        LIVE,
        "the closed table gone",
    )
    .await;

    // The picker links the venue's cash games.
    browser.open(&format!("{}/", app.base)).await;
    seen(
        &browser,
        "document.querySelector('#cash-games a[href=\"/cash/crown\"]') !== null          && document.querySelector('#cash-games').innerText.includes('The Crown')          && document.querySelector('#cash-games').innerText.includes('1 table · 2 playing')",
        LIVE,
        "the picker's cash games",
    )
    .await;
    let log = browser.log().await;
    let wrong: Vec<&Value> = log
        .iter()
        .filter(|e| matches!(e["level"].as_str(), Some("SEVERE" | "WARNING")))
        .collect();
    assert!(wrong.is_empty(), "the browser's console: {wrong:#?}");
    browser.quit().await;
    app.stop().await;
}

/// The pages come compressed, the assets cached for good under the release's path, the
/// pages themselves revalidated and allowed to load from and connect to this server only;
/// an unknown asset is a 404.
#[actix_web::test]
async fn the_screens_are_served_compressed_and_cached() {
    let app = spawn_app(Backend::Sqlite).await;
    let client = awc::Client::new();
    let mut page = client
        .get(format!("{}/", app.base))
        .insert_header(("Accept-Encoding", "gzip"))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    assert_eq!(page.headers().get("content-encoding").unwrap(), "gzip");
    assert_eq!(page.headers().get("cache-control").unwrap(), "no-cache");
    // The page may load and connect to this server only.
    let policy = page
        .headers()
        .get("content-security-policy")
        .unwrap()
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'none'",
        "script-src 'self'",
        "connect-src 'self'",
    ] {
        assert!(policy.contains(directive), "{policy}");
    }
    let _ = page.body().await.unwrap();
    let mut plain = client.get(format!("{}/tv", app.base)).send().await.unwrap();
    let html = plain.body().await.unwrap();
    let html = String::from_utf8_lossy(&html);
    let version = env!("CARGO_PKG_VERSION");
    for asset in ["dashboard.js", "dashboard.css"] {
        let path = format!("/dashboard/{version}/{asset}");
        assert!(html.contains(&path), "{path} in {html}");
        let mut response = client
            .get(format!("{}{path}", app.base))
            .insert_header(("Accept-Encoding", "gzip"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{path}");
        assert_eq!(response.headers().get("content-encoding").unwrap(), "gzip");
        assert_eq!(
            response.headers().get("cache-control").unwrap(),
            "public, max-age=31536000, immutable"
        );
        let gzipped = response.body().limit(1 << 20).await.unwrap();
        let mut whole = client
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .unwrap();
        let whole = whole.body().limit(1 << 20).await.unwrap();
        assert!(
            gzipped.len() * 2 < whole.len(),
            "{path}: {} of {}",
            gzipped.len(),
            whole.len()
        );
    }
    let missing = client
        .get(format!("{}/dashboard/{version}/nothing.js", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status().as_u16(), 404);
    app.stop().await;
}
