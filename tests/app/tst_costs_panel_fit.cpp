// The devices tab's costs panel in the window at its opening sizes: every wrapped label, the
// estimate's bars and the layouts' table get the height their width needs and stay inside the
// panel, whatever height is left for the plots.

#include "config_fixtures.h"
#include "devices/costs_panel.h"
#include "devices/devices_view.h"
#include "devices/estimate_bars.h"
#include "main_window.h"

#include <QLabel>
#include <QScrollArea>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextOption>
#include <QTextTable>

#include <algorithm>

using namespace tp;

namespace {

// `widget`'s rectangle in `panel`'s coordinates.
QRect rectIn(const QWidget* widget, const QWidget* panel) {
    return QRect(widget->mapTo(panel, QPoint(0, 0)), widget->size());
}

// The lines of each one-column cell of the table in `document` as laid out.
QList<int> cellLines(QTextDocument* document) {
    QList<int> lines;
    for (QTextFrame* frame : document->rootFrame()->childFrames()) {
        auto* table = qobject_cast<QTextTable*>(frame);
        for (int r = 0; table && r < table->rows(); ++r)
            for (int c = 0; c < table->columns(); ++c) {
                const QTextTableCell cell = table->cellAt(r, c);
                if (cell.columnSpan() != 1)
                    continue;
                int n = 0;
                for (QTextBlock b = cell.firstCursorPosition().block();
                     b.isValid() && b.position() <= cell.lastPosition(); b = b.next())
                    n += b.layout()->lineCount();
                lines << n;
            }
    }
    return lines;
}

}  // namespace

class TestCostsPanelFit : public QObject {
    Q_OBJECT

private slots:
    void everyLineShowsAtTheOpeningSizes_data() {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<bool>("backward");
        QTest::newRow("1600x1000") << QSize(1600, 1000) << false;
        QTest::newRow("1600x1000 backward") << QSize(1600, 1000) << true;
        QTest::newRow("1280x720 backward") << QSize(1280, 720) << true;
    }

    void everyLineShowsAtTheOpeningSizes() {
        QFETCH(QSize, screen);
        QFETCH(bool, backward);
        MainWindow window(MainWindow::Options{.useSettings = false});
        window.openOn(screen);
        window.viewTabs()->setCurrentWidget(window.devicesView());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        CostsPanel* costs = window.devicesView()->costsPanel();
        // The longest estimate: a row split's all-reduce on the calibrated machine, which adds
        // the sums to the bars.
        QVERIFY(costs->selectHardware(QStringLiteral("this-machine")));
        const LayerConfig c =
            test::meshConfig(ParallelMode::Row, 64, 1024, 4096, 4, 1, OutputLayout::Replicated);
        SceneRun run;
        run.backward = backward;
        window.showConfig(c, SceneSource::Nnx, run);
        QTRY_VERIFY(window.scene() && window.scene()->config.inDim == 1024);
        QTRY_VERIFY(costs->layoutsLabel()->isVisible());
        QVERIFY2(costs->estimateLabel()->text().count(QLatin1Char('\n')) >= 2,
                 qPrintable(costs->estimateLabel()->text()));

        const QList<QWidget*> wrapped{costs->memoryLabel(),   costs->wireLabel(),
                                      costs->backwardLabel(), costs->estimateLabel(),
                                      costs->estimateBars(),  costs->layoutsLabel()};
        // The scroll area settles over a few posted layout requests (its scroll bar narrows
        // the content once it shows).
        const auto fits = [&wrapped] {
            return std::ranges::all_of(wrapped, [](const QWidget* w) {
                return !w->isVisible() || w->height() >= w->heightForWidth(w->width());
            });
        };
        // When they never do, the loop below says which does not fit.
        [[maybe_unused]] const bool settled = QTest::qWaitFor(fits, 500);
        const QWidget* viewport =
            costs->findChild<QScrollArea*>(QStringLiteral("costsScroll"))->viewport();
        // Nothing is wider than what the panel shows: it does not scroll sideways.
        QVERIFY2(
            viewport->findChild<QWidget*>(QStringLiteral("costsContent"))->width() <=
                viewport->width(),
            qPrintable(
                QStringLiteral("the content is %1 px wide, the panel shows %2 px")
                    .arg(viewport->findChild<QWidget*>(QStringLiteral("costsContent"))->width())
                    .arg(viewport->width())));
        for (QWidget* w : wrapped) {
            if (!w->isVisible())
                continue;
            QVERIFY2(w->height() >= w->heightForWidth(w->width()),
                     qPrintable(QStringLiteral("%1 is %2 px high at %3 px wide, needs %4")
                                    .arg(w->objectName())
                                    .arg(w->height())
                                    .arg(w->width())
                                    .arg(w->heightForWidth(w->width()))));
            // Inside what the panel shows: nothing runs off the right edge of its scroll area's
            // viewport, whose vertical scroll bar takes the panel's last pixels.
            QVERIFY2(rectIn(w, viewport).right() < viewport->width(),
                     qPrintable(QStringLiteral("%1 ends at x %2, the panel shows %3 px")
                                    .arg(w->objectName())
                                    .arg(rectIn(w, viewport).right())
                                    .arg(viewport->width())));
        }
        // The table keeps its figures whole: each one-column cell of the label's document, as
        // drawn, has as many lines as with all the width it wants (a column narrower than its
        // figures breaks "4.1 MiB" inside its number).
        QLabel* table = costs->layoutsLabel();
        table->grab();
        QTextDocument* drawn = table->findChild<QTextDocument*>();
        QVERIFY(drawn);
        QTextDocument wide;
        wide.setDefaultFont(table->font());
        wide.setHtml(table->text());
        wide.setTextWidth(10000);
        wide.size();  // lays it out
        QVERIFY2(cellLines(drawn) == cellLines(&wide),
                 qPrintable(QStringLiteral("the table's cells wrap at %1 px")
                                .arg(table->contentsRect().width())));
        // The plots keep a readable height.
        QVERIFY2(costs->plotTabs()->height() >= 200,
                 qPrintable(QString::number(costs->plotTabs()->height())));
    }
};

QTEST_MAIN(TestCostsPanelFit)
#include "tst_costs_panel_fit.moc"
