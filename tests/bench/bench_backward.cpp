// The split backward pass (backwardParallel) against the reference (backwardReference, one full
// product per gradient) at the same sizes, in each mode, and the MLP block's (mlpBackwardParallel
// against mlpBackwardReference). Each iteration times both back to back,
// so the reported ratio (median over iterations) is measured under the same machine load.

#include "block/mlp_backward.h"
#include "layer/backward.h"
#include "layer/simd_path.h"

#include "mlp_arrays.h"
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

// Arguments: batch, inDim, hidden, tp. The block's backward split over tp devices (Megatron's:
// linear2's row backward, the GeLU's derivative, linear1's column backward and dx's all-reduce)
// from the split forward pass, against the unsharded block's from the reference's h and a; a
// random cotangent dy. The split's dx partials, made on demand, are not read.
void BM_MlpBackwardVsReference(benchmark::State& state) {
    const LayerConfig config = mlpConfig(state);
    const MlpParams& params = mlpParams(config);
    const MlpForward forward = mlpForward(params, config);
    const MlpReference reference = mlpReference(params);
    const Matrix dy = Matrix::Random(config.batch, config.features);
    state.counters["ratio_to_reference"] = medianSplitRatio(
        state, [&] { return mlpBackwardReference(params, reference, dy); },
        [&] { return mlpBackwardParallel(params, forward, dy); });
    state.SetLabel(simdPathName());
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

BENCHMARK(BM_MlpBackwardVsReference)
    ->Apply(mlpArgs)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(2.0);

BENCHMARK_MAIN();
