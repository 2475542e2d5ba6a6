#pragma once

// A split pass against its reference, timed back to back in each iteration so that their ratio
// is measured under the same machine load.

#include "bench_arrays.h"

#include <benchmark/benchmark.h>

#include <vector>

namespace tp::bench {

/// Each iteration makes reference() and then split() anew, timing each (their results are freed
/// after the timing); the iteration's time is the split's. Returns the median of split / reference
/// over the iterations.
template <typename Reference, typename Split>
double medianSplitRatio(benchmark::State& state, Reference&& reference, Split&& split) {
    std::vector<double> ratios;
    for (auto _ : state) {
        decltype(reference()) referenceResult;
        const double referenceTime = seconds([&] { referenceResult = reference(); });
        decltype(split()) splitResult;
        const double splitTime = seconds([&] { splitResult = split(); });
        benchmark::DoNotOptimize(&referenceResult);
        benchmark::DoNotOptimize(&splitResult);
        ratios.push_back(splitTime / referenceTime);
        state.SetIterationTime(splitTime);
    }
    return median(ratios);
}

/// The split benchmarks' arguments (batch, inDim, features, tp), tp 1, 2, 8 and 64 of each shape:
/// the two shapes of the goal; a batch of 8 rows, whose full product streams a 256 MiB kernel once
/// (summed in order); and a deep one, whose kernel columns run 16384 terms: the row split's whole
/// strip of them (3 MiB) fits no L2 cache, a depth block of it does.
inline void splitArgs(benchmark::internal::Benchmark* b) {
    for (const auto& shape : {std::vector<std::int64_t>{256, 1024, 4096},
                              {1024, 4096, 16384},
                              {8, 4096, 16384},
                              {256, 16384, 2048}})
        for (std::int64_t tp : {1, 2, 8, 64})
            b->Args({shape[0], shape[1], shape[2], tp});
}

}  // namespace tp::bench
