#include "tab_timelines.h"

#include "step_actions.h"
#include "step_controller.h"

#include <QTabWidget>

namespace tp {
namespace {

// A timeline of one step, until the first scene gives the real ones.
Timeline startOnly() {
    Timeline timeline;
    timeline.steps.emplace_back();
    return timeline;
}

}  // namespace

TabTimelines::TabTimelines(QTabWidget* tabs, QWidget* devicesTab, QWidget* window)
    : QObject(window),
      m_tabs(tabs),
      m_devicesTab(devicesTab),
      m_loopSteps(new StepController(this)),
      m_programSteps(new StepController(this)),
      m_actions(new StepActions(m_loopSteps, window)),
      m_loop(startOnly()),
      m_program(startOnly()) {
    m_loopSteps->setObjectName(QStringLiteral("loopSteps"));
    m_programSteps->setObjectName(QStringLiteral("programSteps"));
    connect(m_loopSteps, &StepController::stepChanged, this, [this](int step) {
        emit loopStepChanged(m_loop.at(step));
        if (!devicesShown())
            emit shownStepChanged(m_loop.at(step));
    });
    connect(m_programSteps, &StepController::stepChanged, this, [this](int step) {
        emit programStepChanged(m_program.at(step));
        if (devicesShown())
            emit shownStepChanged(m_program.at(step));
    });
    // One play speed for both tabs.
    connect(m_loopSteps, &StepController::intervalChanged, m_programSteps,
            &StepController::setIntervalMs);
    connect(m_programSteps, &StepController::intervalChanged, m_loopSteps,
            &StepController::setIntervalMs);
    connect(m_tabs, &QTabWidget::currentChanged, this, &TabTimelines::onTabChanged);
}

bool TabTimelines::devicesShown() const {
    return m_tabs->currentWidget() == m_devicesTab;
}

StepController* TabTimelines::shownSteps() const {
    return devicesShown() ? m_programSteps : m_loopSteps;
}

const TimelineStep& TabTimelines::shownStep() const {
    return devicesShown() ? m_program.at(m_programSteps->step()) : m_loop.at(m_loopSteps->step());
}

void TabTimelines::setScenes(const Scene& shown, const Scene* devices) {
    // The timelines first: a controller's step signals read them.
    m_loop = loopTimeline(shown);
    m_program = meshProgram(devices ? *devices : shown);
    m_loopSteps->setStepCount(m_loop.size());
    m_programSteps->setStepCount(m_program.size());
    emit loopStepChanged(m_loop.at(m_loopSteps->step()));
    emit programStepChanged(m_program.at(m_programSteps->step()));
    emit shownStepChanged(shownStep());
}

void TabTimelines::setIntervalMs(int ms) {
    m_loopSteps->setIntervalMs(ms);  // and the other, through intervalChanged
}

void TabTimelines::onTabChanged() {
    // Play drives the tab on screen: the tab left stops where it is.
    StepController* shown = shownSteps();
    (shown == m_loopSteps ? m_programSteps : m_loopSteps)->pause();
    m_actions->setController(shown);
    emit shownStepChanged(shownStep());
}

}  // namespace tp
