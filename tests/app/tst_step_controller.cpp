// The step controller: moving, clamping, playing to the end; the speed box says why it refuses.

#include "step_actions.h"
#include "step_controller.h"

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTest>
#include <QToolBar>

using namespace tp;

class TestStepController : public QObject {
    Q_OBJECT

private slots:
    void movesAndClamps() {
        StepController steps;
        steps.setStepCount(4);
        QCOMPARE(steps.step(), 0);  // a fresh controller starts the first scene at step 0
        steps.reset();
        QSignalSpy spy(&steps, &StepController::stepChanged);
        steps.previous();
        QCOMPARE(steps.step(), 0);
        QCOMPARE(spy.count(), 0);
        steps.next();
        steps.next();
        QCOMPARE(steps.step(), 2);
        steps.goToEnd();
        QCOMPARE(steps.step(), 3);
        steps.next();
        QCOMPARE(steps.step(), 3);
        steps.reset();
        QCOMPARE(steps.step(), 0);
        QCOMPARE(spy.count(), 4);
    }

    void playReachesTheLastStepAndStops() {
        StepController steps;
        steps.setStepCount(5);
        steps.setIntervalMs(10);
        steps.play();
        QVERIFY(steps.isPlaying());
        QTRY_COMPARE(steps.step(), 4);
        QTRY_VERIFY(!steps.isPlaying());
        // Play at the end starts over.
        steps.play();
        QCOMPARE(steps.step(), 0);
        steps.pause();
    }

    void newCountKeepsAFinishedWalkFinished() {
        StepController steps;
        steps.setStepCount(4);
        steps.goToEnd();
        steps.setStepCount(7);
        QCOMPARE(steps.step(), 6);
        steps.setStep(2);
        steps.setStepCount(9);
        QCOMPARE(steps.step(), 2);
        steps.setStepCount(2);
        QCOMPARE(steps.step(), 1);
    }

    // A click in the slider's groove goes to the step under it (it used to move one step
    // towards it, or seem to do nothing).
    void clickInTheGrooveGoesToThatStep() {
        QWidget window;
        StepController controller;
        controller.setStepCount(5);
        StepActions actions(&controller, &window);
        auto* toolBar = new QToolBar(&window);
        actions.addTo(toolBar);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSlider* slider = actions.slider();
        QStyleOptionSlider option;
        option.initFrom(slider);
        option.orientation = Qt::Horizontal;
        option.minimum = slider->minimum();
        option.maximum = slider->maximum();
        option.tickPosition = slider->tickPosition();
        const QRect groove = slider->style()->subControlRect(QStyle::CC_Slider, &option,
                                                             QStyle::SC_SliderGroove, slider);
        const QRect handle = slider->style()->subControlRect(QStyle::CC_Slider, &option,
                                                             QStyle::SC_SliderHandle, slider);
        // Where the handle's centre sits at `step`.
        const auto at = [&](int step) {
            const int x = QStyle::sliderPositionFromValue(slider->minimum(), slider->maximum(),
                                                          step, groove.width() - handle.width());
            return QPoint(groove.x() + x + handle.width() / 2, slider->height() / 2);
        };
        QSignalSpy moved(&controller, &StepController::stepChanged);
        QTest::mouseClick(slider, Qt::LeftButton, {}, at(3));
        QCOMPARE(controller.step(), 3);
        QCOMPARE(moved.count(), 1);
        QTest::mouseClick(slider, Qt::LeftButton, {}, at(4));
        QCOMPARE(controller.step(), 4);
        QTest::mouseClick(slider, Qt::LeftButton, {}, at(1) + QPoint(3, 0));
        QCOMPARE(controller.step(), 1);
        // Pressing the groove and dragging on moves the handle with the mouse.
        QTest::mousePress(slider, Qt::LeftButton, {}, at(2));
        QCOMPARE(controller.step(), 2);
        QMouseEvent drag(QEvent::MouseMove, QPointF(at(4)), slider->mapToGlobal(QPointF(at(4))),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(slider, &drag);
        QTest::mouseRelease(slider, Qt::LeftButton, {}, at(4));
        QCOMPARE(controller.step(), 4);
    }

    // Typing 1 ms/step (below the box's 50) used to revert to the last value in silence.
    void speedOutOfRangeSaysWhy() {
        QWidget window;
        StepController controller;
        controller.setIntervalMs(700);
        StepActions actions(&controller, &window);
        // In a toolbar, as the window has them: the toolbar owns the slider and the speed box.
        auto* toolBar = new QToolBar(&window);
        actions.addTo(toolBar);
        QSpinBox* speed = actions.speedBox();
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy refused(&actions, &StepActions::speedRefused);
        QLineEdit* edit = speed->findChild<QLineEdit*>();
        speed->setFocus();
        edit->selectAll();
        QTest::keyClicks(edit, "1");
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(speed->value(), 700);
        QCOMPARE(controller.intervalMs(), 700);
        QCOMPARE(refused.count(), 1);
        const QString reason = refused.first().at(0).toString();
        QVERIFY2(
            reason.contains("Speed 1 ms/step refused: a step lasts 50 to 5000 ms; kept 700 ms"),
            qPrintable(reason));

        // A value in range is taken, without a word.
        edit->selectAll();
        QTest::keyClicks(edit, "250");
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(controller.intervalMs(), 250);
        QCOMPARE(refused.count(), 1);
    }
};

QTEST_MAIN(TestStepController)
#include "tst_step_controller.moc"
