// tpviz-cli --backward end to end: the "backward" member's keys and place, its arrays against each
// other, --summary, the text section, the exit status and the refusals.

#include "process_run.h"
#include "scene/python_snippet.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

namespace {

using Run = tp::test::ProcessRun;

Run runCli(const QStringList& args) {
    return tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
}

QJsonObject parsed(const Run& run) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString() << run.err;
    return doc.object();
}

// The top-level members in the order the document writes them (QJsonObject sorts its keys).
QStringList topLevelOrder(const QByteArray& out) {
    const QJsonObject doc = QJsonDocument::fromJson(out).object();
    QList<std::pair<qsizetype, QString>> found;
    for (const QString& key : doc.keys())
        found.append({out.indexOf("\n  \"" + key.toUtf8() + "\": "), key});
    std::sort(found.begin(), found.end());
    QStringList order;
    for (const auto& [at, key] : found)
        order << key;
    return order;
}

// A (rows, cols) nested list's element.
double at(const QJsonValue& matrix, int r, int c) {
    return matrix.toArray()[r].toArray()[c].toDouble();
}

const QStringList kColumn{"--batch", "3", "--in-dim", "5", "--features", "6",
                          "--tp",    "3", "--data",   "1", "--seed",     "4"};
const QStringList kRow{"--batch", "4",   "--in-dim", "6", "--features", "8",      "--tp", "2",
                       "--mode",  "row", "--data",   "2", "--output",   "sharded"};

}  // namespace

class TestCliBackward : public QObject {
    Q_OBJECT

private slots:
    // "backward" comes after "verification" and before "costs", with its keys in order.
    void memberPlaceAndKeys() {
        const Run run = runCli(kColumn + QStringList{"--backward", "--json", "--costs"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(topLevelOrder(run.out),
                 (QStringList{"config", "kernel", "bias", "x", "groups", "output", "reference",
                              "verification", "backward", "costs"}));
        const QByteArray b = run.out.mid(run.out.indexOf("\n  \"backward\": "));
        QStringList order;
        for (const char* key :
             {"dy", "dx", "dkernel", "dbias", "groups", "collectives", "reference", "verification"})
            order << QString::number(b.indexOf(QByteArray("\n    \"") + key + "\": "));
        for (int i = 0; i < order.size(); ++i)
            QVERIFY2(order[i].toInt() > 0 && (i == 0 || order[i].toInt() > order[i - 1].toInt()),
                     qPrintable(order.join(' ')));

        // --costs adds each device's backward holdings: batch 3, in_dim 5, features 6 over tp 3,
        // column + sharded: dy 3*2*4 = 24, dx 3*5*4 = 60, dkernel 5*2*4 = 40, dbias 2*4 = 8;
        // flops 2 * (2*3*5*6/3) + 3*2 = 126.
        const QJsonObject held = parsed(run)["costs"].toObject()["backward_per_device"].toObject();
        QCOMPARE(held["dy_bytes"].toInt(), 24);
        QCOMPARE(held["dx_bytes"].toInt(), 60);
        QCOMPARE(held["dkernel_bytes"].toInt(), 40);
        QCOMPARE(held["dbias_bytes"].toInt(), 8);
        QCOMPARE(held["flops"].toInt(), 126);
        QVERIFY(!parsed(runCli(kColumn + QStringList{"--json", "--costs"}))["costs"]
                     .toObject()
                     .contains("backward_per_device"));
    }

    // Column mode: each group's dx partial is (batch, in_dim) and they add up to dx; its dkernel
    // and dbias blocks are its columns of the whole; dx is all-reduced over "model".
    void columnGroups() {
        const QJsonObject doc = parsed(runCli(kColumn + QStringList{"--backward", "--json"}));
        const QJsonObject b = doc["backward"].toObject();
        const QJsonArray groups = b["groups"].toArray();
        QCOMPARE(groups.size(), 3);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 5; ++j)
                for (int k = 0; k < 2; ++k)
                    QCOMPARE(at(groups[i]["dkernel"], j, k), at(b["dkernel"], j, 2 * i + k));
            QCOMPARE(groups[i]["columns"].toArray(), (QJsonArray{2 * i, 2 * i + 2}));
            QCOMPARE(groups[i]["dbias"].toArray()[1], b["dbias"].toArray()[2 * i + 1]);
            QCOMPARE(groups[i]["dx_partial"].toArray().size(), 3);
            QCOMPARE(groups[i]["dx_partial"].toArray()[0].toArray().size(), 5);
            QVERIFY(!groups[i].toObject().contains("dx_block"));
        }
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 5; ++c) {
                double sum = 0;
                for (const QJsonValue& g : groups)
                    sum += at(g["dx_partial"], r, c);
                QVERIFY(std::abs(sum - at(b["dx"], r, c)) <= 1e-5 * (1 + std::abs(sum)));
            }
        QCOMPARE(b["collectives"].toArray(),
                 QJsonDocument::fromJson(R"([{"name": "all-reduce", "axis": "model", "of": "dx",
                     "bytes_sent_per_device": 80, "ring_steps": 4}])")
                     .array());  // V = 3*5*4 = 60, 2*2/3 V = 80 in 2*(3-1) steps
        for (const char* array : {"dx", "dkernel", "dbias"}) {
            const QJsonObject v = b["verification"][array].toObject();
            QCOMPARE(v["verdict"].toString(), QString("passed"));
            QCOMPARE(v["passed"].toBool(), true);
            QVERIFY(v["max_error_over_bound"].isDouble());
        }
        QCOMPARE(b["reference"].toObject().keys(), (QStringList{"dbias", "dkernel", "dx"}));
    }

    // Row mode with a sharded output and D 2: each group's own dx columns, dbias once, and dy
    // all-gathered first.
    void rowGroups() {
        const QJsonObject doc = parsed(runCli(kRow + QStringList{"--backward", "--json"}));
        const QJsonObject b = doc["backward"].toObject();
        const QJsonArray groups = b["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(groups[i]["rows"].toArray(), (QJsonArray{3 * i, 3 * i + 3}));
            QVERIFY(!groups[i].toObject().contains("dx_partial"));
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(at(groups[i]["dx_block"], r, c), at(b["dx"], r, 3 * i + c));
            QCOMPARE(groups[i]["dbias"].toArray(), b["dbias"].toArray());
        }
        QStringList collectives;
        for (const QJsonValue& c : b["collectives"].toArray())
            collectives << c["name"].toString() + " " + c["of"].toString() + " " +
                               c["axis"].toString();
        QCOMPARE(collectives, (QStringList{"all-gather dy model", "all-reduce dkernel data",
                                           "all-reduce dbias data"}));
    }

    // --summary keeps the groups' ranges, the collectives and the verdicts, and no array.
    void summaryLeavesArraysOut() {
        const QJsonObject doc =
            parsed(runCli(kColumn + QStringList{"--backward", "--json", "--summary"}));
        const QJsonObject b = doc["backward"].toObject();
        QCOMPARE(b.keys(), (QStringList{"collectives", "groups", "verification"}));
        QCOMPARE(b["groups"].toArray()[1].toObject().keys(), (QStringList{"columns", "index"}));
    }

    void textSection() {
        const Run run = runCli(kColumn + QStringList{"--backward", "--summary"});
        QCOMPARE(run.exitCode, 0);
        const QString text = run.outText();
        QVERIFY2(text.contains("dx_1 = dy[:, 2:4] @ kernel[:, 2:4]^T"), qPrintable(text));
        QVERIFY(text.contains("all-reduce of dx over \"model\": 80 bytes sent per device in 4"));
        QVERIFY(text.contains("  dkernel (K = batch = 3): passed"));
        QVERIFY(text.indexOf("backward verification") > text.indexOf("\nverification: passed"));
    }

    // --save-npy with --backward writes dy, dx, dkernel and dbias beside the forward's arrays,
    // with the values the JSON prints.
    void saveNpyWritesTheGradients() {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath("out");
        const Run run = runCli(kRow + QStringList{"--backward", "--json", "--save-npy", dir});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject b = parsed(run)["backward"].toObject();
        for (const char* name : {"dy", "dx", "dkernel", "dbias"}) {
            QFile file(dir + "/" + name + ".npy");
            QVERIFY2(file.open(QIODevice::ReadOnly), name);
            const QByteArray bytes = file.readAll();
            // Format 1.0: magic (6), version (2), the header's length (2, little-endian), header.
            const int headerEnd = 10 + (uchar(bytes[8]) | uchar(bytes[9]) << 8);
            QList<float> values((bytes.size() - headerEnd) / 4);
            std::memcpy(values.data(), bytes.constData() + headerEnd, bytes.size() - headerEnd);
            QList<float> printed;
            const QJsonArray array = b[name].toArray();
            for (const QJsonValue& row : array)
                if (row.isArray())
                    for (const QJsonValue& value : row.toArray())
                        printed << float(value.toDouble());
                else
                    printed << float(row.toDouble());
            QCOMPARE(values, printed);
        }
    }

    // The exit status counts the backward's verdicts: at rtol 0 and atol 0 the forward pass of
    // three rows is bit-identical and passes, but the column groups' dx partials are added in
    // another order than the full product sums them, which allclose at 0 refuses.
    void exitStatusCountsEveryVerdict() {
        const QStringList exact = kColumn + QStringList{"--rtol", "0", "--atol", "0", "--json"};
        QCOMPARE(runCli(exact).exitCode, 0);
        const Run run = runCli(exact + QStringList{"--backward"});
        QCOMPARE(run.exitCode, 1);
        const QJsonObject b = parsed(run)["backward"].toObject();
        QCOMPARE(b["verification"]["dx"]["verdict"].toString(), QString("failed"));
        QCOMPARE(b["verification"]["passed"].toBool(), false);
    }

    // --python --backward prints the script with its backward part, the same the core builds for
    // these options, and --python alone has none.
    void pythonScript() {
        const Run run = runCli(kRow + QStringList{"--backward", "--python"});
        QCOMPARE(run.exitCode, 0);
        tp::LayerConfig config{.batch = 4, .inDim = 6, .features = 8, .tpSize = 2};
        config.mode = tp::ParallelMode::Row;
        config.dataSize = 2;
        config.output = tp::OutputLayout::Sharded;
        QCOMPARE(run.outText(),
                 QString::fromStdString(tp::pythonSnippet(config, tp::Mistake::None, {},
                                                          tp::SnippetPasses::ForwardAndBackward)));
        QVERIFY(run.out.contains("def backward_on_mesh("));
        QVERIFY(!runCli(kRow + QStringList{"--python"}).out.contains("# The backward pass."));
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        QTest::newRow("mistake") << QStringList{"--backward", "--mistake", "sum-groups"}
                                 << "--backward: the backward pass differentiates a correct split; "
                                    "the mistakes are the forward pass's and cannot be combined "
                                    "with it";
        QTest::newRow("python with a mistake")
            << QStringList{"--backward", "--python", "--mistake", "sum-groups"}
            << "the backward pass differentiates a correct split; the mistakes are the forward "
               "pass's";
        // x, dx and its reference of 256 MiB each, and 8 dx partials as large: over 2 GiB.
        QTest::newRow("memory") << QStringList{"--backward", "--batch",    "4096", "--in-dim",
                                               "16384",      "--features", "16",   "--tp",
                                               "8",          "--summary"}
                                << "--backward: the scene with its backward pass needs 3.";
    }

    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(words), qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliBackward)
#include "tst_cli_backward.moc"
