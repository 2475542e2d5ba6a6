#pragma once

// The core's matrix products, out = a @ b: the forward passes, the reference, the mistakes' passes,
// the backward's gradients and the check's magnitudes all multiply through here. Each product runs
// the code of the SIMD path in use (layer/simd_path.h), compiled once per instruction set, or
// OpenBLAS on the CPU's fastest path (productRoute below).
//
// What differs between paths: a product of at most kFewRows rows of a (neither factor transposed)
// has the same bits on every path: its sums are a multiply and then an add per term, in order
// over k. Bigger products run Eigen's blocked kernels, which fuse each multiply-add where the
// instruction set has FMA (AVX2 + FMA, AVX-512) and not on the baseline, or OpenBLAS's, which
// block and fuse in their own way; so their last bits differ between paths and between the two
// (each within the rounding bound the check allows, which holds for any order of summation). On
// one path and one thread count they are the same from run to run. The sums of group products
// (sumGroupProducts: the row split's output, the column split's dx in the backward) run a kernel
// of the core's own on every path, fused where the instruction set has FMA, whose bits do not
// depend on tiles or threads.

#include "layer/eigen_types.h"
#include "layer/product_kernel.h"
#include "layer/simd_path.h"

#include <string>
#include <vector>

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
    /// Rows [start, start + count) of the factor (of the transpose, where it is one), in place.
    ProductFactor middleRows(Index start, Index count) const {
        return transposed ? ProductFactor(matrix.middleCols(start, count), true)
                          : ProductFactor(matrix.middleRows(start, count));
    }
    /// Columns [start, start + count) of the factor, in place.
    ProductFactor middleCols(Index start, Index count) const {
        return transposed ? ProductFactor(matrix.middleRows(start, count), true)
                          : ProductFactor(matrix.middleCols(start, count));
    }
};

/// The transpose of m as a factor: multiply(out, dy, transposed(kernel)) is out = dy @ kernel^T.
template <typename Derived>
ProductFactor transposed(const Eigen::MatrixBase<Derived>& m) {
    return ProductFactor(m, true);
}

using products::groupScratchFloats;
using products::kColumnBlock;
using products::kDepthRun;
using products::kFewRows;
using products::kGroupDepth;
using products::kGroupStrip;

/// Who computes a product.
enum class ProductRoute {
    /// At most kFewRows rows of a, neither factor transposed: each element summed in order over k,
    /// the same bits on every path.
    InOrder,
    /// Eigen's blocked kernels compiled for the path, split over the threads by the core.
    Eigen,
    /// cblas_sgemm of OpenBLAS's OpenMP build, with the kernels OpenBLAS chose for this CPU when
    /// it was loaded. Only on the CPU's fastest path (uncapped by TPVIZ_SIMD, or capped at or
    /// above it): OpenBLAS cannot be told to run another instruction set, so a capped path runs
    /// Eigen's kernels of that path. Only in builds that found OpenBLAS
    /// (cmake/TpvizOpenBlas.cmake), where it loads, and never under an address-space limit.
    OpenBlas,
};

/// The route multiply(out, a, b, path) takes: InOrder for few rows, OpenBlas for the rest on the
/// CPU's fastest path where this build has OpenBLAS, Eigen otherwise.
ProductRoute productRoute(const ProductFactor& a, const ProductFactor& b,
                          SimdPath path = SimdPath::Best);

/// What runs the products, for --version: "products: OpenBLAS 0.3.21 (SkylakeX kernels, OpenMP)
/// for more than 8 rows; ...", or Eigen's kernels of the path in use.
std::string productsLine();

/// Runs one small product on each route this process takes (in order, and OpenBLAS or Eigen's
/// blocked kernels): the first product on OpenBLAS's route loads the library (dlopen and its
/// start-up, some milliseconds) and sets up its buffers, costs a process pays once and a training
/// step does not. A caller that times products calls it first, so that they time the products
/// alone.
void warmProducts();

/// out = a @ b; a (N, K), b (K, M), out (N, M), already of that shape. With `path`, that path or
/// the fastest below it this process runs (for tests); by default the path in use. The route is
/// productRoute(a, b, path).
void multiply(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
              SimdPath path = SimdPath::Best);

/// out += a @ b, the same shapes.
void multiplyAdd(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                 SimdPath path = SimdPath::Best);

/// sums += a @ b on the calling thread, each term added to the sum's value one after another in
/// the order of k, a multiply then an add: a product of few rows (InOrder) summed in parts. a of at
/// most kFewRows rows, neither factor transposed; sums (N, M). The same bits on every path.
void addInOrder(Eigen::Ref<Matrix> sums, const ProductFactor& a, const ProductFactor& b,
                SimdPath path = SimdPath::Best);

/// out = the sum over the groups g, in order, of a[:, bounds[g]:bounds[g + 1]] @ b[the same rows],
/// on the calling thread: each group's product summed apart from zero and then added to the sum of
/// the groups before it, all in registers. bounds[0] = 0 and bounds.back() = a.cols(). An element
/// depends on its row of a, its column of b and the bounds only, so a group's product computed
/// alone (bounds {0, its terms}) has the bits that were added. `scratch` holds
/// groupScratchFloats(a.rows(), a.cols()) floats. a not transposed; b as it is or transposed (the
/// backward's dy @ kernel^T), the same bits either way; the bits differ between paths.
void sumGroupProducts(Eigen::Ref<Matrix> out, const MatrixCRef& a, const ProductFactor& b,
                      const std::vector<Index>& bounds, float* scratch,
                      SimdPath path = SimdPath::Best);

/// a @ b as a new (N, M) matrix.
Matrix product(const ProductFactor& a, const ProductFactor& b, SimdPath path = SimdPath::Best);

/// out = a @ b by Eigen's kernels of `path` (or in order, for few rows) even where multiply would
/// run OpenBLAS: for the tests and benchmarks that compare the two routes.
void multiplyWithEigen(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                       SimdPath path = SimdPath::Best);

/// out += a @ b the same way.
void multiplyAddWithEigen(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                          SimdPath path = SimdPath::Best);

}  // namespace tp
