// One request per scene: sceneProblems tags each problem with the setting, the run or the file it
// belongs to, and computeScene(request) computes every source as its parts do.

#include "layer/forward.h"
#include "matrix_bits.h"
#include "nnx/nnx_init.h"
#include "scene/fused_forward.h"
#include "scene/scene_backward.h"
#include "scene/scene_request.h"

#include <QTest>

using namespace tp;

Q_DECLARE_METATYPE(tp::SceneRequest)
Q_DECLARE_METATYPE(tp::ConfigField)

namespace {

// The default scene (2 x 8 x 12, tp 3, column) with one change.
template <typename Change>
SceneRequest changed(Change change) {
    SceneRequest request;
    change(request);
    return request;
}

QString described(const std::vector<ConfigProblem>& problems) {
    QStringList lines;
    for (const ConfigProblem& p : problems)
        lines << QStringLiteral("[%1] %2").arg(int(p.field)).arg(QString::fromStdString(p.message));
    return lines.join('\n');
}

// The seeded layer's own arrays, as if read from files.
LoadedArrays arraysOf(const LayerConfig& config, bool kernel, bool bias, bool x) {
    LayerParams params = initLayer(config);
    LoadedArrays arrays;
    if (kernel)
        arrays.kernel = std::move(params.kernel);
    if (bias)
        arrays.bias = std::move(params.bias);
    if (x)
        arrays.x = std::move(params.x);
    return arrays;
}

}  // namespace

class TestSceneRequest : public QObject {
    Q_OBJECT

private slots:
    void theDefaultRequestHasNoProblem() {
        QVERIFY(sceneProblems(SceneRequest{}).empty());
        QVERIFY(sceneProblems({briefExampleConfig(), SceneSource::Brief}).empty());
        const LayerConfig config;
        QVERIFY(
            sceneProblems({config, SceneSource::Files, {}, {}, arraysOf(config, 1, 1, 1)}).empty());
    }

    void oneBadValueIsOneProblemTaggedWithIt_data() {
        QTest::addColumn<SceneRequest>("request");
        QTest::addColumn<ConfigField>("field");
        QTest::newRow("batch 0") << changed([](SceneRequest& r) { r.config.batch = 0; })
                                 << ConfigField::Batch;
        QTest::newRow("in_dim 0") << changed([](SceneRequest& r) { r.config.inDim = 0; })
                                  << ConfigField::InDim;
        QTest::newRow("features 0")
            << changed([](SceneRequest& r) { r.config.features = 0; }) << ConfigField::Features;
        QTest::newRow("tp 0") << changed([](SceneRequest& r) { r.config.tpSize = 0; })
                              << ConfigField::TpSize;
        QTest::newRow("tp 5 not dividing features 12")
            << changed([](SceneRequest& r) { r.config.tpSize = 5; }) << ConfigField::TpSize;
        QTest::newRow("data 3 not dividing batch 2")
            << changed([](SceneRequest& r) { r.config.dataSize = 3; }) << ConfigField::Data;
        QTest::newRow("bias normal:-1") << changed([](SceneRequest& r) {
            r.config.bias = {BiasInit::Kind::Normal, -1.0f};
        }) << ConfigField::Bias;
        QTest::newRow("budget 1 byte")
            << changed([](SceneRequest& r) { r.config.memoryBudgetBytes = 1; })
            << ConfigField::Memory;
        QTest::newRow("row sharded, features 6 tp 4") << changed([](SceneRequest& r) {
            r.config.mode = ParallelMode::Row;
            r.config.tpSize = 4;
            r.config.features = 6;
            r.config.output = OutputLayout::Sharded;
        }) << ConfigField::Output;
        QTest::newRow("mistake of the other mode") << changed([](SceneRequest& r) {
            r.config.mode = ParallelMode::Row;
            r.config.tpSize = 2;
            r.run.mistake = Mistake::SumGroups;
        }) << ConfigField::Mistake;
        QTest::newRow("slice-x, in_dim 8 tp 3")
            << changed([](SceneRequest& r) { r.run.mistake = Mistake::SliceX; })
            << ConfigField::Mistake;
        QTest::newRow("init-per-group on the brief's arrays") << changed([](SceneRequest& r) {
            r.config = briefExampleConfig();
            r.source = SceneSource::Brief;
            r.run.mistake = Mistake::InitPerGroup;
        }) << ConfigField::Mistake;
        QTest::newRow("init-per-group on arrays from files") << changed([](SceneRequest& r) {
            r.source = SceneSource::Files;
            r.arrays = arraysOf(r.config, true, false, false);
            r.run.mistake = Mistake::InitPerGroup;
        }) << ConfigField::Mistake;
        QTest::newRow("the mistake's arrays over the budget") << changed([](SceneRequest& r) {
            r.config.mode = ParallelMode::Row;
            r.config.tpSize = 4;
            r.config.memoryBudgetBytes = bytesNeeded(r.config) + 4;
            r.run.mistake = Mistake::ConcatPartials;
        }) << ConfigField::Memory;
        QTest::newRow("kernel file (8, 6) for features 12") << changed([](SceneRequest& r) {
            r.source = SceneSource::Files;
            r.arrays.kernel = Matrix::Zero(8, 6);
        }) << ConfigField::KernelFile;
        QTest::newRow("bias file (6,) for features 12") << changed([](SceneRequest& r) {
            r.source = SceneSource::Files;
            r.arrays.bias = RowVector::Zero(6);
        }) << ConfigField::BiasFile;
        QTest::newRow("x file (3, 8) for batch 2") << changed([](SceneRequest& r) {
            r.source = SceneSource::Files;
            r.arrays.x = Matrix::Zero(3, 8);
        }) << ConfigField::XFile;
    }

    void oneBadValueIsOneProblemTaggedWithIt() {
        QFETCH(SceneRequest, request);
        QFETCH(ConfigField, field);
        const std::vector<ConfigProblem> problems = sceneProblems(request);
        QVERIFY2(problems.size() == 1, qPrintable(described(problems)));
        QCOMPARE(int(problems.front().field), int(field));
        QVERIFY(!problems.front().message.empty());
    }

    void everyProblemIsListed() {
        // An invalid config and a mistake of the other mode: both, not the first only.
        SceneRequest request;
        request.config.batch = 0;
        request.run.mistake = Mistake::ConcatPartials;
        const std::vector<ConfigProblem> problems = sceneProblems(request);
        QCOMPARE(problems.size(), std::size_t(2));
        QCOMPARE(int(problems[0].field), int(ConfigField::Batch));
        QCOMPARE(int(problems[1].field), int(ConfigField::Mistake));
    }

    void arraysBelongToTheFilesSourceOnly() {
        // Arrays are only the Files source's: the others ignore them.
        SceneRequest request;
        request.arrays.kernel = Matrix::Zero(1, 1);
        QVERIFY(sceneProblems(request).empty());
    }

    void aSeededSceneIsItsPartsBitForBit() {
        LayerConfig config;
        config.bias = {BiasInit::Kind::Normal, 0.5f};
        const Scene scene = *computeScene({config, SceneSource::Nnx});
        const LayerParams params = initLayer(config);
        const ForwardAndReference both =
            forwardWithReference(params.x, params.kernel, params.bias, ShardingPlan::make(config));
        QVERIFY(scene.kernelDrawn);
        QVERIFY(test::sameBits(scene.params.kernel, params.kernel));
        QVERIFY(test::sameBits(scene.params.x, params.x));
        QVERIFY(test::sameBits(scene.result.output, both.split.output));
        QVERIFY(test::sameBits(scene.reference, both.reference));
        QVERIFY(scene.kernelMaxAbs == both.kernelMaxAbs);
        QVERIFY(scene.verification.passed());
    }

    void theBriefsSceneHasTheBriefsArrays() {
        const Scene scene = *computeScene({briefExampleConfig(), SceneSource::Brief});
        QVERIFY(!scene.kernelDrawn);
        QVERIFY(scene.params.kernel == briefExampleParams().kernel);
        QCOMPARE(scene.result.output, (Matrix{{1.5f, 1.5f, 5.f, 7.f}}));
    }

    void arraysFromFilesAreTheSeedsWhenTheyHoldTheSeedsBits_data() {
        QTest::addColumn<bool>("kernel");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("x");
        QTest::newRow("kernel") << true << false << false;
        QTest::newRow("x only, the kernel drawn") << false << false << true;
        QTest::newRow("all three") << true << true << true;
    }

    void arraysFromFilesAreTheSeedsWhenTheyHoldTheSeedsBits() {
        QFETCH(bool, kernel);
        QFETCH(bool, bias);
        QFETCH(bool, x);
        LayerConfig config;
        config.mode = ParallelMode::Row;
        config.tpSize = 4;
        config.bias = {BiasInit::Kind::Normal, 0.5f};
        const SceneRun run{Mistake::BiasPerPartial, {}};
        const Scene seeded = *computeScene({config, SceneSource::Nnx, run});
        SceneRequest request{
            config, SceneSource::Files, run, {}, arraysOf(config, kernel, bias, x)};
        QVERIFY(sceneProblems(request).empty());
        const Scene files = *computeScene(std::move(request));
        QVERIFY(files.source == SceneSource::Files);
        QCOMPARE(files.kernelDrawn, !kernel);
        QVERIFY(test::sameBits(files.params.kernel, seeded.params.kernel));
        QVERIFY(test::sameBits(files.result.output, seeded.result.output));
        QVERIFY(test::sameBits(files.reference, seeded.reference));
        QCOMPARE(files.verification.passed(), seeded.verification.passed());
        QVERIFY(!files.verification.passed());  // the mistake made for real, from files too
    }

    // A request that asks for the backward pass gets it with the scene, the same gradients as
    // computeBackward of the forward scene, checked with the run's rule; without it, none.
    void theBackwardComesWithTheSceneWhenAsked_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("column tp3") << int(ParallelMode::Column);
        QTest::newRow("row tp4") << int(ParallelMode::Row);
    }
    void theBackwardComesWithTheSceneWhenAsked() {
        QFETCH(int, mode);
        LayerConfig config;
        config.mode = ParallelMode(mode);
        config.tpSize = config.mode == ParallelMode::Row ? 4 : 3;
        SceneRun run;
        QVERIFY(!computeScene({config, SceneSource::Nnx, run})->backward);
        run.backward = true;
        QVERIFY(sceneProblems({config, SceneSource::Nnx, run}).empty());
        Progress progress;
        const Scene scene = *computeScene({config, SceneSource::Nnx, run}, &progress);
        QVERIFY(scene.backward);
        QCOMPARE(progress.done(), progress.total());
        QCOMPARE(progress.total(), sceneWorkUnits(config, SceneSource::Nnx, true));
        const SceneBackward alone = computeBackward(scene, run.check);
        QVERIFY(test::sameBits(scene.backward->dy, alone.dy));
        QVERIFY(test::sameBits(scene.backward->result.gradients.dkernel,
                               alone.result.gradients.dkernel));
        QVERIFY(test::sameBits(scene.backward->result.gradients.dx, alone.result.gradients.dx));
        QVERIFY(scene.backward->verification.passed());
    }

    // The backward pass refused in words, tagged with its own field: with a mistake (it
    // differentiates the correct split), and when its gradients pass the memory budget.
    void theBackwardsProblemsAreTaggedWithIt() {
        LayerConfig config;
        SceneRun run{Mistake::SumGroups, {}, true};
        std::vector<ConfigProblem> problems = sceneProblems({config, SceneSource::Nnx, run});
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY(problems[0].field == ConfigField::Backward);
        QVERIFY(
            problems[0].message.starts_with("the backward pass differentiates a correct split"));
        run.mistake = Mistake::None;
        config.memoryBudgetBytes = bytesNeeded(config);  // the forward fits, not the gradients
        problems = sceneProblems({config, SceneSource::Nnx, run});
        QCOMPARE(problems.size(), std::size_t(1));
        QVERIFY(problems[0].field == ConfigField::Backward);
        QVERIFY(problems[0].message.starts_with("the scene with its backward pass needs "));
        run.backward = false;
        QVERIFY(sceneProblems({config, SceneSource::Nnx, run}).empty());
    }

    void aCancelledRequestGivesNoScene() {
        Progress progress;
        progress.cancel();
        QVERIFY(!computeScene(SceneRequest{}, &progress));
        QVERIFY(!computeScene({briefExampleConfig(), SceneSource::Brief}, &progress));
    }
};

QTEST_APPLESS_MAIN(TestSceneRequest)
#include "tst_scene_request.moc"
