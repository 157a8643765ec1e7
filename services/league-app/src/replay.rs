//! `league audit replay`: one tournament as a person reads it, from its stream: the
//! schedule and its levels, the seat and button draws, every level and break as it
//! started, each hand in the PokerStars layout (every card shown, as an auditor sees a
//! completed hand, and a line for each hand the floor killed), the busts and eliminations (with how many are left; the places are
//! listed when the tournament finishes), re-buys and add-ons, table moves and
//! breaks with the rule and reason the engine gave, colour-ups, penalties, payouts, deals
//! and the final places. A cash table reads the same way: its stakes and the house's take,
//! every player sitting down, topping up, sitting out, coming back and cashing out, the
//! blinds missed, the session fees, each hand (with its rake), and what the house took.

use std::fmt::Write as _;

use league_engine::cash::{Owed, StraddlePolicy};
use league_engine::hand::KillCause;
use league_engine::pokerstars::utc;
use league_engine::tournament::colour_up::ColourUpPolicy;
use league_engine::tournament::deal::DealKind;
use league_engine::tournament::play::{Level, Seating, Stage, TournamentEvent};
use league_engine::tournament::pool::Price;
use league_engine::units::{Cents, PlayerId};
use league_events::StreamKind;
use league_store::{Store, StoreError};

use crate::AppError;
use crate::audit::{CashTracked, Logged, LoggedHand, Tracked, decode_event, fold, fold_cash};

/// The tournament `id` as text, or `None` when the log holds no such tournament.
pub async fn replay(store: &Store, id: &str) -> Result<Option<String>, AppError> {
    let stream = format!("{}{id}", StreamKind::Tournament.prefix());
    let events = match store.read_stream(&stream, 1).await {
        Ok(events) => events,
        Err(StoreError::StreamNotFound(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(first) = events.first() else {
        return Ok(None);
    };
    let mut t = Tracked::new(first.position);
    let mut out = String::new();
    for event in &events {
        let event = Logged::from(event);
        let decoded: TournamentEvent = decode_event(&event)?;
        let at = event.recorded_at.div_euclid(1000);
        // The players still in before an elimination (places are final only at the end,
        // where re-entries may add players).
        let remaining = t
            .state
            .players()
            .values()
            .filter(|e| !matches!(e.standing, league_engine::tournament::play::Standing::Out))
            .count();
        if let Some(hand) = fold(&mut t, &stream, &event, &decoded) {
            out.push('\n');
            match hand.pokerstars() {
                Ok(text) => out.push_str(&text),
                Err(why) => {
                    let _ = writeln!(
                        out,
                        "Hand #{} at table {}: {why}",
                        hand.position, hand.table
                    );
                }
            }
            rulings(&hand, &mut out);
            out.push('\n');
            continue;
        }
        let line = describe(&decoded, remaining);
        if !line.is_empty() {
            let _ = writeln!(out, "[{}] {line}", utc(at));
        }
    }
    if t.state.stage() == Stage::Running {
        out.push_str("\nThe log ends here: the tournament is still running.\n");
    }
    Ok(Some(out))
}

/// The cash table `id` as text, or `None` when the log holds no such table.
pub async fn replay_cash(store: &Store, id: &str) -> Result<Option<String>, AppError> {
    use league_engine::cash::{CashEvent, Entry, HouseTake};
    let stream = format!("{}{id}", StreamKind::Cash.prefix());
    let events = match store.read_stream(&stream, 1).await {
        Ok(events) => events,
        Err(StoreError::StreamNotFound(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(first) = events.first() else {
        return Ok(None);
    };
    let mut t = CashTracked::new(first.position);
    let mut out = String::new();
    for event in &events {
        let logged = Logged::from(event);
        let decoded: CashEvent = decode_event(&logged)?;
        let player = |seat: &u8| {
            t.state.seats.get(seat).map_or_else(
                || format!("seat {}", u32::from(*seat) + 1),
                |s| s.player.to_string(),
            )
        };
        let line = match &decoded {
            CashEvent::TableOpened { config: c, .. } => {
                let take = match c.take {
                    HouseTake::None => "no house take".to_owned(),
                    HouseTake::SessionFee {
                        amount,
                        period_minutes,
                    } => format!("a session fee of {amount} every {period_minutes} min"),
                    HouseTake::Rake(r) => format!(
                        "a rake of {}.{:02}% of each pot, at most {}{}",
                        r.basis_points / 100,
                        r.basis_points % 100,
                        r.cap,
                        if r.no_flop_no_drop {
                            ", no flop no drop"
                        } else {
                            ""
                        }
                    ),
                };
                format!(
                    "Opened: {:?} at venue {}, {}/{} No-Limit, buy-in {} to {}, {} seats, {} rules, {}; {take}",
                    c.name,
                    c.venue,
                    c.small_blind,
                    c.big_blind,
                    c.min_buy_in,
                    c.max_buy_in,
                    c.seats,
                    c.rules.preset.name(),
                    match c.straddle {
                        StraddlePolicy::None => "no straddle",
                        StraddlePolicy::UnderTheGun => "a straddle under the gun",
                        StraddlePolicy::Button => "a straddle on the button",
                    }
                )
            }
            CashEvent::TableClosed { .. } => "Closed: every player cashed out".to_owned(),
            CashEvent::PlayerSeated {
                seat,
                player,
                buy_in,
                entry,
                waits_for_big_blind,
                posts_big_blind,
                ..
            } => format!(
                "{player} sits down at seat {} with {buy_in}{}{}",
                u32::from(*seat) + 1,
                if *entry == Entry::Transfer {
                    " (moved from another game)"
                } else {
                    ""
                },
                if *posts_big_blind {
                    ", posting a big blind"
                } else if *waits_for_big_blind {
                    ", waiting for the big blind"
                } else {
                    ""
                }
            ),
            CashEvent::ChipsAdded { seat, amount } => format!("{} adds {amount}", player(seat)),
            CashEvent::PlayerSatOut { seat, .. } => format!("{} sits out", player(seat)),
            CashEvent::PlayerReturned { seat, posts, .. } => format!(
                "{} comes back, {}",
                player(seat),
                if *posts {
                    "posting what is owed"
                } else {
                    "waiting for the big blind"
                }
            ),
            CashEvent::BlindMissed { seat, blind } => {
                let blind = match blind {
                    Owed::SmallBlind => "small blind",
                    Owed::BigBlind => "big blind",
                };
                format!("{} misses the {blind}", player(seat))
            }
            CashEvent::PlayerCashedOut { player, amount, .. } => {
                format!("{player} cashes out {amount}")
            }
            CashEvent::SeatReserved {
                seat,
                player,
                until,
            } => format!(
                "seat {} held for {player} until {} UTC",
                u32::from(*seat) + 1,
                utc(i64::try_from(*until)
                    .unwrap_or(i64::MAX)
                    .saturating_mul(1000))
            ),
            CashEvent::ReservationCancelled { seat } => {
                format!("seat {} no longer held", u32::from(*seat) + 1)
            }
            CashEvent::WaitingListJoined { player } => format!("{player} joins the waiting list"),
            CashEvent::WaitingListLeft { player } => format!("{player} leaves the waiting list"),
            CashEvent::SessionFeeCharged { paid, owed, .. } => {
                let list = |fees: &[league_engine::cash::Fee]| {
                    fees.iter()
                        .map(|f| format!("{} {}", player(&f.seat), f.amount))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                format!(
                    "Session fee: paid by {}{}",
                    if paid.is_empty() {
                        "nobody".to_owned()
                    } else {
                        list(paid)
                    },
                    if owed.is_empty() {
                        String::new()
                    } else {
                        format!("; owed by {}", list(owed))
                    }
                )
            }
            CashEvent::SessionFeePaid { seat, amount, .. } => {
                format!("{} pays a session fee of {amount}", player(seat))
            }
            CashEvent::HandDealt { .. } | CashEvent::HandEvent { .. } => String::new(),
        };
        let at = logged.recorded_at.div_euclid(1000);
        if let Some(hand) = fold_cash(&mut t, &logged, &decoded, None) {
            out.push('\n');
            match hand.pokerstars() {
                Ok(text) => out.push_str(&text),
                Err(why) => {
                    let _ = writeln!(out, "Hand #{}: {why}", hand.position);
                }
            }
            rulings(&hand, &mut out);
            out.push('\n');
            continue;
        }
        if !line.is_empty() {
            let _ = writeln!(out, "[{}] {line}", utc(at));
        }
    }
    let _ = writeln!(
        out,
        "\n{} {} played; bought in {}, cashed out {}, taken by the house {}{}",
        t.hands,
        plural(u32::try_from(t.hands).unwrap_or(u32::MAX), "hand"),
        t.state.bought_in,
        t.state.cashed,
        t.state.takings,
        if t.state.closed {
            ""
        } else {
            "; the table is still open"
        }
    );
    Ok(Some(out))
}

/// `word`, or its plural for any count but one.
fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

fn money(c: Cents) -> String {
    format!("{}.{:02}", c.get() / 100, c.get() % 100)
}

fn price(p: &Price) -> String {
    format!("{}+{}", money(p.price), money(p.fee))
}

/// One line per player seated by a draw.
fn seatings(text: &mut String, seats: &[Seating]) {
    for seat in seats {
        let _ = write!(
            text,
            "\n    {} to table {} seat {}",
            seat.player,
            seat.table,
            u32::from(seat.seat) + 1
        );
    }
}

fn names(players: &[PlayerId]) -> String {
    players
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn level(n: u32, spec: &Level) -> String {
    match spec {
        Level::Play { blinds, minutes } => {
            let ante = match blinds.ante {
                league_engine::hand::AnteStructure::None => String::new(),
                league_engine::hand::AnteStructure::Uniform(a) => format!(", ante {a}"),
                league_engine::hand::AnteStructure::BigBlind(a) => {
                    format!(", big blind ante {a}")
                }
            };
            format!(
                "level {n}: blinds {}/{}{ante}, {minutes} min",
                blinds.small_blind, blinds.big_blind
            )
        }
        Level::Break { minutes, colour_up } => {
            let colour = colour_up.map_or(String::new(), |d| {
                format!(", colour-up of the {} chips for {}", d.low, d.high)
            });
            format!("break ({n}): {minutes} min{colour}")
        }
    }
}

/// One line for an event that is not part of a hand (empty: nothing to say).
fn describe(event: &TournamentEvent, remaining: usize) -> String {
    use TournamentEvent as E;
    match event {
        E::TournamentScheduled { schedule: s } => {
            let mut text = format!(
                "Scheduled: {:?} at venue {}, starting {} UTC; rules {}, tracking {}; \
                 entry {}, {} chips, tables of {}",
                s.name,
                s.venue,
                utc(s.starts_at),
                s.preset.name(),
                s.tracking,
                price(&s.pool.entry),
                s.starting_chips,
                s.table_size
            );
            if let Some(r) = &s.pool.rebuy {
                let _ = write!(text, "; re-buy {}", price(r));
            }
            if let Some(a) = &s.pool.add_on {
                let _ = write!(text, "; add-on {}", price(a));
            }
            if !s.pool.guarantee.is_zero() {
                let _ = write!(text, "; guarantee {}", money(s.pool.guarantee));
            }
            for (i, spec) in s.levels.iter().enumerate() {
                let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
                let _ = write!(text, "\n    {}", level(n, spec));
            }
            text
        }
        E::PlayerRegistered { player, paid } => format!("{player} registers ({})", price(paid)),
        E::PlayerUnregistered { player, refund } => {
            format!("{player} unregisters (refund {})", money(*refund))
        }
        E::TournamentStarted {
            seed: s,
            seats,
            buttons,
            ..
        } => {
            let mut text = format!("Started: seats drawn from seed {s}");
            seatings(&mut text, seats);
            for b in buttons {
                let _ = write!(
                    text,
                    "\n    table {}: button at seat {}",
                    b.table,
                    u32::from(b.button) + 1
                );
            }
            text
        }
        E::LevelStarted { level: n, spec, .. } => format!("Now {}", level(*n, spec)),
        E::ClockPaused { .. } => "Clock paused".to_owned(),
        E::ClockResumed { .. } => "Clock resumed".to_owned(),
        E::PlayerMarkedAbsent { player } => format!("{player} is absent"),
        E::PlayerArrived { player } => format!("{player} arrives"),
        E::AbsentPlayerRemoved {
            player,
            chips,
            rule,
        } => format!("{player}, absent, is removed with {chips} chips ({rule})"),
        E::PlayerEntered {
            player,
            reentry,
            paid,
            chips,
            table,
            seat,
            ..
        } => format!(
            "{player} {} ({}) with {chips} chips at table {table} seat {}",
            if *reentry { "re-enters" } else { "enters late" },
            price(paid),
            u32::from(*seat) + 1
        ),
        E::TableHandStarted { .. } | E::HandEvent { .. } => String::new(),
        E::PlayerBusted {
            player,
            table,
            chips_to,
            ..
        } => match chips_to {
            Some(by) => format!("{player} busts at table {table}, knocked out by {by}"),
            None => format!("{player} busts at table {table}"),
        },
        E::RebuyAnnounced { player, .. } => format!("{player} announces a re-buy"),
        E::RebuyMade {
            player,
            chips,
            paid,
            obliged,
            ..
        } => format!(
            "{player} re-buys {chips} chips ({}){}",
            price(paid),
            if *obliged {
                ", as the rules oblige"
            } else {
                ""
            }
        ),
        E::AddOnMade {
            player,
            chips,
            paid,
            ..
        } => format!(
            "{player} takes an add-on of {chips} chips ({})",
            price(paid)
        ),
        E::PlayersEliminated {
            players,
            tied,
            ranked,
            rule,
            reason,
            ..
        } => {
            let left = remaining.saturating_sub(players.len());
            let tied = match (*tied, *ranked) {
                (false, _) => "",
                (true, false) => ", tied",
                (true, true) => ", in this order, tied with the round's other tables",
            };
            format!(
                "Out: {}{tied} ({rule}: {reason}); {left} left",
                names(players),
            )
        }
        E::ChipsCounted { counts } => {
            let list: Vec<String> = counts.iter().map(|(p, c)| format!("{p} {c}")).collect();
            format!("Chips counted: {}", list.join(", "))
        }
        E::PlayerMoved { player, moved } => format!(
            "{player} moves from table {} seat {} to table {} seat {} ({}: {})",
            moved.from_table,
            u32::from(moved.from_seat) + 1,
            moved.to_table,
            u32::from(moved.to_seat) + 1,
            moved.rule,
            moved.reason
        ),
        E::TableBroken {
            table,
            moves,
            rule,
            reason,
        } => {
            let mut text = format!("Table {table} breaks ({rule}: {reason})");
            for (player, m) in moves {
                let _ = write!(
                    text,
                    "\n    {player} to table {} seat {}",
                    m.to_table,
                    u32::from(m.to_seat) + 1
                );
            }
            text
        }
        E::TableOpened { table } => format!("Table {table} opens"),
        E::RedrawRequired { tables, rule, .. } => {
            format!("A redraw is due at {tables} tables ({rule})")
        }
        E::SeatsRedrawn {
            seed: s,
            seats,
            rule,
            ..
        } => {
            let mut text = format!("Seats redrawn from seed {s} ({rule})");
            seatings(&mut text, seats);
            text
        }
        E::HandForHandStarted { remaining, paid } => {
            format!("Hand-for-hand: {remaining} players left, {paid} paid")
        }
        E::HandForHandEnded => "Hand-for-hand ends".to_owned(),
        E::ChipsColouredUp {
            low,
            high,
            policy,
            players,
            removed,
            added,
            rule,
            ..
        } => {
            let policy = match policy {
                ColourUpPolicy::RoundUp => "rounding up",
                ColourUpPolicy::ChipRace => "a chip race",
            };
            let mut text = format!(
                "Colour-up of the {low} chips for {high} by {policy} ({rule}): {removed} \
                 removed, {added} added"
            );
            for p in players.iter().filter(|p| p.before != p.after) {
                let _ = write!(text, "\n    {} {} -> {}", p.player, p.before, p.after);
            }
            text
        }
        E::PenaltyGiven {
            player,
            penalty,
            hands,
            rule,
        } => {
            if *hands == 0 {
                format!("{player}: penalty, {penalty} ({rule})")
            } else {
                format!(
                    "{player}: penalty, {penalty} ({hands} {} to sit out; {rule})",
                    plural(*hands, "hand")
                )
            }
        }
        E::PlayerDisqualified {
            player,
            chips_removed,
            rule,
        } => format!("{player} is disqualified; {chips_removed} chips removed ({rule})"),
        E::PayoutsSet { pool, amounts } => {
            let list: Vec<String> = amounts
                .iter()
                .enumerate()
                .map(|(i, a)| format!("{}: {}", i + 1, money(*a)))
                .collect();
            format!("Payouts of {}: {}", money(*pool), list.join(", "))
        }
        E::DealMade {
            kind,
            players,
            stacks,
            amounts,
        } => {
            let list: Vec<String> = players
                .iter()
                .zip(stacks.iter().zip(amounts))
                .map(|(p, (s, a))| format!("{p} ({s} chips) {}", money(*a)))
                .collect();
            let kind = match kind {
                DealKind::ChipChop => "chip chop",
                DealKind::Icm => "ICM",
            };
            format!("Deal by {kind}: {}", list.join(", "))
        }
        E::TournamentFinished { pool, results } => {
            let mut text = format!("Finished: prize pool {}", money(pool.total));
            for f in results {
                let _ = write!(
                    text,
                    "\n    {}. {} {}{}{}",
                    f.place,
                    f.player,
                    money(f.prize),
                    if f.rebuys > 0 {
                        format!(", {} {}", f.rebuys, plural(f.rebuys, "re-buy"))
                    } else {
                        String::new()
                    },
                    if f.knockouts > 0 {
                        format!(", {} {}", f.knockouts, plural(f.knockouts, "knock-out"))
                    } else {
                        String::new()
                    }
                );
            }
            text
        }
        E::TournamentCancelled { reason, refunds } => {
            let list: Vec<String> = refunds
                .iter()
                .map(|r| format!("{} {}", r.player, money(r.amount)))
                .collect();
            format!("Cancelled ({reason}); refunds: {}", list.join(", "))
        }
        E::PlayerReinstated {
            player,
            table,
            seat,
            chips,
            reason,
            ..
        } => format!(
            "{player} is reinstated at table {table} seat {} with {chips} chips ({reason})",
            u32::from(*seat) + 1
        ),
        E::ChipsCorrected {
            table,
            hand,
            from,
            to,
            chips,
            reason,
        } => format!(
            "Correction after hand {hand} at table {table}: {chips} chips from {from} to {to} \
             ({reason})"
        ),
        E::SeatCorrected {
            player,
            from_table,
            from_seat,
            to_table,
            to_seat,
            swapped,
            reason,
        } => {
            let from = format!("table {from_table} seat {}", u32::from(*from_seat) + 1);
            let to = format!("table {to_table} seat {}", u32::from(*to_seat) + 1);
            match swapped {
                Some(other) => format!(
                    "Seat correction: {player} from {from} to {to}, {other} from {to} to \
                     {from} ({reason})"
                ),
                None => format!("Seat correction: {player} from {from} to {to} ({reason})"),
            }
        }
        E::ButtonCorrected {
            table,
            hand,
            button,
            was,
            reason,
        } => format!(
            "Button correction after hand {hand} at table {table}: the next hand's button at \
             seat {} rather than seat {} ({reason})",
            u32::from(*button) + 1,
            u32::from(*was) + 1
        ),
        E::UnsoldStackPlaced {
            table,
            seat,
            chips,
            rule,
        } => format!(
            "An unsold seat's stack of {chips} chips at table {table} seat {} ({rule})",
            u32::from(*seat) + 1
        ),
        E::UnsoldStackRemoved {
            table,
            seat,
            chips,
            reason,
        } => format!(
            "The unsold seat's stack at table {table} seat {} leaves play with {chips} chips \
             ({reason})",
            u32::from(*seat) + 1
        ),
        E::EntropyAdded { .. } | E::EntropyMixed { .. } => {
            "Entropy mixed into the next draw's seed".to_owned()
        }
        E::ClockCalled {
            table,
            seat,
            at,
            expires_at,
        } => format!(
            "The clock is called on seat {} at table {table}: {} s to act",
            u32::from(*seat) + 1,
            expires_at.saturating_sub(*at) / 1000
        ),
        E::VoidHandNotCounted { table, penalised } => {
            let mut line = format!("The void hand at table {table} is re-dealt: no hand played");
            if !penalised.is_empty() {
                line.push_str(&format!(
                    "; {} still to miss the hand of their penalty",
                    names(penalised)
                ));
            }
            line
        }
    }
}

/// A line under a hand for each ruling the floor made in it that the hand history does
/// not show: a hand killed (the history shows only the fold), the pot impounded and
/// released, a mucked hand retrieved or turned up at a player's request (the history
/// shows a hand ruled live as shown, one left dead as mucked), a call ruled not binding
/// (the history shows the fold it became).
fn rulings(hand: &LoggedHand, out: &mut String) {
    use league_engine::hand::{Event as H, SeenHandRule};
    let name = |seat: &u8| hand.players.get(seat).map_or("?", String::as_str);
    for event in &hand.events {
        match event {
            H::PotImpounded { reason } => {
                let _ = writeln!(out, "Ruling: the floor impounded the pot: {reason}");
            }
            H::PotReleased { reason } => {
                let _ = writeln!(out, "Ruling: the floor released the pot: {reason}");
            }
            H::HandRetrieved {
                seat,
                cards,
                reason,
            } => {
                let _ = writeln!(
                    out,
                    "Ruling: the floor retrieved {}'s mucked hand [{} {}] and ruled it live \
                     (seat {}): {reason}",
                    name(seat),
                    cards[0],
                    cards[1],
                    u32::from(*seat) + 1
                );
            }
            H::HandSeenOnRequest {
                seat,
                asked_by,
                cards,
                live,
                rule,
            } => {
                let rule = match rule {
                    SeenHandRule::WinnerMakesItLive => "the winner's request makes it live",
                    SeenHandRule::OtherThanWinnerMakesItLive => {
                        "a request by other than the winner makes it live"
                    }
                    SeenHandRule::ShownDead => "a hand seen on request stays dead",
                };
                let _ = writeln!(
                    out,
                    "Ruling: {} asked to see {}'s mucked hand [{} {}]: {} ({rule})",
                    name(asked_by),
                    name(seat),
                    cards[0],
                    cards[1],
                    if *live { "live" } else { "dead" }
                );
            }
            H::CallRetracted {
                seat,
                amount,
                reason,
            } => {
                let _ = writeln!(
                    out,
                    "Ruling: the floor ruled {}'s call not binding and returned its {amount}; \
                     the hand is folded (seat {}, QueenSix NLHE 10): {reason}",
                    name(seat),
                    u32::from(*seat) + 1
                );
            }
            H::AggressionForfeited { seat, reason } => {
                let _ = writeln!(
                    out,
                    "Ruling: {} loses all aggressive action for the rest of the hand (seat {}; \
                     checks, calls and folds only): {reason}",
                    name(seat),
                    u32::from(*seat) + 1
                );
            }
            H::OutOfTurnBetForfeited { seat, amount } => {
                let _ = writeln!(
                    out,
                    "Ruling: {} folded once a larger bet released their out-of-turn bet; its \
                     {amount} stays in the pot (WPH 31)",
                    name(seat)
                );
            }
            _ => {}
        }
        if let league_engine::hand::Event::HandKilled {
            seat,
            cause,
            reason,
        } = event
        {
            let player = hand.players.get(seat).map_or("?", String::as_str);
            let seat = u32::from(*seat) + 1;
            let cause = match cause {
                KillCause::Exposed => "exposed",
                KillCause::ClearIntent => "a clear intention to fold",
                KillCause::Fouled => "fouled",
                KillCause::Penalty => "a penalty",
                KillCause::Absent => {
                    let _ = writeln!(
                        out,
                        "Ruling: {player}'s hand is dead, {reason} (seat {seat}, the house's rule)"
                    );
                    continue;
                }
            };
            let _ = writeln!(
                out,
                "Ruling: the floor killed {player}'s hand (seat {seat}, {cause}): {reason}"
            );
        }
    }
}
