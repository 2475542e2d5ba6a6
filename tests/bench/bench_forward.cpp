// The grouped column- and row-parallel forward passes against one full product of the same size,
// and the core's full product (layer/products.h) on each SIMD path against OpenBLAS's
// cblas_sgemm. Each iteration times both sides back to back, so the reported ratio (median over
// iterations) is measured under the same machine load.

#include "layer/forward.h"

#include "mlp_arrays.h"
#include "split_ratio.h"

#include <benchmark/benchmark.h>

#ifdef TPVIZ_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <vector>

using namespace tp;
using namespace tp::bench;

namespace {

// Arguments: batch, inDim, features, tp; the split of `mode`.
void forwardVsFull(benchmark::State& state, ParallelMode mode) {
    const Index batch = state.range(0), inDim = state.range(1), features = state.range(2);
    const Index tpSize = state.range(3);
    const Arrays& a = arrays(batch, inDim, features);
    const ShardingPlan plan = ShardingPlan::make(mode, inDim, features, tpSize);
    state.counters["ratio_to_full"] = medianSplitRatio(
        state, [&] { return forwardReference(a.x, a.kernel, a.bias); },
        [&] { return forwardParallel(a.x, a.kernel, a.bias, plan); });
    state.counters["GFLOPs"] = benchmark::Counter(2.0 * batch * inDim * features,
                                                  benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::OneK::kIs1000);
    state.SetLabel(simdPathName());
}

void BM_ColumnForwardVsFull(benchmark::State& state) {
    forwardVsFull(state, ParallelMode::Column);
}

void BM_RowForwardVsFull(benchmark::State& state) {
    forwardVsFull(state, ParallelMode::Row);
}

// Arguments: batch, inDim, hidden, tp. The MLP block split over tp devices (mlpForward, Megatron's
// column -> GeLU -> row) against its unsharded reference (mlpReference), features = inDim.
void BM_MlpForwardVsReference(benchmark::State& state) {
    const LayerConfig config = mlpConfig(state);
    const MlpParams& params = mlpParams(config);
    state.counters["ratio_to_reference"] = medianSplitRatio(
        state, [&] { return mlpReference(params); }, [&] { return mlpForward(params, config); });
    state.SetLabel(simdPathName());
}

#ifdef TPVIZ_HAVE_OPENBLAS
// Arguments: batch, inDim, features, SIMD path (0 scalar, 1 avx2, 2 avx512; a path this CPU
// does not run is skipped). Ratio = the core's full product / cblas_sgemm (below 1: the core
// faster).
void BM_EigenVsOpenBlas(benchmark::State& state) {
    const Index batch = state.range(0), inDim = state.range(1), features = state.range(2);
    const auto path = SimdPath(state.range(3));
    if (resolveSimdPath(path) != path) {
        state.SkipWithError("this process does not run that SIMD path");
        for (auto _ : state) {
        }
        return;
    }
    const Arrays& a = arrays(batch, inDim, features);
    Matrix eigenOut(batch, features), blasOut(batch, features);
    std::vector<double> ratios;
    for (auto _ : state) {
        const double eigenTime = seconds([&] { multiplyWithEigen(eigenOut, a.x, a.kernel, path); });
        const double blasTime = seconds([&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(batch), int(features),
                        int(inDim), 1.0f, a.x.data(), int(inDim), a.kernel.data(), int(features),
                        0.0f, blasOut.data(), int(features));
        });
        benchmark::DoNotOptimize(eigenOut.data());
        benchmark::DoNotOptimize(blasOut.data());
        ratios.push_back(eigenTime / blasTime);
        state.SetIterationTime(blasTime);
    }
    state.counters["eigen_over_blas"] = median(ratios);
    state.SetLabel(simdPathName(path));
    state.counters["GFLOPs"] = benchmark::Counter(2.0 * batch * inDim * features,
                                                  benchmark::Counter::kIsIterationInvariantRate,
                                                  benchmark::Counter::OneK::kIs1000);
}
#endif

}  // namespace

// The two shapes of the goal, and products of few rows that stream a 256 MiB kernel (the
// memory-bound products of a small batch).
void pathArgs(benchmark::internal::Benchmark* b) {
    for (const auto& shape : {std::vector<std::int64_t>{256, 1024, 4096},
                              {1024, 4096, 16384},
                              {1, 4096, 16384},
                              {4, 4096, 16384},
                              {8, 4096, 16384}})
        for (std::int64_t path = 0; path <= 2; ++path)
            b->Args({shape[0], shape[1], shape[2], path});
}

BENCHMARK(BM_ColumnForwardVsFull)
    ->Apply(splitArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_RowForwardVsFull)
    ->Apply(splitArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_MlpForwardVsReference)
    ->Apply(mlpArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
#ifdef TPVIZ_HAVE_OPENBLAS
BENCHMARK(BM_EigenVsOpenBlas)
    ->Apply(pathArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
#endif

BENCHMARK_MAIN();
