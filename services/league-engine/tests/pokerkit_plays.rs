//! The engine against PokerKit, PokerKit choosing: PokerKit plays 2,000 random hands
//! choosing among all its legal actions (`tools/pokerkit_hands.py`), and under the `wsop`
//! preset the engine, at every decision, offers exactly what PokerKit offered there
//! (recorded beside each action): the same player, folding when facing a bet, the same
//! amount to check or call, the same smallest and largest bet or raise. Every hand then
//! ends on PokerKit's stacks. Needs `python3` with PokerKit (`pip install pokerkit`);
//! without it the test fails and says so.
//!
//! CI plays seed 2; `LEAGUE_POKERKIT_SEEDS=1,2,3,4,5` plays 2,000 hands for each seed named.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "integration tests: a panic is the failure report"
)]
use std::path::{Path, PathBuf};
use std::process::Command;

use league_engine::hand::HandState;
use league_engine::phh;
use league_engine::rules::HouseRules;

/// What was offered to the player to act: `legal f cc=400 cbr=600..9000` in the comment.
#[derive(Debug, PartialEq, Eq)]
struct Offered {
    player: String,
    fold: bool,
    check_or_call: Option<u64>,
    bet_or_raise: Option<(u64, u64)>,
}

fn offered_by_pokerkit(text: &str) -> Option<Offered> {
    let (action, comment) = text.split_once('#')?;
    let mut words = comment.split_whitespace();
    assert_eq!(words.next(), Some("legal"), "{text}");
    let mut offered = Offered {
        player: action.split_whitespace().next()?.to_owned(),
        fold: false,
        check_or_call: None,
        bet_or_raise: None,
    };
    for word in words {
        if word == "f" {
            offered.fold = true;
        } else if let Some(amount) = word.strip_prefix("cc=") {
            offered.check_or_call = Some(amount.parse().unwrap());
        } else if let Some(range) = word.strip_prefix("cbr=") {
            let (min, max) = range.split_once("..").unwrap();
            offered.bet_or_raise = Some((min.parse().unwrap(), max.parse().unwrap()));
        } else {
            panic!("{text}: {word:?}");
        }
    }
    Some(offered)
}

fn offered_by_the_engine(state: &HandState) -> Option<Offered> {
    let legal = state.legal_actions()?;
    Some(Offered {
        player: format!("p{}", u32::from(legal.seat) + 1),
        // The engine lets a player fold at any time; PokerKit offers it facing a bet.
        fold: legal.call.is_some(),
        check_or_call: if legal.can_check { Some(0) } else { legal.call },
        bet_or_raise: legal.bet_or_raise.map(|range| (range.min, range.max)),
    })
}

fn play(seed: u32, hands: u32) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("league-pokerkit-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/pokerkit_hands.py");
    let played = Command::new("python3")
        .arg(&script)
        .args(["--hands", &hands.to_string(), "--seed", &seed.to_string()])
        .arg("--out")
        .arg(&dir)
        .output()
        .expect("python3 must be installed to run PokerKit, the referee");
    assert!(
        played.status.success(),
        "pokerkit_hands.py failed (is PokerKit installed? `pip install pokerkit`):\n{}",
        String::from_utf8_lossy(&played.stderr)
    );
    dir
}

#[test]
fn at_every_decision_of_2000_hands_pokerkit_played_the_engine_offers_what_it_offered() {
    let seeds = std::env::var("LEAGUE_POKERKIT_SEEDS").unwrap_or_else(|_| "2".into());
    for seed in seeds.split(',') {
        let seed = seed
            .trim()
            .parse()
            .expect("LEAGUE_POKERKIT_SEEDS: seeds, comma-separated");
        the_engine_offers_what_pokerkit_offered(seed);
    }
}

fn the_engine_offers_what_pokerkit_offered(seed: u32) {
    let dir = play(seed, 2000);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2000);
    let (mut decisions, mut raises, mut straddled, mut short_straddles) = (0, 0, 0, 0);
    let (mut short_bets, mut heads_up) = (0, 0);
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let hand = phh::parse(&text).unwrap();
        let straddles = &hand.blinds_or_straddles[2.min(hand.blinds_or_straddles.len())..];
        if let Some(&straddle) = straddles.first().filter(|&&s| s > 0) {
            straddled += 1;
            short_straddles += usize::from(hand.starting_stacks[2] < straddle + hand.antes[2]);
        }
        heads_up += usize::from(hand.starting_stacks.len() == 2);
        let min_bet = hand.min_bet;
        let replayed = phh::replay_observed(&hand, HouseRules::wsop(), |state, action| {
            let Some(pokerkit) = offered_by_pokerkit(action) else {
                return Ok(());
            };
            let engine = offered_by_the_engine(state);
            if engine.as_ref() != Some(&pokerkit) {
                return Err(format!(
                    "PokerKit offered {pokerkit:?}, the engine {engine:?}"
                ));
            }
            decisions += 1;
            raises += usize::from(pokerkit.bet_or_raise.is_some());
            // An all-in opening bet below the smallest bet.
            let short_bet = pokerkit.check_or_call == Some(0)
                && pokerkit.bet_or_raise.is_some_and(|(_, max)| max < min_bet)
                && action.contains(" cbr ");
            short_bets += usize::from(short_bet);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let expected = phh::expected_stacks(hand.finishing_stacks.as_ref().unwrap());
        assert_eq!(replayed.stacks, expected, "{}", file.display());
    }
    // The hands are of the kinds the generator promises.
    assert!(decisions > 15_000, "{decisions} decisions");
    assert!(
        raises > 10_000,
        "{raises} decisions with a bet or raise offered"
    );
    assert!(straddled > 100, "{straddled} hands with a straddle");
    assert!(
        short_straddles > 20,
        "{short_straddles} hands with a short straddle"
    );
    println!(
        "seed {seed}: 2000 hands, {decisions} decisions ({raises} with a bet or raise offered), \
         {straddled} straddled ({short_straddles} short), {short_bets} short all-in \
         opening bets, {heads_up} heads-up: the engine offered what PokerKit \
         offered at every one and ended every hand on PokerKit's stacks"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
