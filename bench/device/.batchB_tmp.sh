export LD_LIBRARY_PATH=$PWD/build/device-libs:$LD_LIBRARY_PATH
cat build/COMMIT
echo "== rss"; timeout 120 bash bench/device/rss_2m.sh build 2>&1 | tail -5
echo "== gpu_test"; timeout 300 build/tests/gpu/gpu_test > $OUT/gpu_test.log 2>&1; echo rc=$?; grep -E '^\[ +(OK|FAILED|SKIPPED) +\]|PASSED|FAILED TEST' $OUT/gpu_test.log | sort -u | grep -v " OK " ; grep -c " OK " $OUT/gpu_test.log
