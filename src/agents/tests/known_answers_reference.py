#!/usr/bin/env python3
"""Independent check of the known answers in docs/agents.md ("Known
answers"), with hashlib only.

Reads the values the way the C++ tests do (inside fenced blocks, `label: hex`
starts a value, indented hex lines continue it, `//` starts a comment),
recomputes every hash from the documented bytes and the definitions of
docs/agents.md and docs/commit-log.md, and checks the structure of the
documented encodings by the codec of docs/codec.md. Prints one line per
failed check; exits 1 if any failed.
Usage: known_answers_reference.py [SOURCE_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "base", "testing"))
from known_answers import H, check, doc_values, report, source_dir  # noqa: E402

v = {k: bytes.fromhex(x) for k, x in doc_values(source_dir(__file__), "agents.md").items()}
u32 = lambda n: n.to_bytes(4, "little")
u64 = lambda n: n.to_bytes(8, "little")
fill = lambda b: bytes([b]) * 32

# The lineage {42 x 32, [0, 7]}: root, ULEB count, u32 indices.
root = fill(0x42)
check("lineage", v["lineage"], root + b"\x02" + u32(0) + u32(7))
lineage_id = H(b"\x46" + v["lineage"])
check("lineage id", lineage_id, v["lineage id"])
check("parent id", H(b"\x46" + root + b"\x01" + u32(0)), v["parent id"])
check("allotment id", H(b"\x47" + lineage_id), v["allotment id"])
check("overlay id", H(b"\x48" + root)[:8] + H(b"\x48" + lineage_id)[8:], v["overlay id"])

# Caveats, as the page's text describes them.
caveats = (u64(100000) + u64(5000) + u64(50000) + u64(600) + b"\x03" + b"\x02" + b"\x02" + fill(0x50) +
           fill(0x51))
check("caveats", v["caveats"], caveats)
charter = v["lineage"] + b"\x01" + fill(0x43) + caveats + b"\x00"
check("charter", v["charter"], charter)
assert len(charter) < 0x4000
check("charter object", v["charter object"],
      u32(3) + u64(1) + bytes([0x80 | (len(charter) & 0x7f), len(charter) >> 7]) + charter)
check("allotment", v["allotment"], u64(1000000) + u64(3) + u64(12) + u64(4500))
narrow_50 = u64(90000) + u64(1000) + u64(40000) + b"\x3f" + b"\x00" + b"\x01" + fill(0x50)
check("restriction", v["restriction"], b"\x00" + u64(250) + b"\x01" + narrow_50)

# The meet: the root allowed by both, and of the other payees only 51 x 32.
common = u64(40000) + b"\x3f"
check("narrowing a", v["narrowing a"], u64(90000) + u64(1000) + common + b"\x02\x02" + fill(0x50) + fill(0x51))
check("narrowing b", v["narrowing b"],
      u64(80000) + u64(2000) + common + b"\x00\x03" + fill(0x42) + fill(0x51) + fill(0x52))
check("meet", v["meet"], u64(80000) + u64(1000) + common + b"\x02\x01" + fill(0x51))

# A cohort member: its terms' hash, then the sum-tree leaf (commit-log.md).
check("member terms", v["member terms"], u32(5) + caveats)
member_hash = H(b"\x49" + v["member terms"])
check("member hash", member_hash, v["member hash"])
check("member leaf", H(b"\x20" + member_hash + u64(7000)), v["member leaf"])

# A batch of the items 00, 01, 02 (RFC 6962 shape, tags 30 / 31).
leaves = [H(b"\x30" + bytes([i])) for i in range(3)]
left = H(b"\x31" + leaves[0] + leaves[1])
check("batch root", H(b"\x31" + left + leaves[2]), v["batch root"])
batch_id = H(b"\x4a" + fill(0x44))
check("batch id", batch_id, v["batch id"])
place = batch_id + u32(2) + b"\x01" + left
check("place", v["place"], place)
check("member auth", v["member auth"], b"\x01" + bytes([len(place)]) + place)
check("agent pay", v["agent pay"], fill(0x50) + u64(2500))

report()
