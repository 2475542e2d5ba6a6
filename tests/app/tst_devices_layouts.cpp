// The fsdp and sequence layouts in the app: the Layout choice in the parameters with its refusals
// under it, the Devices tab running the layout's program (its gathers' arrows along their axis, the
// array they move marked on each card, its rings' checks in the header), and the costs panel's
// three layouts side by side on the preset.

#include "config_fixtures.h"
#include "devices/costs_panel.h"
#include "devices/device_card.h"
#include "devices/devices_view.h"
#include "devices/layout_costs.h"
#include "devices/layout_sweep_plot.h"
#include "main_window.h"
#include "parameter_panel.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "steps/step_controller.h"

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include <cmath>

using namespace tp;

namespace {

// Column, (4, 8, 12), tp 2, D 2: a kernel block of 8 x 6, 4 rows of it at rest on each device.
LayerConfig layoutConfig(ShardingLayout layout, ParallelMode mode = ParallelMode::Column) {
    LayerConfig c = test::kFourGroups;
    c.batch = 4;
    c.tpSize = 2;
    c.dataSize = 2;
    c.mode = mode;
    c.layout = layout;
    return c;
}

ScenePtr sceneOf(const LayerConfig& c, bool backward = false) {
    SceneRun run;
    run.backward = backward;
    return std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx, run}));
}

}  // namespace

class TestDevicesLayouts : public QObject {
    Q_OBJECT

private slots:
    void parameterPanelTakesTheLayoutAndSaysWhyItRefuses() {
        ParameterPanel panel;
        panel.setConfig(layoutConfig(ShardingLayout::Tensor), SceneSource::Nnx);
        auto* layout = panel.findChild<QComboBox*>("layoutBox");
        QVERIFY(layout);
        QCOMPARE(layout->count(), 3);
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        layout->setCurrentIndex(layout->findText("fsdp"));
        QCOMPARE(edited.count(), 1);
        QVERIFY(panel.config().layout == ShardingLayout::Fsdp);
        QVERIFY(panel.problems().empty());
        // Sequence parallelism splits each data row's 2 batch rows over 2 devices: 3 data rows
        // of 4 batch rows do not divide; the words stand under the Layout choice.
        layout->setCurrentIndex(layout->findText("sequence"));
        QVERIFY(panel.problems().empty());
        panel.findChild<QSpinBox*>("dataBox")->setValue(4);
        QVERIFY2(panel.problemText(ConfigField::Layout).contains("data x tp_size (8)"),
                 qPrintable(panel.problemText(ConfigField::Layout)));
        // A scene set from outside shows its layout.
        panel.setConfig(layoutConfig(ShardingLayout::Fsdp), SceneSource::Nnx);
        QCOMPARE(layout->currentText(), QStringLiteral("fsdp"));
    }

    // FSDP's first steps gather the kernel block over "data": the arrows run down each model
    // column, every card marks its kernel as the array moving, and the header checks the rings.
    void fsdpGathersTheKernelDownTheColumns() {
        const LayerConfig c = layoutConfig(ShardingLayout::Fsdp);
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setScene(sceneOf(c, true));
        // At rest device (1, 0) keeps rows 4:8 of its kernel block, the rest grey, its spec the
        // layout's; the gather brings the rest.
        view.setStep(0);
        const HeldArray& rest = view.card(1, 0)->holdings().arrays[0];
        QVERIFY(std::isnan(rest.data(0, 0)) && std::isnan(rest.data(3, 5)));
        QVERIFY(!std::isnan(rest.data(4, 0)) && !std::isnan(rest.data(7, 5)));
        QCOMPARE(rest.spec, QStringLiteral("P('data', 'model')"));
        QCOMPARE(rest.bytes, std::int64_t(4 * 6 * 4));
        QVERIFY2(
            view.card(1, 0)->holdings().bytesText.startsWith("kernel 96 bytes · bias 12 bytes"),
            qPrintable(view.card(1, 0)->holdings().bytesText));
        view.setStep(1);
        const HeldArray& gathered = view.card(1, 0)->holdings().arrays[0];
        QVERIFY(!std::isnan(gathered.data(0, 0)) && !std::isnan(gathered.data(7, 5)));
        const std::vector<DeviceArrow> arrows = view.arrows();
        QCOMPARE(int(arrows.size()), 4);  // 2 model columns x 2 devices each sending
        for (const DeviceArrow& a : arrows)
            QVERIFY(a.axis == MeshAxis::Data);
        const DeviceHoldingsView& card = view.card(1, 0)->holdings();
        QCOMPARE(card.ringArray, 0);
        QVERIFY(card.arrays[0].name.startsWith("kernel["));
        QCOMPARE(card.sendsChunk, 1);  // device d sends its own chunk d first
        QCOMPARE(card.receivesChunk, 0);
        const QString header = view.headerLabel()->text();
        QVERIFY2(header.contains("Layout fsdp") &&
                     header.contains("forward all-gather of kernel over 'data': ") &&
                     header.contains("passed"),
                 qPrintable(header));
        QVERIFY(!header.contains("FAILED"));
        // The backward's reduce-scatter of dkernel over "data" runs on the layout's own ring.
        const Timeline& program = meshProgram(*sceneOf(c, true));
        int scatter = -1;
        for (const TimelineStep& s : program.steps)
            if (s.collective.of == "dkernel" && s.ringStep == 0)
                scatter = s.step;
        QVERIFY(scatter > 0);
        QVERIFY(program.at(scatter).collective.kind == CollectiveKind::ReduceScatter);
        view.setStep(scatter);
        QCOMPARE(int(view.arrows().size()), 4);
        QVERIFY(view.arrows().front().axis == MeshAxis::Data);
    }

    // Sequence parallelism's row layer reduce-scatters the partial sums along the batch rows:
    // the arrows run along each data row, and the bias step adds the whole bias once.
    void sequenceRowReduceScattersAlongTheRows() {
        const LayerConfig c = layoutConfig(ShardingLayout::Sequence, ParallelMode::Row);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        const Timeline program = meshProgram(c);
        QVERIFY(program.at(2).collective.kind == CollectiveKind::ReduceScatter);
        QCOMPARE(program.at(2).collective.layoutIndex, 0);
        view.setStep(2);
        QCOMPARE(int(view.arrows().size()), 4);
        QVERIFY(view.arrows().front().axis == MeshAxis::Model);
        QVERIFY(
            view.headerLabel()->text().contains("forward reduce-scatter of output over "
                                                "'model': "));
    }

    // The costs panel sets the three layouts side by side on the preset, the scene's in bold, and
    // its estimate is the layout's (the gathers' time included).
    void costsPanelComparesTheThreeLayouts() {
        const LayerConfig c = layoutConfig(ShardingLayout::Fsdp);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c, true));
        CostsPanel* costs = view.costsPanel();
        const QString table = costs->layoutsLabel()->text();
        QVERIFY(costs->layoutsLabel()->isVisible());
        QVERIFY2(table.contains("<b>fsdp</b>") && table.contains(">tensor<") &&
                     table.contains(">sequence<"),
                 qPrintable(table));
        const auto summaries = compareLayouts(c, true, costs->hardware());
        const LayoutSummary& fsdp = summaries[1];
        QVERIFY(table.contains(durationLabel(fsdp.forward.totalSeconds)));
        QVERIFY(table.contains(durationLabel(fsdp.backward.totalSeconds)));
        QVERIFY(costs->estimateLabel()->text().contains(
            durationLabel(layoutEstimate(c, PassPhase::Forward, costs->hardware()).totalSeconds)));
        // Another preset, other times.
        QVERIFY(
            costs->selectHardware(costs->hardware().name == "tpu-v5e" ? "a100-pcie" : "tpu-v5e"));
        QVERIFY2(costs->layoutsLabel()->text() != table, qPrintable(table));
        // A layout the config cannot take says why, in its row.
        LayerConfig odd = c;
        odd.batch = 6;
        odd.dataSize = 3;
        odd.layout = ShardingLayout::Tensor;
        view.setScene(sceneOf(odd));
        QVERIFY2(costs->layoutsLabel()->text().contains("over data D (3): D must divide both"),
                 qPrintable(costs->layoutsLabel()->text()));
    }

    // The layouts against D and against tp, in tabs beside the tp plot: the core's sweep, the
    // scene's value marked in each layout's colour; the MLP block has no layouts to plot.
    void layoutPlotsSweepTpAndD() {
        LayerConfig c = layoutConfig(ShardingLayout::Tensor);
        c.batch = 16;
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setScene(sceneOf(c, true));
        CostsPanel* costs = view.costsPanel();
        LayoutSweepPlot* overData = costs->layoutsOverData();
        const auto expected = layoutSweep(c, MeshSize::Data, true, costs->hardware());
        QCOMPARE(overData->points().size(), expected.size());  // D = 1, 2, 4, 8, 16
        QCOMPARE(overData->points().size(), std::size_t(5));
        QCOMPARE(costs->layoutsOverTp()->points().size(),
                 layoutSweep(c, MeshSize::Tp, true, costs->hardware()).size());
        QVERIFY(costs->plotTabs()->isTabVisible(2));
        costs->plotTabs()->setCurrentWidget(overData);
        QTRY_VERIFY(overData->isVisible() && overData->width() > 100);
        // D = 2 is point 1: FSDP's dot, below tensor's and sequence's at rest.
        const LayoutSummary& fsdp = overData->points()[1].layouts[1];
        QVERIFY(fsdp.layout == ShardingLayout::Fsdp);
        QVERIFY(fsdp.bytesAtRest < overData->points()[1].layouts[0].bytesAtRest);
        const QImage image = overData->grab().toImage();
        const QPoint dot(int(overData->xOf(1)), int(overData->yOf(fsdp.bytesAtRest, false)));
        QCOMPARE(image.pixelColor(dot), layoutColour(ShardingLayout::Fsdp));
        QCOMPARE(sweepBytesSent(fsdp, true), fsdp.forwardSent + fsdp.backwardSent);

        view.setScene(sceneOf(test::mlpConfig(2, 8, 32, 8, 4)));
        QVERIFY(!costs->plotTabs()->isTabVisible(1) && !costs->plotTabs()->isTabVisible(2));
        QCOMPARE(costs->plotTabs()->currentIndex(), 0);
    }

    // In the window, choosing a layout steps through its program on the Devices tab.
    void windowRunsTheChosenLayoutsProgram() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        window.viewTabs()->setCurrentWidget(window.devicesView());
        window.show();
        window.showConfig(layoutConfig(ShardingLayout::Tensor), SceneSource::Nnx);
        QTRY_VERIFY(window.scene() && window.scene()->config.dataSize == 2);
        const int tensorSteps = window.stepController()->stepCount();
        auto* layout = window.findChild<QComboBox*>("layoutBox");
        layout->setCurrentIndex(layout->findText("fsdp"));
        QTRY_VERIFY(window.scene() && window.scene()->config.layout == ShardingLayout::Fsdp);
        const LayerConfig fsdp = window.scene()->config;
        QCOMPARE(window.stepController()->stepCount(), meshProgram(fsdp).size());
        QCOMPARE(window.stepController()->stepCount(), tensorSteps + 2);  // kernel's, bias's
        window.stepController()->setStep(1);
        QVERIFY2(window.equationLabel()->text().startsWith("kernel all-gather 1/1"),
                 qPrintable(window.equationLabel()->text()));
    }
};

QTEST_MAIN(TestDevicesLayouts)
#include "tst_devices_layouts.moc"
