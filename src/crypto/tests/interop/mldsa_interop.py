#!/usr/bin/env python3
"""ML-DSA against another implementation: OpenSSL (4.0 here) through the
`cryptography` package. For ML-DSA-44, -65 and -87 and 100 random messages
and contexts each:
  - OpenSSL derives a key pair from a seed and signs;
  - our tool (mldsa_interop_tool) derives its key from the same seed and
    must produce the same public key, must accept OpenSSL's signature and
    reject it with one bit flipped, and signs the message itself;
  - OpenSSL must accept our signature and reject it with one bit flipped.
Exit status 77 (ctest: skipped) when `cryptography` has no ML-DSA; the
reason is printed, the test never passes silently.

usage: mldsa_interop.py TOOL WORKDIR
"""
import json
import os
import random
import subprocess
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric import mldsa
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"SKIPPED: python3 'cryptography' with ML-DSA is not available ({e})")
    sys.exit(77)

CASES_PER_LEVEL = 100
LEVELS = {
    "44": mldsa.MLDSA44PrivateKey,
    "65": mldsa.MLDSA65PrivateKey,
    "87": mldsa.MLDSA87PrivateKey,
}


def flip(data: bytes, rng: random.Random) -> bytes:
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]


def main() -> int:
    tool, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    rng = random.Random(20261202)
    cases = []
    for level, private_key_class in LEVELS.items():
        for _ in range(CASES_PER_LEVEL):
            seed = rng.randbytes(32)
            message = rng.randbytes(rng.randrange(0, 300))
            context = rng.randbytes(rng.randrange(0, 256))
            key = private_key_class.from_seed_bytes(seed)
            signature = key.sign(message, context)
            cases.append({
                "level": level,
                "seed": seed.hex(),
                "message": message.hex(),
                "context": context.hex(),
                "public_key": key.public_key().public_bytes_raw().hex(),
                "signature": signature.hex(),
                "flipped_signature": flip(signature, rng).hex(),
            })
    cases_path = os.path.join(workdir, "openssl_cases.json")
    ours_path = os.path.join(workdir, "our_signatures.json")
    with open(cases_path, "w") as f:
        json.dump(cases, f)

    run = subprocess.run([tool, cases_path, ours_path], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        print(f"FAILED: our side reported failures (exit {run.returncode})")
        return 1

    with open(ours_path) as f:
        ours = json.load(f)
    if len(ours) != len(cases):
        print(f"FAILED: expected {len(cases)} signatures from our side, got {len(ours)}")
        return 1
    failures = 0
    for case, our in zip(cases, ours):
        public_key = LEVELS[case["level"]].from_seed_bytes(bytes.fromhex(case["seed"])).public_key()
        message = bytes.fromhex(case["message"])
        context = bytes.fromhex(case["context"])
        signature = bytes.fromhex(our["signature"])
        try:
            public_key.verify(signature, message, context)
        except InvalidSignature:
            failures += 1
            print(f"FAILED: OpenSSL rejects our ML-DSA-{case['level']} signature")
        try:
            public_key.verify(flip(signature, rng), message, context)
            failures += 1
            print(f"FAILED: OpenSSL accepts our ML-DSA-{case['level']} signature with a bit flipped")
        except InvalidSignature:
            pass
    print(f"OpenSSL checked {len(ours)} of our signatures: {len(ours) - failures} ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
