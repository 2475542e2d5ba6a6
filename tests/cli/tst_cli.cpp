// tpviz-cli end to end: exit codes, text and JSON output, the brief's example, refused input.

#include "config_fixtures.h"
#include "help_columns.h"
#include "layer/float_format.h"
#include "process_run.h"
#include "sanitizer_build.h"
#include "scene/python_snippet.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <charconv>

namespace {

using Run = tp::test::ProcessRun;

Run runCli(const QStringList& args) {
    return tp::test::runProcess(QStringLiteral(TPVIZ_CLI_PATH), args);
}

QJsonObject runJson(const QStringList& args) {
    const Run run = runCli(args);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << error.errorString() << run.err;
    return doc.object();
}

std::vector<float> flatten(const QJsonArray& rows) {
    std::vector<float> values;
    for (const QJsonValue& row : rows)
        for (const QJsonValue& v : row.toArray())
            values.push_back(float(v.toDouble()));
    return values;
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    // A scene within the memory budget that the process cannot allocate (address space limited to
    // 600 MB; the kernel alone is 1 GiB) exits 2 with the reason, not with a crash.
    void allocationFailureExitsWithTheReason() {
        if (tp::test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        tp::LayerConfig config;
        config.inDim = 16384;
        config.features = 16384;
        config.tpSize = 4;
        const auto result = tp::test::runProcess(
            QStringLiteral("/bin/sh"),
            {"-c", "ulimit -v 600000 && exec \"$0\" \"$@\"", QStringLiteral(TPVIZ_CLI_PATH),
             "--in-dim", "16384", "--features", "16384", "--tp", "4", "--summary"});
        QVERIFY2(result.finished, qPrintable(result.errText()));
        QCOMPARE(result.exitCode, 2);
        QCOMPARE(
            result.errText(),
            "tpviz-cli: " + QString::fromStdString(tp::allocationFailureMessage(config)) + "\n");
    }

    // The scene fits in 200 MB, the devices' buffers of --costs do not (eight replicated outputs
    // of 16 MiB and more): the allocation that fails there exits 2 with the reason, not abort.
    void allocationFailureInTheCostsExitsWithTheReason() {
        if (tp::test::kSanitized)
            QSKIP("AddressSanitizer cannot run under a small address-space limit");
        const QStringList scene = {"--batch",    "1024",       "--in-dim", "8",
                                   "--features", "4096",       "--tp",     "8",
                                   "--output",   "replicated", "--summary"};
        auto run = [&](const QStringList& extra) {
            return tp::test::runProcess(QStringLiteral("/bin/sh"),
                                        QStringList{"-c", "ulimit -v 200000 && exec \"$0\" \"$@\"",
                                                    QStringLiteral(TPVIZ_CLI_PATH)} +
                                            scene + extra,
                                        {.environment = {{"OMP_NUM_THREADS", "1"}}});
        };
        const auto without = run({});
        QVERIFY2(without.finished && without.exitCode == 0, qPrintable(without.errText()));
        const auto costs = run({"--costs"});
        QVERIFY2(costs.finished, qPrintable(costs.errText()));
        QCOMPARE(costs.exitCode, 2);
        const tp::LayerConfig config{.batch = 1024,
                                     .inDim = 8,
                                     .features = 4096,
                                     .tpSize = 8,
                                     .output = tp::OutputLayout::Replicated};
        // The words name the part that ran out: the ring's buffers, not the scene.
        const std::int64_t ring = tp::ringRunBytes(config);
        QCOMPARE(costs.errText(),
                 "tpviz-cli: not enough memory for the costs of this scene: the ring's run on the "
                 "devices' buffers needs " +
                     QString::fromStdString(tp::formatBytes(ring)) +
                     QString(" (%1 bytes) beside the scene and an allocation failed; leave out "
                             "--costs or choose smaller sizes\n")
                         .arg(ring));
    }

    void briefExampleJson() {
        const QJsonObject doc = runJson({"--example", "brief", "--json"});
        QCOMPARE(flatten(doc["output"].toArray()), (std::vector<float>{1.5f, 1.5f, 5.f, 7.f}));
        QCOMPARE(flatten(doc["reference"].toArray()), (std::vector<float>{1.5f, 1.5f, 5.f, 7.f}));
        QCOMPARE(flatten(doc["x"].toArray()), (std::vector<float>{1.f, 2.f}));
        QCOMPARE(doc["bias"].toArray().size(), 4);
        const QJsonArray groups = doc["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[1].toObject()["index"].toInt(), 1);
        QCOMPARE(groups[1].toObject()["columns"].toArray(), (QJsonArray{2, 4}));
        QCOMPARE(flatten(groups[1].toObject()["partial"].toArray()),
                 (std::vector<float>{5.f, 7.f}));
        const QJsonObject v = doc["verification"].toObject();
        QCOMPARE(v["allclose"].toBool(), true);
        QCOMPARE(v["max_abs_error"].toDouble(), 0.0);
        QVERIFY(v.contains("max_rel_error"));
        QCOMPARE(doc["config"].toObject()["tp_size"].toInt(), 2);
    }

    void briefExampleText() {
        const Run run = runCli({"--example", "brief"});
        QCOMPARE(run.exitCode, 0);
        const QString text = run.outText();
        QVERIFY2(text.contains("group 1: columns [2:4)"), qPrintable(text));
        QVERIFY(text.contains("y[:, 2:4] = x @ kernel[:, 2:4] + bias[2:4]   (1x2 @ 2x2 + 2)"));
        QVERIFY(
            text.contains("output (1, 4), the partials concatenated in group order (never "
                          "summed):\n  1.5  1.5    5    7\n"));
        QVERIFY(text.contains("allclose yes"));
    }

    void rowModeSumsPartials() {
        const QJsonObject doc = runJson({"--example", "brief", "--mode", "row", "--json"});
        QCOMPARE(flatten(doc["output"].toArray()), (std::vector<float>{1.5f, 1.5f, 5.f, 7.f}));
        const QJsonArray groups = doc["groups"].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0].toObject()["rows"].toArray(), (QJsonArray{0, 1}));
        // Row 0 of the kernel times x[0, 0] = 1, without bias.
        QCOMPARE(flatten(groups[0].toObject()["partial"].toArray()),
                 (std::vector<float>{1.f, 0.f, 2.f, -1.f}));
        QCOMPARE(flatten(groups[1].toObject()["running_sum"].toArray()),
                 (std::vector<float>{1.f, 2.f, 4.f, 5.f}));
    }

    void nnxSceneMatchesTheCore() {
        const tp::LayerConfig& config = tp::test::kTinyTwoGroups;
        const Run run =
            runCli({"--batch", "2", "--in-dim", "3", "--features", "4", "--tp", "2", "--json"});
        QCOMPARE(run.exitCode, 0);
        const auto scene = tp::computeScene({config, tp::SceneSource::Nnx});
        // Every kernel value in the JSON text reads back to the same float32 bits.
        const QString text = run.outText();
        const auto kernelText =
            QRegularExpression("\"kernel\": \\[(.*?)\\]\\],").match(text).captured(1);
        QRegularExpression number("-?[0-9][0-9.e+-]*");
        std::vector<float> values;
        for (auto it = number.globalMatch(kernelText); it.hasNext();) {
            const QByteArray token = it.next().captured().toLatin1();
            float value = 0;
            std::from_chars(token.data(), token.data() + token.size(), value);
            values.push_back(value);
        }
        QCOMPARE(Eigen::Index(values.size()), scene->params.kernel.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            QCOMPARE(tp::bitsOfFloat(values[i]), tp::bitsOfFloat(scene->params.kernel.data()[i]));
        // Linear(3, 4, Rngs(0)): kernel[0, 0] is 0x3f1e2c8f (spec §10).
        QVERIFY(text.contains("\"kernel\": [[0.6178674, "));
    }

    void summaryHasNoArrays() {
        const QJsonObject doc =
            runJson({"--features", "4096", "--in-dim", "64", "--tp", "64", "--summary", "--json"});
        QVERIFY(!doc.contains("kernel"));
        QVERIFY(!doc.contains("output"));
        QCOMPARE(doc["groups"].toArray().size(), 64);
        QCOMPARE(doc["groups"].toArray()[63].toObject()["columns"].toArray(),
                 (QJsonArray{4032, 4096}));
        QVERIFY(!doc["groups"].toArray()[0].toObject().contains("partial"));
        QCOMPARE(doc["verification"].toObject()["allclose"].toBool(), true);

        const Run text = runCli({"--summary"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(!text.out.contains("kernel (8, 12)"));
        QVERIFY(text.out.contains("group 2: columns [8:12)"));
    }

    void refusedInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("tp does not divide")
            << QStringList{"--tp", "5"}
            << "features (12) is not divisible by tp_size (5): each group needs the "
               "same number of kernel columns. Valid tp sizes: 1, 2, 3, 4, 6, 12.";
        // tpviz's --mode moves tp_size to a divisor; tpviz-cli keeps refusing.
        QTest::newRow("row mode, default tp 3")
            << QStringList{"--mode", "row"}
            << "in_dim (8) is not divisible by tp_size (3): each group needs the same number of "
               "kernel rows. Valid tp sizes: 1, 2, 4, 8.";
        QTest::newRow("seed not a number")
            << QStringList{"--seed", "abc"}
            << "--seed: 'abc' is not a whole number in the int64 range";
        QTest::newRow("seed past int64")
            << QStringList{"--seed", "9223372036854775808"}
            << "--seed: '9223372036854775808' is not a whole number in the int64 range";
        QTest::newRow("batch zero")
            << QStringList{"--batch=0"} << "batch N (0) must be a positive integer";
        QTest::newRow("unknown option")
            << QStringList{"--colour"} << "unknown option '--colour' (see --help)";
        QTest::newRow("missing value") << QStringList{"--features"} << "--features needs a value";
        QTest::newRow("bad tolerance")
            << QStringList{"--rtol", "-1"} << "--rtol: '-1' is not a number >= 0";
        QTest::newRow("tolerance underflows")
            << QStringList{"--atol", "1e-400"}
            << "--atol: '1e-400' is beyond a double's range (about 2e-308 to 2e308 in size)";
        QTest::newRow("bad mode") << QStringList{"--mode", "diagonal"}
                                  << "--mode: 'diagonal' is not column or row";
        QTest::newRow("bad bias") << QStringList{"--bias", "normal:-2"}
                                  << "--bias: bias stddev (-2) must be a finite number above 0";
        QTest::newRow("brief with sizes")
            << QStringList{"--example", "brief", "--features", "8"}
            << "--features does not apply to --example brief: the worked example's arrays are "
               "fixed (only --tp and --mode can change)";
        QTest::newRow("too big")
            << QStringList{"--in-dim", "100000", "--features", "100000", "--tp", "1"}
            << "this scene needs 37.3 GiB (40003600000 bytes), more than the memory budget "
               "of 2.0 GiB; choose smaller sizes";
    }

    // Invalid input: exit status 2, every message on stderr, nothing on stdout.
    void refusedInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.errText().contains("tpviz-cli: " + message), run.err.constData());
    }

    // A zero tolerance turns the check red whenever a sliced product differs in its last bits;
    // with the defaults the same scene passes. Exit status 1 tells a failed check.
    void toleranceIsSettable() {
        const QStringList scene{"--batch", "16", "--in-dim", "512", "--features", "96",
                                "--tp",    "8",  "--mode",   "row", "--json",     "--summary"};
        const QJsonObject loose = runJson(scene);
        QCOMPARE(loose["verification"].toObject()["allclose"].toBool(), true);
        QVERIFY(loose["verification"].toObject()["max_abs_error"].toDouble() > 0);
        const Run strict = runCli(scene + QStringList{"--rtol", "0", "--atol=0"});
        QCOMPARE(strict.exitCode, 1);
        const QJsonObject v =
            QJsonDocument::fromJson(strict.out).object()["verification"].toObject();
        QCOMPARE(v["allclose"].toBool(), false);
        QCOMPARE(v["rtol"].toDouble(), 0.0);
    }

    // --python prints the same script the app shows, for the same options.
    void pythonSnippet() {
        const Run run =
            runCli({"--features", "8", "--tp", "4", "--seed", "7", "--prng", "legacy", "--python"});
        QCOMPARE(run.exitCode, 0);
        const tp::LayerConfig config{
            .features = 8, .tpSize = 4, .seed = 7, .prng = tp::PrngLayout::Legacy};
        QCOMPARE(QString::fromStdString(tp::pythonSnippet(config)), run.outText());
        QVERIFY(run.out.contains("nnx.Rngs(7)"));
        QVERIFY(run.out.contains("jax_threefry_partitionable"));
    }

    void help() {
        const Run run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const char* option : {"--batch N", "--in-dim D", "--tp T", "--seed S", "--json",
                                   "--summary", "--example brief"})
            QVERIFY2(run.out.contains(option), option);
        // The check's rule, with its lambda and its chance of a false alarm, and the verdicts.
        for (const char* words : {"exp(11 * sqrt(n) * u", "below 1e-9", "inconclusive:",
                                  "Exit status: 0 passed, 1 failed or inconclusive"})
            QVERIFY2(run.out.contains(words), words);
        const QByteArray rule = run.out.mid(run.out.indexOf("The check (rounding-bound"));
        QVERIFY(rule.size() > 0 && rule.size() < run.out.size());
        for (const QByteArray& line : rule.split('\n'))
            QVERIFY2(line.size() < 100, line.constData());
    }

    // Every option's words start in one column, --version's too.
    void helpAlignsEveryOption() {
        const Run run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        const tp::test::HelpColumns help = tp::test::helpColumns(run.outText());
        QVERIFY(run.outText().contains("\n  --version "));
        QVERIFY(help.options > 20);
        QCOMPARE(help.columns.size(), 1);
    }

    // The case: a correct split at an ordinary size passes the rounding bound (exit 0)
    // though it is not allclose at the default tolerances; given explicitly, allclose decides.
    // Row partial sums of 4 rows: summed in order over k on every SIMD path, the same bits.
    void roundingBoundDecidesTheExitStatus() {
        const QStringList scene{"--batch", "4", "--in-dim", "4096", "--features", "64",
                                "--tp",    "4", "--mode",   "row",  "--json",     "--summary"};
        const Run run = runCli(scene);
        QCOMPARE(run.exitCode, 0);
        const QJsonObject v = QJsonDocument::fromJson(run.out).object()["verification"].toObject();
        QCOMPARE(v["passed"].toBool(), true);
        QCOMPARE(v["rule"].toString(), QString("rounding-bound"));
        QCOMPARE(v["allclose"].toBool(), false);
        QVERIFY(v["shape_mismatch"].isNull());
        QCOMPARE(v["elements"].toInteger(), 4 * 64);
        QVERIFY(v["bit_identical"].toInteger() < 4 * 64);
        QVERIFY(v["max_ulp"].toInteger() > 0);
        const double ratio = v["max_error_over_bound"].toDouble();
        QVERIFY(ratio > 0 && ratio < 0.01);

        const Run given = runCli(scene + QStringList{"--rtol", "1e-5"});
        QCOMPARE(given.exitCode, 1);
        const QJsonObject g =
            QJsonDocument::fromJson(given.out).object()["verification"].toObject();
        QCOMPARE(g["passed"].toBool(), false);
        QCOMPARE(g["rule"].toString(), QString("allclose"));
        const Run text = runCli({"--batch", "4", "--in-dim", "4096", "--features", "64", "--tp",
                                 "4", "--mode", "row", "--summary", "--atol", "1e-6"});
        QVERIFY2(text.out.contains("verification: FAILED by allclose (rtol 1e-05, atol 1e-06, "
                                   "given explicitly)"),
                 text.out.constData());
    }

    // A hostile user's cases: the brief's mistakes at large in_dim, where the worst-case bound
    // (about 10 at in_dim 262144) let errors of 1.9 pass. They fail or are inconclusive (exit 1),
    // never "passed".
    void mistakesAtLargeInDimNeverPass_data() {
        QTest::addColumn<QStringList>("args");
        const auto scene = [](const char* batch, const char* inDim, const char* features,
                              const char* tp) {
            return QStringList{"--batch", batch,  "--in-dim", inDim,    "--features",
                               features,  "--tp", tp,         "--json", "--summary"};
        };
        QTest::newRow("column init-per-group 262144")
            << scene("2", "262144", "4", "2") + QStringList{"--mistake", "init-per-group"};
        QTest::newRow("column slice-x 262144")
            << scene("2", "262144", "4", "2") + QStringList{"--mistake", "slice-x"};
        QTest::newRow("row bias-per-partial 262144")
            << scene("2", "262144", "4", "2") + QStringList{"--mode",    "row",
                                                            "--bias",    "normal:1",
                                                            "--mistake", "bias-per-partial"};
        QTest::newRow("column slice-x 8x131072x512 tp8")
            << scene("8", "131072", "512", "8") + QStringList{"--mistake", "slice-x"};
        QTest::newRow("row init-per-group 2^24")
            << scene("1", "16777216", "2", "2") +
                   QStringList{"--mode", "row", "--mistake", "init-per-group"};
    }

    void mistakesAtLargeInDimNeverPass() {
        QFETCH(QStringList, args);
        const Run run = runCli(args);
        QCOMPARE(run.exitCode, 1);
        const QJsonObject v = QJsonDocument::fromJson(run.out).object()["verification"].toObject();
        QVERIFY2(v["verdict"].toString() == "failed" || v["verdict"].toString() == "inconclusive",
                 run.out.constData());
        QCOMPARE(v["passed"].toBool(), false);
        const Run text =
            runCli(args.mid(0, args.indexOf("--json")) + args.mid(args.indexOf("--json") + 1));
        QVERIFY2(!text.out.contains("verification: passed"), text.out.constData());
    }

    // Past the size where rounding alone may reach the values, a correct row split is
    // inconclusive (exit 1, in words), and a column split, bit-identical, still passes.
    void inconclusiveWhereRoundingReachesTheValues() {
        const QStringList scene{"--batch", "2",    "--in-dim", "1048576",  "--features",
                                "4",       "--tp", "2",        "--summary"};
        const Run row = runCli(scene + QStringList{"--mode", "row"});
        QCOMPARE(row.exitCode, 1);
        QVERIFY2(row.out.contains("verification: INCONCLUSIVE: every element is within the "
                                  "float32 rounding bound"),
                 row.out.constData());
        QVERIFY(row.out.contains("summing 1048576 terms, float32 rounding alone may reach "));
        const QJsonObject v =
            runJson(scene + QStringList{"--mode", "row", "--json"})["verification"].toObject();
        QCOMPARE(v["verdict"].toString(), QString("inconclusive"));
        QCOMPARE(v["over_bound"].toInteger(), 0);
        QVERIFY(v["resolution"].toDouble() > v["value_scale"].toDouble() / 16);

        const Run column = runCli(scene + QStringList{"--json"});
        QCOMPARE(column.exitCode, 0);
        const QJsonObject c =
            QJsonDocument::fromJson(column.out).object()["verification"].toObject();
        QCOMPARE(c["verdict"].toString(), QString("passed"));
        QCOMPARE(c["bit_identical"].toInteger(), c["elements"].toInteger());
    }

    // --mistake: the wrong computation fails the check (exit 1) and JSON names it; one that does
    // not apply to the mode is refused (exit 2); one without effect passes and says why.
    void mistakeExitStatus() {
        const Run caught = runCli({"--mode", "row", "--tp", "4", "--bias", "normal:0.5",
                                   "--mistake", "bias-per-partial", "--json", "--summary"});
        QCOMPARE(caught.exitCode, 1);
        const QJsonObject doc = QJsonDocument::fromJson(caught.out).object();
        QCOMPARE(doc["config"].toObject()["mistake"].toString(), QString("bias-per-partial"));
        QVERIFY(doc["config"].toObject()["mistake_without_effect"].isNull());
        QCOMPARE(doc["verification"].toObject()["passed"].toBool(), false);

        const Run shapes = runCli({"--mistake", "sum-groups", "--json", "--summary"});
        QCOMPARE(shapes.exitCode, 1);
        QCOMPARE(QJsonDocument::fromJson(shapes.out)
                     .object()["verification"]
                     .toObject()["shape_mismatch"]
                     .toString(),
                 QString("shapes differ: (2, 4) vs (2, 12)"));

        const Run refused = runCli({"--mistake", "concat-partials"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains("concat-partials is a row-parallel mistake"));

        const Run none = runCli({"--mode", "row", "--tp", "4", "--mistake", "bias-per-partial"});
        QCOMPARE(none.exitCode, 0);
        QVERIFY(none.out.contains("bias-per-partial has no effect here: the bias is zero"));

        const Run python = runCli({"--mistake", "slice-x", "--tp", "4", "--python"});
        QCOMPARE(python.exitCode, 0);
        tp::LayerConfig config;
        config.tpSize = 4;
        QCOMPARE(QString::fromUtf8(python.out),
                 QString::fromStdString(tp::pythonSnippet(config, tp::Mistake::SliceX)));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
