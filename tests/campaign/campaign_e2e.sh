#!/usr/bin/env bash
# End-to-end campaign test, the same flow on both engines (issue 20):
#   campaign_e2e.sh local|slurm ASMEVO SOURCE_DIR BUILD_DIR
# 6 corpus kernels (gfx942) from three input forms — a list file (HIP), a Triton cache layout
# (<hash>/X.hsaco + X.json, specs from --specs) and a plain folder (X.co beside X.yaml) — tiny budgets
# except one task that is interrupted midway: on Slurm by `scancel` of its array task, locally by
# SIGKILL of the engine. Then: it is reported failed with the reason; resubmission resumes it from
# its store (and only it: finished tasks are never redone); a further submission has nothing to do;
# status, report, deploy; every optimized object re-verifies EQUIVALENT with `asmevo verify`.
# Slurm mode starts a private single-node cluster (slurm_cluster.sh) and tears it down on any exit.
set -euo pipefail
engine="${1:?local|slurm}"; asmevo="${2:?ASMEVO}"; src="${3:?SOURCE_DIR}"; bin="${4:?BUILD_DIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d /tmp/asmevo-campaign-$engine.XXXXXX)"
engine_pid=""
cleanup() {
  local rc=$?
  if [ -n "$engine_pid" ]; then kill "$engine_pid" 2>/dev/null || true; wait "$engine_pid" 2>/dev/null || true; fi
  if [ "$engine" = slurm ]; then "$here/slurm_cluster.sh" stop "$tmp/cluster" || true; fi
  if [ $rc -ne 0 ]; then
    echo "--- FAILED (exit $rc); task logs:" >&2
    for f in "$tmp"/c/tasks/*/log.txt; do [ -f "$f" ] && { echo "== $f" >&2; tail -5 "$f" >&2; }; done
    for f in "$tmp"/cluster/slurmctld.log "$tmp"/cluster/slurmd.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -15 "$f" >&2; }; done
  fi
  rm -rf "$tmp"
  exit $rc
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { "$asmevo" campaign status "$tmp/c" --json; }
# field TASK KEY: one field of one task from `campaign status --json`
field() { json | python3 -c 'import json,sys; t=[t for t in json.load(sys.stdin)["tasks"] if t["id"]==sys.argv[1]][0]; print(t[sys.argv[2]])' "$1" "$2"; }
all_states() { json | python3 -c 'import json,sys; print(" ".join(t["id"]+"="+t["state"] for t in json.load(sys.stdin)["tasks"]))'; }
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2; shift 2
  for _ in $(seq $((limit * 5))); do "$@" && return 0; sleep 0.2; done
  fail "timed out after ${limit}s waiting for $what (states: $(all_states))"
}

arch=gfx942
hip="$bin/corpus/hip/$arch"
# Inputs. HIP kernels by a list file (paths relative to it).
mkdir -p "$tmp/in/hip" "$tmp/in/plain" "$tmp/in/triton-cache"
cp "$hip/vector_add.co" "$hip/relu.co" "$src/corpus/hip/launch/vector_add.yaml" "$src/corpus/hip/launch/relu_f32.yaml" "$tmp/in/hip/"
printf '# object spec\nvector_add.co vector_add.yaml\nrelu.co relu_f32.yaml\n' > "$tmp/in/hip/tasks.list"
# A Triton cache: <hash>/<kernel>.hsaco with its metadata; the specs come from --specs.
for k in vector_add_kernel gelu_add_kernel; do
  h="$(sha256sum "$src/corpus/triton/$arch/$k.hsaco" | cut -c1-32)"
  mkdir -p "$tmp/in/triton-cache/$h"
  cp "$src/corpus/triton/$arch/$k.hsaco" "$src/corpus/triton/$arch/$k.json" "$tmp/in/triton-cache/$h/"
done
mkdir -p "$tmp/in/triton-specs"
cp "$src/corpus/triton/launch/vector_add_kernel.yaml" "$src/corpus/triton/launch/gelu_add_kernel.yaml" "$tmp/in/triton-specs/"
# A plain folder: X.co beside X.yaml (layernorm), and a spec whose kernel one object of the folder
# defines (axpy.co holds axpy_f32 and axpy_f64; only axpy_f32 has a spec). `long` gets interrupted:
# layernorm's candidates are among the slower ones (~5/s here), so the interruption lands midway.
cp "$hip/layernorm.co" "$hip/axpy.co" "$src/corpus/hip/launch/axpy_f32.yaml" "$tmp/in/plain/"
cp "$src/corpus/hip/launch/layernorm_f32.yaml" "$tmp/in/plain/layernorm.yaml"
long=layernorm_f32
long_budget=100

"$asmevo" campaign init "$tmp/in/hip/tasks.list" "$tmp/in/triton-cache" "$tmp/in/plain" --specs "$tmp/in/triton-specs" \
  --budget 3 -o "$tmp/c" > "$tmp/init.txt"
cat "$tmp/init.txt"
grep -q "6 task(s)" "$tmp/init.txt" || fail "init did not find 6 tasks"
# The user edits the manifest: the long task gets a larger budget and runs first.
python3 - "$tmp/c/campaign.yaml" "$long" "$long_budget" <<'PY'
import sys, yaml
path, long = sys.argv[1], sys.argv[2]
m = yaml.safe_load(open(path))
for t in m["tasks"]:
    if t["id"] == long: t["budget"] = int(sys.argv[3]); t["priority"] = 10
open(path, "w").write(yaml.safe_dump(m, sort_keys=False))
PY
[ "$(field $long budget)" = "$long_budget" ] || fail "the edited budget was not read"
[ "$(json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tasks"]))')" = 6 ] || fail "status does not list 6 tasks"

# The long task is reported running and has stored candidates (one status call, so the kill comes quickly).
long_running() { json | python3 -c 'import json,sys; t=[t for t in json.load(sys.stdin)["tasks"] if t["id"]==sys.argv[1]][0]; sys.exit(0 if t["state"]=="running" and t["candidates"]>=1 else 1)' "$long"; }
done_now() { json | python3 -c 'import json,sys; print(" ".join(t["id"] for t in json.load(sys.stdin)["tasks"] if t["state"]=="done"))'; }
state_is() { [ "$(field "$1" state)" = "$2" ]; }
others_done() { json | python3 -c 'import json,sys; sys.exit(0 if all(t["state"]=="done" for t in json.load(sys.stdin)["tasks"] if t["id"]!=sys.argv[1]) else 1)' "$long"; }
everything_done() { json | python3 -c 'import json,sys; sys.exit(0 if all(t["state"]=="done" for t in json.load(sys.stdin)["tasks"]) else 1)'; }

if [ "$engine" = slurm ]; then
  mkdir -p "$tmp/cluster"
  cluster_env="$("$here/slurm_cluster.sh" start "$tmp/cluster")" || fail "the Slurm cluster did not start (the reason is above)"
  eval "$cluster_env"
  "$asmevo" campaign run "$tmp/c" --engine slurm --array-max 2 --time 10:00 > "$tmp/run1.txt"
  cat "$tmp/run1.txt"
  job="$(sed -n 's/^submitted job array \([0-9]*\) .*/\1/p' "$tmp/run1.txt")"
  [ -n "$job" ] || fail "no job id in the submission output"
  grep -q -- "--array=0-5%2" "$tmp/c/slurm/array-1.sh" || fail "the array script does not hold one array of 6 tasks at most 2 at once"
  # The long task has priority 10: it is index 0 of the array.
  [ "$(head -1 "$tmp/c/slurm/array-1.tasks")" = "$long" ] || fail "the priority task is not first in the array"
  wait_for 120 "the long task to run and store candidates" long_running
  scancel "${job}_0"
  wait_for 60 "the cancelled task to leave the queue" state_is $long failed
  reason="$(field $long reason)"; echo "cancelled task: $reason"
  echo "$reason" | grep -q "SIGTERM" || fail "the failure reason does not say it was killed: $reason"
  echo "$reason" | grep -q "CANCELLED" || fail "the failure reason does not carry Slurm's verdict: $reason"
  wait_for 240 "the other tasks to finish" others_done
  done_before="$(done_now)"
  before="$(field $long candidates)"
  "$asmevo" campaign run "$tmp/c" --engine slurm --array-max 2 > "$tmp/run2.txt"
  cat "$tmp/run2.txt"
  grep -q "(1 task(s), 1 resuming from their stores" "$tmp/run2.txt" || fail "resubmission did not resubmit only the cancelled task"
  [ "$(cat "$tmp/c/slurm/array-2.tasks")" = "$long" ] || fail "array 2 does not hold exactly the cancelled task"
  wait_for 300 "the resumed task to finish" everything_done
else
  # Local: the engine is killed with SIGKILL while the long task runs; its tasks die with it.
  "$asmevo" campaign run "$tmp/c" --engine local --jobs 2 > "$tmp/run1.txt" 2>&1 &
  engine_pid=$!
  wait_for 120 "the long task to run and store candidates" long_running
  kill -9 "$engine_pid"; wait "$engine_pid" 2>/dev/null || true; engine_pid=""
  wait_for 30 "the killed task to stop" state_is $long failed
  done_before="$(done_now)"  # a kill never makes a task done: these were done before it
  reason="$(field $long reason)"; echo "killed task: $reason"
  echo "$reason" | grep -q "SIGTERM" || fail "the failure reason does not say it was killed: $reason"
  before="$(field $long candidates)"
  "$asmevo" campaign run "$tmp/c" --engine local --jobs 2 > "$tmp/run2.txt" 2>&1 || { cat "$tmp/run2.txt"; fail "the second run failed"; }
  cat "$tmp/run2.txt"
  everything_done || fail "not every task is done after the second run: $(all_states)"
fi

# The interrupted task resumed from its store: its second attempt kept the first one's candidates.
grep -q "resuming from its store" "$tmp/c/tasks/$long/log.txt" || fail "the second attempt did not resume"
after="$(field $long candidates)"
[ "$(field $long attempts)" = 2 ] || fail "the long task ran $(field $long attempts) attempts, not 2"
[ "$before" -lt "$long_budget" ] || fail "the interruption came too late: $before of $long_budget candidates were done"
[ "$after" = "$long_budget" ] || fail "after resuming the long task has $after candidates, not its budget $long_budget"
echo "long task: $before candidates before the interruption, $after after resuming"
# Tasks done before the interruption were never redone (one attempt each); the others resumed (two).
echo "done before the interruption: $done_before"
json | python3 -c '
import json, sys
done_before = set(sys.argv[1].split())
for t in json.load(sys.stdin)["tasks"]:
    if t["id"] in done_before and t["attempts"] != 1: sys.exit("task %s was done but ran again (%d attempts)" % (t["id"], t["attempts"]))
    if t["attempts"] not in (1, 2): sys.exit("task %s ran %d attempts" % (t["id"], t["attempts"]))
    if t["candidates"] < 1 or not t["final_verdict"]: sys.exit("task %s has no result" % t["id"])
' "$done_before" || fail "a finished task was redone, or a task has no result"
# Nothing left to do.
if [ "$engine" = slurm ]; then
  "$asmevo" campaign run "$tmp/c" --engine slurm | tee "$tmp/run3.txt" | grep -q "nothing to submit" || fail "a third submission was not empty"
else
  "$asmevo" campaign run "$tmp/c" --engine local | tee "$tmp/run3.txt" | grep -q "0 task(s) to run" || fail "a third run was not empty"
fi

"$asmevo" campaign status "$tmp/c" | tee "$tmp/status.txt"
grep -q "6 done" "$tmp/status.txt" || fail "status does not say 6 done"
"$asmevo" campaign report "$tmp/c" -o "$tmp/report.html"
grep -q "Geomean speedup over the 6 done task" "$tmp/report.html" || fail "the report has no geomean over 6 tasks"
[ "$(grep -c 'href="c/tasks/' "$tmp/report.html")" = 6 ] || fail "the report does not link 6 task reports"
for t in $(json | python3 -c 'import json,sys; print(" ".join(t["id"] for t in json.load(sys.stdin)["tasks"]))'); do
  [ -f "$tmp/c/tasks/$t/out.html" ] || fail "no report for $t"
done

# Every result re-verifies against its original, independently of the optimizer.
json | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tasks"]:
    print(t["object"], t["output"], *t["specs"])' | while read -r object output specs; do
  args=(); for s in $specs; do args+=(--launch "$s"); done
  "$asmevo" verify "$object" "$output" "${args[@]}" > "$tmp/verify.txt" 2>&1 || { cat "$tmp/verify.txt"; fail "$output does not re-verify against $object"; }
  grep -q EQUIVALENT "$tmp/verify.txt" || fail "verify of $output did not say EQUIVALENT"
done
echo "all 6 results re-verify EQUIVALENT"

# Deploy hands winners to `asmevo deploy` (issue 18) where this build has it, else says it has not.
if "$asmevo" --help | grep -qE '^  deploy '; then
  "$asmevo" campaign deploy "$tmp/c" --to triton "$tmp/in/triton-cache" -o "$tmp/override" --dry-run | tee "$tmp/deploy.txt"
else
  set +e; "$asmevo" campaign deploy "$tmp/c" --to triton "$tmp/in/triton-cache" -o "$tmp/override" > "$tmp/deploy.txt" 2>&1; rc=$?; set -e
  cat "$tmp/deploy.txt"
  if grep -q "no winners to deploy" "$tmp/deploy.txt"; then [ $rc = 0 ] || fail "deploy without winners failed";
  else [ $rc = 2 ] && grep -q "has no \`deploy\` command" "$tmp/deploy.txt" || fail "deploy without the deploy command did not fail clearly (exit $rc)"; fi
fi
echo "PASS ($engine)"
