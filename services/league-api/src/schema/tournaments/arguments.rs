//! Each tournament mutation's input and payload type (see [`crate::schema::payloads`]).

use async_graphql::ID;
use league_engine::hand::Seat;

use super::corrections::VoidKind;
use super::inputs::{DealKindName, ScheduleInput, WalkInInput};
use super::rulings::HandKillCause;
use super::types::{ActionKind, ChipCount, PenaltyKind};
use crate::schema::payloads::{command_input, payload};
use crate::schema::scalars;

command_input! {
    /// The input of `scheduleTournament`.
    ScheduleTournamentInput {
        /// The new tournament's id: a UUID of the client's choosing (lowercase, hyphenated;
        /// how a venue offline names a tournament nobody else will), or 1 to 64 ASCII
        /// letters, digits, `-`, `_` or `.`; a UUIDv7 generated when left out (`createdId`
        /// answers it). A malformed id is `BAD_ID`, one already used `ID_TAKEN`.
        id: Option<ID>,
        /// What the host decides: name, venue, start, entry, chips, levels and options.
        schedule: ScheduleInput,
    }
}

payload! {
    /// What `scheduleTournament` did, and the tournament it changed.
    ScheduleTournamentPayload: tournament creates
}

command_input! {
    /// The input of `register`.
    RegisterInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// A walk-in's name and membership number: the staff make them a member of the venue's
        /// league first.
        walk_in: Option<WalkInInput>,
    }
}

payload! {
    /// What `register` did, and the tournament it changed.
    RegisterPayload: tournament
}

command_input! {
    /// The input of `unregister`.
    UnregisterInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `unregister` did, and the tournament it changed.
    UnregisterPayload: tournament
}

command_input! {
    /// The input of `lateEntry`.
    LateEntryInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `lateEntry` did, and the tournament it changed.
    LateEntryPayload: tournament
}

command_input! {
    /// The input of `pause`.
    PauseInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
    }
}

payload! {
    /// What `pause` did, and the tournament it changed.
    PausePayload: tournament
}

command_input! {
    /// The input of `resume`.
    ResumeInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
    }
}

payload! {
    /// What `resume` did, and the tournament it changed.
    ResumePayload: tournament
}

command_input! {
    /// The input of `markAbsent`.
    MarkAbsentInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `markAbsent` did, and the tournament it changed.
    MarkAbsentPayload: tournament
}

command_input! {
    /// The input of `arrived`.
    ArrivedInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `arrived` did, and the tournament it changed.
    ArrivedPayload: tournament
}

command_input! {
    /// The input of `removeAbsent`.
    RemoveAbsentInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `removeAbsent` did, and the tournament it changed.
    RemoveAbsentPayload: tournament
}

command_input! {
    /// The input of `announceRebuy`.
    AnnounceRebuyInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `announceRebuy` did, and the tournament it changed.
    AnnounceRebuyPayload: tournament
}

command_input! {
    /// The input of `declineRebuy`.
    DeclineRebuyInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `declineRebuy` did, and the tournament it changed.
    DeclineRebuyPayload: tournament
}

command_input! {
    /// The input of `movePlayer`.
    MovePlayerInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// The table to move the player to, from 1.
        to_table: u32,
        /// The free seat at `toTable`, from 0.
        to_seat: Seat,
    }
}

payload! {
    /// What `movePlayer` did, and the tournament it changed.
    MovePlayerPayload: tournament
}

command_input! {
    /// The input of `start`.
    StartInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
    }
}

payload! {
    /// What `start` did, and the tournament it changed.
    StartPayload: tournament
}

command_input! {
    /// The input of `advanceLevel`.
    AdvanceLevelInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The level to start (1-based), as the host's screen shows the next one: started only if
        /// the tournament is on the level before it, so two devices pressing at once start it once
        /// (the other gets `CONFLICT` with the current `level`). Omitted: whatever level is next
        /// when the command runs.
        level: Option<u32>,
    }
}

payload! {
    /// What `advanceLevel` did, and the tournament it changed.
    AdvanceLevelPayload: tournament
}

command_input! {
    /// The input of `startHand`.
    StartHandInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The new hand's id: a UUID of the client's choosing (lowercase, hyphenated), not
        /// one of the tournament's hands already (`ID_TAKEN`); a UUIDv7 generated when left
        /// out. `createdId` and the table's `handId` answer it.
        hand_id: Option<ID>,
    }
}

payload! {
    /// What `startHand` did, and the tournament it changed.
    StartHandPayload: tournament creates
}

command_input! {
    /// The input of `act`.
    ActInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat's number at the table, from 0.
        seat: Seat,
        /// What the seat does: fold, check, call, bet or raise.
        action: ActionKind,
        /// For a bet or raise, the total the seat puts in this street (raise-to); left out for
        /// fold, check and call.
        amount: Option<scalars::Chips>,
    }
}

payload! {
    /// What `act` did, and the tournament it changed.
    ActPayload: act
}

command_input! {
    /// The input of `dealHole`.
    DealHoleInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat's number at the table, from 0.
        seat: Seat,
        /// The seat's hole cards, e.g. `["As", "Kd"]`.
        cards: Vec<String>,
    }
}

payload! {
    /// What `dealHole` did, and the tournament it changed.
    DealHolePayload: tournament
}

command_input! {
    /// The input of `dealBoard`.
    DealBoardInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The board cards dealt now: three for the flop, one for the turn or river.
        cards: Vec<String>,
    }
}

payload! {
    /// What `dealBoard` did, and the tournament it changed.
    DealBoardPayload: tournament
}

command_input! {
    /// The input of `show`.
    ShowInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat's number at the table, from 0.
        seat: Seat,
        /// Recorded tracking: the cards shown; left out in a dealt hand, where the server knows
        /// them.
        cards: Option<Vec<String>>,
    }
}

payload! {
    /// What `show` did, and the tournament it changed.
    ShowPayload: tournament
}

command_input! {
    /// The input of `muck`.
    MuckInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat's number at the table, from 0.
        seat: Seat,
    }
}

payload! {
    /// What `muck` did, and the tournament it changed.
    MuckPayload: tournament
}

command_input! {
    /// The input of `eliminate`.
    EliminateInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The ids of the players out in this hand.
        players: Vec<ID>,
        /// The player who knocked them out and takes their chips, at the same table.
        by: Option<ID>,
        /// The players went out at separate tables and nobody can tell in which order:
        /// they share the places and split the prizes (Oracle tournament 3). Only where the
        /// house's book says so, for two or more players each at a different table, and
        /// without `by`.
        order_unknown: Option<bool>,
    }
}

payload! {
    /// What `eliminate` did, and the tournament it changed.
    EliminatePayload: tournament
}

command_input! {
    /// The input of `recordChips`.
    RecordChipsInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// Each player's chip count now.
        counts: Vec<ChipCount>,
    }
}

payload! {
    /// What `recordChips` did, and the tournament it changed.
    RecordChipsPayload: tournament
}

command_input! {
    /// The input of `rebuy`.
    RebuyInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `rebuy` did, and the tournament it changed.
    RebuyPayload: tournament
}

command_input! {
    /// The input of `addOn`.
    AddOnInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
    }
}

payload! {
    /// What `addOn` did, and the tournament it changed.
    AddOnPayload: tournament
}

command_input! {
    /// The input of `colourUp`.
    ColourUpInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
    }
}

payload! {
    /// What `colourUp` did, and the tournament it changed.
    ColourUpPayload: tournament
}

command_input! {
    /// The input of `redraw`.
    RedrawInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
    }
}

payload! {
    /// What `redraw` did, and the tournament it changed.
    RedrawPayload: tournament
}

command_input! {
    /// The input of `penalise`.
    PenaliseInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// The penalty: a warning, missed hands or rounds, a forfeiture of chips,
        /// disqualification or elimination.
        penalty: PenaltyKind,
        /// For a penalty counted in hands or rounds, how many.
        count: Option<u32>,
        /// For a forfeiture, the chips removed from play.
        chips: Option<scalars::Chips>,
    }
}

payload! {
    /// What `penalise` did, and the tournament it changed.
    PenalisePayload: tournament
}

command_input! {
    /// The input of `setPayouts`.
    SetPayoutsInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The prizes in cents, first place first; they must add up to the prize pool.
        amounts: Vec<scalars::Cents>,
    }
}

payload! {
    /// What `setPayouts` did, and the tournament it changed.
    SetPayoutsPayload: tournament
}

command_input! {
    /// The input of `deal`.
    DealInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// How the prize money left is shared: chip chop or ICM.
        kind: DealKindName,
        /// The ids of every player left, each having accepted the deal.
        accepted: Vec<ID>,
    }
}

payload! {
    /// What `deal` did, and the tournament it changed.
    DealPayload: tournament
}

command_input! {
    /// The input of `cancelTournament`.
    CancelTournamentInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// Why it is cancelled, as auditors and players will read it: 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `cancelTournament` did, and the tournament it changed.
    CancelTournamentPayload: tournament
}

command_input! {
    /// The input of `reinstate`.
    ReinstateInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player's id, as the league registered them.
        player: ID,
        /// Why the elimination was a mistake, as auditors will read it: 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `reinstate` did, and the tournament it changed.
    ReinstatePayload: tournament
}

command_input! {
    /// The input of `correctChips`.
    CorrectChipsInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The player the chips are taken from, as the league registered them.
        from: ID,
        /// The player they go to, at the same table.
        to: ID,
        /// How many chips move: at least 1, fewer than `from` has.
        chips: scalars::Chips,
        /// What went wrong, as auditors and players will read it (`pot pushed to seat 3,
        /// seat 5 won with the higher kicker`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `correctChips` did, and the tournament it changed.
    CorrectChipsPayload: tournament
}

command_input! {
    /// The input of `correctSeat`.
    CorrectSeatInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The player in the wrong seat, as the league registered them.
        player: ID,
        /// The table of the seat they belong in, from 1 (theirs, or another).
        table: u32,
        /// The seat they belong in, from 0: open, or held by a player who goes to
        /// `player`'s seat.
        seat: Seat,
        /// What went wrong, as auditors and players will read it (`sat down at the wrong
        /// seat after the break`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `correctSeat` did, and the tournament it changed.
    CorrectSeatPayload: tournament
}

command_input! {
    /// The input of `correctButton`.
    CorrectButtonInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat, from 0, of the player who has the button for the next hand.
        button: Seat,
        /// What went wrong, as auditors and players will read it (`last hand's button
        /// was placed one seat early`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `correctButton` did, and the tournament it changed.
    CorrectButtonPayload: tournament
}

command_input! {
    /// The input of `placeUnsoldStack`.
    PlaceUnsoldStackInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The empty seat, from 0.
        seat: Seat,
    }
}

payload! {
    /// What `placeUnsoldStack` did, and the tournament it changed.
    PlaceUnsoldStackPayload: tournament
}

command_input! {
    /// The input of `removeUnsoldStack`.
    RemoveUnsoldStackInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The unsold seat, from 0.
        seat: Seat,
        /// Why, as auditors will read it (`nobody came for the seat by the first break`):
        /// 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `removeUnsoldStack` did, and the tournament it changed.
    RemoveUnsoldStackPayload: tournament
}

command_input! {
    /// The input of `voidHand`.
    VoidHandInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// Why the hand is void: a misdeal, a defective deck or a duplicate card.
        kind: VoidKind,
        /// For MISDEAL and DECK_DEFECT, what happened as auditors will read it (e.g. `seat 3's
        /// first card exposed`): 1 to 200 characters. Left out for DUPLICATE_CARD, whose record is
        /// the card.
        reason: Option<String>,
        /// For DUPLICATE_CARD, the card found twice (e.g. `Qs`); left out otherwise.
        card: Option<String>,
    }
}

payload! {
    /// What `voidHand` did, and the tournament it changed.
    VoidHandPayload: tournament
}

command_input! {
    /// The input of `callClock`.
    CallClockInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat the clock is called on, the player to act (`legalActions.seat`), from 0.
        seat: Seat,
    }
}

payload! {
    /// What `callClock` did, and the tournament it changed.
    CallClockPayload: tournament
}

command_input! {
    /// The input of `actOutOfTurn`.
    ActOutOfTurnInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat that acted before its turn, from 0.
        seat: Seat,
        /// What the player did: fold, check, call, bet or raise.
        action: ActionKind,
        /// For a bet or raise, the total the seat declared for this street (raise-to); left
        /// out for fold, check and call.
        amount: Option<scalars::Chips>,
    }
}

payload! {
    /// What `actOutOfTurn` did, and the tournament it changed.
    ActOutOfTurnPayload: tournament
}

command_input! {
    /// The input of `killHand`.
    KillHandInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat whose hand is dead, from 0.
        seat: Seat,
        /// Why: exposed, a clear intention to fold, fouled, a penalty.
        cause: HandKillCause,
        /// What happened, as auditors and players will read it (`seat 4 turned both cards
        /// face up with two players to act`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `killHand` did, and the tournament it changed.
    KillHandPayload: tournament
}

command_input! {
    /// The input of `retractCall`.
    RetractCallInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat whose call is ruled not binding, from 0.
        seat: Seat,
        /// What the caller misunderstood, as auditors and players will read it (`bet
        /// announced softly as four hundred; the caller put in a 100 chip and said call`):
        /// 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `retractCall` did, and the tournament it changed.
    RetractCallPayload: tournament
}

command_input! {
    /// The input of `forfeitAggression`.
    ForfeitAggressionInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat that loses its aggressive action for the rest of the hand, from 0.
        seat: Seat,
        /// What the player did, as auditors and players will read it (`turned the ace up
        /// after betting 300 on the flop`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `forfeitAggression` did, and the tournament it changed.
    ForfeitAggressionPayload: tournament
}

command_input! {
    /// The input of `impoundPot` and `releasePot`.
    PotRulingInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// Why, as auditors and players will read it (`seat 2 disputes the count of the
        /// call`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `impoundPot` or `releasePot` did, and the tournament it changed.
    PotRulingPayload: tournament
}

command_input! {
    /// The input of `retrieveHand`.
    RetrieveHandInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat whose hand was mucked at the showdown, from 0.
        seat: Seat,
        /// Recorded tracking: the two cards turned up, unless recorded for the seat; left
        /// out in a dealt hand, where the server knows them.
        cards: Option<Vec<String>>,
        /// Why the hand is ruled live (`mucked on the dealer's misread; the cards lay
        /// apart`): 1 to 200 characters.
        reason: String,
    }
}

payload! {
    /// What `retrieveHand` did, and the tournament it changed.
    RetrieveHandPayload: tournament
}

command_input! {
    /// The input of `seeHand`.
    SeeHandInput {
        /// The tournament's id, as scheduled.
        tournament_id: ID,
        /// The table's number, from 1.
        table: u32,
        /// The seat whose hand, mucked at the showdown, is asked for, from 0.
        seat: Seat,
        /// The seat of the player who asks, from 0.
        asked_by: Seat,
        /// Recorded tracking: the two cards turned up, unless recorded for the seat; left
        /// out in a dealt hand, where the server knows them.
        cards: Option<Vec<String>>,
    }
}

payload! {
    /// What `seeHand` did, and the tournament it changed.
    SeeHandPayload: tournament
}
