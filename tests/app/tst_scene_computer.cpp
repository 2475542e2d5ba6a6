// The scene computer delivers a row split's scene before its partials exist (its pass stores
// none), then makes them on a worker in group order: each the partial the pass added.

#include "compute/scene_computer.h"
#include "layer/forward.h"
#include "matrix_bits.h"

#include <QSignalSpy>
#include <QTest>

using namespace tp;

class TestSceneComputer : public QObject {
    Q_OBJECT

private slots:
    void rowPartialsAreMadeAfterTheSceneArrives() {
        const LayerConfig c{
            .batch = 300, .inDim = 64, .features = 2100, .tpSize = 4, .mode = ParallelMode::Row};
        SceneComputer computer;
        QSignalSpy ready(&computer, &SceneComputer::sceneReady);
        computer.computeNow(c, SceneSource::Nnx);
        QVERIFY(ready.wait(60000));
        const auto scene = ready.takeFirst().at(0).value<ScenePtr>();
        const Partials& partials = scene->result.partials;
        QCOMPARE(partials.size(), std::size_t(4));
        QTRY_VERIFY_WITH_TIMEOUT(partials.made(3), 20000);
        for (std::size_t g = 0; g < partials.size(); ++g)
            QVERIFY(partials.made(g));
        // Made by the products the pass added: summed in group order, plus the bias, they are
        // the output bit for bit.
        Matrix summed = sumInGroupOrder(partials, partials.size());
        summed.rowwise() += scene->params.bias;
        QVERIFY(test::sameBits(summed, scene->result.output));
    }
};

QTEST_GUILESS_MAIN(TestSceneComputer)
#include "tst_scene_computer.moc"
