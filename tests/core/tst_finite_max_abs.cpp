// The kernel's colour scale: its largest |element| when all are finite, found in one pass, and the
// scene's copy of it whichever pass computed the scene.

#include "layer/finite_max_abs.h"
#include "random_matrix.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace tp;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

using test::randomMatrix;

}  // namespace

class TestFiniteMaxAbs : public QObject {
    Q_OBJECT

private slots:
    // Small matrices and large ones (shared by the threads), the largest element of either sign,
    // anywhere, with a non-finite value at the first, a middle or the last element.
    void largestOfFiniteNothingOtherwise_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<float>("spoiler");
        QTest::addColumn<int>("where");  // the spoiler's element, counted row by row
        for (const auto& [rows, cols] : {std::pair{1, 7}, {3, 5}, {300, 700}, {1, 100000}}) {
            const int last = rows * cols - 1;
            const QString shape = QString("%1x%2").arg(rows).arg(cols);
            QTest::newRow(qPrintable(shape + " finite")) << rows << cols << 0.0f << 0;
            QTest::newRow(qPrintable(shape + " nan first")) << rows << cols << kNan << 0;
            QTest::newRow(qPrintable(shape + " inf middle")) << rows << cols << kInf << last / 2;
            QTest::newRow(qPrintable(shape + " -inf last")) << rows << cols << -kInf << last;
        }
    }
    void largestOfFiniteNothingOtherwise() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(float, spoiler);
        QFETCH(int, where);
        Matrix m = randomMatrix(rows, cols, unsigned(rows * 31 + cols));
        // The largest |element| negative, so that a maximum of signed values would miss it.
        m(rows / 2, cols / 3) = -9.5f;
        QCOMPARE(finiteMaxAbs(m), std::optional(9.5f));
        if (spoiler == 0.0f)
            return;
        m(where / cols, where % cols) = spoiler;
        QVERIFY(!finiteMaxAbs(m).has_value());
    }

    void emptyAndZerosGiveZero() {
        QCOMPARE(finiteMaxAbs(Matrix(0, 0)), std::optional(0.0f));
        QCOMPARE(finiteMaxAbs(Matrix(0, 4)), std::optional(0.0f));
        QCOMPARE(finiteMaxAbs(Matrix(4, 0)), std::optional(0.0f));
        Matrix zeros = Matrix::Zero(2, 3);
        zeros(1, 1) = -0.0f;
        const std::optional<float> zero = finiteMaxAbs(zeros);
        QVERIFY(zero.has_value());
        QCOMPARE(std::signbit(*zero), false);
        QCOMPARE(*zero, 0.0f);
    }

    // The extremes of float: the largest finite value is finite, the smallest subnormal is larger
    // than zero.
    void extremesOfFloat() {
        Matrix m = Matrix::Zero(2, 2);
        m(1, 0) = -std::numeric_limits<float>::max();
        QCOMPARE(finiteMaxAbs(m), std::optional(std::numeric_limits<float>::max()));
        m(1, 0) = std::numeric_limits<float>::denorm_min();
        QCOMPARE(finiteMaxAbs(m), std::optional(std::numeric_limits<float>::denorm_min()));
    }

    // A view reads its own elements only, not the rest of its rows.
    void viewReadsOnlyItsElements() {
        Matrix m = Matrix::Constant(4, 6, 1.0f);
        m(0, 5) = 50.0f;
        m(3, 0) = kNan;
        m(2, 2) = -3.0f;
        QCOMPARE(finiteMaxAbs(m.block(0, 1, 3, 4)), std::optional(3.0f));
    }

    // computeScene leaves the kernel's colour scale in the scene whichever pass computed it: the
    // split and the reference together (column, few rows), one after the other (more rows, row
    // mode) or with a mistake.
    void sceneCarriesTheKernelsScale_data() {
        QTest::addColumn<int>("batch");
        QTest::addColumn<bool>("rowMode");
        QTest::addColumn<int>("mistake");
        QTest::newRow("column batch 2") << 2 << false << int(Mistake::None);
        QTest::newRow("column batch 6") << 6 << false << int(Mistake::None);
        QTest::newRow("row batch 2") << 2 << true << int(Mistake::None);
        QTest::newRow("column batch 2 sum groups") << 2 << false << int(Mistake::SumGroups);
    }
    void sceneCarriesTheKernelsScale() {
        QFETCH(int, batch);
        QFETCH(bool, rowMode);
        QFETCH(int, mistake);
        LayerConfig config;
        config.batch = batch;
        config.inDim = 16;
        config.features = 24;
        config.tpSize = 4;
        config.mode = rowMode ? ParallelMode::Row : ParallelMode::Column;
        const std::optional<Scene> scene =
            computeScene({config, SceneSource::Nnx, SceneRun{Mistake(mistake), {}}});
        QVERIFY(scene.has_value());
        const float largest = scene->params.kernel.cwiseAbs().maxCoeff();
        QVERIFY(largest > 0.0f);
        QCOMPARE(scene->kernelMaxAbs, std::optional(largest));
    }
};

QTEST_APPLESS_MAIN(TestFiniteMaxAbs)
#include "tst_finite_max_abs.moc"
