#include "step_controller.h"

#include <algorithm>

namespace tp {

StepController::StepController(QObject* parent) : QObject(parent) {
    m_timer.setInterval(700);
    connect(&m_timer, &QTimer::timeout, this, &StepController::advanceOnTimer);
}

void StepController::setStepCount(int count) {
    count = std::max(count, 1);
    if (count == m_count)
        return;
    // A fresh controller (one step) starts the first scene at step 0; after that, a controller at
    // the end of a walk stays at the end of the next scene.
    const bool wasAtEnd = m_count > 1 && atEnd();
    m_count = count;
    emit stepCountChanged(m_count);
    const int step = wasAtEnd ? lastStep() : std::min(m_step, lastStep());
    if (step != m_step) {
        m_step = step;
        emit stepChanged(m_step);
    }
    if (atEnd())
        pause();
}

void StepController::setStep(int step) {
    step = std::clamp(step, 0, lastStep());
    if (step == m_step)
        return;
    m_step = step;
    emit stepChanged(m_step);
}

void StepController::next() {
    setStep(m_step + 1);
}

void StepController::previous() {
    setStep(m_step - 1);
}

void StepController::reset() {
    pause();
    setStep(0);
}

void StepController::goToEnd() {
    pause();
    setStep(lastStep());
}

void StepController::play() {
    if (isPlaying())
        return;
    if (atEnd())
        setStep(0);
    m_timer.start();
    emit playingChanged(true);
}

void StepController::pause() {
    if (!isPlaying())
        return;
    m_timer.stop();
    emit playingChanged(false);
}

void StepController::togglePlay() {
    if (isPlaying())
        pause();
    else
        play();
}

void StepController::setIntervalMs(int ms) {
    ms = std::clamp(ms, 10, 10000);
    if (ms == m_timer.interval())
        return;
    m_timer.setInterval(ms);
    emit intervalChanged(ms);
}

void StepController::advanceOnTimer() {
    next();
    if (atEnd())
        pause();
}

}  // namespace tp
