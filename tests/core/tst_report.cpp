// tpviz-cli's reports in process: the text and JSON of the brief's example in both modes, a small
// nnx.Linear scene bit for bit, summaries, and numpy-style shortening of big arrays.

#include "config_fixtures.h"
#include "layer/float_format.h"
#include "scene/report.h"
#include "scene/scene.h"
#include "scene/scene_request.h"
#include "test_vectors.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <QTest>

#include <limits>
#include <sstream>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)

namespace {

Scene brief(ParallelMode mode) {
    LayerConfig config = briefExampleConfig();
    config.mode = mode;
    return *computeScene({config, SceneSource::Brief});
}

QJsonObject parse(const std::string& json) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON at offset %d: %s", error.offset, qPrintable(error.errorString()));
    return doc.object();
}

// A JSON matrix (nested lists) as the float32 values it spells.
std::vector<float> floats(const QJsonValue& rows) {
    std::vector<float> values;
    for (const QJsonValue& row : rows.toArray()) {
        if (row.isArray()) {
            for (const QJsonValue& v : row.toArray())
                values.push_back(float(v.toDouble()));
        } else {
            values.push_back(float(row.toDouble()));
        }
    }
    return values;
}

std::vector<std::uint32_t> bitsOf(const std::vector<float>& values) {
    return test::floatBits(values.data(), Index(values.size()));
}

QStringList keys(const QJsonObject& object) {
    QStringList names = object.keys();
    names.sort();
    return names;
}

}  // namespace

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void briefColumnText() {
        const QString text = QString::fromStdString(textReport(brief(ParallelMode::Column)));
        const QString expected =
            "column-parallel split of the worked example, batch 1, tp_size 2, chunk = "
            "features / tp_size = 2\n"
            "\nx (1, 2), the full input:\n"
            "  1  2\n"
            "\nkernel (2, 4):\n"
            "   1   0   2  -1\n"
            "   0   1   1   3\n"
            "\nbias (4,):\n"
            "   0.5  -0.5     1     2\n"
            "\ngroups:\n"
            "  group 0: columns [0:2)   y[:, 0:2] = x @ kernel[:, 0:2] + bias[0:2]   (1x2 @ 2x2 + "
            "2)\n"
            "    partial (1, 2):\n"
            "      1.5  1.5\n"
            "  group 1: columns [2:4)   y[:, 2:4] = x @ kernel[:, 2:4] + bias[2:4]   (1x2 @ 2x2 + "
            "2)\n"
            "    partial (1, 2):\n"
            "      5  7\n"
            "\noutput (1, 4), the partials concatenated in group order (never summed):\n"
            "  1.5  1.5    5    7\n"
            "\nreference x @ kernel + bias:\n"
            "  1.5  1.5    5    7\n"
            "\nverification: passed: every element is bit-identical to the reference\n"
            "  rounding bound: |y - ref| <= 2 * min(gamma~(K + 1), gamma(K + 1)) * (|x| @ "
            "|kernel| + |bias|), gamma~(n) = exp(11 * sqrt(n) * u + n * u^2 / (1 - u)) - 1 "
            "(Higham and Mary's probabilistic bound: a correct split exceeds it with a chance "
            "below 1e-9), gamma(n) = n*u / (1 - n*u) (the worst case), u = 2^-24, K = in_dim = "
            "2\n"
            "  bit-identical: 4 of 4 elements; max ULP difference 0\n"
            "  max abs error 0, max rel error 0 (worst at row 0, column 0); allclose yes (rtol "
            "1e-05, atol 1e-06)\n";
        QCOMPARE(text, expected);
    }

    void briefRowText() {
        const QString text = QString::fromStdString(textReport(brief(ParallelMode::Row)));
        QVERIFY2(text.startsWith("row-parallel split of the worked example, batch 1, "
                                 "tp_size 2, chunk = in_dim / tp_size = 1\n\n"),
                 qPrintable(text));
        // Partial sums are full width: x[:, rows] @ kernel[rows, :], no bias.
        QVERIFY2(text.contains("  group 0: rows [0:1)   ") &&
                     text.contains("    partial sum (1, 4):\n       1   0   2  -1\n"),
                 qPrintable(text));
        QVERIFY2(text.contains("  group 1: rows [1:2)   ") &&
                     text.contains("    partial sum (1, 4):\n      0  2  2  6\n"),
                 qPrintable(text));
        QVERIFY2(text.contains("  then y = sum + bias   (1x4 + 4"), qPrintable(text));
        QVERIFY(
            text.contains("\noutput (1, 4), the partial sums added, then the bias once:\n"
                          "  1.5  1.5    5    7\n"));
        QVERIFY(text.contains("allclose yes"));
        QVERIFY(!text.contains("never summed"));
    }

    void briefColumnJson() {
        const QJsonObject doc = parse(jsonReport(brief(ParallelMode::Column)));
        QCOMPARE(keys(doc), (QStringList{"bias", "config", "groups", "kernel", "output",
                                         "reference", "verification", "x"}));
        const QJsonObject config = doc["config"].toObject();
        QCOMPARE(config["batch"].toInt(), 1);
        QCOMPARE(config["in_dim"].toInt(), 2);
        QCOMPARE(config["features"].toInt(), 4);
        QCOMPARE(config["tp_size"].toInt(), 2);
        QCOMPARE(config["chunk"].toInt(), 2);
        QCOMPARE(config["mode"].toString(), "column");
        QCOMPARE(config["source"].toString(), "brief");
        QCOMPARE(floats(doc["x"]), (std::vector<float>{1, 2}));
        QCOMPARE(floats(doc["kernel"]), (std::vector<float>{1, 0, 2, -1, 0, 1, 1, 3}));
        QCOMPARE(floats(doc["bias"]), (std::vector<float>{0.5f, -0.5f, 1, 2}));
        const QJsonArray groups = doc["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0].toObject()["index"].toInt(), 0);
        QCOMPARE(groups[0].toObject()["columns"].toArray(), (QJsonArray{0, 2}));
        QCOMPARE(floats(groups[0].toObject()["partial"]), (std::vector<float>{1.5f, 1.5f}));
        QCOMPARE(groups[1].toObject()["columns"].toArray(), (QJsonArray{2, 4}));
        QCOMPARE(floats(groups[1].toObject()["partial"]), (std::vector<float>{5, 7}));
        QVERIFY(!groups[1].toObject().contains("running_sum"));
        QCOMPARE(floats(doc["output"]), (std::vector<float>{1.5f, 1.5f, 5, 7}));
        QCOMPARE(floats(doc["reference"]), (std::vector<float>{1.5f, 1.5f, 5, 7}));
        const QJsonObject v = doc["verification"].toObject();
        QCOMPARE(v["max_abs_error"].toDouble(), 0.0);
        QCOMPARE(v["max_rel_error"].toDouble(), 0.0);
        QCOMPARE(v["allclose"].toBool(), true);
        QCOMPARE(v["worst"].toArray(), (QJsonArray{0, 0}));
        QCOMPARE(v["rtol"].toDouble(), 1e-5);
        QCOMPARE(v["atol"].toDouble(), 1e-6);
    }

    void briefRowJson() {
        const QJsonObject doc = parse(jsonReport(brief(ParallelMode::Row)));
        QCOMPARE(doc["config"].toObject()["mode"].toString(), "row");
        QCOMPARE(doc["config"].toObject()["chunk"].toInt(), 1);
        const QJsonArray groups = doc["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0].toObject()["rows"].toArray(), (QJsonArray{0, 1}));
        QCOMPARE(groups[1].toObject()["rows"].toArray(), (QJsonArray{1, 2}));
        QVERIFY(!groups[0].toObject().contains("columns"));
        QCOMPARE(floats(groups[0].toObject()["partial"]), (std::vector<float>{1, 0, 2, -1}));
        QCOMPARE(floats(groups[1].toObject()["partial"]), (std::vector<float>{0, 2, 2, 6}));
        QCOMPARE(floats(groups[0].toObject()["running_sum"]), (std::vector<float>{1, 0, 2, -1}));
        QCOMPARE(floats(groups[1].toObject()["running_sum"]), (std::vector<float>{1, 2, 4, 5}));
        // The bias is added once, after the last running sum.
        QCOMPARE(floats(doc["output"]), (std::vector<float>{1.5f, 1.5f, 5, 7}));
        QCOMPARE(doc["verification"].toObject()["allclose"].toBool(), true);
    }

    // nnx.Linear(3, 4, Rngs(0)): every float reads back to the scene's bits, in both modes.
    void nnxSceneJsonKeepsTheBits_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::newRow("3x4 tp2 column") << test::kTinyTwoGroups;
        LayerConfig row = test::kTinyTwoGroups;
        row.mode = ParallelMode::Row;
        row.tpSize = 3;
        QTest::newRow("3x4 tp3 row") << row;
    }
    void nnxSceneJsonKeepsTheBits() {
        QFETCH(LayerConfig, config);
        const Scene scene = *computeScene({config, SceneSource::Nnx});
        const QJsonObject doc = parse(jsonReport(scene));
        const QJsonObject c = doc["config"].toObject();
        QCOMPARE(c["seed"].toInt(), 0);
        QCOMPARE(c["prng"].toString(), "partitionable");
        QCOMPARE(c["x64"].toBool(), false);
        QCOMPARE(c["bias_init"].toString(), "zeros");
        QCOMPARE(c["source"].toString(), "nnx");
        QCOMPARE(c["mode"].toString(), QString::fromStdString(std::string(toString(config.mode))));
        QCOMPARE(bitsOf(floats(doc["kernel"])), test::floatBits(scene.params.kernel));
        QCOMPARE(bitsOf(floats(doc["bias"])), test::floatBits(scene.params.bias));
        QCOMPARE(bitsOf(floats(doc["x"])), test::floatBits(scene.params.x));
        QCOMPARE(bitsOf(floats(doc["output"])), test::floatBits(scene.result.output));
        QCOMPARE(bitsOf(floats(doc["reference"])), test::floatBits(scene.reference));
        // Linear(3, 4, Rngs(0)): kernel[0, 0] is 0x3f1e2c8f (spec section 10).
        QCOMPARE(bitsOfFloat(floats(doc["kernel"]).front()), 0x3f1e2c8fu);
        const QJsonArray groups = doc["groups"].toArray();
        QCOMPARE(groups.size(), qsizetype(config.tpSize));
        for (qsizetype g = 0; g < groups.size(); ++g)
            QCOMPARE(bitsOf(floats(groups[g].toObject()["partial"])),
                     test::floatBits(scene.result.partials[std::size_t(g)]));
        const QJsonObject v = doc["verification"].toObject();
        QCOMPARE(v["max_abs_error"].toDouble(), scene.verification.maxAbsError);
        QCOMPARE(v["max_rel_error"].toDouble(), scene.verification.maxRelError);
        QCOMPARE(v["allclose"].toBool(), true);
    }

    void nnxSceneText() {
        const Scene scene = *computeScene({test::kTinyTwoGroups, SceneSource::Nnx});
        const QString text = QString::fromStdString(textReport(scene));
        QVERIFY2(text.startsWith("column-parallel split of nnx.Linear(3, 4, rngs=nnx.Rngs(0)), "
                                 "batch 2, tp_size 2, chunk = features / tp_size = 2\n"
                                 "prng partitionable, x64 off, bias zeros\n"),
                 qPrintable(text));
        // The kernel's first value as the shortest float32 text.
        const QString first = QString::fromStdString(formatFloat(scene.params.kernel(0, 0)));
        QCOMPARE(first, "0.6178674");
        QVERIFY2(text.contains("\nkernel (3, 4):\n") && text.contains(first), qPrintable(text));
        QVERIFY(
            text.contains("  group 1: columns [2:4)   y[:, 2:4] = x @ kernel[:, 2:4] + "
                          "bias[2:4]   (2x3 @ 3x2 + 2)\n    partial (2, 2):\n"));
        QVERIFY(text.contains("\nverification: passed: "));
        QVERIFY(text.contains("\n  max abs error "));
    }

    void summariesLeaveOutTheArrays_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("column") << int(ParallelMode::Column);
        QTest::newRow("row") << int(ParallelMode::Row);
    }
    void summariesLeaveOutTheArrays() {
        QFETCH(int, mode);
        const Scene scene = brief(ParallelMode(mode));
        const QJsonObject doc = parse(jsonReport(scene, true));
        QCOMPARE(keys(doc), (QStringList{"config", "groups", "verification"}));
        for (const QJsonValue& g : doc["groups"].toArray()) {
            QVERIFY(!g.toObject().contains("partial"));
            QVERIFY(!g.toObject().contains("running_sum"));
        }
        QCOMPARE(doc["verification"].toObject()["allclose"].toBool(), true);

        const QString text = QString::fromStdString(textReport(scene, true));
        QVERIFY2(
            !text.contains("kernel (") && !text.contains("partial") && !text.contains("output ("),
            qPrintable(text));
        QVERIFY(text.contains("  group 1: "));
        QVERIFY(text.endsWith("allclose yes (rtol 1e-05, atol 1e-06)\n"));
    }

    // Past 1000 values an array shows its first and last 3 rows and columns, as numpy prints it.
    // A NaN or an infinity anywhere (arrays, figures) still makes a document that parses, spelled
    // null; strings with quotes, backslashes and control characters are escaped; members given
    // to writeJsonReport come last, as members, not as spliced text.
    void documentsAlwaysParse() {
        Scene scene = brief(ParallelMode::Column);
        const float nan = std::numeric_limits<float>::quiet_NaN();
        scene.params.kernel(0, 0) = nan;
        scene.params.x(0, 1) = std::numeric_limits<float>::infinity();
        scene.result.output(0, 2) = -std::numeric_limits<float>::infinity();
        scene.verification.maxAbsError = std::numeric_limits<double>::quiet_NaN();
        scene.mistakeWithoutEffect = "a \"quoted\" C:\\path\nand a \x1b[2J";
        const Json more = {{"ranks", {1, 2}}, {"note", "tab\there"}};
        std::ostringstream out;
        writeJsonReport(out, scene, false, nullptr, more);
        QJsonParseError error;
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject o = doc.object();
        QVERIFY(o["kernel"].toArray()[0].toArray()[0].isNull());
        QVERIFY(o["x"].toArray()[0].toArray()[1].isNull());
        QVERIFY(o["output"].toArray()[0].toArray()[2].isNull());
        QCOMPARE(o["output"].toArray()[0].toArray()[3].toDouble(), 7.0);
        QVERIFY(o["verification"].toObject()["max_abs_error"].isNull());
        QCOMPARE(o["config"].toObject()["mistake_without_effect"].toString(),
                 QString::fromStdString(scene.mistakeWithoutEffect));
        QCOMPARE(o["note"].toString(), QString("tab\there"));
        QCOMPARE(o["ranks"].toArray().size(), qsizetype(2));
        // The added members close the document, after verification.
        const std::string text = out.str();
        QVERIFY(text.find("\"verification\"") < text.find("\"ranks\""));
        QVERIFY(text.find("\"ranks\"") < text.find("\"note\""));
        QCOMPARE(text.back(), '\n');
        QCOMPARE(QString::fromStdString(jsonReport(scene)).count("\"verdict\""), 1);
    }

    void bigArraysAreShortened() {
        const LayerConfig config{.batch = 2, .inDim = 40, .features = 30, .tpSize = 3};
        const Scene scene = *computeScene({config, SceneSource::Nnx});
        const QStringList lines = QString::fromStdString(textReport(scene)).split('\n');
        const qsizetype at = lines.indexOf("kernel (40, 30):");
        QVERIFY(at >= 0);
        const QStringList kernel = lines.mid(at + 1, 8);
        QCOMPARE(kernel[3], "  ...");
        QCOMPARE(kernel[7], "");  // 3 rows, "...", 3 rows
        for (int i : {0, 1, 2, 4, 5, 6}) {
            QCOMPARE(kernel[i].count("  ..."), 1);  // 3 columns, "...", 3 columns
            QCOMPARE(kernel[i].split(' ', Qt::SkipEmptyParts).size(), 7);
        }
        const QString last = QString::fromStdString(formatFloat(scene.params.kernel(39, 29)));
        QVERIFY2(kernel[6].endsWith(last), qPrintable(kernel[6]));
        // x (2, 40) has 80 values: printed whole.
        QVERIFY(!lines[lines.indexOf("x (2, 40), the full input:") + 1].contains("..."));
    }
};

QTEST_APPLESS_MAIN(TestReport)
#include "tst_report.moc"
