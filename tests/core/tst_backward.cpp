// The backward pass: every gradient of both modes against gradients summed here in double, dy's
// bits against the normal draw of the stream's fourth key, the check's K, and the collectives.

#include "devices/backward_collectives.h"
#include "devices/backward_costs.h"
#include "layer/backward.h"
#include "layer/float_format.h"
#include "layer/sharding_plan.h"
#include "nnx/jax_random.h"
#include "nnx/nnx_init.h"

#include "config_fixtures.h"
#include "matrix_bits.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

// An exact sum of products in double and the sum of their magnitudes, for the tolerance.
struct Exact {
    double value = 0;
    double magnitude = 0;
};

// |actual - exact| <= 2 * K * 2^-24 * sum |terms|: the worst case of K float32 roundings (with a
// factor 2 for the double's own rounding of the magnitude, far below it), K = the terms summed.
bool within(float actual, const Exact& exact, Index k) {
    return std::abs(double(actual) - exact.value) <=
           2.0 * double(k) * std::ldexp(1.0, -24) * exact.magnitude + 1e-30;
}

// Every element of (rows, cols) `actual` against `exact(r, c)`; the first that is not within.
template <typename Actual, typename ExactOf>
QString firstOutside(const Actual& actual, ExactOf exact, Index k) {
    for (Index r = 0; r < actual.rows(); ++r)
        for (Index c = 0; c < actual.cols(); ++c)
            if (!within(actual(r, c), exact(r, c), k))
                return QString("(%1, %2): %3 vs %4")
                    .arg(r)
                    .arg(c)
                    .arg(actual(r, c))
                    .arg(exact(r, c).value);
    return {};
}

}  // namespace

class TestBackward : public QObject {
    Q_OBJECT

private slots:
    void gradients_data() {
        QTest::addColumn<LayerConfig>("config");
        const auto col = ParallelMode::Column;
        const auto row = ParallelMode::Row;
        const auto sh = OutputLayout::Sharded;
        const auto rep = OutputLayout::Replicated;
        QTest::newRow("column 4x8x12 tp3 sharded D1") << test::meshConfig(col, 4, 8, 12, 3, 1, sh);
        QTest::newRow("column 4x8x12 tp3 replicated D2")
            << test::meshConfig(col, 4, 8, 12, 3, 2, rep);
        QTest::newRow("column 6x5x8 tp4 sharded D2") << test::meshConfig(col, 6, 5, 8, 4, 2, sh, 7);
        QTest::newRow("column 3x7x5 tp1") << test::meshConfig(col, 3, 7, 5, 1, 1, sh);
        QTest::newRow("row 4x12x8 tp3 replicated D1") << test::meshConfig(row, 4, 12, 8, 3, 1, rep);
        QTest::newRow("row 4x12x9 tp3 sharded D2") << test::meshConfig(row, 4, 12, 9, 3, 2, sh);
        QTest::newRow("row 8x6x9 tp2 replicated D2")
            << test::meshConfig(row, 8, 6, 9, 2, 2, rep, 3);
        QTest::newRow("row 3x7x5 tp1") << test::meshConfig(row, 3, 7, 5, 1, 1, rep);
        QTest::newRow("column 64x96x40 tp4 D2") << test::meshConfig(col, 64, 96, 40, 4, 2, rep, 11);
        QTest::newRow("row 64x96x40 tp4 D2") << test::meshConfig(row, 64, 96, 40, 4, 2, sh, 11);
        // Several tiles of dx (256 rows by 480 columns) and runs of groups on the threads.
        QTest::newRow("column 300x1000x96 tp8") << test::meshConfig(col, 300, 1000, 96, 8, 1, sh);
        QTest::newRow("row 300x96x1000 tp8") << test::meshConfig(row, 300, 96, 1000, 8, 1, rep);
    }

    // Each gradient and each group's part against sums in double written out here.
    void gradients() {
        QFETCH(LayerConfig, config);
        QVERIFY(config.validate().empty());
        const LayerParams p = initLayer(config);
        const Matrix dy = cotangent(config);
        const ShardingPlan plan = ShardingPlan::make(config);
        const BackwardResult r = backwardParallel(p.x, p.kernel, dy, plan, config.dataSize);
        const Gradients ref = backwardReference(p.x, p.kernel, dy);
        const Index batch = config.batch, inDim = config.inDim, features = config.features;

        auto dxExact = [&](Index i, Index k, IndexRange cols) {
            Exact e;
            for (Index j = cols.start; j < cols.stop; ++j) {
                e.value += double(dy(i, j)) * double(p.kernel(k, j));
                e.magnitude += std::abs(double(dy(i, j)) * double(p.kernel(k, j)));
            }
            return e;
        };
        auto dkernelExact = [&](Index k, Index j) {
            Exact e;
            for (Index i = 0; i < batch; ++i) {
                e.value += double(p.x(i, k)) * double(dy(i, j));
                e.magnitude += std::abs(double(p.x(i, k)) * double(dy(i, j)));
            }
            return e;
        };
        auto dbiasExact = [&](Index, Index j) {
            Exact e;
            for (Index i = 0; i < batch; ++i) {
                e.value += double(dy(i, j));
                e.magnitude += std::abs(double(dy(i, j)));
            }
            return e;
        };
        const IndexRange all{0, features};
        auto dxAll = [&](Index i, Index k) { return dxExact(i, k, all); };
        for (const Gradients* g : {&r.gradients, &ref}) {
            QCOMPARE(g->dx.rows(), Index(batch));
            QCOMPARE(g->dx.cols(), Index(inDim));
            QCOMPARE(g->dkernel.rows(), Index(inDim));
            QCOMPARE(g->dkernel.cols(), Index(features));
            QCOMPARE(g->dbias.size(), Index(features));
            QCOMPARE(firstOutside(g->dx, dxAll, features), QString());
            QCOMPARE(firstOutside(g->dkernel, dkernelExact, batch), QString());
            QCOMPARE(firstOutside(g->dbias, dbiasExact, batch), QString());
        }
        // Each group's own part: column mode's dx partial over its columns only.
        const bool column = config.mode == ParallelMode::Column;
        QCOMPARE(r.dxPartials.size(), column ? std::size_t(config.tpSize) : std::size_t(0));
        for (const ShardGroup& g : plan.groups) {
            if (column) {
                auto partialExact = [&](Index i, Index k) { return dxExact(i, k, g.kernelCols); };
                QCOMPARE(firstOutside(r.dxPartials[std::size_t(g.index)], partialExact,
                                      g.kernelCols.size()),
                         QString());
                QCOMPARE(r.dkernelBlock(g).cols(), g.kernelCols.size());
                QCOMPARE(r.dbiasBlock(g).size(), g.kernelCols.size());
            } else {
                QCOMPARE(r.dkernelBlock(g).rows(), g.kernelRows.size());
                QCOMPARE(r.dxBlock(g).cols(), g.kernelRows.size());
                QCOMPARE(r.dbiasBlock(g).size(), Index(features));
            }
        }
        // Column mode: dx is its partials, made on demand, added in group order, bit for bit.
        if (column) {
            Matrix added = r.dxPartials.front();
            for (std::size_t g = 1; g < r.dxPartials.size(); ++g)
                added += r.dxPartials[g];
            QVERIFY(test::sameBits(r.gradients.dx, added));
        }
        const BackwardVerification v = verifyBackward(r.gradients, ref, p.x, p.kernel, dy);
        QVERIFY(v.passed());
        QCOMPARE(v.dx.inDim, Index(features));
        QCOMPARE(v.dkernel.inDim, Index(batch));
        QCOMPARE(v.dbias.inDim, Index(batch));
    }

    // A dx that misses one group's partial, or a dkernel from another data block, fails.
    void wrongGradientsFail() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 8, 16, 12, 3, 2, OutputLayout::Sharded);
        const LayerParams p = initLayer(c);
        const Matrix dy = cotangent(c);
        const BackwardResult r =
            backwardParallel(p.x, p.kernel, dy, ShardingPlan::make(c), c.dataSize);
        const Gradients ref = backwardReference(p.x, p.kernel, dy);
        Gradients wrong = r.gradients;
        wrong.dx -= r.dxPartials.back();
        wrong.dkernel.noalias() = p.x.topRows(4).transpose() * dy.topRows(4);
        wrong.dbias = dy.topRows(4).colwise().sum();
        const BackwardVerification v = verifyBackward(wrong, ref, p.x, p.kernel, dy);
        QVERIFY(v.dx.verdict == Verdict::Failed);
        QVERIFY(v.dkernel.verdict == Verdict::Failed);
        QVERIFY(v.dbias.verdict == Verdict::Failed);
        QVERIFY(!v.passed());
    }

    // dy is jax.random.normal(fold_in(key, 3), (batch, features)): the same normal draw x uses,
    // with the stream's fourth count, bit for bit.
    void cotangentBits_data() {
        QTest::addColumn<LayerConfig>("config");
        LayerConfig legacy =
            test::meshConfig(ParallelMode::Column, 3, 4, 5, 1, 1, OutputLayout::Sharded);
        legacy.prng = PrngLayout::Legacy;
        LayerConfig x64 =
            test::meshConfig(ParallelMode::Row, 2, 4, 6, 2, 1, OutputLayout::Sharded, -5);
        x64.x64 = true;
        QTest::newRow("3x4x5 seed0")
            << test::meshConfig(ParallelMode::Column, 3, 4, 5, 1, 1, OutputLayout::Sharded);
        QTest::newRow("3x4x5 seed0 legacy") << legacy;
        QTest::newRow("2x4x6 seed-5 x64") << x64;
        QTest::newRow("300x16x1024 seed42") << test::meshConfig(ParallelMode::Column, 300, 16, 1024,
                                                                4, 1, OutputLayout::Sharded, 42);
    }

    void cotangentBits() {
        QFETCH(LayerConfig, config);
        const Matrix dy = cotangent(config);
        QCOMPARE(dy.rows(), Index(config.batch));
        QCOMPARE(dy.cols(), Index(config.features));
        const Key key = foldIn(seedToKey(config.seed, config.x64), 3);
        QVERIFY(sceneKeys(config).dy == key);
        const auto n = std::uint64_t(config.batch * config.features);
        std::vector<float> expected(n);
        normal(key, config.prng, n, 0, n, expected.data());
        for (std::uint64_t i = 0; i < n; ++i)
            QCOMPARE(bitsOfFloat(dy.data()[i]), bitsOfFloat(expected[i]));
    }

    // dy is not x again: with inDim == features the two draws have the same shape and count of
    // values, and only their keys (counts 2 and 3) tell them apart.
    void cotangentIsNotX() {
        const LayerConfig c =
            test::meshConfig(ParallelMode::Column, 4, 6, 6, 2, 1, OutputLayout::Sharded);
        const Matrix dy = cotangent(c);
        const Matrix x = initLayer(c).x;
        Index same = 0;
        for (Index i = 0; i < dy.size(); ++i)
            same += bitsOfFloat(dy.data()[i]) == bitsOfFloat(x.data()[i]) ? 1 : 0;
        QCOMPARE(same, Index(0));
    }

    // The collectives of a (8, 4096, 16384) layer at tp 8, D 2: Nd = 4 rows per device.
    //   dy all-gather (row, sharded): V = 4*16384*4 = 262144, 7/8 V = 229376 in 7 steps;
    //   dx all-reduce (column): V = 4*4096*4 = 65536, 2*7/8 V = 114688 in 14 steps;
    //   dkernel all-reduce over data: V = 4096*16384/8*4 = 33554432, 2*1/2 V = V in 2 steps;
    //   dbias over data: column V = 2048*4 = 8192, row V = 16384*4 = 65536, each in 2 steps.
    void collectives_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QString>("expected");
        const auto col = ParallelMode::Column;
        const auto row = ParallelMode::Row;
        const auto sh = OutputLayout::Sharded;
        const auto rep = OutputLayout::Replicated;
        const QString column =
            "all-reduce model dx 114688 14; all-reduce data dkernel 33554432 2; "
            "all-reduce data dbias 8192 2";
        QTest::newRow("column sharded")
            << test::meshConfig(col, 8, 4096, 16384, 8, 2, sh) << column;
        QTest::newRow("column replicated")
            << test::meshConfig(col, 8, 4096, 16384, 8, 2, rep) << column;
        QTest::newRow("row replicated")
            << test::meshConfig(row, 8, 4096, 16384, 8, 2, rep)
            << "all-reduce data dkernel 33554432 2; all-reduce data dbias 65536 2";
        QTest::newRow("row sharded")
            << test::meshConfig(row, 8, 4096, 16384, 8, 2, sh)
            << "all-gather model dy 229376 7; all-reduce data dkernel 33554432 2; "
               "all-reduce data dbias 65536 2";
        // D = 1: nothing over data, and Nd = 8: dx V = 8*4096*4 = 131072, 2*7/8 V = 229376. tp 1:
        // nothing over model.
        QTest::newRow("column D1")
            << test::meshConfig(col, 8, 4096, 16384, 8, 1, sh) << "all-reduce model dx 229376 14";
        QTest::newRow("row sharded tp1 D1") << test::meshConfig(row, 8, 64, 32, 1, 1, sh) << "";
        // 2 rows of 3 features over tp 3: dx V = 2*9*4 = 72, 2*2/3 V = 96 in 4 steps.
        QTest::newRow("column 2x9x3 tp3")
            << test::meshConfig(col, 2, 9, 3, 3, 1, sh) << "all-reduce model dx 96 4";
    }

    void collectives() {
        QFETCH(LayerConfig, config);
        QFETCH(QString, expected);
        QVERIFY(config.validate().empty());
        QStringList found;
        for (const BackwardCollective& c : backwardCollectives(config))
            found << QString("%1 %2 %3 %4 %5")
                         .arg(QString::fromStdString(std::string(toString(c.cost.kind))))
                         .arg(QString::fromStdString(std::string(toString(c.axis))))
                         .arg(QString::fromStdString(c.of))
                         .arg(c.cost.bytesSentPerDevice)
                         .arg(c.cost.ringSteps);
        QCOMPARE(found.join("; "), expected);
    }

    // Each device's backward holdings of the same (8, 4096, 16384) layer at tp 8, D 2 (Nd = 4):
    //   column: dy its columns 4*2048*4 = 32768 (sharded) or all 4*16384*4 = 262144 (replicated),
    //           dx the whole 4*4096*4 = 65536, dkernel 4096*2048*4 = 33554432, dbias 2048*4 = 8192;
    //   row:    dy all of it 262144, dx its slice 4*512*4 = 8192, dkernel 512*16384*4 = 33554432,
    //           dbias 16384*4 = 65536;
    //   flops:  2 * (2*4*4096*16384/8) = 134217728, plus dbias's adds: 4*2048 = 8192 (column) or
    //           4*16384 = 65536 (row).
    void holdings_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QString>("expected");
        const auto col = ParallelMode::Column;
        const auto row = ParallelMode::Row;
        const auto sh = OutputLayout::Sharded;
        const auto rep = OutputLayout::Replicated;
        QTest::newRow("column sharded") << test::meshConfig(col, 8, 4096, 16384, 8, 2, sh)
                                        << "32768 65536 33554432 8192 134225920";
        QTest::newRow("column replicated") << test::meshConfig(col, 8, 4096, 16384, 8, 2, rep)
                                           << "262144 65536 33554432 8192 134225920";
        QTest::newRow("row sharded") << test::meshConfig(row, 8, 4096, 16384, 8, 2, sh)
                                     << "262144 8192 33554432 65536 134283264";
        QTest::newRow("row replicated") << test::meshConfig(row, 8, 4096, 16384, 8, 2, rep)
                                        << "262144 8192 33554432 65536 134283264";
    }

    void holdings() {
        QFETCH(LayerConfig, config);
        QFETCH(QString, expected);
        const BackwardHoldings h = backwardHoldings(config);
        QCOMPARE(QString("%1 %2 %3 %4 %5")
                     .arg(h.dyBytes)
                     .arg(h.dxBytes)
                     .arg(h.dkernelBytes)
                     .arg(h.dbiasBytes)
                     .arg(h.flops),
                 expected);
        QCOMPARE(h.totalBytes(), h.dyBytes + h.dxBytes + h.dkernelBytes + h.dbiasBytes);
    }

    // The holdings are the sizes of the blocks the split pass leaves each group (D = 1).
    void holdingsAreTheSplitPassBlocks() {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            const LayerConfig c = test::meshConfig(mode, 3, 8, 12, 4, 1, OutputLayout::Sharded);
            const LayerParams p = initLayer(c);
            const Matrix dy = Matrix::Ones(c.batch, c.features);
            const BackwardResult r = backwardParallel(p.x, p.kernel, dy, ShardingPlan::make(c));
            const BackwardHoldings h = backwardHoldings(c);
            const std::int64_t f32 = sizeof(float);
            for (const ShardGroup& g : r.plan.groups) {
                QCOMPARE(std::int64_t(r.dkernelBlock(g).size()) * f32, h.dkernelBytes);
                QCOMPARE(std::int64_t(r.dbiasBlock(g).size()) * f32, h.dbiasBytes);
                const std::int64_t dx = mode == ParallelMode::Column
                                            ? r.dxPartials[std::size_t(g.index)].size()
                                            : r.dxBlock(g).size();
                QCOMPARE(dx * f32, h.dxBytes);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestBackward)
#include "tst_backward.moc"
