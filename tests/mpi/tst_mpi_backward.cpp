// tpviz-mpi --backward under mpirun: the ranks' gradients, gathered on rank 0, are tpviz-cli's
// within the check (dy bit for bit), each rank holds the blocks its device holds, and leaving out
// one of the backward's collectives fails the check.

#include "layer/backward.h"
#include "layer/verification.h"
#include "mpi_harness.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

namespace {

using tp::test::jsonOf;
using tp::test::matrixOf;
using tp::test::ProcessRun;
using tp::test::runCli;
using tp::test::runMpi;

const QStringList kScene{"--batch", "4", "--in-dim", "32",         "--features", "64",
                         "--seed",  "3", "--bias",   "normal:0.5", "--backward"};

tp::Gradients gradientsOf(const QJsonValue& value) {
    return {matrixOf(value["dx"]), matrixOf(value["dkernel"]), matrixOf(value["dbias"]).row(0)};
}

// The mesh of a row's options: --tp and --data (1 when absent).
int optionValue(const QStringList& args, const QString& name) {
    const qsizetype at = args.indexOf(name);
    return at < 0 ? 1 : args[at + 1].toInt();
}

}  // namespace

class TestMpiBackward : public QObject {
    Q_OBJECT

private slots:
    void sameGradientsAsCli_data() {
        QTest::addColumn<QStringList>("mesh");
        const auto add = [](const char* name, const QStringList& mesh) {
            QTest::newRow(name) << mesh;
        };
        add("column sharded n2 tp2", {"--mode", "column", "--output", "sharded", "--tp", "2"});
        add("column replicated n4 tp4",
            {"--mode", "column", "--output", "replicated", "--tp", "4"});
        add("row replicated n2 tp2", {"--mode", "row", "--output", "replicated", "--tp", "2"});
        add("row sharded n4 tp4", {"--mode", "row", "--output", "sharded", "--tp", "4"});
        add("column sharded n4 tp2 data2",
            {"--mode", "column", "--output", "sharded", "--tp", "2", "--data", "2"});
        add("column replicated n4 tp2 data2",
            {"--mode", "column", "--output", "replicated", "--tp", "2", "--data", "2"});
        add("row replicated n4 tp2 data2",
            {"--mode", "row", "--output", "replicated", "--tp", "2", "--data", "2"});
        add("row sharded n4 tp2 data2",
            {"--mode", "row", "--output", "sharded", "--tp", "2", "--data", "2"});
    }

    void sameGradientsAsCli() {
        QFETCH(QStringList, mesh);
        const int tp = optionValue(mesh, "--tp");
        const int data = optionValue(mesh, "--data");
        const QStringList args = kScene + mesh + QStringList{"--json"};
        const ProcessRun cliRun = runCli(args);
        QCOMPARE(cliRun.exitCode, 0);
        const ProcessRun mpiRun = runMpi(tp * data, args);
        QVERIFY2(mpiRun.finished, qPrintable(mpiRun.errText()));
        QCOMPARE(mpiRun.exitCode, 0);
        const QJsonObject cli = jsonOf(cliRun);
        const QJsonObject mpi = jsonOf(mpiRun);
        const QJsonObject cliBackward = cli["backward"].toObject();
        const QJsonObject mpiBackward = mpi["backward"].toObject();
        QCOMPARE(mpiBackward.keys(), cliBackward.keys());

        // dy is drawn by blocks on the ranks and whole on rank 0: the same bits as tpviz-cli's
        // (JSON floats read back to the same bits), and the collectives are the same list.
        QCOMPARE(mpiBackward["dy"], cliBackward["dy"]);
        QCOMPARE(mpiBackward["collectives"], cliBackward["collectives"]);
        for (const char* array : {"dx", "dkernel", "dbias"}) {
            const QJsonObject v = mpiBackward["verification"][array].toObject();
            QVERIFY2(v["passed"] == QJsonValue(true), array);
            QCOMPARE(v["rule"], QJsonValue("rounding-bound"));
            QCOMPARE(v["over_bound"], QJsonValue(0));
            QVERIFY2(v["max_error_over_bound"].toDouble() < 1, array);
        }
        QCOMPARE(mpiBackward["verification"]["passed"], QJsonValue(true));

        // The gradients the ranks computed and summed with MPI, checked here against tpviz-cli's
        // reference with the core's check, on tpviz-cli's arrays.
        const tp::Matrix x = matrixOf(cli["x"]);
        const tp::Matrix kernel = matrixOf(cli["kernel"]);
        const tp::Matrix dy = matrixOf(cliBackward["dy"]);
        const tp::BackwardVerification check = tp::verifyBackward(
            gradientsOf(mpiBackward), gradientsOf(cliBackward["reference"]), x, kernel, dy);
        QVERIFY2(check.dx.passed(), qPrintable(QString::number(check.dx.maxErrorOverBound)));
        QVERIFY(check.dkernel.passed());
        QVERIFY(check.dbias.passed());

        // Each group's blocks: column mode's dx partials gathered from the ranks within the check
        // of tpviz-cli's (each dy[:, cols] @ kernel[:, cols]^T); the other blocks are views of the
        // whole gradients checked above.
        const bool column = mesh.contains("column");
        const QJsonArray mpiGroups = mpiBackward["groups"].toArray();
        const QJsonArray cliGroups = cliBackward["groups"].toArray();
        QCOMPARE(mpiGroups.size(), tp);
        for (int g = 0; g < tp; ++g) {
            QCOMPARE(mpiGroups[g].toObject().keys(), cliGroups[g].toObject().keys());
            QCOMPARE(mpiGroups[g][column ? "columns" : "rows"],
                     cliGroups[g][column ? "columns" : "rows"]);
            if (!column)
                continue;
            const tp::Index width = 64 / tp;
            const tp::Matrix kernelT = kernel.middleCols(g * width, width).transpose();
            QVERIFY(tp::verify(matrixOf(mpiGroups[g]["dx_partial"]),
                               matrixOf(cliGroups[g]["dx_partial"]),
                               dy.middleCols(g * width, width), kernelT, tp::RowVector::Zero(32))
                        .passed());
        }

        // Each rank holds its device's blocks (Nd = 4 / data rows; floats of 4 bytes) and timed
        // every collective of the list.
        const qint64 rows = 4 / data;
        const qint64 dyBytes = 4 * rows * (column ? 64 / tp : 64);
        const qint64 dxBytes = 4 * rows * (column ? 32 : 32 / tp);
        const qint64 dbiasBytes = 4 * (column ? 64 / tp : 64);
        const QJsonArray ranks = mpi["ranks"].toArray();
        QCOMPARE(ranks.size(), tp * data);
        const QJsonArray collectives = mpiBackward["collectives"].toArray();
        for (const QJsonValue& rank : ranks) {
            const QJsonObject b = rank["backward"].toObject();
            QCOMPARE(b["dy_bytes_held"].toInteger(), dyBytes);
            QCOMPARE(b["dx_bytes_held"].toInteger(), dxBytes);
            QCOMPARE(b["dkernel_bytes_held"].toInteger(), qint64(4 * 32 * 64 / tp));
            QCOMPARE(b["dbias_bytes_held"].toInteger(), dbiasBytes);
            QVERIFY(b["generate_s"].toDouble() >= 0);
            QVERIFY(b["compute_s"].toDouble() >= 0);
            const QJsonArray times = b["collectives"].toArray();
            QCOMPARE(times.size(), collectives.size());
            for (int i = 0; i < times.size(); ++i) {
                for (const char* key : {"name", "axis", "of"})
                    QCOMPARE(times[i][key], collectives[i][key]);
                QVERIFY(times[i]["communication_s"].toDouble() >= 0);
            }
        }
    }

    // The text report and --summary: tpviz-cli's backward section, then each rank's backward line
    // with the time of each collective.
    void textSummary() {
        const QStringList args =
            kScene + QStringList{"--mode", "row", "--output", "sharded", "--tp", "2", "--summary"};
        const ProcessRun run = runMpi(2, args);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QString text = run.outText();
        QVERIFY2(text.contains("  dx (K = features = 64): passed"), qPrintable(text));
        QVERIFY(text.contains("  dkernel (K = batch = 4): passed"));
        QVERIFY(text.contains("  dbias (K = batch = 4): passed"));
        QVERIFY(text.contains("  all-gather of dy over \"model\": 512 bytes sent per device"));
        QCOMPARE(text.count("    backward: dy held 1.0 KiB"), 2);
        QCOMPARE(text.count(", all-gather of dy over \"model\" "), 2);
        QVERIFY(!text.contains("dx_0"));  // no arrays in the summary
    }

    void leftOutCollectiveFails_data() {
        QTest::addColumn<QStringList>("mesh");
        QTest::addColumn<QString>("skipped");
        QTest::addColumn<QStringList>("failed");
        QTest::newRow("dx all-reduce, column sharded n2 tp2")
            << QStringList{"--mode", "column", "--output", "sharded", "--tp", "2"} << "dx"
            << QStringList{"dx"};
        QTest::newRow("dy all-gather, row sharded n4 tp2 data2")
            << QStringList{"--mode", "row", "--output", "sharded", "--tp", "2", "--data", "2"}
            << "dy" << QStringList{"dx", "dkernel", "dbias"};
        QTest::newRow("dkernel all-reduce, column sharded n4 tp2 data2")
            << QStringList{"--mode", "column", "--output", "sharded", "--tp", "2", "--data", "2"}
            << "dkernel" << QStringList{"dkernel"};
        QTest::newRow("dbias all-reduce, row replicated n4 tp2 data2")
            << QStringList{"--mode", "row", "--output", "replicated", "--tp", "2", "--data", "2"}
            << "dbias" << QStringList{"dbias"};
    }

    // Every rank leaves out one collective (a hidden test option): the gradients it moves are
    // then wrong, the check says which, and the exit status is 1. The same meshes pass with every
    // collective in sameGradientsAsCli.
    void leftOutCollectiveFails() {
        QFETCH(QStringList, mesh);
        QFETCH(QString, skipped);
        QFETCH(QStringList, failed);
        const int ranks = optionValue(mesh, "--tp") * optionValue(mesh, "--data");
        const QStringList args = kScene + mesh + QStringList{"--summary", "--json"};
        const ProcessRun run = runMpi(ranks, args + QStringList{"--skip-collective", skipped});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 1);
        const QJsonObject report = jsonOf(run);
        QCOMPARE(report["verification"]["passed"], QJsonValue(true));  // the forward's
        const QJsonObject v = report["backward"]["verification"].toObject();
        QCOMPARE(v["passed"], QJsonValue(false));
        for (const char* array : {"dx", "dkernel", "dbias"})
            QVERIFY2(v[array]["passed"] == QJsonValue(!failed.contains(array)), array);
    }

    // Each rank's backward compute_s times its gradients' products as its forward compute_s times
    // the forward's: the backward's three products of this small layer take about as long as the
    // forward's one (microseconds each). A one-time cost timed in either (OpenBLAS loaded on the
    // first product that takes its route, some milliseconds, 1000 times the products) shows. The
    // bound is generous, so that a busy machine cannot fail it: 50 times the forward, plus 1 ms.
    void backwardTimedAsForward_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("column tp2") << QStringList{"--tp", "2"};
        QTest::newRow("row tp2") << QStringList{"--mode", "row", "--tp", "2"};
        QTest::newRow("fsdp data2 tp1")
            << QStringList{"--layout", "fsdp", "--costs", "--data", "2", "--tp", "1"};
    }

    void backwardTimedAsForward() {
        QFETCH(QStringList, args);
        const ProcessRun run = runMpi(2, kScene + args + QStringList{"--json", "--summary"});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QJsonArray ranks = jsonOf(run)["ranks"].toArray();
        QCOMPARE(ranks.size(), 2);
        for (const QJsonValue& rank : ranks) {
            const double forward = rank["compute_s"].toDouble();
            const double backward = rank["backward"]["compute_s"].toDouble();
            QVERIFY2(forward > 0 && backward > 0, qPrintable(QString::number(backward)));
            QVERIFY2(backward < 50 * forward + 1e-3,
                     qPrintable(QString("rank %1: backward %2 s, forward %3 s")
                                    .arg(rank["rank"].toInt())
                                    .arg(backward)
                                    .arg(forward)));
        }
    }

    // The gradients are checked on rank 0 against the whole layer's: a layer whose backward pass
    // does not fit there beside rank 0's share is refused in words, as is an unknown collective.
    void refusals() {
        const QStringList mesh{"--tp", "2", "--summary"};
        const ProcessRun big = runMpi(2, kScene + mesh + QStringList{"--memory-budget", "30000"});
        QVERIFY2(big.finished, qPrintable(big.errText()));
        QCOMPARE(big.exitCode, 2);
        QVERIFY2(big.errText().contains("--backward checks the gradients on rank 0 against "
                                        "jax.vjp of the whole layer"),
                 qPrintable(big.errText()));
        QVERIFY(big.out.isEmpty());
        const ProcessRun unknown =
            runMpi(2, kScene + mesh + QStringList{"--skip-collective", "dw"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY2(
            unknown.errText().contains("--skip-collective (dw) must name dy, dx, dkernel or dbias"),
            qPrintable(unknown.errText()));
    }
};

QTEST_GUILESS_MAIN(TestMpiBackward)
#include "tst_mpi_backward.moc"
