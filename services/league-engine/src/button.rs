//! Where the button and the blinds go for the next hand.
//!
//! A moving button (Hippodrome) goes to the next player; a dead button (QueenSix 27, WPH 24,
//! Oracle, the invitational's 3.2-3.4) keeps the big blind moving one player at a time, so
//! the small blind or the button may sit in front of an empty seat. When play becomes
//! heads-up the button posts the small blind, and the house says who takes it.
//!
//! The tournament calls [`next_positions`] between hands and builds the hand's blinds from
//! the result ([`Positions::blinds`]); the hand itself never moves the button.

use serde::{Deserialize, Serialize};

use crate::hand::{Blind, BlindKind, RuleError, Seat};
use crate::rules::{ButtonRule, HeadsUpStart, HouseRules};

/// The button and the blinds of one hand. `button` and `small_blind` may be empty seats
/// (a dead button, a dead small blind); the big blind is always a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Positions {
    pub button: Seat,
    pub small_blind: Seat,
    pub big_blind: Seat,
}

impl Positions {
    /// The first hand at a table: the button is drawn (high card, suit order spades >
    /// hearts > diamonds > clubs), and the blinds follow it.
    pub fn first(button: Seat, occupied: &[Seat]) -> Result<Positions, RuleError> {
        if occupied.len() < 2 {
            return Err(RuleError::NotEnoughPlayers {
                players: occupied.len(),
            });
        }
        if occupied.len() == 2 {
            let other = next_occupied(button, occupied);
            return Ok(Positions {
                button,
                small_blind: button,
                big_blind: other,
            });
        }
        let small_blind = next_occupied(button, occupied);
        Ok(Positions {
            button,
            small_blind,
            big_blind: next_occupied(small_blind, occupied),
        })
    }

    /// Heads-up: the button posts the small blind.
    pub fn is_heads_up(&self) -> bool {
        self.button == self.small_blind
    }

    /// The blinds to post: a dead small blind (an empty seat) posts nothing.
    pub fn blinds(&self, occupied: &[Seat], small: u64, big: u64) -> Vec<Blind> {
        let mut blinds = Vec::with_capacity(2);
        if occupied.contains(&self.small_blind) {
            blinds.push(Blind {
                seat: self.small_blind,
                kind: BlindKind::SmallBlind,
                amount: small,
            });
        }
        blinds.push(Blind {
            seat: self.big_blind,
            kind: BlindKind::BigBlind,
            amount: big,
        });
        blinds
    }
}

/// The next occupied seat clockwise after `seat` (which may itself be empty).
fn next_occupied(seat: Seat, occupied: &[Seat]) -> Seat {
    occupied
        .iter()
        .copied()
        .filter(|&s| s > seat)
        .min()
        .or_else(|| occupied.iter().copied().min())
        .unwrap_or(seat)
}

/// The positions of the next hand.
///
/// `occupied` are the seats with players for the next hand; `big_blinds` are the seats that
/// posted the big blind in past hands, most recent last (the Hippodrome's heads-up rule
/// looks back through them).
pub fn next_positions(
    rules: &HouseRules,
    previous: Positions,
    occupied: &[Seat],
    big_blinds: &[Seat],
) -> Result<Positions, RuleError> {
    let mut occupied = occupied.to_vec();
    occupied.sort_unstable();
    occupied.dedup();
    if occupied.len() < 2 {
        return Err(RuleError::NotEnoughPlayers {
            players: occupied.len(),
        });
    }
    if occupied.len() == 2 {
        return Ok(heads_up(rules, previous, &occupied, big_blinds));
    }
    Ok(match rules.button {
        ButtonRule::Moving => {
            let button = next_occupied(previous.button, &occupied);
            let small_blind = next_occupied(button, &occupied);
            Positions {
                button,
                small_blind,
                big_blind: next_occupied(small_blind, &occupied),
            }
        }
        // Everyone posts every blind: the big blind moves one player, the small blind
        // takes last hand's big blind seat and the button last hand's small blind seat,
        // occupied or not (invitational 3.2-3.4 are this rule's three bust-out cases).
        ButtonRule::Dead | ButtonRule::DeadInvitational => Positions {
            button: previous.small_blind,
            small_blind: previous.big_blind,
            big_blind: next_occupied(previous.big_blind, &occupied),
        },
    })
}

fn heads_up(
    rules: &HouseRules,
    previous: Positions,
    occupied: &[Seat],
    big_blinds: &[Seat],
) -> Positions {
    let (a, b) = (occupied[0], occupied[1]);
    let other = |seat: Seat| if seat == a { b } else { a };
    let big_blind = match rules.heads_up_start {
        // Hippodrome: "When play becomes heads-up, the player who had the big blind the most
        // recently is given the button, and his opponent is given the big blind."
        HeadsUpStart::LastBigBlindGetsButton if !previous.is_heads_up() => {
            let most_recent = big_blinds.iter().rev().find(|s| occupied.contains(s));
            match most_recent {
                Some(&seat) => other(seat),
                None => next_occupied(previous.big_blind, occupied),
            }
        }
        // The big blind moves on to the next player, so nobody takes it twice in a row
        // (WPH 26, invitational 3.5), and the small blind is on the button.
        _ => {
            let next = next_occupied(previous.big_blind, occupied);
            if next == previous.big_blind && occupied.contains(&previous.big_blind) {
                other(next)
            } else {
                next
            }
        }
    };
    let button = other(big_blind);
    Positions {
        button,
        small_blind: button,
        big_blind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(button: Seat, small_blind: Seat, big_blind: Seat) -> Positions {
        Positions {
            button,
            small_blind,
            big_blind,
        }
    }

    #[test]
    fn queensix_27_a_dead_button_gives_the_same_player_last_action_twice() {
        // QueenSix 27: "The dealer button remains in position until the appropriate blinds
        // are taken. Players must post all blinds every round. Because of this, last action
        // may be given to the same player for two consecutive hands by the use of a 'dead
        // button.'" Seats 1-5; button 1, SB 2, BB 3; the small blind (2) busts.
        let next =
            next_positions(&HouseRules::queensix(), pos(1, 2, 3), &[1, 3, 4, 5], &[]).unwrap();
        assert_eq!(
            next,
            pos(2, 3, 4),
            "the button stands in front of empty seat 2"
        );
        // Seat 1 is the last to act after the flop again.
    }

    #[test]
    fn invitational_3_2_small_blind_busts() {
        // Invitational 3.2: "the button moves to the now empty seat (the seat vacated by the
        // eliminated small blind). The player, who was the big blind, will now post the
        // small blind."
        let rules = HouseRules::invitational();
        let next = next_positions(&rules, pos(1, 2, 3), &[1, 3, 4, 5], &[]).unwrap();
        assert_eq!(next, pos(2, 3, 4));
        assert_eq!(next.blinds(&[1, 3, 4, 5], 10, 20).len(), 2);
    }

    #[test]
    fn invitational_3_3_big_blind_busts() {
        // Invitational 3.3: "the button moves to the player who was the small blind, the
        // player to the left of the eliminated player will now post the big blind. For
        // this hand there will be no small blind posted. On the next hand, the button will
        // move to the empty seat."
        let rules = HouseRules::invitational();
        let occupied = [1, 2, 4, 5];
        let next = next_positions(&rules, pos(1, 2, 3), &occupied, &[]).unwrap();
        assert_eq!(next, pos(2, 3, 4));
        let blinds = next.blinds(&occupied, 10, 20);
        assert_eq!(blinds.len(), 1, "no small blind this hand");
        assert_eq!(blinds[0].seat, 4);
        let after = next_positions(&rules, next, &occupied, &[]).unwrap();
        assert_eq!(after.button, 3, "the button moves to the empty seat");
    }

    #[test]
    fn invitational_3_4_both_blinds_bust() {
        // Invitational 3.4: "the button moves to the now empty seat (the seat vacated by the
        // eliminated small blind). The player, who is sitting next to the eliminated big
        // blind, will now post the big blind. The next hand, the button will move to next
        // empty seat, and the 2 players on the left of the button will post their blinds."
        let rules = HouseRules::invitational();
        let occupied = [1, 4, 5, 6];
        let next = next_positions(&rules, pos(1, 2, 3), &occupied, &[]).unwrap();
        assert_eq!(next, pos(2, 3, 4));
        assert_eq!(next.blinds(&occupied, 10, 20).len(), 1);
        let after = next_positions(&rules, next, &occupied, &[]).unwrap();
        assert_eq!(after, pos(3, 4, 5));
        assert_eq!(after.blinds(&occupied, 10, 20).len(), 2);
    }

    #[test]
    fn hippodrome_the_button_moves_to_the_next_player() {
        let next =
            next_positions(&HouseRules::hippodrome(), pos(1, 2, 3), &[1, 3, 4, 5], &[]).unwrap();
        assert_eq!(next, pos(3, 4, 5));
    }

    #[test]
    fn heads_up_the_button_posts_the_small_blind_and_nobody_takes_the_big_blind_twice() {
        // WPH 26: "In heads-up play, the small blind is on the button [...] When beginning
        // heads-up play, the button may need to be adjusted to ensure no player takes the big
        // blind twice in a row." Seats 1, 3, 5: button 1, SB 3, BB 5; seat 3 busts.
        for rules in [
            HouseRules::wph(),
            HouseRules::queensix(),
            HouseRules::invitational(),
        ] {
            let next = next_positions(&rules, pos(1, 3, 5), &[1, 5], &[1, 3, 5]).unwrap();
            assert_eq!(next, pos(5, 5, 1), "{:?}", rules.preset);
            // And it alternates from there.
            let after = next_positions(&rules, next, &[1, 5], &[1, 3, 5, 1]).unwrap();
            assert_eq!(after, pos(1, 1, 5));
        }
    }

    #[test]
    fn hippodrome_3_heads_up_the_last_big_blind_gets_the_button() {
        // Hippodrome 3: "When play becomes heads-up, the player who had the big blind the
        // most recently is given the button, and his opponent is given the big blind."
        // Seat 6 came from a broken table where it had just paid the big blind; seat 2 paid
        // it here three hands ago.
        let rules = HouseRules::hippodrome();
        let next = next_positions(&rules, pos(4, 5, 6), &[2, 6], &[2, 4, 5, 6]).unwrap();
        assert_eq!(next, pos(6, 6, 2));
        // Without the history the big blind simply moves on.
        let next = next_positions(&rules, pos(4, 5, 6), &[2, 6], &[]).unwrap();
        assert_eq!(next, pos(6, 6, 2));
        let next = next_positions(&rules, pos(1, 2, 3), &[2, 6], &[6, 2]).unwrap();
        assert_eq!(
            next,
            pos(2, 2, 6),
            "seat 2 had it last, so seat 2 gets the button"
        );
    }

    #[test]
    fn the_first_hand_follows_the_drawn_button() {
        assert_eq!(Positions::first(3, &[1, 3, 7]).unwrap(), pos(3, 7, 1));
        assert_eq!(Positions::first(7, &[3, 7]).unwrap(), pos(7, 7, 3));
        assert!(Positions::first(3, &[3]).is_err());
    }
}
