"""What the known-answer scripts share (the Python twin of
sion/base/testing/doc_values.hpp): reading a docs/ page's values, SHA3-256,
and counting checks.

A value lives in a fenced block: `label: hex` starts it, indented hex lines
continue it, `//` starts a comment, spaces are for reading only.
"""
import hashlib
import os
import re
import sys

LABEL = re.compile(r"^([a-z][^:]*): ([0-9a-f ]*[0-9a-f][0-9a-f ]*)$")
CONTINUATION = re.compile(r"^ [0-9a-f ]*[0-9a-f][0-9a-f ]*$")
failures = []
checked = 0


def source_dir(script):
    """The source tree: the first argument, or three folders above `script`."""
    return sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(script), "..", "..", "..")


def H(data):
    return hashlib.sha3_256(data).digest()


def check(what, got, want):
    global checked
    checked += 1
    if got != want:
        failures.append(f"{what}: computed {got.hex() if isinstance(got, bytes) else got}, "
                        f"documented {want.hex() if isinstance(want, bytes) else want}")


def doc_values(source, name):
    """Every value of docs/<name>, as hex text."""
    values, current, fenced = {}, None, False
    for line in open(os.path.join(source, "docs", name), encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("```"):
            fenced, current = not fenced, None
            continue
        if not fenced:
            continue
        text = line.split("//")[0].rstrip()
        m = LABEL.match(text)
        if m:
            assert m.group(1) not in values, f"{name}: {m.group(1)} twice"
            current = m.group(1)
            values[current] = m.group(2).replace(" ", "")
        elif current and CONTINUATION.match(text):
            values[current] += text.replace(" ", "")
        else:
            current = None
    return values


def report():
    """Prints the failures and the count; exits 1 if any check failed."""
    for failure in failures:
        print("FAIL", failure)
    print(f"{checked - len(failures)} of {checked} checks passed")
    sys.exit(1 if failures else 0)
