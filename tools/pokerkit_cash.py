#!/usr/bin/env python3
"""Replay a cash table's hands, written as PHH, with PokerKit in its cash-game mode, and
compare PokerKit's final stacks with the recorded `finishing_stacks`.

PHH has no field for a rake: the engine writes a raked hand's rake in three user-defined
fields (PHH's leading underscore), and this script gives them to PokerKit as its rake
function, which PokerKit calls on every pot it pushes:

    _rake_basis_points = 500        # hundredths of a percent of each pot
    _rake_cap = 6                   # the most taken from one pot
    _rake_no_flop_no_drop = true    # nothing taken from a hand that ends before the flop

The rake of a pot is `pot * basis_points // 10000` chips (rounded down, as the house takes
whole chips), at most the cap. A file without these fields is replayed unraked.

Nor has PHH an action for the runout count a player chooses when all-in: a hand whose board
ran twice says so in `_runout_count = 2`, and each player PokerKit asks (its runout-count
selection) chooses 2; its boards are the file's `d db` actions in order, the first run's
then the second's. PokerKit splits each pot between the runs, the odd chip to the first.

Nor has PHH a field for the smallest chip in play, in which a tournament splits a pot
(QueenSix odd chips 2, Oracle odd chips 3): a hand played in chips of more than one says so
in `_chip_unit = 25`, and this script gives PokerKit a divmod that divides each pot in
whole chips of it (PokerKit gives the remainder to the first winner left of the button).

Usage: python3 tools/pokerkit_cash.py DIR --json OUT [--quiet]

Every `*.phh` file under DIR (recursively, sorted) is one hand; unraked hands (a tournament's
included) replay as `../shared/tools/phh_check.py` replays them.

Each hand's status: AGREE (final stacks equal), DIFFER, LOAD_FAIL (PokerKit could not read
it) or REPLAY_FAIL (PokerKit refused an action). A hand where PokerKit applied operations
the file does not hold (its loader "repairs" incomplete histories) is marked `repaired`.
The JSON report holds, per hand, `hand`, `status`, `recorded`, `pokerkit`, `repaired`, and
the counts. The exit status is 0 when every file was read, whatever the statuses.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any

try:
    from pokerkit import Automation, HandHistory
except ImportError:  # pragma: no cover
    sys.exit('pokerkit_cash: PokerKit is not installed (pip install pokerkit)')

RAKE_PERCENT = '_rake_basis_points'
RAKE_CAP = '_rake_cap'
RAKE_NO_FLOP = '_rake_no_flop_no_drop'
RUNOUT_COUNT = '_runout_count'
CHIP_UNIT = '_chip_unit'

_OPS = {'f': 'Folding', 'cc': 'CheckingOrCalling',
        'cbr': 'CompletionBettingOrRaisingTo', 'dh': 'HoleDealing',
        'db': 'BoardDealing'}


def rake_function(fields: dict[str, Any]):
    """PokerKit's rake function for a hand's user-defined fields."""
    if RAKE_PERCENT not in fields:
        return None
    basis_points = int(fields[RAKE_PERCENT])
    cap = int(fields[RAKE_CAP])
    no_flop_no_drop = bool(fields.get(RAKE_NO_FLOP, False))

    def rake(amount: int, state: Any) -> tuple[int, int]:
        if no_flop_no_drop and not any(state.board_cards):
            return 0, amount
        raked = min(amount * basis_points // 10_000, cap)
        return raked, amount - raked

    return rake


def divmod_function(fields: dict[str, Any]):
    """PokerKit's divmod for a hand split in whole chips of its `_chip_unit`."""
    unit = int(fields.get(CHIP_UNIT, 1))
    if unit <= 1:
        return None

    def divide(amount: int, count: int) -> tuple[int, int]:
        quotient = amount // unit // count * unit
        return quotient, amount - quotient * count

    return divide


def repairs(hh: HandHistory, state: Any) -> str:
    """Operations PokerKit applied beyond the recorded actions."""
    recorded = dict.fromkeys(_OPS.values(), 0)
    for action in hh.actions:
        words = action.split('#')[0].split()
        if len(words) >= 2 and words[1] in _OPS:
            recorded[_OPS[words[1]]] += 1
    applied = dict.fromkeys(_OPS.values(), 0)
    for operation in state.operations:
        name = type(operation).__name__
        if name in applied:
            applied[name] += 1
    return ', '.join(f'{name}+{applied[name] - recorded[name]}'
                     for name in applied if applied[name] != recorded[name])


def check(text: str) -> dict[str, Any]:
    try:
        plain = HandHistory.loads(text)
        fields = plain.user_defined_fields
        runouts = int(fields.get(RUNOUT_COUNT, 1))
        options: dict[str, Any] = {}
        if rake := rake_function(fields):
            options['rake'] = rake
        if divide := divmod_function(fields):
            options['divmod'] = divide
        if runouts > 1:
            # The players choose; PokerKit would otherwise choose for them at once.
            options['automations'] = tuple(
                a for a in plain.automations if a != Automation.RUNOUT_COUNT_SELECTION
            )
        hh = HandHistory.loads(text, **options) if options else plain
    except Exception as exc:  # noqa: BLE001
        return {'status': 'LOAD_FAIL', 'error': f'{type(exc).__name__}: {exc}'}
    try:
        state = None
        for state in hh:
            # Every player asked chooses the file's runout count (PokerKit's own loop
            # would choose none, which runs the board once).
            while state.can_select_runout_count():
                state.select_runout_count(runouts if runouts > 1 else None)
    except Exception as exc:  # noqa: BLE001
        return {'status': 'REPLAY_FAIL', 'error': f'{type(exc).__name__}: {exc}'}
    recorded = [str(v) for v in (hh.finishing_stacks or [])]
    theirs = [str(v) for v in state.stacks]
    return {
        'status': 'AGREE' if recorded == theirs else 'DIFFER',
        'recorded': recorded,
        'pokerkit': theirs,
        'repaired': repairs(hh, state),
        # What left the table: the rake.
        'raked': str(sum(hh.starting_stacks) - sum(state.stacks)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('dir')
    parser.add_argument('--json', metavar='OUT', required=True)
    parser.add_argument('--quiet', action='store_true')
    args = parser.parse_args()
    names = sorted(
        os.path.relpath(os.path.join(root, n), args.dir)
        for root, _, files in os.walk(args.dir)
        for n in files
        if n.endswith('.phh')
    )
    if not names:
        print('pokerkit_cash: no .phh files', file=sys.stderr)
        return 2
    counts = {'AGREE': 0, 'DIFFER': 0, 'LOAD_FAIL': 0, 'REPLAY_FAIL': 0}
    repaired = 0
    hands = []
    warnings.simplefilter('ignore')
    for name in names:
        with open(os.path.join(args.dir, name), encoding='utf-8') as fp:
            result = check(fp.read())
        result['hand'] = name
        counts[result['status']] += 1
        repaired += bool(result.get('repaired'))
        hands.append(result)
        if not args.quiet or result['status'] != 'AGREE':
            print(f"{result['status']:<12} {name}  {result.get('error', '')}")
    print('   '.join(f'{k}: {v}' for k, v in counts.items()) + f'   repaired: {repaired}')
    with open(args.json, 'w', encoding='utf-8') as fp:
        json.dump({'counts': counts, 'repaired': repaired, 'hands': hands}, fp)
    return 0


if __name__ == '__main__':
    sys.exit(main())
