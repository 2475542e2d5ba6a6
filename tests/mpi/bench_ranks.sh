#!/bin/sh
# Per-rank figures of tpviz-mpi at tp 1, 2 and 4 for a (batch 64, in_dim 4096, features 16384)
# layer in each mode and output layout, beside the cost model's bytes per device. Not a test: it
# prints the table of docs/mpi.md.
#   sh tests/mpi/bench_ranks.sh BUILD_DIR
# Each rank runs one OpenMP thread. The memory budget is set so that rank 0 does not also hold the
# whole layer for the single-process check (each rank checks its own block instead): every rank's
# peak RSS is then its share alone. The exit status of a run whose check fails is not an error here:
# the table shows the largest error and the largest error over its float32 rounding bound.
set -eu
build=${1:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's shared-memory transport copies with CMA (process_vm_readv) where the system allows it,
# as here; where it does not (many containers), add OMPI_MCA_btl_vader_single_copy_mechanism=none.
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1

printf '%-6s %-10s %2s  %12s %12s  %12s %12s  %10s %10s %10s  %-13s %s\n' mode output tp \
    kernel_held kernel_model output_held output_model compute_s comm_s peak_rss max_abs_error \
    error/bound
for layout in "column sharded" "column replicated" "row replicated" "row sharded"; do
    set -- $layout
    for tp in 1 2 4; do
        mpirun -n "$tp" "$build/app/mpi/tpviz-mpi" --batch 64 --in-dim 4096 --features 16384 \
            --tp "$tp" --mode "$1" --output "$2" --summary --json --costs \
            --memory-budget 500000000 2>/dev/null |
            python3 -c '
import json, sys
r = json.load(sys.stdin)
c, ranks, model = r["config"], r["ranks"], r["costs"]["per_device"]
v = r["verification"]
print("%-6s %-10s %2d  %12d %12d  %12d %12d  %10.4f %10.4f %10s  %-13s %.2g%s" % (
    c["mode"], r["costs"]["output_layout"], c["tp_size"],
    max(k["kernel_bytes_held"] for k in ranks), model["kernel_bytes"],
    max(k["output_bytes_held"] for k in ranks), model["output_bytes"],
    max(k["compute_s"] for k in ranks), max(k["communication_s"] for k in ranks),
    "%.0f MiB" % (max(k["peak_rss_bytes"] for k in ranks) / 2**20),
    "%.3g" % v["max_abs_error"], v["max_error_over_bound"],
    "" if v["passed"] else " (over the rounding bound)"))'
    done
done
