#!/usr/bin/env python3
"""An auditor's own check of a league's exported log, written from docs/event-store.md
("Hashing and signatures", "Exported logs and how to check them") without the Rust code.

    league audit export --format log --out DIR
    python3 tools/verify_log.py DIR [--public-key HEX[@SIZE]]... [--tree-head FILE]...

Recomputes every event hash and stream chain, the seals' Merkle roots and every signed tree
head, walks the events against the sealed leaves, and checks the log against heads saved
outside the database. Prints the same verdict lines as `league audit verify`; exits 0 (OK),
1 (broken, or a saved head fails), 2 (the files cannot be read) or 3 (with a key given, the
end of the log is covered by no signed head).

Needs Python 3.9+ and `cryptography` (Ed25519) only.
"""

import argparse
import datetime
import hashlib
import json
import struct
import sys
import uuid
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

ZERO = bytes(32)


# --- Hashing (docs/event-store.md, "Event hash", "Merkle tree", "Signed tree head") ---


def b(x):
    return struct.pack(">Q", len(x)) + x


def opt(s):
    return b"\x00" if s is None else b"\x01" + b(s.encode())


def event_hash(e):
    if e["event_id"] is None:
        head = b"league-event-v1\x00"
    else:
        head = b"league-event-v2\x00" + uuid.UUID(e["event_id"]).bytes
    return hashlib.sha256(
        head
        + b(e["stream_id"].encode())
        + struct.pack(">Q", e["stream_version"])
        + b(e["event_type"].encode())
        + struct.pack(">I", e["schema_version"])
        + opt(e["actor"])
        + opt(e["correlation_id"])
        + opt(e["causation_id"])
        + opt(e["idempotency_key"])
        + struct.pack(">q", e["recorded_at"])
        + e["prev"]
        + b(e["payload_bytes"])
    ).digest()


def leaf(h):
    return hashlib.sha256(b"\x00" + h).digest()


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


class Tree:
    """The root of the first n leaves, leaf by leaf: the roots of the perfect subtrees on
    the right edge, largest first."""

    def __init__(self):
        self.size = 0
        self.edge = []  # (height, root)

    def push(self, h):
        height, root = 0, h
        while self.edge and self.edge[-1][0] == height:
            _, left = self.edge.pop()
            root = node(left, root)
            height += 1
        self.edge.append((height, root))
        self.size += 1

    def root(self):
        if not self.edge:
            return hashlib.sha256(b"").digest()
        r = self.edge[-1][1]
        for _, left in reversed(self.edge[:-1]):
            r = node(left, r)
        return r


def head_message(size, signed_at, root):
    return b"league-tree-head-v1\x00" + struct.pack(">Q", size) + struct.pack(">q", signed_at) + root


def signed_by(head, key_bytes):
    if key_bytes != head["public_key"]:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(key_bytes).verify(
            head["signature"], head_message(head["tree_size"], head["signed_at"], head["root"])
        )
        return True
    except (InvalidSignature, ValueError):
        return False


def utc(micros):
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=micros // 1_000_000)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


# --- Reading the export ---


def hexbytes(text, length, what):
    raw = bytes.fromhex(text)
    if len(raw) != length:
        raise ValueError(f"{what} is not {length} bytes")
    return raw


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}: line {n}: {e}") from None


def read_event(e):
    if "payload" in e:
        e["payload_bytes"] = e["payload"].encode("utf-8")
    else:
        e["payload_bytes"] = bytes.fromhex(e["payload_hex"])
    e["prev"] = hexbytes(e["prev_hash"], 32, "prev_hash")
    e["stored"] = hexbytes(e["hash"], 32, "hash")
    return e


def read_head(h):
    return {
        "tree_size": int(h["tree_size"]),
        "root": hexbytes(h["root"], 32, "root"),
        "signed_at": int(h["signed_at"]),
        "public_key": hexbytes(h["public_key"], 32, "public_key"),
        "signature": hexbytes(h["signature"], 64, "signature"),
    }


def read_heads_file(path):
    text = Path(path).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return [read_head(h) for h in json.loads(text)]
    heads = [read_head(json.loads(line)) for line in text.splitlines() if line.strip()]
    if not heads:
        raise ValueError(f"{path}: no tree head in it")
    return heads


class Keys:
    """The league's keys, each from the first tree size it signs."""

    def __init__(self, given):
        self.keys = []
        for k in given:
            text, _, start = k.partition("@")
            self.keys.append((int(start) if start else 0, hexbytes(text.strip(), 32, "public key")))
        self.keys.sort()
        if self.keys and self.keys[0][0] != 0:
            raise ValueError("one public key must cover the log from tree size 0")

    def given(self):
        return bool(self.keys)

    def check(self, head):
        if not self.keys:
            return signed_by(head, head["public_key"])
        key = self.keys[0][1]
        for start, k in self.keys:
            if start <= head["tree_size"]:
                key = k
        return signed_by(head, key)


# --- The checks (docs/event-store.md, "The checks, in order") ---


def verify(events, seals, heads, keys):
    """Returns (report lines, first break or None, uncovered (from, count) or None)."""
    positions, leaves, seal_ends = [], [], []
    tree_break = None
    for s in seals:
        count = s["leaf_count"]
        intact = (
            s["first_leaf"] == len(leaves)
            and count >= 1
            and len(s["positions"]) == count
            and len(s["leaf_hashes"]) == count
        )
        if not intact:
            tree_break = ((positions[-1] + 1) if positions else 0, f"seal {s['seal_id']} is corrupt")
            break
        positions.extend(s["positions"])
        leaves.extend(bytes.fromhex(h) for h in s["leaf_hashes"])
        seal_ends.append((len(leaves), bytes.fromhex(s["root"]), s["seal_id"]))

    def position_of(i):
        if i < len(positions):
            return positions[i]
        return positions[-1] if positions else 0

    empty = [h for h in heads if h["tree_size"] == 0]
    heads = sorted((h for h in heads if h["tree_size"] != 0), key=lambda h: h["tree_size"])
    tree = Tree()
    signed_size, heads_checked = 0, 0
    seal_i, head_i, seal_start = 0, 0, 0
    for i, lf in enumerate(leaves):
        tree.push(lf)
        size = i + 1
        if seal_i < len(seal_ends) and seal_ends[seal_i][0] == size:
            _, root, seal_id = seal_ends[seal_i]
            if tree.root() != root and tree_break is None:
                tree_break = (position_of(seal_start), f"seal {seal_id} is corrupt")
            seal_start = size
            seal_i += 1
        while head_i < len(heads) and heads[head_i]["tree_size"] == size:
            h = heads[head_i]
            heads_checked += 1
            ok = keys.check(h)
            if ok and h["root"] == tree.root():
                signed_size = max(signed_size, size)
            elif tree_break is None:
                tree_break = (position_of(i), f"the signed tree head of size {size} does not match")
            head_i += 1
    for h in heads[head_i:] + empty:
        heads_checked += 1
        if tree_break is None:
            tree_break = (
                position_of(len(leaves)),
                f"the signed tree head of size {h['tree_size']} does not match",
            )

    walk_break = None
    pointer = 0
    last_sealed = positions[-1] if positions else None
    signed_through = positions[signed_size - 1] if signed_size else None
    chains = {}
    checked = 0
    uncovered = None
    for e in events:
        checked += 1
        p = e["position"]
        if signed_through is None or p > signed_through:
            uncovered = (uncovered[0], uncovered[1] + 1) if uncovered else (p, 1)
        if pointer < len(positions) and positions[pointer] < p:
            walk_break = (positions[pointer], "a sealed event is missing")
            break
        if pointer < len(positions) and positions[pointer] == p:
            if leaves[pointer] != leaf(e["stored"]):
                walk_break = (p, "the event differs from the sealed leaf")
                break
            pointer += 1
        elif last_sealed is not None and p <= last_sealed:
            walk_break = (p, "an event that the sealed tree does not have")
            break
        if event_hash(e) != e["stored"]:
            walk_break = (p, "the event's hash does not match its contents")
            break
        version, previous = chains.get(e["stream_id"], (0, ZERO))
        stream = json.dumps(e["stream_id"])
        if e["stream_version"] != version + 1:
            walk_break = (p, f"stream {stream} jumps from version {version + 1} to {e['stream_version']}")
            break
        if e["prev"] != previous:
            walk_break = (p, f"the chain of stream {stream} is broken")
            break
        chains[e["stream_id"]] = (e["stream_version"], e["stored"])
    if walk_break is None and pointer < len(positions):
        walk_break = (positions[pointer], "a sealed event is missing")

    first = tree_break
    if walk_break is not None and (first is None or walk_break[0] < first[0]):
        first = walk_break
    lines = [
        f"events checked:     {checked}",
        f"sealed tree size:   {len(leaves)}",
        f"sealed tree root:   {tree_root(leaves).hex()}",
        f"tree heads checked: {heads_checked}"
        + (" (against their own key: pass --public-key to trust)" if not keys.given() and heads_checked else ""),
        f"signed tree size:   {signed_size}",
    ]
    if uncovered:
        lines.append(f"not signed:         {uncovered[1]} events from position {uncovered[0]}")
    return lines, first, uncovered


def tree_root(leaves):
    t = Tree()
    for lf in leaves:
        t.push(lf)
    return t.root()


def check_saved(events, saved, keys):
    """What the log says to each saved head: a line for each that fails."""
    tree = Tree()
    roots = {}
    wanted = {h["tree_size"] for h in saved}
    last = {}
    for e in events:
        tree.push(leaf(event_hash(e)))
        if tree.size in wanted:
            roots[tree.size] = tree.root()
            last[tree.size] = e["position"]
    count = tree.size
    final = events[-1]["position"] if events else None
    failures = []
    held = 0
    for h in sorted(saved, key=lambda h: h["tree_size"]):
        n = h["tree_size"]
        say = f"the head of {n} events signed {utc(h['signed_at'])}: "
        if not keys.check(h):
            failures.append(say + "its signature does not verify under the league's key")
        elif n > count:
            if final is None:
                failures.append(say + "the log holds no events: every event it covers was removed")
            else:
                failures.append(
                    say + f"the log holds only {count} events: the {n - count} after position {final} were removed"
                )
        elif (roots.get(n) if n else hashlib.sha256(b"").digest()) != h["root"]:
            failures.append(
                say
                + f"the log's first {n} events have another root: an event between positions {held} and {last.get(n, 0)} was changed, removed, inserted or moved"
            )
        elif n:
            held = max(held, last[n] + 1)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", help="the folder `league audit export --format log` wrote")
    parser.add_argument("--public-key", action="append", default=[], help="HEX or HEX@SIZE")
    parser.add_argument("--tree-head", action="append", default=[], help="a file of saved heads")
    args = parser.parse_args()
    try:
        keys = Keys(args.public_key)
        folder = Path(args.dir)
        events = [read_event(e) for e in read_lines(folder / "events.jsonl")]
        seals = list(read_lines(folder / "seals.jsonl"))
        heads = [read_head(h) for h in read_lines(folder / "tree-heads.jsonl")]
        saved = [h for f in args.tree_head for h in read_heads_file(f)]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lines, first, uncovered = verify(events, seals, heads, keys)
    for line in lines:
        print(line)
    if first is not None:
        print(f"BROKEN at position {first[0]}: {first[1]}")
    elif uncovered and keys.given():
        print(f"NOT COVERED: {uncovered[1]} events from position {uncovered[0]} are covered by no signed tree head")
    else:
        print("OK: no break")
    failures = check_saved(events, saved, keys) if saved else []
    if saved and not failures:
        print(f"saved tree heads:   {len(saved)} hold")
    for f in failures[:3]:  # the smallest first: every larger head fails with it
        print(f"SAVED HEAD FAILS: {f}")
    if len(failures) > 3:
        print(f"... and {len(failures) - 3} larger heads")
    if first is not None or failures:
        return 1
    if uncovered and keys.given():
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
