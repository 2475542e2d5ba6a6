#pragma once

// The one header of Eigen aliases. Arrays are float32 and row-major, as JAX stores them.

#include <Eigen/Core>

#include <cstdint>

namespace tp {

using Index = Eigen::Index;

/// A float32 row-major matrix: kernel (inDim, features), input x (batch, inDim), outputs (batch,
/// features).
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// A float32 row vector: bias (features,). A row so that `out.rowwise() += bias` broadcasts over
/// the batch.
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

/// Read-only views, so that callers can pass a matrix, a block or a map without a copy.
using MatrixCRef = Eigen::Ref<const Matrix>;
using RowVectorCRef = Eigen::Ref<const RowVector>;

/// The half-open range [start, stop), as in Python's `a[start:stop]`.
struct IndexRange {
    Index start = 0;
    Index stop = 0;

    Index size() const { return stop - start; }
    bool operator==(const IndexRange&) const = default;
};

}  // namespace tp
