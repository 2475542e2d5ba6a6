// The split backward pass (backwardParallel) against the reference (backwardReference, one full
// product per gradient) at the same sizes, in each mode. Each iteration times both back to back,
// so the reported ratio (median over iterations) is measured under the same machine load.

#include "layer/backward.h"
#include "layer/simd_path.h"

#include "split_ratio.h"

#include <benchmark/benchmark.h>

using namespace tp;
using namespace tp::bench;

namespace {

// Arguments: batch, inDim, features, tp; the split of `mode`. Both sides make dx, dkernel and
// dbias; the split's column partials, made on demand, are not read.
void backwardVsReference(benchmark::State& state, ParallelMode mode) {
    const Index batch = state.range(0), inDim = state.range(1), features = state.range(2);
    const Index tpSize = state.range(3);
    const Arrays& a = arrays(batch, inDim, features);
    const ShardingPlan plan = ShardingPlan::make(mode, inDim, features, tpSize);
    state.counters["ratio_to_reference"] = medianSplitRatio(
        state, [&] { return backwardReference(a.x, a.kernel, a.dy); },
        [&] { return backwardParallel(a.x, a.kernel, a.dy, plan); });
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

}  // namespace

BENCHMARK(BM_ColumnBackwardVsReference)
    ->Apply(splitArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);
BENCHMARK(BM_RowBackwardVsReference)
    ->Apply(splitArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK_MAIN();
