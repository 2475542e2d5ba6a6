#pragma once

// How the passes run their groups' products: side by side on the threads, or one after another.

#include "layer/eigen_types.h"
#include "layer/sharding_plan.h"

#include <omp.h>

namespace tp {

/// Runs work(task) for every task in [0, count): side by side on the threads, each task on one
/// thread, where `sideBySide`; otherwise one after another on the calling thread, outside any
/// parallel region, so that each task's products use the threads as they would alone. Inside even
/// an inactive region (`omp parallel if (false)`), OpenBLAS's OpenMP build ran the column split's
/// one (256, 1024, 4096) product at 1.27x to 1.51x its time alone on an AMD EPYC with AVX2.
template <typename Work>
void forEachTask(Index count, bool sideBySide, Work&& work) {
    if (!sideBySide) {
        for (Index task = 0; task < count; ++task)
            work(task);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1)
    for (Index task = 0; task < count; ++task)
        work(task);
}

/// The groups one product runs side by side where the threads share a split's groups: with tp a
/// multiple of the threads and the groups in place (ShardingPlan::groupsInPlace), tp / threads, a
/// run of neighbouring groups for each thread, read as one product that packs its shared factor
/// (x, or dy) once instead of once per group; otherwise 1. A column of a product reads only its
/// column of the second factor (a row only its row of the first), so each group's block of a run's
/// product is its own product, summed over the same terms.
inline Index groupRunLength(const ShardingPlan& plan) {
    const Index threads = omp_get_max_threads();
    const bool runs = threads > 1 && plan.tpSize % threads == 0 && plan.groupsInPlace();
    return runs ? plan.tpSize / threads : 1;
}

}  // namespace tp
