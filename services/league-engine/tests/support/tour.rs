//! A given/when/then harness for the tournament aggregate: a [`Game`] holds the state and
//! the log; `when` sends a command that must be accepted (checking the invariants after
//! every event), `refused` sends one that must be refused and checks that nothing changed.
//! Every draw reveals the seed committed to before it: the harness keeps the chain of
//! secrets `secret(base + 1)`, `secret(base + 2)`, ... the way a venue app would.

#![allow(dead_code, reason = "each test file uses part of the harness")]

use std::collections::BTreeMap;

use league_engine::button::{Positions, next_positions};
use league_engine::card::{Card, parse_cards};
use league_engine::deck::{Commitment, Seed};
use league_engine::hand::{Action, Command as HandCommand, Event as HandEvent, HandState, Seat};
use league_engine::rules::Preset;
use league_engine::tournament::colour_up::ColourUpPolicy;
use league_engine::tournament::play::{
    self, Blinds, Denominations, Level, Millis, PlayerId, Schedule, Standing, Tournament,
    TournamentCommand, TournamentError, TournamentEvent, TournamentRules, Tracking,
};
use league_engine::tournament::sim::weekly_schedule;
use league_engine::units::Chips;

/// The `n`-th secret of a chain (`n` from 1).
pub fn secret(n: u32) -> Seed {
    let mut bytes = [0x5e; 32];
    bytes[..4].copy_from_slice(&n.to_le_bytes());
    Seed::from_bytes(bytes)
}

pub fn play_level(small: u64, big: u64) -> Level {
    Level::Play {
        blinds: Blinds {
            small_blind: Chips::new(small),
            big_blind: Chips::new(big),
            ante: league_engine::hand::AnteStructure::None,
        },
        minutes: 20,
    }
}

/// Levels 1-2 play, level 3 a break colouring up the 25s, then play on.
pub fn levels() -> Vec<Level> {
    vec![
        play_level(25, 50),
        play_level(50, 100),
        Level::Break {
            minutes: 10,
            colour_up: Some(Denominations {
                low: Chips::new(25),
                high: Chips::new(100),
            }),
        },
        play_level(100, 200),
        play_level(200, 400),
        play_level(500, 1000),
        play_level(1000, 2000),
    ]
}

/// A plain schedule: 5,000 chips in 25s, $20 + $5 fee, tables of nine, the preset's rules.
pub fn schedule(preset: Preset, tracking: Tracking) -> Schedule {
    Schedule {
        name: "test night".into(),
        levels: levels(),
        ..weekly_schedule("test-venue", preset, tracking, secret(1).commitment())
    }
}

pub fn cards(s: &str) -> Vec<Card> {
    parse_cards(s).unwrap()
}

pub fn two(s: &str) -> [Card; 2] {
    <[Card; 2]>::try_from(cards(s)).unwrap()
}

pub fn id(n: usize) -> PlayerId {
    PlayerId::new(format!("p{n:02}"))
}

pub struct Game {
    pub state: Tournament,
    pub log: Vec<TournamentEvent>,
    /// The number of the secret behind the current commitment.
    next: u32,
    pub clock: Millis,
}

impl Game {
    /// Given: nothing yet.
    pub fn fresh() -> Game {
        Game {
            state: Tournament::new(),
            log: Vec::new(),
            next: 1,
            clock: 0,
        }
    }

    /// Given: a tournament scheduled with `schedule` (its draw commitment is replaced by
    /// the harness's first secret).
    pub fn scheduled(mut schedule: Schedule) -> Game {
        schedule.draw_commitment = secret(1).commitment();
        let mut game = Game {
            state: Tournament::new(),
            log: Vec::new(),
            next: 1,
            clock: 0,
        };
        game.when(TournamentCommand::Schedule(Box::new(schedule)));
        game
    }

    /// Given: `schedule` with players `p01..` registered.
    pub fn registered(schedule: Schedule, players: usize) -> Game {
        let mut game = Game::scheduled(schedule);
        for n in 1..=players {
            game.when(TournamentCommand::Register { player: id(n) });
        }
        game
    }

    /// Given: `schedule` with `players` registered and the draw made.
    pub fn started(schedule: Schedule, players: usize) -> Game {
        let mut game = Game::registered(schedule, players);
        game.start();
        game
    }

    /// When: the command is accepted. The events are applied one by one, with the
    /// invariants checked after each.
    pub fn when(&mut self, command: TournamentCommand) -> Vec<TournamentEvent> {
        let events = play::decide(&self.state, &command)
            .unwrap_or_else(|e| panic!("{command:?} refused: {e:?}"));
        for event in &events {
            play::apply(&mut self.state, event);
            if let Err(e) = self.state.check_invariants() {
                panic!("after {event:?}: {e}");
            }
        }
        self.log.extend(events.iter().cloned());
        events
    }

    /// When: the command is refused; then nothing happened and nothing changed.
    pub fn refused(&self, command: TournamentCommand) -> TournamentError {
        let before = self.state.clone();
        let result = play::decide(&self.state, &command);
        assert_eq!(self.state, before, "a refusal changes nothing");
        match result {
            Ok(events) => panic!("{command:?} accepted with {events:?}"),
            Err(e) => e,
        }
    }

    /// The seed behind the current commitment, and the commitment to the next one.
    pub fn reveal(&mut self) -> (Seed, Commitment) {
        let seed = secret(self.next);
        self.next += 1;
        (seed, secret(self.next).commitment())
    }

    pub fn tick(&mut self, ms: Millis) -> Millis {
        self.clock += ms;
        self.clock
    }

    pub fn start(&mut self) -> Vec<TournamentEvent> {
        let (seed, next_commitment) = self.reveal();
        let at = self.clock;
        self.when(TournamentCommand::Start {
            at,
            seed,
            next_commitment,
        })
    }

    pub fn advance(&mut self, ms: Millis) -> Vec<TournamentEvent> {
        let at = self.tick(ms);
        self.when(TournamentCommand::AdvanceLevel { at })
    }

    pub fn redraw(&mut self) -> Vec<TournamentEvent> {
        let (seed, next_commitment) = self.reveal();
        self.when(TournamentCommand::Redraw {
            seed,
            next_commitment,
        })
    }

    pub fn race(&mut self) -> Vec<TournamentEvent> {
        let (seed, next) = self.reveal();
        self.when(TournamentCommand::ColourUp {
            seed: Some(seed),
            next_commitment: Some(next),
        })
    }

    /// Replaying the log gives the same state.
    pub fn assert_replays(&self) {
        let mut replay = Tournament::new();
        for event in &self.log {
            play::apply(&mut replay, event);
        }
        assert_eq!(replay, self.state, "replay differs");
    }

    pub fn seat_of(&self, player: &str) -> (u32, Seat) {
        match self.state.player(player).map(|p| p.standing) {
            Some(Standing::Seated { table, seat } | Standing::Busted { table, seat }) => {
                (table, seat)
            }
            other => panic!("{player} is not seated: {other:?}"),
        }
    }

    pub fn table_of(&self, player: &str) -> u32 {
        self.seat_of(player).0
    }

    pub fn player_at(&self, table: u32, seat: Seat) -> PlayerId {
        self.state.tables()[&table].seats[&seat].clone()
    }

    /// Players at a table in seat order.
    pub fn at_table(&self, table: u32) -> Vec<PlayerId> {
        self.state.tables()[&table]
            .seats
            .values()
            .cloned()
            .collect()
    }

    pub fn chips(&self, player: &str) -> u64 {
        self.state.player(player).unwrap().chips.get()
    }

    pub fn hand(&self, table: u32) -> HandState {
        *self.state.tables()[&table].hand().unwrap()
    }

    /// Starts a hand at a recorded table and returns its positions.
    pub fn start_hand(&mut self, table: u32) -> Positions {
        let events = self.when(TournamentCommand::StartHand {
            table,
            seed: None,
            hand_id: None,
        });
        events
            .iter()
            .find_map(|e| match e {
                TournamentEvent::TableHandStarted { positions, .. } => Some(*positions),
                _ => None,
            })
            .unwrap()
    }

    pub fn act(&mut self, table: u32, action: Action) -> Vec<TournamentEvent> {
        let seat = self.hand(table).to_act().expect("someone to act");
        self.when(TournamentCommand::Hand {
            table,
            command: HandCommand::Act { seat, action },
        })
    }

    /// Plays the hand in progress at a recorded table to its end: the players named in
    /// `holes` go all in (or call all in), everyone else checks or folds; then the board
    /// is recorded and the named players show their cards. Returns the events.
    pub fn all_in(
        &mut self,
        table: u32,
        holes: &[(&str, &str)],
        board: &str,
    ) -> Vec<TournamentEvent> {
        let holes: BTreeMap<&str, [Card; 2]> = holes.iter().map(|(p, c)| (*p, two(c))).collect();
        let board = cards(board);
        let mut events = Vec::new();
        // The table's seats as the hand started (players may be unseated once it ends).
        let seats = self.state.tables()[&table].seats.clone();
        let name = |seat: Seat| seats[&seat].clone();
        for _ in 0..100 {
            let Some(hand) = self
                .state
                .tables()
                .get(&table)
                .and_then(|t| t.hand())
                .copied()
            else {
                break;
            };
            if hand.is_over() {
                break;
            }
            let command = if let Some(seat) = hand.to_act() {
                let legal = hand.legal_actions().unwrap();
                let action = if holes.contains_key(name(seat).as_str()) {
                    Action::AllIn
                } else if legal.can_check {
                    Action::Check
                } else {
                    Action::Fold
                };
                HandCommand::Act { seat, action }
            } else if hand.awaiting_board().is_some() {
                let dealt = hand.board().count();
                let n = if dealt == 0 { 3 } else { 1 };
                HandCommand::DealBoard {
                    cards: board[dealt..dealt + n].to_vec(),
                }
            } else if let Some(seat) = hand.to_show() {
                match holes.get(name(seat).as_str()) {
                    Some(cards) => HandCommand::Show {
                        seat,
                        cards: Some(*cards),
                    },
                    None => HandCommand::Muck { seat },
                }
            } else {
                panic!("the hand at table {table} waits for nothing: {hand:?}");
            };
            events.extend(self.when(TournamentCommand::Hand { table, command }));
        }
        events
    }

    /// Plays a hand in which everyone folds to the big blind.
    pub fn fold_round(&mut self, table: u32) -> Positions {
        let positions = self.start_hand(table);
        self.fold_out(table);
        positions
    }

    /// Plays the hand in progress at a table: everyone folds to the big blind (who
    /// checks where they may).
    pub fn fold_out(&mut self, table: u32) {
        while let Some(seat) = self.hand(table).to_act() {
            let legal = self.hand(table).legal_actions().unwrap();
            let action = if legal.can_check {
                Action::Check
            } else {
                Action::Fold
            };
            self.when(TournamentCommand::Hand {
                table,
                command: HandCommand::Act { seat, action },
            });
        }
        assert!(self.hand(table).is_over());
    }

    /// The positions of the next hand at a table, worked out as the dealer would.
    pub fn upcoming(&self, table: u32) -> Positions {
        let occupied: Vec<Seat> = self.state.tables()[&table].seats.keys().copied().collect();
        self.upcoming_with(table, &occupied)
    }

    /// The positions of the next hand at a table if `occupied` were its players' seats.
    pub fn upcoming_with(&self, table: u32, occupied: &[Seat]) -> Positions {
        let mut last = None;
        let mut big_blinds = Vec::new();
        let mut button = None;
        for event in &self.log {
            match event {
                TournamentEvent::TableHandStarted {
                    table: t,
                    positions,
                    ..
                } if *t == table => {
                    last = Some(*positions);
                    big_blinds.push(positions.big_blind);
                }
                TournamentEvent::ButtonCorrected {
                    table: t,
                    button: b,
                    ..
                } if *t == table => {
                    button = Some(*b);
                    last = None;
                    big_blinds.clear();
                }
                TournamentEvent::TournamentStarted { buttons, .. }
                | TournamentEvent::SeatsRedrawn { buttons, .. } => {
                    if let Some(b) = buttons.iter().find(|b| b.table == table) {
                        button = Some(b.button);
                        last = None;
                        big_blinds.clear();
                    }
                }
                _ => {}
            }
        }
        let rules = self.state.schedule().unwrap().preset.rules();
        match last {
            Some(last) => next_positions(&rules, last, occupied, &big_blinds).unwrap(),
            None => Positions::first(button.unwrap(), occupied).unwrap(),
        }
    }

    /// The (place, shared) of a player.
    pub fn place(&self, player: &str) -> (u32, u32) {
        self.state
            .places()
            .into_iter()
            .find(|(p, _, _)| p == player)
            .map(|(_, place, shared)| (place, shared))
            .unwrap()
    }

    /// The final result of a player: (place, shared, prize).
    pub fn finish(&self, player: &str) -> (u32, u32, u64) {
        let r = self
            .state
            .results()
            .expect("finished")
            .iter()
            .find(|r| r.player == player)
            .unwrap();
        (r.place, r.shared, r.prize.get())
    }
}

/// The hand events of the log.
pub fn hand_events(events: &[TournamentEvent]) -> Vec<&HandEvent> {
    events
        .iter()
        .filter_map(|e| match e {
            TournamentEvent::HandEvent { event, .. } => Some(event),
            _ => None,
        })
        .collect()
}

/// A chip-race policy for a preset (WPH runs one only at major events).
pub fn chip_race_rules(preset: Preset) -> TournamentRules {
    let mut house = TournamentRules::for_preset(preset);
    house.colour_up = ColourUpPolicy::ChipRace;
    house
}
