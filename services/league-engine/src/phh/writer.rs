//! Writing PHH: the events of a hand the engine played, as a PHH file.

use super::*;

/// Writes a hand the engine played (its events, in order) as a PHH file. A killed hand
/// folds at its next turn ([`hand::in_turn_order`]).
pub fn write(events: &[Event]) -> Result<String, String> {
    let events = &*hand::in_turn_order(events)?;
    let Some(Event::HandStarted { setup }) = events.first() else {
        return Err("the events must start with HandStarted".into());
    };
    let order = seat_order(events);
    let n = order.len();
    let pos = |seat: hand::Seat| order.iter().position(|&s| s == seat).unwrap_or(0);
    let p = |seat: hand::Seat| format!("p{}", pos(seat) + 1);
    // Heads-up the arrays are written reversed, as they are read.
    let slot = |seat: hand::Seat| {
        let i = pos(seat);
        if n == 2 { 1 - i } else { i }
    };
    let mut antes = vec![0u64; n];
    for ante in &setup.antes {
        antes[slot(ante.seat)] += ante.amount;
    }
    let mut blinds = vec![0u64; n];
    for blind in &setup.blinds {
        blinds[slot(blind.seat)] = blind.amount;
    }
    let mut starting = vec![0u64; n];
    for seat in &setup.seats {
        starting[pos(seat.seat)] = seat.stack;
    }
    let mut actions: Vec<String> = Vec::new();
    let mut finishing: Option<Vec<u64>> = None;
    // A physical deck's hole cards are not recorded: once the dealing is over, each seat
    // dealt none is dealt two unknown cards (`????`), so that the file is a whole hand.
    let mut dealt: Vec<hand::Seat> = Vec::new();
    // The seats dealt unknown cards, and where in `actions`.
    let mut unknown: Vec<(hand::Seat, usize)> = Vec::new();
    let mut dealing_over = false;
    for event in events {
        if !dealing_over
            && !matches!(
                event,
                Event::HandStarted { .. }
                    | Event::DeckSealed { .. }
                    | Event::AntePosted { .. }
                    | Event::BlindPosted { .. }
                    | Event::HoleCardsDealt { .. }
            )
        {
            dealing_over = true;
            for &seat in order.iter().filter(|s| !dealt.contains(s)) {
                unknown.push((seat, actions.len()));
                actions.push(format!("d dh {} ????", p(seat)));
            }
        }
        match event {
            // Cards a host records once play is under way are the ones that seat was dealt.
            Event::HoleCardsDealt { seat, cards } if dealing_over => {
                if let Some(&(_, at)) = unknown.iter().find(|(s, _)| s == seat) {
                    actions[at] = format!("d dh {} {}", p(*seat), format_cards(cards));
                }
            }
            Event::HoleCardsDealt { seat, cards } => {
                dealt.push(*seat);
                actions.push(format!("d dh {} {}", p(*seat), format_cards(cards)));
            }
            Event::BoardDealt { cards, .. } => {
                actions.push(format!("d db {}", format_cards(cards)))
            }
            Event::PlayerFolded { seat, .. } => actions.push(format!("{} f", p(*seat))),
            Event::PlayerChecked { seat } | Event::PlayerCalled { seat, .. } => {
                actions.push(format!("{} cc", p(*seat)));
            }
            Event::PlayerBet { seat, to, .. } | Event::PlayerRaised { seat, to, .. } => {
                actions.push(format!("{} cbr {to}", p(*seat)));
            }
            Event::HandShown { seat, cards, .. } => {
                actions.push(format!("{} sm {}", p(*seat), format_cards(cards)));
            }
            Event::HandMucked { seat } => actions.push(format!("{} sm", p(*seat))),
            // PHH has no action for chips a player leaves in the pot as they fold (WPH 31):
            // the fold says so in a comment, and a replay that cannot read it finishes
            // `amount` short for that player's opponents.
            Event::OutOfTurnBetForfeited { amount, .. } => {
                if let Some(fold) = actions.last_mut() {
                    let _ = write!(
                        fold,
                        " # leaves {amount} in the pot: an out-of-turn bet a larger bet released (WPH 31)"
                    );
                }
            }
            Event::HandEnded { stacks, .. } => {
                let mut out = vec![0u64; n];
                for share in stacks {
                    out[pos(share.seat)] = share.amount;
                }
                finishing = Some(out);
            }
            Event::HandVoided { .. } => return Err("a void hand has no PHH form".into()),
            _ => {}
        }
    }
    let finishing = finishing.ok_or("the hand is not over")?;
    let list = |values: &[u64]| {
        values
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::with_capacity(512);
    let _ = writeln!(out, "variant = 'NT'");
    let _ = writeln!(out, "ante_trimming_status = false");
    let _ = writeln!(out, "antes = [{}]", list(&antes));
    let _ = writeln!(out, "blinds_or_straddles = [{}]", list(&blinds));
    let _ = writeln!(out, "min_bet = {}", setup.big_blind);
    let _ = writeln!(out, "starting_stacks = [{}]", list(&starting));
    let quoted: Vec<String> = actions.iter().map(|a| format!("'{a}'")).collect();
    let _ = writeln!(out, "actions = [{}]", quoted.join(", "));
    let seats: Vec<String> = order
        .iter()
        .map(|s| (u32::from(*s) + 1).to_string())
        .collect();
    let _ = writeln!(out, "seats = [{}]", seats.join(", "));
    let _ = writeln!(out, "finishing_stacks = [{}]", list(&finishing));
    if events
        .iter()
        .any(|e| matches!(e, Event::BoardRunAgain { .. }))
    {
        let _ = writeln!(out, "{RUNOUT_COUNT} = 2");
    }
    if let Some(rake) = setup.rake {
        let _ = writeln!(out, "{RAKE_PERCENT} = {}", rake.basis_points);
        let _ = writeln!(out, "{RAKE_CAP} = {}", rake.cap);
        let _ = writeln!(out, "{RAKE_NO_FLOP} = {}", rake.no_flop_no_drop);
    }
    Ok(out)
}

/// The seats dealt into the hand `events` start, in the file's order (`p1` first: the first
/// seat left of the button, the button last): whom a `players` field names, in order.
pub fn seat_order(events: &[Event]) -> Vec<hand::Seat> {
    let mut state = HandState::new();
    if let Some(first) = events.first() {
        hand::apply(&mut state, first);
    }
    state.seats_in_order().collect()
}
