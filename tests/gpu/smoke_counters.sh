export LD_LIBRARY_PATH=$PWD/build/device-libs:$LD_LIBRARY_PATH
B=build; C=$B/bin/cuscope
M6=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
for t in api kernel,api memcpy,memset,sync,nvtx,api; do
echo "== trace=$t"; timeout 100 $C run --output=$OUT/rot.sqlite --trace=$t --report=none --verbose=1 --metrics=$M6 --per_signature=all -- $B/examples/counters_demo 8 0 0 2>&1 | grep "decode\|saxpy(" | cut -c1-450 | head -6
done
