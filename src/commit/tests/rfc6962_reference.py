#!/usr/bin/env python3
"""Independent reference for the commit layer's trees (docs/commit-log.md).

Follows the recursive definitions of RFC 6962, Sec. 2.1 (MTH, PATH, PROOF,
SUBPROOF) literally, with hashlib only. Reads leaves from the file named on
the command line, one per line: the entry's bytes in hex ('-' for empty) and
an amount (for the sum tree). For every tree size n up to the number of
leaves it prints the root and a digest of all proofs at that size:

  log <sha256|sha3_256> <n> <root> <digest of PATH(i, D[n]) for i < n>
      <digest of PROOF(m, D[n]) for 0 < m <= n>
  batch <n> <root> <digest of PATH(i, D[n]) for i < n>
  sum <n> <root hash> <root sum> <digest of the sum paths for i < n>

A digest is SHA-256 over, for each proof in order, one byte with the number
of path elements, then the elements (a hash, or a hash and its sum as u64 LE).
"""
import hashlib
import sys
from functools import lru_cache


def split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def make_tree(leaves, leaf, node, empty):
    @lru_cache(maxsize=None)
    def mth(lo, hi):
        if hi - lo == 0:
            return empty
        if hi - lo == 1:
            return leaf(leaves[lo])
        k = split(hi - lo)
        return node(mth(lo, lo + k), mth(lo + k, hi))

    def path(m, lo, hi):
        if hi - lo == 1:
            return []
        k = split(hi - lo)
        if m < lo + k:
            return path(m, lo, lo + k) + [mth(lo + k, hi)]
        return path(m, lo + k, hi) + [mth(lo, lo + k)]

    def subproof(m, lo, hi, b):
        n = hi - lo
        if m == n:
            return [] if b else [mth(lo, hi)]
        k = split(n)
        if m <= k:
            return subproof(m, lo, lo + k, b) + [mth(lo + k, hi)]
        return subproof(m - k, lo + k, hi, False) + [mth(lo, lo + k)]

    return mth, path, subproof


def hash_tree(function, leaf_tag, node_tag, leaves):
    def h(data):
        return function(data).digest()
    return make_tree(leaves, lambda d: h(bytes([leaf_tag]) + d),
                     lambda l, r: h(bytes([node_tag]) + l + r), h(b''))


def digest(proofs, element=lambda e: e):
    out = hashlib.sha256()
    for proof in proofs:
        out.update(bytes([len(proof)]))
        for e in proof:
            out.update(element(e))
    return out.hexdigest()


def main():
    entries, amounts = [], []
    with open(sys.argv[1]) as f:
        for line in f:
            data, amount = line.split()
            entries.append(b'' if data == '-' else bytes.fromhex(data))
            amounts.append(int(amount))
    count = len(entries)
    out = []
    for name, function in (('sha256', hashlib.sha256), ('sha3_256', hashlib.sha3_256)):
        mth, path, subproof = hash_tree(function, 0x00, 0x01, entries)
        out.append(f'log {name} 0 {mth(0, 0).hex()} {digest([])} {digest([])}')
        for n in range(1, count + 1):
            inclusion = digest(path(i, 0, n) for i in range(n))
            consistency = digest(subproof(m, 0, n, True) for m in range(1, n + 1))
            out.append(f'log {name} {n} {mth(0, n).hex()} {inclusion} {consistency}')
    mth, path, _ = hash_tree(hashlib.sha3_256, 0x30, 0x31, entries)
    for n in range(1, count + 1):
        out.append(f'batch {n} {mth(0, n).hex()} {digest(path(i, 0, n) for i in range(n))}')

    # Sum tree: leaf (hash, amount) with hash = SHA3-256(entry).
    def sha3(data):
        return hashlib.sha3_256(data).digest()

    def sum_leaf(i):
        return (sha3(b'\x20' + sha3(entries[i]) + amounts[i].to_bytes(8, 'little')), amounts[i])

    def sum_node(l, r):
        total = l[1] + r[1]
        assert total < 2**64
        return (sha3(b'\x21' + l[0] + r[0] + total.to_bytes(8, 'little')), total)

    mth, path, _ = make_tree(list(range(count)), sum_leaf, sum_node, None)
    for n in range(1, count + 1):
        proofs = digest((path(i, 0, n) for i in range(n)), lambda e: e[0] + e[1].to_bytes(8, 'little'))
        root = mth(0, n)
        out.append(f'sum {n} {root[0].hex()} {root[1]} {proofs}')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
