//! Random cash sessions: chips conserved after every event through buy-ins, top-ups,
//! cash-outs, fees, rakes and boards run twice, and every cash rule reached.

use super::*;

#[derive(Clone, Debug)]
enum Step {
    Sit(Seat, u64, bool),
    TopUp(Seat, u64),
    SitOut(Seat),
    Return(Seat, bool),
    Leave(Seat),
    Fee,
    Hand(Option<Seat>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => (0u8..6, 1u64..260, any::<bool>()).prop_map(|(s, b, p)| Step::Sit(s, b, p)),
        1 => (0u8..6, 1u64..120).prop_map(|(s, a)| Step::TopUp(s, a)),
        1 => (0u8..6).prop_map(Step::SitOut),
        1 => (0u8..6, any::<bool>()).prop_map(|(s, p)| Step::Return(s, p)),
        1 => (0u8..6).prop_map(Step::Leave),
        1 => Just(Step::Fee),
        4 => proptest::option::of(0u8..6).prop_map(Step::Hand),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Chips are conserved through buy-ins, top-ups, cash-outs, fees, rakes and hands;
    /// refusals change nothing; a replay of the events gives the same table; the house's
    /// takings are the fees and rakes of the events.
    #[test]
    fn random_sessions_conserve_chips(
        preset in prop_oneof![Just(Preset::Oracle), Just(Preset::Hippodrome)],
        rake in proptest::option::of((1u16..=10_000, 1u64..50, any::<bool>())),
        run_twice in proptest::option::of(0u64..400),
        steps in proptest::collection::vec(step(), 1..60),
    ) {
        let mut config = TableConfig { seats: 6, ..with_fee(preset) };
        if preset == Preset::Hippodrome {
            config.run_twice = run_twice.map(Chips::new);
        }
        if let Some((basis_points, cap, no_flop_no_drop)) = rake {
            config.take = HouseTake::Rake(hand::Rake { basis_points, cap, no_flop_no_drop });
        }
        let mut table = Table::open(config);
        for seat in 0..3 {
            table.sit(seat, 100, false);
        }
        for (i, step) in steps.into_iter().enumerate() {
            let at = Seconds::try_from(i).unwrap() * 600;
            let command = match step {
                Step::Sit(seat, buy_in, post) => CashCommand::Sit {
                    seat,
                    player: player(seat),
                    buy_in: Chips::new(buy_in),
                    entry: Entry::BuyIn,
                    post,
                    at,
                },
                Step::TopUp(seat, amount) => CashCommand::TopUp { seat, amount: Chips::new(amount), at },
                Step::SitOut(seat) => CashCommand::SitOut { seat, at },
                Step::Return(seat, post) => CashCommand::Return { seat, post, at },
                Step::Leave(seat) => CashCommand::Leave { seat, at },
                Step::Fee => CashCommand::ChargeSessionFee { at },
                Step::Hand(straddle) => {
                    let seed = table.seed();
                    CashCommand::StartHand { at, seed: Some(seed), straddle }
                }
            };
            if table.run(command).is_ok() {
                table.play_out();
            }
        }
        prop_assert_eq!(replay(&table.events), table.state.clone());
        // Each pot's rake (with the first run's part), and the whole pot.
        let mut pots: Vec<(u64, u64)> = Vec::new();
        let taken: u64 = table.events.iter().map(|e| match e {
            CashEvent::SessionFeeCharged { paid, .. } => paid.iter().map(|f| f.amount.get()).sum(),
            CashEvent::SessionFeePaid { amount, .. } => amount.get(),
            CashEvent::HandEvent { event: Event::PotAwarded { rake, amount, run, .. } } => {
                match (run, pots.last_mut()) {
                    (1, Some(last)) => last.1 += amount,
                    _ => pots.push((*rake, *amount)),
                }
                *rake
            }
            _ => 0,
        }).sum();
        for (rake, amount) in pots {
            if let Some((basis_points, cap, _)) = rake_of(&table.state) {
                prop_assert!(rake <= cap && u128::from(rake) * 10_000 <= u128::from(amount) * u128::from(basis_points));
            } else {
                prop_assert_eq!(rake, 0);
            }
        }
        prop_assert_eq!(table.state.takings, Chips::new(taken));
        table.ok(CashCommand::Close { at: 1 << 40 });
        prop_assert_eq!(table.state.cashed, table.state.bought_in.checked_sub(table.state.takings).unwrap());
    }
}

/// Long random sessions in both houses: chips conserved after every event, and every part
/// of the cash rules reached (posted and missed blinds, straddles, fees, cash-outs).
#[test]
fn long_sessions_reach_every_rule_and_conserve_chips() {
    for (seed, preset) in [(1, Preset::Oracle), (2, Preset::Hippodrome)] {
        let config = TableConfig {
            seats: 6,
            take: if preset == Preset::Hippodrome {
                HouseTake::SessionFee {
                    amount: Chips::new(3),
                    period_minutes: 30,
                }
            } else {
                HouseTake::Rake(hand::Rake {
                    basis_points: 500,
                    cap: 6,
                    no_flop_no_drop: true,
                })
            },
            run_twice: (preset == Preset::Hippodrome).then_some(Chips::new(40)),
            ..config(preset)
        };
        let mut session = sim::Session::open(seed, config, 0).unwrap();
        let mut checked = 0;
        let dealt = session.play(1_000, 120).unwrap();
        assert_eq!(dealt, 1_000, "{preset:?}");
        let mut state = CashState::new();
        for event in &session.events {
            state.apply(event);
            state.check_invariants().unwrap();
            checked += 1;
        }
        assert_eq!(state, session.state);
        let count = |f: &dyn Fn(&CashEvent) -> bool| session.events.iter().filter(|e| f(e)).count();
        let missed = count(&|e| matches!(e, CashEvent::BlindMissed { .. }));
        let straddles = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::BlindPosted {
                        kind: BlindKind::Straddle,
                        ..
                    }
                }
            )
        });
        let dead = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::AntePosted { .. }
                }
            )
        });
        let posted = count(&|e| matches!(e, CashEvent::PlayerReturned { posts: true, .. }));
        let cashed = count(&|e| matches!(e, CashEvent::PlayerCashedOut { .. }));
        let fees = count(&|e| matches!(e, CashEvent::SessionFeeCharged { .. }));
        let listed = count(&|e| matches!(e, CashEvent::WaitingListJoined { .. }));
        let held = count(&|e| matches!(e, CashEvent::SeatReserved { .. }));
        let released = count(&|e| matches!(e, CashEvent::ReservationCancelled { .. }));
        let gave_up = count(&|e| matches!(e, CashEvent::WaitingListLeft { .. }));
        assert!(
            listed > 10 && held > 5 && released > 0 && gave_up > 0,
            "{preset:?}: {listed} listed, {held} seats held, {released} released, {gave_up} gave up"
        );
        assert!(
            missed > 20 && straddles > 20 && posted > 20 && cashed > 20,
            "{preset:?}: {missed} missed, {straddles} straddles, {posted} posted, {cashed} cashed out"
        );
        let raked = count(&|e| {
            matches!(
                e,
                CashEvent::HandEvent {
                    event: Event::PotAwarded { rake: 1.., .. }
                }
            )
        });
        if preset == Preset::Oracle {
            assert!(dead > 5, "dead small blinds: {dead}");
            assert!(raked > 200, "raked pots: {raked}");
        } else {
            assert!(fees > 50, "fees: {fees}");
            let twice = count(&|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: Event::BoardRunAgain { .. }
                    }
                )
            });
            let asked = count(&|e| {
                matches!(
                    e,
                    CashEvent::HandEvent {
                        event: Event::RunTwiceChosen { .. }
                    }
                )
            });
            assert!(
                twice > 10 && asked > 2 * twice,
                "run twice: {twice} of {asked} answers"
            );
        }
        assert!(checked > 10_000);
    }
}

fn rake_of(state: &CashState) -> Option<(u16, u64, bool)> {
    match state.config.as_ref()?.take {
        HouseTake::Rake(r) => Some((r.basis_points, r.cap, r.no_flop_no_drop)),
        _ => None,
    }
}
