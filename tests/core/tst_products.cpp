// The core's products on every SIMD path this process runs: each transposition of the factors,
// into a block of a bigger matrix, set and accumulated, few rows and many, by the route the
// product entry picks and by Eigen's kernels of each path; the product of few rows has the same
// bits on every path and a group's columns equal the full product's; OpenBLAS runs the products
// of many rows on the CPU's fastest path only, where the build has it.

#include "layer/products.h"
#include "layer/verification.h"

#include "matrix_bits.h"
#include "random_matrix.h"

#include <QTest>

#ifdef TPVIZ_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <cmath>

using namespace tp;
using tp::test::randomMatrix;
using tp::test::sameBits;

namespace {

// a @ b in double precision, with the magnitudes |a| @ |b| for each element's rounding bound.
struct Exact {
    Eigen::MatrixXd value;
    Eigen::MatrixXd magnitude;
};

Exact exactProduct(const Matrix& a, const Matrix& b) {
    const Eigen::MatrixXd ad = a.cast<double>(), bd = b.cast<double>();
    return {ad * bd, ad.cwiseAbs() * bd.cwiseAbs()};
}

// Every element of `actual` within the float32 rounding bound of a K-term sum of `exact`.
bool withinBound(const Matrix& actual, const Exact& exact, Index depth, QString* where) {
    for (Index r = 0; r < actual.rows(); ++r)
        for (Index c = 0; c < actual.cols(); ++c) {
            const double error = std::abs(double(actual(r, c)) - exact.value(r, c));
            if (error > roundingGamma(depth) * exact.magnitude(r, c)) {
                *where = QString("(%1, %2): %3 against %4")
                             .arg(r)
                             .arg(c)
                             .arg(actual(r, c))
                             .arg(exact.value(r, c));
                return false;
            }
        }
    return true;
}

const char* routeName(ProductRoute route) {
    switch (route) {
        case ProductRoute::InOrder:
            return "in order";
        case ProductRoute::Eigen:
            return "Eigen";
        default:
            return "OpenBLAS";
    }
}

// The route the products promise: in order for few rows, OpenBLAS for the rest on the CPU's
// fastest path in a build that has it, Eigen's kernels otherwise (a path capped below the
// fastest one included).
ProductRoute promisedRoute(const ProductFactor& a, const ProductFactor& b, SimdPath path) {
    if (a.rows() <= kFewRows && !a.transposed && !b.transposed)
        return ProductRoute::InOrder;
#ifdef TPVIZ_HAVE_OPENBLAS
    if (resolveSimdPath(path) == fastestCpuPath())
        return ProductRoute::OpenBlas;
#endif
    return ProductRoute::Eigen;
}

}  // namespace

class TestProducts : public QObject {
    Q_OBJECT

private slots:
    void productsAreWithinTheRoundingBoundOnEveryPath_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("depth");
        QTest::addColumn<int>("cols");
        QTest::addColumn<bool>("transposeA");
        QTest::addColumn<bool>("transposeB");
        QTest::addColumn<int>("path");
        QTest::addColumn<bool>("eigen");
        for (const SimdPath path : availableSimdPaths())
            for (const bool eigen : {false, true})
                for (const auto& shape : {std::array{3, 700, 5000}, std::array{64, 300, 900},
                                          std::array{200, 64, 1000}, std::array{1, 1, 1}})
                    for (const bool ta : {false, true})
                        for (const bool tb : {false, true})
                            QTest::newRow(qPrintable(QString("%1%2 %3x%4x%5%6%7")
                                                         .arg(simdPathName(path))
                                                         .arg(eigen ? " eigen" : "")
                                                         .arg(shape[0])
                                                         .arg(shape[1])
                                                         .arg(shape[2])
                                                         .arg(ta ? " a^T" : "")
                                                         .arg(tb ? " b^T" : "")))
                                << shape[0] << shape[1] << shape[2] << ta << tb << int(path)
                                << eigen;
    }

    // By the route multiply picks (OpenBLAS for many rows on the fastest path, where the build
    // has it) and by Eigen's kernels of the same path.
    void productsAreWithinTheRoundingBoundOnEveryPath() {
        QFETCH(int, rows);
        QFETCH(int, depth);
        QFETCH(int, cols);
        QFETCH(bool, transposeA);
        QFETCH(bool, transposeB);
        QFETCH(int, path);
        QFETCH(bool, eigen);
        const Matrix a = randomMatrix(rows, depth, 1), b = randomMatrix(depth, cols, 2);
        // Stored as the product reads them: the transpose of a's memory when a^T is asked.
        const Matrix aStored = transposeA ? Matrix(a.transpose()) : a;
        const Matrix bStored = transposeB ? Matrix(b.transpose()) : b;
        const ProductFactor af(aStored, transposeA), bf(bStored, transposeB);
        const auto set = eigen ? multiplyWithEigen : multiply;
        const auto add = eigen ? multiplyAddWithEigen : multiplyAdd;
        const Exact exact = exactProduct(a, b);
        QString where;

        // Into a block of a bigger matrix: the elements around it are left alone, and those inside
        // are overwritten (a NaN there does not survive).
        Matrix big = Matrix::Constant(rows + 2, cols + 3, 7.0f);
        big.block(1, 2, rows, cols).setConstant(std::nanf(""));
        set(big.block(1, 2, rows, cols), af, bf, SimdPath(path));
        QVERIFY2(withinBound(big.block(1, 2, rows, cols), exact, depth, &where), qPrintable(where));
        QCOMPARE(big.row(0).cwiseEqual(7.0f).count(), big.cols());
        QCOMPARE(big.col(0).cwiseEqual(7.0f).count(), big.rows());
        QCOMPARE(big.col(1).cwiseEqual(7.0f).count(), big.rows());

        // Accumulated: out += a @ b onto a @ b itself gives 2 (a @ b), within twice the bound.
        Matrix twice(rows, cols);
        set(twice, af, bf, SimdPath(path));
        add(twice, af, bf, SimdPath(path));
        const Exact doubled{2 * exact.value, 2 * exact.magnitude};
        QVERIFY2(withinBound(twice, doubled, depth + 1, &where), qPrintable(where));
    }

    // multiply takes the promised route on every path this process runs: OpenBLAS only on the
    // CPU's fastest path (a run capped by TPVIZ_SIMD below it runs Eigen's kernels of its path),
    // and the product's bits are those of the code the route names.
    void eachPathRunsItsOwnRoute() {
        const Matrix a = randomMatrix(64, 4096, 5), b = randomMatrix(4096, 96, 6);
        for (const SimdPath path : availableSimdPaths()) {
            const ProductRoute route = productRoute(a, b, path);
            QCOMPARE(routeName(route), routeName(promisedRoute(a, b, path)));
            QCOMPARE(routeName(productRoute(a.topRows(kFewRows), b, path)),
                     routeName(ProductRoute::InOrder));
            const Matrix routed = product(a, b, path);
            Matrix byEigen(a.rows(), b.cols());
            multiplyWithEigen(byEigen, a, b, path);
            QVERIFY2(sameBits(routed, byEigen) == (route == ProductRoute::Eigen),
                     simdPathName(path));
#ifdef TPVIZ_HAVE_OPENBLAS
            Matrix byOpenBlas(a.rows(), b.cols());
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(a.rows()), int(b.cols()),
                        int(a.cols()), 1.0f, a.data(), int(a.cols()), b.data(), int(b.cols()), 0.0f,
                        byOpenBlas.data(), int(b.cols()));
            QVERIFY2(sameBits(routed, byOpenBlas) == (route == ProductRoute::OpenBlas),
                     simdPathName(path));
#endif
        }
    }

    // --version names what runs the products. With OpenBLAS in the build, it is the OpenMP build
    // (inside the core's parallel regions it runs on the calling thread instead of starting
    // threads of its own), the one this test links by path and the core loads by the same path,
    // named with the kernels it chose, unless TPVIZ_SIMD caps the path below the CPU's best.
    void theVersionLineNamesWhatRunsTheProducts() {
        const std::string line = productsLine();
        const bool uncapped = resolveSimdPath(SimdPath::Best) == fastestCpuPath();
#ifdef TPVIZ_HAVE_OPENBLAS
        QCOMPARE(openblas_get_parallel(), 2);
        const std::string kernels = std::string("(") + openblas_get_corename() + " kernels";
        QCOMPARE(line.find(kernels) != std::string::npos, uncapped);
#else
        Q_UNUSED(uncapped);
#endif
        const std::string eigen = std::string("Eigen's kernels of the ") + simdPathName() + " path";
        QCOMPARE(line.find(eigen) != std::string::npos,
                 line.find("OpenBLAS 0") == std::string::npos);
        QVERIFY2(simdPathLine().find(line) != std::string::npos, simdPathLine().c_str());
    }

    // A product of at most kFewRows rows sums each element in order over k, a multiply then an
    // add: the same bits on every path, and a block of columns alone equals the same columns of
    // the whole product.
    // A depth of 3003 leaves 3 terms after the last full run of kDepthRun (8). The 9003 columns
    // split into 3 blocks of 3001, each ending in a tile narrower than the rest on every path
    // (tiles of 8, 16 and 48 columns leave 1, 9 and 25), and the column checked last lies in the
    // last one; 1 to 8 rows take every mix of tiles of 8, 4, 2 and 1 rows.
    void productsOfFewRowsHaveTheSameBitsOnEveryPath() {
        const Matrix b = randomMatrix(3003, 9003, 9);
        for (Index rows = 1; rows <= kFewRows; ++rows) {
            const Matrix a = randomMatrix(rows, 3003, unsigned(rows));
            const Matrix baseline = product(a, b, SimdPath::Scalar);
            // In order over k without fusing: the scalar loop below is that definition.
            for (const Index c : {Index(0), Index(4321), Index(9002)})
                for (Index r = 0; r < rows; ++r) {
                    float sum = 0.0f;
                    for (Index k = 0; k < a.cols(); ++k) {
                        const volatile float term = a(r, k) * b(k, c);
                        sum += term;
                    }
                    QCOMPARE(baseline(r, c), sum);
                }
            for (const SimdPath path : availableSimdPaths()) {
                QVERIFY2(sameBits(product(a, b, path), baseline), simdPathName(path));
                const Matrix columns = product(a, b.middleCols(1000, 777), path);
                QVERIFY2(sameBits(columns, baseline.middleCols(1000, 777)), simdPathName(path));
            }
        }
    }

    // The row split's sums of group products: on every path, each group's product computed alone
    // and added to the sum of the groups before it in order gives the sum's bits; a block of rows
    // and columns alone has the bits of the same block of the whole; and the sum is a product of
    // all the terms, within its rounding bound. The shapes leave tiles of fewer rows and columns
    // than the path's (6 or 8 rows, 8, 16 or 48 columns) and a last strip narrower than
    // kGroupStrip; the bounds include groups of one term and groups of unequal depth.
    void groupSumsHaveTheBitsOfTheirProductsAdded() {
        const std::vector<std::vector<Index>> boundsList = {
            {0, 64}, {0, 16, 32, 48, 64}, {0, 1, 2, 40, 63, 64}};
        for (const Index rows : {Index(1), Index(7), Index(53)}) {
            for (const Index cols : {Index(5), Index(48), Index(151)}) {
                const Matrix a = randomMatrix(rows, 64, unsigned(rows));
                const Matrix b = randomMatrix(64, cols, unsigned(cols));
                const Exact exact = exactProduct(a, b);
                for (const SimdPath path : availableSimdPaths()) {
                    for (const std::vector<Index>& bounds : boundsList) {
                        const QString name = QString("%1 x %2, %3 groups, %4")
                                                 .arg(rows)
                                                 .arg(cols)
                                                 .arg(bounds.size() - 1)
                                                 .arg(simdPathName(path));
                        std::vector<float> scratch(std::size_t(groupScratchFloats(rows, 64)));
                        Matrix sum(rows, cols);
                        sumGroupProducts(sum, a, b, bounds, scratch.data(), path);
                        Matrix added(rows, cols);
                        for (std::size_t g = 0; g + 1 < bounds.size(); ++g) {
                            const Index start = bounds[g], terms = bounds[g + 1] - bounds[g];
                            Matrix alone(rows, cols);
                            sumGroupProducts(alone, a.middleCols(start, terms),
                                             b.middleRows(start, terms), {0, terms}, scratch.data(),
                                             path);
                            if (g == 0)
                                added = alone;
                            else
                                added += alone;
                        }
                        QVERIFY2(sameBits(sum, added), qPrintable(name));
                        const Index r0 = rows / 3, c0 = cols / 3;
                        Matrix block(rows - r0, cols - c0);
                        sumGroupProducts(block, a.bottomRows(rows - r0), b.rightCols(cols - c0),
                                         bounds, scratch.data(), path);
                        QVERIFY2(sameBits(block, sum.bottomRightCorner(rows - r0, cols - c0)),
                                 qPrintable(name));
                        QString where;
                        QVERIFY2(withinBound(sum, exact, 64, &where),
                                 qPrintable(name + ": " + where));
                    }
                }
            }
        }
    }

    // Each element of a sum of group products, however deep, is made as the kernel says: each
    // group's terms summed from zero in order over k, a fused multiply-add per term where the path
    // has FMA (a multiply and then an add on the baseline), and each group then added to the sum of
    // the groups before it. The depth spans several of the blocks the kernel copies its strips by
    // (kGroupDepth terms), with groups that end inside a block, on its edge, one term long, empty,
    // and one longer than a block, so a group's sum must carry from block to block unchanged. b
    // read as the transpose of its transpose (the backward's dy @ kernel^T) gives the same bits.
    void groupSumsAreMultiplyAddsInOrderAcrossDepthBlocks() {
        const Index depth = 2 * kGroupDepth + 44;
        const std::vector<std::vector<Index>> boundsList = {
            {0, depth},
            {0, 100, kGroupDepth, kGroupDepth + 1, 2 * kGroupDepth, depth},
            {0, 5, 5, kGroupDepth + 7, depth, depth}};
        const Index rows = 11, cols = 61;
        const Matrix a = randomMatrix(rows, depth, 21), b = randomMatrix(depth, cols, 22);
        const Matrix bT = b.transpose();
        for (const SimdPath path : availableSimdPaths()) {
            const bool fused = path != SimdPath::Scalar;
            for (const std::vector<Index>& bounds : boundsList) {
                std::vector<float> scratch(std::size_t(groupScratchFloats(rows, depth)));
                Matrix sum(rows, cols);
                sumGroupProducts(sum, a, b, bounds, scratch.data(), path);
                Matrix expected(rows, cols);
                for (Index r = 0; r < rows; ++r) {
                    for (Index c = 0; c < cols; ++c) {
                        float total = 0.0f;
                        for (std::size_t g = 0; g + 1 < bounds.size(); ++g) {
                            float held = 0.0f;
                            for (Index k = bounds[g]; k < bounds[g + 1]; ++k) {
                                if (fused) {
                                    held = std::fma(a(r, k), b(k, c), held);
                                } else {
                                    const float term = a(r, k) * b(k, c);
                                    held = held + term;
                                }
                            }
                            total = g == 0 ? held : total + held;
                        }
                        expected(r, c) = total;
                    }
                }
                const QString name =
                    QString("%1 groups, %2").arg(bounds.size() - 1).arg(simdPathName(path));
                QVERIFY2(sameBits(sum, expected), qPrintable(name));
                Matrix fromTranspose(rows, cols);
                sumGroupProducts(fromTranspose, a, transposed(bT), bounds, scratch.data(), path);
                QVERIFY2(sameBits(fromTranspose, expected), qPrintable(name + ", b transposed"));
            }
        }
    }

    // Eigen's kernels on a path below the one in use really run that path: a path with FMA gives
    // other last bits than the baseline on a long sum (when this process runs such a path).
    void aPathWithFusedMultiplyAddsGivesOtherLastBits() {
        const std::vector<SimdPath> paths = availableSimdPaths();
        if (paths.back() == SimdPath::Scalar)
            QSKIP("this process runs only the scalar path");
        const Matrix a = randomMatrix(64, 4096, 3), b = randomMatrix(4096, 64, 4);
        Matrix baseline(64, 64), fused(64, 64);
        multiplyWithEigen(baseline, a, b, SimdPath::Scalar);
        multiplyWithEigen(fused, a, b, paths.back());
        QVERIFY(!sameBits(baseline, fused));
    }
};

QTEST_APPLESS_MAIN(TestProducts)
#include "tst_products.moc"
