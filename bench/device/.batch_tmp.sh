export LD_LIBRARY_PATH=$PWD/build/device-libs:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name --format=csv,noheader; cat build/COMMIT; date -u
mkdir -p /tmp/b $OUT/keep
echo "== source tests"; OUT=/tmp/b/src timeout 120 bash tests/gpu/run.sh source 2>&1 | tail -12
cp /tmp/b/src/source_test.log $OUT/keep/ 2>/dev/null
ls /tmp/b/src
echo "== source hotspots example"; timeout 60 build/bin/cuscope run --source -o $OUT/keep/source-hotspots.sqlite --report=none -- build/examples/source_hotspots 20 2>&1 | tail -3
build/bin/cuscope report $OUT/keep/source-hotspots.sqlite --source 2>&1 | head -30
echo "== torch hook"; timeout 150 bash tests/gpu/torch_hook.sh build 2>&1 | tail -12
echo "== attribution"; timeout 150 python3 bench/device/torch_attribution.py build /tmp/b/attr 2 12 2>&1 | tail -25
cp /tmp/b/attr/pytorch-1.sqlite $OUT/keep/gpt2-pytorch.sqlite 2>/dev/null; ls /tmp/b/attr
echo "== rss"; timeout 90 bash bench/device/rss_2m.sh build 2>&1 | tail -4
