// Cancelling a big scene in the real window: the progress shows while it computes, the Cancel
// button and Esc stop it at once, the last good picture stays and every field (batch, in_dim,
// features, tp_size) reads the scene on screen again.

#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "parameter_panel.h"
#include "scene/scene_request.h"

#include <QApplication>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QThread>

#include <atomic>

using namespace tp;

namespace {

// A window without saved settings, showing the default scene once it has arrived.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    Window() {
        window.resize(1400, 900);
        window.show();
    }
    MatrixView* kernel() const { return window.layerPanel()->kernelView(); }
};

}  // namespace

class TestCancel : public QObject {
    Q_OBJECT

private slots:
    // The worker runs the real computation and then holds its job open until it sees the cancel,
    // so the click always lands while the job is running, however fast the machine is (a slow
    // machine cancels inside computeScene itself). Cancelled with the button or with Esc.
    void bigSceneShowsProgressAndCancels_data() {
        QTest::addColumn<bool>("escape");
        QTest::newRow("Cancel button") << false;
        QTest::newRow("Esc") << true;
    }

    void bigSceneShowsProgressAndCancels() {
        QFETCH(bool, escape);
        std::atomic<bool> workerSawCancel{false};  // outlives the window and its worker threads
        Window w;
        QVERIFY(QTest::qWaitForWindowActive(&w.window));
        QTRY_VERIFY(w.window.scene());
        const ScenePtr before = w.window.scene();
        SceneComputer* computer = w.window.computer();
        computer->setComputeFunction([&workerSawCancel](SceneRequest request, Progress* progress) {
            std::optional<Scene> scene = computeScene(std::move(request), progress);
            QDeadlineTimer deadline(60000);
            while (!progress->cancelled() && !deadline.hasExpired())
                QThread::msleep(1);
            workerSawCancel = progress->cancelled();
            return scene;
        });
        QSignalSpy cancelled(computer, &SceneComputer::cancelled);
        QSignalSpy ready(computer, &SceneComputer::sceneReady);
        auto* panel = w.window.parameterPanel();
        panel->findChild<QSpinBox*>("inDimBox")->setValue(1024);
        panel->findChild<QSpinBox*>("featuresBox")->setValue(4096);
        panel->findChild<QComboBox*>("tpBox")->setEditText("8");
        // The batch typed last, as a user does: the field keeps the focus when Esc comes.
        auto* batch = panel->findChild<QSpinBox*>("batchBox");
        batch->setFocus();
        batch->selectAll();
        QTest::keyClicks(batch, "64");
        QCOMPARE(batch->value(), 64);
        QVERIFY(panel->problems().empty());
        QTRY_VERIFY(w.window.progressBar()->isVisible());
        QVERIFY(w.window.cancelButton()->isVisible());
        QTRY_VERIFY(w.window.progressBar()->value() > 0);
        QVERIFY(computer->isBusy());
        // While computing, the status does not show the previous scene's time as current.
        QVERIFY(!w.window.timingLabel()->text().contains("computed in"));
        QVERIFY(batch->hasFocus());
        if (escape)
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        else
            QTest::mouseClick(w.window.cancelButton(), Qt::LeftButton);
        QCOMPARE(cancelled.count(), 1);
        // Fields and picture agree again: the fields read the scene on screen.
        QCOMPARE(batch->value(), int(before->config.batch));
        QCOMPARE(panel->config().batch, before->config.batch);
        QCOMPARE(panel->findChild<QSpinBox*>("inDimBox")->value(), int(before->config.inDim));
        QCOMPARE(panel->findChild<QSpinBox*>("featuresBox")->value(), int(before->config.features));
        QCOMPARE(panel->config().tpSize, before->config.tpSize);
        QVERIFY(w.window.timingLabel()->text().contains("computed in"));
        QVERIFY(!w.window.progressBar()->isVisible());
        QVERIFY(!computer->isBusy());
        QTRY_VERIFY(workerSawCancel);
        QCOMPARE(ready.count(), 0);
        QCOMPARE(w.window.scene(), before);  // the last good picture stays
        QCOMPARE(w.kernel()->matrix().data(), before->params.kernel.data());
    }
};

QTEST_MAIN(TestCancel)
#include "tst_cancel.moc"
