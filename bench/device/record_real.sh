#!/usr/bin/env bash
# Records real workloads on the GPU machine for the verdict and counter work (issues 10
# and 11), next to ncu on the same kernels. Usage: bench/device/record_real.sh BUILD OUT
#   OUT/gemm.sqlite        cuscope --metrics=roofline over gemm_precisions.py
#   OUT/gemm-ncu.csv       ncu --section SpeedOfLight (raw) over the same script
#   OUT/gpt2-trace.sqlite  cuscope (trace only) over 4 GPT-2 training steps
#   OUT/gpt2-ncu.csv       ncu SpeedOfLight on the kernels of GPT-2's step 3 (NVTX filter)
set -u
build=$(cd "${1:?BUILD}" && pwd); out=${2:?OUT}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
cus=$build/bin/cuscope
ncu=/usr/local/cuda/bin/ncu
export PYTHONUNBUFFERED=1
"$cus" run --output="$out/gemm.sqlite" --metrics=roofline --report=none -- \
  python3 "$here/gemm_precisions.py" 4096,8192 2 >"$out/gemm.log" 2>&1
echo "gemm under cuscope: rc=$? $(grep -c . "$out/gemm.log") lines"
# The raw metrics a per-precision verdict needs (names from the Host API on GH100).
raw=sm__ops_path_tensor_src_fp16.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum
raw=$raw,sm__ops_path_tensor_src_tf32_dst_fp32.sum,sm__ops_path_tensor_src_fp8.sum
raw=$raw,sm__ops_path_tensor_src_int8.sum,sm__ops_path_tensor_src_fp64.sum
raw=$raw,sm__ops_path_tensor_src_fp8_sparsity_off.sum.peak_sustained
raw=$raw,sm__ops_path_tensor_src_fp64.sum.peak_sustained,sm__cycles_elapsed.max
raw=$raw,sm__throughput.avg.pct_of_peak_sustained_elapsed
raw=$raw,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
raw=$raw,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
raw=$raw,sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active
"$cus" run --output="$out/gemm-raw.sqlite" --metrics="$raw" --report=none -- \
  python3 "$here/gemm_precisions.py" 4096,8192 1 >"$out/gemm-raw.log" 2>&1
echo "gemm raw metrics: rc=$? $(tail -2 "$out/gemm-raw.log" | tr '\n' ' ')"
timeout 400 "$ncu" --clock-control none --section SpeedOfLight --nvtx --print-units base \
  --csv --page raw -k 'regex:gemm|xmma|nvjet|cutlass|sm90|Kernel' --launch-skip 0 \
  python3 "$here/gemm_precisions.py" 4096,8192 1 >"$out/gemm-ncu.csv" 2>"$out/gemm-ncu.err"
echo "gemm under ncu: rc=$? $(wc -l <"$out/gemm-ncu.csv") csv lines"
"$cus" run --output="$out/gpt2-trace.sqlite" --report=none -- \
  python3 "$here/gpt2_step.py" 4 >"$out/gpt2.log" 2>&1
echo "gpt2 traced: rc=$? $(tail -1 "$out/gpt2.log")"
timeout 300 "$ncu" --clock-control none --section SpeedOfLight --nvtx --print-units base \
  --csv --page raw --launch-skip 0 --launch-count 400 \
  python3 "$here/gpt2_step.py" 2 >"$out/gpt2-ncu.csv" 2>"$out/gpt2-ncu.err"
echo "gpt2 under ncu: rc=$? $(wc -l <"$out/gpt2-ncu.csv") csv lines"
