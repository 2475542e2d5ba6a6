// The step controller: moving, clamping, playing to the end.

#include "step_controller.h"

#include <QSignalSpy>
#include <QTest>

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
};

QTEST_MAIN(TestStepController)
#include "tst_step_controller.moc"
