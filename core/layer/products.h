#pragma once

// The core's matrix products, out = a @ b: the forward passes, the reference, the mistakes' passes,
// the backward's gradients and the check's magnitudes all multiply through here. Each product runs
// the code of the SIMD path in use (layer/simd_path.h), compiled once per instruction set.
//
// What differs between paths: a product of at most kFewRows rows of a (neither factor transposed)
// has the same bits on every path: its sums are a multiply and then an add per term, in order
// over k. Bigger products run Eigen's blocked kernels, which fuse each multiply-add where the
// instruction set has FMA (AVX2 + FMA, AVX-512) and not on the baseline, so their last bits
// differ between paths (each within the rounding bound the check allows); on one path and one
// thread count they are the same from run to run.

#include "layer/eigen_types.h"
#include "layer/product_kernel.h"
#include "layer/simd_path.h"

namespace tp {

/// A factor of a product: a row-major matrix, block or map as it is, or its transpose, read in
/// place (never copied).
struct ProductFactor {
    MatrixCRef matrix;
    bool transposed = false;

    template <typename Derived>
    ProductFactor(const Eigen::MatrixBase<Derived>& m, bool t = false)  // NOLINT: implicit
        : matrix(m), transposed(t) {
        static_assert(
            (Derived::Flags & Eigen::DirectAccessBit) && (Derived::Flags & Eigen::RowMajorBit),
            "a factor is read in place: pass row-major memory, not an expression");
    }

    Index rows() const { return transposed ? matrix.cols() : matrix.rows(); }
    Index cols() const { return transposed ? matrix.rows() : matrix.cols(); }
};

/// The transpose of m as a factor: multiply(out, dy, transposed(kernel)) is out = dy @ kernel^T.
template <typename Derived>
ProductFactor transposed(const Eigen::MatrixBase<Derived>& m) {
    return ProductFactor(m, true);
}

using products::kColumnBlock;
using products::kFewRows;

/// out = a @ b; a (N, K), b (K, M), out (N, M), already of that shape. With `path`, that path or
/// the fastest below it this process runs (for tests); by default the path in use.
void multiply(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
              SimdPath path = SimdPath::Best);

/// out += a @ b, the same shapes.
void multiplyAdd(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                 SimdPath path = SimdPath::Best);

/// a @ b as a new (N, M) matrix.
Matrix product(const ProductFactor& a, const ProductFactor& b, SimdPath path = SimdPath::Best);

}  // namespace tp
