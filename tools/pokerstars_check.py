#!/usr/bin/env python3
"""Read PokerStars-style hand histories back with PokerKit and compare the final stacks with
the PHH export of the same hands.

Usage:
    python3 tools/pokerstars_check.py STARS_DIR PHH_DIR

STARS_DIR holds `league audit export --format pokerstars` (one `.txt` per tournament);
PHH_DIR holds `league audit export --format phh` of the same log. Every hand of every
`.txt` file is parsed by PokerKit's own `PokerStarsParser` (independent of the league's
code) and replayed to its end; its final stacks, by player name, must equal the PHH file's
`finishing_stacks` for the hand whose `_position` is the PokerStars hand number. A hand
whose house gives the odd chips of a split pot one each (the PHH file's `_odd_chips`) is
reported apart (ODD_CHIPS) when the two differ only by odd chips: PokerKit gives them all
to the first winner clockwise from the button, and has no option for another rule. A hand
whose blinds are not on the two seats after the button (a dead button at an empty seat,
or a player seated between the button and the small blind) that PokerKit's parser cannot
read is reported apart too (DEAD_BUTTON): the parser takes the two players after the
button for the blinds. The PHH export of those hands says where the button and blinds
are, and PokerKit replays it.

PokerKit's parser reads no rake: a raked cash hand is replayed with the rake its PHH file
records (`_rake_*`, as `tools/pokerkit_cash.py` reads it), and the text's `Rake` must be
what PokerKit took. Nor does it know the smallest chip in play: a tournament hand whose PHH
file has `_chip_unit` is replayed with a divmod in that chip, as `tools/pokerkit_cash.py`
replays it. A hand whose board ran twice is reported apart (RUN_TWICE): PokerKit's
parser reads one board, and the hand's PHH file is what PokerKit replays. PokerKit's parser ignores two kinds of line PokerStars writes: antes (`posts the ante`)
and mucks at the showdown (`mucks hand`); the subclass below adds only those two. Exit status 0 when every hand
parses and agrees, 1 otherwise.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
import warnings
from pathlib import Path

from pokerkit import PokerStarsParser

# A raked cash hand's rake, and a tournament hand's split in its smallest chip, as PokerKit's
# rake and divmod functions (beside this file).
from pokerkit_cash import divmod_function, rake_function  # noqa: E402


class PokerStarsWithAntes(PokerStarsParser):
    ANTE_POSTING = re.compile(r'(?P<player>.+): posts the ante \D?(?P<ante>[0-9.]+)')
    MUCKING = re.compile(r'^(?P<player>.+): mucks hand$')

    def _parse_actions(self, s, parse_value, players):
        # A muck at the showdown (`mucks hand`) is a showdown action without cards. Mucks
        # come after the last bet, so the text between them is parsed as PokerKit does.
        actions = []
        chunk = []
        for line in s.splitlines():
            m = self.MUCKING.search(line)
            if m is None:
                chunk.append(line)
                continue
            actions.extend(super()._parse_actions('\n'.join(chunk), parse_value, players))
            chunk = []
            actions.append(f'p{players.index(m["player"]) + 1} sm')
        actions.extend(super()._parse_actions('\n'.join(chunk), parse_value, players))
        return actions

    def _parse_players(self, s):
        players = super()._parse_players(s)
        for line in s.splitlines():
            if m := self.MUCKING.search(line):
                players.add(m['player'])
        return players


def phh_outcomes(root: Path) -> dict[int, tuple[dict[str, int], str, object, object, int]]:
    """Finishing stacks by player name, the odd-chip rule, the rake (PokerKit's rake
    function, from the `_rake_*` fields of a raked cash hand), the divmod of a hand split in
    a smallest chip of more than one (`_chip_unit`) and that chip, by the hand's log
    position."""
    out = {}
    for path in sorted(root.rglob('*.phh')):
        data = tomllib.loads(path.read_text())
        stacks = dict(zip(data['players'], data['finishing_stacks']))
        out[int(data['_position'])] = (
            stacks,
            data.get('_odd_chips', ''),
            rake_function(data),
            divmod_function(data),
            int(data.get('_chip_unit', 1)),
        )
    return out


def odd_chips_only(ours: dict[str, int], theirs: dict[str, int], rule: str, unit: int) -> bool:
    """Whether two outcomes differ only as two odd-chip rules split a pot: the house's
    `rule` gives the odd chips (of `unit` chips each) of a split pot one each clockwise from
    the button, PokerKit all to the first winner. The same players and total, each stack
    apart by fewer odd chips than a table has seats."""
    return (
        rule != 'AllToFirstLeftOfButton'
        and ours.keys() == theirs.keys()
        and sum(ours.values()) == sum(theirs.values())
        and all(abs(ours[p] - theirs[p]) < 10 * unit for p in ours)
    )


def dead_button(text: str) -> bool:
    """Whether the hand's blinds are not on the two seats after the button: the button at
    an empty seat (a dead button), or a player seated between the button and the small
    blind (one moved or re-entered into a seat the blinds have passed). PokerKit's parser
    takes the two players after the button for the blinds and cannot read such a hand."""
    button = re.search(r'Seat #(\d+) is the button', text)
    seated = re.findall(r'^Seat (\d+): (.+) \(\d+ in chips\)', text, re.MULTILINE)
    seats = [int(seat) for seat, _ in seated]
    if button is None or int(button[1]) not in seats:
        return button is not None
    small = re.search(r'^(.+): posts small blind', text, re.MULTILINE)
    if small is None:
        return False
    after = sorted(seats, key=lambda seat: (seat <= int(button[1]), seat))
    first = dict((int(seat), name) for seat, name in seated)[after[0]]
    return len(seats) > 2 and first != small[1]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    stars_dir, phh_dir = Path(sys.argv[1]), Path(sys.argv[2])
    expected = phh_outcomes(phh_dir)
    parser = PokerStarsWithAntes()
    agree = odd = differ = failed = twice = 0
    dead = 0
    for path in sorted(stars_dir.glob('*.txt')):
        # Hand by hand, so that one hand PokerKit cannot read does not hide the others.
        for text in re.split(r'\n{3,}', path.read_text()):
            text = text.strip() + '\n'
            if not text.startswith('PokerStars Hand #'):
                continue
            number = text.split('#', 1)[1].split(':', 1)[0]
            if 'Hand was run twice' in text:
                # PokerKit's parser reads one board; the PHH export of the hand, with its
                # runout count, is what PokerKit replays.
                print(f'RUN_TWICE {path.name} hand {number}: checked as PHH')
                twice += 1
                continue
            with warnings.catch_warnings():
                warnings.simplefilter('error')
                # PokerKit's own parser sets this field and then warns about it.
                warnings.filterwarnings('ignore', message='.*time_zone_abbreviation')
                # A player sitting out (absent, or serving missed hands) is folded at their
                # turn even with nothing to call: their hand is dead (QueenSix tournament
                # 10). PokerKit replays the fold and warns that it was not needed.
                warnings.filterwarnings(
                    'ignore', message='There is no reason for this player to fold'
                )
                try:
                    hh = next(iter(parser(text, error_status=True)))
                except Exception as e:  # noqa: BLE001 - any failure is a verdict
                    if dead_button(text):
                        print(f'DEAD_BUTTON {path.name} hand {number}: PokerKit cannot read it')
                        dead += 1
                    else:
                        # The forced bets the hand posts: PokerKit's parser reads no
                        # straddle and one blind of each kind.
                        posts = re.findall(r'posts (?:small blind|big blind|straddle)', text)
                        print(f'PARSE_FAIL {path.name} hand {number}: {e} [{", ".join(posts)}]')
                        failed += 1
                    continue
            found = expected.get(int(hh.hand))
            if found is None:
                print(f'MISSING   {path.name} hand {hh.hand}: no PHH file has it')
                failed += 1
                continue
            want, rule, rake, divide, unit = found
            if rake is not None:
                hh = dataclasses.replace(hh, rake=rake)
            if divide is not None:
                hh = dataclasses.replace(hh, divmod=divide)
            final = list(hh)[-1]
            stacks = dict(zip(hh.players, final.stacks))
            # The text's own rake is what PokerKit took.
            said = re.search(r'^Total pot \d+ \| Rake (\d+)$', text, re.MULTILINE)
            taken = sum(hh.starting_stacks) - sum(final.stacks)
            if said is None or int(said[1]) != taken:
                print(f'DIFFER    {path.name} hand {hh.hand}: rake {said and said[1]}, PokerKit took {taken}')
                differ += 1
                continue
            if stacks == want:
                agree += 1
            elif odd_chips_only(want, stacks, rule, unit):
                print(f'ODD_CHIPS {path.name} hand {hh.hand} ({rule}): PokerKit {stacks}, PHH {want}')
                odd += 1
            else:
                print(f'DIFFER    {path.name} hand {hh.hand}: PokerKit {stacks}, PHH {want}')
                differ += 1
    print(f'AGREE: {agree}   ODD_CHIPS: {odd}   DEAD_BUTTON: {dead}   RUN_TWICE: {twice}   DIFFER: {differ}   FAILED: {failed}')
    return 0 if differ == 0 and failed == 0 and agree > 0 else 1


if __name__ == '__main__':
    sys.exit(main())
