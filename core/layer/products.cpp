#include "layer/products.h"

#ifdef TPVIZ_HAVE_OPENBLAS
#include <cblas.h>
#include <dlfcn.h>
#include <sys/resource.h>
#endif

#include <algorithm>
#include <cassert>
#include <climits>

namespace tp {
namespace {

products::Factor factorOf(const ProductFactor& f) {
    return {f.matrix.data(), f.rows(), f.cols(), f.matrix.outerStride(), f.transposed};
}

products::Output outputOf(Eigen::Ref<Matrix>& out) {
    return {out.data(), out.rows(), out.cols(), out.outerStride()};
}

bool summedInOrder(const ProductFactor& a, const ProductFactor& b) {
    return products::summedInOrder(a.rows(), a.transposed, b.transposed);
}

// The row length of a factor or output as OpenBLAS reads its memory (its `ld`): the stride, or the
// stored row itself when a view of one row reports a shorter stride.
Index leading(Index stride, Index storedCols) {
    return std::max({stride, storedCols, Index(1)});
}

Index leading(const ProductFactor& f) {
    return leading(f.matrix.outerStride(), f.matrix.cols());
}

#ifdef TPVIZ_HAVE_OPENBLAS

// OpenBLAS's OpenMP build, loaded by its path the first time a product asks for it (see
// cmake/TpvizOpenBlas.cmake), or why it is not used.
struct OpenBlas {
    decltype(&cblas_sgemm) sgemm = nullptr;
    std::string corename;
    std::string whyNot;
};

// Not under an address-space limit (ulimit -v): OpenBLAS reserves its buffers when it is loaded
// and on its first product, and where that fails it hangs instead of failing, so a run that
// should exit with "not enough memory" would never end.
const OpenBlas& openBlas() {
    static const OpenBlas loaded = [] {
        OpenBlas o;
        rlimit limit{};
        if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
            o.whyNot = "not loaded under an address-space limit";
            return o;
        }
        void* library = dlopen(TPVIZ_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            o.whyNot = std::string("cannot load ") + TPVIZ_OPENBLAS_PATH;
            return o;
        }
        // The OpenMP build (2), not the pthreads one (1): only that one runs on the calling thread
        // inside the core's parallel regions instead of starting threads of its own.
        const auto parallel = reinterpret_cast<decltype(&openblas_get_parallel)>(
            dlsym(library, "openblas_get_parallel"));
        const auto corename = reinterpret_cast<decltype(&openblas_get_corename)>(
            dlsym(library, "openblas_get_corename"));
        const auto sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(library, "cblas_sgemm"));
        if (parallel == nullptr || corename == nullptr || sgemm == nullptr || parallel() != 2) {
            o.whyNot = std::string(TPVIZ_OPENBLAS_PATH) + " is not OpenBLAS's OpenMP build";
            return o;
        }
        o.sgemm = sgemm;
        o.corename = corename();
        return o;
    }();
    return loaded;
}

// cblas takes every size as an int (Debian's OpenBLAS uses 32-bit integers).
bool fitsBlasInt(const ProductFactor& a, const ProductFactor& b) {
    const Index largest = std::max({a.rows(), a.cols(), b.cols(), leading(a), leading(b)});
    return largest <= INT_MAX;
}

void multiplyWithOpenBlas(Eigen::Ref<Matrix>& out, const ProductFactor& a, const ProductFactor& b,
                          bool accumulate) {
    // beta = 0 overwrites out without reading it (a NaN there does not survive).
    openBlas().sgemm(CblasRowMajor, a.transposed ? CblasTrans : CblasNoTrans,
                     b.transposed ? CblasTrans : CblasNoTrans, int(out.rows()), int(out.cols()),
                     int(a.cols()), 1.0f, a.matrix.data(), int(leading(a)), b.matrix.data(),
                     int(leading(b)), accumulate ? 1.0f : 0.0f, out.data(),
                     int(leading(out.outerStride(), out.cols())));
}

#endif

// The route of a product on `path` (already resolved), as productRoute gives it; run() also asks
// that the output's stride fit an int before it calls OpenBLAS.
ProductRoute routeOf(const ProductFactor& a, const ProductFactor& b, SimdPath path) {
    if (summedInOrder(a, b))
        return ProductRoute::InOrder;
#ifdef TPVIZ_HAVE_OPENBLAS
    if (path == fastestCpuPath() && fitsBlasInt(a, b) && openBlas().sgemm != nullptr)
        return ProductRoute::OpenBlas;
#else
    (void)path;
#endif
    return ProductRoute::Eigen;
}

void runEigen(Eigen::Ref<Matrix>& out, const ProductFactor& a, const ProductFactor& b,
              SimdPath path, bool accumulate) {
    const products::Output o = outputOf(out);
    const bool inOrder = summedInOrder(a, b);
    switch (path) {
        case SimdPath::Avx512:
            (inOrder ? products::avx512::multiplyInOrder : products::avx512::multiplyBlocked)(
                o, factorOf(a), factorOf(b), accumulate);
            return;
        case SimdPath::Avx2:
            (inOrder ? products::avx2::multiplyInOrder : products::avx2::multiplyBlocked)(
                o, factorOf(a), factorOf(b), accumulate);
            return;
        default:
            (inOrder ? products::baseline::multiplyInOrder : products::baseline::multiplyBlocked)(
                o, factorOf(a), factorOf(b), accumulate);
            return;
    }
}

void run(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b, SimdPath path,
         bool accumulate) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    path = resolveSimdPath(path);
#ifdef TPVIZ_HAVE_OPENBLAS
    if (routeOf(a, b, path) == ProductRoute::OpenBlas && out.outerStride() <= INT_MAX) {
        multiplyWithOpenBlas(out, a, b, accumulate);
        return;
    }
#endif
    runEigen(out, a, b, path, accumulate);
}

}  // namespace

ProductRoute productRoute(const ProductFactor& a, const ProductFactor& b, SimdPath path) {
    return routeOf(a, b, resolveSimdPath(path));
}

std::string productsLine() {
    const std::string eigen =
        std::string("products: Eigen's kernels of the ") + simdPathName() + " path";
    const std::string rows = " for more than " + std::to_string(kFewRows) +
                             " rows, in-order sums of the " + simdPathName() +
                             " path for at most " + std::to_string(kFewRows) + " rows";
#ifdef TPVIZ_HAVE_OPENBLAS
    if (resolveSimdPath(SimdPath::Best) != fastestCpuPath())
        return eigen + rows +
               " (OpenBLAS runs only on the CPU's fastest path, which TPVIZ_SIMD caps)";
    if (openBlas().sgemm == nullptr)
        return eigen + rows + " (OpenBLAS " + openBlas().whyNot + ")";
    return std::string("products:") + OPENBLAS_VERSION + "(" + openBlas().corename +
           " kernels, OpenMP)" + rows;
#else
    return eigen + rows;
#endif
}

void warmProducts() {
    const Matrix a = Matrix::Zero(kFewRows + 1, 2);
    const Matrix b = Matrix::Zero(2, 2);
    (void)product(a.topRows(1), b);  // in order
    (void)product(a, b);             // blocked: OpenBLAS or Eigen
}

void multiply(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
              SimdPath path) {
    run(out, a, b, path, false);
}

void multiplyAdd(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                 SimdPath path) {
    run(out, a, b, path, true);
}

void addInOrder(Eigen::Ref<Matrix> sums, const ProductFactor& a, const ProductFactor& b,
                SimdPath path) {
    assert(summedInOrder(a, b) && a.cols() == b.rows());
    assert(sums.rows() == a.rows() && sums.cols() == b.cols());
    const products::Output s = outputOf(sums);
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            products::avx512::addInOrder(s, factorOf(a), factorOf(b));
            return;
        case SimdPath::Avx2:
            products::avx2::addInOrder(s, factorOf(a), factorOf(b));
            return;
        default:
            products::baseline::addInOrder(s, factorOf(a), factorOf(b));
            return;
    }
}

void sumGroupProducts(Eigen::Ref<Matrix> out, const MatrixCRef& a, const ProductFactor& b,
                      const std::vector<Index>& bounds, float* scratch, SimdPath path) {
    assert(bounds.size() >= 2 && bounds.front() == 0 && bounds.back() == a.cols());
    const products::Output o = outputOf(out);
    const products::Factor fa = factorOf(a);
    const products::Factor fb = factorOf(b);
    const auto groups = std::int64_t(bounds.size()) - 1;
    switch (resolveSimdPath(path)) {
        case SimdPath::Avx512:
            products::avx512::sumGroupProducts(o, fa, fb, bounds.data(), groups, scratch);
            return;
        case SimdPath::Avx2:
            products::avx2::sumGroupProducts(o, fa, fb, bounds.data(), groups, scratch);
            return;
        default:
            products::baseline::sumGroupProducts(o, fa, fb, bounds.data(), groups, scratch);
            return;
    }
}

Matrix product(const ProductFactor& a, const ProductFactor& b, SimdPath path) {
    Matrix out(a.rows(), b.cols());
    multiply(out, a, b, path);
    return out;
}

void multiplyWithEigen(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                       SimdPath path) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    runEigen(out, a, b, resolveSimdPath(path), false);
}

void multiplyAddWithEigen(Eigen::Ref<Matrix> out, const ProductFactor& a, const ProductFactor& b,
                          SimdPath path) {
    assert(a.cols() == b.rows() && out.rows() == a.rows() && out.cols() == b.cols());
    runEigen(out, a, b, resolveSimdPath(path), true);
}

}  // namespace tp
