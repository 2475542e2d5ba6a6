// tpviz-mpi --block mlp under mpirun: tpviz-cli --block mlp's document plus the ranks', each rank's
// slices gathered on rank 0 within the block's check of tpviz-cli's arrays (forward and backward),
// each rank holding what mlpCosts says a device holds, leaving out either all-reduce failing the
// check, and the refusals in words.

#include "block/mlp.h"
#include "block/mlp_backward.h"
#include "block/mlp_check.h"
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
using tp::test::matrixOf;
using tp::test::ProcessRun;
using tp::test::runCli;
using tp::test::runMpi;

const QStringList kBlock{"--block",  "mlp",        "--batch",    "3",     "--in-dim", "6",
                         "--hidden", "16",         "--features", "5",     "--seed",   "2",
                         "--bias",   "normal:0.5", "--backward", "--json"};

tp::RowVector vectorOf(const QJsonValue& value) {
    return matrixOf(value).row(0);
}

// The block's arrays as tpviz-cli's document gives them.
tp::MlpParams paramsOf(const QJsonObject& block) {
    return {matrixOf(block["linear1"]["kernel"]), vectorOf(block["linear1"]["bias"]),
            matrixOf(block["linear2"]["kernel"]), vectorOf(block["linear2"]["bias"]),
            matrixOf(block["x"])};
}

tp::MlpGradients gradientsOf(const QJsonValue& value) {
    tp::MlpGradients g;
    g.dx = matrixOf(value["dx"]);
    g.dkernel1 = matrixOf(value["dkernel1"]);
    g.dbias1 = vectorOf(value["dbias1"]);
    g.dkernel2 = matrixOf(value["dkernel2"]);
    g.dbias2 = vectorOf(value["dbias2"]);
    return g;
}

int tpOf(const QStringList& args) {
    return args[args.indexOf("--tp") + 1].toInt();
}

}  // namespace

class TestMpiMlp : public QObject {
    Q_OBJECT

private slots:
    void sameBlockAsCli_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("n2 tp2") << (kBlock + QStringList{"--tp", "2", "--costs"});
        QTest::newRow("n4 tp4") << (kBlock + QStringList{"--tp", "4", "--costs"});
        QTest::newRow("n4 tp4 legacy x64 seed -3")
            << (kBlock + QStringList{"--tp", "4", "--prng", "legacy", "--x64", "--seed", "-3"});
        QTest::newRow("n2 tp2 in_dim 256 hidden 64") << QStringList{
            "--block", "mlp",        "--batch", "8",    "--in-dim", "256",        "--hidden",
            "64",      "--features", "32",      "--tp", "2",        "--backward", "--json"};
    }

    // The ranks' arrays, gathered on rank 0, against tpviz-cli's with the block's check computed
    // here on tpviz-cli's own arrays: h, a = gelu(h), the output, linear2's partial sums and every
    // gradient. The parameters, x and dy are tpviz-cli's bit for bit.
    void sameBlockAsCli() {
        QFETCH(QStringList, args);
        const int tp = tpOf(args);
        const ProcessRun cliRun = runCli(args);
        QCOMPARE(cliRun.exitCode, 0);
        const ProcessRun mpiRun = runMpi(tp, args);
        QVERIFY2(mpiRun.finished, qPrintable(mpiRun.errText()));
        QCOMPARE(mpiRun.exitCode, 0);
        const QJsonObject cli = jsonOf(cliRun);
        const QJsonObject mpi = jsonOf(mpiRun);
        QStringList keys = cli.keys() + QStringList{"mpi", "ranks"};
        keys.sort();
        QCOMPARE(mpi.keys(), keys);
        QCOMPARE(mpi["config"], cli["config"]);
        if (cli.contains("costs"))
            QCOMPARE(mpi["costs"], cli["costs"]);

        const QJsonObject block = mpi["block"].toObject();
        const QJsonObject cliBlock = cli["block"].toObject();
        QCOMPARE(block.keys(), cliBlock.keys());
        for (const char* key : {"kind", "hidden", "activation", "linear1", "linear2", "x",
                                "reference", "collectives"})
            QVERIFY2(block[key] == cliBlock[key], key);
        QCOMPARE(block["verification"]["verdict"], QJsonValue("passed"));

        const tp::MlpParams params = paramsOf(cliBlock);
        const tp::MlpReference reference = tp::mlpReference(params);
        const tp::MlpForwardBounds bounds = tp::mlpForwardBounds(params, reference);
        tp::MlpForward split;
        split.h = matrixOf(block["h"]);
        split.a = matrixOf(block["a"]);
        split.output = matrixOf(block["output"]);
        const tp::MlpVerification forward = tp::verifyMlp(split, reference, bounds);
        QVERIFY(forward.h.passed());
        QVERIFY(forward.a.passed());
        QVERIFY2(forward.output.passed(),
                 qPrintable(QString::number(forward.output.maxErrorOverBound)));

        // Each rank's partial sum a[:, s] @ kernel2[s, :] within the rounding bound of its own
        // product (the ranks' a is the reference's within its check, far below that bound).
        const QJsonArray groups = block["groups"].toArray();
        const QJsonArray cliGroups = cliBlock["groups"].toArray();
        QCOMPARE(groups.size(), tp);
        const tp::Index hidden = params.kernel1.cols();
        const tp::Index width = hidden / tp;
        for (int g = 0; g < tp; ++g) {
            QCOMPARE(groups[g]["hidden"], cliGroups[g]["hidden"]);
            QVERIFY(tp::verify(matrixOf(groups[g]["partial"]), matrixOf(cliGroups[g]["partial"]),
                               reference.a.middleCols(g * width, width),
                               params.kernel2.middleRows(g * width, width),
                               tp::RowVector::Zero(params.kernel2.cols()))
                        .passed());
        }

        // The backward: dy bit for bit, every gradient within the block's check.
        const QJsonObject backward = mpi["backward"].toObject();
        const QJsonObject cliBackward = cli["backward"].toObject();
        QCOMPARE(backward.keys(), cliBackward.keys());
        QCOMPARE(backward["dy"], cliBackward["dy"]);
        QCOMPARE(backward["reference"], cliBackward["reference"]);
        QCOMPARE(backward["verification"]["passed"], QJsonValue(true));
        const tp::Matrix dy = matrixOf(cliBackward["dy"]);
        const tp::MlpGradients referenceGradients = tp::mlpBackwardReference(params, reference, dy);
        const tp::MlpBackwardVerification check = tp::verifyMlpBackward(
            gradientsOf(backward), referenceGradients, params, reference, bounds, dy);
        QVERIFY2(check.dx.passed(), qPrintable(QString::number(check.dx.maxErrorOverBound)));
        QVERIFY(check.dkernel1.passed());
        QVERIFY(check.dbias1.passed());
        QVERIFY(check.dkernel2.passed());
        QVERIFY(check.dbias2.passed());
        // Each rank's partial of dx, dh[:, s] @ kernel1[:, s]^T, within its product's bound.
        const QJsonArray dxGroups = backward["groups"].toArray();
        QCOMPARE(dxGroups.size(), tp);
        for (int g = 0; g < tp; ++g)
            QVERIFY(tp::verify(matrixOf(dxGroups[g]["dx_partial"]),
                               matrixOf(cliBackward["groups"][g]["dx_partial"]),
                               referenceGradients.dh.middleCols(g * width, width),
                               params.kernel1.middleCols(g * width, width).transpose(),
                               tp::RowVector::Zero(params.kernel1.rows()))
                        .passed());

        const QJsonObject run = mpi["mpi"].toObject();
        QCOMPARE(run["world_size"].toInt(), tp);
        QCOMPARE(run["check"], QJsonValue("single-process"));
        QCOMPARE(run["elements"].toInt(), int(split.output.size()));
        if (tp == 2)  // p0 + p1 in either order: the single process's sum, bit for bit
            QCOMPARE(run["bit_identical"], run["elements"]);
    }

    // Every rank holds what mlpCosts says a device holds, forward and backward, and timed its
    // compute and its all-reduces.
    void eachRankHoldsItsSlice() {
        const QStringList args = kBlock + QStringList{"--tp", "4", "--costs", "--summary"};
        const ProcessRun run = runMpi(4, args);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QJsonObject report = jsonOf(run);
        const QJsonObject perDevice = report["costs"]["per_device"].toObject();
        const QJsonObject backwardPerDevice = report["costs"]["backward_per_device"].toObject();
        const QJsonArray ranks = report["ranks"].toArray();
        QCOMPARE(ranks.size(), 4);
        for (int r = 0; r < 4; ++r) {
            const QJsonObject rank = ranks[r].toObject();
            QCOMPARE(rank["rank"].toInt(), r);
            QCOMPARE(rank["device"], QJsonValue(QJsonArray{0, r}));
            QCOMPARE(rank["hidden"], QJsonValue(QJsonArray{4 * r, 4 * r + 4}));
            for (const char* array :
                 {"kernel1", "bias1", "kernel2", "bias2", "x", "hidden", "partial", "output"})
                QVERIFY2(
                    rank[QString(array) + "_bytes_held"] == perDevice[QString(array) + "_bytes"],
                    array);
            for (const char* key : {"peak_rss_bytes", "generate_s", "compute_s", "communication_s"})
                QVERIFY2(rank[key].toDouble() > 0, key);
            const QJsonObject backward = rank["backward"].toObject();
            for (const char* array :
                 {"dy", "da", "dh", "dkernel1", "dbias1", "dkernel2", "dbias2", "dx"})
                QVERIFY2(backward[QString(array) + "_bytes_held"] ==
                             backwardPerDevice[QString(array) + "_bytes"],
                         array);
            const QJsonArray collectives = backward["collectives"].toArray();
            QCOMPARE(collectives.size(), 1);
            QCOMPARE(collectives[0]["of"], QJsonValue("dx"));
            QVERIFY(collectives[0]["communication_s"].toDouble() > 0);
        }
    }

    // The text report: tpviz-cli's, then each rank's slice, holdings and times.
    void textSummary() {
        QStringList args = kBlock + QStringList{"--tp", "2", "--summary"};
        args.removeAll("--json");
        const ProcessRun run = runMpi(2, args);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 0);
        const QString text = run.outText();
        QVERIFY2(text.startsWith("Megatron MLP block: linear1 = nnx.Linear(6, 16)"),
                 qPrintable(text));
        QVERIFY(text.contains("\nverification: passed\n"));
        QVERIFY(text.contains("  dx: passed"));
        QVERIFY(text.contains("\nMPI: 2 ranks; checked against the single-process reference"));
        QVERIFY(text.contains("  rank 1 device (0, 1), hidden 8:16: kernel1 held 192 bytes"));
        QCOMPARE(text.count(", all-reduce of the partial sums "), 2);
        QCOMPARE(text.count(", all-reduce of dx "), 2);
    }

    void leftOutAllReduceFails_data() {
        QTest::addColumn<QString>("skipped");
        QTest::addColumn<bool>("forwardPasses");
        QTest::addColumn<QStringList>("failedGradients");
        // Without the partial sums' all-reduce each rank's output misses the others' partial
        // sums; without dx's, each rank's dx is its own partial.
        QTest::newRow("partials") << "partials" << false << QStringList{};
        QTest::newRow("dx") << "dx" << true << QStringList{"dx"};
    }

    // Every rank leaves out one all-reduce (a hidden test option): the check says what is wrong
    // and the exit status is 1. The same block passes with both in sameBlockAsCli.
    void leftOutAllReduceFails() {
        QFETCH(QString, skipped);
        QFETCH(bool, forwardPasses);
        QFETCH(QStringList, failedGradients);
        const QStringList args = kBlock + QStringList{"--tp", "2", "--summary"};
        const ProcessRun run = runMpi(2, args + QStringList{"--skip-collective", skipped});
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 1);
        const QJsonObject report = jsonOf(run);
        QCOMPARE(report["block"]["verification"]["passed"], QJsonValue(forwardPasses));
        QCOMPARE(report["block"]["verification"]["output"]["passed"], QJsonValue(forwardPasses));
        const QJsonObject v = report["backward"]["verification"].toObject();
        for (const char* array : {"dx", "dkernel1", "dbias1", "dkernel2", "dbias2"})
            QVERIFY2(v[array]["passed"] == QJsonValue(!failedGradients.contains(array)), array);
    }

    // Rank 0 writes the block's arrays as tpviz-cli does: the same files, the parameters, x and
    // dy bit for bit.
    void saveNpyWritesTheCliFiles() {
        QTemporaryDir tmp;
        QStringList scene = kBlock + QStringList{"--tp", "2", "--summary", "--save-npy"};
        scene.removeAll("--json");
        QCOMPARE(runCli(scene + QStringList{tmp.filePath("cli")}).exitCode, 0);
        const ProcessRun mpi = runMpi(2, scene + QStringList{tmp.filePath("mpi")});
        QVERIFY2(mpi.finished, qPrintable(mpi.errText()));
        QCOMPARE(mpi.exitCode, 0);
        const QStringList names = QDir(tmp.filePath("cli")).entryList(QDir::Files, QDir::Name);
        QCOMPARE(QDir(tmp.filePath("mpi")).entryList(QDir::Files, QDir::Name), names);
        QVERIFY(names.contains("partial_1.npy") && names.contains("dkernel1.npy"));
        for (const QString name : {"kernel1.npy", "bias1.npy", "kernel2.npy", "bias2.npy", "x.npy",
                                   "dy.npy", "reference.npy"}) {
            QFile a(tmp.filePath("cli/" + name));
            QFile b(tmp.filePath("mpi/" + name));
            QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
            QVERIFY2(a.readAll() == b.readAll(), qPrintable(name));
        }
    }

    void refusalsSayWhy_data() {
        QTest::addColumn<int>("ranks");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        const QStringList block{"--block", "mlp", "--in-dim", "8", "--tp", "2", "--summary"};
        QTest::newRow("a mistake")
            << 2 << (block + QStringList{"--mistake", "gather-between"})
            << "--mistake: tpviz-mpi runs the MLP block's correct split on real ranks";
        QTest::newRow("world size")
            << 3 << block
            << "the world size (3 ranks) must equal tp_size (2): the MLP block runs one rank per "
               "device of its \"model\" axis; start it with mpirun -n 2";
        QTest::newRow("a data axis")
            << 4 << (block + QStringList{"--data", "2"}) << "data D (2) must be 1";
        QTest::newRow("the whole block on rank 0")
            << 2 << (block + QStringList{"--memory-budget", "4000"})
            << "tpviz-mpi checks the MLP block on rank 0 against the whole block computed in one "
               "process";
        QTest::newRow("a share beyond the budget")
            << 2 << (block + QStringList{"--memory-budget", "500"}) << "each rank needs";
        QTest::newRow("a collective the block has not")
            << 2 << (block + QStringList{"--skip-collective", "dkernel"})
            << "--skip-collective (dkernel): the MLP block's collectives are the all-reduces of "
               "the partial sums (partials) and of dx";
        QTest::newRow("the block's collective on a Linear")
            << 2 << QStringList{"--tp", "2", "--summary", "--skip-collective", "partials"}
            << "the all-reduce of linear2's partial sums is the MLP block's; add --block mlp";
    }

    void refusalsSayWhy() {
        QFETCH(int, ranks);
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        const ProcessRun run = runMpi(ranks, args, 60000);
        QVERIFY2(run.finished, qPrintable(run.errText()));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(words), qPrintable(run.errText()));
        QVERIFY(run.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMpiMlp)
#include "tst_mpi_mlp.moc"
