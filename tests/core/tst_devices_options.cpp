// The mesh options of the shared scene options, and the costs object of the JSON report.

#include "scene/report.h"
#include "scene/scene_options.h"
#include "scene/scene_request.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace tp;

namespace {

QStringList errorsOf(const SceneOptionsParse& parse) {
    QStringList errors;
    for (const std::string& e : parse.errors)
        errors << QString::fromStdString(e);
    return errors;
}

}  // namespace

class TestDevicesOptions : public QObject {
    Q_OBJECT

private slots:
    void meshOptions() {
        const SceneOptionsParse parse =
            parseSceneOptions({"--batch", "4", "--tp", "4", "--mode", "row", "--data=2", "--output",
                               "sharded", "--costs", "--hardware", "tpu-v5e"});
        QVERIFY2(parse.errors.empty(), qPrintable(errorsOf(parse).join('\n')));
        const SceneOptions& o = parse.options;
        QCOMPARE(o.config.dataSize, std::int64_t(2));
        QVERIFY(o.config.output == OutputLayout::Sharded);
        QVERIFY(o.costs);
        QCOMPARE(o.hardware, findHardware("tpu-v5e"));
        QVERIFY(!o.listHardware);
    }

    void defaults() {
        const SceneOptions o = parseSceneOptions({}).options;
        QCOMPARE(o.config.dataSize, std::int64_t(1));
        QVERIFY(!o.config.output);
        QVERIFY(!o.costs);
        QCOMPARE(o.hardware, &defaultHardware());
    }

    void hardwareList() {
        const SceneOptionsParse parse = parseSceneOptions({"--hardware", "list", "--data", "5"});
        QVERIFY(parse.options.listHardware);
        QVERIFY(parse.errors.empty());  // like --help, nothing else is validated
        const QString list = QString::fromStdString(hardwareListText());
        // A line per preset, then an indented line per kind with its own figures.
        QStringList lines = list.split('\n', Qt::SkipEmptyParts);
        for (const HardwarePreset& preset : hardwarePresets()) {
            QVERIFY(!lines.isEmpty());
            const bool byDefault = &preset == &defaultHardware();
            QVERIFY(lines.takeFirst().startsWith(
                QString::fromStdString(preset.name + (byDefault ? " (default): " : ": "))));
            for (const auto& [kind, link] : preset.ownLinks) {
                QVERIFY(!lines.isEmpty());
                QCOMPARE(lines.takeFirst().section(": alpha", 0, 0),
                         "  its " + QString::fromUtf8(toString(kind).data()));
            }
        }
        QVERIFY2(lines.isEmpty(), qPrintable(list));
        QVERIFY2(list.contains("h100-nvlink (default): alpha 3.40 µs per ring step, beta 370 GB/s, "
                               "346.3 TFLOP/s, memory 3015 GB/s, launch 4.00 µs."),
                 qPrintable(list));
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("data word") << QStringList{"--data", "two"}
                                   << "--data: 'two' is not a whole number in the int64 range";
        QTest::newRow("output word") << QStringList{"--output", "gathered"}
                                     << "--output: 'gathered' is not sharded or replicated";
        QTest::newRow("unknown hardware")
            << QStringList{"--costs", "--hardware", "h100"}
            << "--hardware: 'h100' is not a preset; choose one of h100-nvlink, h200-nvlink, "
               "a100-pcie, tpu-v4, tpu-v5e, this-machine (--hardware list shows their figures), "
               "or a FILE.json of a preset's figures";
        QTest::newRow("hardware without costs")
            << QStringList{"--hardware", "tpu-v4"}
            << "--hardware sets the hardware of the --costs estimate; add --costs";
        QTest::newRow("costs with python")
            << QStringList{"--costs", "--python"}
            << "--costs adds to a report; it cannot be combined with --python";
        QTest::newRow("batch not divisible by data")
            << QStringList{"--batch", "6", "--data", "4"}
            << "batch N (6) is not divisible by data (4): each row of devices on the data axis "
               "needs the same number of batch rows. Valid data sizes: 1, 2, 3, 6.";
    }

    void refusals() {
        QFETCH(QStringList, args);
        std::vector<std::string> list;
        for (const QString& a : args)
            list.push_back(a.toStdString());
        QTEST(errorsOf(parseSceneOptions(list)).join('\n'), "error");
    }

    void helpListsTheMeshOptions() {
        const QString help = QString::fromStdString(sceneOptionsHelp());
        for (const char* name : {"--data D", "--output sharded|replicated", "--costs",
                                 "--hardware NAME|FILE.json|list"})
            QVERIFY2(help.contains(name), name);
    }

    // The costs object, in process: row mode, tp 4, data 2, all-reduce, on tpu-v4.
    void jsonCosts() {
        const LayerConfig config{.batch = 4,
                                 .inDim = 8,
                                 .features = 12,
                                 .tpSize = 4,
                                 .mode = ParallelMode::Row,
                                 .dataSize = 2};
        const Scene scene = *computeScene({config, SceneSource::Nnx});
        const SceneCosts costs = computeSceneCosts(scene, *findHardware("tpu-v4"));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(
            QByteArray::fromStdString(jsonReport(scene, true, &costs)), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject c = doc["costs"].toObject();
        // Nd = 2: kernel 2*12*4, bias 12*4, x 2*2*4, partial and output 2*12*4, flops 2*2*2*12;
        // all-reduce: 2 * 3/4 * 96 bytes in 6 steps; at rest kernel, bias and x, at the peak the
        // partial sum beside them.
        const QJsonObject expected = QJsonDocument::fromJson(R"({
            "mesh": {"data": 2, "model": 4}, "devices": 8, "output_layout": "replicated",
            "per_device": {"kernel_bytes": 96, "bias_bytes": 48, "x_bytes": 16,
                           "partial_bytes": 96, "output_bytes": 96, "flops": 96,
                           "kernel_bytes_at_rest": 96, "kernel_bytes_peak": 96,
                           "bias_bytes_at_rest": 48, "bias_bytes_peak": 48,
                           "x_bytes_at_rest": 16, "x_bytes_peak": 16,
                           "output_bytes_at_rest": 96, "output_bytes_peak": 96,
                           "bytes_at_rest": 160, "bytes_peak": 256},
            "collective": {"name": "all-reduce", "axis": "model", "bytes_sent_per_device": 144,
                           "ring_steps": 6},
            "estimate": {},
            "layout": "tensor",
            "collectives": [{"name": "all-reduce", "phase": "forward", "axis": "model",
                             "of": "output", "bytes_sent_per_device": 144, "ring_steps": 6}]})")
                                         .object();
        QJsonObject actual = c;
        const QJsonObject estimate = actual.take("estimate").toObject();
        actual["estimate"] = QJsonObject();
        // Each collective's time and the layouts side by side are tst_cli_costs' and
        // tst_layout_costs'; here the all-reduce's time is the estimate's communication.
        const QJsonArray layouts = actual.take("layouts").toArray();
        QCOMPARE(layouts.size(), 3);
        QJsonArray collectives = actual.take("collectives").toArray();
        QJsonObject allReduce = collectives[0].toObject();
        const double allReduceSeconds = allReduce.take("time_s").toDouble();
        collectives[0] = allReduce;
        actual["collectives"] = collectives;
        QCOMPARE(actual, expected);
        // The product reads kernel 96, x 16 and writes the partial 96 bytes: memory-bound, its
        // time the launch's; the all-reduce sends 6 chunks of 24 bytes, latency-bound.
        const HardwarePreset& tpu = *findHardware("tpu-v4");
        const QJsonObject product = estimate["product"].toObject();
        QCOMPARE(product["bytes_moved"].toInteger(), 208);
        QCOMPARE(product["memory_s"].toDouble(), 208 / tpu.memoryBytesPerSecond);
        QCOMPARE(product["bound"].toString(), QString("memory"));
        QCOMPARE(estimate["compute_s"].toDouble(), 208 / tpu.memoryBytesPerSecond + 2e-6);
        const QJsonObject collective = estimate["collective"].toObject();
        QCOMPARE(collective["steps"].toInteger(), 6);
        QCOMPARE(collective["chunk_bytes"].toInteger(), 24);
        QCOMPARE(collective["latency_s"].toDouble(), 6e-6);
        QCOMPARE(collective["bandwidth_s"].toDouble(), 144 / 45e9);
        QCOMPARE(collective["bound"].toString(), QString("latency"));
        QCOMPARE(estimate["bound"].toString(), QString("communication"));
        QCOMPARE(allReduceSeconds, estimate["communication_s"].toDouble());
        QVERIFY(costs.ring.check.passed());

        QVERIFY(!QJsonDocument::fromJson(QByteArray::fromStdString(jsonReport(scene, true)))
                     .object()
                     .contains("costs"));
    }
};

QTEST_APPLESS_MAIN(TestDevicesOptions)
#include "tst_devices_options.moc"
