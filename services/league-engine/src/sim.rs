//! Random hands played through the engine, for `league phh simulate`, property tests and
//! benchmarks.
//!
//! Seeded, so repeatable: the same seed gives the same hands. The tables are built to
//! reach the corners of the rules: 2 to 10 players with very unequal stacks (side pots are
//! common, and some players cannot cover the blinds or the ante), uniform antes, big-blind
//! antes, live straddles, heads-up, short all-ins, and split pots. Actions are drawn from
//! the engine's own legal actions, so the hands are legal by construction; PokerKit is the
//! independent referee that checks them.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

use crate::deck::Seed;
use crate::hand::{
    self, Action, AnteStructure, Command, Dealing, Event, HandSetup, HandState, RuleError,
    SeatSetup,
};
use crate::rules::HouseRules;

/// Plays random hands from a seed.
pub struct Simulator {
    rng: ChaCha8Rng,
    rules: HouseRules,
}

impl Simulator {
    pub fn new(seed: u64, rules: HouseRules) -> Simulator {
        Simulator {
            rng: ChaCha8Rng::seed_from_u64(seed),
            rules,
        }
    }

    fn below(&mut self, n: u64) -> u64 {
        // Modulo bias is irrelevant for a test-hand generator.
        self.rng.next_u64() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A random table: players, stacks, blinds, antes, straddle, and a dealing seed.
    pub fn table(&mut self) -> (HandSetup, Seed) {
        let players = if self.chance(15) {
            2
        } else {
            2 + self.below(9)
        };
        let big_blind = [2, 10, 100, 200, 1000][usize::try_from(self.below(5)).unwrap_or(0)];
        let small_blind = big_blind / 2;
        let mut seats = Vec::new();
        // Seats spread over the table so that seat numbers are not positions.
        let mut free: Vec<u8> = (0..10).collect();
        for _ in 0..players {
            let i =
                usize::try_from(self.below(u64::try_from(free.len()).unwrap_or(1))).unwrap_or(0);
            let seat = free.swap_remove(i);
            let stack = match self.below(10) {
                0 => 1 + self.below(big_blind * 2), // cannot cover the blinds
                1..=3 => big_blind * (2 + self.below(15)) + self.below(big_blind),
                _ => big_blind * (20 + self.below(180)) + self.below(big_blind),
            };
            seats.push(SeatSetup {
                seat,
                stack,
                absent: false,
            });
        }
        seats.sort_by_key(|s| s.seat);
        let button = seats[usize::try_from(self.below(players)).unwrap_or(0)].seat;
        let antes = match self.below(4) {
            0 => AnteStructure::Uniform((big_blind / 10).max(1)),
            1 => AnteStructure::BigBlind(big_blind),
            _ => AnteStructure::None,
        };
        let straddle = (players >= 4 && self.chance(15)).then_some(big_blind * 2);
        let mut bytes = [0u8; 32];
        self.rng.fill_bytes(&mut bytes);
        let seed = Seed::from_bytes(bytes);
        let setup = HandSetup::standard(
            button,
            seats,
            small_blind,
            big_blind,
            antes,
            straddle,
            Dealing::Seeded {
                commitment: seed.commitment(),
            },
            self.rules,
        );
        match setup {
            Ok(setup) => (setup, seed),
            // Unreachable by construction (2..=10 players); fall back to heads-up.
            Err(_) => self.table(),
        }
    }

    /// The next command a random player would send, or `None` once the hand is over.
    pub fn next_command(&mut self, state: &HandState) -> Option<Command> {
        // Asked to run the board twice: most players agree.
        if let Some(&seat) = state.run_twice_pending().first() {
            let agree = !self.chance(25);
            return Some(Command::RunTwice { seat, agree });
        }
        if let Some(legal) = state.legal_actions() {
            let seat = legal.seat;
            let roll = self.below(100);
            let action = match (legal.call, legal.bet_or_raise) {
                // Facing a bet: fold, call or raise.
                (Some(_), range) => {
                    if roll < 25 {
                        Action::Fold
                    } else if roll < 75 || range.is_none() {
                        Action::Call
                    } else {
                        self.wager(range?, state.chip_unit())
                    }
                }
                (None, Some(range)) if roll >= 60 => self.wager(range, state.chip_unit()),
                _ => Action::Check,
            };
            return Some(Command::Act { seat, action });
        }
        if let Some(seat) = state.to_show() {
            // Losing hands are sometimes mucked; a muck the rules refuse becomes a show.
            if self.chance(20) {
                let muck = Command::Muck { seat };
                if hand::decide(state, &muck).is_ok() {
                    return Some(muck);
                }
            }
            return Some(Command::Show { seat, cards: None });
        }
        None
    }

    /// A bet or raise in `range`, in whole chips of `unit` unless it is the least or the
    /// most.
    fn wager(&mut self, range: hand::BetRange, unit: u64) -> Action {
        let to = match self.below(10) {
            0..=4 => range.min,
            5 => range.max,
            _ => {
                let to = range.min + self.below(range.max - range.min + 1);
                let whole = to / unit * unit;
                if whole > range.min { whole } else { range.min }
            }
        };
        if range.raise {
            Action::RaiseTo(to)
        } else {
            Action::Bet(to)
        }
    }

    /// Plays one hand to the end and returns its events.
    pub fn play(&mut self) -> Result<Vec<Event>, RuleError> {
        let (setup, seed) = self.table();
        let mut state = HandState::new();
        let mut events = Vec::with_capacity(48);
        let mut command = Command::Start {
            setup,
            seed: Some(seed),
        };
        loop {
            let new = hand::decide(&state, &command)?;
            for event in &new {
                hand::apply(&mut state, event);
            }
            events.extend(new);
            match self.next_command(&state) {
                Some(next) => command = next,
                None => return Ok(events),
            }
        }
    }

    /// Plays one hand to the end with [`hand::execute`], reusing `events` (cleared first);
    /// returns the final state (the benchmark's loop).
    pub fn play_into(&mut self, events: &mut Vec<Event>) -> Result<HandState, RuleError> {
        events.clear();
        let (setup, seed) = self.table();
        let mut state = HandState::new();
        let mut command = Command::Start {
            setup,
            seed: Some(seed),
        };
        loop {
            hand::execute(&mut state, &command, events)?;
            match self.next_command(&state) {
                Some(next) => command = next,
                None => return Ok(state),
            }
        }
    }
}
