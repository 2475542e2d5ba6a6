// The MLP block in the desktop app, driven through the real widgets: the Block choice and the
// hidden width with their refusals, the Mistake combo's list, the Layer tab's views of the
// scene's own arrays, linear2's row groups in linear1's column groups' colours, the steps, a
// mistake's error map, the Devices tab's cards and all-reduce arrows, and tpviz --block mlp.

#include "command_line.h"
#include "devices/costs_panel.h"
#include "devices/device_card.h"
#include "devices/devices_view.h"
#include "layer_tab.h"
#include "main_window.h"
#include "matrix_view.h"
#include "mlp_panel.h"
#include "palette.h"
#include "parameter_panel.h"
#include "pending_overlay.h"
#include "process_run.h"
#include "python_dialog.h"
#include "scene/mlp_scene.h"
#include "scene/python_snippet.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "screenshot.h"
#include "step_controller.h"
#include "steps/tab_timelines.h"
#include "verification_view.h"

#include <QComboBox>
#include <QFormLayout>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace tp;

namespace {

constexpr int kMlp = 1;  // the Block box's item

LayerConfig block(std::int64_t tp = 4) {
    LayerConfig c;
    c.block = Block::Mlp;
    c.hidden = 32;
    c.features = 8;
    c.tpSize = tp;
    return c;
}

SceneRun withMistake(Mistake mistake) {
    SceneRun run;
    run.mistake = mistake;
    return run;
}

// A window without saved settings, showing `config` run as `run` once its scene has arrived.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config = LayerConfig{}, const SceneRun& run = {}) {
        window.resize(1600, 1000);
        window.showConfig(config, SceneSource::Nnx, run);
        window.show();
    }
    bool shows(const LayerConfig& config, Mistake mistake = Mistake::None) const {
        return window.scene() && window.scene()->config == config &&
               window.scene()->mistake == mistake && !window.computer()->isBusy();
    }
    MlpPanel* mlp() const { return window.layerTab()->mlpPanel(); }
    const MlpScene& scene() const { return *window.scene()->mlp; }
    ParameterPanel* inputs() const { return window.parameterPanel(); }
    template <typename T>
    T* input(const char* name) const {
        return inputs()->findChild<T*>(QString::fromLatin1(name));
    }
};

// The view shows `m` itself: the same memory, not a copy.
bool views(const MatrixView* view, const Matrix& m) {
    return view->matrix().data() == m.data() && view->matrix().rows() == m.rows() &&
           view->matrix().cols() == m.cols();
}

bool views(const MatrixView* view, const RowVector& v) {
    return view->matrix().data() == v.data() && view->matrix().cols() == v.size();
}

// The hue (OKLab) of the cell of the largest |value| in rows x cols of `view`, as drawn.
double drawnHue(MatrixView* view, IndexRange rows, IndexRange cols) {
    Index bestRow = rows.start, bestCol = cols.start;
    for (Index r = rows.start; r < rows.stop; ++r)
        for (Index c = cols.start; c < cols.stop; ++c)
            if (std::abs(view->matrix()(r, c)) > std::abs(view->matrix()(bestRow, bestCol))) {
                bestRow = r;
                bestCol = c;
            }
    const QImage image = view->viewport()->grab().toImage();
    const QPointF at = view->cellRect(bestRow, bestCol).center();
    const OkLab lab = toOkLab(image.pixelColor(at.toPoint()));
    return std::atan2(lab.b, lab.a);
}

double hueDistance(double a, double b) {
    const double d = std::fmod(std::abs(a - b), 2 * M_PI);
    return std::min(d, 2 * M_PI - d);
}

}  // namespace

class TestMlpView : public QObject {
    Q_OBJECT

private slots:
    // Choosing the block shows hidden, lists the block's mistakes, disables Mode and moves
    // tp_size to a divisor of hidden with a note; back to one Linear undoes it.
    void choosingTheBlock() {
        ParameterPanel panel;
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        auto* blockBox = panel.findChild<QComboBox*>("blockBox");
        auto* hidden = panel.findChild<QSpinBox*>("hiddenBox");
        auto* mistakes = panel.findChild<QComboBox*>("mistakeBox");
        auto* mode = panel.findChild<QComboBox*>("modeBox");
        panel.show();
        QVERIFY(!hidden->isVisible());
        QCOMPARE(mistakes->count(), int(blockMistakes(Block::Linear).size()) + 1);
        blockBox->setCurrentIndex(kMlp);
        QVERIFY(hidden->isVisible());
        QVERIFY(!mode->isEnabled());
        QCOMPARE(mistakes->count(), 4);
        for (int i = 1; i < mistakes->count(); ++i)
            QVERIFY(mistakeBlock(*parseMistake(mistakes->itemData(i).toString().toStdString())) ==
                    Block::Mlp);
        // The default tp_size 3 does not divide hidden 32: it moves, and says so.
        QVERIFY(panel.tpNoteText().contains("does not divide hidden (32)"));
        QVERIFY(!edited.isEmpty());
        QVERIFY(panel.problems().empty());
        const LayerConfig config = panel.config();
        QVERIFY(config.block == Block::Mlp);
        QCOMPARE(config.hidden % config.tpSize, std::int64_t(0));
        blockBox->setCurrentIndex(0);
        QVERIFY(!hidden->isVisible() && mode->isEnabled());
        QCOMPARE(mistakes->count(), int(blockMistakes(Block::Linear).size()) + 1);
    }

    // hidden not divisible by tp_size, or a block past the memory budget, is refused under its
    // input in words, and nothing is announced.
    void refusalsUnderTheHiddenInput() {
        ParameterPanel panel;
        panel.show();
        panel.setConfig(block(), SceneSource::Nnx);
        QVERIFY(panel.problems().empty());
        QSignalSpy refused(&panel, &ParameterPanel::configRefused);
        panel.findChild<QSpinBox*>("hiddenBox")->setValue(30);
        QCOMPARE(refused.count(), 1);
        QVERIFY2(panel.problemText(ConfigField::Hidden)
                     .startsWith("hidden (30) is not divisible by tp_size (4): each device needs "
                                 "the same number of hidden features"),
                 qPrintable(panel.problemText(ConfigField::Hidden)));
        auto* label =
            panel.findChild<QLabel*>(QStringLiteral("problem%1").arg(int(ConfigField::Hidden)));
        QVERIFY(label && label->isVisible());
        panel.findChild<QSpinBox*>("hiddenBox")->setValue(1 << 28);
        QVERIFY2(panel.problemText(ConfigField::Memory).contains("more than the memory budget"),
                 qPrintable(panel.problemText(ConfigField::Memory)));
        // The worked example is one Linear's: choosing it leaves the block.
        panel.findChild<QSpinBox*>("hiddenBox")->setValue(32);
        panel.findChild<QComboBox*>("sourceBox")->setCurrentIndex(1);
        QVERIFY(panel.config().block == Block::Linear);
        QCOMPARE(panel.findChild<QComboBox*>("blockBox")->currentIndex(), 0);
        QVERIFY(panel.problems().empty());
    }

    // A mistake of the other block (from a scene file) stays in the combo, refused under it.
    void aMistakeOfTheOtherBlockIsRefusedNotDropped() {
        ParameterPanel panel;
        panel.setConfig(block(), SceneSource::Nnx);
        panel.setRun(withMistake(Mistake::SumGroups));
        QVERIFY(panel.run().mistake == Mistake::SumGroups);
        QVERIFY2(panel.problemText(ConfigField::Mistake).contains("sum-groups"),
                 qPrintable(panel.problemText(ConfigField::Mistake)));
    }

    // The Layer tab shows the block: every view holds the scene's own arrays, and linear2's row
    // groups are linear1's column groups, in the same colours.
    void theLayerTabViewsTheBlocksArrays() {
        Window w(block());
        QTRY_VERIFY(w.shows(block()));
        QCOMPARE(w.window.layerTab()->currentWidget(), w.mlp());
        const MlpScene& s = w.scene();
        MlpPanel* p = w.mlp();
        QVERIFY(views(p->inputView(), s.params.x));
        QVERIFY(views(p->kernel1View(), s.params.kernel1));
        QVERIFY(views(p->bias1View(), s.params.bias1));
        QVERIFY(views(p->kernel2View(), s.params.kernel2));
        QVERIFY(views(p->bias2View(), s.params.bias2));
        QVERIFY(views(p->hiddenView(), s.split.h));
        QVERIFY(views(p->activationView(), s.split.a));
        QVERIFY(views(p->outputView(), s.split.output));
        QVERIFY(views(p->referenceView(), s.reference.output));

        const std::vector<IndexRange> slices{{0, 8}, {8, 16}, {16, 24}, {24, 32}};
        QCOMPARE(p->kernel1View()->groups(), slices);
        QCOMPARE(p->kernel1View()->groupAxis(), Qt::Horizontal);
        QCOMPARE(p->hiddenView()->groups(), slices);
        QCOMPARE(p->activationView()->groups(), slices);
        QCOMPARE(p->kernel2View()->groups(), slices);
        QCOMPARE(p->kernel2View()->groupAxis(), Qt::Vertical);
        // As drawn: each group's strongest cell in kernel1's columns and in kernel2's rows has
        // the group's hue, and the groups' hues differ.
        w.window.stepController()->setStep(0);
        QTest::qWait(0);
        std::vector<double> hues;
        for (std::size_t g = 0; g < slices.size(); ++g) {
            const double h1 = drawnHue(p->kernel1View(), {0, 8}, slices[g]);
            const double h2 = drawnHue(p->kernel2View(), slices[g], {0, 8});
            QVERIFY2(hueDistance(h1, h2) < 0.2,
                     qPrintable(QStringLiteral("group %1: %2 vs %3").arg(g).arg(h1).arg(h2)));
            const OkLab expected = toOkLab(groupColor(int(g)));
            QVERIFY(hueDistance(h1, std::atan2(expected.b, expected.a)) < 0.2);
            hues.push_back(h1);
        }
        for (std::size_t g = 1; g < hues.size(); ++g)
            QVERIFY(hueDistance(hues[g], hues[g - 1]) > 0.3);
    }

    // The steps: h and a fill slice by slice, linear2's partials come after, y at the last step
    // with the check's verdicts.
    void theStepsFillTheBlock() {
        Window w(block());
        QTRY_VERIFY(w.shows(block()));
        StepController* steps = w.window.stepController();
        MlpPanel* p = w.mlp();
        QCOMPARE(steps->lastStep(), 9);
        steps->setStep(0);
        QCOMPARE(p->hiddenOverlay()->fromColumn(), Index(0));
        steps->setStep(2);  // device 1's linear1 and GeLU
        QCOMPARE(p->hiddenOverlay()->fromColumn(), Index(16));
        QCOMPARE(p->activationOverlay()->fromColumn(), Index(16));
        QCOMPARE(p->kernel1View()->highlightedGroup(), 1);
        QVERIFY(w.window.equationLabel()->text().startsWith("h[:, 8:16] = x @ kernel1[:, 8:16]"));
        steps->setStep(6);  // device 1's linear2: its rows of kernel2 and its slice of a
        QCOMPARE(p->hiddenOverlay()->fromColumn(), Index(-1));
        QCOMPARE(p->kernel2View()->highlightedGroup(), 1);
        QCOMPARE(p->activationView()->highlightedGroup(), 1);
        QVERIFY(views(p->partialView(), w.scene().split.partials[1]));
        QCOMPARE(p->outputOverlay()->fromColumn(), Index(0));
        QVERIFY(p->verificationView()->state() == VerificationView::State::Waiting);
        steps->setStep(9);
        QCOMPARE(p->outputOverlay()->fromColumn(), Index(-1));
        QVERIFY(p->verificationView()->state() == VerificationView::State::Passed);
        QVERIFY2(p->verificationView()->verdictText().contains(
                     "y matches the unsharded block's y within float32 rounding"),
                 qPrintable(p->verificationView()->verdictText()));
        QVERIFY(p->stagesLabel()->text().contains("a = gelu(h): <b>passed</b>"));
        QVERIFY(!p->errorView()->isVisible());
    }

    // Showing the block reads only the partial sum of linear2 it shows: each is made on first
    // read, and reading them all for a colour scale made them all at once, on the thread of the
    // window. Step 0 shows device 0's (under its overlay), device 1's step device 1's.
    void showingTheBlockMakesOnlyThePartialItShows() {
        LayerConfig c = block();
        c.batch = 16;  // more rows than the products of few rows, which the pass keeps
        const ScenePtr scene = std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx}));
        const Partials& partials = scene->mlp->split.partials;
        const Timeline loop = loopTimeline(*scene);
        MlpPanel panel;
        panel.setScene(scene);
        panel.setStep(loop.at(0));
        QVERIFY(partials.made(0));
        QVERIFY(!partials.made(1) && !partials.made(2) && !partials.made(3));
        panel.setStep(loop.at(6));  // device 1's linear2
        QVERIFY(views(panel.partialView(), partials[1]));
        QVERIFY(partials.made(1) && !partials.made(2) && !partials.made(3));
    }

    // row-then-column: a fails where h passes, and the error map shows |y - reference|.
    void rowThenColumnsErrorMap() {
        const SceneRun run = withMistake(Mistake::RowThenColumn);
        Window w(block(), run);
        QTRY_VERIFY(w.shows(block(), Mistake::RowThenColumn));
        MlpPanel* p = w.mlp();
        StepController* steps = w.window.stepController();
        QCOMPARE(p->kernel1View()->groupAxis(), Qt::Vertical);  // linear1 split by its rows
        QCOMPARE(p->kernel2View()->groupAxis(), Qt::Horizontal);
        steps->setStep(steps->lastStep());
        QVERIFY(p->errorView()->isVisible());
        const Verification& v = w.scene().verification.output;
        QVERIFY(!v.passed());
        QCOMPARE(
            p->errorView()->title(),
            QStringLiteral("|y - reference|, max at [%1, %2]").arg(v.worstRow).arg(v.worstCol));
        QCOMPARE(p->errorView()->matrix()(v.worstRow, v.worstCol), float(v.maxAbsError));
        QVERIFY(p->verificationView()->state() == VerificationView::State::Failed);
        const QString stages = p->stagesLabel()->text();
        QVERIFY2(stages.contains("h = x @ kernel1 + bias1: <b>passed</b>"), qPrintable(stages));
        QVERIFY2(stages.contains("a = gelu(h): <b>FAILED</b>"), qPrintable(stages));
        QVERIFY(p->warningLabel()->text().contains("row-then-column"));
        // The mistake runs on the Devices tab too: gather-between's lesson is its cost.
        QTabWidget* tabs = w.window.viewTabs();
        QVERIFY(tabs->isTabEnabled(tabs->indexOf(w.window.devicesView())));
    }

    // The Devices tab: one card per device with its two kernel blocks (views of the scene's),
    // its hidden slice and its partial sum, and the all-reduce step by step with its arrows.
    void theDevicesTabRunsTheAllReduce() {
        Window w(block());
        QTRY_VERIFY(w.shows(block()));
        w.window.viewTabs()->setCurrentWidget(w.window.devicesView());
        DevicesView* devices = w.window.devicesView();
        QTRY_VERIFY(devices->deviceScene().scene == w.window.scene());
        QCOMPARE(int(devices->cards().size()), 4);
        StepController* steps = w.window.stepController();
        steps->setStep(2);  // every device's partial sum
        const MlpScene& s = w.scene();
        for (int m = 0; m < 4; ++m) {
            const DeviceHoldingsView& h = devices->card(0, m)->holdings();
            const IndexRange slice{8 * m, 8 * (m + 1)};
            QCOMPARE(h.arrays.at(0).name,
                     QStringLiteral("kernel1[:, %1:%2]").arg(slice.start).arg(slice.stop));
            QCOMPARE(h.arrays.at(0).data.data(), s.params.kernel1.data() + slice.start);
            QCOMPARE(h.arrays.at(1).name,
                     QStringLiteral("kernel2[%1:%2, :]").arg(slice.start).arg(slice.stop));
            QCOMPARE(h.arrays.at(1).data.data(), s.params.kernel2.row(slice.start).data());
            QCOMPARE(h.arrays.at(2).data.data(), s.split.h.data() + slice.start);
            QCOMPARE(h.arrays.at(3).data.data(), s.split.a.data() + slice.start);
            QCOMPARE(h.arrays.at(4).data.data(), s.split.partials[std::size_t(m)].data());
        }
        QVERIFY(devices->arrows().empty());
        const Timeline& program = w.window.timelines()->program();
        for (int k = 3; k < program.size(); ++k) {
            steps->setStep(k);
            const TimelineStep& step = program.at(k);
            if (step.ring.phase == RingPhase::AddBias) {
                QVERIFY(devices->arrows().empty());
                continue;
            }
            const std::vector<DeviceArrow> arrows = devices->arrows();
            QCOMPARE(int(arrows.size()), 4);
            for (const DeviceArrow& a : arrows) {
                QCOMPARE(a.to, (a.from + 1) % 4);
                QCOMPARE(a.chunk,
                         ringChunkSent(step.ring.phase, step.ring.indexInPhase, a.from, 4));
            }
            QCOMPARE(devices->card(0, 0)->holdings().ringArray, 4);
        }
        // The ring adds the partial sums in its own order: within the rounding bound, not bits.
        const QString header = devices->headerLabel()->text();
        QVERIFY2(header.contains("all-reduce of the partial sums: ") &&
                     header.contains(" elements bit-identical, passed"),
                 qPrintable(header));
        QVERIFY(
            devices->costsPanel()->wireLabel()->text().contains("all-reduce of the partial sums"));
        QVERIFY(!devices->mpiRunAction()->isEnabled());
    }

    // gather-between: the costs panel says what it costs more than Megatron's split.
    void gatherBetweensCostsShow() {
        LayerConfig c = block();
        const SceneRun run = withMistake(Mistake::GatherBetween);
        Window w(c, run);
        QTRY_VERIFY(w.shows(c, Mistake::GatherBetween));
        w.window.viewTabs()->setCurrentWidget(w.window.devicesView());
        DevicesView* devices = w.window.devicesView();
        QTRY_VERIFY(devices->deviceScene().scene == w.window.scene());
        const QString memory = devices->costsPanel()->memoryLabel()->text();
        const QString wire = devices->costsPanel()->wireLabel()->text();
        QVERIFY2(memory.contains("more per device than Megatron's split"), qPrintable(memory));
        QVERIFY2(wire.contains("all-gather of a") && wire.contains("more than Megatron's one "
                                                                   "all-reduce"),
                 qPrintable(wire));
        // The estimate names each of the pass's collectives (a's all-gather, then y's), headed by
        // their sum, not a kind "none" with one size of step.
        const QString estimate = devices->costsPanel()->estimateLabel()->text();
        QVERIFY2(estimate.contains("\ncollectives: 6 steps: latency") &&
                     estimate.contains("\nall-gather: 3 steps of 64 bytes") &&
                     estimate.contains("\nall-gather: 3 steps of 16 bytes") &&
                     !estimate.contains("none"),
                 qPrintable(estimate));
    }

    // With the backward: the Layer tab's gradients where their arrays stood.
    void theBackwardShowsTheGradients() {
        SceneRun run;
        run.backward = true;
        Window w(block(), run);
        QTRY_VERIFY(w.shows(block()) && w.window.scene()->mlp->backward);
        StepController* steps = w.window.stepController();
        steps->setStep(steps->lastStep());
        MlpPanel* p = w.mlp();
        const MlpBackwardScene& b = *w.scene().backward;
        QVERIFY(views(p->kernel1View(), b.split.gradients.dkernel1));
        QVERIFY(views(p->kernel2View(), b.split.gradients.dkernel2));
        QVERIFY(views(p->inputView(), b.split.gradients.dx));
        QVERIFY(views(p->outputView(), b.dy));
        // The box judges dx, and says so: not the forward's y, nor "the output".
        VerificationView* check = p->verificationView();
        QVERIFY(check->state() == VerificationView::State::Passed);
        QVERIFY2(check->verdictText().contains("dx matches the unsharded block's dx (jax.vjp)"),
                 qPrintable(check->verdictText()));
        QVERIFY2(check->detailText().startsWith("dx vs the unsharded block's (jax.vjp):"),
                 qPrintable(check->detailText()));
        QVERIFY(!(check->verdictText() + check->detailText()).contains("output"));
        QCOMPARE(p->bias1Overlay()->fromColumn(), Index(-1));
        // dbias1 waits for linear1's backward: hidden while linear2's runs, then slice by slice.
        const Timeline& loop = w.window.timelines()->loop();
        for (int k = 0; k < loop.size(); ++k) {
            const TimelineStep& step = loop.at(k);
            steps->setStep(k);
            if (step.phase == StepPhase::Linear2Gradients)
                QCOMPARE(p->bias1Overlay()->fromColumn(), Index(0));
            if (step.phase == StepPhase::Linear1Gradients && step.mlp.dkernel1Done < 4)
                QCOMPARE(p->bias1Overlay()->fromColumn(), Index(step.mlp.dkernel1Done * 8));
        }
        steps->setStep(0);  // back to the forward's arrays, and its check of y
        QCOMPARE(p->bias1Overlay()->fromColumn(), Index(-1));
        QCOMPARE(check->subject().array, QStringLiteral("y"));
        QVERIFY(views(p->kernel1View(), w.scene().params.kernel1));
    }

    // Help > Python snippet gives the block's own script, as tpviz-cli --python --block mlp.
    void thePythonSnippetIsTheBlocks() {
        Window w(block());
        QTRY_VERIFY(w.shows(block()));
        PythonDialog* dialog = w.window.showPythonSnippet();
        const QString script = dialog->script();
        dialog->close();
        QVERIFY2(script.contains("class MLP(nnx.Module):") && script.contains("jax.lax.psum"),
                 qPrintable(script));
        QCOMPARE(script.toStdString(), pythonSnippet(block()));
    }

    void theCommandLineTakesTheBlock() {
        const AppCommandLine line =
            parseAppCommandLine({"--block", "mlp", "--hidden", "48", "--tp", "6"});
        QVERIFY(line.errors.empty());
        QVERIFY(line.config.block == Block::Mlp);
        QCOMPARE(line.config.hidden, std::int64_t(48));
        QVERIFY(QString::fromStdString(appHelp()).contains("--hidden H"));
        const AppCommandLine refused = parseAppCommandLine({"--block", "mlp", "--mode", "row"});
        QVERIFY(!refused.errors.empty());
    }

    // tpviz --block mlp --screenshot renders the block at the step asked for.
    void screenshotOfTheBlock() {
        QTemporaryDir dir;
        const QString file = dir.filePath("mlp.png");
        const test::ProcessRun run = test::runProcess(
            QStringLiteral(TPVIZ_APP_PATH), {"--block", "mlp", "--screenshot", file, "--step", "2"},
            {.environment = {{"QT_QPA_PLATFORM", "offscreen"}}});
        QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        QCOMPARE(QImage(file).size(), kScreenshotSize);
    }
};

QTEST_MAIN(TestMlpView)
#include "tst_mlp_view.moc"
