// tpviz-mpi under mpirun, oversubscribed on this machine's cores: the same report as tpviz-cli
// (column output bit for bit, row output within the rounding bound, row partials bit for bit),
// each rank's bytes as the cost model counts them, the per-block check, and refusals and failures
// that end the job without a hang.

#include "help_columns.h"
#include "layer/eigen_types.h"
#include "layer/verification.h"
#include "mpi_harness.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

using tp::test::jsonOf;
using tp::test::kMpiEnvironment;
using tp::test::matrixOf;
using tp::test::ProcessRun;
using tp::test::runMpi;

// Within the float32 rounding bound of x @ kernel + bias, the project's check: `x` (N, K), `kernel`
// (K, F) and `bias` (F) are what the two arrays sum (a zero bias when they hold none).
bool withinCheck(const QJsonValue& actual, const QJsonValue& reference, const tp::Matrix& x,
                 const tp::Matrix& kernel, const tp::RowVector& bias) {
    return tp::verify(matrixOf(actual), matrixOf(reference), x, kernel, bias).passed();
}

const QStringList kScene{"--batch", "4",      "--in-dim", "32",     "--features",
                         "64",      "--seed", "3",        "--bias", "normal:0.5"};

}  // namespace

class TestMpi : public QObject {
    Q_OBJECT

private slots:
    void sameReportAsCli_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("mesh");
        const QList<QPair<QString, QStringList>> layouts{
            {"column sharded", {"--mode", "column", "--output", "sharded"}},
            {"column replicated", {"--mode", "column", "--output", "replicated"}},
            {"row replicated", {"--mode", "row", "--output", "replicated"}},
            {"row sharded", {"--mode", "row", "--output", "sharded"}},
        };
        for (const auto& [name, layout] : layouts) {
            QTest::addRow("%s n2 tp2", qPrintable(name))
                << 2 << (layout + QStringList{"--tp", "2"});
            QTest::addRow("%s n4 tp4", qPrintable(name))
                << 4 << (layout + QStringList{"--tp", "4"});
            QTest::addRow("%s n4 tp2 data2", qPrintable(name))
                << 4 << (layout + QStringList{"--tp", "2", "--data", "2"});
        }
    }

    void sameReportAsCli() {
        QFETCH(int, ranks);
        QFETCH(QStringList, mesh);
        const QStringList args = kScene + mesh + QStringList{"--json", "--costs"};
        const ProcessRun cliRun = tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
        QCOMPARE(cliRun.exitCode, 0);
        const ProcessRun mpiRun = runMpi(ranks, args);
        QVERIFY2(mpiRun.finished, qPrintable(mpiRun.errText()));
        QCOMPARE(mpiRun.exitCode, 0);
        const QJsonObject cli = jsonOf(cliRun);
        const QJsonObject mpi = jsonOf(mpiRun);

        // tpviz-cli's keys, then "mpi" and "ranks".
        QStringList keys = cli.keys() + QStringList{"mpi", "ranks"};
        keys.sort();
        QCOMPARE(mpi.keys(), keys);
        for (const char* key : {"config", "kernel", "bias", "x", "reference", "costs"})
            QVERIFY2(mpi[key] == cli[key], key);
        QCOMPARE(mpi["verification"]["passed"], QJsonValue(true));
        QCOMPARE(mpi["verification"]["rule"], QJsonValue("rounding-bound"));
        QCOMPARE(mpi["verification"]["over_bound"], QJsonValue(0));
        QCOMPARE(mpi["mpi"]["check"], QJsonValue("single-process"));

        const bool column = mesh.contains("column");
        const QJsonArray mpiGroups = mpi["groups"].toArray();
        const QJsonArray cliGroups = cli["groups"].toArray();
        QCOMPARE(mpiGroups.size(), cliGroups.size());
        if (column) {
            // A gather only moves values: the output is tpviz-cli's, bit for bit (JSON floats
            // are written in the shortest form that reads back to the same bits).
            QCOMPARE(mpi["output"], cli["output"]);
            QCOMPARE(mpiGroups, cliGroups);
            QCOMPARE(mpi["mpi"]["bit_identical"], mpi["mpi"]["elements"]);
        } else {
            // MPI adds the partial sums in its own order: within the rounding bound of what each
            // array sums (partial g: x[:, rows_g] @ kernel[rows_g, :]; running sum g: the rows up
            // to rows_g's end; neither with the bias).
            const tp::Matrix x = matrixOf(cli["x"]);
            const tp::Matrix kernel = matrixOf(cli["kernel"]);
            const tp::RowVector bias = matrixOf(cli["bias"]).row(0);
            const tp::RowVector noBias = tp::RowVector::Zero(kernel.cols());
            QVERIFY(withinCheck(mpi["output"], cli["output"], x, kernel, bias));
            for (int g = 0; g < cliGroups.size(); ++g) {
                QCOMPARE(mpiGroups[g]["rows"], cliGroups[g]["rows"]);
                const QJsonArray rows = cliGroups[g]["rows"].toArray();
                const tp::Index start = rows[0].toInt();
                const tp::Index end = rows[1].toInt();
                QVERIFY(withinCheck(mpiGroups[g]["partial"], cliGroups[g]["partial"],
                                    x.middleCols(start, end - start),
                                    kernel.middleRows(start, end - start), noBias));
                QVERIFY(withinCheck(mpiGroups[g]["running_sum"], cliGroups[g]["running_sum"],
                                    x.leftCols(end), kernel.topRows(end), noBias));
            }
        }
        QCOMPARE(mpi["mpi"]["elements"].toInt(), 4 * 64);

        // Every rank holds what the cost model says a device holds.
        const QJsonObject perDevice = cli["costs"]["per_device"].toObject();
        const int tp = mpi["config"]["tp_size"].toInt();
        const QJsonArray ranksArray = mpi["ranks"].toArray();
        QCOMPARE(ranksArray.size(), ranks);
        QCOMPARE(mpi["mpi"]["world_size"].toInt(), ranks);
        for (int r = 0; r < ranks; ++r) {
            const QJsonObject rank = ranksArray[r].toObject();
            QCOMPARE(rank["rank"].toInt(), r);
            QCOMPARE(rank["device"], QJsonValue(QJsonArray{r / tp, r % tp}));
            QCOMPARE(rank["kernel_bytes_held"], perDevice["kernel_bytes"]);
            QCOMPARE(rank["bias_bytes_held"], perDevice["bias_bytes"]);
            QCOMPARE(rank["x_bytes_held"], perDevice["x_bytes"]);
            QCOMPARE(rank["output_bytes_held"], perDevice["output_bytes"]);
            QVERIFY(rank["peak_rss_bytes"].toDouble() > 0);
            QVERIFY(rank["compute_s"].toDouble() >= 0);
            QVERIFY(rank["wait_s"].toDouble() >= 0);
            QVERIFY(rank["communication_s"].toDouble() >= 0);
        }
    }

    // With a budget that cannot hold the whole layer twice on rank 0, each rank checks its own
    // output block; the full report is refused, and so is a share beyond the budget.
    void perBlockCheckBeyondOneProcess() {
        const QStringList scene{"--batch", "4",    "--in-dim", "64",      "--features",
                                "128",     "--tp", "2",        "--data",  "2",
                                "--mode",  "row",  "--output", "sharded", "--memory-budget",
                                "60000"};
        const ProcessRun run = runMpi(4, scene + QStringList{"--summary", "--json"});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QJsonObject report = jsonOf(run);
        QCOMPARE(report["mpi"]["check"], QJsonValue("per-block"));
        const QJsonObject verification = report["verification"].toObject();
        QCOMPARE(verification["passed"], QJsonValue(true));
        QCOMPARE(verification["rule"], QJsonValue("rounding-bound"));
        QCOMPARE(verification["elements"], QJsonValue(4 * 128));
        QCOMPARE(verification["in_dim"], QJsonValue(64));
        QCOMPARE(verification["over_bound"], QJsonValue(0));
        QVERIFY(verification["max_error_over_bound"].toDouble() < 1);
        QVERIFY(verification["max_abs_error"].toDouble() < 1e-5);
        QCOMPARE(report["ranks"].toArray().size(), 4);

        const ProcessRun full = runMpi(4, scene);
        QCOMPARE(full.exitCode, 2);
        QVERIFY2(full.errText().contains("add --summary"), qPrintable(full.errText()));

        const ProcessRun tooSmall =
            runMpi(4, scene.mid(0, scene.size() - 1) + QStringList{"2000", "--summary"});
        QCOMPARE(tooSmall.exitCode, 2);
        QVERIFY2(tooSmall.errText().contains("each rank needs"), qPrintable(tooSmall.errText()));
    }

    void rowModeBeyondAllcloseIsChecked_data() {
        QTest::addColumn<QString>("budget");
        QTest::addColumn<QString>("check");
        QTest::newRow("single-process") << ""
                                        << "single-process";
        QTest::newRow("per-block") << "3000000"
                                   << "per-block";
    }

    // Row mode with more rows per rank than the products sum in order (kFewRows): each rank's
    // partial sum is its group's partial of the single process bit for bit, whole or packed by
    // column blocks for a reduce-scatter, as both make it by the row split's kernel. A blocked
    // product (OpenBLAS's, Eigen's) adds the terms of in_dim 2048 in another order.
    void rowPartialsHaveTheSplitsBits_data() {
        QTest::addColumn<QString>("output");
        QTest::newRow("replicated") << "replicated";
        QTest::newRow("sharded") << "sharded";
    }
    void rowPartialsHaveTheSplitsBits() {
        QFETCH(QString, output);
        const QStringList args{"--batch",  "24",   "--in-dim", "2048",   "--features",
                               "48",       "--tp", "2",        "--mode", "row",
                               "--output", output, "--seed",   "5",      "--json"};
        const ProcessRun cliRun = tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
        QCOMPARE(cliRun.exitCode, 0);
        const ProcessRun mpiRun = runMpi(2, args);
        QVERIFY2(mpiRun.finished, qPrintable(mpiRun.errText()));
        QCOMPARE(mpiRun.exitCode, 0);
        const QJsonArray mpiGroups = jsonOf(mpiRun)["groups"].toArray();
        const QJsonArray cliGroups = jsonOf(cliRun)["groups"].toArray();
        QCOMPARE(mpiGroups.size(), 2);
        for (int g = 0; g < 2; ++g) {
            QCOMPARE(mpiGroups[g]["partial"].toArray().size(), 24);
            QVERIFY2(mpiGroups[g]["partial"] == cliGroups[g]["partial"],
                     qPrintable(QStringLiteral("group %1").arg(g)));
        }
    }

    // Row mode over in_dim 4096: the partial sums' order moves the output by a few 1e-6, beyond
    // allclose's 1e-5 * |y| + 1e-6 at small outputs, yet within the rounding bound, so the run
    // passes on both checks; an explicit --rtol makes allclose the verdict, and it fails. With 4
    // rows the products sum in order over k on every SIMD path: the same bits on every CPU.
    void rowModeBeyondAllcloseIsChecked() {
        QFETCH(QString, budget);
        QFETCH(QString, check);
        QStringList scene{"--batch", "4",   "--in-dim", "4096", "--features", "256",   "--tp", "2",
                          "--mode",  "row", "--seed",   "1",    "--summary",  "--json"};
        if (!budget.isEmpty())
            scene += QStringList{"--memory-budget", budget};
        const ProcessRun run = runMpi(2, scene);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QJsonObject report = jsonOf(run);
        QCOMPARE(report["mpi"]["check"], QJsonValue(check));
        const QJsonObject verification = report["verification"].toObject();
        QCOMPARE(verification["allclose"], QJsonValue(false));
        QCOMPARE(verification["passed"], QJsonValue(true));
        QCOMPARE(verification["rule"], QJsonValue("rounding-bound"));
        QCOMPARE(verification["elements"], QJsonValue(4 * 256));
        QCOMPARE(verification["over_bound"], QJsonValue(0));
        QVERIFY(verification["max_error_over_bound"].toDouble() < 0.01);

        const ProcessRun strict = runMpi(2, scene + QStringList{"--rtol", "1e-5"});
        QVERIFY2(strict.finished, qPrintable(strict.errText()));
        QCOMPARE(strict.exitCode, 1);
        const QJsonObject strictVerification = jsonOf(strict)["verification"].toObject();
        QCOMPARE(strictVerification["rule"], QJsonValue("allclose"));
        QCOMPARE(strictVerification["passed"], QJsonValue(false));
    }

    void wrongWorldSizeExitsTwo() {
        const ProcessRun run = runMpi(3, {"--tp", "2", "--summary"}, 60000);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(
                     "the world size (3 ranks) must equal data (1) * tp_size (2) = 2"),
                 qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }

    // A mistake or array files cannot run on ranks that draw their shares from the seed: refused
    // in words, not silently ignored.
    void mistakesAndFilesAreRefused() {
        const ProcessRun mistake = runMpi(2, {"--tp", "2", "--mistake", "sum-groups"}, 60000);
        QVERIFY2(mistake.finished, qPrintable(mistake.errText()));
        QCOMPARE(mistake.exitCode, 2);
        QVERIFY2(mistake.errText().contains("--mistake: tpviz-mpi runs the correct split"),
                 qPrintable(mistake.errText()));
        QVERIFY(mistake.out.isEmpty());
    }

    void ranksThatDisagreeEndTheJob_data() {
        QTest::addColumn<QStringList>("rank1");
        QTest::addColumn<QString>("message");
        const QString differ = "the ranks were started with different scenes";
        QTest::newRow("rank 1 refuses its batch")
            << QStringList{"--batch", "abc"} << "tpviz-mpi: rank 1: --batch: 'abc'";
        QTest::newRow("scene file on one host only")
            << QStringList{"--scene", "/nonexistent/s.tpviz"}
            << "tpviz-mpi: rank 1: --scene: /nonexistent/s.tpviz";
        QTest::newRow("another mode") << QStringList{"--mode", "row"} << differ;
        QTest::newRow("another output") << QStringList{"--output", "replicated"} << differ;
        QTest::newRow("another seed") << QStringList{"--seed", "1"} << differ;
        QTest::newRow("json on one rank") << QStringList{"--json"} << differ;
        QTest::newRow("python on one rank")
            << QStringList{"--python"} << "tpviz-mpi: rank 1: --python prints a script";
        QTest::newRow("save-npy on one rank") << QStringList{"--save-npy", "/tmp"} << differ;
    }

    // Rank 1 was given other options than rank 0: both end with exit 2 and the reason, rather
    // than rank 0 waiting in a collective rank 1 never joins.
    void ranksThatDisagreeEndTheJob() {
        QFETCH(QStringList, rank1);
        QFETCH(QString, message);
        const QStringList scene{"--tp", "2", "--features", "8", "--summary"};
        const QString mpi = QStringLiteral(TPVIZ_MPI_PATH);
        const ProcessRun run = tp::test::runProcess(
            QStringLiteral(TPVIZ_MPIEXEC),
            QStringList{"-n", "1", mpi} + scene + QStringList{":", "-n", "1", mpi} + scene + rank1,
            {kMpiEnvironment, {}, 60000});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(message), qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }

    // --help answers without mpirun, every option's words in one column, --version's too.
    void helpAlignsEveryOption() {
        const ProcessRun run = tp::test::runProcess(QStringLiteral(TPVIZ_MPI_PATH), {"--help"},
                                                    {kMpiEnvironment, {}, 60000});
        QCOMPARE(run.exitCode, 0);
        const tp::test::HelpColumns help = tp::test::helpColumns(run.outText());
        QVERIFY(run.outText().contains("\n  --version "));
        QVERIFY(help.options > 20);
        QCOMPARE(help.columns.size(), 1);
    }

    // A problem every rank has is printed once, without a rank.
    void sharedProblemIsPrintedOnce() {
        const ProcessRun run = runMpi(2, {"--tp", "2", "--batch", "abc"}, 60000);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(run.errText().count("--batch: 'abc'"), 1);
        QVERIFY2(run.errText().contains("tpviz-mpi: --batch: 'abc'"), qPrintable(run.errText()));
    }

    // Started on its own (one rank, its stdout the file), a report that cannot be written is
    // exit 2 with the reason. (Under mpirun, rank 0 writes into mpirun's pipe.)
    void fullStandardOutputFails() {
        const ProcessRun run =
            tp::test::runProcess(QStringLiteral(TPVIZ_MPI_PATH), {"--tp", "1", "--summary"},
                                 {.environment = kMpiEnvironment,
                                  .timeoutMs = 60000,
                                  .standardOutputFile = "/dev/full"});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(
                     "tpviz-mpi: standard output cannot be written: No space left on device"),
                 qPrintable(run.errText()));
    }

    // Rank 0 writes the gathered arrays as tpviz-cli does: the same files, bit for bit (column
    // mode: a gather only moves values).
    void saveNpyWritesTheCliFiles() {
        QTemporaryDir tmp;
        const QStringList scene = kScene + QStringList{"--tp", "2", "--summary", "--save-npy"};
        const ProcessRun cli = tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH),
                                                    scene + QStringList{tmp.filePath("cli")});
        QCOMPARE(cli.exitCode, 0);
        const ProcessRun mpi = runMpi(2, scene + QStringList{tmp.filePath("mpi")});
        QVERIFY2(mpi.finished, qPrintable(mpi.errText()));
        QCOMPARE(mpi.exitCode, 0);
        const QStringList names = QDir(tmp.filePath("cli")).entryList(QDir::Files, QDir::Name);
        QCOMPARE(QDir(tmp.filePath("mpi")).entryList(QDir::Files, QDir::Name), names);
        QCOMPARE(names.size(), 7);
        for (const QString& name : names) {
            QFile a(tmp.filePath("cli/" + name));
            QFile b(tmp.filePath("mpi/" + name));
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            QVERIFY2(a.readAll() == b.readAll(), qPrintable(name));
        }

        QVERIFY(QDir(tmp.path()).mkpath("mpi/notes"));
        const ProcessRun refused = runMpi(2, scene + QStringList{tmp.filePath("mpi")}, 60000);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.errText().contains("rank 0: --save-npy: " + tmp.filePath("mpi") +
                                            ": holds notes"),
                 qPrintable(refused.errText()));
    }

    void failedRankAbortsTheJob_data() {
        QTest::addColumn<QString>("failure");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad_alloc") << "2"
                                   << "rank 2 failed: out of memory (std::bad_alloc)";
        QTest::newRow("signal") << "1:signal"
                                << "rank 1 failed: signal SEGV";
    }

    // The other ranks wait in the all-gather for the failed one; the job ends all the same.
    void failedRankAbortsTheJob() {
        QFETCH(QString, failure);
        QFETCH(QString, message);
        const ProcessRun run = runMpi(4,
                                      {"--tp", "4", "--features", "16", "--output", "replicated",
                                       "--summary", "--fail-rank", failure},
                                      60000);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 3);
        QVERIFY2(run.errText().contains(message), qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMpi)
#include "tst_mpi.moc"
