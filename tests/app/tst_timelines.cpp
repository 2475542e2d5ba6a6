// Each tab steps through its own timeline in the real window: the Layer tab through the loop, the
// Devices tab through the mesh program. Switching tabs, and changing tp_size or the mode at the
// last step of either tab and back, keeps a valid step in both. The Groups dock says the step of
// the tab on screen. The stepping keys step again once an input is done with.

#include "devices/devices_view.h"
#include "main_window.h"
#include "parameter_panel.h"
#include "scene/timeline.h"
#include "steps/step_actions.h"
#include "steps/step_controller.h"
#include "steps/step_keys.h"
#include "steps/tab_timelines.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace tp;

namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// A window without saved settings, its first scene on screen.
struct Window {
    MainWindow window{MainWindow::Options{.useSettings = false}};

    explicit Window(const LayerConfig& config) {
        window.resize(1400, 900);
        window.showConfig(config, SceneSource::Nnx);
        window.show();
    }
    QComboBox* combo(const char* name) const { return window.findChild<QComboBox*>(name); }
    QTabWidget* tabs() const { return window.viewTabs(); }
    /// The scene of the fields is on screen, and nothing is computing.
    bool settled() const {
        return QTest::qWaitFor([this] {
            return window.scene() && !window.computer()->isBusy() &&
                   !window.computer()->hasPendingRequest();
        });
    }
    QSlider* slider() const { return window.stepActions()->slider(); }
    QString equation() const { return window.equationLabel()->text(); }
    QString caption() const { return window.findChild<QLabel*>("captionLabel")->text(); }
    bool devicesShown() const { return tabs()->currentWidget() == window.devicesView(); }
    bool atEndOfTheTabShown() const { return window.stepController()->atEnd(); }
    /// What disagrees between the tabs' positions, their timelines and the scenes shown ("" when
    /// nothing).
    QString inconsistency() const {
        const Scene& scene = *window.scene();
        const TabTimelines* t = window.timelines();
        const ScenePtr devices = window.devicesView()->scene();
        if (t->loop().size() !=
            loopTimeline(scene.config, scene.mistake, scene.backward != nullptr).size())
            return QStringLiteral("the loop is not the scene's");
        if (!devices || t->program().size() != meshProgram(devices->config).size())
            return QStringLiteral("the mesh program is not the devices' scene's");
        if (t->loopSteps()->stepCount() != t->loop().size() ||
            t->programSteps()->stepCount() != t->program().size())
            return QStringLiteral("a position counts the steps of another timeline");
        if (window.devicesView()->step() != t->programSteps()->step())
            return QStringLiteral("the devices show step %1 of %2")
                .arg(window.devicesView()->step())
                .arg(t->programSteps()->step());
        const StepController* shown = window.stepController();
        const Timeline& timeline = devicesShown() ? t->program() : t->loop();
        if (slider()->value() != shown->step() || slider()->maximum() != timeline.lastStep())
            return QStringLiteral("the slider shows %1 of %2 at step %3 of %4")
                .arg(slider()->value())
                .arg(slider()->maximum())
                .arg(shown->step())
                .arg(timeline.lastStep());
        const TimelineStep& step = timeline.at(shown->step());
        if (equation() != q(step.equation) || caption() != q(step.caption))
            return QStringLiteral("the words \"%1\" are not those of the step").arg(caption());
        const QStringList statuses = groupStatuses();
        for (int g = 0; g < statuses.size(); ++g) {
            const QString expected = g == step.currentGroup && !step.complete ? "computing"
                                     : g < step.groupsDone                    ? "done"
                                                                              : "waiting";
            if (statuses[g] != expected)
                return QStringLiteral(
                           "the Groups dock says group %1 is %2 at a step where it "
                           "is %3")
                    .arg(g)
                    .arg(statuses[g], expected);
        }
        return {};
    }
    /// The Groups dock's Status column, group by group.
    QStringList groupStatuses() const {
        const QAbstractItemModel* groups = window.findChild<QTableView*>("groupTable")->model();
        QStringList statuses;
        for (int g = 0; g < groups->rowCount(); ++g)
            statuses << groups->index(g, groups->columnCount() - 1).data().toString();
        return statuses;
    }
    void showDevices() { tabs()->setCurrentWidget(window.devicesView()); }
    void showLayer() { tabs()->setCurrentIndex(0); }
    /// Types tp_size into its field and presses Enter, as a user does.
    void typeTp(int tp) {
        QComboBox* box = combo("tpBox");
        box->setFocus();
        box->lineEdit()->selectAll();
        QTest::keyClicks(box, QString::number(tp));
        QTest::keyClick(box, Qt::Key_Return);
    }
};

// Four groups on a 2 x 4 mesh with a replicated output: a collective follows the compute.
LayerConfig meshScene(ParallelMode mode) {
    LayerConfig c;
    c.mode = mode;
    c.tpSize = 4;
    c.dataSize = 2;
    c.output = OutputLayout::Replicated;
    return c;
}

LayerConfig rowTwoGroups() {
    LayerConfig c;
    c.mode = ParallelMode::Row;
    c.tpSize = 2;
    return c;
}

}  // namespace

class TestTimelines : public QObject {
    Q_OBJECT

private slots:
    // The sequence that aborted with std::out_of_range: the hidden devices view took a step of
    // the new scene's count to its old scene's ring.
    void rowTp2EndDevicesLayerTp4KeepsAValidStep() {
        Window w(rowTwoGroups());
        QVERIFY(w.settled());
        w.window.stepActions()->endAction()->trigger();
        w.showDevices();
        QTRY_COMPARE(w.window.devicesView()->deviceScene().scene, w.window.scene());
        w.showLayer();
        w.typeTp(4);
        QTRY_COMPARE(w.window.scene() ? w.window.scene()->config.tpSize : 0, std::int64_t(4));
        QVERIFY(w.settled());
        StepController* steps = w.window.stepController();
        QCOMPARE(steps->step(), steps->lastStep());
    }

    // Each tab has its own position: the controls drive the tab on screen, and a tab switched to
    // shows where it was left.
    void eachTabKeepsItsOwnPosition() {
        Window w(meshScene(ParallelMode::Column));
        QVERIFY(w.settled());
        StepController* loop = w.window.stepController();
        loop->setStep(2);
        QCOMPARE(w.caption(), q(w.window.timelines()->loop().at(2).caption));
        w.showDevices();
        StepController* program = w.window.stepController();
        QVERIFY(program != loop);
        QCOMPARE(program->step(), 0);
        QCOMPARE(w.slider()->value(), 0);
        QCOMPARE(w.slider()->maximum(), w.window.timelines()->program().lastStep());
        w.window.stepActions()->nextAction()->trigger();
        w.window.stepActions()->nextAction()->trigger();
        QCOMPARE(program->step(), 2);
        QCOMPARE(loop->step(), 2);
        QCOMPARE(w.window.devicesView()->step(), 2);
        // The Groups dock follows the tab on screen: every device has computed its block here,
        // while the Layer tab's loop is still at group 1.
        QCOMPARE(w.groupStatuses(), QStringList(4, QStringLiteral("done")));
        QCOMPARE(w.inconsistency(), QString());
        QCOMPARE(w.equation(), "all-gather 1/3: device m sends chunk m to device (m + 1) mod 4");
        QVERIFY2(w.caption().contains("all-gather ring step 1 of 3"), qPrintable(w.caption()));
        w.window.stepActions()->endAction()->trigger();
        QCOMPARE(program->step(), program->lastStep());
        QCOMPARE(loop->step(), 2);
        w.showLayer();
        QCOMPARE(w.window.stepController(), loop);
        QCOMPARE(w.groupStatuses(), QStringList({"done", "computing", "waiting", "waiting"}));
        QCOMPARE(w.slider()->value(), 2);
        QCOMPARE(w.slider()->maximum(), 4);
        QCOMPARE(w.caption(), q(w.window.timelines()->loop().at(2).caption));
        // Play runs the tab on screen only.
        w.window.stepActions()->playAction()->trigger();
        QVERIFY(loop->isPlaying() && !program->isPlaying());
        QTRY_VERIFY(!loop->isPlaying());
        QCOMPARE(loop->step(), loop->lastStep());
    }

    // Changing the scene at the last step of either tab, and back: each tab keeps a valid step
    // of its own timeline, at its end, and the words say that step.
    void changesAtTheLastStepOfEitherTab_data() {
        QTest::addColumn<bool>("devices");
        QTest::addColumn<QString>("change");
        for (bool devices : {false, true})
            for (const char* change : {"tp", "mode"})
                QTest::addRow("%s tab, %s", devices ? "devices" : "layer", change)
                    << devices << QString::fromLatin1(change);
    }
    void changesAtTheLastStepOfEitherTab() {
        QFETCH(bool, devices);
        QFETCH(QString, change);
        Window w(meshScene(ParallelMode::Column));
        QVERIFY(w.settled());
        if (devices)
            w.showDevices();
        w.window.stepActions()->endAction()->trigger();
        for (int pass = 0; pass < 2; ++pass) {  // the change, then back
            if (change == "tp")
                w.typeTp(pass == 0 ? 2 : 4);
            else
                w.combo("modeBox")->setCurrentIndex(pass == 0 ? 1 : 0);
            QVERIFY(w.settled());
            QVERIFY(w.atEndOfTheTabShown());
            const QString problem = w.inconsistency();
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            // Both ways round: the other tab's position is valid too, and back.
            devices ? w.showLayer() : w.showDevices();
            QVERIFY2(w.inconsistency().isEmpty(), qPrintable(w.inconsistency()));
            devices ? w.showDevices() : w.showLayer();
            QVERIFY2(w.inconsistency().isEmpty(), qPrintable(w.inconsistency()));
            QVERIFY(w.atEndOfTheTabShown());
        }
        QCOMPARE(w.window.scene()->config.tpSize, std::int64_t(4));
        QVERIFY(w.window.scene()->config.mode == ParallelMode::Column);
    }

    // The stepping keys step again once an input is done with: a choice in a combo, Enter or Esc
    // in a field. They never change a combo nor move a text cursor.
    void endAfterChoosingAMistakeLeavesTheComboAlone() {
        Window w(LayerConfig{});
        QVERIFY(w.settled());
        // At the last step End is disabled: a combo with the keyboard would take the key.
        w.window.stepActions()->endAction()->trigger();
        QComboBox* mistake = w.combo("mistakeBox");
        mistake->setFocus();
        QTest::keyClick(mistake, Qt::Key_Down);  // a choice, as a user makes it
        const int chosen = mistake->currentIndex();
        QVERIFY(chosen != 0);
        QVERIFY(w.settled());
        StepController* steps = w.window.stepController();
        QCOMPARE(steps->step(), steps->lastStep());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);
        QCOMPARE(mistake->currentIndex(), chosen);
        QCOMPARE(steps->step(), steps->lastStep());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Home);
        QCOMPARE(mistake->currentIndex(), chosen);
        QCOMPARE(steps->step(), 0);
    }
    void enterOrEscInAFieldGivesTheKeysBack() {
        Window w(LayerConfig{});
        QVERIFY(w.settled());
        auto* seed = w.window.findChild<QLineEdit*>("seedEdit");
        seed->setFocus();
        seed->selectAll();
        QTest::keyClicks(seed, "7");
        QTest::keyClick(seed, Qt::Key_Return);
        QVERIFY(w.settled());
        QCOMPARE(w.window.scene()->config.seed, std::int64_t(7));
        const int cursor = seed->cursorPosition();
        StepController* steps = w.window.stepController();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
        QCOMPARE(steps->step(), 1);
        QCOMPARE(seed->cursorPosition(), cursor);
        // Esc in the speed box, on the Devices tab.
        w.showDevices();
        auto* speed = w.window.stepActions()->speedBox();
        speed->setFocus();
        QTest::keyClick(speed, Qt::Key_Escape);
        QVERIFY(!speed->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);
        QCOMPARE(w.window.stepController()->step(), w.window.stepController()->lastStep());
        QCOMPARE(speed->value(), w.window.stepController()->intervalMs());
        // The status tips say so.
        QVERIFY2(seed->statusTip().contains(StepKeys::hint()), qPrintable(seed->statusTip()));
        QVERIFY(w.combo("mistakeBox")->statusTip().contains(StepKeys::hint()));
        QVERIFY(w.window.stepActions()->nextAction()->statusTip().contains(StepKeys::hint()));
    }
};

QTEST_MAIN(TestTimelines)
#include "tst_timelines.moc"
