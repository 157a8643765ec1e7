//! Error messages are for people: the errors whose data is an option, a list, a street, a
//! tracking mode, cards or a misdeal cut-off read as words, never as Rust debug text
//! (`Some(2)`, `["ann"]`, `Flop`, `PlayersActed { .. }`).

use league_engine::card::Card;
use league_engine::hand::{RuleError, Street};
use league_engine::rules::MisdealCutoff;
use league_engine::tournament::draw::DrawError;
use league_engine::tournament::play::{TournamentError, Tracking};
use league_engine::units::PlayerId;

fn assert_plain(message: &str) {
    for debug in [
        "Some(", "None", "[", "]", "\"", "{", "}", "PlayerId", "Card(",
    ] {
        assert!(!message.contains(debug), "{message:?} has {debug:?}");
    }
}

#[test]
fn messages_with_data_read_as_words() {
    let card = |s: &str| s.parse::<Card>().unwrap();
    let players = vec![
        PlayerId::new("ann"),
        PlayerId::new("bob"),
        PlayerId::new("cy"),
    ];
    let messages = [
        RuleError::NotYourTurn {
            expected: Some(2),
            got: 0,
        }
        .to_string(),
        RuleError::NotYourTurn {
            expected: None,
            got: 0,
        }
        .to_string(),
        RuleError::WrongCardCount {
            street: Street::Flop,
            expected: 3,
            got: 2,
        }
        .to_string(),
        RuleError::WrongCards {
            seat: 1,
            got: [card("Ah"), card("Kd")],
        }
        .to_string(),
        RuleError::MisdealPastCutoff {
            cutoff: MisdealCutoff::PlayersActed {
                players: 2,
                never_after_big_blind: true,
            },
        }
        .to_string(),
        RuleError::MisdealPastCutoff {
            cutoff: MisdealCutoff::SubstantialAction,
        }
        .to_string(),
        TournamentError::WrongTracking {
            tracking: Tracking::Results,
        }
        .to_string(),
        TournamentError::WaitingForHandForHand {
            waiting: vec![1, 3],
        }
        .to_string(),
        TournamentError::RebuyDecisionPending {
            players: players.clone(),
        }
        .to_string(),
        TournamentError::DealNotAccepted { missing: players }.to_string(),
        DrawError::Duplicate("ann".into()).to_string(),
    ];
    for message in &messages {
        assert_plain(message);
    }
    assert_eq!(messages[0], "it is not seat 0's turn; seat 2 is to act");
    assert_eq!(
        messages[1],
        "it is not seat 0's turn; no seat is to act now"
    );
    assert_eq!(messages[2], "the flop takes 3 cards, got 2");
    assert_eq!(messages[3], "seat 1 showed Ah Kd but holds other cards");
    assert_eq!(messages[6], "this tournament is tracked as results");
    assert_eq!(
        messages[8],
        "ann, bob and cy must re-buy or decline before the next hand"
    );
}
