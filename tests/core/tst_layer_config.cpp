// LayerConfig validation, its messages, and the small parsers the CLI and the app share.

#include "config_problems.h"
#include "layer/layer_config.h"

#include <QTest>

using namespace tp;
using tp::test::messagesFor;

namespace {

// A (4, 8 -> 12) layer split tp ways, whose arrays' sizes the budget tests add up.
LayerConfig budgetScene(ParallelMode mode, std::int64_t tp) {
    LayerConfig config;
    config.mode = mode;
    config.batch = 4;
    config.inDim = 8;
    config.features = 12;
    config.tpSize = tp;
    return config;
}

}  // namespace

class TestLayerConfig : public QObject {
    Q_OBJECT

private slots:
    void defaultsAreValid() {
        const LayerConfig config;
        QVERIFY(config.validate().empty());
        QCOMPARE(config.chunk(), std::int64_t(4));
    }

    void messages_data() {
        QTest::addColumn<qint64>("batch");
        QTest::addColumn<qint64>("inDim");
        QTest::addColumn<qint64>("features");
        QTest::addColumn<qint64>("tp");
        QTest::addColumn<bool>("row");
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("message");
        QTest::newRow("batch 0") << 0LL << 8LL << 12LL << 3LL << false << int(ConfigField::Batch)
                                 << "batch N (0) must be a positive integer";
        QTest::newRow("in_dim -3") << 2LL << -3LL << 12LL << 3LL << false << int(ConfigField::InDim)
                                   << "in_dim (-3) must be a positive integer";
        QTest::newRow("features 0")
            << 2LL << 8LL << 0LL << 3LL << false << int(ConfigField::Features)
            << "features (0) must be a positive integer";
        QTest::newRow("tp 0") << 2LL << 8LL << 12LL << 0LL << false << int(ConfigField::TpSize)
                              << "tp_size (0) must be a positive integer";
        QTest::newRow("10 by 4")
            << 2LL << 8LL << 10LL << 4LL << false << int(ConfigField::TpSize)
            << "features (10) is not divisible by tp_size (4): each group needs the same "
               "number of kernel columns. Valid tp sizes: 1, 2, 5, 10.";
        QTest::newRow("row 8 by 3")
            << 2LL << 8LL << 12LL << 3LL << true << int(ConfigField::TpSize)
            << "in_dim (8) is not divisible by tp_size (3): each group needs the same "
               "number of kernel rows. Valid tp sizes: 1, 2, 4, 8.";
        QTest::newRow("tp above features")
            << 2LL << 8LL << 4LL << 8LL << false << int(ConfigField::TpSize)
            << "features (4) is not divisible by tp_size (8): each group needs "
               "the same number of kernel columns. Valid tp sizes: 1, 2, 4.";
        QTest::newRow("many divisors")
            << 2LL << 8LL << 720720LL << 7LL * 11 * 13 * 16 * 9 * 5 * 17 << false
            << int(ConfigField::TpSize)
            << "features (720720) is not divisible by tp_size (12252240): each group "
               "needs the same number of kernel columns. 240 tp sizes divide it, from "
               "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 to 720720.";
        QTest::newRow("huge features")
            << 2LL << 8LL << 9000000000000000001LL << 3LL << false << int(ConfigField::TpSize)
            << "features (9000000000000000001) is not divisible by tp_size (3): each "
               "group needs the same number of kernel columns. Choose a tp_size that "
               "divides it.";
        QTest::newRow("too big")
            << 1024LL << 65536LL << 65536LL << 1LL << false << int(ConfigField::Memory)
            << "this scene needs 17.0 GiB (18253873152 bytes), more than the memory "
               "budget of 2.0 GiB; choose smaller sizes";
        QTest::newRow("overflow")
            << 1LL << (1LL << 40) << (1LL << 40) << 1LL << false << int(ConfigField::Memory)
            << "this scene needs over 8.0 EiB, more than the memory budget of 2.0 GiB; choose "
               "smaller sizes";
    }

    void messages() {
        QFETCH(qint64, batch);
        QFETCH(qint64, inDim);
        QFETCH(qint64, features);
        QFETCH(qint64, tp);
        QFETCH(bool, row);
        QFETCH(int, field);
        QFETCH(QString, message);
        LayerConfig config;
        config.batch = batch;
        config.inDim = inDim;
        config.features = features;
        config.tpSize = tp;
        config.mode = row ? ParallelMode::Row : ParallelMode::Column;
        QCOMPARE(messagesFor(config, ConfigField(field)), message);
    }

    void everyProblemIsReported() {
        LayerConfig config;
        config.batch = 0;
        config.inDim = 0;
        config.features = 10;
        config.tpSize = 4;
        config.bias = BiasInit{BiasInit::Kind::Normal, -1.0f};
        const auto problems = config.validate();
        QCOMPARE(problems.size(), std::size_t(4));
        QCOMPARE(messagesFor(config, ConfigField::Bias),
                 QString("bias stddev (-1) must be a finite number above 0"));
    }

    // From tp 4 on a thread's groups may run as one product, and making their partials again
    // holds it beside them: at most half the output's columns.
    void columnModeBudgetCountsARunBesideThePartials() {
        LayerConfig config = budgetScene(ParallelMode::Column, 2);
        // kernel 96 + x 32 + bias 12 + reference and output 96 + the partials 48.
        QCOMPARE(bytesNeeded(config), std::int64_t(4 * (96 + 32 + 12 + 96 + 48)));
        config.tpSize = 4;
        // ... and one run's product, 24.
        QCOMPARE(bytesNeeded(config), std::int64_t(4 * (96 + 32 + 12 + 96 + 48 + 24)));
    }

    void rowModeBudgetCountsEveryPartialSum() {
        LayerConfig config = budgetScene(ParallelMode::Row, 4);
        // kernel 96 + x 32 + bias 12 + reference and output 96 + 4 partials and 1 running sum 240.
        QCOMPARE(bytesNeeded(config), std::int64_t(4 * (96 + 32 + 12 + 96 + 240)));
        config.memoryBudgetBytes = bytesNeeded(config) - 1;
        QVERIFY(messagesFor(config, ConfigField::Memory).endsWith("or a smaller tp_size"));
        config.memoryBudgetBytes += 1;
        QVERIFY(config.validate().empty());
    }

    void divisorsInOrder() {
        QCOMPARE(divisors(12), (std::vector<std::int64_t>{1, 2, 3, 4, 6, 12}));
        QCOMPARE(divisors(1), (std::vector<std::int64_t>{1}));
        QCOMPARE(divisors(49), (std::vector<std::int64_t>{1, 7, 49}));
        QVERIFY(divisors(0).empty());
    }

    // Past 10^12 the nearest divisor is searched outward from the one wanted, not by listing
    // them all (sqrt(n) steps: 11 s near 2^63), with the same answer where one lies near.
    void nearestDivisorOfHugeSizes() {
        const std::int64_t big = std::int64_t(1) << 62;
        QCOMPARE(nearestDivisor(big, 3), std::int64_t(2));  // 2 and 4 tie: the smaller
        QCOMPARE(nearestDivisor(big, 6), std::int64_t(4));
        QCOMPARE(nearestDivisor(big, 1000), std::int64_t(1024));
        QCOMPARE(nearestDivisor(big, INT64_MAX), big);
        QCOMPARE(nearestDivisor(INT64_MAX, 4), std::int64_t(1));  // 7 is 3 away, 1 is too
        QCOMPARE(nearestDivisor(INT64_MAX, 6), std::int64_t(7));
        QCOMPARE(nearestDivisor(big - 1, 4), std::int64_t(3));  // 2^62 - 1 = 3 x ...
        QCOMPARE(formatBytes(INT64_MAX), std::string("over 8.0 EiB"));
        QCOMPARE(formatBytesExactly(std::int64_t(3) << 30),
                 std::string("3.0 GiB (3221225472 bytes)"));
    }

    void parsers() {
        QCOMPARE(parseInt64("-9223372036854775808"), std::optional<std::int64_t>(INT64_MIN));
        QCOMPARE(parseInt64("+42"), std::optional<std::int64_t>(42));
        QVERIFY(!parseInt64("9223372036854775808"));
        QVERIFY(!parseInt64("12abc"));
        QVERIFY(!parseInt64("1.5"));
        QVERIFY(!parseInt64(""));
        QVERIFY(!parseInt64("+-1"));
        QCOMPARE(parseTolerance(" 1e-05 "), std::optional<double>(1e-5));
        QCOMPARE(parseTolerance("0"), std::optional<double>(0.0));
        QCOMPARE(parseTolerance("+.5"), std::optional<double>(0.5));
        std::string why;
        for (const char* bad : {"-1", "inf", "nan", "1e-5x", "", "0x10"}) {
            QVERIFY2(!parseTolerance(bad, &why), bad);
            QCOMPARE(why, std::string("is not a number >= 0"));
        }
        for (const char* far : {"1e400", "1e-400"}) {
            QVERIFY2(!parseTolerance(far, &why), far);
            QVERIFY2(why.starts_with("is beyond a double's range"), far);
        }
        QCOMPARE(parseParallelMode("row"), std::optional<ParallelMode>(ParallelMode::Row));
        QVERIFY(!parseParallelMode("diagonal"));
        QCOMPARE(parsePrngLayout("legacy"), std::optional<PrngLayout>(PrngLayout::Legacy));
        QCOMPARE(parseBiasInit("normal:0.5"),
                 std::optional<BiasInit>(BiasInit{BiasInit::Kind::Normal, 0.5f}));
        QCOMPARE(parseBiasInit("zeros"), std::optional<BiasInit>(BiasInit{}));
        QVERIFY(!parseBiasInit("normal:"));
        QVERIFY(!parseBiasInit("normal:-1"));
        QVERIFY(!parseBiasInit("normal:inf"));
        QCOMPARE(toString(BiasInit{BiasInit::Kind::Normal, 0.1f}), std::string("normal:0.1"));
    }
};

QTEST_APPLESS_MAIN(TestLayerConfig)
#include "tst_layer_config.moc"
