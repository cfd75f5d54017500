#!/usr/bin/env bash
# Forty-second session, call f (CPU only): the three libFuzzer targets,
# built here by scripts/fuzz.sh's configuration at 232c41b's parser and
# transform (array-element operands, declarations without ';', raised
# directives) and carried as build-fuzz/test/fuzz, on the device machine's
# 16 cores for 300 s, 5 workers a target, seeded with the repository's
# corpus and the 252 collected modules (wild-ptx/).
set -u
cd "$(dirname "$0")/../../.."
L=$OUT/f; mkdir -p $L
for t in Parse RoundTrip Transform; do
  mkdir -p /tmp/fz/corpus-$t && find wild-ptx -name '*.ptx' -exec cp {} /tmp/fz/corpus-$t/ \;
done
bash scripts/fuzz-parallel.sh build-fuzz/test/fuzz 300 5 /tmp/fz | tee $L/fuzz.txt
for t in Parse RoundTrip Transform; do
  cp -r /tmp/fz/crashes-$t $L/ 2>/dev/null
  grep -h "^stat::number_of_executed_units\|^stat::peak_rss" /tmp/fz/logs-$t/fuzz-*.log > $L/stats-$t.txt 2>/dev/null
done
cd $OUT && tar czf f.tgz f && rm -rf f
