#!/usr/bin/env bash
# Issue 27's GPU proof in device calls of under 600 s each, from the repository root on the GPU machine:
#   OUT=/some/dir RPL_BIN_DIR=.devbuild/lib PHASES="timing hostile prompts corpus" bash bench/optimize/issue27_gpu_batch.sh
#   OUT=/some/dir RPL_BIN_DIR=.devbuild/lib PHASES=oracle KERNELS="stencil matmul conv2d transpose" bash ...
# Phases: timing, hostile, corpus (scripts/gpu/optimizer_corpus.sh), prompts (the LLM proposer through the replay
# server on matmul and transpose, whose prompts prompt_facts.py checks) and oracle (oracle/unroll_oracle.sh).
# Each phase writes under $OUT/<phase>/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
: "${OUT:?set OUT}" "${RPL_BIN_DIR:?set RPL_BIN_DIR}"
RPL_BIN_DIR=$(cd "$RPL_BIN_DIR" && pwd)
export RPL_BIN_DIR
PHASES=${PHASES:-"timing hostile prompts corpus"}
mkdir -p "$OUT"
T0=$(date +%s)
for phase in $PHASES; do
  echo "[$(( $(date +%s) - T0 ))s] phase $phase"
  case $phase in
    timing|hostile|corpus)
      OUT="$OUT/$phase" SUITES=$phase WORK=/tmp/rpl-27-$phase BUDGET=${CORPUS_BUDGET:-540} bash "$ROOT/scripts/gpu/optimizer_corpus.sh" ;;
    prompts)
      OUT="$OUT/prompts" KINDS=genuine CASES="matmul_tiled transpose_tiled" bash "$ROOT/bench/optimize/llm_gpu_suite.sh"
      for c in matmul_tiled transpose_tiled; do
        t="$OUT/prompts/llm-suite/cases/$c/opt/llm-transcript.jsonl"
        [ -f "$t" ] && python3 "$ROOT/bench/optimize/prompt_facts.py" "$t" "$OUT/prompts/prompt-$c.txt" >"$OUT/prompts/prompt-$c-checks.txt" 2>&1
        echo "prompt $c: exit $? $(tail -1 "$OUT/prompts/prompt-$c-checks.txt" 2>/dev/null)"
      done ;;
    oracle)
      OUT="$OUT/oracle" BUDGET=${ORACLE_BUDGET:-480} bash "$ROOT/bench/optimize/oracle/unroll_oracle.sh" ;;
    *) echo "unknown phase $phase" ;;
  esac
done
echo "[$(( $(date +%s) - T0 ))s] all phases done"
