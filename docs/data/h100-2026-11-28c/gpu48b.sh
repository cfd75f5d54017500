#!/usr/bin/env bash
# Forty-eighth session, call b (after call a, same machine): the GPT step's
# variant overhead site by site, every launch routed, three ways: as is;
# with BATON_TIME_RUNS_ON_DEVICE=1 (the scheduler's block estimates from
# device-timed runs) under BATON_TRACE=1 for the claim chunks; and with
# BATON_DEPENDENT_FINALIZE=0 (triton_poi_fused__to_copy_9's 5.5 us).
set -u
cd "$(dirname "$0")/../../.."
R=$PWD; L=$OUT/b; mkdir -p $L
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/gpu.txt
export PYTHONPATH=$R/build-torch/python BATON_CACHE_DIR=/tmp/bcache-b
chunks() {
  python3 - "$1" <<'PY'
import collections, re, sys
seen = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r"launch \d+ '([^']+)' form (\d) width (\d+) chunk (\d+)", line)
    if m and m[2] != "0":
        seen[(m[1][:44], m[2], m[3], m[4])] += 1
for (name, form, width, chunk), n in sorted(seen.items()):
    if re.search("sum_7|to_copy_9|view_19|view_22", name):
        print(f"{n:5} form {form} width {width:>6} chunk {chunk:>3}  {name}")
PY
}
run() {
  local tag=$1; shift
  left=$(( 580 - ($(date +%s)-t0) )); [ $left -gt 60 ] || { echo "no time for $tag"; return; }
  env "$@" timeout $left python3 bench/torch/variant_overhead.py --train gpt --scale large > $L/vo-$tag.log 2> $L/vo-$tag.err; echo "vo $tag rc=$? $(( $(date +%s)-t0 ))s"
  grep -E 'geometric|weighted|idle' $L/vo-$tag.log | cut -c1-150
  grep -E '_sum_7#0|_to_copy_9#|cat_transpose_view_19|view_22#0' $L/vo-$tag.log | cut -c1-150
}
run base BATON_TRACE=1
grep "baton-trace.*launch .*form" $L/vo-base.err > $L/launches-base.txt; chunks $L/launches-base.txt
run timed BATON_TRACE=1 BATON_TIME_RUNS_ON_DEVICE=1
grep "baton-trace.*launch .*form" $L/vo-timed.err > $L/launches-timed.txt; chunks $L/launches-timed.txt
run nodep BATON_DEPENDENT_FINALIZE=0
gzip -f $L/*.err
cd $OUT && tar czf b.tgz b && rm -rf b
