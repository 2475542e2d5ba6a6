// tpviz-cli --block mlp end to end: the "block" member and its keys, the arrays it writes with
// --save-npy recomputed by numpy in float64 (linear2(gelu(linear1(x))) and its vjp), the mistakes'
// exit status, --summary, the refusals in words, and --python's script: the core's, asserting the
// bits --save-npy writes.

#include "process_run.h"
#include "python_numpy.h"
#include "scene/python_mlp_snippet.h"
#include "scene/python_snippet.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

namespace {

using Run = tp::test::ProcessRun;

Run runCli(const QStringList& args) {
    return tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
}

QJsonObject parsed(const Run& run) {
    return QJsonDocument::fromJson(run.out).object();
}

const QStringList kBlock{"--block",  "mlp", "--batch",    "3",         "--in-dim", "6",
                         "--hidden", "16",  "--features", "5",         "--tp",     "4",
                         "--seed",   "2",   "--bias",     "normal:0.5"};

// kBlock as a config.
tp::LayerConfig blockConfig() {
    tp::LayerConfig c{.batch = 3, .inDim = 6, .features = 5, .tpSize = 4, .seed = 2};
    c.block = tp::Block::Mlp;
    c.hidden = 16;
    c.bias = {tp::BiasInit::Kind::Normal, 0.5f};
    return c;
}

// The forward and the backward recomputed in float64 from the saved parameters, x and dy, each
// against the arrays tpviz-cli wrote; prints the largest relative difference of each.
const char* kNumpyCheck = R"(
import sys, numpy as np
d = sys.argv[1]
L = lambda n: np.load(d + '/' + n + '.npy').astype(np.float64)
k1, b1, k2, b2, x, dy = L('kernel1'), L('bias1'), L('kernel2'), L('bias2'), L('x'), L('dy')
c = np.float64(np.float32(np.sqrt(2 / np.pi)))
def gelu(v):
    return v * 0.5 * (1 + np.tanh(c * (v + 0.044715 * v ** 3)))
def dgelu(v):
    t = np.tanh(c * (v + 0.044715 * v ** 3))
    return 0.5 * (1 + t) + v * 0.5 * (1 - t * t) * c * (1 + 3 * 0.044715 * v * v)
h = x @ k1 + b1
a = gelu(h)
y = a @ k2 + b2
da = dy @ k2.T
dh = da * dgelu(h)
want = {'h': h, 'a': a, 'output': y, 'dx': dh @ k1.T, 'dkernel1': x.T @ dh,
        'dbias1': dh.sum(0), 'dkernel2': a.T @ dy, 'dbias2': dy.sum(0)}
worst = 0.0
for name, value in want.items():
    got = L(name)
    assert got.shape == value.shape, (name, got.shape, value.shape)
    err = np.abs(got - value).max() / max(np.abs(value).max(), 1e-30)
    worst = max(worst, err)
    assert err < 1e-5, (name, err)
print('worst relative difference %.3g' % worst)
)";

}  // namespace

class TestCliMlp : public QObject {
    Q_OBJECT

private slots:
    void theBlocksDocument() {
        const Run run = runCli(kBlock + QStringList{"--json", "--backward", "--costs"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = parsed(run);
        QCOMPARE(doc.keys(), (QStringList{"backward", "block", "config", "costs"}));
        const QJsonObject config = doc["config"].toObject();
        QCOMPARE(config["block"].toString(), QStringLiteral("mlp"));
        QCOMPARE(config["hidden"].toInt(), 16);
        const QJsonObject block = doc["block"].toObject();
        for (const char* key : {"kind", "hidden", "activation", "linear1", "linear2", "x", "groups",
                                "h", "a", "output", "reference", "verification", "collectives"})
            QVERIFY2(block.contains(key), key);
        QCOMPARE(block["linear1"].toObject()["kernel"].toArray().size(), 6);
        QCOMPARE(block["linear1"].toObject()["kernel"].toArray()[0].toArray().size(), 16);
        QCOMPARE(block["linear2"].toObject()["kernel"].toArray().size(), 16);
        QCOMPARE(block["h"].toArray()[0].toArray().size(), 16);
        const QJsonArray groups = block["groups"].toArray();
        QCOMPARE(groups.size(), 4);
        QCOMPARE(groups[3].toObject()["hidden"].toArray(), (QJsonArray{12, 16}));
        QCOMPARE(block["verification"].toObject()["verdict"].toString(), QStringLiteral("passed"));
        const QJsonArray collectives = block["collectives"].toArray();
        QCOMPARE(collectives.size(), 2);  // one all-reduce each way
        QCOMPARE(collectives[0].toObject()["of"].toString(), QStringLiteral("the partial sums"));
        QCOMPARE(collectives[1].toObject()["phase"].toString(), QStringLiteral("backward"));
        QVERIFY(doc["backward"].toObject()["verification"].toObject()["passed"].toBool());
        QCOMPARE(doc["backward"].toObject()["groups"].toArray().size(), 4);
        QVERIFY(doc["costs"].toObject()["per_device"].toObject()["kernel2_bytes"].toInt() ==
                4 * 5 * 4);

        const Run summary = runCli(kBlock + QStringList{"--json", "--summary"});
        const QJsonObject brief = parsed(summary)["block"].toObject();
        QVERIFY(!brief.contains("linear1") && !brief.contains("h"));
        QVERIFY(brief.contains("verification"));
    }

    // What it writes is what the block computes: numpy in float64 agrees within float32 rounding.
    void theSavedArraysAreTheBlock() {
        if (!tp::test::pythonPresent())
            QSKIP("no python3 on this machine");
        QTemporaryDir dir;
        const QString out = dir.filePath("arrays");
        const Run run = runCli(kBlock + QStringList{"--backward", "--summary", "--save-npy", out});
        QCOMPARE(run.exitCode, 0);
        const Run numpy = tp::test::runNumpy(kNumpyCheck, {out});
        QVERIFY2(numpy.exitCode == 0, qPrintable(numpy.errText()));
        QVERIFY(numpy.out.startsWith("worst relative difference"));
    }

    // Two mistakes fail the check and the exit status; gather-between is right, and says so.
    void theMistakesExitAsTheirCheck() {
        // Row-then-column splits in_dim and features too: sizes tp_size 4 divides.
        const QStringList block{"--block", "mlp", "--batch", "3", "--in-dim", "8",
                                "--tp",    "4",   "--seed",  "2", "--bias",   "normal:0.5"};
        for (const auto& [mistake, status] :
             {std::pair{"row-then-column", 1}, std::pair{"bias2-per-partial", 1},
              std::pair{"gather-between", 0}}) {
            const Run run = runCli(block + QStringList{"--mistake", mistake, "--summary"});
            QVERIFY2(run.exitCode == status, mistake);
            QVERIFY(run.out.contains(QByteArray("MISTAKE ") + mistake));
        }
        const Run gathered = runCli(
            block + QStringList{"--mistake", "gather-between", "--json", "--summary", "--costs"});
        const QJsonArray moved = parsed(gathered)["block"].toObject()["collectives"].toArray();
        QCOMPARE(moved.size(), 2);
        QCOMPARE(moved[0].toObject()["of"].toString(), QStringLiteral("a"));
        QCOMPARE(moved[0].toObject()["name"].toString(), QStringLiteral("all-gather"));
    }

    // --python --block mlp prints the core's script for these options, with its backward part
    // when asked.
    void pythonPrintsTheBlocksScript() {
        const Run run = runCli(kBlock + QStringList{"--python", "--backward"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.outText(),
                 QString::fromStdString(tp::pythonSnippet(blockConfig(), tp::Mistake::None, {},
                                                          tp::SnippetPasses::ForwardAndBackward)));
        const Run mistake =
            runCli(kBlock + QStringList{"--python", "--mistake", "bias2-per-partial"});
        QCOMPARE(mistake.exitCode, 0);
        QCOMPARE(mistake.outText(), QString::fromStdString(tp::pythonSnippet(
                                        blockConfig(), tp::Mistake::Bias2PerPartial)));
    }

    void theScriptsBitsAreTheSavedArrays_data() {
        QTest::addColumn<int>("flipped");
        QTest::addColumn<QString>("failure");
        QTest::newRow("as saved") << -1 << "";
        // x[0, 1]: one of the values whose bits the script holds; x[1, 4]: one it does not,
        // caught by the comparison with the folder.
        QTest::newRow("x[0, 1] one bit off") << 1 << "AssertionError: x: bits";
        QTest::newRow("x[1, 4] one bit off") << 10 << "AssertionError: x: not the bits of x.npy";
    }

    // The script's part that asserts bits, run with numpy on the arrays tpviz-cli --save-npy
    // wrote in place of JAX's (there is no JAX here): the bits it holds are the files', and it
    // compares every value with the folder; one bit off in x fails it.
    void theScriptsBitsAreTheSavedArrays() {
        QFETCH(int, flipped);
        QFETCH(QString, failure);
        if (!tp::test::pythonPresent())
            QSKIP("no python3 on this machine");
        QTemporaryDir dir;
        const QString out = dir.filePath("arrays");
        const Run save = runCli(kBlock + QStringList{"--backward", "--summary", "--save-npy", out});
        QCOMPARE(save.exitCode, 0);
        const std::string bits =
            tp::pythonMlpBitsCheck(blockConfig(), tp::SnippetPasses::ForwardAndBackward);
        const Run script = runCli(kBlock + QStringList{"--python", "--backward"});
        QVERIFY(script.outText().contains(QString::fromStdString(bits)));
        QString prelude =
            "import os, sys\n"
            "import numpy as np\n"
            "kernel1, bias1, kernel2, bias2, x, dy = (np.load(os.path.join(sys.argv[1], n + "
            "'.npy'))\n"
            "    for n in ('kernel1', 'bias1', 'kernel2', 'bias2', 'x', 'dy'))\n";
        if (flipped >= 0)
            prelude +=
                QString("x = x.copy()\nx.reshape(-1).view(np.uint32)[%1] ^= 1\n").arg(flipped);
        const Run check = tp::test::runNumpy(prelude + QString::fromStdString(bits), {out});
        if (failure.isEmpty()) {
            QVERIFY2(check.exitCode == 0, qPrintable(check.errText()));
            QVERIFY(check.out.contains("every value bit for bit as in"));
            QVERIFY(
                check.out.contains("kernel1, bias1, kernel2, bias2, x, dy hold the float32 "
                                   "bits tpviz draws"));
        } else {
            QVERIFY(check.exitCode != 0);
            QVERIFY2(check.errText().contains(failure), qPrintable(check.errText()));
        }
    }

    void theRefusalsSayWhy_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        QTest::newRow("hidden not divisible")
            << QStringList{"--block", "mlp", "--hidden", "30", "--tp", "4"}
            << "hidden (30) is not divisible by tp_size (4)";
        QTest::newRow("hidden without the block")
            << QStringList{"--hidden", "32"} << "--hidden sets the MLP block's hidden width";
        QTest::newRow("mode") << QStringList{"--block", "mlp", "--mode", "row"}
                              << "--mode splits one Linear";
        QTest::newRow("a Linear's mistake")
            << QStringList{"--block", "mlp", "--mistake", "slice-x"} << "choose the block linear";
        QTest::newRow("the block's mistake on a Linear")
            << QStringList{"--mistake", "gather-between"} << "choose the block mlp";
        QTest::newRow("data") << QStringList{"--block", "mlp", "--batch", "4", "--data", "2"}
                              << "data D (2) must be 1";
        QTest::newRow("row-then-column's rows")
            << QStringList{"--block",  "mlp", "--in-dim",  "6",
                           "--hidden", "24",  "--mistake", "row-then-column"}
            << "in_dim (6) is not divisible by tp_size (4)";
        QTest::newRow("brief") << QStringList{"--block", "mlp", "--example", "brief"}
                               << "--block does not apply to --example brief";
    }
    void theRefusalsSayWhy() {
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.errText().contains(words), qPrintable(run.errText()));
    }
};

QTEST_MAIN(TestCliMlp)
#include "tst_cli_mlp.moc"
