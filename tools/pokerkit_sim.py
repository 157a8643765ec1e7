#!/usr/bin/env python3
"""Random full No-Limit Hold'em hands simulated with PokerKit: the baseline for
`league bench engine`.

The hands are of the same kind as the engine's simulator (`league phh simulate`): 2 to 10
players (heads-up 15% of the time), blinds of 1/2 to 500/1000, very unequal stacks (some
below the blinds), uniform antes or a big-blind ante a quarter of the time each, a live
straddle sometimes, and random legal actions (fold 25% / call 50% / raise 25% facing a
bet; bet 40% / check 60% otherwise). PokerKit deals, collects, shows and pushes the chips
itself (its automations), so the time is PokerKit's alone.

Prints one line: `pokerkit simulated N hands in S s (R hands/s)`.

Usage: python3 tools/pokerkit_sim.py [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

try:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem
except ImportError:  # pragma: no cover
    sys.exit('pokerkit_sim: PokerKit is not installed (pip install pokerkit)')

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def table(rng: random.Random):
    players = 2 if rng.randrange(100) < 15 else 2 + rng.randrange(9)
    big_blind = rng.choice([2, 10, 100, 200, 1000])
    small_blind = big_blind // 2
    stacks = []
    for _ in range(players):
        roll = rng.randrange(10)
        if roll == 0:
            stacks.append(1 + rng.randrange(big_blind * 2))
        elif roll <= 3:
            stacks.append(big_blind * (2 + rng.randrange(15)) + rng.randrange(big_blind))
        else:
            stacks.append(big_blind * (20 + rng.randrange(180)) + rng.randrange(big_blind))
    antes = [0] * players
    kind = rng.randrange(4)
    if kind == 0:
        antes = [max(big_blind // 10, 1)] * players
    elif kind == 1:
        antes[1] = big_blind
    blinds = [small_blind, big_blind] + [0] * (players - 2)
    if players >= 4 and rng.randrange(100) < 15:
        blinds[2] = big_blind * 2
    return antes, blinds, big_blind, stacks


def play(rng: random.Random) -> None:
    antes, blinds, big_blind, stacks = table(rng)
    state = NoLimitTexasHoldem.create_state(
        AUTOMATIONS, False, antes, blinds, big_blind, stacks, len(stacks),
        mode=Mode.CASH_GAME,
    )
    while state.status:
        if state.actor_index is None:
            break
        roll = rng.randrange(100)
        facing = state.checking_or_calling_amount
        can_raise = state.can_complete_bet_or_raise_to()
        if facing:
            if roll < 25:
                state.fold()
            elif roll < 75 or not can_raise:
                state.check_or_call()
            else:
                raise_to(state, rng)
        elif can_raise and roll >= 60:
            raise_to(state, rng)
        else:
            state.check_or_call()


def raise_to(state, rng: random.Random) -> None:
    low = state.min_completion_betting_or_raising_to_amount
    high = state.max_completion_betting_or_raising_to_amount
    roll = rng.randrange(10)
    if roll <= 4:
        amount = low
    elif roll == 5:
        amount = high
    else:
        amount = low + rng.randrange(high - low + 1)
    state.complete_bet_or_raise_to(amount)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--hands', type=int, default=2000)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    for _ in range(args.hands):
        play(rng)
    seconds = time.perf_counter() - started
    print(f'pokerkit simulated {args.hands} hands in {seconds:.3f} s '
          f'({args.hands / seconds:.1f} hands/s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
