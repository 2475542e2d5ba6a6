// A random user on the real main window. From a fixed seed (TPVIZ_MONKEY_SEED overrides it), it
// performs TPVIZ_MONKEY_ACTIONS random actions: every control the window offers at the moment,
// found at run time (window_controls.h, dialogs included), sizes and tp_size typed, the step keys,
// the Groups table, zoom, pan, hover and resize on the views, and big computations cancelled. After
// every action: no Qt warning, the step in range and drawn, and once nothing is pending the picture
// shows the last valid parameters; every control offered at a settled check is used. The tests
// after it replay the bugs it found (tst_matrix_view's scrollBarsSettle one more).
// This file is over 600 lines because the random user and the model of the window it checks
// after every action read best side by side, in one place.

#include "devices/costs_panel.h"
#include "devices/devices_view.h"
#include "devices/hardware_box.h"
#include "devices/mpi_launch.h"
#include "layer_panel.h"
#include "main_window.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "parameter_panel.h"
#include "python_dialog.h"
#include "sanitizer_build.h"
#include "scene/scene_request.h"
#include "scene/timeline.h"
#include "step_actions.h"
#include "step_controller.h"
#include "steps/tab_timelines.h"
#include "window_controls.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDialog>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMutex>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <atomic>
#include <map>
#include <optional>
#include <random>

using namespace tp;

namespace {

using test::kSanitized;

// The window is given a budget that stands in for a smaller machine: every scene it accepts stays
// quick to compute, and big sizes are refused with the budget's message.
constexpr std::int64_t kBudget = (kSanitized ? 48 : 192) * (std::int64_t(1) << 20);
// A valid scene that takes long enough to be cancelled mid-way.
const LayerConfig& bigConfig() {
    static const LayerConfig big = [] {
        LayerConfig c;
        c.batch = 64;
        c.inDim = kSanitized ? 1024 : 2048;
        c.features = 4096;
        c.tpSize = 8;
        c.memoryBudgetBytes = kBudget;
        return c;
    }();
    return big;
}
constexpr int kSettleMs = kSanitized ? 120000 : 30000;

// Every Qt warning or critical message, from any thread, in the order they came.
QMutex gMessagesMutex;
QStringList gMessages;
QtMessageHandler gPreviousHandler = nullptr;

// The offscreen platform says "This plugin does not support propagateSizeHints()" (or raise(),
// grabWindow()...) when a window asks for what it cannot do: a limit of the test platform, not
// something the app does wrong.
bool isPlatformLimit(const QString& text) {
    return text.startsWith(QLatin1String("This plugin does not support "));
}

void recordMessage(QtMsgType type, const QMessageLogContext& context, const QString& text) {
    // The offscreen platform's limits are neither recorded nor printed: thousands of them
    // would bury a failure's own line in the log.
    if (isPlatformLimit(text))
        return;
    if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg) {
        const QMutexLocker lock(&gMessagesMutex);
        gMessages << text;
    }
    if (gPreviousHandler)
        gPreviousHandler(type, context, text);
}

QString takeMessages() {
    const QMutexLocker lock(&gMessagesMutex);
    const QString all = gMessages.join(QStringLiteral(" | "));
    gMessages.clear();
    return all;
}

std::uint64_t envNumber(const char* name, std::uint64_t fallback) {
    bool ok = false;
    const std::uint64_t value = qEnvironmentVariable(name).toULongLong(&ok);
    return ok ? value : fallback;
}

QString describe(const LayerConfig& c, SceneSource source) {
    return QStringLiteral("%1 N%2 in%3 f%4 tp%5 %6 seed%7 %8%9 bias %10 budget %11")
        .arg(source == SceneSource::Brief ? "brief" : "nnx")
        .arg(c.batch)
        .arg(c.inDim)
        .arg(c.features)
        .arg(c.tpSize)
        .arg(QString::fromUtf8(toString(c.mode).data()))
        .arg(c.seed)
        .arg(QString::fromUtf8(toString(c.prng).data()))
        .arg(c.x64 ? " x64" : "")
        .arg(QString::fromStdString(toString(c.bias)))
        .arg(c.memoryBudgetBytes);
}

// Closes whatever modal dialog is open (About, About Qt, a file dialog) while an action that opened
// it runs its own event loop, so the monkey never blocks on a modal.
class ModalCloser {
public:
    ModalCloser() {
        QObject::connect(&m_timer, &QTimer::timeout, [] {
            if (QWidget* modal = QApplication::activeModalWidget()) {
                if (auto* dialog = qobject_cast<QDialog*>(modal))
                    dialog->reject();
                else
                    modal->close();
            }
        });
        m_timer.start(20);
    }

private:
    QTimer m_timer;
};

// The window and what the user last asked of it.
class Monkey {
public:
    explicit Monkey(std::uint64_t seed) : m_rng(seed) {
        window.resize(1400, 900);
        LayerConfig config;
        config.memoryBudgetBytes = kBudget;
        window.showConfig(config, SceneSource::Nnx);
        m_wanted = Wanted{config, SceneSource::Nnx, Mistake::None};
        window.show();

        ParameterPanel* panel = window.parameterPanel();
        QObject::connect(panel, &ParameterPanel::configEdited, &window,
                         [this](const LayerConfig& c, SceneSource s, const SceneRun& run) {
                             m_wanted = Wanted{c, s, run.mistake};
                             ++m_edits;
                         });
        // A refused input or a cancel drops what was pending: no new scene may arrive after it.
        const auto freeze = [this] {
            ++m_edits;
            m_wanted.reset();
            m_frozen = window.scene();
        };
        QObject::connect(panel, &ParameterPanel::configRefused, &window, freeze);
        QObject::connect(window.computer(), &SceneComputer::cancelled, &window, freeze);
        // So do array files that cannot be read and a scene too big to allocate.
        QObject::connect(window.computer(), &SceneComputer::arraysRefused, &window, freeze);
        QObject::connect(window.computer(), &SceneComputer::failed, &window, freeze);
    }

    MainWindow window{MainWindow::Options{.useSettings = false}};

    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(m_rng); }
    bool chance(double p) { return std::bernoulli_distribution(p)(m_rng); }
    template <typename T>
    T* pickOf(const QList<T*>& items) {
        return items.isEmpty() ? nullptr : items[pick(int(items.size()))];
    }

    /// Nothing computes: no scene, and no calibration of this machine ("calibrate this
    /// machine…" runs tpviz-mpi in the background, its Cancel shown only meanwhile).
    bool idle() const {
        return !window.computer()->isBusy() && !window.computer()->hasPendingRequest() &&
               !window.devicesView()->costsPanel()->hardwareChoice()->launcher()->isRunning();
    }
    bool viewsIdle() const {
        const auto views = window.findChildren<MatrixView*>();
        return std::none_of(views.begin(), views.end(),
                            [](MatrixView* v) { return v->isRendering(); });
    }

    /// What is wrong with the window now ("" when nothing).
    QString inconsistency() const {
        const ScenePtr scene = window.scene();
        const StepController* steps = window.stepController();
        if (scene) {
            // The tab on screen steps through its own timeline: the devices' of the scene they
            // show (the last correct one), the layer's of the scene on screen.
            const bool devices = window.viewTabs()->currentWidget() == window.devicesView();
            const Timeline timeline =
                devices ? meshProgram(*window.devicesView()->scene()) : loopTimeline(*scene);
            if (steps->stepCount() != timeline.size())
                return QStringLiteral("%1 steps for a timeline of %2")
                    .arg(steps->stepCount())
                    .arg(timeline.size());
            if (steps->step() < 0 || steps->step() > steps->lastStep())
                return QStringLiteral("step %1 outside [0, %2]")
                    .arg(steps->step())
                    .arg(steps->lastStep());
            if (window.stepActions()->slider()->value() != steps->step())
                return QStringLiteral("the slider shows %1 at step %2")
                    .arg(window.stepActions()->slider()->value())
                    .arg(steps->step());
            const QString equation = QString::fromStdString(timeline.at(steps->step()).equation);
            if (window.equationLabel()->text() != equation)
                return QStringLiteral("the equation reads \"%1\", not \"%2\"")
                    .arg(window.equationLabel()->text(), equation);
        }
        if (!idle())
            return {};
        if (window.cancelButton()->isVisible() || window.progressBar()->isVisible())
            return QStringLiteral("progress and Cancel are shown with nothing to compute");
        if (m_wanted) {
            const auto& [config, source, mistake] = *m_wanted;
            if (!scene || scene->config != config || scene->source != source ||
                scene->mistake != mistake)
                return QStringLiteral(
                           "the picture shows %1 (mistake %2), the last valid input is "
                           "%3 (mistake %4)")
                    .arg(scene ? describe(scene->config, scene->source) : QStringLiteral("nothing"),
                         scene ? mistakeName(scene->mistake) : QString(), describe(config, source),
                         mistakeName(mistake));
            if (config.memoryBudgetBytes != kBudget)
                return QStringLiteral("the memory budget changed to %1")
                    .arg(config.memoryBudgetBytes);
        } else if (scene != m_frozen) {
            return QStringLiteral("a new scene (%1) arrived after a refusal or a cancel")
                .arg(describe(scene->config, scene->source));
        }
        return {};
    }

    /// Waits (bounded) until nothing is pending and no view renders.
    bool settle() {
        return QTest::qWaitFor([this] { return idle() && viewsIdle(); }, kSettleMs);
    }

    /// One random action; returns its name.
    QString act() {
        const int kind = pick(100);
        if (kind < 22)
            return editSize();
        if (kind < 27)
            return editTp();
        if (kind < 62)
            return useSomeControl();
        if (kind < 68)
            return step();
        if (kind < 80)
            return onView();
        if (kind < 83) {
            window.resize(400 + pick(1400), 300 + pick(900));
            return QStringLiteral("resize");
        }
        if (kind < 86)
            return pythonDialog();
        if (kind < 98)
            return editSize();
        return cancelBigComputation();
    }

    /// Notes the controls the window offers now (reachableControls), which the run must use.
    void noteReachable() {
        for (const test::Control& control : test::reachableControls(&window))
            m_reachable.insert(control.key);
    }

    /// The controls noted by noteReachable that no action used; useNotedControl uses one.
    QStringList neverUsed() const { return QSet<QString>(m_reachable).subtract(m_used).values(); }
    QString useNotedControl() { return useSomeControl(true); }
    /// Docks the user closed or floated come back, so that their own buttons can be reached.
    void restoreDocks() {
        for (QDockWidget* dock : window.findChildren<QDockWidget*>()) {
            dock->setFloating(false);
            dock->show();
        }
    }

    void closeDialogs() {
        for (const QPointer<PythonDialog>& dialog : m_dialogs)
            if (dialog)
                dialog->close();
        m_dialogs.clear();
    }

private:
    QString editSize() {
        static const char* names[] = {"batchBox", "inDimBox", "featuresBox"};
        auto* box = window.findChild<QSpinBox*>(names[pick(3)]);
        if (!box->isEnabled())
            return QStringLiteral("size input disabled");
        m_used.insert(test::controlKey(box));
        const int band = pick(20);
        QString text;
        if (band < 14)
            text = QString::number(1 + pick(48));
        else if (band < 17)
            text = QString::number(49 + pick(464));
        else if (band < 18)
            text = QString::number(4096 + pick((1 << 24) - 4096 + 1));
        else
            text = QStringList{"0", "-3", "abc", "", "1e3", "99999999999"}[pick(6)];
        if (chance(0.5) && band < 18) {
            box->setValue(text.toInt());
            return QStringLiteral("set %1 %2").arg(box->objectName(), text);
        }
        box->selectAll();
        QTest::keyClicks(box, text);
        if (chance(0.3))
            QTest::keyClick(box, Qt::Key_Return);
        return QStringLiteral("type %1 \"%2\"").arg(box->objectName(), text);
    }

    QString editTp() {
        auto* tp = window.findChild<QComboBox*>("tpBox");
        if (chance(0.6) && tp->count() > 0) {
            tp->setCurrentIndex(pick(tp->count()));
            m_used.insert(test::controlKey(tp, 0).section(' ', 0, -2));  // its items: one key
            return QStringLiteral("choose tp %1").arg(tp->currentText());
        }
        const QString text =
            QStringList{"0", "-2", "7", "5", "x", "99999999999999999999", "", " 2 "}[pick(8)];
        m_used.insert(test::controlKey(tp->lineEdit()));
        tp->lineEdit()->selectAll();
        QTest::keyClicks(tp->lineEdit(), text);
        return QStringLiteral("type tp \"%1\"").arg(text);
    }

    // The step keys and the Groups table (the step actions, the slider and the speed are found
    // with the window's other controls).
    QString step() {
        auto* table = window.findChild<QTableView*>("groupTable");
        if (chance(0.5)) {
            QTest::keyClick(&window, QList<Qt::Key>{Qt::Key_Left, Qt::Key_Right, Qt::Key_Home,
                                                    Qt::Key_End, Qt::Key_Space}[pick(5)]);
            return QStringLiteral("step key");
        }
        if (!table->isVisible() || table->model()->rowCount() == 0)
            return QStringLiteral("groups table hidden");
        const QModelIndex index = table->model()->index(pick(table->model()->rowCount()), 0);
        table->scrollTo(index);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
        return QStringLiteral("click group %1").arg(index.row());
    }

    // One of the controls the window offers now, found at run time: one not used yet first, so that
    // every control is used early; with `notedOnly`, only one noted and not used ("" when none).
    QString useSomeControl(bool notedOnly = false) {
        const QList<test::Control> controls = test::reachableControls(&window);
        QList<test::Control> fresh;
        for (const test::Control& control : controls)
            if (!m_used.contains(control.key) && (!notedOnly || m_reachable.contains(control.key)))
                fresh << control;
        const QList<test::Control>& from = fresh.isEmpty() && !notedOnly ? controls : fresh;
        if (from.isEmpty())
            return notedOnly ? QString() : QStringLiteral("no control");
        const test::Control control = from[pick(int(from.size()))];
        m_used.insert(control.key);
        const ModalCloser closer;
        const int edits = m_edits;
        const QString what = test::useControl(control, m_rng);
        // Reset to defaults (and Open scene) show a config without an edit: the picture must show
        // the inputs they set. (From files, the files' sizes are known once they are read.)
        ParameterPanel* panel = window.parameterPanel();
        if (control.kind == test::ControlKind::Action && m_edits == edits &&
            panel->source() != SceneSource::Files && panel->problems().empty() &&
            (!m_wanted || m_wanted->config != panel->config() ||
             m_wanted->source != panel->source() || m_wanted->mistake != panel->run().mistake))
            m_wanted = Wanted{panel->config(), panel->source(), panel->run().mistake};
        if (auto* dialog = window.findChild<PythonDialog*>(); dialog && dialog->isVisible())
            m_dialogs << dialog;
        return what;
    }

    QString onView() {
        QList<MatrixView*> views;
        for (MatrixView* view : window.findChildren<MatrixView*>())
            if (view->isVisible() && view->viewport()->width() > 0)
                views << view;
        MatrixView* view = pickOf(views);
        if (!view)
            return QStringLiteral("no view shown");
        QWidget* port = view->viewport();
        const auto point = [&] { return QPoint(pick(port->width()), pick(port->height())); };
        switch (pick(5)) {
            case 0: {
                const QPoint at = point();
                QWheelEvent wheel(at, port->mapToGlobal(at), {}, {0, chance(0.5) ? 120 : -120},
                                  Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
                QApplication::sendEvent(port, &wheel);
                return QStringLiteral("ctrl+wheel on %1").arg(view->objectName());
            }
            case 1:
                QTest::keyClick(view,
                                QList<Qt::Key>{Qt::Key_Plus, Qt::Key_Minus, Qt::Key_0}[pick(3)],
                                Qt::ControlModifier);
                return QStringLiteral("zoom key on %1").arg(view->objectName());
            case 2: {
                const QPoint from = point();
                const QPoint to = point();
                QTest::mousePress(port, Qt::LeftButton, {}, from);
                QTest::mouseMove(port, (from + to) / 2);
                QTest::mouseMove(port, to);
                QTest::mouseRelease(port, Qt::LeftButton, {}, to);
                return QStringLiteral("drag on %1").arg(view->objectName());
            }
            default:
                QTest::mouseMove(port, point());
                // Offscreen, cell tooltips left up flood the event queue after some hundred
                // hovers; a user's pointer moves on, which hides them.
                QCoreApplication::processEvents();
                QToolTip::hideText();
                return QStringLiteral("hover on %1").arg(view->objectName());
        }
    }

    QString pythonDialog() {
        if (!m_dialogs.isEmpty() && chance(0.6)) {
            QPointer<PythonDialog> dialog = m_dialogs.takeAt(pick(int(m_dialogs.size())));
            if (dialog)
                dialog->close();
            return QStringLiteral("close a Python snippet");
        }
        m_dialogs << window.showPythonSnippet();
        return QStringLiteral("open the Python snippet");
    }

    QString cancelBigComputation() {
        ParameterPanel* panel = window.parameterPanel();
        if (panel->source() != SceneSource::Nnx)
            return QStringLiteral("no big computation from the brief's arrays");
        const ScenePtr before = window.scene();
        auto* batch = window.findChild<QSpinBox*>("batchBox");
        auto* inDim = window.findChild<QSpinBox*>("inDimBox");
        auto* features = window.findChild<QSpinBox*>("featuresBox");
        const int old[] = {batch->value(), inDim->value(), features->value()};
        // Smallest first, so no step on the way is bigger than the big scene.
        batch->setValue(1);
        inDim->setValue(1);
        features->setValue(1);
        window.findChild<QComboBox*>("tpBox")->setCurrentText(QStringLiteral("1"));
        features->setValue(int(bigConfig().features));
        inDim->setValue(int(bigConfig().inDim));
        batch->setValue(int(bigConfig().batch));
        QString what = QStringLiteral("big computation finished before Cancel");
        if (panel->problems().empty() &&
            QTest::qWaitFor([this] { return window.cancelButton()->isVisible() || idle(); },
                            kSettleMs) &&
            window.cancelButton()->isVisible()) {
            if (chance(0.5)) {
                window.activateWindow();
                QTest::keyClick(&window, Qt::Key_Escape);
                what = QStringLiteral("big computation cancelled with Esc");
            } else {
                QTest::mouseClick(window.cancelButton(), Qt::LeftButton);
                m_used.insert(test::controlKey(window.cancelButton()));
                what = QStringLiteral("big computation cancelled with the button");
            }
            if (!window.computer()->isBusy() && window.scene() != before &&
                window.scene() == m_frozen)
                what += QStringLiteral(" (after it finished)");
        }
        batch->setValue(old[0]);
        features->setValue(old[2]);
        inDim->setValue(old[1]);
        return what;
    }

    std::mt19937_64 m_rng;
    struct Wanted {
        LayerConfig config;
        SceneSource source;
        Mistake mistake;
    };
    std::optional<Wanted> m_wanted;
    int m_edits = 0;  ///< edits, refusals and cancels seen (each sets m_wanted)
    ScenePtr m_frozen;
    QList<QPointer<PythonDialog>> m_dialogs;
    QSet<QString> m_reachable;  ///< every control reachable at a settled check (noteReachable)
    QSet<QString> m_used;       ///< every control an action used (by its test::controlKey)
};

}  // namespace

class TestMonkey : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { gPreviousHandler = qInstallMessageHandler(recordMessage); }
    void cleanupTestCase() { qInstallMessageHandler(gPreviousHandler); }
    void init() { takeMessages(); }

    void randomUser() {
        const std::uint64_t seed = envNumber("TPVIZ_MONKEY_SEED", 20261130);
        const int actions = int(envNumber("TPVIZ_MONKEY_ACTIONS", kSanitized ? 2000 : 3000));
        qInfo("monkey: seed %llu, %d actions (TPVIZ_MONKEY_SEED, TPVIZ_MONKEY_ACTIONS)",
              static_cast<unsigned long long>(seed), actions);
        const bool trace = qEnvironmentVariableIsSet("TPVIZ_MONKEY_TRACE");  // print every action
        Monkey monkey(seed);
        QVERIFY(monkey.settle());
        std::map<QString, int> counts;
        int settles = 0;
        for (int i = 0; i < actions; ++i) {
            const QString action = monkey.act();
            QCoreApplication::processEvents();
            const QString where =
                QStringLiteral("action %1 (%2), seed %3: ").arg(i).arg(action).arg(seed);
            if (trace)
                qInfo("%d %s", i, qPrintable(action));
            const QString messages = takeMessages();
            QVERIFY2(messages.isEmpty(), qPrintable(where + "Qt warned: " + messages));
            if (monkey.chance(1.0 / 12) || i == actions - 1) {
                QVERIFY2(monkey.settle(), qPrintable(where + "still computing after the timeout"));
                ++settles;
                if (i < actions - 1)
                    monkey.noteReachable();
            }
            const QString problem = monkey.inconsistency();
            QVERIFY2(problem.isEmpty(), qPrintable(where + problem));
            ++counts[action.section(' ', 0, 1)];
        }
        // Every control offered at a settled check is used (one noted last, now), added ones too;
        // a closed dock's buttons are reachable again once the dock is back.
        monkey.restoreDocks();
        for (QString action; !(action = monkey.useNotedControl()).isEmpty();) {
            QVERIFY2(monkey.settle() && takeMessages().isEmpty(), qPrintable(action));
            QVERIFY2(monkey.inconsistency().isEmpty(), qPrintable(action));
        }
        monkey.closeDialogs();
        QString summary;
        for (const auto& [name, count] : counts)
            summary += QStringLiteral("%1 %2; ").arg(name).arg(count);
        qInfo("monkey: %d actions from seed %llu, %d settled checks: %s", actions,
              static_cast<unsigned long long>(seed), settles, qPrintable(summary));
        const QStringList never = monkey.neverUsed();
        QVERIFY2(never.isEmpty(),
                 qPrintable(QStringLiteral("%1 controls were shown but never used: %2")
                                .arg(never.size())
                                .arg(never.join(QStringLiteral("; ")))));
    }

    // Found by the monkey: switching to the brief's arrays and back reset the memory budget the
    // window was given to the default, so sizes it had refused became accepted.
    void briefKeepsTheMemoryBudget() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        LayerConfig config;
        config.memoryBudgetBytes = kBudget;
        window.showConfig(config, SceneSource::Nnx);
        auto* source = window.findChild<QComboBox*>("sourceBox");
        source->setCurrentIndex(1);
        QCOMPARE(window.parameterPanel()->config().memoryBudgetBytes, kBudget);
        source->setCurrentIndex(0);
        QCOMPARE(window.parameterPanel()->config().memoryBudgetBytes, kBudget);
        window.findChild<QSpinBox*>("featuresBox")->setValue(1 << 24);
        QVERIFY(!window.parameterPanel()->problemText(ConfigField::Memory).isEmpty());
    }

    // Found by the monkey once it used every menu item: Reset to defaults dropped the memory
    // budget the window was given, as switching to the brief's arrays once did.
    void resetKeepsTheMemoryBudget() {
        MainWindow window(MainWindow::Options{.useSettings = false});
        LayerConfig config;
        config.memoryBudgetBytes = kBudget;
        window.showConfig(config, SceneSource::Nnx);
        window.findChild<QAction*>("resetToDefaultsAction")->trigger();
        QCOMPARE(window.parameterPanel()->config().memoryBudgetBytes, kBudget);
        window.findChild<QSpinBox*>("featuresBox")->setValue(1 << 24);
        QVERIFY(!window.parameterPanel()->problemText(ConfigField::Memory).isEmpty());
    }

    // Found by the monkey: Esc was the Cancel button's shortcut, which clicks the button 100 ms
    // later; an edit made in those 100 ms was dropped by the late click, silently, and the picture
    // no longer showed the inputs. Esc now cancels at once, and a later edit is computed.
    void escapeCancelsAtOnce() {
        std::atomic<bool> workerSawCancel{false};  // outlives the window and its worker threads
        MainWindow window(MainWindow::Options{.useSettings = false});
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTRY_VERIFY(window.scene());
        SceneComputer* computer = window.computer();
        computer->setComputeFunction([&workerSawCancel](SceneRequest request, Progress* progress) {
            const bool heldOpen = request.config.seed == 7;
            std::optional<Scene> scene = computeScene(std::move(request), progress);
            if (heldOpen) {  // held open until cancelled
                QDeadlineTimer deadline(60000);
                while (!progress->cancelled() && !deadline.hasExpired())
                    QThread::msleep(1);
                workerSawCancel = progress->cancelled();
            }
            return scene;
        });
        auto* seed = window.findChild<QLineEdit*>("seedEdit");
        seed->setText(QStringLiteral("7"));
        QTRY_VERIFY(window.cancelButton()->isVisible());
        QTest::keyClick(&window, Qt::Key_Escape);
        QVERIFY(!computer->isBusy());
        QTRY_VERIFY(workerSawCancel);
        seed->setText(QStringLiteral("8"));
        QTRY_VERIFY_WITH_TIMEOUT(window.scene()->config.seed == 8, 10000);
        QVERIFY(!computer->isBusy());
    }
};

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
