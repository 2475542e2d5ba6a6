#pragma once

// The current step of the walk through the groups, and the timer that plays it.

#include <QObject>
#include <QTimer>

namespace tp {

/// Holds the step in [0, stepCount - 1] and plays it forward on a timer. Widgets and actions only
/// call its slots and listen to its signals, so every control moves the same step.
class StepController : public QObject {
    Q_OBJECT

public:
    explicit StepController(QObject* parent = nullptr);

    int step() const { return m_step; }
    int stepCount() const { return m_count; }
    int lastStep() const { return m_count - 1; }
    bool atEnd() const { return m_step == lastStep(); }
    bool isPlaying() const { return m_timer.isActive(); }
    int intervalMs() const { return m_timer.interval(); }

public slots:
    /// A new number of steps (a new scene). A walk that was at its end stays at the end, so a
    /// finished picture stays finished; otherwise the step is clamped. A fresh controller (one
    /// step, no scene yet) stays at step 0.
    void setStepCount(int count);
    void setStep(int step);
    void next();
    void previous();
    /// Back to step 0 and stop playing.
    void reset();
    void goToEnd();
    /// Plays from the current step (from 0 when at the end), one step per interval, and stops at
    /// the last step.
    void play();
    void pause();
    void togglePlay();
    void setIntervalMs(int ms);

signals:
    void stepChanged(int step);
    void stepCountChanged(int count);
    void playingChanged(bool playing);
    void intervalChanged(int ms);

private:
    void advanceOnTimer();

    int m_step = 0;
    int m_count = 1;
    QTimer m_timer;
};

}  // namespace tp
