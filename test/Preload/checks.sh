# Sourced by the GPU scripts of test/Preload. `check NAME EXPR` evaluates the
# shell expression EXPR, prints "PASS: NAME" or "FAIL: NAME" and counts it;
# `checks_done` prints the counts and returns nonzero if a check failed.
passed=0 failed=0
check() {
  if eval "$2"; then
    echo "PASS: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1"
    failed=$((failed + 1))
  fi
}
checks_done() {
  echo "$passed passed, $failed failed"
  ((failed == 0))
}
