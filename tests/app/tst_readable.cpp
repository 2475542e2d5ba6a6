// Readable at the size the window opens: on a 1366x768, a 1600x1000 and a 1920x1080 screen the
// default scene prints every value of x, the kernel, the bias and the outputs in its cells, the
// kernel gets the most room, no empty band wider than a kernel column separates x from the
// kernel, the titles and the check are whole, and the warning beside the outputs contrasts with a
// dark window. A short window (1100x600) folds the explanations away and the kernel grows; at
// 800x500 the kernel still prints its numbers; a tall one shows the explanations; a window
// shrunk and grown back gives the Parameters their opening width, opened at its default size or
// from saved geometry.

#include "app_settings.h"
#include "cell_text.h"
#include "heatmap_legend.h"
#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "output_panel.h"
#include "step_controller.h"
#include "verification_view.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFontMetricsF>
#include <QLabel>
#include <QLayout>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace tp;

namespace {

struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(QSize screen) {
        window.openOn(screen);
        window.show();
    }
    std::vector<MatrixView*> views() const {
        const LayerPanel* layer = window.layerPanel();
        const OutputPanel* output = window.outputPanel();
        return {layer->inputView(),    layer->kernelView(),  layer->biasView(),
                output->partialView(), output->resultView(), output->referenceView()};
    }
};

/// The default scene in either mode with a bias that every mistake shows in; tp 4 divides in_dim,
/// as slice-x needs.
LayerConfig sceneOf(bool row) {
    LayerConfig config;
    config.bias = *parseBiasInit("normal:0.5");
    config.mode = row ? ParallelMode::Row : ParallelMode::Column;
    config.tpSize = 4;
    return config;
}

/// The area the cells of `view` take on screen.
qreal cellArea(const MatrixView* view) {
    const MatrixLayout l = view->layout();
    return l.cell.width() * qreal(l.rows) * l.cell.height() * qreal(l.cols);
}

/// Whether the title of `view` is drawn whole: its bold caption fits left of the colour ramp
/// (title_row.cpp keeps 8 px before the ramp, or 8 px at the right without one).
bool titleWhole(const MatrixView* view) {
    const MatrixLayout l = view->layout();
    const QRectF ramp = view->scaleRampRect(l);
    const qreal room = l.title.width() - (ramp.isEmpty() ? 8 : l.title.right() - ramp.left() + 8);
    QFont bold = view->font();
    bold.setBold(true);
    return QFontMetricsF(bold).horizontalAdvance(view->title()) <= room;
}

}  // namespace

class TestReadable : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // A window opened from saved geometry reads and writes settings: the test's own.
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("tpviz-test");
        QCoreApplication::setApplicationName("tst_readable");
    }

    void atTheOpeningSize_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("1366x768") << QSize(1366, 768);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }

    void atTheOpeningSize() {
        QFETCH(QSize, screen);
        Window w(screen);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        StepController* steps = w.window.stepController();
        steps->setStep(steps->lastStep());  // every output complete
        const LayerPanel* layer = w.window.layerPanel();
        MatrixView* x = layer->inputView();
        MatrixView* kernel = layer->kernelView();
        // x sits beside the kernel: between x's last column and the kernel's first, less than a
        // kernel column of empty space.
        const auto gapAfterX = [&] {
            const Index last = x->matrix().cols() - 1;
            const QPointF xRight = x->cellRect(0, last).topRight();
            const QPointF kernelLeft = kernel->cellRect(0, 0).topLeft();
            return kernel->viewport()->mapTo(&w.window, kernelLeft.toPoint()).x() -
                   x->viewport()->mapTo(&w.window, xRight.toPoint()).x();
        };
        // The kernel fills its width: the empty space right of it is less than a column.
        const auto gapAfterKernel = [&] {
            const qreal right =
                kernel->cellRect(0, kernel->matrix().cols() - 1).right() + MatrixLayout::kMargin;
            return kernel->viewport()->width() - right;
        };
        // Layouts settle over a few events after the step: wait for the conditions, not a time.
        QTRY_VERIFY2(gapAfterX() < kernel->cellSize().width(),
                     qPrintable(QStringLiteral("%1 px").arg(gapAfterX())));
        QTRY_VERIFY2(gapAfterKernel() < kernel->cellSize().width(),
                     qPrintable(QStringLiteral("%1 px").arg(gapAfterKernel())));
        // The check's verdict and figures are whole (the warning over it folds away first).
        const VerificationView* check = w.window.outputPanel()->verificationView();
        QTRY_VERIFY2(check->height() >= check->heightForWidth(check->width()),
                     qPrintable(QStringLiteral("%1 of %2 px")
                                    .arg(check->height())
                                    .arg(check->heightForWidth(check->width()))));
        for (MatrixView* view : w.views()) {
            const QByteArray name = view->objectName().toUtf8();
            QTRY_VERIFY2(view->cellNumbersShown(), name.constData());
            QVERIFY2(view->numberPixelSize() >= kMinNumberPixelSize, name.constData());
            QTRY_VERIFY2(titleWhole(view), qPrintable(view->title()));
            if (view != kernel)
                QVERIFY2(cellArea(kernel) > cellArea(view), name.constData());
        }
    }

    // Row mode's outputs are all (N, features): the partial sum prints its numbers as the running
    // sum, y and the reference do (it used to get 2/5 of the width and hide them at 1600x1000).
    void rowOutputsPrintAtTheOpeningSize_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("1600x1000") << QSize(1600, 1000);
        QTest::newRow("1920x1080") << QSize(1920, 1080);
    }
    void rowOutputsPrintAtTheOpeningSize() {
        QFETCH(QSize, screen);
        Window w(screen);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        LayerConfig row;
        row.mode = ParallelMode::Row;
        row.tpSize = 2;  // where tp 3 moves when the mode switches to row
        w.window.showConfig(row, SceneSource::Nnx);
        QTRY_VERIFY(w.window.scene()->config.mode == ParallelMode::Row &&
                    !w.window.computer()->hasPendingRequest() && !w.window.computer()->isBusy());
        StepController* steps = w.window.stepController();
        steps->setStep(steps->lastStep());
        const OutputPanel* output = w.window.outputPanel();
        for (MatrixView* view : {output->partialView(), output->resultView(), output->finalView(),
                                 output->referenceView()}) {
            const QByteArray name = view->objectName().toUtf8();
            QTRY_VERIFY2(view->cellNumbersShown(),
                         qPrintable(name + " " + QByteArray::number(view->cellSize().width())));
            QTRY_VERIFY2(titleWhole(view), qPrintable(view->title()));
        }
    }

    // Every mistake says so in red beside the outputs at the opening size: init-per-group's
    // warning, the longest, used to fold away whole; its headline now stands in for it.
    void mistakeHeadlineAtTheOpeningSize_data() {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<int>("mistake");
        QTest::addColumn<bool>("row");
        for (const QSize screen : {QSize(1366, 768), QSize(1600, 1000)}) {
            const QByteArray size =
                QByteArray::number(screen.width()) + "x" + QByteArray::number(screen.height());
            for (const Mistake m : blockMistakes(Block::Linear))
                for (const bool row : {false, true})
                    if (mistakeProblems(sceneOf(row), m).empty())
                        QTest::newRow(size + " " + QByteArray(toString(m).data()) +
                                      (row ? " row" : " column"))
                            << screen << int(m) << row;
        }
    }
    void mistakeHeadlineAtTheOpeningSize() {
        QFETCH(QSize, screen);
        QFETCH(int, mistake);
        QFETCH(bool, row);
        Window w(screen);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        SceneRun run;
        run.mistake = Mistake(mistake);
        w.window.showConfig(sceneOf(row), SceneSource::Nnx, run);
        QTRY_VERIFY(w.window.scene()->mistake == Mistake(mistake) &&
                    !w.window.computer()->hasPendingRequest() && !w.window.computer()->isBusy());
        const QLabel* warning = w.window.outputPanel()->warningLabel();
        const QString head = "✘ Mistake " + mistakeName(Mistake(mistake)) + ":";
        QTRY_VERIFY2(warning->isVisible() && warning->text().contains(head),
                     qPrintable(warning->text()));
        // The check stays whole beside it.
        const VerificationView* check = w.window.outputPanel()->verificationView();
        QTRY_VERIFY(check->height() >= check->heightForWidth(check->width()));
    }

    // A short window folds the explanations away, and x, the kernel and the outputs get the room.
    void explanationsFoldWhenShort() {
        Window w(QSize(1100, 600));
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        LayerPanel* layer = w.window.layerPanel();
        OutputPanel* output = w.window.outputPanel();
        const MatrixView* x = layer->inputView();
        const MatrixView* kernel = layer->kernelView();
        const auto* trace = layer->findChild<QWidget*>(QStringLiteral("tracePanel"));
        const auto* note = layer->findChild<QWidget*>(QStringLiteral("inputNote"));
        const auto* waiting = output->findChild<QWidget*>(QStringLiteral("verificationNumbers"));
        QTRY_VERIFY(!layer->explanationsShown());
        QTRY_VERIFY(!note->isVisible() && !trace->isVisible() && !waiting->isVisible());
        QVERIFY(!output->warningLabel()->isVisible());
        QVERIFY(output->verificationView()->isVisible());
        QTRY_VERIFY(cellArea(kernel) > cellArea(x));
        const qreal folded = cellArea(kernel);
        const QSizeF foldedCell = kernel->layout().cell;
        // The same window with the explanations shown: the kernel had less room.
        auto* caption = w.window.findChild<QLabel*>(QStringLiteral("captionLabel"));
        QVERIFY(!caption->isVisible());
        caption->show();
        layer->setExplanationsShown(true);
        output->setExplanationsShown(true);
        QTRY_VERIFY(cellArea(kernel) < folded);
        const QSizeF shownCell = kernel->layout().cell;
        qInfo(
            "kernel cells at 1100x600: %.1fx%.1f px (%.0f px² in all) folded, %.1fx%.1f px "
            "(%.0f px²) shown; x %.0f px²",
            foldedCell.width(), foldedCell.height(), folded, shownCell.width(), shownCell.height(),
            cellArea(kernel), cellArea(x));
        // A trace shows even in a short window.
        layer->setExplanationsShown(false);
        layer->traceOutput(0, 0);
        QVERIFY(trace->isVisible());
    }

    // An 800x500 window, opened so on a small screen or shrunk to it: the explanations fold and
    // the kernel gets the height its numbers need first, so that it prints every value; the
    // outputs keep their titles and cells in the rest.
    void kernelPrintsWhenShort_data() {
        QTest::addColumn<QSize>("screen");
        QTest::newRow("opened on 824x548") << QSize(824, 548);
        QTest::newRow("shrunk from 1600x1000") << QSize(1600, 1000);
    }

    void kernelPrintsWhenShort() {
        QFETCH(QSize, screen);
        Window w(screen);
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        w.window.stepController()->setStep(w.window.stepController()->lastStep());
        w.window.resize(800, 500);
        QTRY_COMPARE(w.window.height(), 500);
        QVERIFY2(w.window.width() <= 801, qPrintable(QString::number(w.window.width())));
        const MatrixView* kernel = w.window.layerPanel()->kernelView();
        QTRY_VERIFY2(kernel->cellNumbersShown(), qPrintable(QStringLiteral("kernel cells %1x%2 px")
                                                                .arg(kernel->cellSize().width())
                                                                .arg(kernel->cellSize().height())));
        QVERIFY(kernel->numberPixelSize() >= kMinNumberPixelSize);
        for (MatrixView* view : w.views()) {
            QVERIFY2(view->isVisible() && cellArea(view) > 0, qPrintable(view->objectName()));
            QVERIFY2(view->layout().title.height() > 0, qPrintable(view->title()));
        }
        qInfo("at %dx%d the kernel's cells are %.1fx%.1f px, numbers at %d px", w.window.width(),
              w.window.height(), kernel->cellSize().width(), kernel->cellSize().height(),
              kernel->numberPixelSize());
    }

    // In x's narrow column beside a 1024 x 4096 kernel the legend's caption wraps rather than
    // being cut: every word shows, and the legend is tall enough for all of its lines.
    void legendCaptionWholeInANarrowColumn() {
        Window w(QSize(1600, 1000));
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        w.window.showConfig({.batch = 2, .inDim = 1024, .features = 4096, .tpSize = 4},
                            SceneSource::Nnx);
        QTRY_COMPARE(w.window.scene()->config.features, 4096);
        auto* legend = w.window.layerPanel()->findChild<HeatmapLegend*>();
        QVERIFY(legend->captionShown());
        const QString caption = QStringLiteral(
            "negative = dark \u00b7 zero = white \u00b7 "
            "positive = vivid");
        const QFontMetricsF metrics(legend->font());
        // The new scene's columns take their widths once the layout runs after the scene shows.
        QTRY_VERIFY2(metrics.horizontalAdvance(caption) > legend->width(),
                     "the caption fits one line: the column is not narrow");
        const QStringList lines = legend->captionLines(legend->width());
        QCOMPARE(lines.join(QStringLiteral(" \u00b7 ")), caption);
        for (const QString& line : lines)
            QVERIFY2(metrics.horizontalAdvance(line) <= legend->width(), qPrintable(line));
        QTRY_VERIFY2(legend->height() >= legend->heightForWidth(legend->width()),
                     qPrintable(QStringLiteral("%1 of %2 px")
                                    .arg(legend->height())
                                    .arg(legend->heightForWidth(legend->width()))));
    }

    // A mistake in row mode puts a fourth array, the error map, beside the reference: at the
    // screenshot's size every output title is whole (the columns share the width by their
    // titles), as at the opening size.
    void titlesWholeWithAMistake_data() {
        QTest::addColumn<int>("mistake");
        QTest::newRow("row bias-per-partial") << int(Mistake::BiasPerPartial);
    }

    void titlesWholeWithAMistake() {
        QFETCH(int, mistake);
        Window w(QSize(1600, 1000));
        w.window.resize(1600, 1000);  // as tpviz --screenshot
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        SceneRun run;
        run.mistake = Mistake(mistake);
        w.window.showConfig(
            {.batch = 2, .inDim = 8, .features = 12, .tpSize = 2, .mode = ParallelMode::Row},
            SceneSource::Nnx, run);
        QTRY_VERIFY(w.window.scene()->mistake == Mistake(mistake));
        w.window.stepController()->setStep(w.window.stepController()->lastStep());
        const OutputPanel* output = w.window.outputPanel();
        QTRY_VERIFY(output->errorView()->isVisible());
        for (const MatrixView* view :
             {output->partialView(), output->resultView(), output->finalView(),
              output->referenceView(), output->errorView()})
            QTRY_VERIFY2(titleWhole(view), qPrintable(view->objectName() + ": " + view->title()));
    }

    // Heights around the thresholds, up and down: the decision follows the picture's height with
    // its hysteresis, and folding (which makes the picture a caption line taller) never flips it.
    void foldingFollowsTheHeight() {
        Window w(QSize(1600, 1000));
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        const LayerPanel* layer = w.window.layerPanel();
        const QWidget* picture = layer->parentWidget();
        const auto consistent = [&] {
            return layer->explanationsShown()
                       ? picture->height() >= MainWindow::kFoldExplanationsBelow
                       : picture->height() < MainWindow::kShowExplanationsFrom;
        };
        int folds = 0;
        bool shown = layer->explanationsShown();
        for (int height : {900, 820, 780, 760, 740, 720, 700, 680, 660, 640,
                           620, 640, 660, 680, 700, 720, 740, 760, 800, 900}) {
            w.window.resize(1300, height);
            QTRY_COMPARE(w.window.height(), height);
            QTRY_VERIFY2(consistent(), qPrintable(QStringLiteral("picture %1 px, shown %2")
                                                      .arg(picture->height())
                                                      .arg(layer->explanationsShown())));
            folds += layer->explanationsShown() != shown;
            shown = layer->explanationsShown();
        }
        QCOMPARE(folds, 2);  // folded once on the way down, shown once on the way up
    }

    void explanationsShowWhenTall() {
        Window w(QSize(1600, 1000));
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        const LayerPanel* layer = w.window.layerPanel();
        QTRY_VERIFY(layer->explanationsShown());
        for (const char* name : {"inputNote", "biasNote", "tracePanel"})
            QTRY_VERIFY2(layer->findChild<QWidget*>(QLatin1String(name))->isVisible(), name);
        QTRY_VERIFY(w.window.outputPanel()
                        ->findChild<QWidget*>(QStringLiteral("verificationNumbers"))
                        ->isVisible());
    }

    // A window shrunk to 800x500 and grown back gives the Parameters their opening width.
    void parametersWidenAgain() {
        Window w(QSize(1600, 1000));
        QVERIFY(QTest::qWaitForWindowExposed(&w.window));
        QTRY_VERIFY(w.window.scene());
        const auto* dock = w.window.findChild<QWidget*>(QStringLiteral("parameterDock"));
        const int opening = dock->width();
        w.window.resize(800, 500);
        QTRY_VERIFY(dock->width() < opening);
        const int narrow = dock->width();
        w.window.resize(MainWindow::openingSize(QSize(1600, 1000)));
        QTRY_VERIFY2(
            dock->width() >= opening,
            qPrintable(QStringLiteral("%1 px, %2 at opening").arg(dock->width()).arg(opening)));
        qInfo("Parameters dock: %d px at opening, %d px at 800x500, %d px grown back", opening,
              narrow, dock->width());
    }

    // A window opened from its saved geometry, shrunk and grown again, gives the Parameters dock
    // back the width they need, as one opened at its default size does.
    void parametersWidenAgainFromSavedGeometry() {
        QSettings().clear();
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QTRY_VERIFY(window.scene());
            window.close();  // saves the geometry and the docks
        }
        QVERIFY(QSettings().contains("window/geometry"));
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QTRY_VERIFY(again.scene());
        const auto* dock = again.findChild<QWidget*>("parameterDock");
        again.resize(640, 500);
        QTRY_VERIFY(dock->width() < 300);
        const int narrow = dock->width();
        again.resize(1400, 900);
        QTRY_VERIFY2(
            dock->width() >= 310,
            qPrintable(
                QStringLiteral("%1 px grown back, %2 px narrow").arg(dock->width()).arg(narrow)));
        again.close();
        QSettings().clear();
    }

    void warningContrastsWithADarkWindow() {
        applyTheme(Theme::Dark);
        Window w(QSize(1600, 1000));
        QTRY_VERIFY(w.window.scene());
        const QLabel* warning = w.window.outputPanel()->warningLabel();
        const QRgb window = warning->palette().color(QPalette::Window).rgb();
        const QRegularExpression colour(QStringLiteral("color:\\s*(#[0-9a-fA-F]{6})"));
        int colours = 0;
        for (const auto& match : colour.globalMatch(warning->text())) {
            ++colours;
            const QRgb text = QColor(match.captured(1)).rgb();
            QVERIFY2(contrastRatio(text, window) >= 4.5, qPrintable(match.captured(1)));
        }
        QVERIFY(colours > 0);
        applyTheme(Theme::Light);
        QTRY_VERIFY(!warning->text().contains(QStringLiteral("#ffb366")));
    }

    // The Parameters panel scrolls up and down only: an input brought into view leaves it at the
    // left (Tab once scrolled it left by the vertical bar's width, cutting every group's title).
    void theParametersNeverScrollSideways() {
        Window w(QSize(1600, 1000));
        QTRY_VERIFY(w.window.scene());
        auto* dock = w.window.findChild<QDockWidget*>("parameterDock");
        auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
        QVERIFY(scroll);
        QWidget* panel = scroll->widget();
        // Narrowed by the user: the panel is wider than its dock.
        w.window.resizeDocks({dock}, {200}, Qt::Horizontal);
        QTRY_VERIFY(scroll->horizontalScrollBar()->maximum() > 0);
        // As Tab brings the next input into view (QScrollArea::focusNextPrevChild).
        scroll->ensureWidgetVisible(panel->findChild<QComboBox*>("prngBox"));
        QCOMPARE(scroll->horizontalScrollBar()->value(), 0);
    }

    // A million rows of x fit the picture without a Qt warning: the input's height is held at
    // Qt's largest (it asked for more, and Qt printed "The largest allowed size is ...").
    void aMillionRowsAskNoMoreThanQtAllows() {
        QTest::failOnWarning(QRegularExpression("largest allowed size"));
        Window w(QSize(1600, 1000));
        w.window.showConfig({.batch = 1000000, .inDim = 8, .features = 12, .tpSize = 3},
                            SceneSource::Nnx);
        QTRY_VERIFY(w.window.scene() && w.window.scene()->config.batch == 1000000);
        w.window.stepController()->goToEnd();
        QCoreApplication::processEvents();
    }
};

QTEST_MAIN(TestReadable)
#include "tst_readable.moc"
