// tpviz-cli --json on ten scenes against the documents it wrote before its reports were built as
// JSON values (tests/data/reports/, written by the earlier text-spliced report): every member the
// same value, the verification's too, but for the figures of the rounding bound, which changed
// with it (max_error_over_bound, worst_over_bound). Members added to an object since (the
// sharding layout's in `costs`) may stand beside the earlier ones.

#include "process_run.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

namespace {

QJsonObject parseFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

// Every member of `before`, in objects at any depth, holds the same value in `after`.
bool keepsEveryMember(const QJsonValue& after, const QJsonValue& before) {
    if (!before.isObject() || !after.isObject())
        return after == before;
    const QJsonObject a = after.toObject(), b = before.toObject();
    for (const QString& key : b.keys())
        if (!a.contains(key) || !keepsEveryMember(a[key], b[key]))
            return false;
    return true;
}

}  // namespace

class TestCliDocuments : public QObject {
    Q_OBJECT

private slots:
    void sameDocuments_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("args");
        const auto row = [](const char* name, const QStringList& args) {
            QTest::newRow(name) << QString(name) << args;
        };
        row("column_default", {});
        row("row_tp4_bias", {"--mode", "row", "--tp", "4", "--bias", "normal:0.5"});
        row("column_legacy_x64", {"--batch", "3", "--in-dim", "5", "--features", "6", "--tp", "2",
                                  "--seed", "-7", "--prng", "legacy", "--x64"});
        row("mesh_column_replicated", {"--batch", "4", "--features", "8", "--tp", "2", "--data",
                                       "2", "--output", "replicated", "--costs"});
        row("mesh_row_sharded", {"--batch", "4", "--mode", "row", "--tp", "2", "--data", "2",
                                 "--output", "sharded", "--costs", "--hardware", "tpu-v5e"});
        row("mistake_slice_x", {"--tp", "4", "--mistake", "slice-x"});
        row("mistake_bias_per_partial", {"--mode", "row", "--tp", "2", "--bias", "normal:0.5",
                                         "--mistake", "bias-per-partial", "--summary"});
        row("mistake_sum_groups", {"--mistake", "sum-groups"});
        row("brief_row", {"--example", "brief", "--mode", "row"});
        row("files_kernel", {"--kernel", "kernel_3x4.npy", "--batch", "2", "--tp", "2"});
    }

    void sameDocuments() {
        QFETCH(QString, name);
        QFETCH(QStringList, args);
        const QDir reports(QStringLiteral(TPVIZ_REPORTS_DIR));
        const QJsonObject before = parseFile(reports.filePath(name + ".json"));
        QVERIFY(!before.isEmpty());
        tp::test::ProcessOptions options;
        options.workingDirectory = reports.path();
        const tp::test::ProcessRun run = tp::test::runProcess(
            QStringLiteral(TPVIZ_CLI_PATH), args + QStringList{"--json"}, options);
        QVERIFY2(run.finished, run.err.constData());
        QJsonParseError error;
        const QJsonObject after = QJsonDocument::fromJson(run.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);

        QCOMPARE(after.keys(), before.keys());
        for (const QString& key : before.keys())
            if (key != "verification")
                QVERIFY2(keepsEveryMember(after[key], before[key]), qPrintable(key));
        const QJsonObject v0 = before["verification"].toObject();
        const QJsonObject v1 = after["verification"].toObject();
        for (const QString& key : v0.keys())
            if (key != "max_error_over_bound" && key != "worst_over_bound")
                QVERIFY2(v1[key] == v0[key], qPrintable("verification." + key));
    }
};

QTEST_APPLESS_MAIN(TestCliDocuments)
#include "tst_cli_documents.moc"
