// No leaks, no drift: thousands of small scenes through SceneComputer with cancellations in between
// (LeakSanitizer checks them in the sanitizer build), the resident memory after many recomputations
// of one scene stays flat, and an allocation failure during a computation is refused with a
// message instead of ending the app.

#include "compute/scene_computer.h"
#include "main_window.h"
#include "sanitizer_build.h"
#include "scene/scene_request.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProgressBar>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>

#include <new>

using namespace tp;

namespace {

using test::kSanitized;

// VmRSS of this process in KiB, from /proc/self/status; -1 when it cannot be read.
qint64 residentKiB() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').first().toLongLong();
    return -1;
}

LayerConfig smallConfig(int i) {
    LayerConfig config;
    config.batch = 1 + i % 4;
    config.inDim = 4 + i % 13;
    config.features = 12;
    config.tpSize = 1 + i % 3;
    config.seed = i;
    config.mode = i % 2 ? ParallelMode::Row : ParallelMode::Column;
    if (config.mode == ParallelMode::Row)
        config.tpSize = 1;  // a divisor of any inDim
    return config;
}

}  // namespace

class TestSoak : public QObject {
    Q_OBJECT

private slots:
    // Quitting while a big scene computes cancels it and frees at once: the window (and with it
    // the computer, which waits for its worker) is gone well before the scene would have been.
    void quittingDuringABigSceneIsQuick() {
        if (kSanitized)
            QSKIP("times a release build");
        auto* window = new MainWindow(MainWindow::Options{.useSettings = false});
        QTRY_VERIFY(window->scene());
        QElapsedTimer whole;
        whole.start();
        window->showConfig(LayerConfig{.batch = 2, .inDim = 4096, .features = 16384, .tpSize = 8},
                           SceneSource::Nnx);
        QTRY_VERIFY(window->progressBar()->value() > 50);  // well into the drawing
        QElapsedTimer quitting;
        quitting.start();
        window->close();
        delete window;
        const qint64 quitMs = quitting.elapsed();
        qInfo("quit after %lld ms of computing took %lld ms", whole.elapsed() - quitMs, quitMs);
        QVERIFY2(quitMs < 1000, qPrintable(QString::number(quitMs)));
    }

    // Every third scene is cancelled right after it starts, every fifth superseded by the next;
    // the others are delivered. Each delivered scene is the one asked for.
    void thousandsOfScenesWithCancellations() {
        const int scenes = kSanitized ? 1000 : 3000;
        SceneComputer computer;
        QSignalSpy ready(&computer, &SceneComputer::sceneReady);
        QSignalSpy cancelled(&computer, &SceneComputer::cancelled);
        int expectedReady = 0;
        int expectedCancelled = 0;
        for (int i = 0; i < scenes; ++i) {
            const LayerConfig config = smallConfig(i);
            QVERIFY(config.validate().empty());
            computer.computeNow(config, SceneSource::Nnx);
            if (i % 3 == 0) {
                computer.cancel();
                ++expectedCancelled;
                QVERIFY(!computer.isBusy());
                continue;
            }
            if (i % 5 == 0)
                continue;  // the next computeNow supersedes it
            QVERIFY(ready.wait(10000) || ready.count() > expectedReady);
            ++expectedReady;
            QCOMPARE(ready.count(), expectedReady);
            const auto scene = ready.last().at(0).value<ScenePtr>();
            QVERIFY(scene->config == config);
            QVERIFY(scene->verification.allclose);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!computer.isBusy(), 10000);
        QCOMPARE(cancelled.count(), expectedCancelled);
        qInfo("soak: %d scenes asked, %d delivered, %d cancelled", scenes, expectedReady,
              expectedCancelled);
    }

    void residentMemoryStaysFlat() {
        if (kSanitized)
            QSKIP("AddressSanitizer keeps freed memory in quarantine; LeakSanitizer checks here");
        LayerConfig config;
        config.batch = 64;
        config.inDim = 256;
        config.features = 512;
        config.tpSize = 8;
        SceneComputer computer;
        QSignalSpy ready(&computer, &SceneComputer::sceneReady);
        const auto recompute = [&](int times) {
            for (int i = 0; i < times; ++i) {
                computer.computeNow(config, SceneSource::Nnx);
                if (!ready.wait(10000))
                    return false;
                ready.clear();  // the spy would keep every scene alive
            }
            return true;
        };
        QVERIFY(recompute(100));  // warm-up: allocator arenas, thread stacks, caches
        const qint64 warm = residentKiB();
        QVERIFY(warm > 0);
        QVERIFY(recompute(1000));
        const qint64 after = residentKiB();
        // One scene is 1,050,624 bytes (bytesNeeded); 1000 leaked scenes would be about 1000 MiB.
        constexpr qint64 kSlackKiB = 8 * 1024;
        qInfo(
            "soak: VmRSS %lld KiB after 100 warm-up recomputations, %lld KiB after 1000 more "
            "(slack %lld KiB; one scene is %lld bytes)",
            warm, after, kSlackKiB, static_cast<long long>(bytesNeeded(config)));
        QVERIFY2(after - warm <= kSlackKiB,
                 qPrintable(QStringLiteral("VmRSS grew by %1 KiB").arg(after - warm)));
    }

    // A computation that runs out of memory is refused with the reason, on the status bar; the
    // last scene stays, nothing is left running and the window goes on computing.
    void allocationFailureIsRefusedWithAMessage() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        QTRY_VERIFY(window.scene());
        const ScenePtr before = window.scene();
        SceneComputer* computer = window.computer();
        computer->setComputeFunction(
            [](SceneRequest request, Progress* progress) -> std::optional<Scene> {
                if (request.config.seed == 13)
                    throw std::bad_alloc();  // as Eigen throws when malloc fails
                return computeScene(std::move(request), progress);
            });
        QSignalSpy failed(computer, &SceneComputer::failed);
        LayerConfig config = before->config;
        config.seed = 13;
        computer->computeNow(config, SceneSource::Nnx);
        QVERIFY(failed.wait(10000));
        const QString reason = failed.first().at(0).toString();
        QCOMPARE(reason, QString::fromStdString(allocationFailureMessage(config)));
        QVERIFY(!computer->isBusy());
        QCOMPARE(window.scene(), before);
        QVERIFY2(window.statusBar()->currentMessage().contains(reason),
                 qPrintable(window.statusBar()->currentMessage()));
        config.seed = 14;
        computer->computeNow(config, SceneSource::Nnx);
        QTRY_VERIFY(window.scene()->config.seed == 14);
    }
};

QTEST_MAIN(TestSoak)
#include "tst_soak.moc"
