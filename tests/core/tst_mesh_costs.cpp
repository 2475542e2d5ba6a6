// The device mesh: each device's bytes and FLOPs, the collective's traffic, the refusals of the
// mesh settings. The time estimate's tests are in tst_cost_model.

#include "config_problems.h"
#include "devices/mesh_costs.h"

#include <QTest>

using namespace tp;
using tp::test::messagesFor;

Q_DECLARE_METATYPE(tp::LayerConfig)

class TestMeshCosts : public QObject {
    Q_OBJECT

private slots:
    // Expected values are worked out by hand from the formulas, not by calling them.
    void formulas_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<QList<qint64>>("holdings");  // kernel, bias, x, partial, output, flops
        QTest::addColumn<QString>("collective");
        QTest::addColumn<qint64>("sent");
        QTest::addColumn<qint64>("steps");
        QTest::addColumn<qint64>("devices");

        const LayerConfig big{.batch = 8, .inDim = 4096, .features = 16384, .tpSize = 8};
        QTest::newRow("column 8x4096x16384 tp8 sharded")
            << big << QList<qint64>{33554432, 8192, 131072, 0, 65536, 134217728} << "none" << 0LL
            << 0LL << 8LL;
        LayerConfig bigGather = big;
        bigGather.output = OutputLayout::Replicated;
        QTest::newRow("column 8x4096x16384 tp8 replicated")
            << bigGather << QList<qint64>{33554432, 8192, 131072, 0, 524288, 134217728}
            << "all-gather" << 458752LL << 7LL << 8LL;
        LayerConfig bigRow = big;
        bigRow.mode = ParallelMode::Row;
        QTest::newRow("row 8x4096x16384 tp8 replicated")
            << bigRow << QList<qint64>{33554432, 65536, 16384, 524288, 524288, 134217728}
            << "all-reduce" << 917504LL << 14LL << 8LL;
        QTest::newRow("row 6x12x8 tp4 data3 sharded")
            << LayerConfig{.batch = 6,
                           .inDim = 12,
                           .features = 8,
                           .tpSize = 4,
                           .mode = ParallelMode::Row,
                           .dataSize = 3,
                           .output = OutputLayout::Sharded}
            << QList<qint64>{96, 32, 24, 64, 16, 96} << "reduce-scatter" << 48LL << 3LL << 12LL;
        QTest::newRow("column 4x6x10 tp5 data2 replicated")
            << LayerConfig{.batch = 4,
                           .inDim = 6,
                           .features = 10,
                           .tpSize = 5,
                           .dataSize = 2,
                           .output = OutputLayout::Replicated}
            << QList<qint64>{48, 8, 48, 0, 80, 48} << "all-gather" << 64LL << 4LL << 10LL;
        QTest::newRow("row 2x8x12 tp1: no collective")
            << LayerConfig{.batch = 2,
                           .inDim = 8,
                           .features = 12,
                           .tpSize = 1,
                           .mode = ParallelMode::Row}
            << QList<qint64>{384, 48, 64, 96, 96, 384} << "none" << 0LL << 0LL << 1LL;
        QTest::newRow("row 3x10x7 tp2 replicated, features not divisible")
            << LayerConfig{.batch = 3,
                           .inDim = 10,
                           .features = 7,
                           .tpSize = 2,
                           .mode = ParallelMode::Row}
            // V = 3*7*4 = 84 bytes; all-reduce sends 2*1/2*84 = 84 in 2 steps.
            << QList<qint64>{140, 28, 60, 84, 84, 210} << "all-reduce" << 84LL << 2LL << 2LL;
    }

    void formulas() {
        QFETCH(LayerConfig, config);
        QFETCH(QList<qint64>, holdings);
        QFETCH(QString, collective);
        QVERIFY(config.validate().empty());
        const MeshCosts costs = meshCosts(config);
        const DeviceHoldings& h = costs.perDevice;
        QCOMPARE((QList<qint64>{h.kernelBytes, h.biasBytes, h.xBytes, h.partialBytes, h.outputBytes,
                                h.flops}),
                 holdings);
        QCOMPARE(QString::fromUtf8(toString(costs.collective.kind).data()), collective);
        QTEST(qint64(costs.collective.bytesSentPerDevice), "sent");
        QTEST(qint64(costs.collective.ringSteps), "steps");
        QTEST(qint64(costs.devices), "devices");
        QCOMPARE(costs.devices, costs.data * costs.model);
    }

    void defaultLayouts() {
        LayerConfig config;
        QVERIFY(config.outputLayout() == OutputLayout::Sharded);
        config.mode = ParallelMode::Row;
        QVERIFY(config.outputLayout() == OutputLayout::Replicated);
        config.output = OutputLayout::Sharded;
        QVERIFY(config.outputLayout() == OutputLayout::Sharded);
        QVERIFY(*parseOutputLayout("replicated") == OutputLayout::Replicated);
        QVERIFY(*parseOutputLayout("sharded") == OutputLayout::Sharded);
        QVERIFY(!parseOutputLayout("gathered"));
    }

    void refusals_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("batch 6 data 4")
            << LayerConfig{.batch = 6, .dataSize = 4} << int(ConfigField::Data)
            << "batch N (6) is not divisible by data (4): each row of devices on the data axis "
               "needs the same number of batch rows. Valid data sizes: 1, 2, 3, 6.";
        QTest::newRow("data 0") << LayerConfig{.dataSize = 0} << int(ConfigField::Data)
                                << "data D (0) must be a positive integer";
        QTest::newRow("row sharded, features 10 tp 4")
            << LayerConfig{.batch = 2,
                           .inDim = 8,
                           .features = 10,
                           .tpSize = 4,
                           .mode = ParallelMode::Row,
                           .output = OutputLayout::Sharded}
            << int(ConfigField::Output)
            << "features (10) is not divisible by tp_size (4): a sharded row-parallel output is a "
               "reduce-scatter over features, and each device keeps the same number of output "
               "columns. Valid tp sizes (dividing both in_dim and features): 1, 2. Or use the "
               "replicated output (an all-reduce).";
    }

    void refusals() {
        QFETCH(LayerConfig, config);
        QFETCH(int, field);
        QTEST(messagesFor(config, ConfigField(field)), "message");
        QCOMPARE(int(config.validate().size()), 1);
    }

    void rowReplicatedNeedsNoDivisibleFeatures() {
        const LayerConfig config{
            .batch = 2, .inDim = 8, .features = 10, .tpSize = 4, .mode = ParallelMode::Row};
        QVERIFY(config.validate().empty());
    }
};

QTEST_APPLESS_MAIN(TestMeshCosts)
#include "tst_mesh_costs.moc"
