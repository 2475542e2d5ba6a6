// The split backward pass (backwardParallel) against the reference (backwardReference, one full
// product per gradient) at the same sizes, in each mode. Each iteration times both back to back,
// so the reported ratio (median over iterations) is measured under the same machine load.

#include "layer/backward.h"
#include "layer/fresh_matrix.h"
#include "layer/simd_path.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <vector>

using namespace tp;

namespace {

struct Arrays {
    Matrix x;
    Matrix kernel;
    Matrix dy;
};

const Arrays& arrays(Index batch, Index inDim, Index features) {
    static Arrays cached;
    if (cached.x.rows() != batch || cached.kernel.rows() != inDim ||
        cached.kernel.cols() != features) {
        cached.x = Matrix::Random(batch, inDim);
        // The kernel in memory as the app holds it (huge pages where the system grants them).
        cached.kernel = uninitializedMatrix(inDim, features);
        cached.kernel.setRandom();
        cached.dy = Matrix::Random(batch, features);
    }
    return cached;
}

template <typename F>
double seconds(F&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// Arguments: batch, inDim, features, tp; the split of `mode`. Both sides make dx, dkernel and
// dbias; the split's column partials, made on demand, are not read.
void backwardVsReference(benchmark::State& state, ParallelMode mode) {
    const Index batch = state.range(0), inDim = state.range(1), features = state.range(2);
    const Index tpSize = state.range(3);
    const Arrays& a = arrays(batch, inDim, features);
    const ShardingPlan plan = ShardingPlan::make(mode, inDim, features, tpSize);
    std::vector<double> ratios;
    for (auto _ : state) {
        Gradients reference;
        const double referenceTime =
            seconds([&] { reference = backwardReference(a.x, a.kernel, a.dy); });
        BackwardResult split;
        const double splitTime =
            seconds([&] { split = backwardParallel(a.x, a.kernel, a.dy, plan); });
        benchmark::DoNotOptimize(reference.dx.data());
        benchmark::DoNotOptimize(split.gradients.dx.data());
        ratios.push_back(splitTime / referenceTime);
        state.SetIterationTime(splitTime);
    }
    state.counters["ratio_to_reference"] = median(ratios);
    // Two products of 2 * batch * inDim * features flops each (dx and dkernel).
    state.counters["GFLOPs"] = benchmark::Counter(4.0 * batch * inDim * features,
                                                  benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::OneK::kIs1000);
    state.SetLabel(simdPathName());
}

void BM_ColumnBackwardVsReference(benchmark::State& state) {
    backwardVsReference(state, ParallelMode::Column);
}

void BM_RowBackwardVsReference(benchmark::State& state) {
    backwardVsReference(state, ParallelMode::Row);
}

// The forward benchmark's shapes (bench_forward.cpp): the goal's two, a batch of 8 rows, and a
// deep kernel.
void backwardArgs(benchmark::internal::Benchmark* b) {
    for (const auto& shape : {std::vector<std::int64_t>{256, 1024, 4096},
                              {1024, 4096, 16384},
                              {8, 4096, 16384},
                              {256, 16384, 2048}})
        for (std::int64_t tp : {1, 2, 8, 64})
            b->Args({shape[0], shape[1], shape[2], tp});
}

}  // namespace

BENCHMARK(BM_ColumnBackwardVsReference)
    ->Apply(backwardArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_RowBackwardVsReference)
    ->Apply(backwardArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK_MAIN();
