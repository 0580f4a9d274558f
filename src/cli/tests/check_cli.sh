#!/usr/bin/env bash
# One end-to-end check of the `sion` executable: exit codes, messages and the
# bench JSON file. Usage: check_cli.sh CASE SION WORKDIR
set -euo pipefail
case_name="$1"
sion="$2"
work="$3"
python="${PYTHON3:-python3}"
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }

# Runs sion with the given arguments; sets status, out and err.
run() {
  status=0
  "$sion" "$@" >"$work/out" 2>"$work/err" || status=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
}

expect_status() {
  [[ "$status" == "$1" ]] || fail "exit code $status, expected $1; stdout: $out; stderr: $err"
}

expect_line() {  # expect_line TEXT REGEX
  grep -Eq -- "$2" <<<"$1" || fail "no line matching '$2' in: $1"
}

case "$case_name" in
  version)
    run version
    expect_status 0
    expect_line "$out" '^sion [0-9]+\.[0-9]+\.[0-9]+$'
    expect_line "$out" '^commit: .+'
    expect_line "$out" '^build: .+ \(.+\)$'
    expect_line "$out" '^cpu: .+'
    expect_line "$out" '^features: .+'
    ;;
  help)
    run bench --help
    expect_status 0
    for option in '--node <NODE>' '--quick' '--no-devnet' '--only <ONLY>' '--json <JSON>' '-h,--help'; do
      grep -qF -- "$option" <<<"$out" || fail "bench --help lacks $option: $out"
    done
    expect_line "$out" 'Run only these groups: signatures, state.* \(comma-separated\)'
    run --no-such-option
    expect_status 2
    expect_line "$err" '^sion: error: '
    ;;
  bench_unknown_group)
    run bench --only nosuch
    expect_status 2
    expect_line "$err" "^sion: error: unknown group 'nosuch' in --only; valid groups: signatures, state"
    [[ -z "$out" ]] || fail "measured despite the bad --only: $out"
    ;;
  bench_json)
    run bench --quick --only state --json "$work/bench.json"
    expect_status 0
    expect_line "$out" '^group +measurement +value unit +note$'
    expect_line "$out" '^state +SHA3-256, 32-byte input +[0-9]+\.[0-9]{2} µs '
    "$python" - "$work/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert set(d) == {"machine", "version", "measurements"}, d.keys()
m = d["machine"]
for key in ("cpu", "compiler", "build_type", "commit", "date"):
    assert isinstance(m[key], str) and m[key], key
assert isinstance(m["cores"], int) and m["cores"] > 0, m["cores"]
assert isinstance(m["flags"], list) and all(isinstance(f, str) for f in m["flags"])
assert isinstance(d["version"], str) and d["version"]
rows = d["measurements"]
assert rows, "no measurements"
for r in rows:
    assert set(r) == {"group", "name", "value", "unit", "note"}, r
    assert isinstance(r["value"], (int, float)), r
    assert all(isinstance(r[k], str) for k in ("group", "name", "unit", "note")), r
sha3 = [r for r in rows if r["group"] == "state" and r["name"] == "SHA3-256, 32-byte input"]
assert len(sha3) == 1, rows
assert sha3[0]["unit"] == "µs" and sha3[0]["value"] > 0, sha3
PY
    leftovers=$(find "$work" -name '*.tmp.*')
    [[ -z "$leftovers" ]] || fail "temporary files left: $leftovers"
    ;;
  bench_json_unwritable)
    run bench --quick --only state --json "$work/no/such/dir/bench.json"
    expect_status 1
    expect_line "$err" "^sion: error: cannot write '.*/no/such/dir/bench.json': "
    [[ -z "$out" ]] || fail "measured although --json cannot be written: $out"
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "ok ($case_name)"
