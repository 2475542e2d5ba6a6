#pragma once

// What the benchmarks share: the layer's arrays at a size, and timing a piece of work.

#include "layer/eigen_types.h"
#include "layer/fresh_matrix.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace tp::bench {

/// Random x (batch, inDim), kernel (inDim, features), bias (features) and cotangent dy (batch,
/// features).
struct Arrays {
    Matrix x;
    Matrix kernel;
    RowVector bias;
    Matrix dy;
};

/// The arrays of one size, drawn again only when the size changes (the benchmarks run their sizes
/// in turn).
inline const Arrays& arrays(Index batch, Index inDim, Index features) {
    static Arrays cached;
    if (cached.x.rows() != batch || cached.kernel.rows() != inDim ||
        cached.kernel.cols() != features) {
        cached.x = Matrix::Random(batch, inDim);
        // The kernel in memory as the app holds it (huge pages where the system grants them).
        cached.kernel = uninitializedMatrix(inDim, features);
        cached.kernel.setRandom();
        cached.bias = RowVector::Random(features);
        cached.dy = Matrix::Random(batch, features);
    }
    return cached;
}

/// The wall time work() takes, in seconds.
template <typename F>
double seconds(F&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace tp::bench
