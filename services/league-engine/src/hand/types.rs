//! The setup of a hand: seats, blinds, antes, dealing, streets, and its validation.

use super::*;

/// The most players a hand can seat.
pub const MAX_SEATS: usize = 10;

/// A seat number at the table, `0..MAX_SEATS`.
pub type Seat = u8;

/// A forced bet other than an ante.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum BlindKind {
    SmallBlind,
    BigBlind,
    Straddle,
}

/// One blind or straddle owed at the start of the hand (the full amount; a short stack
/// posts what it has).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Blind {
    pub seat: Seat,
    pub kind: BlindKind,
    pub amount: u64,
}

/// One ante owed at the start of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ante {
    pub seat: Seat,
    pub amount: u64,
}

/// A player dealt into the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SeatSetup {
    pub seat: Seat,
    pub stack: u64,
    /// Dealt in and blinded, and folded when the action reaches them.
    #[serde(default)]
    pub absent: bool,
}

/// How the cards come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Dealing {
    /// The server deals from a deck ordered by a seed whose `sha256` is published here;
    /// the seed is revealed when the hand ends.
    Seeded { commitment: Commitment },
    /// A physical deck: the host records the board and the shown hands.
    Recorded,
}

/// Everything fixed at the start of a hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HandSetup {
    pub button: Seat,
    /// Occupied seats dealt in, in ascending seat order.
    pub seats: Vec<SeatSetup>,
    /// The minimum bet, and the smallest raise.
    pub big_blind: u64,
    pub blinds: Vec<Blind>,
    pub antes: Vec<Ante>,
    /// The smallest chip in play (a tournament's, which colour-ups raise): a split pot is
    /// divided in it, the odd one going by the house's odd-chip rule (QueenSix odd chips 2,
    /// Oracle odd chips 3, Hippodrome ties 2: "broken down to the smallest unit in play"),
    /// and a bet or raise short of all-in is a multiple of it. 1 where chips are single
    /// units (cash tables, PHH hands); hands before release 0.16.0 read with 1.
    #[serde(default = "one_chip", skip_serializing_if = "is_one_chip")]
    pub chip_unit: u64,
    /// Whether the hands of players dealt in absent are dead once the deal ends (QueenSix
    /// tournament 10: "The dealer is instructed to kill the hands of all absent players
    /// immediately after dealing each player a starting hand"; Oracle tournament 1). Where
    /// it is `false` an absent player's hand is folded when the action reaches it, and a
    /// blind or ante that puts them all-in keeps it live. Hands before release 0.16.0 read
    /// with `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub absent_hands_dead: bool,
    pub dealing: Dealing,
    pub rules: HouseRules,
    /// The house's take from each pot (cash tables that rake); tournaments take none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rake: Option<Rake>,
    /// The smallest pot the players may run twice (cash tables that offer it; Hippodrome,
    /// Showdown 8): once the betting is over with cards to come, every player in the hand
    /// is asked, and the rest of the board is dealt twice if all agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_twice: Option<u64>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn one_chip() -> u64 {
    1
}

fn is_one_chip(unit: &u64) -> bool {
    *unit == 1
}

/// The rake a cash table takes from each pot before it is awarded: `basis_points`
/// hundredths of a percent of the pot, rounded down to a whole chip, at most `cap`.
///
/// A pot is every chip the same hands contest when it is awarded: pots whose contenders
/// are the same once the hands that cannot win are out are one pot (as PokerKit, the
/// reference, builds them), so a hand is raked once per pot someone else could have won.
/// The rake is taken from the middle: when every other hand folds, the winner's own bet
/// on the last street, which the dealer never pulls in, is not raked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Rake {
    /// Hundredths of a percent: 500 is 5%. At most 10,000.
    pub basis_points: u16,
    /// The most taken from one pot.
    pub cap: u64,
    /// No flop, no drop: a hand that ends before the flop is not raked.
    pub no_flop_no_drop: bool,
}

impl Rake {
    /// The chips taken from a pot of `amount` (`flop` when the board has cards).
    pub fn of(&self, amount: u64, flop: bool) -> u64 {
        if self.no_flop_no_drop && !flop {
            return 0;
        }
        let share = u128::from(amount) * u128::from(self.basis_points.min(10_000)) / 10_000;
        u64::try_from(share)
            .unwrap_or(u64::MAX)
            .min(self.cap)
            .min(amount)
    }
}

/// The antes of a standard structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum AnteStructure {
    None,
    /// Every player posts the same ante.
    Uniform(u64),
    /// The big blind posts one ante for the table.
    BigBlind(u64),
}

impl HandSetup {
    /// The usual structure: the blinds clockwise from the button (heads-up the button
    /// posts the small blind), antes, and an optional live straddle by the player left of
    /// the big blind. `seats` may be in any order; it is sorted.
    #[expect(
        clippy::too_many_arguments,
        reason = "a blind structure has this many parts"
    )]
    pub fn standard(
        button: Seat,
        mut seats: Vec<SeatSetup>,
        small_blind: u64,
        big_blind: u64,
        antes: AnteStructure,
        straddle: Option<u64>,
        dealing: Dealing,
        rules: HouseRules,
    ) -> Result<HandSetup, RuleError> {
        seats.sort_by_key(|s| s.seat);
        let order = clockwise_from(button, &seats);
        if order.len() < 2 {
            return Err(RuleError::NotEnoughPlayers {
                players: order.len(),
            });
        }
        let (sb, bb) = if order.len() == 2 {
            (order[1], order[0])
        } else {
            (order[0], order[1])
        };
        let mut blinds = vec![
            Blind {
                seat: sb,
                kind: BlindKind::SmallBlind,
                amount: small_blind,
            },
            Blind {
                seat: bb,
                kind: BlindKind::BigBlind,
                amount: big_blind,
            },
        ];
        if let Some(amount) = straddle {
            if order.len() < 3 {
                return Err(RuleError::BadSetup(
                    "a straddle needs three or more players",
                ));
            }
            blinds.push(Blind {
                seat: order[2],
                kind: BlindKind::Straddle,
                amount,
            });
        }
        let antes = match antes {
            AnteStructure::None => Vec::new(),
            AnteStructure::Uniform(amount) => seats
                .iter()
                .map(|s| Ante {
                    seat: s.seat,
                    amount,
                })
                .collect(),
            AnteStructure::BigBlind(amount) => vec![Ante { seat: bb, amount }],
        };
        Ok(HandSetup {
            rake: None,
            run_twice: None,
            button,
            seats,
            big_blind,
            blinds,
            antes,
            chip_unit: 1,
            absent_hands_dead: false,
            dealing,
            rules,
        })
    }
}

/// Occupied seats clockwise from the seat after `button`.
pub(super) fn clockwise_from(button: Seat, seats: &[SeatSetup]) -> Vec<Seat> {
    let mut order: Vec<Seat> = seats.iter().map(|s| s.seat).collect();
    order.sort_unstable();
    let split = order
        .iter()
        .position(|&s| s > button)
        .unwrap_or(order.len());
    order.rotate_left(split);
    order
}

pub(super) fn validate_setup(setup: &HandSetup) -> Result<(), RuleError> {
    let n = setup.seats.len();
    if n < 2 {
        return Err(RuleError::NotEnoughPlayers { players: n });
    }
    if n > MAX_SEATS {
        return Err(RuleError::BadSetup("more players than seats"));
    }
    if setup.seats.iter().any(|s| usize::from(s.seat) >= MAX_SEATS)
        || usize::from(setup.button) >= MAX_SEATS
    {
        return Err(RuleError::BadSetup("seat number out of range"));
    }
    if setup.seats.windows(2).any(|w| w[0].seat >= w[1].seat) {
        return Err(RuleError::BadSetup("seats must be distinct and ascending"));
    }
    if setup.seats.iter().any(|s| s.stack == 0) {
        return Err(RuleError::BadSetup(
            "a player with no chips cannot be dealt in",
        ));
    }
    if setup.big_blind == 0 {
        return Err(RuleError::BadSetup("the big blind must be positive"));
    }
    if setup.chip_unit == 0 {
        return Err(RuleError::BadSetup("the smallest chip must be positive"));
    }
    let known = |seat: Seat| setup.seats.iter().any(|s| s.seat == seat);
    if setup.blinds.iter().any(|b| !known(b.seat)) || setup.antes.iter().any(|a| !known(a.seat)) {
        return Err(RuleError::BadSetup("a blind or ante names an empty seat"));
    }
    let total: Option<u64> = setup
        .seats
        .iter()
        .try_fold(0u64, |acc, s| acc.checked_add(s.stack));
    if total.is_none() {
        return Err(RuleError::BadSetup("stacks overflow"));
    }
    if setup.rake.is_some_and(|r| r.basis_points > 10_000) {
        return Err(RuleError::BadSetup("the rake is at most 100% of a pot"));
    }
    Ok(())
}

/// Streets of the hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Street {
    Preflop,
    Flop,
    Turn,
    River,
}

impl std::fmt::Display for Street {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Street::Preflop => "preflop",
            Street::Flop => "flop",
            Street::Turn => "turn",
            Street::River => "river",
        })
    }
}

impl Street {
    pub(super) fn next(self) -> Option<Street> {
        match self {
            Street::Preflop => Some(Street::Flop),
            Street::Flop => Some(Street::Turn),
            Street::Turn => Some(Street::River),
            Street::River => None,
        }
    }

    /// Board cards dealt on this street.
    pub fn cards(self) -> usize {
        match self {
            Street::Preflop => 0,
            Street::Flop => 3,
            Street::Turn | Street::River => 1,
        }
    }
}
