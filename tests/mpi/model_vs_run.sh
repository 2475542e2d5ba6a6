#!/bin/sh
# The cost model against real runs of tpviz-mpi on 2 ranks of this machine. Not a test: it prints
# the table of docs/costs.md.
#   sh tests/mpi/model_vs_run.sh [BUILD_DIR] [HARDWARE.json] [RANK_WRAPPER]
# For each collective (row replicated: all-reduce; column replicated: all-gather; row sharded:
# reduce-scatter) on arrays of 4 KiB to 64 MiB (batch 16, features V / 64, in_dim 8), and for the
# products of a few shapes, the estimate of --costs on the preset (resources/hardware/
# this-machine.json by default) against what the ranks measured: the slowest rank's
# communication_s, or compute_s for a product, the median of 5 runs, and predicted / measured.
# RANK_WRAPPER, when given, is a program each rank runs tpviz-mpi through, given the command line
# (two_hosts.sh's enters the rank's network namespace); mpirun's settings come from the environment.
set -eu
build=${1:-build}
hardware=${2:-$(dirname "$0")/../../resources/hardware/this-machine.json}
wrapper=${3:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1

# run WHAT ARGS...: five runs, one line of the table.
run() {
    what=$1
    shift
    for i in 1 2 3 4 5; do
        mpirun -n 2 ${wrapper:+"$wrapper"} "$build/app/mpi/tpviz-mpi" "$@" --tp 2 --summary \
            --json --costs --hardware "$hardware" 2>/dev/null || true
    done | python3 -c '
import json, sys
what = sys.argv[1]
decoder, text, runs = json.JSONDecoder(), sys.stdin.read(), []
while text.strip():
    doc, end = decoder.raw_decode(text.lstrip())
    text = text.lstrip()[end:]
    runs.append(doc)
key = "compute_s" if what == "product" else "communication_s"
measured = sorted(max(r[key] for r in doc["ranks"]) for doc in runs)[len(runs) // 2]
e = runs[0]["costs"]["estimate"]
predicted = e[key]
c = runs[0]["config"]
if what == "product":
    name = "product (%d, %d) @ (%d, %d) %s" % (c["batch"], c["in_dim"] // (2 if c["mode"] == "row" else 1),
        c["in_dim"] // (2 if c["mode"] == "row" else 1), c["features"] // (1 if c["mode"] == "row" else 2),
        e["product"]["bound"] + "-bound")
else:
    v = c["batch"] * c["features"] * 4
    name = "%s %s" % (runs[0]["costs"]["collective"]["name"],
        "%d KiB" % (v >> 10) if v < 1 << 20 else "%d MiB" % (v >> 20))
def t(s):
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if s >= scale: return "%.3g %s" % (s / scale, unit)
    return "%.3g ns" % (s / 1e-9)
print("| %-44s | %10s | %10s | %5.2f |" % (name, t(predicted), t(measured), predicted / measured))
' "$what"
}

printf '| %-44s | %10s | %10s | %5s |\n' "what" predicted measured ratio
printf '| %-44s | %10s | %10s | %5s |\n' "---" "---" "---" "---"
for layout in "row replicated" "column replicated" "row sharded"; do
    set -- $layout
    for features in 64 1024 16384 262144 1048576; do  # V = 4 KiB, 64 KiB, 1 MiB, 16 MiB, 64 MiB
        run collective --batch 16 --in-dim 8 --features "$features" --mode "$1" --output "$2"
    done
done
for shape in "8 4096 16384 row" "64 4096 16384 row" "256 1024 4096 column" \
    "1024 1024 1024 column" "2 8192 8192 column"; do
    set -- $shape
    run product --batch "$1" --in-dim "$2" --features "$3" --mode "$4"
done
