#!/usr/bin/env bash
# Polls the profile's kernel count while counters_demo runs (idle callbacks wake probe).
B=build; O=${1:-/tmp/idle}; mkdir -p $O
poll() { python3 - "$1" <<'PY'
import sqlite3, sys, time, os
p = sys.argv[1]; t0 = time.time(); seen = []
while time.time() - t0 < 9:
    n = None
    if os.path.exists(p):
        try: n = sqlite3.connect(p, timeout=0.05).execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
        except Exception as e: n = "busy"
    seen.append(f"{time.time()-t0:.1f}:{n}")
    time.sleep(0.25)
print(" ".join(seen))
PY
}
for spec in "kernel" "rotate" "kernel --buffer-size=64K" "trace"; do
  set -- $spec; mode=$1; shift
  f=$O/$mode$#.sqlite; rm -f $f
  if [ $mode = trace ]; then m="--metrics=none"; else m="--metrics=roofline --per-signature=1 --replay=$mode"; fi
  ( CUSCOPE_VERBOSE=1 $B/bin/cuscope run --output=$f --report=none $m --idle-launches=200 --flush-period-ms=200 "$@" -- $B/examples/counters_demo 0 0 3000 1500 60 > $O/$mode$#.log 2>&1 ) &
  pid=$!
  echo "== $spec"; poll $f; wait $pid; grep -E "idle|back on|WALL" $O/$mode$#.log | head -5
  python3 -c "import sqlite3;d=sqlite3.connect('$f');print('kernels',d.execute('select count(*) from kernels').fetchone()[0], d.execute(\"select value from meta where key='extra.counters.idle'\").fetchone())"
done
