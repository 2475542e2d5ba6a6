// The backward pass in the app: the Parameters' Forward / Forward + backward choice and its
// refusals next to it, tpviz --backward, the scene computed with its gradients off the GUI thread,
// and the Layer tab's gradient views at the backward's steps holding the core's gradients.

#include "backward_panel.h"
#include "command_line.h"
#include "layer/backward.h"
#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "parameter_panel.h"
#include "pending_overlay.h"
#include "scene/backward_report.h"
#include "scene/scene_backward.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "scene_session.h"
#include "step_controller.h"
#include "trace_panel.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTest>

using namespace tp;

namespace {

constexpr int kForwardAndBackward = 1;  // the pass box's item

QLabel* problemLabel(const QWidget* panel, ConfigField field) {
    return panel->findChild<QLabel*>(QStringLiteral("problem%1").arg(int(field)));
}

// Every element of a view equals the matrix's, bit for bit (the views show the scene's arrays).
bool sameValues(const MatrixData& shown, const Matrix& expected) {
    if (shown.rows() != expected.rows() || shown.cols() != expected.cols())
        return false;
    for (Index r = 0; r < expected.rows(); ++r)
        for (Index c = 0; c < expected.cols(); ++c)
            if (shown(r, c) != expected(r, c))
                return false;
    return true;
}

// A window without saved settings, showing `config` once its first scene has arrived.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config) {
        window.resize(1400, 900);
        window.showConfig(config, SceneSource::Nnx);
        window.show();
    }
    QComboBox* pass() const { return window.findChild<QComboBox*>("passBox"); }
    /// Chooses the pass as a user does, and waits for its scene.
    bool choose(bool backward) {
        pass()->setCurrentIndex(backward ? kForwardAndBackward : 0);
        return QTest::qWaitFor([&] {
            return window.scene() && (window.scene()->backward != nullptr) == backward &&
                   !window.computer()->isBusy() && !window.computer()->hasPendingRequest();
        });
    }
    BackwardPanel* panel() const { return window.backwardPanel(); }
    bool backwardShown() const {
        auto* stack = window.findChild<QStackedWidget*>("resultsStack");
        return stack && stack->currentWidget() == panel();
    }
};

}  // namespace

class TestBackwardView : public QObject {
    Q_OBJECT

private slots:
    // The choice sets SceneRun::backward, and a run shown in the inputs sets the choice.
    void thePassChoiceIsTheRunsBackward() {
        ParameterPanel panel;
        auto* pass = panel.findChild<QComboBox*>("passBox");
        QVERIFY(pass);
        QCOMPARE(pass->count(), 2);
        QCOMPARE(pass->itemText(kForwardAndBackward), QStringLiteral("Forward + backward"));
        QVERIFY(!panel.run().backward);
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        pass->setCurrentIndex(kForwardAndBackward);
        QCOMPARE(edited.count(), 1);
        QVERIFY(panel.run().backward);
        SceneRun run;
        panel.setRun(run);
        QCOMPARE(pass->currentIndex(), 0);
        run.backward = true;
        panel.setRun(run);
        QCOMPARE(pass->currentIndex(), kForwardAndBackward);
    }

    // Refused in words next to the choice: with a mistake, and when the gradients pass the
    // memory budget; nothing is computed.
    void theBackwardIsRefusedNextToTheChoice() {
        ParameterPanel panel;
        panel.show();
        QSignalSpy refused(&panel, &ParameterPanel::configRefused);
        auto* pass = panel.findChild<QComboBox*>("passBox");
        pass->setCurrentIndex(kForwardAndBackward);
        auto* mistake = panel.findChild<QComboBox*>("mistakeBox");
        mistake->setCurrentIndex(mistake->findData(QStringLiteral("sum-groups")));
        QLabel* label = problemLabel(&panel, ConfigField::Backward);
        QVERIFY(label);
        QTRY_VERIFY(label->isVisible());
        QVERIFY2(label->text().startsWith("the backward pass differentiates a correct split"),
                 qPrintable(label->text()));
        QCOMPARE(refused.count(), 1);
        mistake->setCurrentIndex(0);
        QTRY_VERIFY(!label->isVisible());

        // x, dx and its reference of 256 MiB each, and 8 dx partials as large: over 2 GiB.
        LayerConfig big;
        big.batch = 4096;
        big.inDim = 16384;
        big.features = 16;
        big.tpSize = 8;
        QVERIFY(big.validate().empty());
        panel.setConfig(big, SceneSource::Nnx);
        pass->setCurrentIndex(0);
        pass->setCurrentIndex(kForwardAndBackward);
        QTRY_VERIFY(label->isVisible());
        QVERIFY2(label->text().startsWith("the scene with its backward pass needs 3."),
                 qPrintable(label->text()));
        QVERIFY(!panel.problems().empty());
    }

    // tpviz --backward asks for it, and --step counts the backward's steps.
    void theCommandLineAsksForTheBackward() {
        // The default layer, column tp 3: the forward's loop has steps 0..3, the backward 4..8.
        const AppCommandLine forward =
            parseAppCommandLine({"--screenshot", "a.png", "--step", "8"});
        QVERIFY(!forward.run.backward);
        QVERIFY(!forward.errors.empty());
        const AppCommandLine line =
            parseAppCommandLine({"--screenshot", "a.png", "--backward", "--step", "8"});
        QVERIFY2(line.errors.empty(), line.errors.empty() ? "" : line.errors.front().c_str());
        QVERIFY(line.run.backward);
        QCOMPARE(line.step.value_or(-1), 8);
    }

    // The scene arrives with its gradients, computed by the worker with the forward pass; the
    // session's request carries the choice back.
    void theSessionComputesTheBackward() {
        Window w(LayerConfig{});
        QTRY_VERIFY(w.window.scene());
        QVERIFY(!w.window.scene()->backward);
        QVERIFY(w.choose(true));
        const ScenePtr scene = w.window.scene();
        QVERIFY(scene->backward->verification.passed());
        QVERIFY(w.window.session()->request().run.backward);
        QVERIFY(runOf(*scene).backward);
        const SceneBackward alone = computeBackward(*scene);
        QVERIFY(sameValues(MatrixData::of(scene, scene->backward->result.gradients.dkernel),
                           alone.result.gradients.dkernel));
        QCOMPARE(w.window.stepController()->stepCount(),
                 loopTimeline(scene->config, Mistake::None, true).size());
        QVERIFY(w.choose(false));
        QCOMPARE(w.window.stepController()->stepCount(), loopTimeline(scene->config).size());
    }

    // At each backward step the gradient views hold the core's gradients, and each group's
    // block is in exactly from its step on.
    void theGradientViewsFillStepByStep_data() {
        QTest::addColumn<bool>("row");
        QTest::newRow("column tp3") << false;
        QTest::newRow("row tp4") << true;
    }
    void theGradientViewsFillStepByStep() {
        QFETCH(bool, row);
        LayerConfig config;  // 2 x 8 x 12
        config.mode = row ? ParallelMode::Row : ParallelMode::Column;
        config.tpSize = row ? 4 : 3;
        Window w(config);
        QTRY_VERIFY(w.window.scene());
        QVERIFY(w.choose(true));
        const ScenePtr scene = w.window.scene();
        const LayerParams& p = scene->params;
        const Matrix dy = cotangent(config);
        const BackwardResult core =
            backwardParallel(p.x, p.kernel, dy, ShardingPlan::make(config), config.dataSize);
        const Timeline loop = loopTimeline(config, Mistake::None, true);
        StepController* steps = w.window.stepController();
        BackwardPanel* panel = w.panel();
        const Index chunk = core.plan.chunk;

        const TracePanel* trace = w.window.layerPanel()->tracePanel();
        steps->setStep(loopTimeline(config).lastStep());
        QVERIFY(!w.backwardShown());  // the forward's last step: the outputs
        QVERIFY2(trace->text().contains("Hover over an output cell"), qPrintable(trace->text()));
        for (int k = loopTimeline(config).size(); k < loop.size(); ++k) {
            steps->setStep(k);
            const TimelineStep& s = loop.at(k);
            QVERIFY(w.backwardShown());
            // The hint points at the gradients' cells while the backward is on screen.
            QVERIFY2(trace->text().contains("Hover over a gradient's cell"),
                     qPrintable(trace->text()));
            QCOMPARE(w.window.equationLabel()->text(), QString::fromStdString(s.equation));
            QVERIFY(sameValues(panel->dyView()->matrix(), dy));
            QVERIFY(sameValues(panel->dkernelView()->matrix(), core.gradients.dkernel));
            QVERIFY(sameValues(panel->dxView()->matrix(), core.gradients.dx));
            QVERIFY(sameValues(panel->dbiasView()->matrix(), core.gradients.dbias));
            const Index filled = s.gradientGroupsDone * chunk;
            PendingOverlay* dkernel = panel->dkernelOverlay();
            if (row) {
                QCOMPARE(dkernel->fromRow(), filled);
                QTRY_COMPARE(dkernel->isVisible(), filled < config.inDim);
                QCOMPARE(panel->dxOverlay()->fromColumn(), filled);  // the slices placed
                QTRY_COMPARE(panel->dbiasOverlay()->isVisible(), s.phase != StepPhase::DbiasOnce);
                QVERIFY(!panel->dxPartialView()->isVisible());
            } else {
                QCOMPARE(dkernel->fromColumn(), filled);
                QTRY_COMPARE(dkernel->isVisible(), filled < config.features);
                QCOMPARE(panel->dbiasOverlay()->fromColumn(), filled);
                QTRY_COMPARE(panel->dxOverlay()->isVisible(), s.phase != StepPhase::SumDx);
                // Before the sum its sheet counts the partials in, then says the sum comes next.
                const QString caption = panel->dxOverlay()->caption();
                if (s.gradientGroupsDone < config.tpSize)
                    QVERIFY2(caption.contains(QStringLiteral("%1 in").arg(s.gradientGroupsDone)),
                             qPrintable(caption));
                else if (s.phase != StepPhase::SumDx)
                    QVERIFY2(caption.endsWith("partials in: the next step sums them"),
                             qPrintable(caption));
                if (s.currentGroup >= 0)
                    QVERIFY(sameValues(panel->dxPartialView()->matrix(),
                                       core.dxPartials[std::size_t(s.currentGroup)]));
            }
            // The gradients' check waits for the last step, then gives each verdict.
            const QString verdict = panel->verdictLabel()->text();
            if (k < loop.lastStep()) {
                QVERIFY2(verdict.contains("waits for the last step"), qPrintable(verdict));
            } else {
                QVERIFY2(verdict.contains("checked against jax.vjp's: passed"),
                         qPrintable(verdict));
                for (const std::string& line : backwardVerdictLines(scene->backward->verification))
                    QVERIFY2(verdict.contains(QString::fromStdString(line).toHtmlEscaped()),
                             line.c_str());
            }
        }
        // Hovering a gradient cell says the sum it is.
        const float v = core.gradients.dkernel(3, 5);
        QVERIFY(panel->gradientHoverText(panel->dkernelView(), 3, 5, v, 1)
                    .contains("dkernel[3, 5] = sum_i x[i, 3] * dy[i, 5] over the 2 rows"));
    }
};

QTEST_MAIN(TestBackwardView)
#include "tst_backward_view.moc"
