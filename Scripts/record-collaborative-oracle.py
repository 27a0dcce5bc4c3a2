#!/usr/bin/env python3
# This source file is part of the ActionStack open source project
#
# Copyright (c) 2026 the ActionStack project authors
# Licensed under Apache License v2.0
#
# See LICENSE for license information
#
# SPDX-License-Identifier: Apache-2.0

"""Records what the local undo managers of Yjs and Loro do, as an oracle for collaborative undo.

Two peers, A and B, edit one document in turns: after every event the two documents are synced
both ways, so every event is expressed on the same visible document. A has an undo manager that
tracks only A's local changes; B's changes reach A as updates the manager does not track. Events:
`local` (A edits, one undo step), `remote` (B edits), `undo` and `redo` (on A). After each event
the script writes A's and B's visible documents, what A's undo or redo returned, and A's stack
sizes as the library reports them.

Engines (pinned in Scripts/requirements-oracle.txt):
- Yjs through pycrdt (Yrs): `UndoManager` over the shared root type, capture timeout 0 and a
  timestamp that advances 1 s per call, so that every local transaction is its own undo step; A's
  edits are made in transactions with the origin "local", which the manager tracks
  (`include_origin`), B's updates are applied to A in a transaction with the origin "remote".
- Loro: `UndoManager` with merge interval 0 and one commit per local event; imports are never
  recorded by Loro's manager.
A's client or peer id is 1 and B's is 2 in both engines, so that the recordings are reproducible.

Document models: `text` (a text), `list` (an array of small integers) and `records` (a map from
record id to a map of fields: Yjs's Y.Map of Y.Maps, Loro's LoroMap of LoroMaps).

Sequences: hand-written golden ones (`agree.*` and `disagree.*`: one or more for each behaviour
where the two engines agree or disagree, listed in the fixture README; `found.*`: minimal sequences
that the random runs turned up), then random ones from seeded generators biased towards overlaps
(B editing inside or around what A just changed, the same field, the record A edited, several
undos then redos with B's edits between, ...). Both engines run the same seeds; the
generator looks only at the visible document and at the events so far, so the two engines see the
same events until their documents differ. From there on each engine's events are generated from
its own document (`diverged_at` in the fixture).

Usage:
    python3 -m venv /tmp/oracle-venv
    /tmp/oracle-venv/bin/pip install -r Scripts/requirements-oracle.txt
    /tmp/oracle-venv/bin/python Scripts/record-collaborative-oracle.py [--sequences N] [--out DIR]
        [--first-seed S]

The output, by default Tests/Fixtures/CollaborativeUndo/{yjs,loro}-{text,list,records}.json, is
deterministic: running the script again writes the same bytes. `--first-seed S --out DIR` records
other seeds into another folder, which the replay tests read when `COLLABORATIVE_ORACLE_FIXTURES`
names it (the golden sequences are recorded there too). Its README describes the format.
"""

import argparse
import json
import os
import random
import sys
from importlib import metadata

import loro
import pycrdt

FORMAT_VERSION = 1
PEER_A = 1
PEER_B = 2
MODELS = ("text", "list", "records")
ENGINES = ("yjs", "loro")
# Random sequences per model: a few hundred, each file under ~1.5 MB (records take more room).
DEFAULT_SEQUENCES = {"text": 300, "list": 300, "records": 220}
DEFAULT_OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "CollaborativeUndo"
)
EXPECTED_VERSIONS = {"pycrdt": "0.14.13", "loro": "1.17.1"}


class InvalidEvent(Exception):
    """An operation that does not fit the document it is applied to."""


# --------------------------------------------------------------------------------------------
# Plain values: the visible document, in JSON terms.


def plain_number(value):
    """Yjs stores numbers as doubles; the fixtures hold the integers that were written."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def plain_records(value):
    return {
        rid: {field: plain_number(v) for field, v in sorted(fields.items())}
        for rid, fields in sorted(value.items())
    }


def check_op(model, doc, op):
    """Raises InvalidEvent unless `op` applies to the plain document `doc`."""
    kind = op["op"]
    if model in ("text", "list"):
        length = len(doc)
        if kind == "insert":
            content = op["text"] if model == "text" else op["values"]
            if not 0 <= op["pos"] <= length or not content:
                raise InvalidEvent(op)
        elif kind == "delete":
            if op["len"] <= 0 or not 0 <= op["pos"] or op["pos"] + op["len"] > length:
                raise InvalidEvent(op)
        else:
            raise InvalidEvent(op)
    else:
        if kind == "create":
            if not op["fields"]:
                raise InvalidEvent(op)
        elif kind in ("set", "delete"):
            if op["id"] not in doc:
                raise InvalidEvent(op)
        else:
            raise InvalidEvent(op)


def apply_plain(model, doc, op):
    """`op` applied to the plain document `doc` (a new value)."""
    check_op(model, doc, op)
    kind = op["op"]
    if model == "text":
        if kind == "insert":
            return doc[: op["pos"]] + op["text"] + doc[op["pos"] :]
        return doc[: op["pos"]] + doc[op["pos"] + op["len"] :]
    if model == "list":
        if kind == "insert":
            return doc[: op["pos"]] + list(op["values"]) + doc[op["pos"] :]
        return doc[: op["pos"]] + doc[op["pos"] + op["len"] :]
    doc = {rid: dict(fields) for rid, fields in doc.items()}
    if kind == "create":
        doc[op["id"]] = dict(op["fields"])
    elif kind == "set":
        doc[op["id"]][op["field"]] = op["value"]
    else:
        del doc[op["id"]]
    return plain_records(doc)


# --------------------------------------------------------------------------------------------
# Engines: two peers, A with an undo manager, synced both ways after every event.


class YjsEngine:
    name = "yjs"

    def __init__(self, model):
        self.model = model
        self.a = pycrdt.Doc(client_id=PEER_A)
        self.b = pycrdt.Doc(client_id=PEER_B)
        kind = {"text": pycrdt.Text, "list": pycrdt.Array, "records": pycrdt.Map}[model]
        self.root_a = self.a.get("doc", type=kind)
        self.root_b = self.b.get("doc", type=kind)
        self.clock = 0
        self.manager = pycrdt.UndoManager(
            scopes=[self.root_a], capture_timeout_millis=0, timestamp=self.tick
        )
        self.manager.include_origin("local")

    def tick(self):
        # Every call is a second later: no two transactions fall in one capture window.
        self.clock += 1000
        return self.clock

    def sync(self):
        self.b.apply_update(self.a.get_update(self.b.get_state()))
        update = self.b.get_update(self.a.get_state())
        with self.a.transaction(origin="remote"):
            self.a.apply_update(update)

    def apply(self, root, op):
        kind = op["op"]
        if self.model == "text":
            if kind == "insert":
                root.insert(op["pos"], op["text"])
            else:
                del root[op["pos"] : op["pos"] + op["len"]]
        elif self.model == "list":
            if kind == "insert":
                root[op["pos"] : op["pos"]] = list(op["values"])
            else:
                del root[op["pos"] : op["pos"] + op["len"]]
        else:
            if kind == "create":
                root[op["id"]] = pycrdt.Map(dict(op["fields"]))
            elif kind == "set":
                root[op["id"]][op["field"]] = op["value"]
            else:
                del root[op["id"]]

    def edit(self, peer, ops):
        doc, root, origin = (
            (self.a, self.root_a, "local") if peer == "A" else (self.b, self.root_b, "peer")
        )
        with doc.transaction(origin=origin):
            for op in ops:
                self.apply(root, op)
        self.sync()

    def undo(self):
        did = self.manager.undo()
        self.sync()
        return did

    def redo(self):
        did = self.manager.redo()
        self.sync()
        return did

    def document(self, peer):
        root = self.root_a if peer == "A" else self.root_b
        if self.model == "text":
            return str(root)
        if self.model == "list":
            return [plain_number(v) for v in root.to_py()]
        return plain_records(root.to_py())

    def stacks(self):
        return {
            "undo": len(self.manager.undo_stack),
            "redo": len(self.manager.redo_stack),
            "can_undo": self.manager.can_undo(),
            "can_redo": self.manager.can_redo(),
        }


class LoroEngine:
    name = "loro"

    def __init__(self, model):
        self.model = model
        self.a = loro.LoroDoc()
        self.a.peer_id = PEER_A
        self.b = loro.LoroDoc()
        self.b.peer_id = PEER_B
        self.manager = loro.UndoManager(self.a)
        self.manager.set_merge_interval(0)
        self.manager.set_max_undo_steps(10_000)

    def root(self, doc):
        if self.model == "text":
            return doc.get_text("doc")
        if self.model == "list":
            return doc.get_list("doc")
        return doc.get_map("doc")

    def sync(self):
        self.a.commit()
        self.b.commit()
        self.b.import_(self.a.export(loro.ExportMode.Updates(self.b.oplog_vv)))
        self.a.import_(self.b.export(loro.ExportMode.Updates(self.a.oplog_vv)))

    def apply(self, root, op):
        kind = op["op"]
        if self.model == "text":
            if kind == "insert":
                root.insert(op["pos"], op["text"])
            else:
                root.delete(op["pos"], op["len"])
        elif self.model == "list":
            if kind == "insert":
                for offset, value in enumerate(op["values"]):
                    root.insert(op["pos"] + offset, value)
            else:
                root.delete(op["pos"], op["len"])
        else:
            if kind == "create":
                record = root.insert_container(op["id"], loro.LoroMap())
                for field, value in op["fields"].items():
                    record.insert(field, value)
            elif kind == "set":
                root.get(op["id"]).container.insert(op["field"], op["value"])
            else:
                root.delete(op["id"])

    def edit(self, peer, ops):
        doc = self.a if peer == "A" else self.b
        root = self.root(doc)
        for op in ops:
            self.apply(root, op)
        doc.commit()  # One commit: one undo step for A.
        self.sync()

    def undo(self):
        did = self.manager.undo()
        self.sync()
        return did

    def redo(self):
        did = self.manager.redo()
        self.sync()
        return did

    def document(self, peer):
        root = self.root(self.a if peer == "A" else self.b)
        if self.model == "text":
            return root.to_string()
        if self.model == "list":
            return [plain_number(v) for v in root.get_deep_value()]
        return plain_records(root.get_deep_value())

    def stacks(self):
        return {
            "undo": self.manager.undo_count(),
            "redo": self.manager.redo_count(),
            "can_undo": self.manager.can_undo(),
            "can_redo": self.manager.can_redo(),
        }


ENGINE_TYPES = {"yjs": YjsEngine, "loro": LoroEngine}


def run_event(engine, event, document):
    """Performs `event` on `engine` (whose visible document is `document`); returns its step."""
    did = None
    if event["type"] in ("local", "remote"):
        plain = document
        for op in event["ops"]:
            plain = apply_plain(engine.model, plain, op)  # Raises for an op that does not fit.
        engine.edit("A" if event["type"] == "local" else "B", event["ops"])
    elif event["type"] == "undo":
        did = engine.undo()
    elif event["type"] == "redo":
        did = engine.redo()
    else:
        raise InvalidEvent(event)
    step = {"event": event, "a": engine.document("A"), "b": engine.document("B"), "did": did}
    step.update(engine.stacks())
    return step


# --------------------------------------------------------------------------------------------
# Golden sequences: the measured lists of the note, row by row. Each event is a tuple:
#   ("A", op, op...) a local step; ("B", op, op...) a remote change; "undo"; "redo".
# Ops: ("ins", pos, content) ("del", pos, len) for text and lists;
#      ("create", id, {fields}) ("set", id, field, value) ("delete", id) for records.


def golden_op(model, spec):
    kind = spec[0]
    if kind == "ins":
        key = "text" if model == "text" else "values"
        return {"op": "insert", "pos": spec[1], key: spec[2]}
    if kind == "del":
        return {"op": "delete", "pos": spec[1], "len": spec[2]}
    if kind == "create":
        return {"op": "create", "id": spec[1], "fields": dict(spec[2])}
    if kind == "set":
        return {"op": "set", "id": spec[1], "field": spec[2], "value": spec[3]}
    if kind == "delete":
        return {"op": "delete", "id": spec[1]}
    raise ValueError(spec)


def golden_event(model, spec):
    if spec in ("undo", "redo"):
        return {"type": spec}
    peer, ops = spec[0], spec[1:]
    return {
        "type": "local" if peer == "A" else "remote",
        "ops": [golden_op(model, op) for op in ops],
    }


def text_goldens(model):
    """Golden sequences for text (model "text") and lists (the same shapes on integers)."""

    def c(s):
        # Content: a string for text, the letters' codes modulo 100 for lists.
        return s if model == "text" else [ord(ch) % 100 for ch in s]

    base = ("B", ("ins", 0, c("abcdefgh")))
    return [
        (
            "agree.undo-removes-only-own-content",
            "Undo removes only A's content, wherever it now is, with B's inserts around and "
            "inside it; redo puts it back around B's inserts.",
            [
                ("A", ("ins", 0, c("HELLO"))),
                ("B", ("ins", 2, c("xy"))),
                ("B", ("ins", 0, c("<"))),
                ("B", ("ins", 8, c(">"))),
                "undo",
                "redo",
            ],
        ),
        (
            "agree.restored-content-goes-back-where-it-was",
            "Undoing A's delete restores the content where it was, after B typed before it.",
            [base, ("A", ("del", 2, 3)), ("B", ("ins", 0, c("zz"))), "undo", "redo"],
        ),
        (
            "agree.restored-content-goes-before-peer-insert-at-tie",
            "B types exactly where A's deleted content was: the undo restores it before B's "
            "insert.",
            [base, ("A", ("del", 2, 3)), ("B", ("ins", 2, c("x"))), "undo", "redo"],
        ),
        (
            "agree.tie-after-peer-typed-twice",
            "B types twice at the place of A's deletion (the second insert after the first): "
            "the restored content goes before both.",
            [
                base,
                ("A", ("del", 3, 2)),
                ("B", ("ins", 3, c("x"))),
                ("B", ("ins", 4, c("y"))),
                "undo",
            ],
        ),
        (
            "agree.undo-never-deletes-peer-content-redo-never-revives",
            "A inserted XYZ, B deleted Y: undo removes X and Z, redo restores X and Z only.",
            [base, ("A", ("ins", 4, c("XYZ"))), ("B", ("del", 5, 1)), "undo", "redo"],
        ),
        (
            "agree.peer-deleted-all-of-step",
            "B deleted everything A's last step inserted: that step has nothing left to do.",
            [
                base,
                ("A", ("ins", 1, c("PQ"))),
                ("A", ("ins", 6, c("XYZ"))),
                ("B", ("del", 5, 5)),
                "undo",
                "redo",
            ],
        ),
        (
            "agree.peer-deleted-around-restored-content",
            "A deleted cde, B deleted b and f around the place: undo restores cde between a and g.",
            [base, ("A", ("del", 2, 3)), ("B", ("del", 1, 2)), "undo"],
        ),
        (
            "agree.cycle-undo-redo-restores",
            "An undo immediately followed by a redo restores exactly the state before.",
            [
                base,
                ("A", ("ins", 3, c("XY"))),
                ("A", ("del", 0, 2)),
                "undo",
                "redo",
                "undo",
                "redo",
            ],
        ),
        (
            "agree.cycle-with-peer-edits-elsewhere",
            "Undo all, B edits other text, redo all: the state before plus B's edits.",
            [
                base,
                ("A", ("ins", 2, c("XY"))),
                ("A", ("del", 6, 2)),
                ("A", ("ins", 0, c("Q"))),
                "undo",
                ("B", ("ins", 7, c("zz"))),
                "undo",
                ("B", ("del", 0, 1)),
                "undo",
                ("B", ("ins", 0, c("w"))),
                "redo",
                "redo",
                ("B", ("ins", 1, c("v"))),
                "redo",
            ],
        ),
        (
            "agree.local-change-empties-redo-remote-does-not",
            "A remote change keeps A's redo stack; a local change empties it.",
            [
                base,
                ("A", ("ins", 1, c("X"))),
                "undo",
                ("B", ("ins", 0, c("z"))),
                "redo",
                "undo",
                ("A", ("ins", 0, c("Y"))),
                "redo",
            ],
        ),
        (
            "disagree.3-replace-then-peer-types-inside",
            "A replaces a range in one step, B types inside the replacement: the undo restores the "
            "deleted content at the start of the range (Yjs) or after B's insert (Loro).",
            [
                base,
                ("A", ("del", 2, 4), ("ins", 2, c("XYZ"))),
                ("B", ("ins", 3, c("q"))),
                "undo",
                "redo",
            ],
        ),
        (
            "disagree.2-dead-step-skipped",
            "B deleted all that A's last step inserted: Yjs's undo skips it and undoes the step "
            "below in the same press; Loro's press drops it and returns false.",
            [
                base,
                ("A", ("ins", 0, c("PQ"))),
                ("A", ("ins", 5, c("XYZ"))),
                ("B", ("del", 5, 3)),
                "undo",
                "undo",
                "redo",
                "redo",
            ],
        ),
        (
            "agree.redo-of-content-peer-deleted-does-nothing",
            "A deleted content and undid that; B deleted the restored content with its "
            "neighbours: the redo has nothing left to delete and does nothing.",
            [base, ("A", ("del", 3, 2)), "undo", ("B", ("del", 2, 3)), "redo", "undo"],
        ),
        (
            "disagree.4-content-placed-by-deleted-identity",
            "A deletes two adjacent runs in two steps; B types where they were; A undoes both. A "
            "position-based interface sees one place for B's insert; Yjs orders it by the deleted "
            "items around it.",
            [
                base,
                ("A", ("del", 4, 2)),
                ("A", ("del", 2, 2)),
                ("B", ("ins", 2, c("x"))),
                "undo",
                "undo",
                "redo",
                "redo",
            ],
        ),
        (
            "disagree.4-peer-types-after-deleted-run",
            "A deletes a run, B types at the place, A deletes the text before, then undoes twice.",
            [
                base,
                ("A", ("del", 3, 2)),
                ("B", ("ins", 3, c("x"))),
                ("A", ("del", 1, 2)),
                "undo",
                "undo",
                "redo",
            ],
        ),
        # Minimal sequences found by the random runs (see the fixture README): each shows one
        # way in which a position-based undo stack, Yjs and Loro can differ.
        (
            "found.redo-of-replace-after-peer-typed-at-its-start",
            "A replaced h by B and undid it; B typed k just before h; the redo puts B after k, "
            "where h was (the new content of a replacement sits after the old one).",
            [
                ("B", ("ins", 0, c("efgh"))),
                ("A", ("del", 3, 1), ("ins", 3, c("B"))),
                "undo",
                ("B", ("ins", 3, c("k"))),
                "redo",
            ],
        ),
        (
            "found.redo-insert-after-peer-typing-in-redone-deletion",
            "A replaced the text by B, typed E before it, undid both; B typed l inside the "
            "restored text; the two redos put E after l (E went in after the deleted text).",
            [
                ("B", ("ins", 0, c("bcdefgh"))),
                ("A", ("del", 0, 7), ("ins", 0, c("B"))),
                ("A", ("ins", 0, c("E"))),
                "undo",
                "undo",
                ("B", ("ins", 6, c("l"))),
                "redo",
                "redo",
            ],
        ),
        (
            "found.identity-collapsed-gap",
            "B's deletions make B's u and the place of A's deleted h adjacent; the restored h goes "
            "after u in Yjs (by the identity of the deleted characters), before it by position.",
            [
                ("B", ("ins", 0, c("abcdefgh"))),
                ("B", ("ins", 2, c("jkl"))),
                ("A", ("del", 10, 1)),
                ("B", ("ins", 9, c("q"))),
                ("A", ("ins", 10, c("DE"))),
                ("A", ("del", 12, 1)),
                "undo",
                ("B", ("del", 12, 1)),
                ("B", ("del", 0, 1), ("ins", 0, c("rst"))),
                ("B", ("ins", 13, c("u"))),
                "undo",
                "undo",
            ],
        ),
        (
            "found.peer-deleted-neighbours-then-replaced",
            "A deleted bcd; B replaced all the rest by xyz: the undo restores bcd before xyz (Yjs; "
            "Loro's list puts it after).",
            [
                ("B", ("ins", 0, c("abcdef"))),
                ("A", ("del", 1, 3)),
                ("B", ("del", 0, 3), ("ins", 0, c("xyz"))),
                "undo",
            ],
        ),
        (
            "found.yrs-restored-copy-split-single-user",
            "No peer: A inserts ABC, deletes it, undoes that, types D inside, undoes D, then "
            "undoes the insertion: Yrs removes only AB (the first piece of the restored copy).",
            [
                ("A", ("ins", 0, c("ABC"))),
                ("A", ("del", 0, 3)),
                "undo",
                ("A", ("ins", 2, c("D"))),
                "undo",
                "undo",
            ],
        ),
        (
            "found.yrs-restored-copy-split-by-peer",
            "A inserts XYZ, deletes it, undoes that; B types inside; A's next undo should remove "
            "XYZ: Yrs leaves Z.",
            [
                ("B", ("ins", 0, c("abc"))),
                ("A", ("ins", 1, c("XYZ"))),
                ("A", ("del", 1, 3)),
                "undo",
                ("B", ("ins", 3, c("q"))),
                "undo",
            ],
        ),
        (
            "found.yrs-restored-items-merged",
            "No peer edits after the start: after undo, redo and undo of a deletion of F and G, "
            "undoing the insertion of G makes Yrs delete F too.",
            [
                ("B", ("ins", 0, c("gh"))),
                ("A", ("ins", 2, c("ABC"))),
                ("A", ("del", 3, 1), ("ins", 3, c("DEF"))),
                ("A", ("ins", 6, c("G"))),
                ("A", ("del", 5, 2)),
                ("A", ("ins", 6, c("H"))),
                "undo",
                "undo",
                "redo",
                "undo",
                "undo",
            ],
        ),
    ]


def record_goldens():
    def fields(**kw):
        return kw

    base = (
        "B",
        ("create", "r1", fields(x=1, y=1, c="red")),
        ("create", "r2", fields(x=5, y=5, c="blue")),
    )
    return [
        (
            "agree.undo-keeps-peer-changes-to-other-fields",
            "Undoing A's change of x keeps B's later change of y.",
            [base, ("A", ("set", "r1", "x", 2)), ("B", ("set", "r1", "y", 9)), "undo", "redo"],
        ),
        (
            "agree.record-peer-deleted-stays-deleted",
            "B deleted the record whose field A changed: A's undo leaves it deleted.",
            [base, ("A", ("set", "r1", "x", 2)), ("B", ("delete", "r1")), "undo", "redo"],
        ),
        (
            "disagree.2-peer-deleted-record-of-last-step",
            "A changed r2, then r1; B deleted r1: Yjs's press skips the dead step and undoes A's "
            "change of r2; Loro's drops it and returns false.",
            [
                base,
                ("A", ("set", "r2", "x", 7)),
                ("A", ("set", "r1", "x", 2)),
                ("B", ("delete", "r1")),
                "undo",
                "redo",
            ],
        ),
        (
            "agree.undo-creation-removes-peer-edits-redo-restores",
            "Undoing A's creation removes the record with B's later edits; redo brings it back "
            "with them.",
            [
                base,
                ("A", ("create", "r3", fields(x=3, c="green"))),
                ("B", ("set", "r3", "y", 4)),
                "undo",
                "redo",
            ],
        ),
        (
            "agree.revived-record-followed-by-older-steps",
            "A creates r3, changes it, deletes it; undo revives it (a new object), B edits it, and "
            "A's older steps follow the revived record.",
            [
                base,
                ("A", ("create", "r3", fields(x=3))),
                ("A", ("set", "r3", "x", 4)),
                ("A", ("delete", "r3")),
                "undo",
                ("B", ("set", "r3", "c", "pink")),
                "undo",
                "undo",
                "redo",
                "redo",
                "redo",
            ],
        ),
        (
            "agree.cycle-undo-redo-restores",
            "An undo immediately followed by a redo restores exactly the state before.",
            [
                base,
                ("A", ("set", "r1", "x", 2), ("set", "r1", "y", 3)),
                ("A", ("delete", "r2")),
                "undo",
                "redo",
                "undo",
                "redo",
            ],
        ),
        (
            "agree.cycle-with-peer-edits-elsewhere",
            "Undo all, B edits other fields, redo all: the state before plus B's edits.",
            [
                base,
                ("A", ("set", "r1", "x", 2)),
                ("A", ("create", "r3", fields(x=0))),
                ("A", ("delete", "r2")),
                "undo",
                ("B", ("set", "r1", "c", "teal")),
                "undo",
                ("B", ("set", "r1", "y", 8)),
                "undo",
                "redo",
                "redo",
                ("B", ("set", "r3", "y", 6)),
                "redo",
            ],
        ),
        (
            "agree.local-change-empties-redo-remote-does-not",
            "A remote change keeps A's redo stack; a local change empties it.",
            [
                base,
                ("A", ("set", "r1", "x", 2)),
                "undo",
                ("B", ("set", "r2", "x", 0)),
                "redo",
                "undo",
                ("A", ("set", "r2", "y", 0)),
                "redo",
            ],
        ),
        (
            "agree.undo-added-field-removes-it",
            "A adds a field the record did not have; undo removes it, keeping B's fields.",
            [base, ("A", ("set", "r1", "z", 1)), ("B", ("set", "r1", "x", 5)), "undo", "redo"],
        ),
        (
            "disagree.1-peer-wrote-same-field",
            "B wrote the field after A's step: Yjs's undo leaves B's value (and the step is dead); "
            "Loro's writes A's old value over B's.",
            [base, ("A", ("set", "r1", "x", 2)), ("B", ("set", "r1", "x", 3)), "undo", "redo"],
        ),
        (
            "disagree.1-peer-wrote-one-of-two-fields",
            "A changed x and y in one step, B then wrote x: Yjs's undo restores y only.",
            [
                base,
                ("A", ("set", "r1", "x", 2), ("set", "r1", "y", 2)),
                ("B", ("set", "r1", "x", 3)),
                "undo",
                "redo",
            ],
        ),
        (
            "disagree.1-peer-recreated-deleted-record",
            "A deleted r1, B re-created it: Yjs's undo leaves B's record; Loro's restores A's.",
            [base, ("A", ("delete", "r1")), ("B", ("create", "r1", fields(x=9))), "undo", "redo"],
        ),
        (
            "disagree.1-peer-replaced-created-record",
            "A created r3, B replaced it with its own record: Yjs's undo leaves B's record.",
            [
                base,
                ("A", ("create", "r3", fields(x=3))),
                ("B", ("create", "r3", fields(y=4))),
                "undo",
                "redo",
            ],
        ),
        (
            "disagree.1-peer-wrote-field-between-undo-and-redo",
            "A changed x, undid it, B wrote x, A redoes: Yjs's redo leaves B's value; "
            "Loro's writes A's value over it.",
            [
                base,
                ("A", ("set", "r1", "x", 2)),
                "undo",
                ("B", ("set", "r1", "x", 3)),
                "redo",
                "undo",
            ],
        ),
        (
            "disagree.1-2-peer-wrote-field-of-last-step",
            "B wrote the field of A's last step: Yjs's press skips that dead step and undoes the "
            "step below; Loro's writes A's old value over B's.",
            [
                base,
                ("A", ("set", "r2", "x", 7)),
                ("A", ("set", "r1", "x", 2)),
                ("B", ("set", "r1", "x", 4)),
                "undo",
                "undo",
                "redo",
                "redo",
            ],
        ),
        (
            "found.peer-deleted-record-a-redo-replaces",
            "A replaced B's r1, undid it; B deleted r1; the redo still creates A's r1 (its "
            "replacement lost only its deletion).",
            [
                ("B", ("create", "r1", fields(x=9))),
                ("A", ("create", "r1", fields(c="blue!"))),
                "undo",
                ("B", ("delete", "r1")),
                "redo",
            ],
        ),
        (
            "found.peer-deleted-record-a-redo-would-recreate",
            "A created r4, deleted it, created another r4; undid the last two (reviving the "
            "first); B deleted r4: the redo leaves the slot empty (Yjs) and returns false.",
            [
                ("B", ("create", "r1", fields(x=1))),
                ("A", ("create", "r4", fields(c="red!"))),
                ("A", ("delete", "r4")),
                ("A", ("create", "r4", fields(c="pink!"))),
                "undo",
                "undo",
                ("B", ("delete", "r4")),
                "redo",
            ],
        ),
        (
            "found.yjs-restored-peer-value-counts-as-own",
            "B wrote c after A's first step; A overwrote c and undid that (B's value restored by "
            "A's undo); undoing the first step, Yjs writes A's old c over B's, as if B's value "
            "were A's (its own rule elsewhere leaves a peer's later value).",
            [
                ("B", ("create", "r1", fields(x=8)), ("create", "r2", fields(x=6, y=7, c="pink"))),
                ("A", ("set", "r2", "y", 103), ("set", "r2", "c", "blue!")),
                ("B", ("set", "r2", "c", "green")),
                ("A", ("set", "r2", "c", "blue!")),
                "undo",
                "undo",
            ],
        ),
        (
            "found.yjs-true-without-visible-change",
            "A's older step changed a field of a record that B deleted since: Yjs's undo returns "
            "true and changes nothing visible.",
            [
                ("B", ("create", "r1", fields(c="blue")), ("create", "r2", fields(x=2, c="red"))),
                ("A", ("set", "r1", "c", "green!")),
                ("A", ("create", "r1", fields(y=100, c="teal!"))),
                ("B", ("set", "r1", "x", 9)),
                "undo",
                ("B", ("delete", "r1")),
                "undo",
            ],
        ),
        (
            "found.yjs-forgets-peer-write-in-revived-record",
            "A created r3 and added y; undid both and redid the creation (a new r3); B wrote y; "
            "Yjs's redo writes A's y over B's (it leaves a peer's value written between an undo "
            "and its redo when the record was not revived).",
            [
                ("B", ("create", "r1", fields(x=1))),
                ("A", ("create", "r3", fields(x=109))),
                ("A", ("set", "r3", "y", 107)),
                "undo",
                "undo",
                "redo",
                ("B", ("set", "r3", "y", 7)),
                "redo",
            ],
        ),
        (
            "found.yjs-own-undone-record-blocks-revival",
            "No peer edits after the start: A deletes r2, creates another r2, undoes that, makes a "
            "new change (the redo is gone), undoes it; undoing the deletion, Yjs does nothing.",
            [
                ("B", ("create", "r1", fields(x=1)), ("create", "r2", fields(x=1))),
                ("A", ("delete", "r2")),
                ("A", ("create", "r2", fields(y=2))),
                "undo",
                ("A", ("set", "r1", "x", 5)),
                "undo",
                "undo",
            ],
        ),
        (
            "found.same-value-write",
            "A's second step writes the value the field already has: Yjs's undo of it returns true "
            "(nothing visible changes); Loro finds nothing to undo and undoes the creation.",
            [
                ("B", ("create", "r1", fields(x=1))),
                ("A", ("create", "r3", fields(x=4))),
                ("A", ("set", "r3", "x", 4)),
                "undo",
            ],
        ),
        (
            "found.peer-emptied-slot-of-a-restore",
            "A changed B's r1, deleted it and created another r1; B deleted A's r1: undoing the "
            "creation and the deletion would refill the slot B emptied, so both are dead, and so "
            "is the change to the record that never comes back: the press does nothing and "
            "returns false.",
            [
                ("B", ("create", "r1", fields(x=1))),
                ("A", ("set", "r1", "x", 100)),
                ("A", ("delete", "r1")),
                ("A", ("create", "r1", fields(y=103))),
                ("B", ("delete", "r1")),
                "undo",
            ],
        ),
        (
            "found.peer-deleted-record-an-undo-brought-back",
            "B created r2; A deleted it, created another r2, deleted that and undid the deletion "
            "(A's r2 back); B deleted r2: undoing A's creation would leave the slot empty as it is, "
            "and undoing A's first deletion would refill the slot B emptied, so the press leaves "
            "it empty (Loro); Yjs brings back B's first r2 there.",
            [
                ("B", ("create", "r2", fields(y=3, c="teal"))),
                ("A", ("delete", "r2")),
                ("A", ("create", "r2", fields(y=100, c="pink!"))),
                ("A", ("delete", "r2")),
                "undo",
                ("B", ("delete", "r2")),
                "undo",
            ],
        ),
    ]


def golden_sequences(model):
    goldens = record_goldens() if model == "records" else text_goldens(model)
    return [
        {"id": f"golden.{name}", "title": title, "events": [golden_event(model, e) for e in events]}
        for name, title, events in goldens
    ]


# --------------------------------------------------------------------------------------------
# Random sequences. A generator draws from its seeded random source and looks only at the
# visible document and the events so far (never at the engine's stacks), so that two engines
# with equal documents receive equal events.

A_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
B_LETTERS = "abcdefghijklmnopqrstuvwxyz"
RECORD_IDS = ("r1", "r2", "r3", "r4", "r5")
FIELDS = ("x", "y", "c")
COLORS = ("red", "blue", "green", "teal", "pink")


def changed_region(before, after):
    """(start, removed, inserted) of the smallest change from `before` to `after` (sequences)."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end_b, end_a = len(before), len(after)
    while end_b > start and end_a > start and before[end_b - 1] == after[end_a - 1]:
        end_b -= 1
        end_a -= 1
    return start, end_b - start, end_a - start


class SequenceGenerator:
    """Produces the events of one random sequence, one at a time, from the visible document."""

    def __init__(self, model, seed):
        self.model = model
        self.rng = random.Random(f"{model}:{seed}")
        self.length = self.rng.randint(10, 40)
        self.count = 0
        self.plan = []  # Events planned ahead (a burst of undos, peer edits and redos).
        self.hot = []  # Recent changed regions (start, end) or (record id, field), newest first.
        self.a_counter = 0
        self.b_counter = 0

    def done(self):
        return self.count >= self.length

    def observe(self, before, after):
        """Notes where the last event changed the document, to aim later edits there."""
        if self.model == "records":
            keys = []
            for rid in sorted(set(before) | set(after)):
                old, new = before.get(rid), after.get(rid)
                if old == new:
                    continue
                if old is None or new is None:
                    keys.append((rid, None))
                else:
                    keys.extend(
                        (rid, f) for f in sorted(set(old) | set(new)) if old.get(f) != new.get(f)
                    )
            if keys:
                self.hot = (keys + self.hot)[:6]
            return
        start, removed, inserted = changed_region(before, after)
        if removed == 0 and inserted == 0:
            return
        delta = inserted - removed
        moved = []
        for s, e in self.hot:
            if s >= start + removed:
                s += delta
            elif s > start:
                s = start
            if e >= start + removed:
                e += delta
            elif e > start:
                e = start + inserted
            moved.append((min(s, len(after)), min(max(s, e), len(after))))
        self.hot = ([(start, start + inserted)] + moved)[:4]

    def next_event(self, document):
        self.count += 1
        if self.count == 1:
            return self.seed_event()
        if not self.plan and self.rng.random() < 0.1:
            depth = self.rng.randint(2, 4)
            plan = []
            for kind in ("undo", "redo"):
                for _ in range(depth):
                    plan.append(kind)
                    if self.rng.random() < 0.45:
                        plan.append("remote")
            self.plan = plan
        if self.plan:
            kind = self.plan.pop(0)
        else:
            roll = self.rng.random()
            kind = (
                "local"
                if roll < 0.32
                else "remote" if roll < 0.64 else "undo" if roll < 0.84 else "redo"
            )
        if kind in ("undo", "redo"):
            return {"type": kind}
        ops = self.edit(document, kind == "local")
        return {"type": kind, "ops": ops}

    def seed_event(self):
        """B writes the initial document."""
        if self.model == "records":
            count = self.rng.randint(2, 3)
            ops = [
                {"op": "create", "id": RECORD_IDS[i], "fields": self.fields(False)}
                for i in range(count)
            ]
            return {"type": "remote", "ops": ops}
        return {"type": "remote", "ops": [self.insert_op(0, self.rng.randint(5, 10), False)]}

    # Text and lists.

    def content(self, count, local):
        if self.model == "text":
            letters = A_LETTERS if local else B_LETTERS
            out = []
            for _ in range(count):
                counter = self.a_counter if local else self.b_counter
                out.append(letters[counter % 26])
                if local:
                    self.a_counter += 1
                else:
                    self.b_counter += 1
            return "".join(out)
        base = 10 if local else 50
        values = []
        for _ in range(count):
            counter = self.a_counter if local else self.b_counter
            values.append(base + counter % 40)
            if local:
                self.a_counter += 1
            else:
                self.b_counter += 1
        return values

    def insert_op(self, pos, count, local):
        key = "text" if self.model == "text" else "values"
        return {"op": "insert", "pos": pos, key: self.content(count, local)}

    def hot_region(self, length):
        if self.hot and self.rng.random() < 0.75:
            s, e = self.hot[0] if self.rng.random() < 0.7 else self.rng.choice(self.hot)
            return min(s, length), min(e, length)
        p = self.rng.randint(0, length)
        return p, p

    def insert_position(self, length):
        s, e = self.hot_region(length)
        roll = self.rng.random()
        if roll < 0.3 or length == 0:
            return s
        if roll < 0.55:
            return e
        if roll < 0.8 and e - s >= 2:
            return self.rng.randint(s + 1, e - 1)
        return self.rng.randint(max(0, s - 1), min(length, e + 1))

    def delete_range(self, length):
        s, e = self.hot_region(length)
        roll = self.rng.random()
        if e > s and roll < 0.25:
            pos, end = s, e  # Exactly the region.
        elif e - s >= 2 and roll < 0.45:
            pos = self.rng.randint(s, e - 1)  # Inside it.
            end = self.rng.randint(pos + 1, e)
        elif roll < 0.7:
            pos = self.rng.randint(max(0, s - 2), s)  # Across its start.
            end = self.rng.randint(min(length, max(pos + 1, s + 1)), min(length, e + 2))
        elif roll < 0.85:
            pos = self.rng.randint(max(s, e - 1), min(length, e))  # Across its end.
            end = self.rng.randint(min(length, pos + 1), min(length, e + 3))
        else:
            pos = self.rng.randint(0, length)
            end = self.rng.randint(pos, min(length, pos + 4))
        pos = max(0, min(pos, length))
        end = max(pos, min(end, length))
        if end == pos:
            if pos < length:
                end = pos + 1
            elif pos > 0:
                pos -= 1
            else:
                return None
        return {"op": "delete", "pos": pos, "len": end - pos}

    def edit(self, document, local):
        if self.model == "records":
            return self.record_edit(document, local)
        length = len(document)
        roll = self.rng.random()
        if roll < 0.22 and length > 0:
            delete = self.delete_range(length)
            if delete is not None:
                # A replacement: delete and insert at the same place, one step.
                return [delete, self.insert_op(delete["pos"], self.rng.randint(1, 3), local)]
        if roll < 0.55 and length > 0:
            delete = self.delete_range(length)
            if delete is not None:
                return [delete]
        return [self.insert_op(self.insert_position(length), self.rng.randint(1, 3), local)]

    # Records.

    def fields(self, local):
        chosen = [f for f in FIELDS if self.rng.random() < 0.6] or ["x"]
        return {f: self.value(f, local) for f in chosen}

    def value(self, field, local):
        if field == "c":
            return self.rng.choice(COLORS) + ("" if not local else "!")
        return self.rng.randint(0, 9) + (100 if local else 0)

    def record_edit(self, document, local):
        existing = sorted(document)
        hot_ids = [rid for rid, _ in self.hot if rid in document]
        hot_fields = [(rid, f) for rid, f in self.hot if f is not None and rid in document]
        gone = [rid for rid, _ in self.hot if rid not in document]
        roll = self.rng.random()
        if not local and hot_fields and roll < 0.3:
            rid, field = hot_fields[0] if self.rng.random() < 0.7 else self.rng.choice(hot_fields)
            return [{"op": "set", "id": rid, "field": field, "value": self.value(field, local)}]
        if hot_ids and roll < 0.45:
            rid = hot_ids[0]
            if self.rng.random() < 0.35:
                return [{"op": "delete", "id": rid}]
            field = self.rng.choice(FIELDS)
            return [{"op": "set", "id": rid, "field": field, "value": self.value(field, local)}]
        if gone and roll < 0.55:
            return [{"op": "create", "id": gone[0], "fields": self.fields(local)}]
        if existing and roll < 0.6 and self.rng.random() < 0.5:
            # Replace an existing record with a new one under the same id.
            rid = self.rng.choice(existing)
            return [{"op": "create", "id": rid, "fields": self.fields(local)}]
        roll = self.rng.random()
        if not existing or roll < 0.2:
            free = [rid for rid in RECORD_IDS if rid not in document]
            rid = self.rng.choice(free or list(RECORD_IDS))
            return [{"op": "create", "id": rid, "fields": self.fields(local)}]
        rid = self.rng.choice(existing)
        if roll < 0.35:
            return [{"op": "delete", "id": rid}]
        if local and roll < 0.55:
            # Several fields in one step (moving a figure).
            chosen = self.rng.sample(FIELDS, 2)
            ops = [
                {"op": "set", "id": rid, "field": f, "value": self.value(f, local)} for f in chosen
            ]
            if self.rng.random() < 0.3 and len(existing) > 1:
                other = self.rng.choice([r for r in existing if r != rid])
                ops.append(
                    {"op": "set", "id": other, "field": "x", "value": self.value("x", local)}
                )
            return ops
        field = self.rng.choice(FIELDS)
        return [{"op": "set", "id": rid, "field": field, "value": self.value(field, local)}]


# --------------------------------------------------------------------------------------------
# Running and writing.


def empty_document(model):
    return {"text": "", "list": [], "records": {}}[model]


def record_golden(engine_name, model, golden):
    engine = ENGINE_TYPES[engine_name](model)
    document = empty_document(model)
    steps = []
    for event in golden["events"]:
        step = run_event(engine, event, document)
        document = step["a"]
        steps.append(step)
    return {"id": golden["id"], "kind": "golden", "title": golden["title"], "steps": steps}


def record_random(engine_name, model, seed):
    engine = ENGINE_TYPES[engine_name](model)
    generator = SequenceGenerator(model, seed)
    document = empty_document(model)
    steps = []
    while not generator.done():
        event = generator.next_event(document)
        step = run_event(engine, event, document)
        generator.observe(document, step["a"])
        document = step["a"]
        steps.append(step)
    return {"id": f"random.{seed}", "kind": "random", "seed": seed, "steps": steps}


def mark_divergence(sequences):
    """Sets `diverged_at` on each engine's copy of one sequence: the first event after which
    the engines' visible documents differ (null if they never do)."""
    first = None
    runs = [sequences[name]["steps"] for name in ENGINES]
    for index in range(min(len(r) for r in runs)):
        if any(
            r[index]["a"] != runs[0][index]["a"] or r[index]["event"] != runs[0][index]["event"]
            for r in runs
        ):
            first = index
            break
    if first is None and len({len(r) for r in runs}) > 1:
        first = min(len(r) for r in runs)
    for name in ENGINES:
        sequences[name]["diverged_at"] = first


def versions():
    found = {name: metadata.version(name) for name in EXPECTED_VERSIONS}
    for name, expected in EXPECTED_VERSIONS.items():
        if found[name] != expected:
            sys.exit(
                f"error: {name} {found[name]} is installed; the fixtures are recorded with "
                f"{expected} (pip install -r Scripts/requirements-oracle.txt)"
            )
    return found


def header(engine_name, model, found, count):
    engine = (
        f"Yjs: pycrdt {found['pycrdt']} (Yrs)"
        if engine_name == "yjs"
        else f"Loro: loro {found['loro']} (Python)"
    )
    return {
        "format": FORMAT_VERSION,
        "engine": engine_name,
        "engine_version": engine,
        "model": model,
        "peers": {"A": PEER_A, "B": PEER_B},
        "random_sequences": count,
        "generator": "Scripts/record-collaborative-oracle.py",
    }


def write_fixture(path, head, sequences):
    """One JSON object; each sequence on its own line, so that a change reads well in a diff."""
    compact = {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": False}
    with open(path, "w", encoding="utf-8") as out:
        out.write("{\n")
        for key, value in head.items():
            out.write(f"{json.dumps(key)}:{json.dumps(value, **compact)},\n")
        out.write('"sequences":[\n')
        for index, sequence in enumerate(sequences):
            out.write(json.dumps(sequence, **compact))
            out.write(",\n" if index + 1 < len(sequences) else "\n")
        out.write("]\n}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sequences",
        type=int,
        default=None,
        help="random sequences per model (default: %s)" % DEFAULT_SEQUENCES,
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="the first random seed (default 0, as the fixture; a later one explores beyond it)",
    )
    parser.add_argument("--out", default=DEFAULT_OUT, help="the fixture folder")
    args = parser.parse_args()
    found = versions()
    os.makedirs(args.out, exist_ok=True)
    for model in MODELS:
        recorded = {name: [] for name in ENGINES}
        for golden in golden_sequences(model):
            per_engine = {name: record_golden(name, model, golden) for name in ENGINES}
            mark_divergence(per_engine)
            for name in ENGINES:
                recorded[name].append(per_engine[name])
        count = args.sequences if args.sequences is not None else DEFAULT_SEQUENCES[model]
        for seed in range(args.first_seed, args.first_seed + count):
            per_engine = {name: record_random(name, model, seed) for name in ENGINES}
            mark_divergence(per_engine)
            for name in ENGINES:
                recorded[name].append(per_engine[name])
        for name in ENGINES:
            path = os.path.join(args.out, f"{name}-{model}.json")
            write_fixture(path, header(name, model, found, count), recorded[name])
            size = os.path.getsize(path)
            print(f"{os.path.relpath(path)}: {len(recorded[name])} sequences, {size} bytes")


if __name__ == "__main__":
    main()
