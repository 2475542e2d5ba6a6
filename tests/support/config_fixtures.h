#pragma once

// Named scenes the tests share, so each size is stated once and reads by its purpose.

#include "layer/layer_config.h"

namespace tp::test {

/// nnx.Linear(3, 4, rngs=nnx.Rngs(0)), batch 2, two groups of 2 columns: every value fits on a
/// line, and kernel[0, 0] is the spec's 0x3f1e2c8f.
inline const LayerConfig kTinyTwoGroups{.batch = 2, .inDim = 3, .features = 4, .tpSize = 2};

/// An 8x12 kernel in four groups of 3 columns, batch 2: small, but every step differs.
inline const LayerConfig kFourGroups{.batch = 2, .inDim = 8, .features = 12, .tpSize = 4};

/// The same sizes split by kernel rows, with a normal(0.5) bias so that adding it once shows.
inline const LayerConfig kFourGroupsRow{.batch = 2,
                                        .inDim = 8,
                                        .features = 12,
                                        .tpSize = 4,
                                        .mode = ParallelMode::Row,
                                        .bias = BiasInit{BiasInit::Kind::Normal, 0.5f}};

/// 4096 x 16384 in 8 groups, batch 2 (67M kernel values, 256 MiB): long enough to watch progress.
inline const LayerConfig kBig{.batch = 2, .inDim = 4096, .features = 16384, .tpSize = 8};

/// A scene on a data x model mesh with its output layout named.
inline LayerConfig meshConfig(ParallelMode mode, std::int64_t batch, std::int64_t inDim,
                              std::int64_t features, std::int64_t tp, std::int64_t data,
                              OutputLayout layout, std::int64_t seed = 0) {
    LayerConfig c;
    c.mode = mode;
    c.batch = batch;
    c.inDim = inDim;
    c.features = features;
    c.tpSize = tp;
    c.dataSize = data;
    c.output = layout;
    c.seed = seed;
    return c;
}

/// The MLP block (x (batch, inDim) -> linear1 (inDim, hidden) -> GeLU -> linear2 (hidden,
/// features)) over tp devices.
inline LayerConfig mlpConfig(std::int64_t batch, std::int64_t inDim, std::int64_t hidden,
                             std::int64_t features, std::int64_t tp, std::int64_t seed = 0) {
    LayerConfig c;
    c.block = Block::Mlp;
    c.batch = batch;
    c.inDim = inDim;
    c.hidden = hidden;
    c.features = features;
    c.tpSize = tp;
    c.seed = seed;
    return c;
}

}  // namespace tp::test
