#!/usr/bin/env python3
"""Independent check of the known answers in docs/state-tree.md and
docs/ledger.md ("Known answers" in each), with hashlib only.

Reads the values the way the C++ tests do (inside fenced blocks, `label: hex`
starts a value, indented hex lines continue it, `//` starts a comment),
recomputes every hash from the documented bytes and the definitions of the
two pages, and decodes docs/known-transaction.hex by the codec of
docs/codec.md. Prints one line per failed check; exits 1 if any failed.
Usage: known_answers_reference.py [SOURCE_DIR]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "base", "testing"))
from known_answers import H, check, report, source_dir  # noqa: E402
import known_answers  # noqa: E402

SOURCE = source_dir(__file__)


def doc_values(name):
    return known_answers.doc_values(SOURCE, name)


class Reader:
    """The codec of docs/codec.md, as much as these types need."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        assert self.at + n <= len(self.data), "truncated"
        out = self.data[self.at:self.at + n]
        self.at += n
        return out

    def uint(self, n):
        return int.from_bytes(self.take(n), "little")

    def length(self):
        value, shift = 0, 0
        while True:
            byte = self.uint(1)
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                assert shift == 7 or byte != 0, "non-minimal length"
                return value

    def var_bytes(self, maximum):
        n = self.length()
        assert n <= maximum
        return self.take(n)


# ---- docs/state-tree.md --------------------------------------------------------

def bit(key, i):
    return (key[i // 8] >> (7 - i % 8)) & 1


def subtree(entries, depth):
    """The hash of a set of (key, value hash) at `depth` (state-tree.md, "Hashes")."""
    if not entries:
        return bytes(32)
    if len(entries) == 1:
        return H(b"\x10" + entries[0][0] + entries[0][1])
    left = [e for e in entries if not bit(e[0], depth)]
    right = [e for e in entries if bit(e[0], depth)]
    return H(b"\x11" + subtree(left, depth + 1) + subtree(right, depth + 1))


def check_state_tree():
    v = doc_values("state-tree.md")
    b = {k: bytes.fromhex(x) for k, x in v.items()}
    entries = []
    for i in range(1, 6):
        obj = b[f"object {i}"]
        r = Reader(obj)
        kind, _version, data = r.uint(4), r.uint(8), r.var_bytes(1048576)
        check(f"object {i} is read whole", r.at, len(obj))
        check(f"object {i} type", kind in (1, 2) and len(data) == 40, True)
        value_hash = H(b"\x40" + obj)
        check(f"value hash {i}", value_hash, b[f"value hash {i}"])
        check(f"leaf {i}", H(b"\x10" + b[f"key {i}"] + value_hash), b[f"leaf {i}"])
        entries.append((b[f"key {i}"], value_hash))
    check("node 1-2", H(b"\x11" + b["leaf 1"] + b["leaf 2"]), b["node 1-2"])
    for n in range(6):
        check(f"root {n}", subtree(entries[:n], 0), b[f"root {n}"])
    # root 2 as the page spells it out: node 1-2, then 255 one-child steps.
    h = b["node 1-2"]
    for d in range(254, -1, -1):
        h = H(b"\x11" + (bytes(32) + h if bit(b["key 1"], d) else h + bytes(32)))
    check("root 2 by its chain", h, b["root 2"])


# ---- docs/ledger.md ----------------------------------------------------------

def receipts_root(leaves):
    """RFC 6962, Sec. 2.1 MTH with the receipt tags; H() for no receipts."""
    if not leaves:
        return H(b"")
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return H(b"\x51" + receipts_root(leaves[:k]) + receipts_root(leaves[k:]))


VERIFY_UNITS = {0: 100, 1: 200, 2: 350, 3: 900, 4: 2900, 5: 4000, 6: 2200, 7: 4740, 8: 750, 9: 710, 10: 380}


def check_ledger():
    v = doc_values("ledger.md")
    b = {k: bytes.fromhex(x) for k, x in v.items() if len(x) % 2 == 0}
    number = lambda label: int(v[label], 10)
    hex_text = open(os.path.join(SOURCE, "docs", "known-transaction.hex"), encoding="ascii").read()
    tx = bytes.fromhex("".join(hex_text.split()))
    check("transaction bytes", len(tx), number("transaction bytes"))
    check("transaction sha3-256", H(tx), b["transaction sha3-256"])

    # Transaction = struct { payload: TxPayload; keys: KeyBundle; auth: SignatureBundle }
    r = Reader(tx)
    chain_id, sender, nonce, fee = r.uint(8), r.take(32), r.uint(8), r.uint(8)
    check("body is a transfer", r.uint(1), 0)
    inputs = [r.take(32) for _ in range(r.length())]
    outputs = [(r.take(32), r.uint(8)) for _ in range(r.length())]
    payload = tx[:r.at]
    check("payload", payload, b["payload"])
    check("payload bytes", len(payload), number("payload bytes"))
    keys_start = r.at
    schemes = []
    for _ in range(r.length()):
        schemes.append(r.uint(1))
        r.var_bytes(2592)
    keys = tx[keys_start:r.at]
    auth_start = r.at
    signatures = [len(r.var_bytes(35664)) for _ in range(r.length())]
    auth = tx[auth_start:r.at]
    check("transaction read whole", r.at, len(tx))
    check("dual keys: ML-DSA-44, SLH-DSA-SHA2-128f", schemes, [0, 4])
    check("signature lengths", signatures, [2420, 17088])
    check("key bundle bytes", len(keys), number("key bundle bytes"))
    check("key bundle sha3-256", H(keys), b["key bundle sha3-256"])
    check("signature bundle bytes", len(auth), number("signature bundle bytes"))
    check("signature bundle sha3-256", H(auth), b["signature bundle sha3-256"])
    bundle_id = H(b"sion/key-bundle/v1" + keys)
    check("key bundle id", bundle_id, b["key bundle id"])
    check("account id", H(b"\x42" + bundle_id), b["account id"])
    check("sender", sender, b["account id"])
    check("chain id", chain_id, 1)
    check("nonce", nonce, 0)
    units = sum(VERIFY_UNITS[s] for s in schemes)
    check("fee: 1 per byte and 1 per verify unit", fee, len(tx) + units)

    tx_id = H(b"\x41" + payload)
    check("tx id", tx_id, b["tx id"])
    for i in range(len(outputs) + 1):
        check(f"coin id {i}", H(b"\x43" + tx_id + i.to_bytes(4, "little")), b[f"coin id {i}"])
    for i, coin in enumerate(inputs):
        check(f"input {i} is coin_id(0^32, {i})", coin, H(b"\x43" + bytes(32) + i.to_bytes(4, "little")))
    spent = sum(number(f"input amount {i}") for i in range(len(inputs)))
    paid = sum(amount for _, amount in outputs)

    # Receipt = struct { tx_id: bytes[32]; status: u8; fee_paid: u64; coins_created: u32 }
    expected = [(tx_id, 0, fee, len(outputs) + (1 if spent > paid + fee else 0)), (tx_id, 5, 0, 0)]
    leaves = []
    for i in range(3):
        receipt = b[f"receipt {i}"]
        check(f"receipt {i} bytes", len(receipt), 45)
        r = Reader(receipt)
        fields = (r.take(32), r.uint(1), r.uint(8), r.uint(4))
        if i < len(expected):
            check(f"receipt {i} fields", fields, expected[i])
        leaf = H(b"\x50" + receipt)
        check(f"receipt leaf {i}", leaf, b[f"receipt leaf {i}"])
        leaves.append(leaf)
    for n in range(4):
        check(f"receipts root {n}", receipts_root(leaves[:n]), b[f"receipts root {n}"])

    # The Pulse's states (ledger.md, "Applying a transaction"): the inputs
    # spent, the account created with nonce 1, a coin per output and the
    # change, all version 1.
    def obj(kind, data):
        return kind.to_bytes(4, "little") + (1).to_bytes(8, "little") + bytes([len(data)]) + data

    def coin(owner, amount):
        return obj(2, owner + amount.to_bytes(8, "little"))

    pre = {coin_id: H(b"\x40" + coin(sender, number(f"input amount {i}"))) for i, coin_id in enumerate(inputs)}
    check("pre-state root", subtree(sorted(pre.items()), 0), b["pre-state root"])
    change = spent - paid - fee
    post = {sender: obj(1, bundle_id + (1).to_bytes(8, "little"))}
    for i, (owner, amount) in enumerate(outputs + [(sender, change)]):
        post[H(b"\x43" + tx_id + i.to_bytes(4, "little"))] = coin(owner, amount)
    writes = sorted([(coin_id, None) for coin_id in inputs] + list(post.items()))
    for i, (key, value) in enumerate(writes):
        check(f"write {i}", key, b[f"write {i}"])
        check(f"write {i} object", value, b.get(f"write {i} object"))
    entries = sorted((key, H(b"\x40" + value)) for key, value in post.items())
    check("post-state root", subtree(entries, 0), b["post-state root"])
    check_pulse_header(v, b, number, tx_id, payload)


def check_pulse_header(v, b, number, tx_id, payload):
    """ledger.md, "Pulses": the header of the Pulse that executes the transaction once."""
    u32 = lambda x: x.to_bytes(4, "little")
    u64 = lambda x: x.to_bytes(8, "little")
    params = u64(1) + u64(1) + u64(1) + u64(4000000) + u64(24 << 20) + u64(32 << 20) + u32(20000)
    check("params", params, b["params"])
    check("params hash", H(b"\x45" + params), b["params hash"])
    zero = bytes(32)
    empty_data = u32(1) + u64(0) + zero
    genesis = u64(0) + zero + u64(0) + zero + H(b"\x45" + params) + zero + zero + b["pre-state root"] + empty_data
    check("genesis header", genesis, b["genesis header"])
    check("genesis hash", H(b"\x44" + genesis), b["genesis hash"])
    tx_root = H(b"\x52" + tx_id)  # one leaf
    check("transactions root", tx_root, b["transactions root"])
    header = b["header"]
    check("header bytes", len(header), number("header bytes"))
    # The data commitment: PulseData is list<TxPayload> (a one-byte count, then
    # the payload); the width and the data root are data-availability.md's.
    data = header[208:]
    check("data bytes", int.from_bytes(data[4:12], "little"), 1 + len(payload))
    fields = (u64(1) + H(b"\x44" + genesis) + u64(number("pulse time")) + b["proposer"] + H(b"\x45" + params) +
              tx_root + b["receipts root 1"] + b["post-state root"] + data)
    check("header", fields, header)
    check("pulse hash", H(b"\x44" + header), b["pulse hash"])


check_state_tree()
check_ledger()
report()
