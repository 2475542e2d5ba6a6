// tpviz-mpi --layout fsdp|sequence under mpirun on 4 ranks (data 2 x tp 2): the same report as
// tpviz-cli (the output and dy bit for bit in column mode, within the rounding bound in row mode;
// the gradients within the check), each rank's collectives in the order of costs.collectives, its
// bytes at rest and at its peak as layoutMemory counts them, and the layouts' refusals in words.

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

const QStringList kScene{"--batch", "4",       "--in-dim",   "32",     "--features",
                         "64",      "--seed",  "3",          "--bias", "normal:0.5",
                         "--tp",    "2",       "--data",     "2",      "--output",
                         "sharded", "--costs", "--backward", "--json"};

tp::Gradients gradientsOf(const QJsonValue& value) {
    return {matrixOf(value["dx"]), matrixOf(value["dkernel"]), matrixOf(value["dbias"]).row(0)};
}

// costs.collectives without each collective's "run" (tpviz-cli's simulated run, the ranks' note).
QJsonArray withoutRuns(QJsonArray collectives) {
    for (auto&& entry : collectives) {
        QJsonObject object = entry.toObject();
        object.remove("run");
        entry = object;
    }
    return collectives;
}

}  // namespace

class TestMpiLayout : public QObject {
    Q_OBJECT

private slots:
    void sameReportAsCli_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("mode");
        for (const char* layout : {"fsdp", "sequence"})
            for (const char* mode : {"column", "row"})
                QTest::addRow("%s %s n4 tp2 data2", layout, mode) << layout << mode;
    }

    void sameReportAsCli() {
        QFETCH(QString, layout);
        QFETCH(QString, mode);
        const QStringList args = kScene + QStringList{"--layout", layout, "--mode", mode};
        const ProcessRun cliRun = runCli(args);
        QCOMPARE(cliRun.exitCode, 0);
        const ProcessRun mpiRun = runMpi(4, args);
        QVERIFY2(mpiRun.finished, qPrintable(mpiRun.errText()));
        QVERIFY2(mpiRun.exitCode == 0, qPrintable(mpiRun.errText()));
        const QJsonObject cli = jsonOf(cliRun);
        const QJsonObject mpi = jsonOf(mpiRun);

        QStringList keys = cli.keys() + QStringList{"mpi", "ranks"};
        keys.sort();
        QCOMPARE(mpi.keys(), keys);
        for (const char* key : {"config", "kernel", "bias", "x", "reference"})
            QVERIFY2(mpi[key] == cli[key], key);
        // The costs are tpviz-cli's; each collective ran on the ranks instead of simulated.
        QJsonObject mpiCosts = mpi["costs"].toObject();
        QJsonObject cliCosts = cli["costs"].toObject();
        const QJsonArray program = withoutRuns(cliCosts["collectives"].toArray());
        QCOMPARE(withoutRuns(mpiCosts["collectives"].toArray()), program);
        for (const auto& entry : mpiCosts["collectives"].toArray())
            QVERIFY(entry.toObject().value("run").toObject().value("note").toString().contains(
                "MPI ranks"));
        mpiCosts.remove("collectives");
        cliCosts.remove("collectives");
        QCOMPARE(mpiCosts, cliCosts);

        // The output, gathered from the blocks the layout leaves on each rank.
        QCOMPARE(mpi["verification"]["passed"], QJsonValue(true));
        QCOMPARE(mpi["verification"]["over_bound"], QJsonValue(0));
        QCOMPARE(mpi["mpi"]["check"], QJsonValue("single-process"));
        QCOMPARE(mpi["mpi"]["elements"].toInt(), 4 * 64);
        const tp::Matrix x = matrixOf(cli["x"]);
        const tp::Matrix kernel = matrixOf(cli["kernel"]);
        const tp::RowVector bias = matrixOf(cli["bias"]).row(0);
        if (mode == "column") {
            // Gathers only move values: the product is the tensor layout's, bit for bit.
            QCOMPARE(mpi["output"], cli["output"]);
            QCOMPARE(mpi["groups"], cli["groups"]);
            QCOMPARE(mpi["mpi"]["bit_identical"], mpi["mpi"]["elements"]);
        } else {
            // MPI sums the partial sums in its own order.
            QVERIFY(tp::verify(matrixOf(mpi["output"]), matrixOf(cli["output"]), x, kernel, bias)
                        .passed());
        }

        // The backward: dy bit for bit, the gradients within the check of tpviz-cli's reference.
        const QJsonObject cliBackward = cli["backward"].toObject();
        const QJsonObject mpiBackward = mpi["backward"].toObject();
        QCOMPARE(mpiBackward.keys(), cliBackward.keys());
        QCOMPARE(mpiBackward["dy"], cliBackward["dy"]);
        QCOMPARE(mpiBackward["verification"]["passed"], QJsonValue(true));
        const tp::BackwardVerification check =
            tp::verifyBackward(gradientsOf(mpiBackward), gradientsOf(cliBackward["reference"]), x,
                               kernel, matrixOf(cliBackward["dy"]));
        QVERIFY(check.dx.passed());
        QVERIFY(check.dkernel.passed());
        QVERIFY(check.dbias.passed());

        // Every rank keeps what layoutMemory says a device keeps, peaks where it peaks, and ran
        // the program's collectives in its order.
        const QJsonObject perDevice = cli["costs"]["per_device"].toObject();
        const QJsonArray ranks = mpi["ranks"].toArray();
        QCOMPARE(ranks.size(), 4);
        for (int r = 0; r < ranks.size(); ++r) {
            const QJsonObject rank = ranks[r].toObject();
            QCOMPARE(rank["device"], QJsonValue(QJsonArray{r / 2, r % 2}));
            for (const char* array : {"kernel", "bias", "x", "output"})
                QVERIFY2(rank[QString(array) + "_bytes_held"] ==
                             perDevice[QString(array) + "_bytes_at_rest"],
                         array);
            for (const char* array : {"dx", "dkernel", "dbias"})
                QVERIFY2(rank["backward"][QString(array) + "_bytes_held"] ==
                             perDevice[QString(array) + "_bytes_at_rest"],
                         array);
            const QJsonObject held = rank["layout"].toObject();
            QCOMPARE(held["bytes_at_rest"], perDevice["bytes_at_rest"]);
            QCOMPARE(held["bytes_peak"], perDevice["bytes_peak"]);
            const QJsonArray times = held["collectives"].toArray();
            QCOMPARE(times.size(), program.size());
            for (int i = 0; i < times.size(); ++i) {
                for (const char* key : {"name", "phase", "axis", "of"})
                    QVERIFY2(times[i][key] == program[i][key], key);
                QVERIFY(times[i]["communication_s"].toDouble() >= 0);
            }
        }
    }

    // Refused in words on every entrance's terms: the layout's own config problems, the MLP
    // block's tensor layout, and a whole layer that rank 0 cannot hold to check the ranks.
    void refusals_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        QTest::newRow("sequence batch 6 on 2 x 2")
            << 4
            << QStringList{"--batch", "6", "--in-dim", "32",       "--features", "64", "--tp", "2",
                           "--data",  "2", "--costs",  "--layout", "sequence"}
            << "batch N (6) is not divisible by data x tp_size (4)";
        QTest::newRow("mlp fsdp") << 2
                                  << QStringList{"--block", "mlp",     "--batch",  "4",   "--tp",
                                                 "2",       "--costs", "--layout", "fsdp"}
                                  << "the MLP block runs the tensor layout; the fsdp layout is "
                                     "one Linear's";
        QTest::newRow("fsdp beyond rank 0")
            << 4
            << QStringList{"--batch",  "4",    "--in-dim",        "32",   "--features", "64",
                           "--tp",     "2",    "--data",          "2",    "--costs",    "--summary",
                           "--layout", "fsdp", "--memory-budget", "20000"}
            << "--layout fsdp: rank 0 checks every rank's arrays against the whole layer";
    }

    void refusals() {
        QFETCH(int, ranks);
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        const ProcessRun run = runMpi(ranks, args);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(words), qPrintable(run.errText()));
    }
};

QTEST_GUILESS_MAIN(TestMpiLayout)
#include "tst_mpi_layout.moc"
