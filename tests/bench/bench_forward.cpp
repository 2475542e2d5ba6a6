// The grouped column- and row-parallel forward passes against one full product of the same size,
// and the core's full product (layer/products.h) on each SIMD path against OpenBLAS's
// cblas_sgemm. Each iteration times both sides back to back, so the reported ratio (median over
// iterations) is measured under the same machine load.

#include "block/mlp.h"
#include "layer/forward.h"
#include "layer/fresh_matrix.h"
#include "nnx/nnx_init.h"

#include <benchmark/benchmark.h>

#ifdef TPVIZ_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <chrono>
#include <vector>

using namespace tp;

namespace {

struct Arrays {
    Matrix x;
    Matrix kernel;
    RowVector bias;
};

const Arrays& arrays(Index batch, Index inDim, Index features) {
    static Arrays cached;
    if (cached.x.rows() != batch || cached.kernel.rows() != inDim ||
        cached.kernel.cols() != features) {
        cached.x = Matrix::Random(batch, inDim);
        // The kernel in memory as the app holds it (huge pages where the system grants them).
        cached.kernel = uninitializedMatrix(inDim, features);
        cached.kernel.setRandom();
        cached.bias = RowVector::Random(features);
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

// Arguments: batch, inDim, features, tp; the split of `mode`.
void forwardVsFull(benchmark::State& state, ParallelMode mode) {
    const Index batch = state.range(0), inDim = state.range(1), features = state.range(2);
    const Index tpSize = state.range(3);
    const Arrays& a = arrays(batch, inDim, features);
    const ShardingPlan plan = ShardingPlan::make(mode, inDim, features, tpSize);
    std::vector<double> ratios;
    for (auto _ : state) {
        Matrix full;
        const double fullTime = seconds([&] { full = forwardReference(a.x, a.kernel, a.bias); });
        ForwardResult grouped;
        const double groupedTime =
            seconds([&] { grouped = forwardParallel(a.x, a.kernel, a.bias, plan); });
        benchmark::DoNotOptimize(full.data());
        benchmark::DoNotOptimize(grouped.output.data());
        ratios.push_back(groupedTime / fullTime);
        state.SetIterationTime(groupedTime);
    }
    state.counters["ratio_to_full"] = median(ratios);
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
    LayerConfig config;
    config.block = Block::Mlp;
    config.batch = state.range(0);
    config.inDim = config.features = state.range(1);
    config.hidden = state.range(2);
    config.tpSize = state.range(3);
    static LayerConfig drawn;
    static MlpParams params;
    if (drawn.batch != config.batch || drawn.inDim != config.inDim ||
        drawn.hidden != config.hidden) {
        params = initMlp(config);
        drawn = config;
    }
    std::vector<double> ratios;
    for (auto _ : state) {
        MlpReference reference;
        const double referenceTime = seconds([&] { reference = mlpReference(params); });
        MlpForward split;
        const double splitTime = seconds([&] { split = mlpForward(params, config); });
        benchmark::DoNotOptimize(reference.output.data());
        benchmark::DoNotOptimize(split.output.data());
        ratios.push_back(splitTime / referenceTime);
        state.SetIterationTime(splitTime);
    }
    state.counters["ratio_to_reference"] = median(ratios);
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

// The two shapes of the goal; a batch of 8 rows, whose full product streams a 256 MiB kernel once
// (summed in order); and a deep one, whose kernel columns run 16384 terms: the row split's whole
// strip of them (3 MiB) fits no L2 cache, a depth block of it does.
void forwardArgs(benchmark::internal::Benchmark* b) {
    for (const auto& shape : {std::vector<std::int64_t>{256, 1024, 4096},
                              {1024, 4096, 16384},
                              {8, 4096, 16384},
                              {256, 16384, 2048}})
        for (std::int64_t tp : {1, 2, 8, 64})
            b->Args({shape[0], shape[1], shape[2], tp});
}

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
    ->Apply(forwardArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_RowForwardVsFull)
    ->Apply(forwardArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_MlpForwardVsReference)
    ->Args({256, 1024, 4096, 1})
    ->Args({256, 1024, 4096, 8})
    ->Args({256, 1024, 4096, 64})
    ->Args({1024, 2048, 8192, 8})
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
