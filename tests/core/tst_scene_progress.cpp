// A scene's progress counts all its work: the values drawn, the split forward pass, the reference
// and the check, each by what it costs, so that a big batch does not reach 99% while its products
// are still to come.

#include "scene/mlp_scene.h"
#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QTest>

using namespace tp;

Q_DECLARE_METATYPE(tp::LayerConfig)
Q_DECLARE_METATYPE(tp::SceneSource)

class TestSceneProgress : public QObject {
    Q_OBJECT

private slots:
    void progressEndsAtItsTotal_data() {
        QTest::addColumn<LayerConfig>("config");
        QTest::addColumn<SceneSource>("source");
        QTest::addColumn<bool>("backward");
        QTest::newRow("8x12 tp3 column") << LayerConfig{} << SceneSource::Nnx << false;
        QTest::newRow("batch 300 64x96 tp4 row") << LayerConfig{.batch = 300,
                                                                .inDim = 64,
                                                                .features = 96,
                                                                .tpSize = 4,
                                                                .mode = ParallelMode::Row}
                                                 << SceneSource::Nnx << true;
        QTest::newRow("batch 37 40x30 tp5 column")
            << LayerConfig{.batch = 37, .inDim = 40, .features = 30, .tpSize = 5}
            << SceneSource::Nnx << false;
        QTest::newRow("worked example") << briefExampleConfig() << SceneSource::Brief << false;
        const LayerConfig mlp{.batch = 24,
                              .inDim = 32,
                              .features = 32,
                              .tpSize = 4,
                              .block = Block::Mlp,
                              .hidden = 128};
        QTest::newRow("mlp 24x32 -> 128 tp4") << mlp << SceneSource::Nnx << false;
        QTest::newRow("mlp 24x32 -> 128 tp4, backward") << mlp << SceneSource::Nnx << true;
    }

    // Every unit of the total is advanced once: the bar ends at 100%, not before, not past.
    void progressEndsAtItsTotal() {
        QFETCH(LayerConfig, config);
        QFETCH(SceneSource, source);
        QFETCH(bool, backward);
        SceneRun run;
        run.backward = backward;
        Progress progress;
        QVERIFY(computeScene({config, source, run}, &progress));
        QCOMPARE(progress.total(), config.block == Block::Mlp
                                       ? mlpWorkUnits(config, backward)
                                       : sceneWorkUnits(config, source, backward));
        QCOMPARE(progress.done(), progress.total());
    }

    // The products weigh what they cost: with batch 4000 they are most of the work (the split
    // pass and the reference took 7 of 7.4 s for 2048 x 4096), with batch 2 the drawing is.
    void productsWeighTheirCost() {
        const LayerConfig bigBatch{.batch = 4000, .inDim = 2048, .features = 4096, .tpSize = 8};
        const double drawn = double(parameterCount(bigBatch));
        const double total = double(sceneWorkUnits(bigBatch, SceneSource::Nnx));
        QVERIFY2(drawn / total < 0.2, qPrintable(QString::number(drawn / total)));
        QCOMPARE(productWorkUnits(bigBatch) % bigBatch.tpSize, std::int64_t(0));

        const LayerConfig smallBatch{.batch = 2, .inDim = 2048, .features = 4096, .tpSize = 8};
        const double drawnSmall = double(parameterCount(smallBatch));
        QVERIFY(drawnSmall / double(sceneWorkUnits(smallBatch, SceneSource::Nnx)) > 0.9);
        // A group's share is never empty, however small the scene.
        QCOMPARE(productWorkUnits(briefExampleConfig()), briefExampleConfig().tpSize);
    }
};

QTEST_APPLESS_MAIN(TestSceneProgress)
#include "tst_scene_progress.moc"
