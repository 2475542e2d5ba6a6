// Speed of generating a 4096 x 16384 lecun_normal kernel (67M values) bit-exactly, on 1 and 2
// threads, beside a plain fill of an array of the same size allocated the same way (the floor:
// allocation, first touch and memory bandwidth), and of each SIMD path this CPU runs side by side.
//
// BM_Kernel*       kernelBlock of the whole kernel with the path in use (its name is the label).
// BM_Fill          the plain fill.
// BM_KernelVsFill  per iteration a fill, then the kernel: counter kernel/fill is the ratio of
//                  their wall times, kernel/fill_cpu of their CPU times (all threads).
// BM_Paths         per iteration the whole kernel once with every path this process can run,
//                  back to back: counters <path> in values per second of wall time and
//                  <path>_cpu in values per second of CPU time (all threads; robust when other
//                  work shares the machine), and the ratios <path>/<slower path> of each.

#include "layer/fresh_matrix.h"
#include "nnx/jax_random.h"
#include "nnx/nnx_init.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <ctime>
#include <map>
#include <string>

using namespace tp;

namespace {

constexpr Index kInDim = 4096;
constexpr Index kFeatures = 16384;
constexpr Index kChunk = Index(1) << 16;  // values per parallel task, as kernelBlock draws them

using Clock = std::chrono::steady_clock;

LayerConfig kernelConfig(PrngLayout layout) {
    LayerConfig config;
    config.batch = 1;
    config.inDim = kInDim;
    config.features = kFeatures;
    config.tpSize = 1;
    config.prng = layout;
    return config;
}

// Sets the OpenMP thread count for one benchmark and restores it afterwards.
class Threads {
public:
    explicit Threads(int count) : m_saved(omp_get_max_threads()) { omp_set_num_threads(count); }
    ~Threads() { omp_set_num_threads(m_saved); }

private:
    int m_saved;
};

void fill(Matrix& k) {
    float* data = k.data();
    const Index rows = k.rows();
#pragma omp parallel for schedule(static)
    for (Index r = 0; r < rows; ++r)
        std::fill(data + r * kFeatures, data + (r + 1) * kFeatures, 0.5f);
}

// The whole kernel drawn with one given path, in kernelBlock's chunks.
Matrix kernelWithPath(const LayerConfig& config, SimdPath path) {
    const Key key = sceneKeys(config).kernel;
    const float stddev = lecunNormalStddev(config.inDim);
    const auto n = std::uint64_t(kInDim * kFeatures);
    Matrix k = uninitializedMatrix(kInDim, kFeatures);
    float* out = k.data();
#pragma omp parallel for schedule(dynamic, 1)
    for (Index start = 0; start < Index(n); start += kChunk)
        truncatedNormal(key, config.prng, n, std::uint64_t(start), std::uint64_t(kChunk),
                        out + start, stddev, path);
    return k;
}

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

// CPU time of the whole process (all threads), in seconds.
double cpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void kernel(benchmark::State& state, PrngLayout layout) {
    const Threads threads(int(state.range(0)));
    const LayerConfig config = kernelConfig(layout);
    for (auto _ : state) {
        Matrix k = kernelBlock(config, {0, kInDim}, {0, kFeatures});
        benchmark::DoNotOptimize(k.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kInDim * kFeatures);
    state.SetLabel(simdPathName());
}

void BM_KernelPartitionable(benchmark::State& state) {
    kernel(state, PrngLayout::Partitionable);
}

void BM_KernelLegacy(benchmark::State& state) {
    kernel(state, PrngLayout::Legacy);
}

// The same array, allocated the same way (uninitializedMatrix) and filled with a constant on the
// same number of threads.
void BM_Fill(benchmark::State& state) {
    const Threads threads(int(state.range(0)));
    for (auto _ : state) {
        Matrix k = uninitializedMatrix(kInDim, kFeatures);
        fill(k);
        benchmark::DoNotOptimize(k.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * kInDim * kFeatures);
}

void BM_KernelVsFill(benchmark::State& state) {
    const Threads threads(int(state.range(0)));
    const LayerConfig config = kernelConfig(PrngLayout::Partitionable);
    Clock::duration fillTime{}, kernelTime{};
    double fillCpu = 0, kernelCpu = 0;
    for (auto _ : state) {
        const double c0 = cpuSeconds();
        const auto t0 = Clock::now();
        {
            Matrix k = uninitializedMatrix(kInDim, kFeatures);
            fill(k);
            benchmark::DoNotOptimize(k.data());
            benchmark::ClobberMemory();
        }
        const auto t1 = Clock::now();
        const double c1 = cpuSeconds();
        {
            Matrix k = kernelBlock(config, {0, kInDim}, {0, kFeatures});
            benchmark::DoNotOptimize(k.data());
            benchmark::ClobberMemory();
        }
        kernelTime += Clock::now() - t1;
        kernelCpu += cpuSeconds() - c1;
        fillTime += t1 - t0;
        fillCpu += c1 - c0;
    }
    state.counters["fill_ms"] = 1e3 * seconds(fillTime) / double(state.iterations());
    state.counters["kernel_ms"] = 1e3 * seconds(kernelTime) / double(state.iterations());
    state.counters["kernel/fill"] = seconds(kernelTime) / seconds(fillTime);
    state.counters["kernel/fill_cpu"] = kernelCpu / fillCpu;
    state.SetLabel(simdPathName());
}

void BM_Paths(benchmark::State& state) {
    const Threads threads(int(state.range(0)));
    const LayerConfig config = kernelConfig(PrngLayout::Partitionable);
    const std::vector<SimdPath> paths = availableSimdPaths();
    std::map<SimdPath, double> wall, cpu;
    for (auto _ : state) {
        for (const SimdPath path : paths) {
            const auto t0 = Clock::now();
            const double c0 = cpuSeconds();
            Matrix k = kernelWithPath(config, path);
            benchmark::DoNotOptimize(k.data());
            benchmark::ClobberMemory();
            cpu[path] += cpuSeconds() - c0;
            wall[path] += seconds(Clock::now() - t0);
        }
    }
    const double values = double(state.iterations()) * double(kInDim * kFeatures);
    std::string label;
    for (std::size_t p = 0; p < paths.size(); ++p) {
        const std::string name = simdPathName(paths[p]);
        state.counters[name] = values / wall[paths[p]];
        state.counters[name + "_cpu"] = values / cpu[paths[p]];
        label += (p ? " " : "") + name;
        if (p > 0) {
            const std::string ratio = name + "/" + simdPathName(paths[p - 1]);
            state.counters[ratio] = wall[paths[p - 1]] / wall[paths[p]];
            state.counters[ratio + "_cpu"] = cpu[paths[p - 1]] / cpu[paths[p]];
        }
    }
    state.SetLabel(label);
}

}  // namespace

BENCHMARK(BM_Fill)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KernelPartitionable)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KernelLegacy)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KernelVsFill)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Paths)->Arg(1)->Arg(2)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
