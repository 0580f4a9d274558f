#!/usr/bin/env python3
"""Independent check of the known answers in docs/streams.md ("Known
answers"), with Python's standard library only (hashlib.sha3_256).

Computes every value from the example's inputs by the definitions of
docs/streams.md ("The chain", "Objects", "Kinds", "SettleStream",
"CloseStream", "Fees", "Paying"), docs/commit-log.md (the RFC 6962 tree
shape and its inclusion paths), docs/codec.md (the encoding) and
docs/ledger.md (coins and their ids), prints each as `label: hex` (work
units in decimal), then compares it with the value the page documents
under the same label, the way the C++ tests read them (inside fenced
blocks, `label: hex` starts a value, indented hex lines continue it, `//`
starts a comment). Prints one line per failed check and the count; exits 1
if any check failed or the page has a value this script does not compute.
Usage: known_answers_reference.py [SOURCE_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "base", "testing"))
from known_answers import H, check, doc_values, report, source_dir  # noqa: E402

documented = doc_values(source_dir(__file__), "streams.md")
computed = {}  # label -> bytes, or int for "... units"


def value(label, got):
    """Prints a computed value and checks it against the page's."""
    computed[label] = got
    if isinstance(got, int):
        print(f"{label}: {got}")
        want = documented.get(label)
        check(label, got, int(want, 10) if want is not None else None)
    else:
        print(f"{label}: {got.hex()}")
        want = documented.get(label)
        check(label, got, bytes.fromhex(want) if want is not None else None)


u32 = lambda n: n.to_bytes(4, "little")
u64 = lambda n: n.to_bytes(8, "little")
fill = lambda b: bytes([b]) * 32


def leb128(n):
    """Lengths and counts: unsigned LEB128, minimal (docs/codec.md)."""
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def hashes(items):
    """list<bytes[32], M>: the count, then the hashes."""
    return leb128(len(items)) + b"".join(items)


# ---- The chain: x[n] = seed, x[i-1] = H(4b || x[i]) -------------------------

def step(element):
    return H(b"\x4b" + element)


def walk(element, steps):
    for _ in range(steps):
        element = step(element)
    return element


def spacing(n):
    """The least power of two whose square is at least n."""
    c = 1
    while c * c < n:
        c *= 2
    return c


# The spacings and counts the page states ("The chain").
for n_, c_, m_ in ((1, 1, 1), (20, 8, 2), (50, 8, 6), (1 << 20, 1024, 1024), ((1 << 20) - 512, 1024, 1023),
                   ((1 << 32) - 1, 65536, 65535)):
    check(f"spacing and count of {n_}", (spacing(n_), n_ // spacing(n_)), (c_, m_))

seed, n = fill(0x5E), 50
x = {n: seed}
for i in range(n, 0, -1):
    x[i - 1] = step(x[i])
c, m = spacing(n), n // spacing(n)
value("seed", seed)
for i in (49, 45, 31, 27, 5, 1):
    value(f"x[{i}]", x[i])
value("anchor", x[0])
check("walk(seed, 50) is the anchor", walk(seed, n), x[0])
checkpoints = [x[j * c] for j in range(1, m + 1)]
for j, element in enumerate(checkpoints, 1):
    value(f"checkpoint {j}", element)


# ---- The checkpoint tree: RFC 6962 shape, leaf H(4c || e), node H(4d || l || r)

def node(left, right):
    return H(b"\x4d" + left + right)


def split(size):
    """RFC 6962's k: the largest power of two smaller than size."""
    k = 1
    while k * 2 < size:
        k *= 2
    return k


def mth(leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(mth(leaves[:k]), mth(leaves[k:]))


def path(index, leaves):
    """PATH(index, leaves), leaf side first (RFC 9162, Sec. 2.1.3.1)."""
    if len(leaves) == 1:
        return []
    k = split(len(leaves))
    if index < k:
        return path(index, leaves[:k]) + [mth(leaves[k:])]
    return path(index - k, leaves[k:]) + [mth(leaves[:k])]


def verify(index, size, leaf, proof, root):
    """RFC 9162, Sec. 2.1.3.2, as docs/commit-log.md writes it."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root


def proves_checkpoint(element, j, count, proof, root):
    """Whether `proof` proves `element` as checkpoint j (1-based) of `count`."""
    return 1 <= j <= count and verify(j - 1, count, H(b"\x4c" + element), proof, root)


leaves = [H(b"\x4c" + element) for element in checkpoints]
for j, leaf in enumerate(leaves, 1):
    value(f"leaf {j}", leaf)
value("node 1-2", node(leaves[0], leaves[1]))
value("node 3-4", node(leaves[2], leaves[3]))
value("node 5-6", node(leaves[4], leaves[5]))
value("node 1-4", node(node(leaves[0], leaves[1]), node(leaves[2], leaves[3])))
root = mth(leaves)
value("checkpoint root", root)
check("the root is node(node 1-4, node 5-6)", node(computed["node 1-4"], computed["node 5-6"]), root)
value("path 3", b"".join(path(2, leaves)))
value("path 5", b"".join(path(4, leaves)))
for j in range(1, m + 1):
    check(f"path {j} proves checkpoint {j}", proves_checkpoint(checkpoints[j - 1], j, m, path(j - 1, leaves), root),
          True)
check("path 3 does not prove checkpoint 4", proves_checkpoint(checkpoints[3], 4, m, path(2, leaves), root), False)
check("path 3 does not prove checkpoint 3 of 4", proves_checkpoint(checkpoints[2], 3, 4, path(2, leaves), root), False)

# ---- Opening: OpenStream, the stream id, the Stream and its Object ----------

payer, payee, price, deposit, expiry = fill(0xA1), fill(0xB2), 1000, 45500, 5000
check("OpenStream well formed", price > 0 and n > 0 and price <= deposit <= price * n and expiry > 1, True)
value("open", payee + u64(price) + u32(n) + x[0] + root + u64(deposit) + u64(expiry) + hashes([fill(0xC1)]))
stream_id = H(b"\x4e" + fill(0x6F))
value("stream id", stream_id)


def stream(left, settled):
    """Stream's fields in order: payer, payee, price, length, anchor,
    checkpoints, deposit, expiry_height, settled, settled_element."""
    return (payer + payee + u64(price) + u32(n) + x[0] + root + u64(left) + u64(expiry) + u32(settled) +
            x[settled])


def stored(kind, version, data):
    """Object = struct { type: u32; version: u64; data: bytes<=1048576 }."""
    return u32(kind) + u64(version) + leb128(len(data)) + data


def coin_id(tx, i):
    return H(b"\x43" + tx + u32(i))


def coin(owner, amount):
    return stored(2, 1, owner + u64(amount))


value("stream", stream(deposit, 0))
check("a stream is 192 bytes", len(stream(deposit, 0)), 192)
value("stream object", stored(7, 1, stream(deposit, 0)))


# ---- Settlements: bodies, work units and their application ------------------

def settle_body(start, index, by_checkpoint):
    """SettleStream: stream, from, index, element, path (option<list>)."""
    if not by_checkpoint:
        return stream_id + u32(start) + u32(index) + x[index] + b"\x00"
    proof = path(start // c - 1, leaves) if start > 0 else []
    return stream_id + u32(start) + u32(index) + x[index] + b"\x01" + hashes(proof)


def work_units(start, index, by_checkpoint):
    proof = path(start // c - 1, leaves) if by_checkpoint and start > 0 else []
    return max(index - start, 0) + (1 + len(proof) if by_checkpoint else 0)


class Ledger:
    """The stream as the ledger holds it, and SettleStream's and
    CloseStream's rules in their order (docs/streams.md)."""

    def __init__(self):
        self.deposit, self.settled, self.version, self.open = deposit, 0, 1, True

    def settle(self, sender, height, fee, start, index, by_checkpoint):
        if not self.open:
            return "unknown_stream"
        if sender != payee:
            return "not_stream_payee"
        if height > expiry:
            return "stream_expired"
        if index <= self.settled:
            return "index_not_above_settled"
        if index > n:
            return "index_past_end"
        owed = (index - self.settled) * price
        if owed > self.deposit:
            return "beyond_deposit"
        expected = index // c * c if by_checkpoint else self.settled
        if start != expected:
            return "wrong_walk_start"
        reached = walk(x[index], index - start)
        if not by_checkpoint and reached != x[self.settled]:
            return "bad_stream_element"
        if by_checkpoint and start == 0 and reached != x[0]:
            return "bad_checkpoint_path"
        if by_checkpoint and start > 0 and not proves_checkpoint(reached, start // c, m, path(start // c - 1, leaves),
                                                                 root):
            return "bad_checkpoint_path"
        if owed <= fee:
            return "fee_unpayable"
        self.deposit -= owed
        self.settled = index
        self.payee_coin = owed - fee
        self.used_up = self.settled == n or self.deposit < price
        if self.used_up:
            self.open = False
        else:
            self.version += 1
        return "success"

    def close(self, sender, height, fee):
        if not self.open:
            return "unknown_stream"
        if sender != payer:
            return "not_stream_payer"
        if height <= expiry:
            return "stream_not_expired"
        if self.deposit <= fee:
            return "fee_unpayable"
        self.open = False
        self.refund = self.deposit - fee
        return "success"


# A first settlement after 5 payments would start at the anchor: from 0,
# an empty path.
value("settle 5", settle_body(0, 5, True))
value("settle 5 units", work_units(0, 5, True))
check("settle to 5 holds", Ledger().settle(payee, 4000, 2000, 0, 5, True), "success")

ledger = Ledger()
# By checkpoint to 27 (transaction 71 x 32, height 4000, fee 2000).
value("settle 27", settle_body(24, 27, True))
value("settle 27 units", work_units(24, 27, True))
check("settle to 27 from the payer", Ledger().settle(payer, 4000, 2000, 24, 27, True), "not_stream_payee")
check("settle to 27 after the expiry", Ledger().settle(payee, 5001, 2000, 24, 27, True), "stream_expired")
check("settle to 27", ledger.settle(payee, 4000, 2000, 24, 27, True), "success")
value("payee coin 1 id", coin_id(fill(0x71), 0))
value("payee coin 1", coin(payee, ledger.payee_coin))
value("stream v2", stored(7, ledger.version, stream(ledger.deposit, ledger.settled)))

# Walked from 27 to 31 (transaction 72 x 32, height 4500, fee 1000).
value("walk 31", settle_body(27, 31, False))
value("walk 31 units", work_units(27, 31, False))
check("walk to 31", ledger.settle(payee, 4500, 1000, 27, 31, False), "success")
value("payee coin 2 id", coin_id(fill(0x72), 0))
value("payee coin 2", coin(payee, ledger.payee_coin))
value("stream v3", stored(7, ledger.version, stream(ledger.deposit, ledger.settled)))
after_walk = (ledger.deposit, ledger.settled, ledger.version)

# By checkpoint to 45, which uses the stream up (transaction 73 x 32,
# height 4800, fee 1000).
value("settle 45", settle_body(40, 45, True))
value("settle 45 units", work_units(40, 45, True))
check("settle to 45 from 31", ledger.settle(payee, 4800, 1000, 40, 45, True), "success")
check("the stream is used up", (ledger.used_up, ledger.open), (True, False))
value("payee coin 3 id", coin_id(fill(0x73), 0))
value("payee coin 3", coin(payee, ledger.payee_coin))
value("refund id", coin_id(fill(0x73), 1))
value("refund", coin(payer, ledger.deposit))
check("a used-up stream cannot be closed", ledger.close(payer, 5001, 1500), "unknown_stream")

# Instead, after the walked settlement, the payer closes (transaction
# 74 x 32, height 5001, fee 1500).
closing = Ledger()
closing.deposit, closing.settled, closing.version = after_walk
value("close", stream_id)
check("close at the expiry", closing.close(payer, 5000, 1500), "stream_not_expired")
check("close by the payee", closing.close(payee, 5001, 1500), "not_stream_payer")
check("close", closing.close(payer, 5001, 1500), "success")
value("close refund id", coin_id(fill(0x74), 0))
value("close refund", coin(payer, closing.refund))

# ---- The payer's record after 31 payments ------------------------------------

value("payer record", seed + u32(n) + u32(31) + hashes(checkpoints))
check("the record's anchor: walk(checkpoint 1, c)", walk(checkpoints[0], c), x[0])

for label in sorted(set(documented) - set(computed)):
    check(f"the page's value {label}", "documented", "computed here")
report()
