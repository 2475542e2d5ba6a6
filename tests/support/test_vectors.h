#pragma once

// The initialisation spec's ground-truth vectors (tests/data/nnx_scenes.json), read once and typed.

#include "layer/eigen_types.h"
#include "layer/layer_config.h"

#include <QString>

#include <array>
#include <cstdint>
#include <vector>

namespace tp::test {

/// One threefry2x32 known answer: out = threefry2x32(key, counter).
struct ThreefryVector {
    std::array<std::uint32_t, 2> key;
    std::array<std::uint32_t, 2> counter;
    std::array<std::uint32_t, 2> out;
};

/// One nnx.Linear scene as Flax builds it: `config` (tpSize 1) and the float32 bit patterns of
/// kernel (inDim x features), bias (features) and x (batch x inDim), row-major.
struct NnxSceneVector {
    QString name;  ///< e.g. "3x4 batch1 seed0 partitionable bias zeros"
    LayerConfig config;
    std::vector<std::uint32_t> kernelBits;
    std::vector<std::uint32_t> biasBits;
    std::vector<std::uint32_t> xBits;
};

struct TestVectors {
    std::vector<ThreefryVector> threefry;
    std::array<std::uint32_t, 2> foldInKey0With4;  ///< fold_in(PRNGKey(0), 4)
    std::vector<NnxSceneVector> scenes;
};

/// The vectors of tests/data/nnx_scenes.json, parsed on first use. A missing file or a malformed
/// entry stops the test with a message naming the file and the entry.
const TestVectors& testVectors();

/// The bit patterns of `count` floats, in order.
std::vector<std::uint32_t> floatBits(const float* values, Index count);
template <typename Derived>
std::vector<std::uint32_t> floatBits(const Eigen::DenseBase<Derived>& values) {
    return floatBits(values.derived().data(), values.size());
}

/// Words as 8-digit lower-case hex separated by spaces, as the vector file spells them.
QString hexWords(const std::vector<std::uint32_t>& words);

}  // namespace tp::test
