// Speed of generating a 4096 x 16384 lecun_normal kernel (67M values) bit-exactly, on 1 and 2
// threads, beside a plain fill of an array of the same size allocated the same way (the floor:
// allocation, first touch and memory bandwidth).

#include "jax_random.h"
#include "nnx_init.h"

#include <benchmark/benchmark.h>
#include <omp.h>

using namespace tp;

namespace {

constexpr Index kInDim = 4096;
constexpr Index kFeatures = 16384;

LayerConfig kernelConfig(PrngLayout layout) {
    LayerConfig config;
    config.batch = 1;
    config.inDim = kInDim;
    config.features = kFeatures;
    config.tpSize = 1;
    config.prng = layout;
    return config;
}

void kernel(benchmark::State& state, PrngLayout layout) {
    const int saved = omp_get_max_threads();
    omp_set_num_threads(int(state.range(0)));
    const LayerConfig config = kernelConfig(layout);
    for (auto _ : state) {
        Matrix k = kernelBlock(config, {0, kInDim}, {0, kFeatures});
        benchmark::DoNotOptimize(k.data());
        benchmark::ClobberMemory();
    }
    omp_set_num_threads(saved);
    state.SetItemsProcessed(state.iterations() * kInDim * kFeatures);
    state.SetLabel(simdPathName());
}

void BM_KernelPartitionable(benchmark::State& state) {
    kernel(state, PrngLayout::Partitionable);
}

void BM_KernelLegacy(benchmark::State& state) {
    kernel(state, PrngLayout::Legacy);
}

// The same array, allocated and filled with a constant on the same number of threads.
void BM_Fill(benchmark::State& state) {
    const int threads = int(state.range(0));
    for (auto _ : state) {
        Matrix k(kInDim, kFeatures);
        float* data = k.data();
        const Index rows = k.rows();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (Index r = 0; r < rows; ++r)
            std::fill(data + r * kFeatures, data + (r + 1) * kFeatures, 0.5f);
        benchmark::DoNotOptimize(k.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kInDim * kFeatures);
}

}  // namespace

BENCHMARK(BM_Fill)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KernelPartitionable)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KernelLegacy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
