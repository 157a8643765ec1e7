#!/usr/bin/env python3
"""Random No-Limit Hold'em hands played by PokerKit, written as PHH: the engine must replay
every one (`league phh check DIR`) and offer, at each decision, the actions PokerKit offered.

PokerKit chooses every action among all of its legal ones: fold (when facing a bet), check
or call, the minimum bet or raise, the maximum (all-in), and random amounts in between.
The tables: 2 to 10 players (heads-up 15% of the time); blinds of 1/2 to 500/1000; very
unequal stacks, some below the blinds; no ante, uniform antes or a big-blind ante; a live
straddle a quarter of the time from three players up, a double straddle sometimes, and
short (all-in) straddles and blinds.

Each hand is one file, `NNNNN.phh`, with `finishing_stacks` (PokerKit's). Beside each
player action, a comment records what PokerKit offered at that point:

    p3 cbr 600 # legal f cc=400 cbr=600..9000

`f` when folding is offered (facing a bet), `cc=N` the amount to check (0) or call, and
`cbr=MIN..MAX` the bet or raise-to range when betting or raising is allowed.

Usage: python3 tools/pokerkit_hands.py --out DIR [--hands N] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import warnings

try:
    from pokerkit import HandHistory, Mode, NoLimitTexasHoldem
except ImportError:  # pragma: no cover
    sys.exit('pokerkit_hands: PokerKit is not installed (pip install pokerkit)')

# PokerKit deals, collects, shows and pushes as in the simulation baseline beside this file.
from pokerkit_sim import AUTOMATIONS  # noqa: E402


def stack(rng: random.Random, big_blind: int) -> int:
    roll = rng.randrange(10)
    if roll == 0:
        return 1 + rng.randrange(big_blind * 2)  # below or about the blinds
    if roll <= 3:
        return big_blind * (2 + rng.randrange(15)) + rng.randrange(big_blind)
    return big_blind * (20 + rng.randrange(180)) + rng.randrange(big_blind)


def table(rng: random.Random):
    players = 2 if rng.randrange(100) < 15 else 2 + rng.randrange(9)
    big_blind = rng.choice([2, 10, 100, 200, 1000])
    small_blind = big_blind // 2
    stacks = [stack(rng, big_blind) for _ in range(players)]
    antes = [0] * players
    kind = rng.randrange(4)
    if kind == 0:
        antes = [max(big_blind // 10, 1)] * players
    elif kind == 1:
        antes[1 if players > 2 else 0] = big_blind  # the big blind's ante
    blinds = [small_blind, big_blind] + [0] * (players - 2)
    if players >= 3 and rng.randrange(4) == 0:
        blinds[2] = big_blind * rng.choice([2, 2, 2, 3])
        if players >= 5 and rng.randrange(4) == 0:
            blinds[3] = blinds[2] * 2
        if rng.randrange(3) == 0:
            # A short straddle: the straddler has less than the straddle.
            stacks[2] = 1 + rng.randrange(blinds[2] + big_blind)
    return antes, blinds, big_blind, stacks


def legal(state) -> str:
    """What PokerKit offers the player to act, as the comment beside the action."""
    parts = []
    facing = state.checking_or_calling_amount
    if facing:
        parts.append('f')
    if facing is not None:
        parts.append(f'cc={facing}')
    if state.can_complete_bet_or_raise_to():
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        parts.append(f'cbr={low}..{high}')
    return 'legal ' + ' '.join(parts)


def act(state, rng: random.Random) -> None:
    offered = legal(state)
    facing = state.checking_or_calling_amount
    can_raise = state.can_complete_bet_or_raise_to()
    roll = rng.randrange(100)
    if facing and roll < 20:
        state.fold(commentary=offered)
    elif can_raise and roll >= (65 if facing else 55):
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        pick = rng.randrange(20)
        if pick < 7:
            amount = low
        elif pick < 11:
            amount = high
        elif pick < 14:
            amount = low + 1 if low < high else low
        else:
            amount = low + rng.randrange(high - low + 1)
        state.complete_bet_or_raise_to(amount, commentary=offered)
    else:
        state.check_or_call(commentary=offered)


def play(rng: random.Random) -> str:
    antes, blinds, big_blind, stacks = table(rng)
    game = NoLimitTexasHoldem(AUTOMATIONS, False, antes, blinds, big_blind,
                              mode=Mode.TOURNAMENT)
    state = game(stacks, len(stacks))
    while state.status:
        if state.actor_index is None:  # pragma: no cover
            raise AssertionError('PokerKit stopped with no one to act')
        act(state, rng)
    history = HandHistory.from_game_state(game, state)
    history.finishing_stacks = list(state.stacks)
    return history.dumps()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--out', required=True, help='the directory to write into')
    parser.add_argument('--hands', type=int, default=2000)
    parser.add_argument('--seed', type=int, default=1)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    warnings.simplefilter('error')  # a warning from PokerKit is a defect of this script
    for i in range(args.hands):
        text = play(rng)
        with open(os.path.join(args.out, f'{i:05}.phh'), 'w', encoding='utf-8') as out:
            out.write(text)
    print(f'pokerkit played {args.hands} hands (seed {args.seed}) into {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
