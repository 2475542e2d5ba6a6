// Column- and row-parallel forward passes against the reference x @ kernel + bias.

#include "layer/finite_max_abs.h"
#include "layer/forward.h"
#include "layer/fresh_matrix.h"
#include "layer/verification.h"
#include "matrix_bits.h"
#include "random_matrix.h"
#include "scene/fused_forward.h"

#include <QTest>

#include <functional>
#include <limits>
#include <random>
#include <thread>

using namespace tp;
using tp::test::sameBits;

namespace {

using test::randomMatrix;

RowVector randomRow(Index size, unsigned seed) {
    return randomMatrix(1, size, seed);
}

// The brief's worked example: two groups reproduce one affine layer with a nonzero bias.
struct BriefExample {
    Matrix x{{1.f, 2.f}};
    Matrix kernel{{1.f, 0.f, 2.f, -1.f}, {0.f, 1.f, 1.f, 3.f}};
    RowVector bias{{0.5f, -0.5f, 1.f, 2.f}};
};

// A pass given a cancelled Progress does no unit of work; run to its end it counts `units`, the
// whole of its total.
void checkCancelAndProgress(const std::function<void(Progress*)>& pass, std::int64_t units) {
    Progress cancelled;
    cancelled.cancel();
    pass(&cancelled);
    QCOMPARE(cancelled.done(), std::int64_t(0));
    Progress full;
    full.setTotal(units);
    pass(&full);
    QCOMPARE(full.done(), units);
    QCOMPARE(full.fraction(), 1.0);
}

// Each column partial, made on first read, is its group's columns of the output, bit for bit (the
// pieces are put side by side, never summed).
bool partialsAreTheirColumns(const ForwardResult& result) {
    for (const ShardGroup& g : result.plan.groups)
        if (!sameBits(result.output.middleCols(g.outputCols.start, g.outputCols.size()),
                      result.partials[std::size_t(g.index)]))
            return false;
    return true;
}

}  // namespace

class TestForward : public QObject {
    Q_OBJECT

private slots:
    void briefExampleIsExact() {
        const BriefExample e;
        const auto plan = ShardingPlan::make(ParallelMode::Column, 2, 4, 2);
        const ForwardResult result = forwardColumnParallel(e.x, e.kernel, e.bias, plan);
        const Matrix expected{{1.5f, 1.5f, 5.f, 7.f}};
        QCOMPARE(result.partials.size(), std::size_t(2));
        QVERIFY(result.partials[0] == (Matrix{{1.5f, 1.5f}}));
        QVERIFY(result.partials[1] == (Matrix{{5.f, 7.f}}));
        QVERIFY(result.output == expected);
        QVERIFY(forwardReference(e.x, e.kernel, e.bias) == expected);
        QVERIFY(verify(result.output, expected).allclose);
        QCOMPARE(verify(result.output, expected).maxAbsError, 0.0);
    }

    void planRanges_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("group");
        QTest::addColumn<int>("start");
        QTest::addColumn<int>("stop");
        QTest::newRow("column 8x12 tp3 group0") << 0 << 3 << 0 << 0 << 4;
        QTest::newRow("column 8x12 tp3 group2") << 0 << 3 << 2 << 8 << 12;
        QTest::newRow("row 8x12 tp4 group1") << 1 << 4 << 1 << 2 << 4;
        QTest::newRow("row 8x12 tp8 group7") << 1 << 8 << 7 << 7 << 8;
    }

    void planRanges() {
        QFETCH(int, mode);
        QFETCH(int, tp);
        QFETCH(int, group);
        QFETCH(int, start);
        QFETCH(int, stop);
        const auto m = mode == 0 ? ParallelMode::Column : ParallelMode::Row;
        const auto plan = ShardingPlan::make(m, 8, 12, tp);
        const ShardGroup& g = plan.groups.at(std::size_t(group));
        QCOMPARE(g.index, group);
        QCOMPARE(g.owned, (IndexRange{start, stop}));
        if (m == ParallelMode::Column) {
            QCOMPARE(g.kernelCols, (IndexRange{start, stop}));
            QCOMPARE(g.outputCols, (IndexRange{start, stop}));
            QCOMPARE(g.kernelRows, (IndexRange{0, 8}));
            QCOMPARE(g.inputCols, (IndexRange{0, 8}));
        } else {
            QCOMPARE(g.kernelRows, (IndexRange{start, stop}));
            QCOMPARE(g.inputCols, (IndexRange{start, stop}));
            QCOMPARE(g.kernelCols, (IndexRange{0, 12}));
            QCOMPARE(g.outputCols, (IndexRange{0, 12}));
        }
    }

    // The groups' owned ranges tile the split dimension in order, each chunk wide.
    void planRangesTile() {
        for (const auto m : {ParallelMode::Column, ParallelMode::Row}) {
            const auto plan = ShardingPlan::make(m, 12, 20, 4);
            const Index split = m == ParallelMode::Column ? 20 : 12;
            QCOMPARE(plan.chunk, split / 4);
            Index next = 0;
            for (const ShardGroup& g : plan.groups) {
                QCOMPARE(g.owned, (IndexRange{next, next + plan.chunk}));
                QCOMPARE(m == ParallelMode::Column ? g.kernelCols : g.kernelRows, g.owned);
                next = g.owned.stop;
            }
            QCOMPARE(next, split);
        }
    }

    void matchesReference_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("inDim");
        QTest::addColumn<int>("features");
        QTest::addColumn<int>("mode");
        const struct {
            int n, in, f;
        } shapes[] = {{1, 2, 4},   {2, 8, 12},      {3, 7, 30},     {16, 64, 96},
                      {33, 12, 1}, {130, 24, 1100}, {300, 48, 2100}};
        for (const auto& s : shapes) {
            for (int mode : {0, 1}) {
                const QByteArray name = QByteArray::number(s.n) + "x" + QByteArray::number(s.in) +
                                        "x" + QByteArray::number(s.f) + (mode ? " row" : " column");
                QTest::newRow(name.constData()) << s.n << s.in << s.f << mode;
            }
        }
    }

    // Every valid tp size of each shape, from tp 1 to tp = the split dimension.
    void matchesReference() {
        QFETCH(int, batch);
        QFETCH(int, inDim);
        QFETCH(int, features);
        QFETCH(int, mode);
        const auto m = mode == 0 ? ParallelMode::Column : ParallelMode::Row;
        const Matrix x = randomMatrix(batch, inDim, 1);
        // Scaled as lecun_normal scales a kernel, so outputs are O(1) as in the app.
        const Matrix kernel = randomMatrix(inDim, features, 2) / std::sqrt(float(inDim));
        const RowVector bias = randomRow(features, 3);
        const Matrix reference = forwardReference(x, kernel, bias);
        const Index split = m == ParallelMode::Column ? features : inDim;
        for (std::int64_t tp : divisors(split)) {
            const auto plan = ShardingPlan::make(m, inDim, features, tp);
            const ForwardResult result = forwardParallel(x, kernel, bias, plan);
            const Verification v = verify(result.output, reference);
            QVERIFY2(v.allclose, qPrintable(QString("tp %1: max abs error %2, rel %3")
                                                .arg(tp)
                                                .arg(v.maxAbsError)
                                                .arg(v.maxRelError)));
            QCOMPARE(result.partials.size(), std::size_t(tp));
            for (std::size_t i = 0; i < result.partials.size(); ++i) {
                QCOMPARE(result.partials[i].rows(), Index(batch));
                QCOMPARE(result.partials[i].cols(),
                         m == ParallelMode::Column ? split / tp : Index(features));
            }
            if (m == ParallelMode::Column) {
                QVERIFY(partialsAreTheirColumns(result));
                QVERIFY(result.runningConcatenation(0) == result.partials[0]);
                QCOMPARE(result.runningConcatenation(tp - 1).cols(), Index(features));
            } else {
                QVERIFY(result.partialsAdded);
                Matrix expected = runningSum(result, tp - 1);
                expected.rowwise() += bias;
                QVERIFY(sameBits(result.output, expected));
            }
        }
    }

    // The row split of a deep layer reads the kernel by blocks of kGroupDepth terms, and its groups
    // end inside a block, on a block's edge or span several: its output is still its partials
    // added in group order, plus the bias, bit for bit, and within the rounding bound of the
    // reference.
    void rowSplitAcrossDepthBlocksAddsItsPartials() {
        const Index batch = 20, inDim = 2 * kGroupDepth + 52, features = 50;
        const Matrix x = randomMatrix(batch, inDim, 4);
        const Matrix kernel = randomMatrix(inDim, features, 5) / std::sqrt(float(inDim));
        const RowVector bias = randomRow(features, 6);
        const Matrix reference = forwardReference(x, kernel, bias);
        for (const std::int64_t tp : {1, 3, 7, 25}) {
            QVERIFY(inDim % tp == 0);
            const auto plan = ShardingPlan::make(ParallelMode::Row, inDim, features, tp);
            const ForwardResult result = forwardParallel(x, kernel, bias, plan);
            Matrix expected = runningSum(result, tp - 1);
            expected.rowwise() += bias;
            QVERIFY2(sameBits(result.output, expected), qPrintable(QString("tp %1").arg(tp)));
            QVERIFY2(verify(result.output, reference, x, kernel, bias).passed(),
                     qPrintable(QString("tp %1").arg(tp)));
        }
    }

    void runningSumsAddInGroupOrder_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("features");
        QTest::addColumn<int>("tp");
        QTest::newRow("1x1 tp1") << 1 << 1 << 1;
        QTest::newRow("3x5 tp4") << 3 << 5 << 4;
        // 64 x 512 x 8 elements: the threads share the rows of the one pass.
        QTest::newRow("64x512 tp8") << 64 << 512 << 8;
    }

    // The running sum after group k, made on demand, holds the bits of an element by element loop
    // over the partials in group order, whichever way it is reached (from the first partial, or one
    // addition from the sum before); the one pass over the rows (the output before its bias) holds
    // the last. The partials carry -0, subnormals, infinities and sums that overflow, where a
    // different order or a fused operation would show.
    void runningSumsAddInGroupOrder() {
        QFETCH(int, batch);
        QFETCH(int, features);
        QFETCH(int, tp);
        const float specials[] = {-0.f,  0.f,   1e-45f, -3e-39f,
                                  3e38f, 3e38f, -3e38f, std::numeric_limits<float>::infinity(),
                                  1.f,   1e-8f};
        ForwardResult result;
        result.partialsAdded = true;
        std::vector<Matrix> partials;
        for (int k = 0; k < tp; ++k) {
            Matrix partial = randomMatrix(batch, features, unsigned(10 + k));
            for (Index i = 0; i < partial.size(); i += 3)
                partial.data()[i] = specials[(i / 3 + k) % 10];
            partials.push_back(partial);
        }
        result.partials = std::move(partials);
        Matrix expected(batch, features);
        Matrix stepped;
        for (int k = 0; k < tp; ++k) {
            const Matrix& p = result.partials[std::size_t(k)];
            for (Index r = 0; r < batch; ++r)
                for (Index c = 0; c < features; ++c)
                    expected(r, c) = k == 0 ? p(r, c) : expected(r, c) + p(r, c);
            QVERIFY2(sameBits(runningSum(result, k), expected), qPrintable(QString::number(k)));
            stepped = nextRunningSum(result, stepped, k);
            QVERIFY2(sameBits(stepped, expected), qPrintable(QString::number(k)));
        }
        QVERIFY(sameBits(sumInGroupOrder(result.partials, std::size_t(tp)), expected));
    }

    // With at most kFewRows (8) batch rows every element is summed in order over k, wherever its
    // columns lie: the column split equals the full product bit for bit, at any tp and on any
    // thread count.
    void fewRowsColumnSplitIsTheFullProduct_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("features");
        QTest::newRow("1x300x5000") << 1 << 5000;
        QTest::newRow("2x300x5000") << 2 << 5000;
        QTest::newRow("4x300x4096") << 4 << 4096;
        QTest::newRow("3x300x24") << 3 << 24;
        QTest::newRow("8x300x4160") << 8 << 4160;
    }
    void fewRowsColumnSplitIsTheFullProduct() {
        QFETCH(int, batch);
        QFETCH(int, features);
        const Index inDim = 300;
        const Matrix x = randomMatrix(batch, inDim, 11);
        const Matrix kernel = randomMatrix(inDim, features, 12) / std::sqrt(float(inDim));
        const RowVector bias = randomRow(features, 13);
        const Matrix reference = forwardReference(x, kernel, bias);
        for (std::int64_t tp : {1, 2, 3, 8}) {
            if (features % tp != 0)
                continue;
            const auto plan = ShardingPlan::make(ParallelMode::Column, inDim, features, tp);
            const ForwardResult result = forwardParallel(x, kernel, bias, plan);
            QVERIFY2(result.output == reference, qPrintable(QString("tp %1").arg(tp)));
        }
    }

    // One read of the kernel for the split and the reference gives what their own passes give, bit
    // for bit: partials, output, reference and the kernel's largest |value| (nothing once the
    // kernel holds a NaN or an infinity), in both modes, with few rows and with more.
    void splitAndReferenceTogetherAreTheirOwnPasses_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("features");
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("rowMode");
        QTest::addColumn<float>("spoiler");
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        QTest::newRow("column 1x300x5000 tp1") << 1 << 5000 << 1 << false << 0.0f;
        QTest::newRow("column 2x300x4096 tp8") << 2 << 4096 << 8 << false << 0.0f;
        QTest::newRow("column 3x300x4800 tp3") << 3 << 4800 << 3 << false << 0.0f;
        QTest::newRow("column 4x300x24 tp2") << 4 << 24 << 2 << false << 0.0f;
        QTest::newRow("column 2x300x4096 tp8 nan") << 2 << 4096 << 8 << false << nan;
        QTest::newRow("column 2x300x600 tp3 -inf") << 2 << 600 << 3 << false << -inf;
        QTest::newRow("column 6x300x600 tp3") << 6 << 600 << 3 << false << 0.0f;
        QTest::newRow("column 8x300x4160 tp2") << 8 << 4160 << 2 << false << 0.0f;
        QTest::newRow("row 2x300x600 tp3") << 2 << 600 << 3 << true << 0.0f;
        QTest::newRow("row 2x300x600 tp3 inf") << 2 << 600 << 3 << true << inf;
    }
    void splitAndReferenceTogetherAreTheirOwnPasses() {
        QFETCH(int, batch);
        QFETCH(int, features);
        QFETCH(int, tp);
        QFETCH(bool, rowMode);
        QFETCH(float, spoiler);
        const Index inDim = 300;
        const Matrix x = randomMatrix(batch, inDim, 21);
        Matrix kernel = randomMatrix(inDim, features, 22) / std::sqrt(float(inDim));
        if (spoiler != 0.0f)
            kernel(inDim / 3, features / 2) = spoiler;
        const RowVector bias = randomRow(features, 23);
        const auto plan = ShardingPlan::make(rowMode ? ParallelMode::Row : ParallelMode::Column,
                                             inDim, features, tp);
        const ForwardResult split = forwardParallel(x, kernel, bias, plan);
        const Matrix reference = forwardReference(x, kernel, bias);

        const ForwardAndReference both = forwardWithReference(x, kernel, bias, plan);
        QCOMPARE(both.split.partials.size(), split.partials.size());
        for (std::size_t i = 0; i < split.partials.size(); ++i)
            QVERIFY2(sameBits(both.split.partials[i], split.partials[i]),
                     qPrintable(QString::number(i)));
        QVERIFY(sameBits(both.split.output, split.output));
        QVERIFY(sameBits(both.reference, reference));
        QCOMPARE(both.kernelMaxAbs, finiteMaxAbs(kernel));
        QCOMPARE(both.kernelMaxAbs.has_value(), spoiler == 0.0f);
    }

    // The reference's columns come from the kernel, not from the plan: a plan whose groups read
    // each other's columns (as a wrong split would) changes the split, never the reference, and
    // the check sees the difference.
    void referenceDoesNotFollowTheSplit() {
        const Index inDim = 200;
        const Index features = 600;
        const Matrix x = randomMatrix(2, inDim, 31);
        const Matrix kernel = randomMatrix(inDim, features, 32) / std::sqrt(float(inDim));
        const RowVector bias = randomRow(features, 33);
        ShardingPlan swapped = ShardingPlan::make(ParallelMode::Column, inDim, features, 3);
        std::swap(swapped.groups[0].kernelCols, swapped.groups[1].kernelCols);

        const ForwardAndReference both = forwardWithReference(x, kernel, bias, swapped);
        QVERIFY(sameBits(both.reference, forwardReference(x, kernel, bias)));
        QVERIFY(
            sameBits(both.split.output, forwardColumnParallel(x, kernel, bias, swapped).output));
        QVERIFY(!verify(both.split.output, both.reference).allclose);
    }

    void splitAndReferenceTogetherStopWhenCancelled() {
        const Matrix x = randomMatrix(2, 8, 7);
        const Matrix kernel = randomMatrix(8, 12, 8);
        const RowVector bias = randomRow(12, 9);
        const auto plan = ShardingPlan::make(ParallelMode::Column, 8, 12, 3);
        checkCancelAndProgress([&](Progress* p) { forwardWithReference(x, kernel, bias, plan, p); },
                               3);
    }

    // Each group reads the one kernel through a view: its data pointer lies inside the kernel.
    void slicesAreViewsOfTheKernel() {
        const Matrix kernel = randomMatrix(8, 12, 4);
        for (auto mode : {ParallelMode::Column, ParallelMode::Row}) {
            const auto plan = ShardingPlan::make(mode, 8, 12, 4);
            for (const ShardGroup& g : plan.groups) {
                const auto slice = kernelSlice(kernel, g);
                const float* expected =
                    kernel.data() + g.kernelRows.start * kernel.cols() + g.kernelCols.start;
                QCOMPARE(slice.data(), expected);
                QCOMPARE(slice.outerStride(), kernel.cols());
                QCOMPARE(slice.rows(), g.kernelRows.size());
                QCOMPARE(slice.cols(), g.kernelCols.size());
            }
        }
    }

    // The row-parallel bias is added once. Adding it to every partial sum, the classic mistake,
    // is off by (tp - 1) * bias, and the verification catches it.
    void rowBiasIsAddedOnce() {
        const Matrix x = randomMatrix(4, 16, 5);
        const Matrix kernel = randomMatrix(16, 6, 6);
        const RowVector bias = RowVector::Constant(6, 0.75f);
        const Matrix reference = forwardReference(x, kernel, bias);
        const Index tp = 4;
        const ForwardResult result =
            forwardRowParallel(x, kernel, bias, ShardingPlan::make(ParallelMode::Row, 16, 6, tp));
        QVERIFY(verify(result.output, reference).allclose);

        Matrix mistaken = Matrix::Zero(4, 6);
        for (const Matrix& partial : result.partials) {
            mistaken += partial;
            mistaken.rowwise() += bias;
        }
        const Verification wrong = verify(mistaken, reference);
        QVERIFY(!wrong.allclose);
        QVERIFY(qAbs(wrong.maxAbsError - (tp - 1) * 0.75) < 1e-4);
    }

    // Mapping the pages of a matrix's rows ahead of their writes writes nothing: rows already
    // written keep their values, including the rows that share a page with the mapped ones.
    void mappingRowsKeepsTheirValues() {
        // 2.4 MiB, marked for huge pages; written in place (assigning the temporary matrix
        // itself would take over its memory instead).
        Matrix m = uninitializedMatrix(600, 1000);
        m.array() = randomMatrix(600, 1000, 31).array();
        const Matrix before = m;
        mapRows(m, 101, 300);
        mapRows(m, 0, 600);
        QVERIFY(sameBits(m, before));
        Matrix fresh = uninitializedMatrix(600, 1000);
        mapRows(fresh, 0, 600);
        fresh.setConstant(2.5f);
        QVERIFY(fresh.isConstant(2.5f));
    }

    void partialsAreMadeOnce_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("column") << 0;
        QTest::newRow("row") << 1;
    }

    // A split's partials are made on first read, once, however many threads ask at the same
    // time, by the products its pass ran: the same bits as a pass that made them first.
    void partialsAreMadeOnce() {
        QFETCH(int, mode);
        const Matrix x = randomMatrix(140, 32, 11);
        const Matrix kernel = randomMatrix(32, 1500, 12);
        const RowVector bias = randomRow(1500, 13);
        const auto plan =
            ShardingPlan::make(mode ? ParallelMode::Row : ParallelMode::Column, 32, 1500, 4);
        const ForwardResult result = forwardParallel(x, kernel, bias, plan);
        const ForwardResult copy = result;
        std::vector<const Matrix*> seen(8);
        std::vector<std::thread> readers;
        for (std::size_t i = 0; i < seen.size(); ++i)
            readers.emplace_back([&, i] { seen[i] = &(i % 2 ? copy : result).partials[i % 4]; });
        for (std::thread& t : readers)
            t.join();
        for (std::size_t i = 0; i < seen.size(); ++i)
            QCOMPARE(seen[i], &result.partials[i % 4]);
        // Column mode at tp 4 on two threads runs two groups per product: partials of one run,
        // made at the same time by different readers, are still its columns of the output.
        if (mode == 0)
            QVERIFY(partialsAreTheirColumns(result));
        const ForwardResult again = forwardParallel(x, kernel, bias, plan);
        for (std::size_t g = 0; g < 4; ++g)
            QVERIFY(sameBits(again.partials[g], result.partials[g]));
        QVERIFY(sameBits(again.output, result.output));
    }

    void cancelledWorkStopsEarly() {
        const Matrix x = randomMatrix(2, 8, 7);
        const Matrix kernel = randomMatrix(8, 12, 8);
        const RowVector bias = randomRow(12, 9);
        const auto plan = ShardingPlan::make(ParallelMode::Column, 8, 12, 3);
        checkCancelAndProgress(
            [&](Progress* p) { forwardColumnParallel(x, kernel, bias, plan, p); }, 3);

        // The row split counts tp units over its tiles (here 9 of them, more than tp).
        const Matrix tall = randomMatrix(300, 8, 10);
        const Matrix wide = randomMatrix(8, 2100, 11);
        const RowVector wideBias = randomRow(2100, 12);
        const auto rowPlan = ShardingPlan::make(ParallelMode::Row, 8, 2100, 2);
        checkCancelAndProgress(
            [&](Progress* p) { forwardRowParallel(tall, wide, wideBias, rowPlan, p); }, 2);
    }
};

QTEST_APPLESS_MAIN(TestForward)
#include "tst_forward.moc"
