// The mistakes as a user makes them in the real window: the Mistake combo changes the picture, the
// equation and the check; a mistake of the other mode is refused with the reason; the check's rule
// switches to allclose with the given tolerances.

#include "command_line.h"
#include "devices/devices_view.h"
#include "error_map.h"
#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "output_panel.h"
#include "parameter_panel.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "step_controller.h"
#include "trace_panel.h"
#include "verification_view.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>

#include <cmath>

using namespace tp;

namespace {

LayerConfig withBias(LayerConfig config) {
    config.bias = *parseBiasInit("normal:0.5");
    return config;
}

// A window without saved settings, showing `config` once its first scene has arrived.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config) {
        window.resize(1400, 900);
        window.showConfig(config, SceneSource::Nnx);
        window.show();
    }
    QComboBox* combo(const char* name) const { return window.findChild<QComboBox*>(name); }
    OutputPanel* output() const { return window.outputPanel(); }
    VerificationView* check() const { return window.outputPanel()->verificationView(); }
    /// Chooses `mistake` in the combo as a user does, and waits for its scene.
    bool choose(Mistake mistake) {
        QComboBox* box = combo("mistakeBox");
        box->setCurrentIndex(box->findData(mistakeName(mistake)));
        return QTest::qWaitFor([&] {
            return window.scene() && window.scene()->mistake == mistake &&
                   !window.computer()->isBusy() && !window.computer()->hasPendingRequest();
        });
    }
};

}  // namespace

class TestMistakesView : public QObject {
    Q_OBJECT

private slots:
    void theComboListsEveryMistakeWithItsDescription() {
        Window w(LayerConfig{});
        QComboBox* box = w.combo("mistakeBox");
        QCOMPARE(box->count(), int(blockMistakes(Block::Linear).size()) + 1);
        QCOMPARE(box->currentData().toString(), QStringLiteral("none"));
        for (const Mistake m : blockMistakes(Block::Linear)) {
            const int i = box->findData(mistakeName(m));
            QVERIFY(i > 0);
            QCOMPARE(box->itemData(i, Qt::ToolTipRole).toString(),
                     QString::fromStdString(mistakeDescription(m)));
        }
    }

    // Each mistake, chosen at a size where it has an effect, changes the picture, the equation and
    // the check, which turns red with the verdict in words; choosing none brings the right split
    // back.
    void eachMistakeChangesThePictureAndTheCheck_data() {
        QTest::addColumn<int>("mistake");
        QTest::addColumn<bool>("row");
        QTest::newRow("sum-groups") << int(Mistake::SumGroups) << false;
        QTest::newRow("concat-partials") << int(Mistake::ConcatPartials) << true;
        QTest::newRow("bias-per-partial") << int(Mistake::BiasPerPartial) << true;
        QTest::newRow("init-per-group column") << int(Mistake::InitPerGroup) << false;
        QTest::newRow("init-per-group row") << int(Mistake::InitPerGroup) << true;
        QTest::newRow("slice-x") << int(Mistake::SliceX) << false;
    }
    void eachMistakeChangesThePictureAndTheCheck() {
        QFETCH(int, mistake);
        QFETCH(bool, row);
        const Mistake m = Mistake(mistake);
        LayerConfig config = withBias(LayerConfig{});  // 2 x 8 x 12
        config.mode = row ? ParallelMode::Row : ParallelMode::Column;
        config.tpSize = 4;  // divides in_dim too, as slice-x needs
        Window w(config);
        QTRY_VERIFY(w.window.scene());
        StepController* steps = w.window.stepController();
        steps->goToEnd();
        QCOMPARE(w.check()->state(), VerificationView::State::Passed);
        const ScenePtr correct = w.window.scene();

        QVERIFY(w.choose(m));
        const ScenePtr scene = w.window.scene();
        QVERIFY(scene != correct);
        QVERIFY(scene->mistakeWithoutEffect.empty());
        const ShardingPlan& plan = scene->result.plan;

        // Every step draws without trouble, and the group steps state the wrong equation.
        const Timeline loop = loopTimeline(scene->config, m);
        QCOMPARE(steps->stepCount(), loop.size());
        for (int step = 0; step < steps->stepCount(); ++step) {
            steps->setStep(step);
            const QString equation = w.window.equationLabel()->text();
            QCOMPARE(equation, QString::fromStdString(loop.at(step).equation));
            const TimelineStep& state = loop.at(step);
            if (state.currentGroup >= 0)
                QCOMPARE(equation, QString::fromStdString(mistakeStepEquation(
                                       m, plan, state.currentGroup, scene->config.batch)));
        }
        steps->setStep(1);
        QVERIFY(w.window.equationLabel()->text() !=
                QString::fromStdString(loopTimeline(scene->config).at(1).equation));
        QVERIFY2(w.output()->warningLabel()->text().contains("Mistake " + mistakeName(m)),
                 qPrintable(w.output()->warningLabel()->text()));

        // The check: red, with the verdict in words.
        steps->goToEnd();
        VerificationView* check = w.check();
        QCOMPARE(check->state(), VerificationView::State::Failed);
        QVERIFY2(check->verdictText().contains("failed"), qPrintable(check->verdictText()));
        QVERIFY(check->noteText().isEmpty());
        MatrixView* errors = w.output()->errorView();
        const bool otherShape = m == Mistake::SumGroups || m == Mistake::ConcatPartials;
        if (otherShape) {
            const Index cols = m == Mistake::SumGroups ? plan.chunk : plan.tpSize * plan.features;
            const QString sentence = QStringLiteral("shapes differ: (%1, %2) vs (%1, %3)")
                                         .arg(config.batch)
                                         .arg(cols)
                                         .arg(config.features);
            QVERIFY2(check->detailText().contains(sentence), qPrintable(check->detailText()));
            QVERIFY(!errors->isVisible());
        } else {
            // The error map: |y - reference| per element, the worst cell marked.
            QVERIFY(errors->isVisible());
            const Matrix expected =
                (scene->result.output.cast<double>() - scene->reference.cast<double>())
                    .cwiseAbs()
                    .cast<float>();
            QCOMPARE(errors->matrix().rows(), expected.rows());
            QCOMPARE(errors->matrix().cols(), expected.cols());
            QVERIFY(errors->matrix().map() == expected);
            const Verification& v = scene->verification;
            QCOMPARE(expected.maxCoeff(), float(v.maxAbsError));
            QCOMPARE(errors->tracedRow(), int(v.worstRow));
            QCOMPARE(errors->tracedColumn(), int(v.worstCol));
            QVERIFY(v.maxAbsError > 0);
            QVERIFY(check->detailText().contains("over their rounding bound"));
            // Where the largest error is, said only once the output exists.
            const QString worst = QStringLiteral("max at [%1, %2]").arg(v.worstRow).arg(v.worstCol);
            QVERIFY2(errors->title().contains(worst), qPrintable(errors->title()));
            steps->setStep(0);
            QVERIFY2(!errors->title().contains("max"), qPrintable(errors->title()));
            steps->goToEnd();
        }

        // The picture draws the wrong computation.
        LayerPanel* layer = w.window.layerPanel();
        const MatrixData result = w.output()->resultView()->matrix();
        switch (m) {
            case Mistake::SumGroups:
                QCOMPARE(result.cols(), plan.chunk);
                QVERIFY(result.map() == scene->result.output);  // the sum of every partial
                QVERIFY(w.output()->resultView()->title().contains("sum of the blocks"));
                break;
            case Mistake::ConcatPartials:
                QCOMPARE(w.output()->finalView()->matrix().cols(), plan.tpSize * plan.features);
                QCOMPARE(w.output()->resultView()->groups().size(), std::size_t(plan.tpSize));
                break;
            case Mistake::BiasPerPartial:
                QVERIFY(w.output()->finalView()->title().contains("bias 4 times"));
                steps->setStep(loopTimeline(scene->config, m).lastStep());  // the closing step
                QVERIFY2(w.window.findChild<QLabel*>("captionLabel")
                             ->text()
                             .contains("already in each of the 4 partial sums"),
                         qPrintable(w.window.findChild<QLabel*>("captionLabel")->text()));
                steps->setStep(2);  // group 1 adds the whole bias too
                QCOMPARE(layer->biasView()->groups().size(), std::size_t(1));
                QCOMPARE(layer->biasView()->groups().front().size(), plan.features);
                QVERIFY(w.output()->partialView()->title().contains("+ bias"));
                break;
            case Mistake::InitPerGroup: {
                MatrixView* own = layer->ownKernelView();
                QVERIFY(own->isVisible());
                QCOMPARE(own->matrix().data(), scene->groupLayer.kernel.data());
                QCOMPARE(own->matrix().rows(), row ? plan.chunk : plan.inDim);
                QCOMPARE(own->matrix().cols(), row ? plan.features : plan.chunk);
                steps->setStep(2);
                QCOMPARE(own->groups().size(), std::size_t(1));
                QVERIFY(w.output()->partialView()->title().contains("own_kernel"));
                QVERIFY(w.output()->partialView()->matrix().map() != correct->result.partials[1]);
                break;
            }
            case Mistake::SliceX:
                QCOMPARE(layer->inputView()->groups().size(), std::size_t(plan.tpSize));
                QCOMPARE(layer->inputView()->groups()[1], sliceXInputBlock(plan, 1));
                steps->setStep(2);
                QCOMPARE(layer->inputView()->highlightedGroup(), 1);
                break;
            case Mistake::None:
            case Mistake::RowThenColumn:  // the MLP block's, not in this list
            case Mistake::GatherBetween:
            case Mistake::Bias2PerPartial:
                QFAIL("not a mistake");
        }
        // Tracing an output cell never reads past a mistake's output.
        layer->traceOutput(1, int(config.features) - 1);
        if (otherShape)
            QCOMPARE(layer->inputView()->tracedRow(), -1);
        else
            QCOMPARE(layer->inputView()->tracedRow(), 1);
        // The devices run the correct split only.
        QTabWidget* tabs = w.window.viewTabs();
        QVERIFY(!tabs->isTabEnabled(tabs->indexOf(w.window.devicesView())));

        // Back to none: the right split and a passing check.
        QVERIFY(w.choose(Mistake::None));
        steps->goToEnd();
        QCOMPARE(w.check()->state(), VerificationView::State::Passed);
        QVERIFY(!w.output()->errorView()->isVisible());
        QVERIFY(!layer->ownKernelView()->isVisible());
        QVERIFY(tabs->isTabEnabled(tabs->indexOf(w.window.devicesView())));
    }

    // slice-x reads, of the kernel, only each group's block of rows in its own columns: those
    // cells keep their colours, every other cell is washed out towards the window's base.
    void sliceXShowsOnlyTheKernelBlockEachGroupReads() {
        LayerConfig config = withBias(LayerConfig{});  // 2 x 8 x 12
        config.tpSize = 4;
        Window w(config);
        QTRY_VERIFY(w.window.scene());
        QVERIFY(w.choose(Mistake::SliceX));
        MatrixView* kernel = w.window.layerPanel()->kernelView();
        const ShardingPlan& plan = w.window.scene()->result.plan;
        const auto used = [&](Index row, Index col) {
            for (Index g = 0; g < plan.tpSize; ++g) {
                const IndexRange rows = sliceXInputBlock(plan, g);
                const IndexRange cols = plan.groups[std::size_t(g)].kernelCols;
                if (row >= rows.start && row < rows.stop && col >= cols.start && col < cols.stop)
                    return true;
            }
            return false;
        };
        // The cell of largest |value| among the used cells and among the others.
        const MatrixData& k = kernel->matrix();
        QPoint usedCell, unusedCell;
        float usedMax = -1, unusedMax = -1;
        for (Index r = 0; r < k.rows(); ++r)
            for (Index c = 0; c < k.cols(); ++c) {
                const float v = std::fabs(k(r, c));
                float& best = used(r, c) ? usedMax : unusedMax;
                if (v > best) {
                    best = v;
                    (used(r, c) ? usedCell : unusedCell) = QPoint(int(c), int(r));
                }
            }
        QVERIFY(unusedMax > 0.5f * usedMax);  // colours of like strength without the wash
        const QColor base = kernel->viewport()->palette().color(QPalette::Base);
        // How far a cell's corner (clear of its printed number) is from the base colour.
        const auto strength = [&](QPoint cell) {
            const QImage shot = kernel->viewport()->grab().toImage();
            const QRectF rect = kernel->cellRect(cell.y(), cell.x());
            const QColor c = shot.pixelColor((rect.topLeft() + QPointF(2, 2)).toPoint());
            return std::abs(c.red() - base.red()) + std::abs(c.green() - base.green()) +
                   std::abs(c.blue() - base.blue());
        };
        QTRY_VERIFY(strength(usedCell) > 60);
        QVERIFY2(strength(unusedCell) < strength(usedCell) / 3,
                 qPrintable(QStringLiteral("unused %1, used %2")
                                .arg(strength(unusedCell))
                                .arg(strength(usedCell))));
        // Without the mistake every cell keeps its colour.
        QVERIFY(w.choose(Mistake::None));
        QTRY_VERIFY(strength(unusedCell) > strength(usedCell) / 3);
    }

    // Where a mistake changes nothing, the check passes, truthfully, and says why beside it.
    void mistakesWithoutEffectPassAndSaySo_data() {
        QTest::addColumn<int>("mistake");
        QTest::addColumn<bool>("row");
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("zeroBias");
        QTest::newRow("bias-per-partial, zero bias")
            << int(Mistake::BiasPerPartial) << true << 4 << true;
        QTest::newRow("sum-groups, tp 1") << int(Mistake::SumGroups) << false << 1 << false;
        QTest::newRow("init-per-group, tp 1") << int(Mistake::InitPerGroup) << false << 1 << false;
        QTest::newRow("concat-partials, tp 1")
            << int(Mistake::ConcatPartials) << true << 1 << false;
    }
    void mistakesWithoutEffectPassAndSaySo() {
        QFETCH(int, mistake);
        QFETCH(bool, row);
        QFETCH(int, tp);
        QFETCH(bool, zeroBias);
        LayerConfig config = zeroBias ? LayerConfig{} : withBias(LayerConfig{});
        config.mode = row ? ParallelMode::Row : ParallelMode::Column;
        config.tpSize = tp;
        Window w(config);
        QTRY_VERIFY(w.window.scene());
        QVERIFY(w.choose(Mistake(mistake)));
        const ScenePtr scene = w.window.scene();
        QVERIFY(!scene->mistakeWithoutEffect.empty());
        w.window.stepController()->goToEnd();
        QCOMPARE(w.check()->state(), VerificationView::State::Passed);
        QVERIFY(w.check()->findChild<QLabel*>("verificationNote")->isVisible());
        QVERIFY2(w.check()->noteText().contains(
                     QString::fromStdString(scene->mistakeWithoutEffect).toHtmlEscaped()),
                 qPrintable(w.check()->noteText()));
        // Bit for bit the output of the right split.
        const std::optional<Scene> right = computeScene({config, SceneSource::Nnx});
        QVERIFY(scene->result.output == right->result.output);
    }

    // NNX's default bias is zeros, which hides bias-per-partial: the note offers, in the app rather
    // than as a command-line flag, the bias that shows it, and one click makes the check fail.
    void zeroBiasOffersABiasThatShowsBiasPerPartial() {
        LayerConfig config;
        config.mode = ParallelMode::Row;
        config.tpSize = 4;
        Window w(config);
        QTRY_VERIFY(w.window.scene());
        QVERIFY(w.choose(Mistake::BiasPerPartial));
        w.window.stepController()->goToEnd();
        QCOMPARE(w.check()->state(), VerificationView::State::Passed);
        QVERIFY2(!w.check()->noteText().contains("--"), qPrintable(w.check()->noteText()));
        QPushButton* offer = w.check()->biasOfferButton();
        QVERIFY(offer->isVisible());
        QTest::mouseClick(offer, Qt::LeftButton);
        QTRY_VERIFY(w.window.scene()->config.bias == *parseBiasInit("normal:0.5") &&
                    !w.window.computer()->hasPendingRequest() && !w.window.computer()->isBusy());
        QVERIFY(w.window.scene()->mistake == Mistake::BiasPerPartial);
        QVERIFY(w.window.parameterPanel()->config().bias == *parseBiasInit("normal:0.5"));
        w.window.stepController()->goToEnd();
        QCOMPARE(w.check()->state(), VerificationView::State::Failed);
        QVERIFY(!offer->isVisible());
        QVERIFY(w.window.scene()->mistakeWithoutEffect.empty());
    }

    // A mistake of the other mode is refused with the reason beside the combo, and the picture
    // keeps the last valid scene; switching the mode makes it valid.
    void mistakeOfTheOtherModeIsRefused() {
        Window w(withBias(LayerConfig{}));
        QTRY_VERIFY(w.window.scene());
        const ScenePtr before = w.window.scene();
        ParameterPanel* panel = w.window.parameterPanel();
        QComboBox* box = w.combo("mistakeBox");
        box->setCurrentIndex(box->findData(mistakeName(Mistake::BiasPerPartial)));
        const QString reason = panel->problemText(ConfigField::Mistake);
        QVERIFY2(reason.contains("row-parallel mistake") && reason.contains("choose mode row"),
                 qPrintable(reason));
        QLabel* label =
            panel->findChild<QLabel*>(QStringLiteral("problem%1").arg(int(ConfigField::Mistake)));
        QVERIFY(label->isVisible());
        QVERIFY(w.window.statusBar()->currentMessage().contains("Input refused"));
        QVERIFY(!w.window.computer()->hasPendingRequest());
        QCOMPARE(w.window.scene(), before);

        w.combo("modeBox")->setCurrentIndex(1);  // row
        QVERIFY(panel->problemText(ConfigField::Mistake).isEmpty());
        QTRY_VERIFY(w.window.scene()->mistake == Mistake::BiasPerPartial);
        const ScenePtr rowScene = w.window.scene();
        // Back to column with a row mistake chosen: refused again, the row scene stays.
        w.combo("modeBox")->setCurrentIndex(0);
        QVERIFY(!panel->problemText(ConfigField::Mistake).isEmpty());
        QCOMPARE(w.window.scene(), rowScene);
        // slice-x where in_dim is not divisible by tp_size: refused with that reason.
        panel->findChild<QComboBox*>("tpBox")->setEditText("4");
        box->setCurrentIndex(box->findData(mistakeName(Mistake::SliceX)));
        QVERIFY(panel->problemText(ConfigField::Mistake).isEmpty());
        QTRY_VERIFY(w.window.scene()->mistake == Mistake::SliceX);
        w.window.findChild<QSpinBox*>("inDimBox")->setValue(6);
        QVERIFY2(panel->problemText(ConfigField::Mistake).contains("not divisible by tp_size"),
                 qPrintable(panel->problemText(ConfigField::Mistake)));
    }

    // The rule: the rounding bound by default; allclose with the given rtol and atol decides the
    // verdict once chosen, and says so; a tolerance that is not a number is refused.
    void allcloseRuleChangesTheVerdict() {
        // Long sums added in another order than the reference's: the rounding bound passes this
        // correct split, a fixed atol 1e-6 does not. With 4 rows the products sum in order over
        // k on every SIMD path, so the same bits decide everywhere.
        Window w(LayerConfig{
            .batch = 4, .inDim = 4096, .features = 64, .tpSize = 4, .mode = ParallelMode::Row});
        QTRY_VERIFY_WITH_TIMEOUT(w.window.scene(), 60000);
        w.window.stepController()->goToEnd();
        VerificationView* check = w.check();
        QCOMPARE(check->state(), VerificationView::State::Passed);
        const QString byBound = check->verdictText();

        w.combo("ruleBox")->setCurrentIndex(1);
        QTRY_VERIFY_WITH_TIMEOUT(w.window.scene()->verification.rule == CheckRule::Allclose, 60000);
        w.window.stepController()->goToEnd();
        QCOMPARE(check->state(), VerificationView::State::Failed);
        QVERIFY(check->verdictText() != byBound);
        QVERIFY2(check->verdictText().contains("not allclose(rtol=1e-05, atol=1e-06)"),
                 qPrintable(check->verdictText()));

        auto* atol = w.window.findChild<QLineEdit*>("atolEdit");
        const ScenePtr strict = w.window.scene();
        atol->setText(QStringLiteral("1e-4"));
        QTRY_VERIFY_WITH_TIMEOUT(w.window.scene() != strict, 60000);
        w.window.stepController()->goToEnd();
        QCOMPARE(w.window.scene()->verification.tolerance.atol, 1e-4);
        QCOMPARE(check->state(), VerificationView::State::Passed);
        QVERIFY2(check->verdictText().contains("allclose(rtol=1e-05, atol=0.0001)"),
                 qPrintable(check->verdictText()));

        const ScenePtr kept = w.window.scene();
        w.window.findChild<QLineEdit*>("rtolEdit")->setText(QStringLiteral("-1"));
        const QString problem = w.window.parameterPanel()->problemText(ConfigField::Tolerance);
        QVERIFY2(problem.contains("rtol \"-1\" is not a number >= 0"), qPrintable(problem));
        QCOMPARE(w.window.scene(), kept);
        // A value beyond a double's range says so, not that it is no number.
        w.window.findChild<QLineEdit*>("rtolEdit")->setText(QStringLiteral("1e400"));
        QVERIFY2(w.window.parameterPanel()
                     ->problemText(ConfigField::Tolerance)
                     .contains("rtol \"1e400\" is beyond a double's range"),
                 qPrintable(w.window.parameterPanel()->problemText(ConfigField::Tolerance)));
    }

    // tpviz --mistake NAME opens (and screenshots) the scene with the mistake made.
    void commandLineCarriesTheMistake() {
        const AppCommandLine line =
            parseAppCommandLine({"--mode", "row", "--tp", "4", "--mistake", "concat-partials"});
        QVERIFY(line.errors.empty());
        QVERIFY(line.run.mistake == Mistake::ConcatPartials);
        MainWindow window(MainWindow::Options{.useSettings = false});
        window.showConfig(line.config, line.source, line.run);
        QTRY_VERIFY(window.scene() && window.scene()->mistake == Mistake::ConcatPartials);
        QCOMPARE(window.parameterPanel()->findChild<QComboBox*>("mistakeBox")->currentData(),
                 QVariant(QStringLiteral("concat-partials")));
        const AppCommandLine wrong = parseAppCommandLine({"--mistake", "concat-partials"});
        QVERIFY(!wrong.errors.empty());  // a row mistake in column mode
    }
};

QTEST_MAIN(TestMistakesView)
#include "tst_mistakes_view.moc"
