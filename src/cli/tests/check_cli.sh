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
# Exit status 77 is ctest's SKIP_RETURN_CODE for these tests.
skip() { echo "SKIP ($case_name): $*"; exit 77; }

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

# start_devnet DIR [ARGS...]: `sion devnet --dir DIR` on an ephemeral port in
# the background; sets node_pid and api once the node printed its address.
start_devnet() {
  local dir="$1"
  shift
  "$sion" devnet --dir "$dir" --api 127.0.0.1:0 --interval-ms 100 "$@" >"$work/devnet.out" 2>"$work/devnet.err" &
  node_pid=$!
  api=""
  for _ in $(seq 200); do
    api=$(grep -Eo 'http://127\.0\.0\.1:[0-9]+' "$work/devnet.out" | head -n 1 || true)
    [[ -n "$api" ]] && break
    kill -0 "$node_pid" 2>/dev/null || break
    sleep 0.05
  done
  [[ -n "$api" ]] || fail "the devnet printed no API address; stderr: $(cat "$work/devnet.err")"
}

# Stops the node of start_devnet with SIGINT: it must exit 0 within 5 s.
stop_devnet() {
  kill -INT "$node_pid"
  for _ in $(seq 100); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$node_pid" 2>/dev/null && fail "the node did not stop on SIGINT"
  local status=0
  wait "$node_pid" || status=$?
  ((status == 0)) || fail "the node exited with $status on SIGINT"
  node_pid=""
}

# free_ports N: the first of N consecutive loopback ports free just now.
free_ports() {
  "$python" - "$1" <<'PY'
import random, socket, sys
count = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 60000)
    sockets = []
    try:
        for port in range(base, base + count):
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        for s in sockets:
            s.close()
    print(base)
    sys.exit(0)
sys.exit(1)
PY
}

# The conformance vectors (shared/vectors/README.md): $SION_VECTORS_DIR, or
# shared/vectors beside the source tree. Skips the case when absent.
vectors_dir() {
  local source="${SION_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"
  vectors="${SION_VECTORS_DIR:-$source/../shared/vectors}"
  [[ -d "$vectors" ]] ||
    skip "no vector directory $vectors (set SION_VECTORS_DIR to the shared/vectors directory)"
}

# check_genesis_files GENESIS KEYDIR ACCOUNTS CHAIN_ID AMOUNT COINS PROFILE:
# the files `sion genesis` wrote hold what docs/genesis.md says.
check_genesis_files() {
  "$python" - "$@" <<'PY' || fail "genesis files: $*"
import json, re, sys
genesis, keys, accounts, chain_id, amount, coins, profile = *sys.argv[1:3], *map(int, sys.argv[3:7]), sys.argv[7]
text = open(genesis, encoding="utf-8").read()
d = json.loads(text, parse_float=lambda s: sys.exit(f"float {s} in genesis"))
assert list(d) == ["chain_id", "fees", "limits", "accounts"], list(d)
assert d["chain_id"] == chain_id, d["chain_id"]
assert list(d["fees"]) == ["per_byte", "per_verify_unit"], d["fees"]
assert list(d["limits"]) == ["max_verify_units", "max_auth_bytes", "max_bytes", "max_transactions"]
assert len(d["accounts"]) == accounts
for a in d["accounts"]:
    assert list(a) == ["keys", "coins"], a.keys()
    assert re.fullmatch("[0-9a-f]+", a["keys"]), a["keys"][:20]
    assert a["coins"] == [amount] * coins, a["coins"]
for i in range(accounts):
    k = json.load(open(f"{keys}/account-{i:04}.json", encoding="utf-8"))
    assert list(k) == ["profile", "seed", "account"], k.keys()
    assert k["profile"] == profile, k["profile"]
    assert re.fullmatch("[0-9a-f]{64}", k["seed"]) and re.fullmatch("[0-9a-f]{64}", k["account"])
PY
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
    for option in '--node <NODE>' '--devnet-dir <DIR>' '--quick' '--no-devnet' '--only <ONLY>' '--json <JSON>' '-h,--help'; do
      grep -qF -- "$option" <<<"$out" || fail "bench --help lacks $option: $out"
    done
    expect_line "$out" 'Run only these groups: signatures, authorization, state.* \(comma-separated\)'
    run --no-such-option
    expect_status 2
    expect_line "$err" '^sion: error: '
    ;;
  bench_unknown_group)
    run bench --only nosuch
    expect_status 2
    expect_line "$err" "^sion: error: unknown group 'nosuch' in --only; valid groups: signatures, authorization, state"
    [[ -z "$out" ]] || fail "measured despite the bad --only: $out"
    ;;
  bench_devnet)
    # Group devnet end to end: its own devnet of four validator processes, every row.
    run bench --quick --only devnet
    expect_status 0
    for row in '128 transfers from 32 accounts: throughput' 'Pulse interval \(4 validators, dual PQ signatures\)' \
      'submit → executed, median' 'submit → executed, 95th percentile' 'time to finality' \
      'saturating load: throughput' 'saturating load: share of the signature ceiling' 'API admission: throughput' \
      'signature ceiling' 'API admission: share of the signature ceiling' \
      'API admission, batches of 64: throughput' 'API admission, batches of 64: share of the signature ceiling'; do
      grep -qE "^devnet +${row} +[0-9]" <<<"$out" || fail "bench --only devnet lacks the row '$row': $out"
    done
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
    assert set(r) - {"p95"} == {"group", "name", "value", "unit", "note"}, r
    assert isinstance(r["value"], (int, float)), r
    assert "p95" not in r or isinstance(r["p95"], (int, float)), r
    assert all(isinstance(r[k], str) for k in ("group", "name", "unit", "note")), r
sha3 = [r for r in rows if r["group"] == "state" and r["name"] == "SHA3-256, 32-byte input"]
assert len(sha3) == 1, rows
assert sha3[0]["unit"] == "µs" and sha3[0]["value"] > 0, sha3
assert sha3[0]["p95"] >= sha3[0]["value"], sha3  # a time: the 95th percentile is no faster than the median
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
  conformance_vectors)
    # Every vector file (the JSON schemas beside them are not vector files).
    vectors_dir
    mapfile -t files < <(find "$vectors" -name '*.json' -not -path '*/schemas/*' | sort)
    ((${#files[@]} > 0)) || fail "no vector files under $vectors"
    run conformance "${files[@]}"
    expect_status 0
    [[ -z "$err" ]] || fail "stderr: $err"
    for file in "${files[@]}"; do
      line=$(grep -F -- "$file: " <<<"$out" | head -n 1)
      [[ "$line" =~ :\ [1-9][0-9]*\ passed,\ 0\ failed$ ]] || fail "$file: '$line' in: $out"
    done
    last=$(tail -n 1 <<<"$out")
    [[ "$last" =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] || fail "last line: $last"
    ((BASH_REMATCH[1] > 0)) || fail "no case passed: $last"
    echo "$last (${#files[@]} files)"
    ;;
  conformance_corrupt)
    # Copies with one expected answer changed each: a flipped signature
    # nibble in a case SLH-DSA must accept, and a valid Ed25519 case marked
    # invalid.
    vectors_dir
    for file in acvp/slh-dsa-sigver.json wycheproof/ed25519_test.json; do
      [[ -f "$vectors/$file" ]] || fail "$vectors/$file is missing"
    done
    "$python" - "$vectors" "$work" <<'PY'
import json, sys
vectors, work = sys.argv[1], sys.argv[2]
doc = json.load(open(f"{vectors}/acvp/slh-dsa-sigver.json", encoding="utf-8"))
test = next(t for g in doc["testGroups"] for t in g["tests"] if t["testPassed"])
sig = test["signature"]
at = len(sig) // 2
test["signature"] = sig[:at] + format(int(sig[at], 16) ^ 1, "X") + sig[at + 1:]
json.dump(doc, open(f"{work}/slh-dsa-sigver.json", "w", encoding="utf-8"))
doc = json.load(open(f"{vectors}/wycheproof/ed25519_test.json", encoding="utf-8"))
test = next(t for g in doc["testGroups"] for t in g["tests"] if t["result"] == "valid")
test["result"] = "invalid"
json.dump(doc, open(f"{work}/ed25519_test.json", "w", encoding="utf-8"))
PY
    run conformance "$work/slh-dsa-sigver.json" "$work/ed25519_test.json"
    expect_status 1
    expect_line "$out" '/slh-dsa-sigver\.json: [0-9]+ passed, 1 failed$'
    expect_line "$out" '^  FAIL tgId [0-9]+ tcId [0-9]+: signature rejected, but testPassed is true'
    expect_line "$out" '/ed25519_test\.json: [0-9]+ passed, 1 failed$'
    expect_line "$out" '^  FAIL group [0-9]+ tcId [0-9]+: invalid signature accepted'
    [[ "$(tail -n 1 <<<"$out")" =~ ^[1-9][0-9]*\ passed,\ 2\ failed$ ]] ||
      fail "last line: $(tail -n 1 <<<"$out")"
    # A file that cannot be run outranks failed cases: exit status 2.
    echo 'not json' >"$work/notes.txt"
    run conformance "$work/ed25519_test.json" "$work/notes.txt"
    expect_status 2
    expect_line "$out" '/ed25519_test\.json: [0-9]+ passed, 1 failed$'
    expect_line "$err" '^sion: error: .*/notes\.txt: not JSON: '
    ;;
  conformance_errors)
    printf 'this is not JSON\n' >"$work/notes.txt"
    run conformance "$work/notes.txt"
    expect_status 2
    expect_line "$err" "^sion: error: $work/notes\.txt: not JSON: parse error at line 1, column [0-9]+"
    expect_line "$out" '^0 passed, 0 failed$'
    echo '{"hello": 1}' >"$work/other.json"
    run conformance "$work/other.json"
    expect_status 2
    expect_line "$err" "^sion: error: $work/other\.json: unknown format"
    echo '{"format": "pqsig-acvp-merged-v1", "algorithm": "ML-DSA", "mode": "keyGen"}' \
      >"$work/fields.json"
    run conformance "$work/fields.json"
    expect_status 2
    expect_line "$err" "^sion: error: $work/fields\.json: missing field 'testGroups'$"
    run conformance "$work/no-such-file.json"
    expect_status 2
    expect_line "$err" "^sion: error: vector file '$work/no-such-file\.json': no such file$"
    run conformance
    expect_status 2
    expect_line "$err" '^sion: error: FILE is required'
    ;;
  genesis)
    run genesis --accounts 3 --out "$work/net/genesis.json"
    expect_status 0
    expect_line "$out" "^genesis: $work/net/genesis\.json$"
    expect_line "$out" '^chain id: 1$'
    expect_line "$out" '^accounts: 3 \(dual keys\)$'
    expect_line "$out" '^coins: 3 of 1000000000, total supply 3000000000$'
    expect_line "$out" '^state root: [0-9a-f]{64}$'
    expect_line "$out" "^key files: $work/net/keys/account-0000\.json \.\. account-0002\.json \(owner only\)$"
    [[ "$(stat -c %a "$work/net/keys")" == 700 ]] || fail "key directory mode $(stat -c %a "$work/net/keys")"
    for i in 0 1 2; do
      key="$work/net/keys/account-000$i.json"
      [[ "$(stat -c %a "$key")" == 600 ]] || fail "$key mode $(stat -c %a "$key")"
    done
    check_genesis_files "$work/net/genesis.json" "$work/net/keys" 3 1 1000000000 1 dual
    run genesis --accounts 2 --out "$work/b/genesis.json" --keys "$work/b-keys" --chain-id 9 \
      --amount 5 --coins-per-account 2 --profile hybrid
    expect_status 0
    expect_line "$out" '^chain id: 9$'
    expect_line "$out" '^accounts: 2 \(hybrid keys\)$'
    expect_line "$out" '^coins: 4 of 5, total supply 20$'
    [[ ! -e "$work/b/keys" ]] || fail "wrote keys beside the genesis file despite --keys"
    check_genesis_files "$work/b/genesis.json" "$work/b-keys" 2 9 5 2 hybrid
    ;;
  genesis_exists)
    run genesis --accounts 2 --out "$work/genesis.json"
    expect_status 0
    cp "$work/genesis.json" "$work/first.json"
    run genesis --accounts 2 --out "$work/genesis.json"
    expect_status 2
    expect_line "$err" "^sion: error: genesis file '$work/genesis\.json' already exists \(--force replaces it\)$"
    [[ -z "$out" ]] || fail "printed a summary: $out"
    cmp -s "$work/genesis.json" "$work/first.json" || fail "the genesis file changed"
    # --force replaces the genesis file, but never a key file.
    run genesis --accounts 2 --out "$work/genesis.json" --force
    expect_status 2
    expect_line "$err" "^sion: error: key file '$work/keys/account-0000\.json' already exists"
    cmp -s "$work/genesis.json" "$work/first.json" || fail "the genesis file changed"
    run genesis --accounts 2 --out "$work/genesis.json" --force --keys "$work/keys2"
    expect_status 0
    ! cmp -s "$work/genesis.json" "$work/first.json" || fail "the genesis file was not replaced"
    [[ -f "$work/keys2/account-0001.json" ]] || fail "no key files in keys2"
    ;;
  genesis_errors)
    run genesis --accounts 0 --out "$work/genesis.json"
    expect_status 2
    expect_line "$err" '^sion: error: --accounts: '
    run genesis --accounts -1 --out "$work/genesis.json"
    expect_status 2
    run genesis --out "$work/genesis.json"
    expect_status 2
    expect_line "$err" '^sion: error: --accounts is required'
    run genesis --accounts 2
    expect_status 2
    expect_line "$err" '^sion: error: --out is required'
    run genesis --accounts 2 --out "$work/genesis.json" --profile nope
    expect_status 2
    expect_line "$err" "^sion: error: unknown profile 'nope' in --profile; valid profiles: dual, cold, strong, hybrid, classic$"
    run genesis --accounts 2 --out "$work/genesis.json" --amount 0
    expect_status 2
    expect_line "$err" "^sion: error: a coin's amount must be at least 1$"
    run genesis --accounts 2 --out "$work/genesis.json" --amount 18446744073709551615
    expect_status 2
    expect_line "$err" '^sion: error: the total supply passes 2\^64 - 1$'
    run genesis --accounts 2 --out "$work/genesis.json" --chain-id 1.5
    expect_status 2
    expect_line "$err" "^sion: error: --chain-id: '1\.5' is not an unsigned decimal integer below 2\^64$"
    # CLI11 alone would take these as 2^64 - 1, 2^64 - 1 (clamped) and 16.
    for value in -1 18446744073709551616 0x10; do
      run genesis --accounts 1 --out "$work/genesis.json" --amount "$value"
      expect_status 2
      expect_line "$err" "^sion: error: --amount: '$value' is not an unsigned decimal integer"
    done
    # A file larger than a node reads is refused before any key is made.
    run genesis --accounts 1 --out "$work/genesis.json" --coins-per-account 100000000
    expect_status 2
    expect_line "$err" "^sion: error: the genesis file would be [0-9]+ bytes, over the 1073741824 a node reads; give fewer accounts or coins$"
    # A key directory that is a symbolic link (here to one everyone may write to) is refused.
    mkdir -m 777 "$work/open"
    ln -s "$work/open" "$work/link"
    run genesis --accounts 1 --out "$work/genesis.json" --keys "$work/link"
    expect_status 2
    expect_line "$err" "^sion: error: key directory '$work/link': a symbolic link; name the directory itself$"
    run genesis --accounts 1 --out "$work/genesis.json" --keys "$work/open"
    expect_status 2
    expect_line "$err" "^sion: error: key directory '$work/open': group or others may write to it \(mode 0777\)"
    [[ -z "$(ls -A "$work/open")" ]] || fail "wrote into an unsafe key directory"
    [[ ! -e "$work/genesis.json" && ! -e "$work/keys" ]] || fail "a failed run wrote files"
    run genesis --help
    expect_status 0
    for option in '--accounts <N>' '--out <FILE>' '--keys <DIR>' '--chain-id <ID>' '--amount <A>' \
      '--coins-per-account <C>' '--profile <PROFILE>' '--force'; do
      grep -qF -- "$option" <<<"$out" || fail "genesis --help lacks $option: $out"
    done
    ;;
  tx_decode)
    # The transaction of docs/ledger.md, "Known answers", as hex with line
    # breaks, as raw bytes and as the argument itself: the documented id,
    # coin ids and size each time.
    source="${SION_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"
    hex_file="$source/docs/known-transaction.hex"
    "$python" - "$hex_file" "$work/tx.bin" <<'PY'
import sys
open(sys.argv[2], "wb").write(bytes.fromhex("".join(open(sys.argv[1], encoding="ascii").read().split())))
PY
    for input in "$hex_file" "$work/tx.bin" "$(tr -d '\n' <"$hex_file")"; do
      run tx decode "$input"
      expect_status 0
      [[ -z "$err" ]] || fail "stderr: $err"
      "$python" - "$source/docs/ledger.md" "$work/out" <<'PY' || fail "tx decode output: $out"
import json, re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
value = lambda label: re.search(rf"^{label}: +([0-9a-f]+)", doc, re.M).group(1)
d = json.load(open(sys.argv[2], encoding="utf-8"))
assert list(d) == ["tx_id", "encoded_bytes", "payload", "keys", "auth", "signature_valid", "coin_ids"], list(d)
assert d["tx_id"] == value("tx id"), d["tx_id"]
assert d["coin_ids"] == [value(f"coin id {i}") for i in range(3)], d["coin_ids"]
assert d["encoded_bytes"] == int(value("transaction bytes")), d["encoded_bytes"]
assert d["signature_valid"] is True
p = d["payload"]
assert (p["chain_id"], p["nonce"], p["sender"]) == (1, 0, value("account id")), p
assert p["body"]["kind"] == "transfer" and len(p["body"]["inputs"]) == 2 and len(p["body"]["outputs"]) == 2, p
k = d["keys"]
assert (k["bundle_id"], k["account_id"], k["profile"], k["well_formed"]) == (value("key bundle id"), value("account id"), "dual", True), k
assert [(x["scheme"], x["scheme_name"], x["key_bytes"], len(x["key"])) for x in k["parts"]] == [(0, "ML-DSA-44", 1312, 2624), (4, "SLH-DSA-SHA2-128f", 32, 64)], k["parts"]
assert d["auth"]["parts"] == [{"bytes": 2420}, {"bytes": 17088}], d["auth"]
assert d["auth"]["encoded_bytes"] == int(value("signature bundle bytes"))
PY
    done
    ;;
  tx_decode_errors)
    source="${SION_SOURCE_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)}"
    tx_hex=$(tr -d '\n' <"$source/docs/known-transaction.hex")
    run tx decode "$work/no-such-file"
    expect_status 2
    expect_line "$err" "^sion: error: '$work/no-such-file' is neither a readable file \(No such file or directory\) nor hex$"
    run tx decode abc
    expect_status 2
    expect_line "$err" '^sion: error: the hex argument: .*odd'
    # Cut inside the outputs, and one byte too many: the
    # decoder's reason names the field.
    run tx decode "${tx_hex:0:300}"
    expect_status 2
    expect_line "$err" '^sion: error: not a transaction: Transaction\.payload\.body\.Transfer\.outputs.*needs .* bytes at byte offset'
    run tx decode "${tx_hex}00"
    expect_status 2
    expect_line "$err" '^sion: error: not a transaction: Transaction: 1 trailing bytes after the value, at byte offset 21067$'
    # Raw bytes (not hex text): a chain id, then two bytes of the sender.
    printf '\x01\x00\x00\x00\x00\x00\x00\x00\xff\xfe' >"$work/short.bin"
    run tx decode "$work/short.bin"
    expect_status 2
    expect_line "$err" '^sion: error: not a transaction: Transaction\.payload'
    # A FIFO is refused at once, not waited on.
    mkfifo "$work/fifo"
    status=0
    timeout 10 "$sion" tx decode "$work/fifo" >"$work/out" 2>"$work/err" || status=$?
    err=$(cat "$work/err")
    out=$(cat "$work/out")
    expect_status 2
    expect_line "$err" "^sion: error: '$work/fifo' is not a regular file$"
    run tx decode
    expect_status 2
    expect_line "$err" '^sion: error: INPUT is required'
    run tx
    expect_status 2
    ;;
  keygen)
    # Default destination: $HOME/.sion/keys/<first 16 hex digits>.json.
    export HOME="$work/home"
    run keygen --profile hybrid
    expect_status 0
    expect_line "$out" '^address: [0-9a-f]{64}$'
    expect_line "$out" '^profile: hybrid$'
    address=$(sed -n 's/^address: //p' <<<"$out")
    file="$HOME/.sion/keys/${address:0:16}.json"
    expect_line "$out" "^key file: $file\$"
    [[ "$(stat -c %a "$file")" == 600 ]] || fail "key file mode $(stat -c %a "$file")"
    [[ "$(stat -c %a "$HOME/.sion/keys")" == 700 ]] || fail "key directory mode $(stat -c %a "$HOME/.sion/keys")"
    "$python" - "$file" "$address" <<'PY' || fail "key file content"
import json, re, sys
k = json.load(open(sys.argv[1], encoding="utf-8"))
assert list(k) == ["profile", "seed", "account"], k.keys()
assert k["profile"] == "hybrid" and k["account"] == sys.argv[2]
assert re.fullmatch("[0-9a-f]{64}", k["seed"])
PY
    # `sion address` reads it back: by default the only key file there.
    run address
    expect_status 0
    [[ "$out" == "$address" ]] || fail "address $out, keygen said $address"
    run address --key "$file"
    expect_status 0
    [[ "$out" == "$address" ]] || fail "address --key $out, keygen said $address"
    # --out, every profile, a folder created with mode 0700.
    for profile in dual cold strong hybrid classic; do
      run keygen --profile "$profile" --out "$work/keys/$profile.json"
      expect_status 0
      expect_line "$out" "^profile: $profile\$"
      [[ "$(stat -c %a "$work/keys/$profile.json")" == 600 ]] || fail "$profile key file mode"
      run address --key "$work/keys/$profile.json"
      expect_status 0
      expect_line "$out" '^[0-9a-f]{64}$'
    done
    [[ "$(stat -c %a "$work/keys")" == 700 ]] || fail "--out folder mode $(stat -c %a "$work/keys")"
    ;;
  keygen_errors)
    export HOME="$work/home"
    run keygen --profile falcon --out "$work/k.json"
    expect_status 2
    expect_line "$err" "^sion: error: unknown profile 'falcon' in --profile; valid profiles: dual, cold, strong, hybrid, classic$"
    [[ ! -e "$work/k.json" ]] || fail "wrote a key despite the bad profile"
    mkdir -m 700 "$work/keys"
    run keygen --profile classic --out "$work/keys/k.json"
    expect_status 0
    cp "$work/keys/k.json" "$work/first.json"
    run keygen --profile classic --out "$work/keys/k.json"
    expect_status 2
    expect_line "$err" "^sion: error: key file '$work/keys/k\.json' already exists"
    cmp -s "$work/keys/k.json" "$work/first.json" || fail "overwrote an existing key file"
    mkdir -m 777 "$work/open"
    chmod 777 "$work/open"
    run keygen --out "$work/open/k.json"
    expect_status 2
    expect_line "$err" "chmod 700"
    [[ ! -e "$work/open/k.json" ]] || fail "wrote a key into a folder others may write to"
    unset HOME
    run keygen --profile classic
    expect_status 2
    expect_line "$err" '^sion: error: HOME is not set'
    ;;
  address)
    export HOME="$work/home"
    run address
    expect_status 2
    expect_line "$err" "^sion: error: key directory '$HOME/\.sion/keys' does not exist$"
    mkdir -p -m 700 "$HOME/.sion/keys"
    run keygen --profile classic
    run keygen --profile classic
    run address
    expect_status 2
    expect_line "$err" '^sion: error: several key files in .*; choose one with --key FILE$'
    run address --key "$work/none.json"
    expect_status 2
    expect_line "$err" "^sion: error: .*none\.json"
    # A key file others may read is refused (docs/genesis.md, "Key files").
    run keygen --profile classic --out "$work/keys/k.json"
    chmod 644 "$work/keys/k.json"
    run address --key "$work/keys/k.json"
    expect_status 2
    expect_line "$err" "chmod 600"
    ;;
  devnet_transfer)
    # The README walk-through: a devnet, a transfer with the CLI, its status;
    # then SIGKILL and a restart that keeps what was executed; then Ctrl-C.
    node_pid=""
    trap '[[ -n "$node_pid" ]] && kill -9 "$node_pid" 2>/dev/null || true' EXIT
    start_devnet "$work/dn"
    run address --key "$work/dn/keys/account-0001.json"
    expect_status 0
    payee="$out"
    run balance --key "$work/dn/keys/account-0000.json" --node "$api"
    expect_status 0
    expect_line "$out" '^balance: 1000000000$'
    run transfer --key "$work/dn/keys/account-0000.json" --to "$payee" --amount 1000 --node "$api" --timeout 20
    expect_status 0
    expect_line "$out" '^executed in Pulse [0-9]+ at position 0'
    expect_line "$out" '^receipt: success'
    tx_id=$(grep -Eo 'submitted [0-9a-f]{64}' <<<"$out" | cut -d' ' -f2)
    run balance --address "$payee" --node "$api"
    expect_line "$out" '^balance: 1000001000$'
    # A light client that trusts only the genesis file checks the newest Pulse.
    run light --genesis "$work/dn/genesis.json" --node "$api" --object "$payee" --samples 8
    expect_status 0
    expect_line "$out" 'signed by genesis validator'
    expect_line "$out" "entry 0 is this chain's genesis header"
    expect_line "$out" '^  [1-8] sampled shares verified$'  # at most the square's shares
    expect_line "$out" 'present, type 1'
    # A transfer with more than the account holds is refused before submitting.
    run transfer --key "$work/dn/keys/account-0002.json" --to "$payee" --amount 5000000000 --node "$api"
    expect_status 2
    expect_line "$err" 'not enough'
    kill -9 "$node_pid"
    wait "$node_pid" 2>/dev/null || true
    start_devnet "$work/dn"
    run tx status "$tx_id" --node "$api"
    expect_status 0
    expect_line "$out" '^status: executed$'
    run balance --address "$payee" --node "$api"
    expect_line "$out" '^balance: 1000001000$'
    expect_line "$(cat "$work/devnet.out")" '^devnet resumed'
    stop_devnet
    ;;
  replay_errors)
    run replay
    expect_status 2
    expect_line "$err" "^sion: error: give the node's --config FILE or a devnet's --dir DIR$"
    run replay --config "$work/node.toml" --dir "$work"
    expect_status 2
    expect_line "$err" '^sion: error: --(config|dir) excludes --(dir|config)'
    run replay --dir "$work/none"
    expect_status 1
    expect_line "$err" "^sion: error: .*$work/none/node\.toml"
    # A config whose data folder holds no chain (a node never started).
    mkdir -p "$work/empty"
    printf 'data_dir = "data"\ngenesis_file = "genesis.json"\nvalidator_key_file = "k.json"\n' >"$work/node.toml"
    run genesis --accounts 1 --out "$work/genesis.json"
    run replay --config "$work/node.toml"
    expect_status 1
    expect_line "$err" "^sion: error: opening the chain in $work/data/chain: no store in $work/data/chain$"
    [[ ! -e "$work/data" ]] || fail "sion replay created $work/data"
    ;;
  load_errors)
    # Options refused before anything is read or sent.
    for batch in 0 257 -1 x; do
      run load --genesis "$work/none.json" --batch "$batch"
      expect_status 2
      expect_line "$err" '^sion: error: --batch: '
    done
    ;;
  devnet_kill_under_load)
    # docs/node-config.md, "Checking a chain": a node killed with SIGKILL
    # under load keeps every transaction its event stream reported executed,
    # at the same height, nothing half-written (`sion replay` passes), and
    # works on after a restart. Every process started here is killed on exit.
    node_pid="" events_pid="" load_pid=""
    trap 'for pid in $node_pid $events_pid $load_pid; do kill -9 "$pid" 2>/dev/null || true; done' EXIT
    start_devnet "$work/dn" --accounts 32
    # Every event from the first (Last-Event-ID 0: those already held too).
    curl -sN -H 'Last-Event-ID: 0' "$api/v1/events" >"$work/events.txt" 2>/dev/null &
    events_pid=$!
    # Not under timeout(1): the trap must reach sion itself. Waited for below.
    "$sion" load --genesis "$work/dn/genesis.json" --node "$api" --rate 300 --duration 4 \
      --submitters 2 --drain 2 >"$work/load.out" 2>"$work/load.err" &
    load_pid=$!
    # It signs every transfer first (seconds on a busy machine), then sends.
    for _ in $(seq 1200); do
      grep -q '^signed [0-9]* dual-signed transfers' "$work/load.err" && break
      kill -0 "$load_pid" 2>/dev/null || fail "sion load ended before sending: $(tail -c 600 "$work/load.err")"
      sleep 0.05
    done
    grep -q '^signed ' "$work/load.err" || fail "sion load signed nothing in 60 s: $(tail -c 600 "$work/load.err")"
    # Kill the node once 8 Pulses are announced: about 1 s into 4 s of sending.
    pulses=0
    for _ in $(seq 400); do
      pulses=$(grep -c '^event: pulse$' "$work/events.txt" || true)
      ((pulses >= 8)) && break
      kill -0 "$load_pid" 2>/dev/null || fail "sion load ended before 8 Pulses: $(tail -c 600 "$work/load.err")"
      sleep 0.05
    done
    ((pulses >= 8)) || fail "only $pulses Pulses announced in 20 s of load: $(tail -c 600 "$work/load.err")"
    kill -9 "$node_pid"
    wait "$node_pid" 2>/dev/null || true
    node_pid=""
    # Load and the event stream end by themselves once the node is gone:
    # load after its sending window (at most 4 s) and drain (2 s).
    for _ in $(seq 300); do kill -0 "$load_pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$load_pid" 2>/dev/null && fail "sion load did not end within 15 s of the node's death"
    status=0
    wait "$load_pid" || status=$?
    load_pid=""
    for _ in $(seq 100); do kill -0 "$events_pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$events_pid" 2>/dev/null && fail "the event stream did not end with the node"
    wait "$events_pid" 2>/dev/null || true
    events_pid=""
    grep -q '^executed [0-9]' "$work/load.out" 2>/dev/null ||
      echo "note: sion load reported no summary (status $status): $(tail -c 300 "$work/load.err")"

    # (a) The killed node's chain replays from genesis, and reading it changed no file.
    find "$work/dn/data" -printf '%P %s %T@\n' | sort >"$work/data.before"
    run replay --dir "$work/dn"
    expect_status 0
    expect_line "$out" '^replayed [0-9]+ Pulses, [0-9]+ transactions; state root [0-9a-f]{64} matches'
    find "$work/dn/data" -printf '%P %s %T@\n' | sort >"$work/data.after"
    cmp -s "$work/data.before" "$work/data.after" ||
      fail "sion replay changed the data folder: $(diff "$work/data.before" "$work/data.after" | head -n 5)"
    replayed=$(sed -nE 's/^replayed ([0-9]+) Pulses.*/\1/p' <<<"$out")

    # (b) Restarted, the node holds every transaction the stream reported
    # executed, at the height it reported, and is at least at the last
    # Pulse announced.
    start_devnet "$work/dn"
    expect_line "$(cat "$work/devnet.out")" '^devnet resumed'
    # A node that runs refuses a replay: it holds the store's lock.
    run replay --dir "$work/dn"
    expect_status 1
    expect_line "$err" '^sion: error: opening the chain in .*: .*in use by another process'
    "$python" - "$work/events.txt" "$api" "$replayed" <<'PY' || fail "the restarted node lost what was reported"
import http.client, json, sys, time, urllib.parse
deadline = time.monotonic() + 20
events_file, api, replayed = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(events_file, encoding="utf-8").read()
# Complete events only: the node was killed, the last one may be cut.
blocks = text.split("\n\n")
if not text.endswith("\n\n"):
    blocks = blocks[:-1]
executed, last_pulse, pulses = {}, 0, 0
for block in blocks:
    fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
    if "data" not in fields:
        continue
    data = json.loads(fields["data"])
    if fields.get("event") == "pulse":
        pulses += 1
        last_pulse = max(last_pulse, data["height"])
    elif fields.get("event") == "transaction" and data["status"] == "executed":
        executed[data["tx_id"]] = data["height"]
assert pulses >= 8 and executed, f"{pulses} Pulses, {len(executed)} executed transactions in the stream"
assert replayed >= last_pulse, f"sion replay replayed {replayed} Pulses, the stream announced {last_pulse}"
url = urllib.parse.urlsplit(api)
connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
def get(path):
    global connection
    for attempt in range(2):
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, json.loads(response.read())
        except (http.client.HTTPException, OSError):
            connection.close()
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    raise SystemExit(f"GET {path} failed twice")
status, body = get("/v1/status")
assert status == 200 and body["height"] >= last_pulse, f"height {body.get('height')} after restart, {last_pulse} announced"
for tx_id, height in executed.items():
    assert time.monotonic() < deadline, "the checks took over 20 s"
    status, body = get(f"/v1/transactions/{tx_id}")
    assert status == 200 and body.get("status") == "executed" and body.get("height") == height, (
        f"transaction {tx_id}, reported executed at height {height}: now {status} {body}")
print(f"{len(executed)} executed transactions in {pulses} Pulses (last {last_pulse}) kept")
PY
    before=$(curl -s "$api/v1/status" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["height"])')

    # (c) It works on: a short load after the restart executes (sent in
    # batches, POST /v1/transactions/batch).
    status=0
    timeout 30 "$sion" load --genesis "$work/dn/genesis.json" --node "$api" --rate 50 --duration 2 \
      --submitters 2 --batch 5 --drain 20 >"$work/load2.out" 2>"$work/load2.err" || status=$?
    ((status == 0)) || fail "sion load after the restart exited $status: $(tail -c 600 "$work/load2.err")"
    executed=$(sed -nE 's/^executed ([0-9]+) .*/\1/p' "$work/load2.out")
    ((executed > 0)) || fail "nothing executed after the restart: $(cat "$work/load2.out")"
    after=$(curl -s "$api/v1/status" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["height"])')
    ((after > before)) || fail "the chain stayed at height $before after the restart"

    # (d) SIGINT stops it cleanly; (e) and its chain replays again.
    stop_devnet
    run replay --dir "$work/dn"
    expect_status 0
    replayed=$(sed -nE 's/^replayed ([0-9]+) Pulses.*/\1/p' <<<"$out")
    ((replayed >= after)) || fail "replayed $replayed Pulses, the node was at $after"
    echo "$out"
    ;;
  devnet_validators)
    # `sion devnet --validators 3`: one `sion node` process per validator on
    # fixed ports; each API answers, SIGINT stops them all, and a validator
    # that dies stops the others and fails the devnet. A devnet killed
    # outright takes its validators with it (they get SIGTERM).
    node_pid=""
    trap '[[ -n "$node_pid" ]] && kill -9 "$node_pid" 2>/dev/null || true' EXIT
    # Six consecutive free loopback ports (validator K: API P + 2K, consensus P + 1 + 2K).
    port=$(free_ports 6) || skip "no six consecutive free ports"
    # The pids of the devnet's children, from /proc (no procps needed).
    children() {
      "$python" - "$1" <<'PY'
import os, sys
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    if stat.rsplit(")", 1)[1].split()[1] == sys.argv[1]:
        print(pid)
PY
    }
    start_validators() {
      "$sion" devnet --validators 3 --dir "$work/dn" --api "127.0.0.1:$port" --interval-ms 100 \
        >"$work/devnet.out" 2>"$work/devnet.err" &
      node_pid=$!
      for _ in $(seq 200); do
        grep -q '^stop:' "$work/devnet.out" && break
        kill -0 "$node_pid" 2>/dev/null || break
        sleep 0.05
      done
      grep -q '^stop:' "$work/devnet.out" || fail "no banner: $(cat "$work/devnet.out" "$work/devnet.err")"
      for k in 0 1 2; do
        local answered=""
        for _ in $(seq 200); do
          curl -sf "http://127.0.0.1:$((port + 2 * k))/v1/status" >/dev/null && answered=1 && break
          sleep 0.05
        done
        [[ -n "$answered" ]] || fail "validator $k's API did not answer: $(cat "$work/dn/validator-$k/node.log")"
      done
      pids=$(children "$node_pid")
      (($(wc -w <<<"$pids") == 3)) || fail "not 3 child processes: $pids"
    }
    expect_gone() {
      for pid in $pids; do
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        kill -0 "$pid" 2>/dev/null && fail "validator process $pid still runs"
      done
      return 0
    }

    start_validators
    banner=$(cat "$work/devnet.out")
    expect_line "$banner" "^devnet created in $work/dn: 3 validators"
    expect_line "$banner" "^API:  http://127\.0\.0\.1:$port$"
    for k in 0 1 2; do
      expect_line "$banner" "validator $k: API http://127\.0\.0\.1:$((port + 2 * k)), consensus 127\.0\.0\.1:$((port + 1 + 2 * k)), log $work/dn/validator-$k/node\.log$"
    done
    run balance --key "$work/dn/keys/account-0000.json" --node "http://127.0.0.1:$((port + 4))"
    expect_status 0
    expect_line "$out" '^balance: 1000000000$'
    stop_devnet
    expect_line "$(cat "$work/devnet.out")" '^stopping 3 validators'
    expect_gone

    # Resumed as it was made, whatever --validators says; a validator killed
    # with SIGKILL fails the devnet, naming it and its log.
    "$sion" devnet --dir "$work/dn" --validators 2 >"$work/resume.out" 2>&1 &
    node_pid=$!
    for _ in $(seq 200); do grep -q '^stop:' "$work/resume.out" && break; sleep 0.05; done
    expect_line "$(cat "$work/resume.out")" "^note: $work/dn holds 3 validators"
    expect_line "$(cat "$work/resume.out")" "^devnet resumed in $work/dn: 3 validators"
    pids=$(children "$node_pid")
    victim=$(head -n 1 <<<"$pids")
    kill -9 "$victim"
    status=0
    wait "$node_pid" || status=$?
    node_pid=""
    ((status == 1)) || fail "the devnet exited $status after a validator died: $(cat "$work/resume.out")"
    expect_line "$(cat "$work/resume.out")" "^sion: error: validator [0-2] was killed by signal 9 \(.*\) \(its log: $work/dn/validator-[0-2]/node\.log\)$"
    expect_gone

    # SIGKILL of the devnet itself: its validators stop on their own.
    start_validators
    kill -9 "$node_pid"
    wait "$node_pid" 2>/dev/null || true
    node_pid=""
    expect_gone

    # Refused before anything is written.
    run devnet --validators 3 --dir "$work/other" --api 127.0.0.1:0
    expect_status 2
    expect_line "$err" '^sion: error: a devnet of several validators needs a fixed API port'
    run devnet --validators 65 --dir "$work/other"
    expect_status 2
    [[ ! -e "$work/other" ]] || fail "a refused devnet wrote $work/other"
    ;;
  devnet_agents)
    # docs/wallet.md, "Agents": on a devnet of four validators, an account
    # spawns a keyed agent that pays with its own keys and a keyless one that
    # pays through a batch the account signs once; a narrowing fails the
    # next batch payment over the new cap; a revoked agent pays no more; a
    # cohort of 1,000 members is spawned and four are materialized (a
    # second time is refused) and pay through a batch.
    node_pid=""
    trap '[[ -n "$node_pid" ]] && kill -INT "$node_pid" 2>/dev/null || true' EXIT
    port=$(free_ports 8) || skip "no eight consecutive free ports"
    "$sion" devnet --validators 4 --dir "$work/dn" --api "127.0.0.1:$port" --interval-ms 100 \
      >"$work/devnet.out" 2>"$work/devnet.err" &
    node_pid=$!
    api="http://127.0.0.1:$port"
    for _ in $(seq 300); do
      curl -sf "$api/v1/status" >/dev/null && break
      kill -0 "$node_pid" 2>/dev/null || fail "the devnet stopped: $(cat "$work/devnet.err")"
      sleep 0.05
    done
    owner="$work/dn/keys/account-0000.json"
    run address --key "$work/dn/keys/account-0001.json"
    payee="$out"
    run keygen --out "$work/agent.json"
    expect_status 0

    run agent spawn --key "$owner" --allotment 1000000 --agent-key "$work/agent.json" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^agent [0-9a-f]{64} \(root [0-9a-f]{64}, path 0, keyed\)$'
    expect_line "$out" '^receipt: success'
    keyed=$(grep -Eo '^agent [0-9a-f]{64}' <<<"$out" | cut -d' ' -f2)
    run agent pay --key "$work/agent.json" --as "$keyed" --to "$payee" --amount 1000 --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^receipt: success'

    run agent spawn --key "$owner" --allotment 1000000 --per-payment 100 --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^agent [0-9a-f]{64} \(root [0-9a-f]{64}, path 1, keyless\)$'
    keyless=$(grep -Eo '^agent [0-9a-f]{64}' <<<"$out" | cut -d' ' -f2)
    run agent batch --key "$owner" --pay "$keyless:$payee:10" --pay "$keyless:$payee:20" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^batch [0-9a-f]{64} of 2 members'
    expect_line "$out" '^member 0 [0-9a-f]{64}: Pulse [0-9]+, success$'
    expect_line "$out" '^member 1 [0-9a-f]{64}: Pulse [0-9]+, success$'
    run balance --address "$payee" --node "$api"
    expect_line "$out" '^balance: 1000001030$'
    # Funded through its allotment; a transfer of coins to it is refused.
    run agent fund --key "$owner" --agent "$keyless" --amount 500 --node "$api" --timeout 30
    expect_status 0
    run transfer --key "$owner" --to "$keyless" --amount 5 --node "$api"
    expect_status 2
    expect_line "$err" 'is an agent, which cannot spend coins'
    run agent show "$keyless" --node "$api"
    expect_status 0
    "$python" - "$out" <<'PY' || fail "agent show: $out"
import json, sys
view = json.loads(sys.argv[1])
assert view["allotment"]["nonce"] == 2, view
assert view["standing"]["status"] == "success", view
assert view["standing"]["per_payment"] == 100, view
PY

    # Narrowed to 15 a payment: the next one of 20 fails, one of 15 passes.
    run agent narrow --key "$owner" --agent "$keyless" --per-payment 15 --node "$api" --timeout 30
    expect_status 0
    run agent batch --key "$owner" --pay "$keyless:$payee:20" --pay "$keyless:$payee:15" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^member 0 [0-9a-f]{64}: Pulse [0-9]+, above_per_payment$'
    expect_line "$out" '^member 1 [0-9a-f]{64}: Pulse [0-9]+, success$'
    expect_line "$err" '1 of 2 members failed'

    # Revoked: the node refuses its payment, or executes it as a failure.
    run agent revoke --key "$owner" --agent "$keyed" --node "$api" --timeout 30
    expect_status 0
    run agent show "$keyed" --node "$api"
    expect_line "$out" '"status": "agent_revoked"'
    run agent pay --key "$work/agent.json" --as "$keyed" --to "$payee" --amount 1 --node "$api" --timeout 30
    [[ "$status" != 0 ]] || fail "a revoked agent paid: $out"
    expect_line "$out$err" 'agent_revoked'

    # A cohort: one transaction for 1,000 members; four materialized.
    run agent cohort --key "$owner" --members 1000 --allotment 100000 --out "$work/cohort.json" --node "$api" \
      --timeout 30
    expect_status 0
    expect_line "$out" '^cohort [0-9a-f]{64} \(root [0-9a-f]{64}, path 2\): 1000 keyless members of 100000 each'
    run agent cohort --key "$owner" --members 10 --allotment 1 --out "$work/cohort.json" --node "$api"
    expect_status 2
    expect_line "$err" 'already exists'
    run agent materialize --key "$work/dn/keys/account-0002.json" --cohort "$work/cohort.json" --first 0 --count 4 \
      --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^member 3: agent [0-9a-f]{64}$'
    expect_line "$out" '^receipt: success'
    member=$(grep -E '^member 3: agent' <<<"$out" | grep -Eo '[0-9a-f]{64}')
    run agent materialize --key "$work/dn/keys/account-0002.json" --cohort "$work/cohort.json" --first 3 --count 1 \
      --node "$api" --timeout 30
    expect_status 1
    expect_line "$err" 'already_materialized'
    run agent batch --key "$owner" --pay "$member:$payee:7" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^member 0 [0-9a-f]{64}: Pulse [0-9]+, success$'
    run balance --address "$payee" --node "$api"
    expect_line "$out" '^balance: 1000001052$'
    kill -INT "$node_pid"
    for _ in $(seq 200); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$node_pid" 2>/dev/null && fail "the devnet did not stop on SIGINT"
    node_pid=""
    ;;
  devnet_streams)
    # docs/wallet.md, "Streams": on a devnet of four validators, an account
    # opens a stream to a new key and pays through it off the ledger, the
    # payee checks each payment with one hash (a forged, a replayed and a
    # malformed line are refused), settles by checkpoint, is paid more and
    # settles walked; what the ledger would reject (nothing new to settle, a
    # settlement past the expiry) is refused before it is sent; after the
    # expiry the payer closes the stream and gets the rest of the deposit.
    node_pid=""
    trap '[[ -n "$node_pid" ]] && kill -INT "$node_pid" 2>/dev/null || true' EXIT
    port=$(free_ports 8) || skip "no eight consecutive free ports"
    "$sion" devnet --validators 4 --dir "$work/dn" --api "127.0.0.1:$port" --interval-ms 100 \
      >"$work/devnet.out" 2>"$work/devnet.err" &
    node_pid=$!
    api="http://127.0.0.1:$port"
    for _ in $(seq 300); do
      curl -sf "$api/v1/status" >/dev/null && break
      kill -0 "$node_pid" 2>/dev/null || fail "the devnet stopped: $(cat "$work/devnet.err")"
      sleep 0.05
    done
    payer="$work/dn/keys/account-0000.json"
    run keygen --out "$work/payee-key.json"
    expect_status 0
    run address --key "$work/payee-key.json"
    payee="$out"
    price=100000
    deposit=$((40 * price))

    # Refused before anything is written or sent.
    run stream open --key "$payer" --payee "$payee" --price 0 --steps 40 --file "$work/payer.json" --node "$api"
    expect_status 2
    expect_line "$err" '--price: must be at least 1'
    run stream open --key "$payer" --payee "$payee" --price "$price" --steps 40 --deposit $((41 * price)) \
      --file "$work/payer.json" --node "$api"
    expect_status 2
    expect_line "$err" "--deposit $((41 * price)): more than all 40 steps cost"
    [[ ! -e "$work/payer.json" ]] || fail "a refused open wrote the payer file"

    # 40 payments of $price; the deposit covers them all. The devnet makes a
    # Pulse only for transactions: the stream's three take three of the ten
    # Pulses to its expiry, transfers between two other accounts the rest.
    run stream open --key "$payer" --payee "$payee" --price "$price" --steps 40 --expiry-in 10 \
      --file "$work/payer.json" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^stream [0-9a-f]{64}$'
    expect_line "$out" '^receipt: success'
    expect_line "$out" "^deposit $deposit \\($price a step, 40 steps, expiry height [0-9]+\\)$"
    stream=$(grep -Eo '^stream [0-9a-f]{64}$' <<<"$out" | cut -d' ' -f2)
    [[ "$(stat -c %a "$work/payer.json")" == 600 ]] || fail "the payer file is not 0600"
    [[ -f "$work/payer.json.offer.json" ]] || fail "no offer file beside the payer file"
    run stream show "$stream" --node "$api"
    expect_status 0
    expect_line "$out" "^payee: +$payee$"
    expect_line "$out" '^settled: +0$'
    expect_line "$out" "^deposit left: +$deposit$"
    expect_line "$out" '^expired: +no '

    # Ten payments, off the ledger, checked by the payee as they come.
    "$sion" stream pay --file "$work/payer.json" --count 10 >"$work/pay1" 2>"$work/err" ||
      fail "stream pay: $(cat "$work/err")"
    [[ $(wc -l <"$work/pay1") == 10 ]] || fail "stream pay printed $(wc -l <"$work/pay1") lines, expected 10"
    status=0
    "$sion" stream check --file "$work/payee.json" --offer "$work/payer.json.offer.json" --node "$api" \
      <"$work/pay1" >"$work/out" 2>"$work/err" || status=$?
    out=$(cat "$work/out")
    err=$(cat "$work/err")
    expect_status 0
    [[ $(grep -c '^accepted [0-9]*$' <<<"$out") == 10 ]] || fail "not ten payments accepted: $out"
    expect_line "$out" "^accepted up to 10: owed $((10 * price)) since the stream opened$"

    # A forged element, a replay and a malformed line: refused, with reasons.
    run stream check --file "$work/payee.json" --payment "11 $(printf '%064d' 0)"
    expect_status 1
    expect_line "$out" '^refused 11 forged: '
    expect_line "$err" '1 of 1 payments refused'
    run stream check --file "$work/payee.json" --payment "$(sed -n 4p "$work/pay1")" --payment "12 zz"
    expect_status 1
    expect_line "$out" '^refused 4 replayed: '
    expect_line "$out" '^malformed line 2: element: expected 64 lower-case hex digits'
    expect_line "$err" '2 of 2 payments refused'
    expect_line "$out" "^accepted up to 10: "

    # Settled by checkpoint: the payee's new account gets 10 payments less the fee.
    run stream settle --file "$work/payee.json" --key "$work/payee-key.json" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" "^settling payments 1 to 10 \\(by checkpoint, from 8\\): owed $((10 * price))$"
    expect_line "$out" '^receipt: success'
    fee1=$(grep -Eo '^paid to the payee [0-9]+ \(owed [0-9]+ - fee [0-9]+\)' <<<"$out" | grep -Eo '[0-9]+\)$' | tr -d ')')
    paid1=$(grep -Eo '^paid to the payee [0-9]+' <<<"$out" | grep -Eo '[0-9]+$')
    [[ -n "$fee1" && "$paid1" == $((10 * price - fee1)) ]] || fail "settled $paid1 with fee $fee1: $out"
    run balance --address "$payee" --node "$api"
    expect_line "$out" "^balance: $paid1$"

    # Nothing new to settle: refused before it is sent, with the ledger's reason.
    run stream settle --file "$work/payee.json" --key "$work/payee-key.json" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^rejected: index_not_above_settled$'
    expect_line "$err" 'nothing new to settle: payments up to 10 were accepted and the stream is settled to 10'

    # Seven more payments, settled walked from the settled index.
    "$sion" stream pay --file "$work/payer.json" --count 7 >"$work/pay2" 2>"$work/err" ||
      fail "stream pay: $(cat "$work/err")"
    "$sion" stream check --file "$work/payee.json" <"$work/pay2" >"$work/out" 2>"$work/err" ||
      fail "stream check: $(cat "$work/out") $(cat "$work/err")"
    expect_line "$(cat "$work/out")" "^accepted up to 17: owed $((17 * price)) since the stream opened$"
    run stream settle --walk --file "$work/payee.json" --key "$work/payee-key.json" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" "^settling payments 11 to 17 \\(walked, from 10\\): owed $((7 * price))$"
    fee2=$(grep -Eo '^paid to the payee [0-9]+ \(owed [0-9]+ - fee [0-9]+\)' <<<"$out" | grep -Eo '[0-9]+\)$' | tr -d ')')
    paid2=$(grep -Eo '^paid to the payee [0-9]+' <<<"$out" | grep -Eo '[0-9]+$')
    [[ -n "$fee2" && "$paid2" == $((7 * price - fee2)) ]] || fail "settled $paid2 with fee $fee2: $out"
    run balance --address "$payee" --node "$api"
    expect_line "$out" "^balance: $((paid1 + paid2))$"
    left=$((deposit - 17 * price))
    run stream show "$stream" --node "$api"
    expect_status 0
    expect_line "$out" '^settled: +17$'
    expect_line "$out" "^deposit left: +$left$"

    # Three more accepted, but the payee waits past the expiry: the ledger
    # would reject the settlement, so it is not sent.
    "$sion" stream pay --file "$work/payer.json" --count 3 >"$work/pay3" 2>"$work/err" ||
      fail "stream pay: $(cat "$work/err")"
    "$sion" stream check --file "$work/payee.json" <"$work/pay3" >/dev/null 2>&1 || fail "stream check of 18 to 20"
    run stream pay --file "$work/payer.json" --count 21
    expect_status 2
    expect_line "$err" '--count 21: 20 of the 40 payments the deposit covers are left'
    run stream close --stream "$stream" --key "$payer" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^rejected: stream_not_expired$'
    expect_line "$err" 'the close would be rejected at height [0-9]+: stream_not_expired'
    run address --key "$work/dn/keys/account-0003.json"
    other="$out"
    for _ in $(seq 16); do
      run stream show "$stream" --node "$api"
      grep -Eq '^expired: +yes' <<<"$out" && break
      run transfer --key "$work/dn/keys/account-0002.json" --to "$other" --amount 1000 --node "$api" --timeout 30
      expect_status 0
    done
    expect_line "$out" '^expired: +yes'
    run stream settle --file "$work/payee.json" --key "$work/payee-key.json" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^rejected: stream_expired$'
    expect_line "$err" 'the settlement would be rejected at height [0-9]+: stream_expired'
    run stream close --stream "$stream" --key "$work/payee-key.json" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^rejected: not_stream_payer$'

    # The payer closes it: the rest of the deposit, less the fee, comes back.
    run balance --key "$payer" --node "$api"
    before=$(grep -Eo '^balance: [0-9]+' <<<"$out" | cut -d' ' -f2)
    run stream close --stream "$stream" --key "$payer" --node "$api" --timeout 30
    expect_status 0
    expect_line "$out" '^receipt: success'
    fee3=$(grep -Eo '^refund [0-9]+ to the payer \(deposit left [0-9]+ - fee [0-9]+\)' <<<"$out" |
      grep -Eo '[0-9]+\)$' | tr -d ')')
    expect_line "$out" "^refund $((left - fee3)) to the payer \\(deposit left $left - fee $fee3\\)"
    run balance --key "$payer" --node "$api"
    expect_line "$out" "^balance: $((before + left - fee3))$"
    run stream show "$stream" --node "$api"
    expect_status 1
    expect_line "$err" '404 not_found: no stream is stored under'
    run stream close --stream "$stream" --key "$payer" --node "$api" --timeout 30
    expect_status 1
    expect_line "$out" '^rejected: unknown_stream$'
    run balance --address "$payee" --node "$api"
    expect_line "$out" "^balance: $((paid1 + paid2))$"
    kill -INT "$node_pid"
    for _ in $(seq 200); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$node_pid" 2>/dev/null && fail "the devnet did not stop on SIGINT"
    node_pid=""
    ;;
  *)
    fail "unknown case"
    ;;
esac
echo "ok ($case_name)"
