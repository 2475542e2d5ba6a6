// The words of the window, as a user reads them: a group's block of output columns is a "block"
// in column mode and "partial" stays for row mode's partial sums; nothing speaks of a brief the
// user never saw; one of a thing is said in the singular.

#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "output_panel.h"
#include "panels/python_dialog.h"
#include "step_controller.h"

#include <QAbstractButton>
#include <QAction>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

using namespace tp;

namespace {

struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config, SceneSource source = SceneSource::Nnx) {
        window.resize(1400, 900);
        window.showConfig(config, source);
        window.show();
    }
    OutputPanel* output() const { return window.outputPanel(); }
    bool settled() const {
        return window.scene() && !window.computer()->isBusy() &&
               !window.computer()->hasPendingRequest();
    }
    bool choose(Mistake mistake) {
        auto* box = window.findChild<QComboBox*>("mistakeBox");
        box->setCurrentIndex(box->findData(mistakeName(mistake)));
        return QTest::qWaitFor([&] { return settled() && window.scene()->mistake == mistake; });
    }
    /// What the outputs and the step say now: the titles, the warning, the equation, the caption
    /// and the hover text of the current group's block or partial sum.
    QStringList outputWords() const {
        QStringList words;
        for (MatrixView* view : {output()->partialView(), output()->resultView(),
                                 output()->finalView(), output()->referenceView()})
            words << view->title();
        words << output()->warningLabel()->text() << window.equationLabel()->text();
        if (auto* caption = window.findChild<QLabel*>("captionLabel"))
            words << caption->text();
        QSignalSpy hover(output(), &OutputPanel::hoverText);
        emit output()->partialView()->cellHovered(0, 0, 1.0f, 0);
        if (!hover.isEmpty())
            words << hover.first().at(0).toString();
        return words;
    }
};

LayerConfig withBias(LayerConfig config) {
    config.bias = *parseBiasInit("normal:0.5");
    return config;
}

/// Every text of `root` and its children a user can read: labels, buttons, group boxes, combo
/// items, tabs, editors, tooltips, status tips and actions.
QStringList textsOf(QWidget* root) {
    QStringList texts;
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    for (QWidget* w : widgets) {
        texts << w->toolTip() << w->statusTip() << w->whatsThis() << w->windowTitle();
        if (auto* label = qobject_cast<QLabel*>(w))
            texts << label->text();
        if (auto* button = qobject_cast<QAbstractButton*>(w))
            texts << button->text();
        if (auto* box = qobject_cast<QGroupBox*>(w))
            texts << box->title();
        if (auto* edit = qobject_cast<QPlainTextEdit*>(w); edit && edit->isVisible())
            texts << edit->toPlainText().section('\n', 0, 0);  // code aside: its first line
        if (auto* combo = qobject_cast<QComboBox*>(w))
            for (int i = 0; i < combo->count(); ++i)
                texts << combo->itemText(i) << combo->itemData(i, Qt::ToolTipRole).toString();
        if (auto* tabs = qobject_cast<QTabWidget*>(w))
            for (int i = 0; i < tabs->count(); ++i)
                texts << tabs->tabText(i) << tabs->tabToolTip(i);
    }
    for (QAction* action : root->findChildren<QAction*>())
        texts << action->text() << action->toolTip() << action->statusTip();
    return texts;
}

QStringList speakingOfTheBrief(const QStringList& texts) {
    static const QRegularExpression brief(QStringLiteral("\\bbrief\\b"),
                                          QRegularExpression::CaseInsensitiveOption);
    QStringList found;
    for (const QString& text : texts)
        if (text.contains(brief))
            found << text;
    return found;
}

}  // namespace

class TestWords : public QObject {
    Q_OBJECT

private slots:
    // Column mode: group i's (N, chunk) result is its block of output columns, never a "partial"
    // beside the warning's "not partial sums"; with or without a mistake, at every step.
    void columnModeSaysBlock_data() {
        QTest::addColumn<int>("mistake");
        QTest::newRow("none") << int(Mistake::None);
        QTest::newRow("sum-groups") << int(Mistake::SumGroups);
        QTest::newRow("slice-x") << int(Mistake::SliceX);
        QTest::newRow("init-per-group") << int(Mistake::InitPerGroup);
    }
    void columnModeSaysBlock() {
        QFETCH(int, mistake);
        LayerConfig config = withBias(LayerConfig{});
        config.tpSize = 4;
        Window w(config);
        QTRY_VERIFY(w.settled());
        QVERIFY(w.choose(Mistake(mistake)));
        StepController* steps = w.window.stepController();
        for (int step = 0; step < steps->stepCount(); ++step) {
            steps->setStep(step);
            for (QString words : w.outputWords()) {
                const QString said = words;
                words.remove(QStringLiteral("partial sums"), Qt::CaseInsensitive);
                QVERIFY2(!words.contains(QStringLiteral("partial"), Qt::CaseInsensitive),
                         qPrintable(QStringLiteral("step %1: %2").arg(step).arg(said)));
            }
        }
        steps->setStep(2);
        QVERIFY2(w.output()->partialView()->title().startsWith("block 1 = "),
                 qPrintable(w.output()->partialView()->title()));
    }

    // Row mode keeps its partial sums, and says "1 partial sum", not "1 partials".
    void rowModeSaysPartialSumsInTheSingularForOne() {
        LayerConfig config = withBias(LayerConfig{});
        config.mode = ParallelMode::Row;
        config.tpSize = 4;
        Window w(config);
        QTRY_VERIFY(w.settled());
        StepController* steps = w.window.stepController();
        steps->setStep(1);
        QVERIFY2(w.output()->partialView()->title().startsWith("partial sum of group 0"),
                 qPrintable(w.output()->partialView()->title()));
        QCOMPARE(w.output()->resultView()->title(),
                 QStringLiteral("running sum of 1 partial sum  (2, 12)"));
        steps->setStep(2);
        QCOMPARE(w.output()->resultView()->title(),
                 QStringLiteral("running sum of 2 partial sums  (2, 12)"));
        QVERIFY(w.choose(Mistake::ConcatPartials));
        steps->setStep(1);
        QVERIFY2(w.output()->resultView()->title().startsWith(
                     "concatenate(partial sums) of 1 partial sum  "),
                 qPrintable(w.output()->resultView()->title()));
        // One group: "1 group", also in the status bar's timing.
        config.tpSize = 1;
        w.window.showConfig(config, SceneSource::Nnx);
        QTRY_VERIFY(w.settled() && w.window.scene()->config.tpSize == 1);
        QVERIFY2(w.window.timingLabel()->text().contains("kernel, 1 group: computed"),
                 qPrintable(w.window.timingLabel()->text()));
    }

    // The window, its Python dialog and its refusals speak of the worked example and of common
    // mistakes, never of "the brief".
    void nothingSpeaksOfTheBrief() {
        Window w(withBias(LayerConfig{}));
        QTRY_VERIFY(w.settled());
        QStringList texts = textsOf(&w.window);
        PythonDialog* snippet = w.window.showPythonSnippet();
        texts << textsOf(snippet);
        snippet->close();
        // The worked example, its Python dialog, and init-per-group refused on it.
        w.window.showConfig(briefExampleConfig(), SceneSource::Brief);
        QTRY_VERIFY(w.settled() && w.window.scene()->source == SceneSource::Brief);
        texts << textsOf(&w.window);
        PythonDialog example(briefExampleConfig(), SceneSource::Brief);
        texts << textsOf(&example);
        auto* box = w.window.findChild<QComboBox*>("mistakeBox");
        box->setCurrentIndex(box->findData(mistakeName(Mistake::InitPerGroup)));
        QTRY_VERIFY(textsOf(&w.window).join('\n').contains("init-per-group builds"));
        texts << textsOf(&w.window);
        const QStringList found = speakingOfTheBrief(texts);
        QVERIFY2(found.isEmpty(), qPrintable(found.join("\n---\n")));
        QVERIFY(texts.join('\n').contains("worked example"));
    }
};

QTEST_MAIN(TestWords)
#include "tst_words.moc"
