// Numbers at the edges: arrays holding NaN, infinities, denormals and huge magnitudes go through
// the split forward pass and the check, which never passes a non-finite output; a scene exactly at
// the memory budget is accepted and one byte over it is refused with a message.

#include "layer/forward.h"
#include "layer/verification.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace tp;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kDenormal = std::numeric_limits<float>::denorm_min();
constexpr float kMax = std::numeric_limits<float>::max();

// The brief's example arrays (x (1, 2), kernel (2, 4), bias (4)) with one value replaced.
struct Arrays {
    Matrix x{{1.f, 2.f}};
    Matrix kernel{{1.f, 0.f, 2.f, -1.f}, {0.f, 1.f, 1.f, 3.f}};
    RowVector bias{{0.5f, -0.5f, 1.f, 2.f}};
};

bool allFinite(const Matrix& m) {
    return m.array().isFinite().all();
}

// The split forward pass and its check, as computeScene runs them.
Verification splitAndCheck(const Arrays& a, ParallelMode mode, Index tpSize) {
    const ShardingPlan plan = ShardingPlan::make(mode, a.kernel.rows(), a.kernel.cols(), tpSize);
    const ForwardResult result = forwardParallel(a.x, a.kernel, a.bias, plan);
    const Matrix reference = forwardReference(a.x, a.kernel, a.bias);
    const Verification v = verify(result.output, reference);
    // The property under test, whatever the rule of the check: a non-finite output never passes.
    if (!allFinite(result.output) || !allFinite(reference))
        [&] { QVERIFY2(!v.allclose, "a non-finite output passed the check"); }();
    return v;
}

}  // namespace

class TestEdges : public QObject {
    Q_OBJECT

private slots:
    void nonFiniteInputsFailTheCheck_data() {
        QTest::addColumn<QString>("array");
        QTest::addColumn<int>("index");
        QTest::addColumn<float>("value");
        QTest::addColumn<bool>("column");
        for (const bool column : {true, false}) {
            const char* mode = column ? "column" : "row";
            QTest::addRow("nan in x, %s", mode) << "x" << 0 << kNan << column;
            QTest::addRow("nan in kernel, %s", mode) << "kernel" << 5 << kNan << column;
            QTest::addRow("nan in bias, %s", mode) << "bias" << 3 << kNan << column;
            QTest::addRow("inf in x, %s", mode) << "x" << 1 << kInf << column;
            QTest::addRow("-inf in kernel, %s", mode) << "kernel" << 2 << -kInf << column;
            QTest::addRow("inf in bias, %s", mode) << "bias" << 0 << kInf << column;
            QTest::addRow("max float in x overflows, %s", mode) << "x" << 1 << kMax << column;
            QTest::addRow("-max float in kernel overflows, %s", mode)
                << "kernel" << 7 << -kMax << column;
        }
    }
    void nonFiniteInputsFailTheCheck() {
        QFETCH(QString, array);
        QFETCH(int, index);
        QFETCH(float, value);
        QFETCH(bool, column);
        Arrays a;
        if (array == "x")
            a.x.data()[index] = value;
        else if (array == "kernel")
            a.kernel.data()[index] = value;
        else
            a.bias.data()[index] = value;
        const Verification v =
            splitAndCheck(a, column ? ParallelMode::Column : ParallelMode::Row, 2);
        QVERIFY(!v.allclose);
    }

    // inf against inf is "equal" to numpy's isclose, but an overflowed output is never a pass.
    void infinityAgainstInfinityFails() {
        const Matrix inf{{kInf, 1.f}};
        QVERIFY(!verify(inf, inf).allclose);
        const Matrix minusInf{{-kInf, 1.f}};
        QVERIFY(!verify(minusInf, minusInf).allclose);
        const Matrix nan{{kNan, 1.f}};
        QVERIFY(!verify(nan, nan).allclose);
        QVERIFY(!verify(Matrix{{1.f, 1.f}}, nan).allclose);
    }

    // Sums of huge but finite products that overflow float32 on the way.
    void hugeMagnitudesOverflowAndFail() {
        Arrays a;
        a.x = Matrix{{1e20f, 1e20f}};
        a.kernel.setConstant(1e20f);
        const Verification v = splitAndCheck(a, ParallelMode::Row, 2);
        QVERIFY(!v.allclose);
    }

    // Denormal inputs are ordinary small numbers: finite outputs that pass the check.
    void denormalsPass() {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            Arrays a;
            a.x = Matrix{{kDenormal, -kDenormal * 3}};
            a.kernel *= 1e-30f;
            a.bias.setConstant(kDenormal);
            const Verification v = splitAndCheck(a, mode, 2);
            QVERIFY(v.allclose);
            QCOMPARE(v.maxAbsError, 0.0);
        }
    }

    void sceneAtTheMemoryBudgetIsAccepted() {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            LayerConfig config;
            config.mode = mode;
            config.tpSize = 2;
            config.memoryBudgetBytes = bytesNeeded(config);
            QVERIFY(config.validate().empty());
            const std::optional<Scene> scene = computeScene({config, SceneSource::Nnx});
            QVERIFY(scene);
            QVERIFY(scene->verification.allclose);
        }
    }

    void sceneOneByteOverTheBudgetIsRefused() {
        for (const ParallelMode mode : {ParallelMode::Column, ParallelMode::Row}) {
            LayerConfig config;
            config.mode = mode;
            config.tpSize = 2;
            config.memoryBudgetBytes = bytesNeeded(config) - 1;
            const std::vector<ConfigProblem> problems = config.validate();
            QCOMPARE(problems.size(), size_t(1));
            QCOMPARE(problems[0].field, ConfigField::Memory);
            const QString message = QString::fromStdString(problems[0].message);
            QVERIFY2(message.contains(QString::number(bytesNeeded(config)) + " bytes") &&
                         message.contains("more than the memory budget"),
                     qPrintable(message));
        }
    }

    void allocationFailureHasAMessage() {
        LayerConfig config;
        config.inDim = 16384;
        config.features = 16384;
        const QString message = QString::fromStdString(allocationFailureMessage(config));
        QVERIFY2(message.startsWith("not enough memory for this scene") &&
                     message.contains(QString::number(bytesNeeded(config)) + " bytes") &&
                     message.contains("choose smaller sizes"),
                 qPrintable(message));
    }
};

QTEST_APPLESS_MAIN(TestEdges)
#include "tst_edges.moc"
