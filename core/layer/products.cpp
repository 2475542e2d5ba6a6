#include "layer/products.h"

#include <cassert>

namespace tp {
namespace {

products::Factor factorOf(const ProductFactor& f) {
    return {f.matrix.data(), f.rows(), f.cols(), f.matrix.outerStride(), f.transposed};
}

void run(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b, SimdPath path,
         bool accumulate) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    const products::Output o{out.data(), out.rows(), out.cols(), out.outerStride()};
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            products::avx512::multiply(o, factorOf(a), factorOf(b), accumulate);
            return;
        case SimdPath::Avx2:
            products::avx2::multiply(o, factorOf(a), factorOf(b), accumulate);
            return;
        default:
            products::baseline::multiply(o, factorOf(a), factorOf(b), accumulate);
            return;
    }
}

}  // namespace

void multiply(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
              SimdPath path) {
    run(out, a, b, path, false);
}

void multiplyAdd(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                 SimdPath path) {
    run(out, a, b, path, true);
}

Matrix product(const ProductFactor& a, const ProductFactor& b, SimdPath path) {
    Matrix out(a.rows(), b.cols());
    multiply(out, a, b, path);
    return out;
}

}  // namespace tp
