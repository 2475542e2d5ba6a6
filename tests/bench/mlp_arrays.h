#pragma once

// What the MLP block's benchmarks share: the block's config from a benchmark's arguments, and its
// parameters at that size.

#include "block/mlp.h"
#include "nnx/nnx_init.h"

#include <benchmark/benchmark.h>

namespace tp::bench {

/// Arguments: batch, inDim, hidden, tp; features = inDim.
inline LayerConfig mlpConfig(const benchmark::State& state) {
    LayerConfig config;
    config.block = Block::Mlp;
    config.batch = state.range(0);
    config.inDim = config.features = state.range(1);
    config.hidden = state.range(2);
    config.tpSize = state.range(3);
    return config;
}

/// The block's parameters (initMlp) of `config`'s size, drawn again only when the size changes.
inline const MlpParams& mlpParams(const LayerConfig& config) {
    static LayerConfig drawn;
    static MlpParams params;
    if (drawn.batch != config.batch || drawn.inDim != config.inDim ||
        drawn.hidden != config.hidden) {
        params = initMlp(config);
        drawn = config;
    }
    return params;
}

/// The MLP benchmarks' arguments (batch, inDim, hidden, tp).
inline void mlpArgs(benchmark::internal::Benchmark* b) {
    b->Args({256, 1024, 4096, 1})
        ->Args({256, 1024, 4096, 8})
        ->Args({256, 1024, 4096, 64})
        ->Args({1024, 2048, 8192, 8});
}

}  // namespace tp::bench
