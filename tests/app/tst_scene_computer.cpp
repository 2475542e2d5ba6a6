// The scene computer delivers a split's scene before its partials exist (its pass stores none),
// then makes them on a worker in group order: each the partial the pass computed.

#include "compute/scene_computer.h"
#include "layer/forward.h"
#include "matrix_bits.h"

#include <QSignalSpy>
#include <QTest>

using namespace tp;

class TestSceneComputer : public QObject {
    Q_OBJECT

private slots:
    void partialsAreMadeAfterTheSceneArrives_data() {
        QTest::addColumn<int>("mode");
        QTest::newRow("column") << int(ParallelMode::Column);
        QTest::newRow("row") << int(ParallelMode::Row);
    }

    void partialsAreMadeAfterTheSceneArrives() {
        QFETCH(int, mode);
        const LayerConfig c{
            .batch = 300, .inDim = 64, .features = 2100, .tpSize = 4, .mode = ParallelMode(mode)};
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
        // Made by the products the pass ran: a column split's are the output's columns, a row
        // split's, summed in group order plus the bias, the output, bit for bit.
        if (c.mode == ParallelMode::Column) {
            for (const ShardGroup& g : scene->result.plan.groups)
                QVERIFY(test::sameBits(
                    scene->result.output.middleCols(g.outputCols.start, g.outputCols.size()),
                    partials[std::size_t(g.index)]));
            return;
        }
        Matrix summed = sumInGroupOrder(partials, partials.size());
        summed.rowwise() += scene->params.bias;
        QVERIFY(test::sameBits(summed, scene->result.output));
    }
};

QTEST_GUILESS_MAIN(TestSceneComputer)
#include "tst_scene_computer.moc"
