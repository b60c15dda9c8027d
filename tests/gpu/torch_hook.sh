#!/usr/bin/env bash
# GPU test of `cuscope run --pytorch` (ctest torch_hook, label gpu): threads,
# torch.compile, and exits mid-step keep their exit code, never hang, and leave a
# profile; the plain case's kernels carry ops and lines. Exit 77 (skipped) without a
# GPU or torch, saying why.
#   tests/gpu/torch_hook.sh BUILD_DIR
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cuscope="$build/bin/cuscope"
python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null || {
  echo "SKIP: no torch with a CUDA GPU in python3"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
check() {  # CASE EXPECTED_EXIT [cuscope run flags]
  local case=$1 want=$2 rc
  shift 2
  timeout 300 "$cuscope" run --pytorch --metrics=none --report=none "$@" -o "$out/$case.sqlite" \
    -- python3 "$here/torch/cases.py" "$case" >"$out/$case.log" 2>&1
  rc=$?
  if [[ $rc -ne $want ]]; then
    echo "FAIL $case: exit $rc, expected $want"; tail -20 "$out/$case.log"; failed=1; return
  fi
  if ! "$cuscope" report "$out/$case.sqlite" --by=op >"$out/$case.op" 2>&1; then
    echo "FAIL $case: no readable profile"; cat "$out/$case.op"; failed=1; return
  fi
  if grep -q "PyTorch hook not installed" "$out/$case.log"; then
    echo "FAIL $case: $(grep 'PyTorch hook' "$out/$case.log")"; failed=1; return
  fi
  echo "ok   $case (exit $rc)"
}
check plain 0
check threads 0
check compile 0
check exit_forward 3
check exit_backward 5
check long 0 --pytorch-steps=2
# The plain case: most kernels carry an op, and the up projection's line has kernels.
json=$("$cuscope" report "$out/plain.sqlite" --by=line --format=json --top=0)
python3 - "$json" <<'PY' || failed=1
import json, sys
d = json.loads(sys.argv[1])
k = d["all"]["kernels"]
op, line = d["with_op"]["kernels"], d["with_line"]["kernels"]
bw, bwl = d["backward"]["kernels"], d["backward_with_line"]["kernels"]
lines = {(r["file"].rsplit("/", 1)[-1], r["function"]) for r in d["by_line"] if r["file"]}
print(f"plain: {k} kernels, {op} with an op, {line} with a line, {bwl} of {bw} backward with a line")
ok = k > 0 and op >= 0.9 * k and line >= 0.8 * k and bw > 0 and bwl >= 0.8 * bw
ok = ok and ("cases.py", "forward") in lines
print("ok   plain attribution" if ok else f"FAIL plain attribution: lines {sorted(lines)}")
sys.exit(0 if ok else 1)
PY
"$cuscope" report "$out/plain.sqlite" | grep -q "ProfilerStep#" || {
  echo "FAIL plain: no ProfilerStep#N region"; failed=1; }
# The long case: op and line ranges in its first 2 steps only; the later steps' kernels
# take them from step 2's same launches, and the steps go on being marked.
json=$("$cuscope" report "$out/long.sqlite" --by=line --format=json --top=0)
python3 - "$json" <<'PY' || failed=1
import json, sys
d = json.loads(sys.argv[1])
k, line, inh = d["all"]["kernels"], d["with_line"]["kernels"], d["inherited"]["kernels"]
print(f"long: {k} kernels, {line} with a line, {inh} from an earlier step")
ok = k > 0 and line >= 0.8 * k and inh >= 0.4 * k
print("ok   long: later steps attributed from step 2" if ok else "FAIL long attribution")
sys.exit(0 if ok else 1)
PY
# After its attributed steps the hook has nothing left on: no line mode on torch's mode
# stack (a pass-through mode still costs a Python call per torch call), no op ranges.
state=$(grep "^cuscope hook: " "$out/long.log")
echo "long: ${state:-no hook state printed}"
[[ "$state" == *"attributing=no line_mode=off op_ranges=off modes=0"* ]] || {
  echo "FAIL long: the hook left something on after its steps"; failed=1; }
steps=$("$cuscope" report "$out/long.sqlite" | grep -c "ProfilerStep#")
[ "$steps" -ge 5 ] || { echo "FAIL long: $steps ProfilerStep#N rows, expected 9"; failed=1; }
exit $failed
