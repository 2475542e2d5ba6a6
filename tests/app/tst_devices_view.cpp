// The devices view: one card per device with its specs and bytes, the ring steps' arrows and
// buffers, the costs panel and its tp plot, the tab in the window and --view devices.

#include "command_line.h"
#include "config_fixtures.h"
#include "devices/costs_panel.h"
#include "devices/device_card.h"
#include "devices/devices_view.h"
#include "devices/estimate_bars.h"
#include "devices/tp_sweep_plot.h"
#include "main_window.h"
#include "palette.h"
#include "parameter_panel.h"
#include "process_run.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "screenshot.h"
#include "steps/step_controller.h"

#include <QComboBox>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace tp;

namespace {

LayerConfig meshConfig(LayerConfig c, std::int64_t data, std::optional<OutputLayout> output) {
    c.batch = 4;
    c.dataSize = data;
    c.output = output;
    return c;
}

ScenePtr sceneOf(const LayerConfig& c) {
    return std::make_shared<const Scene>(*computeScene({c, SceneSource::Nnx}));
}

// Columns of a card's output view that hold a value (not NaN) in its first row.
int heldColumns(const DeviceCard* card) {
    const MatrixData& out = card->holdings().arrays.back().data;
    int held = 0;
    for (Index col = 0; col < out.cols(); ++col)
        held += !std::isnan(out(0, col));
    return held;
}

int mod(int a, int p) {
    return ((a % p) + p) % p;
}

}  // namespace

class TestDevicesView : public QObject {
    Q_OBJECT

private slots:
    void oneCardPerDeviceWithItsSpecs_data() {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("data");
        QTest::addColumn<QStringList>("specs");
        QTest::newRow("column D2 tp4") << 0 << 2
                                       << QStringList{"P(None, 'model')", "P('model')",
                                                      "P('data', None)", "P('data', 'model')"};
        QTest::newRow("row D1 tp4")
            << 1 << 1
            << QStringList{"P('model', None)", "P(None)", "P('data', 'model')", "P('data', None)"};
    }
    void oneCardPerDeviceWithItsSpecs() {
        QFETCH(int, mode);
        QFETCH(int, data);
        QFETCH(QStringList, specs);
        const LayerConfig c =
            meshConfig(mode == 0 ? test::kFourGroups : test::kFourGroupsRow, data, std::nullopt);
        DevicesView view;
        view.resize(1200, 800);
        view.show();
        view.setScene(sceneOf(c));
        QCOMPARE(int(view.cards().size()), data * 4);
        for (int d = 0; d < data; ++d)
            for (int m = 0; m < 4; ++m) {
                const DeviceHoldingsView& h = view.card(d, m)->holdings();
                QCOMPARE(h.d, d);
                QCOMPARE(h.m, m);
                QCOMPARE(int(h.arrays.size()), 4);
                QStringList shown;
                for (const HeldArray& a : h.arrays)
                    shown << a.spec;
                QCOMPARE(shown, specs);
            }
        for (const QString& spec : specs.mid(0, 3))
            QVERIFY2(view.headerLabel()->text().contains(spec.toHtmlEscaped()),
                     qPrintable(view.headerLabel()->text()));
    }

    // 8 x 4 cards leave room for the Parameters on a 1366 px screen: the cards scroll sideways
    // instead of widening the window (the tab asked for 1654 px before).
    void manyCardsScrollInsteadOfWideningTheWindow() {
        LayerConfig c{.batch = 4, .inDim = 8, .features = 16, .tpSize = 8};
        c.dataSize = 4;
        DevicesView view;
        view.resize(900, 700);
        view.show();
        view.setScene(sceneOf(c));
        QCOMPARE(int(view.cards().size()), 32);
        const DeviceCard* last = view.card(3, 7);
        QTRY_VERIFY(last->isVisible() && last->width() > 0);  // the cards are laid out
        QVERIFY2(view.minimumSizeHint().width() <= 1366 - 340,
                 qPrintable(QString::number(view.minimumSizeHint().width())));
        auto* scroll = view.findChild<QScrollArea*>(QStringLiteral("deviceGridScroll"));
        QVERIFY(scroll);
        QTRY_VERIFY(scroll->horizontalScrollBar()->maximum() > 0);
        // The last card is reached by scrolling: it lies past the viewport's right edge.
        QVERIFY(last->mapTo(scroll->widget(), QPoint(0, 0)).x() > scroll->viewport()->width());
    }

    void cardsViewTheScenesArraysAndStateTheirBytes() {
        const LayerConfig c = meshConfig(test::kFourGroups, 2, std::nullopt);
        const ScenePtr scene = sceneOf(c);
        DevicesView view;
        view.show();
        view.setScene(scene);
        const DeviceHoldings h = meshCosts(c).perDevice;
        const DeviceHoldingsView& card = view.card(1, 2)->holdings();
        // Views into the scene's own kernel and x: no copies per device.
        QCOMPARE(card.arrays[0].data.data(), scene->params.kernel.data() + 2 * 3);
        QCOMPARE(card.arrays[0].data.cols(), Index(3));
        QCOMPARE(card.arrays[2].data.data(), scene->params.x.data() + 2 * c.inDim);
        QCOMPARE(card.arrays[2].data.rows(), Index(2));
        QCOMPARE(card.arrays[0].bytes, h.kernelBytes);
        QCOMPARE(h.kernelBytes, std::int64_t(8 * 3 * 4));
        QVERIFY2(card.bytesText.contains(
                     QStringLiteral("kernel %1").arg(QString::fromStdString(formatBytes(96)))),
                 qPrintable(card.bytesText));
        QVERIFY(card.bytesText.endsWith(
            QStringLiteral("= %1").arg(QString::fromStdString(formatBytes(totalBytes(h))))));
        QCOMPARE(card.flopsText, QStringLiteral("%L1 FLOPs").arg(2 * 2 * 8 * 3));
        QTRY_VERIFY(!view.card(1, 2)->arrayImage(0).isNull());  // once laid out
    }

    // The devices compute at the same time: every output block appears at one step.
    void outputBlocksAppearWhenEveryDeviceComputes() {
        const LayerConfig c = meshConfig(test::kFourGroups, 2, std::nullopt);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        QCOMPARE(meshProgram(c).size(), 2);  // sharded output: no collective
        for (int step : {0, 1}) {
            view.setStep(step);
            for (int d = 0; d < 2; ++d)
                for (int m = 0; m < 4; ++m)
                    QCOMPARE(view.card(d, m)->holdings().arrays.back().data.isEmpty(), step == 0);
            QVERIFY(view.arrows().empty());
        }
    }

    void allGatherRingStepsMoveChunksAndFillBuffers() {
        const LayerConfig c = meshConfig(test::kFourGroups, 2, OutputLayout::Replicated);
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        view.setScene(sceneOf(c));
        const int computeSteps = 2;  // the start, and every device computing at once
        QCOMPARE(meshProgram(c).size(), computeSteps + 3);
        view.setStep(computeSteps - 1);
        QVERIFY(view.arrows().empty());
        for (int k = 0; k < 3; ++k) {
            view.setStep(computeSteps + k);
            const auto arrows = view.arrows();
            QCOMPARE(int(arrows.size()), 2 * 4);
            for (const DeviceArrow& a : arrows) {
                QCOMPARE(a.to, (a.from + 1) % 4);
                QCOMPARE(a.chunk, mod(a.from - k, 4));
            }
            for (int d = 0; d < 2; ++d)
                for (int m = 0; m < 4; ++m) {
                    const DeviceCard* card = view.card(d, m);
                    QCOMPARE(heldColumns(card), (k + 2) * 3);  // its own chunk plus k + 1 received
                    QCOMPARE(card->holdings().sendsChunk, mod(m - k, 4));
                    QCOMPARE(card->holdings().receivesChunk, mod(m - 1 - k, 4));
                }
        }
        // At the end every device holds its batch rows of the whole output, bit for bit.
        const Scene& s = *view.deviceScene().scene;
        for (int d = 0; d < 2; ++d)
            for (int m = 0; m < 4; ++m) {
                const MatrixData& out = view.card(d, m)->holdings().arrays.back().data;
                for (Index col = 0; col < c.features; ++col)
                    QCOMPARE(out(1, col), s.result.output(2 * d + 1, col));
            }
    }

    // A ring step's arrow runs at the height of the buffer the chunk moves into, not at x's.
    void ringArrowsRunAtTheBuffersRow() {
        const LayerConfig c = meshConfig(test::kFourGroups, 1, OutputLayout::Replicated);
        DevicesView view;
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setScene(sceneOf(c));
        view.setStep(2);  // the first ring step of the all-gather
        QCOMPARE(int(view.arrows().size()), 4);
        const DeviceCard* from = view.card(0, 0);
        const DeviceCard* to = view.card(0, 1);
        QWidget* grid = from->parentWidget();
        QTRY_VERIFY(from->geometry().right() + 3 < to->x());  // the grid laid out
        const int chunk = view.arrows().front().chunk;
        const auto rowOf = [&](int array) {
            return from->y() + from->arrayRect(array).center().y();
        };
        const int buffer = int(from->holdings().arrays.size()) - 1;
        const int x = 2;  // kernel, bias, x, then the buffer
        QVERIFY(std::abs(rowOf(buffer) - rowOf(x)) > 10);
        // Just right of the sending card, clear of the chunk's badge in the middle of the gap.
        const int column = from->geometry().right() + 3;
        QTRY_VERIFY(grid->grab().toImage().pixelColor(column, rowOf(buffer)) == groupColor(chunk));
        QVERIFY(grid->grab().toImage().pixelColor(column, rowOf(x)) != groupColor(chunk));
    }

    void rowAllReduceStepsAddTheBiasBetweenItsHalves() {
        const LayerConfig c = meshConfig(test::kFourGroupsRow, 1, std::nullopt);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        const int first = 2;  // after the start and every device computing at once
        QCOMPARE(collectiveStepCount(c), 3 + 1 + 3);
        view.setStep(first + 1);  // reduce-scatter, second step
        for (const DeviceArrow& a : view.arrows())
            QCOMPARE(a.chunk, mod(a.from - 2, 4));
        view.setStep(first + 3);  // the bias
        QVERIFY(view.arrows().empty());
        QCOMPARE(ringStepInfo(c, 3).phase, RingPhase::AddBias);
        view.setStep(first + 6);
        QCOMPARE(int(view.arrows().size()), 4);
        const Scene& s = *view.deviceScene().scene;
        for (int m = 0; m < 4; ++m) {
            const MatrixData& out = view.card(0, m)->holdings().arrays.back().data;
            for (Index col = 0; col < c.features; ++col)
                QVERIFY(std::fabs(out(0, col) - s.result.output(0, col)) <=
                        1e-6f + 1e-5f * std::fabs(s.result.output(0, col)));
        }
    }

    void costsPanelPlotsTheValidTpSizesAndMarksTheCurrentOne() {
        LayerConfig c = meshConfig(test::kFourGroupsRow, 1, OutputLayout::Sharded);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        TpSweepPlot* plot = view.costsPanel()->plot();
        QCOMPARE(plot->markedTp(), std::int64_t(4));
        // in_dim 8 has divisors 1, 2, 4, 8; the reduce-scatter refuses 8 (12 features).
        std::vector<std::int64_t> tps;
        for (const TpPoint& point : plot->points())
            tps.push_back(point.tp);
        QCOMPARE(tps, (std::vector<std::int64_t>{1, 2, 4}));
        c.tpSize = 2;
        QCOMPARE(plot->points()[1].memoryBytes, totalBytes(meshCosts(c).perDevice));
        QVERIFY(plot->points()[0].wireBytes == 0);
    }

    // Memory and bytes sent have an axis each, with units; a sweep that sends nothing says so
    // rather than scale its axis to a made-up 1 byte.
    void costsPlotLabelsBothAxesAndSaysWhenNothingIsSent() {
        const LayerConfig sharded = meshConfig(test::kFourGroups, 1, OutputLayout::Sharded);
        const std::vector<TpPoint> quiet = tpSweep(sharded);
        QVERIFY(quiet.size() > 1);
        std::int64_t maxMemory = 0;
        for (const TpPoint& point : quiet) {
            QCOMPARE(point.wireBytes, std::int64_t(0));
            maxMemory = std::max(maxMemory, point.memoryBytes);
        }
        const TpAxisText memory = tpAxisText(quiet, false);
        QCOMPARE(memory.title, QStringLiteral("bytes of memory per device (solid)"));
        QCOMPARE(memory.top, QString::fromStdString(formatBytes(maxMemory)));
        QVERIFY(memory.nothing.isEmpty());
        const TpAxisText sent = tpAxisText(quiet, true);
        QCOMPARE(sent.title, QStringLiteral("bytes sent per device (dashed)"));
        QVERIFY2(sent.top.isEmpty(), qPrintable(sent.top));
        QCOMPARE(sent.nothing, QStringLiteral("nothing is sent at any tp"));

        const LayerConfig gathered = meshConfig(test::kFourGroups, 1, OutputLayout::Replicated);
        const std::vector<TpPoint> loud = tpSweep(gathered);
        std::int64_t maxWire = 0;
        for (const TpPoint& point : loud)
            maxWire = std::max(maxWire, point.wireBytes);
        QVERIFY(maxWire > 0);
        QCOMPARE(tpAxisText(loud, true).top, QString::fromStdString(formatBytes(maxWire)));
        QVERIFY(tpAxisText(loud, true).nothing.isEmpty());
        QCOMPARE(formatBytes(1), std::string("1 byte"));

        // The panel's plot shows the sweep it was given.
        DevicesView view;
        view.show();
        view.setScene(sceneOf(sharded));
        QCOMPARE(tpAxisText(view.costsPanel()->plot()->points(), true).nothing, sent.nothing);
    }

    void hardwareChoiceChangesTheEstimate() {
        const LayerConfig c = meshConfig(test::kFourGroups, 2, OutputLayout::Replicated);
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        CostsPanel* costs = view.costsPanel();
        QVERIFY(costs->hardwareBox()->count() >= 3);
        QVERIFY(costs->memoryLabel()->text().contains(
            QString::fromStdString(formatBytes(meshCosts(c).unshardedBytes))));
        const QString before = costs->estimateLabel()->text();
        QSignalSpy changed(costs, &CostsPanel::hardwareChanged);
        costs->hardwareBox()->setCurrentIndex((costs->hardwareBox()->currentIndex() + 1) %
                                              costs->hardwareBox()->count());
        QCOMPARE(changed.count(), 1);
        QVERIFY(costs->estimateLabel()->text() != before);
        const TimeEstimate e = estimateTime(meshCosts(c), costs->hardware());
        QVERIFY2(costs->estimateLabel()->text().contains(durationLabel(e.totalSeconds)),
                 qPrintable(costs->estimateLabel()->text()));
        // The bar's terms are the estimate's: they add up to its total.
        double sum = 0;
        for (const EstimateTerm& term : estimateTerms(e))
            sum += term.seconds;
        QVERIFY(std::abs(sum - e.totalSeconds) <= 1e-12 * e.totalSeconds);
        QVERIFY(costs->estimateBars()->isVisible());
        QVERIFY(costs->estimateBars()->sizeHint().height() > 0);
    }

    // One of a thing is said in the singular: "1 ring step", "1 batch row each".
    void countsOfOneAreSingular() {
        LayerConfig c = meshConfig(test::kFourGroups, 4, OutputLayout::Replicated);
        c.tpSize = 2;  // an all-gather over 2 devices: 1 ring step; 4 rows over D 4: 1 row each
        QCOMPARE(meshCosts(c).collective.ringSteps, std::int64_t(1));
        DevicesView view;
        view.show();
        view.setScene(sceneOf(c));
        const QString wire = view.costsPanel()->wireLabel()->text();
        QVERIFY2(wire.contains(" in 1 ring step (") && !wire.contains("1 ring steps"),
                 qPrintable(wire));
        const QString header = view.headerLabel()->text();
        QVERIFY2(header.contains(", 1 batch row each.") && !header.contains("1 batch rows"),
                 qPrintable(header));
        QCOMPARE(countText(3, QStringLiteral("ring step")), QStringLiteral("3 ring steps"));
        QCOMPARE(countText(0, QStringLiteral("batch row")), QStringLiteral("0 batch rows"));
    }

    void windowStepsIntoTheCollectiveOnTheDevicesTab() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        const LayerConfig c = meshConfig(test::kFourGroups, 2, OutputLayout::Replicated);
        window.viewTabs()->setCurrentWidget(window.devicesView());
        window.show();
        window.showConfig(c, SceneSource::Nnx);
        QTRY_VERIFY(window.scene() && window.scene()->config.dataSize == 2);
        QCOMPARE(window.viewTabs()->tabText(1), QStringLiteral("Devices"));
        StepController* steps = window.stepController();
        QCOMPARE(steps->stepCount(), meshProgram(c).size());
        steps->setStep(2 + 1);
        QCOMPARE(int(window.devicesView()->arrows().size()), 8);
        QVERIFY2(window.equationLabel()->text().startsWith("all-gather 2/3"),
                 qPrintable(window.equationLabel()->text()));
    }

    void parameterPanelTakesDataAndOutputAndSaysWhyItRefuses() {
        ParameterPanel panel;
        panel.setConfig(meshConfig(test::kFourGroupsRow, 1, std::nullopt), SceneSource::Nnx);
        QSignalSpy edited(&panel, &ParameterPanel::configEdited);
        auto* data = panel.findChild<QSpinBox*>("dataBox");
        auto* output = panel.findChild<QComboBox*>("outputBox");
        QVERIFY(data && output);
        data->setValue(2);
        QCOMPARE(edited.count(), 1);
        QCOMPARE(panel.config().dataSize, std::int64_t(2));
        data->setValue(3);  // batch 4
        QVERIFY2(panel.problemText(ConfigField::Data).contains("not divisible"),
                 qPrintable(panel.problemText(ConfigField::Data)));
        data->setValue(4);
        QVERIFY(panel.problemText(ConfigField::Data).isEmpty());
        output->setCurrentIndex(1);  // sharded: a reduce-scatter over 12 features, tp 4
        QCOMPARE(panel.config().output, std::optional(OutputLayout::Sharded));
        QVERIFY(panel.problems().empty());
        auto* tp = panel.findChild<QComboBox*>("tpBox");
        tp->setCurrentText("8");  // 12 features do not split 8 ways
        QVERIFY(!panel.problemText(ConfigField::Output).isEmpty());
    }

    void viewOptionIsParsedAndRefusedInWords() {
        QCOMPARE(parseAppCommandLine({"--view", "devices"}).view, CentreView::Devices);
        QCOMPARE(parseAppCommandLine({}).view, CentreView::Layer);
        QVERIFY(!parseAppCommandLine({"--view", "devices"}).sceneGiven);
        const AppCommandLine bad = parseAppCommandLine({"--view", "mesh"});
        QCOMPARE(int(bad.errors.size()), 1);
        QVERIFY(QString::fromStdString(bad.errors[0]).contains("layer and devices"));
    }

    void screenshotOfTheDevicesView() {
        QTemporaryDir dir;
        const QStringList scene{"--tp",     "4",          "--data", "2",
                                "--output", "replicated", "--step", "3"};
        QStringList files;
        for (const QString view : {"devices", "layer"}) {
            files << dir.filePath(view + ".png");
            const test::ProcessRun run =
                test::runProcess(QStringLiteral(TPVIZ_APP_PATH),
                                 QStringList{"--screenshot", files.back(), "--view", view} + scene,
                                 {.environment = {{"QT_QPA_PLATFORM", "offscreen"}}});
            QVERIFY2(run.exitCode == 0, qPrintable(run.errText()));
        }
        const QImage devices(files[0]), layer(files[1]);
        QCOMPARE(devices.size(), kScreenshotSize);
        QVERIFY(devices != layer);
    }
};

QTEST_MAIN(TestDevicesView)
#include "tst_devices_view.moc"
