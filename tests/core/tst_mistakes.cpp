// The mistakes the brief warns about, run for real: each is caught by the check, refused where it
// does not apply, and said to have no effect where it has none.

#include "layer/mistakes.h"
#include "matrix_bits.h"
#include "scene/python_snippet.h"
#include "scene/scene.h"
#include "scene/scene_options.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"

#include <QRegularExpression>
#include <QTest>

using namespace tp;
using tp::test::sameBits;

namespace {

LayerConfig makeConfig(Index batch, Index inDim, Index features, Index tp, ParallelMode mode,
                       float biasStddev = 0.0f) {
    LayerConfig config{
        .batch = batch, .inDim = inDim, .features = features, .tpSize = tp, .mode = mode};
    if (biasStddev > 0)
        config.bias = BiasInit{BiasInit::Kind::Normal, biasStddev};
    return config;
}

QString joined(const std::vector<ConfigProblem>& problems) {
    QStringList lines;
    for (const ConfigProblem& p : problems)
        lines << QString::fromStdString(p.message);
    return lines.join('\n');
}

Scene run(const LayerConfig& config, Mistake mistake) {
    if (!config.validate().empty() || !mistakeProblems(config, mistake).empty())
        qFatal("invalid test scene");
    return *computeScene({config, SceneSource::Nnx, SceneRun{mistake, {}}});
}

}  // namespace

class TestMistakes : public QObject {
    Q_OBJECT

private slots:
    // Each mistake at a small size and at (64, 4096, 4096), with a nonzero bias: the check fails,
    // by shape or by far more than rounding.
    void everyMistakeIsCaught_data() {
        QTest::addColumn<int>("mistake");
        QTest::addColumn<bool>("row");
        QTest::addColumn<int>("batch");
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("tp");
        QTest::addColumn<QString>("shapes");  // the sentence, when the shapes differ
        const struct {
            Mistake mistake;
            bool row;
            const char* name;
        } cases[] = {{Mistake::SumGroups, false, "sum-groups"},
                     {Mistake::ConcatPartials, true, "concat-partials"},
                     {Mistake::BiasPerPartial, true, "bias-per-partial"},
                     {Mistake::InitPerGroup, false, "init-per-group column"},
                     {Mistake::InitPerGroup, true, "init-per-group row"},
                     {Mistake::SliceX, false, "slice-x"}};
        for (const auto& c : cases) {
            QString small, big;
            if (c.mistake == Mistake::SumGroups) {
                small = "shapes differ: (2, 3) vs (2, 12)";
                big = "shapes differ: (64, 512) vs (64, 4096)";
            } else if (c.mistake == Mistake::ConcatPartials) {
                small = "shapes differ: (2, 48) vs (2, 12)";
                big = "shapes differ: (64, 32768) vs (64, 4096)";
            }
            QTest::newRow(qPrintable(QString(c.name) + " small"))
                << int(c.mistake) << c.row << 2 << 12 << 4 << small;
            QTest::newRow(qPrintable(QString(c.name) + " 64x4096x4096 tp8"))
                << int(c.mistake) << c.row << 64 << 4096 << 8 << big;
        }
    }

    void everyMistakeIsCaught() {
        QFETCH(int, mistake);
        QFETCH(bool, row);
        QFETCH(int, batch);
        QFETCH(int, size);
        QFETCH(int, tp);
        QFETCH(QString, shapes);
        const LayerConfig config =
            makeConfig(batch, size, size, tp, row ? ParallelMode::Row : ParallelMode::Column, 0.5f);
        const Scene scene = run(config, Mistake(mistake));
        const Verification& v = scene.verification;
        QVERIFY(!v.passed());
        QVERIFY(scene.mistakeWithoutEffect.empty());
        QCOMPARE(QString::fromStdString(v.shapeMismatch), shapes);
        // Running sums exist where the wrong pass adds: not for partials set side by side.
        const Mistake m = Mistake(mistake);
        QCOMPARE(scene.result.partialsAdded,
                 m == Mistake::SumGroups || (row && m != Mistake::ConcatPartials));
        if (shapes.isEmpty()) {
            QVERIFY(v.overBound > 0);
            QVERIFY2(v.maxErrorOverBound > 100, qPrintable(QString::number(v.maxErrorOverBound)));
        }
        // The correct split of the same scene passes.
        QVERIFY(computeScene({config, SceneSource::Nnx})->verification.passed());
    }

    // bias-per-partial adds the bias tp times: off by (tp - 1) * bias, up to rounding.
    void biasPerPartialIsOffByTpMinusOneBiases() {
        const Scene scene =
            run(makeConfig(4, 64, 16, 4, ParallelMode::Row, 0.5f), Mistake::BiasPerPartial);
        const Matrix expected = scene.reference.rowwise() + 3 * scene.params.bias;
        QVERIFY((scene.result.output - expected).cwiseAbs().maxCoeff() < 1e-5f);
        QVERIFY(scene.result.partialsAdded);
        // The output is the last running sum of the partials that carry the bias.
        QVERIFY(sameBits(scene.result.output, runningSum(scene.result, 3)));
    }

    // The groups' own layers are NNX's nnx.Linear of the shard's shape: in row mode its bias has
    // the whole layer's shape and key, so it is the layer's bias bit for bit; in column mode with
    // the partitionable layout, element (0, j) has the same flat index and fan_in as in the one
    // kernel, and the rest of the rows differ.
    void groupLayerIsTheShardsOwnNnxLayer() {
        const LayerConfig rowConfig = makeConfig(2, 16, 12, 4, ParallelMode::Row, 0.5f);
        const Scene rowScene = run(rowConfig, Mistake::InitPerGroup);
        QCOMPARE(rowScene.groupLayer.kernel.rows(), Index(4));
        QCOMPARE(rowScene.groupLayer.kernel.cols(), Index(12));
        QVERIFY(rowScene.groupLayer.bias == rowScene.params.bias);
        // fan_in 4 instead of 16: a wider spread than the slices of the one kernel.
        QVERIFY(rowScene.groupLayer.kernel.cwiseAbs().maxCoeff() >
                rowScene.params.kernel.cwiseAbs().maxCoeff());

        const LayerConfig columnConfig = makeConfig(2, 16, 12, 4, ParallelMode::Column);
        const Scene columnScene = run(columnConfig, Mistake::InitPerGroup);
        const Matrix& own = columnScene.groupLayer.kernel;
        QCOMPARE(own.rows(), Index(16));
        QCOMPARE(own.cols(), Index(3));
        QVERIFY(own.row(0) == columnScene.params.kernel.row(0).head(3));
        QVERIFY(own.row(1) != columnScene.params.kernel.row(1).head(3));
        // Every group computed with that one layer: all partials are the same.
        for (const Matrix& partial : columnScene.result.partials)
            QVERIFY(partial == columnScene.result.partials.front());
    }

    // Where a mistake changes nothing, the check passes and the scene says why.
    void noEffectCasesPassAndSayWhy_data() {
        QTest::addColumn<int>("mistake");
        QTest::addColumn<bool>("row");
        QTest::addColumn<int>("tp");
        QTest::addColumn<float>("bias");
        QTest::addColumn<QString>("why");
        QTest::newRow("bias-per-partial, zero bias")
            << int(Mistake::BiasPerPartial) << true << 4 << 0.0f << "the bias is zero";
        QTest::newRow("bias-per-partial, tp 1")
            << int(Mistake::BiasPerPartial) << true << 1 << 0.5f << "tp_size 1";
        QTest::newRow("init-per-group column, tp 1")
            << int(Mistake::InitPerGroup) << false << 1 << 0.5f << "tp_size 1";
        QTest::newRow("init-per-group row, tp 1")
            << int(Mistake::InitPerGroup) << true << 1 << 0.0f << "tp_size 1";
        QTest::newRow("sum-groups, tp 1") << int(Mistake::SumGroups) << false << 1 << 0.5f
                                          << "a sum of one output is that output";
        QTest::newRow("concat-partials, tp 1")
            << int(Mistake::ConcatPartials) << true << 1 << 0.5f << "tp_size 1";
        QTest::newRow("slice-x, tp 1") << int(Mistake::SliceX) << false << 1 << 0.5f << "all of x";
    }

    void noEffectCasesPassAndSayWhy() {
        QFETCH(int, mistake);
        QFETCH(bool, row);
        QFETCH(int, tp);
        QFETCH(float, bias);
        QFETCH(QString, why);
        const LayerConfig config =
            makeConfig(3, 16, 12, tp, row ? ParallelMode::Row : ParallelMode::Column, bias);
        const Scene scene = run(config, Mistake(mistake));
        QVERIFY(scene.verification.passed());
        const QString said = QString::fromStdString(scene.mistakeWithoutEffect);
        QVERIFY2(said.contains("no effect") && said.contains(why), qPrintable(said));
        // Not merely within rounding: the very bits of the correct split.
        QVERIFY(scene.result.output == computeScene({config, SceneSource::Nnx})->result.output);
        // Only a zero bias is offered a bias that would show the mistake, and no option's name.
        QCOMPARE(scene.biasShowingMistake.has_value(),
                 QString(QTest::currentDataTag()) == QLatin1String("bias-per-partial, zero bias"));
        QVERIFY2(!said.contains("--"), qPrintable(said));
        if (scene.biasShowingMistake) {
            LayerConfig shown = config;
            shown.bias = *scene.biasShowingMistake;
            const Scene wrong = run(shown, Mistake(mistake));
            QVERIFY(!wrong.verification.passed());
            QVERIFY(wrong.mistakeWithoutEffect.empty());
            QVERIFY(wrong.verification.maxAbsError > 0.1);
        }
    }

    void mistakesOfTheOtherModeAreRefused() {
        const LayerConfig column = makeConfig(2, 8, 12, 4, ParallelMode::Column);
        const LayerConfig row = makeConfig(2, 8, 12, 4, ParallelMode::Row);
        QCOMPARE(joined(mistakeProblems(row, Mistake::SumGroups)),
                 QString("sum-groups is a column-parallel mistake (the groups' (N, chunk) outputs "
                         "added instead of concatenated); choose mode column"));
        QVERIFY(joined(mistakeProblems(row, Mistake::SliceX)).contains("choose mode column"));
        QVERIFY(joined(mistakeProblems(column, Mistake::ConcatPartials))
                    .startsWith("concat-partials is a row-parallel mistake"));
        QVERIFY(joined(mistakeProblems(column, Mistake::BiasPerPartial)).contains("mode row"));
        QVERIFY(mistakeProblems(row, Mistake::InitPerGroup).empty());
        QVERIFY(mistakeProblems(column, Mistake::InitPerGroup).empty());
        QVERIFY(mistakeProblems(column, Mistake::SliceX).empty());
        QVERIFY(mistakeProblems(row, Mistake::SumGroups).front().field == ConfigField::Mistake);

        const LayerConfig uneven = makeConfig(2, 10, 12, 4, ParallelMode::Column);
        QCOMPARE(joined(mistakeProblems(uneven, Mistake::SliceX)),
                 QString("slice-x gives each group an equal block of x's in_dim (10) columns, "
                         "and in_dim is not divisible by tp_size (4)"));
        QVERIFY(joined(mistakeProblems(column, Mistake::InitPerGroup, false))
                    .contains("the worked example has fixed arrays"));
    }

    // concat-partials keeps tp outputs of (N, features): over the budget sooner than the split.
    void theMistakesArraysCountAgainstTheMemoryBudget() {
        LayerConfig config = makeConfig(1024, 1024, 1024, 64, ParallelMode::Row);
        config.memoryBudgetBytes = bytesNeeded(config) + 1024;
        QVERIFY(config.validate().empty());
        const auto problems = mistakeProblems(config, Mistake::ConcatPartials);
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY(problems.front().field == ConfigField::Memory);
        QVERIFY(joined(problems).startsWith("with the mistake concat-partials this scene needs"));
        QVERIFY(mistakeProblems(config, Mistake::BiasPerPartial).empty());
    }

    void optionsParseTheMistake() {
        const auto ok = parseSceneOptions({"--mode", "row", "--tp", "4", "--mistake",
                                           "bias-per-partial", "--bias", "normal:0.5"});
        QVERIFY(ok.errors.empty());
        QVERIFY(ok.options.mistake == Mistake::BiasPerPartial);
        QVERIFY(sceneRun(ok.options).mistake == Mistake::BiasPerPartial);
        QVERIFY(sceneRun(ok.options).check.rule == CheckRule::RoundingBound);
        QVERIFY(sceneRun(parseSceneOptions({"--atol", "1e-3"}).options).check.rule ==
                CheckRule::Allclose);

        const auto bad = parseSceneOptions({"--mistake", "sum-partials"});
        QCOMPARE(bad.errors.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(bad.errors.front()),
                 QString("--mistake: 'sum-partials' is not none, sum-groups, concat-partials, "
                         "bias-per-partial, init-per-group, slice-x, row-then-column, "
                         "gather-between or bias2-per-partial"));
        const auto wrongMode = parseSceneOptions({"--mistake=sum-groups", "--mode", "row"});
        QVERIFY(!wrongMode.errors.empty());
        QVERIFY(QString::fromStdString(wrongMode.errors.back()).contains("choose mode column"));

        const QString help = QString::fromStdString(sceneOptionsHelp());
        for (const Mistake m : blockMistakes(Block::Linear)) {
            const QString name = QString::fromLatin1(toString(m).data(), toString(m).size());
            QVERIFY2(help.contains(QRegularExpression("\\n +" + name + " +(column|row|both): ")),
                     qPrintable(name));
            QVERIFY(parseMistake(toString(m)) == m);
        }
    }

    void wrongEquations() {
        const ShardingPlan column = ShardingPlan::make(ParallelMode::Column, 8, 12, 3);
        const ShardingPlan row = ShardingPlan::make(ParallelMode::Row, 8, 12, 4);
        QCOMPARE(mistakeStepEquation(Mistake::SumGroups, column, 1, 2),
                 std::string("y += x @ kernel[:, 4:8] + bias[4:8]   (2x8 @ 8x4 + 4)"));
        QCOMPARE(mistakeStepEquation(Mistake::BiasPerPartial, row, 1, 2),
                 std::string("sum += x[:, 2:4] @ kernel[2:4, :] + bias   (2x2 @ 2x12 + 12)"));
        QCOMPARE(mistakeStepEquation(Mistake::InitPerGroup, column, 1, 2),
                 std::string("y[:, 4:8] = x @ own_kernel + own_bias   (2x8 @ 8x4 + 4)"));
        const ShardingPlan four = ShardingPlan::make(ParallelMode::Column, 8, 16, 4);
        QCOMPARE(
            mistakeStepEquation(Mistake::SliceX, four, 1, 2),
            std::string("y[:, 4:8] = x[:, 2:4] @ kernel[2:4, 4:8] + bias[4:8]   (2x2 @ 2x4 + 4)"));
        QCOMPARE(mistakeStepEquation(Mistake::None, column, 1, 2), stepEquation(column, 1, 2));
    }

    // The script makes the same mistake, marked, and then runs the check that exposes it.
    void pythonShowsTheMistakeAndTheCheck() {
        for (const Mistake m : blockMistakes(Block::Linear)) {
            LayerConfig config =
                makeConfig(2, 8, 12, 4,
                           m == Mistake::ConcatPartials || m == Mistake::BiasPerPartial
                               ? ParallelMode::Row
                               : ParallelMode::Column);
            const QString py = QString::fromStdString(pythonSnippet(config, m));
            const QString name = QString::fromLatin1(toString(m).data(), toString(m).size());
            QVERIFY2(py.contains("# MISTAKE (" + name + ")"), qPrintable(name));
            QVERIFY(py.contains("if output.shape != reference.shape:"));
            QVERIFY(py.contains("    bound = rounding_bound(in_dim, s)\n"));
            QVERIFY(py.contains("        return 2 * gamma * s + 2 * (K + 1) * 2.0 ** -125\n"));
            QVERIFY(!py.contains("assert_allclose"));
        }
        const QString own = QString::fromStdString(
            pythonSnippet(makeConfig(2, 8, 12, 4, ParallelMode::Row, 0.5f), Mistake::InitPerGroup));
        QVERIFY(
            own.contains("own = nnx.Linear(chunk, features, "
                         "bias_init=nnx.initializers.normal(0.5), rngs=nnx.Rngs(seed))"));
        QVERIFY(!QString::fromStdString(pythonSnippet(makeConfig(2, 8, 12, 4, ParallelMode::Row)))
                     .contains("MISTAKE"));
    }
};

QTEST_APPLESS_MAIN(TestMistakes)
#include "tst_mistakes.moc"
