#pragma once

// A matrix of standard-normal float32 values from a fixed seed, for tests that need data without
// the layer's own generator.

#include "layer/eigen_types.h"

#include <random>

namespace tp::test {

/// rows x cols values of std::normal_distribution<float> over std::mt19937(seed), row-major.
inline Matrix randomMatrix(Index rows, Index cols, unsigned seed) {
    std::mt19937 engine(seed);
    std::normal_distribution<float> normal;
    Matrix m(rows, cols);
    for (Index i = 0; i < m.size(); ++i)
        m.data()[i] = normal(engine);
    return m;
}

}  // namespace tp::test
