#!/usr/bin/env bash
# The GPU evidence the open issues still need, in three calls of at most 10 minutes each
# (the device tool's limit), on a build made here and carried (shared/device/README.md):
#
#   bench/device/open_issues.sh BUILD OUT part1   # ~7 min
#   bench/device/open_issues.sh BUILD OUT part2   # ~8 min
#   bench/device/open_issues.sh BUILD OUT part3   # ~7 min
#   bench/device/open_issues.sh BUILD OUT part4   # ~7 min
#   bench/device/open_issues.sh BUILD OUT part5   # ~5 min
#   bench/device/open_issues.sh BUILD OUT part6   # ~9 min, a call of its own
#   bench/device/open_issues.sh BUILD OUT part7   # ~4 min
#
# part1: the PyTorch hook's GPU test (threads, torch.compile, exits mid-step, ProfilerStep#N;
#   issue #35), the PC sampling tests with the module unloaded mid-run (#36), the fault
#   tests with the SIGKILL under --source (#36), the add_ loop against torch.profiler in
#   5 paired rounds (#33).
# part2: the PyTorch attribution's cost and shares on GPT-2 in 3 rounds with its parts
#   (#35), HTA's steps on the --pytorch trace (HTA's source carried as BUILD/hta), and the
#   no-flag GPT-2 and ViT runs recorded for the verdicts against ncu per launch size
#   (#32: bench/ncu_agreement.py here afterwards).
# part3: 2M launches traced: the program's peak, the profile's and the .pftrace's sizes
#   (#33); ncu's SpeedOfLight on the GEMM script (on the GPU of a GEMM recording:
#   tests/data/real/h100-gemm-ncu-sol.csv.gz came from it); the no-flag GPT-2 run against
#   the trace in 3 paired rounds
#   (#32's steady steps).
# part4: the PyTorch hook's GPU test, which now checks what the hook leaves on after its
#   attributed steps, and the attribution's cost in 3 rounds (#35, after 8ba656e); the
#   no-flag GPT-2 run and the trace in 2 paired rounds (#33: a default's first step
#   against the trace of its own call, twice).
# part5: ViT's host-bound steady steps split (#32, #33): unprofiled, the trace, the trace
#   without API records, kernels only, torch.profiler (CUDA activities), no flags, 2 paired
#   rounds of 8 steps (19 runs of the model, about 4-5 minutes).
# part6: ncu's application replay of GPT-2's warm step (#32), to read against the no-flag
#   recording of the same GPU model: `python3 bench/ncu_agreement.py
#   OUT/sol/<gpu>-gpt2-app-ncu-breakdown.csv.gz tests/data/real/<gpu>-gpt2-default.sqlite`.
# part7: the lead of docs/counters.md (#32): the verdict set with L2 tag requests in place
#   of the L2-to-crossbar part (`dt`, still one pass) beside the default (`d`) on GPT-2 (12
#   steps) and ViT (vit:32:6, 4 steps), each profile read against every ncu reference of
#   this GPU model shipped in tests/data/real or made by part6 in the same OUT
#   (bench/ncu_agreement.py); the profiles stay in OUT/tag.
# Logs and profiles go to OUT; each part ends with a short summary (OUT/summary-PART.txt);
# the device tool brings back at most 8 files: tar OUT into one in the same command.
# The tree and the whole build exceed the device tool's 64 MiB: carry a staged BUILD, e.g.
#   mkdir -p build-dev/lib build-dev/tests && cp -a build/lib/*.so* build-dev/lib/ &&
#   cp -a build/{bin,examples,device-libs,COMMIT,share,hta} build-dev/ &&
#   cp -a build/tests/gpu build-dev/tests/      (26 MB; carry ["build-dev"])
# HTA here: mkdir -p build/hta && git --git-dir=<fetch of facebookresearch/HolisticTraceAnalysis>
#   archive HEAD hta | tar x -C build/hta, and carry build/hta.
set -u
build=$(cd "${1:?BUILD}" && pwd)
out=${2:?OUT}
part=${3:?part1 to part7}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export LD_LIBRARY_PATH=$build/device-libs:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
summary=$out/summary-$part.txt
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "$(date -u +%Y-%m-%dT%H:%MZ) gpu: ${gpu:-none} commit: $(cat "$build/COMMIT" 2>/dev/null)" |
  tee "$summary"
step() {  # NAME LIMIT_S COMMAND...: runs it, logs to OUT/NAME.log, notes rc and seconds
  local name=$1 limit=$2 t0=$SECONDS
  shift 2
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  echo "$name: rc=$? $((SECONDS - t0)) s" | tee -a "$summary"
}
case "$part" in
  part1)
    step torch_hook 240 bash "$repo/tests/gpu/torch_hook.sh" "$build"
    tail -n 10 "$out/torch_hook.log" >>"$summary"
    step source_test 180 "$build/tests/gpu/source_test"
    grep -E '^\[ +(OK|FAILED|SKIPPED) +\] .* ms\)|busy_kernel|mixed_kernel' "$out/source_test.log" >>"$summary"
    step fault_test 180 "$build/tests/gpu/fault_test" --gtest_filter='*Sigkill*:*Segfault*'
    grep -E '^\[ +(OK|FAILED|SKIPPED) +\] .* ms\)' "$out/fault_test.log" >>"$summary"
    OVERHEAD_TORCH_ONLY=1 step add_loop 240 python3 "$here/overhead.py" "$build" 5
    tail -n 15 "$out/add_loop.log" >>"$summary"
    ;;
  part2)
    step torch_attribution 420 python3 "$here/torch_attribution.py" "$build" "$out/attr" 3 12
    grep -v '^<!--' "$out/torch_attribution.log" | head -30 >>"$summary"
    grep "cuscope hook: " "$out/torch_attribution.log" | sort -u >>"$summary"
    profile=$(ls "$out"/attr/pytorch-*.sqlite 2>/dev/null | tail -1)
    if [ -n "$profile" ] && [ -d "$build/hta" ]; then
      mkdir -p "$out/hta"
      "$build/bin/cuscope" export "$profile" --chrome -o "$out/hta/rank0.json" >/dev/null 2>&1
      step hta 120 python3 "$repo/bench/hta_steps.py" "$build/hta" "$out/hta"
      grep -E 'rank|ProfilerStep#[0-9]+:|HTA found|FAIL' "$out/hta.log" | head -8 >>"$summary"
      rm -f "$out/hta/rank0.json"
    fi
    step gpt2_default 150 python3 "$here/default_cost.py" "$build" "$out/gpt2" gpt2 12 u,t,d
    step vit_default 150 python3 "$here/default_cost.py" "$build" "$out/vit" vit:32:6 4 u,t,d
    tail -n 6 "$out/gpt2_default.log" "$out/vit_default.log" >>"$summary"
    ;;
  part3)
    step rss_2m 240 bash "$here/rss_2m.sh" "$build"
    cat "$out/rss_2m.log" >>"$summary"
    # ncu's CSV on stdout, its own lines on stderr (as bench/device/record_real.sh).
    t0=$SECONDS
    timeout 200 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --nvtx \
      --print-units base --csv --page raw -k 'regex:gemm|xmma|nvjet|cutlass|sm90|Kernel' \
      python3 "$here/gemm_precisions.py" 4096,8192 1 >"$out/h100-gemm-ncu-sol.csv" \
      2>"$out/gemm_ncu.err"
    echo "gemm_ncu: rc=$? $((SECONDS - t0)) s, $(grep -c '^"' "$out/h100-gemm-ncu-sol.csv") csv rows" |
      tee -a "$summary"
    DEFAULT_COST_ROUNDS=3 step gpt2_rounds 300 python3 "$here/default_cost.py" "$build" \
      "$out/gpt2r" gpt2 12 u,t,d
    tail -n 6 "$out/gpt2_rounds.log" >>"$summary"
    ;;
  part4)
    step torch_hook 180 bash "$repo/tests/gpu/torch_hook.sh" "$build"
    tail -n 12 "$out/torch_hook.log" >>"$summary"
    step torch_attribution 300 python3 "$here/torch_attribution.py" "$build" "$out/attr" 3 12
    grep -v '^<!--' "$out/torch_attribution.log" | head -30 >>"$summary"
    grep "cuscope hook: " "$out/torch_attribution.log" | sort -u >>"$summary"
    DEFAULT_COST_ROUNDS=2 step gpt2_defaults 240 python3 "$here/default_cost.py" "$build" \
      "$out/gpt2r" gpt2 12 u,t,d
    tail -n 6 "$out/gpt2_defaults.log" >>"$summary"
    ;;
  part5)
    DEFAULT_COST_ROUNDS=2 step vit_parts 420 python3 "$here/default_cost.py" "$build" \
      "$out/vitp" vit:32:6 8 u,t,ta,tk,tp,d
    tail -n 16 "$out/vit_parts.log" >>"$summary"
    rm -f "$out"/vitp/*.sqlite
    ;;
  part6)
    step gpt2_app_replay 590 python3 "$here/sol_breakdown.py" "$out/sol" gpt2 --replay application
    tail -n 14 "$out/gpt2_app_replay.log" >>"$summary"
    ;;
  part7)
    step tag_gpt2 300 python3 "$here/default_cost.py" "$build" "$out/tag" gpt2 12 u,d,dt
    step tag_vit 240 python3 "$here/default_cost.py" "$build" "$out/tag" vit:32:6 4 u,d,dt
    grep '^|' "$out/tag_gpt2.log" "$out/tag_vit.log" >>"$summary"
    g=$(echo "$gpu" | grep -o 'H[12]00' | tr 'H' 'h')
    for model in gpt2 vit; do
      profile_of=$model
      [ "$model" = vit ] && profile_of=vit_32_6
      for ref in "$repo"/tests/data/real/"$g"-"$model"-*ncu-breakdown.csv.gz \
        "$out"/sol/"$g"-"$model"-*ncu-breakdown.csv.gz; do
        [ -e "$ref" ] || continue
        for key in d dt; do
          echo "$(basename "$ref") ~ $profile_of-$key:" >>"$summary"
          python3 "$repo/bench/ncu_agreement.py" "$ref" "$out/tag/$profile_of-$key.sqlite" \
            "$build/bin/cuscope" 2>&1 | head -6 >>"$summary"
        done
      done
    done
    ;;
  *) echo "open_issues.sh: part1 to part7, not '$part'" >&2; exit 2 ;;
esac
cat "$summary"
