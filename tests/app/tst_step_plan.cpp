// The steps of the walk and the equation line of each.

#include "step_plan.h"

#include <QTest>

using namespace tp;

class TestStepPlan : public QObject {
    Q_OBJECT

private slots:
    void equation_data() {
        QTest::addColumn<int>("mode");  // 0 column, 1 row
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("step");
        QTest::addColumn<QString>("expected");
        QTest::newRow("2x8x12 tp3 column group 1")
            << 0 << 3 << 2 << "y[:, 4:8] = x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)";
        QTest::newRow("2x8x12 tp3 column group 0")
            << 0 << 3 << 1 << "y[:, 0:4] = x @ kernel[:, 0:4] + bias[0:4]   (2x8 @ 8x4 + 4)";
        QTest::newRow("2x8x12 tp4 row group 1")
            << 1 << 4 << 2 << "sum += x[:, 2:4] @ kernel[2:4, :]   (2x2 @ 2x12)";
        QTest::newRow("2x8x12 tp4 row bias")
            << 1 << 4 << 5 << "y = sum + bias   (2x12 + 12, bias added once)";
    }
    void equation() {
        QFETCH(int, mode);
        QFETCH(int, tp);
        QFETCH(int, step);
        QFETCH(QString, expected);
        const LayerConfig c =
            LayerConfig{.batch = 2,
                        .inDim = 8,
                        .features = 12,
                        .tpSize = tp,
                        .mode = mode == 0 ? ParallelMode::Column : ParallelMode::Row};
        QCOMPARE(equationText(c, step), expected);
    }

    void startNamesTheWholeLayer() {
        const QString text = equationText(
            LayerConfig{
                .batch = 2, .inDim = 8, .features = 12, .tpSize = 3, .mode = ParallelMode::Column},
            0);
        QVERIFY2(text.startsWith("y = x @ kernel + bias"), qPrintable(text));
        QVERIFY(text.contains("2x8 @ 8x12 + 12"));
    }

    void states_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("step");
        QTest::addColumn<int>("done");
        QTest::addColumn<int>("current");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("complete");
        QTest::newRow("column start") << 0 << 0 << 0 << -1 << false << false;
        QTest::newRow("column group 0") << 0 << 1 << 1 << 0 << false << false;
        QTest::newRow("column last") << 0 << 3 << 3 << 2 << false << true;
        QTest::newRow("column past end clamps") << 0 << 9 << 3 << 2 << false << true;
        QTest::newRow("row group 2") << 1 << 3 << 3 << 2 << false << false;
        QTest::newRow("row bias") << 1 << 4 << 3 << -1 << true << true;
    }
    void states() {
        QFETCH(int, mode);
        QFETCH(int, step);
        const LayerConfig c =
            LayerConfig{.batch = 2,
                        .inDim = 6,
                        .features = 6,
                        .tpSize = 3,
                        .mode = mode == 0 ? ParallelMode::Column : ParallelMode::Row};
        QCOMPARE(stepCount(c), mode == 0 ? 4 : 5);
        const StepState s = stepState(c, step);
        QTEST(s.groupsDone, "done");
        QTEST(s.currentGroup, "current");
        QTEST(s.biasAdded, "bias");
        QTEST(s.complete, "complete");
    }
};

QTEST_APPLESS_MAIN(TestStepPlan)
#include "tst_step_plan.moc"
