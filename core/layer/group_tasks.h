#pragma once

// How the passes run their groups' products: side by side on the threads, or one after another.

#include "layer/eigen_types.h"

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

}  // namespace tp
