#pragma once

// One timeline per tab, each with its own position: the Layer tab walks the loop, the Devices tab
// the mesh program (timeline.h). The step controls drive the tab on screen.

#include "scene/scene.h"
#include "scene/timeline.h"

#include <QObject>

class QTabWidget;
class QWidget;

namespace tp {

class StepActions;
class StepController;

/// Holds the two timelines of the scene on screen and a StepController for each. The step
/// actions, the slider, the keys and play are bound to the controller of the tab on screen;
/// switching tabs pauses the tab left and shows the position of the tab come to.
class TabTimelines : public QObject {
    Q_OBJECT

public:
    /// `devicesTab` is the page of `tabs` that shows the mesh program; every other page shows
    /// the loop. The step actions are made for `window` (their shortcuts work anywhere in it).
    TabTimelines(QTabWidget* tabs, QWidget* devicesTab, QWidget* window);

    StepActions* actions() const { return m_actions; }
    StepController* loopSteps() const { return m_loopSteps; }
    StepController* programSteps() const { return m_programSteps; }
    /// The controller of the tab on screen.
    StepController* shownSteps() const;
    const Timeline& loop() const { return m_loop; }
    const Timeline& program() const { return m_program; }
    /// The step of the tab on screen, in its timeline.
    const TimelineStep& shownStep() const;

    /// New scenes: the loop of `shown` (the scene on screen, run with its mistake) and the mesh
    /// program of `devices` (the scene the Devices tab shows, the last correct one; null before
    /// there is one: the program of `shown`). Each position is kept, clamped, and stays at the
    /// end of a timeline it was at the end of. Emits every step signal once.
    void setScenes(const Scene& shown, const Scene* devices);
    /// Sets the play speed of both tabs.
    void setIntervalMs(int ms);

signals:
    void loopStepChanged(const tp::TimelineStep& step);
    void programStepChanged(const tp::TimelineStep& step);
    /// The step on screen changed, or the tab did: the words over the tabs say this step.
    void shownStepChanged(const tp::TimelineStep& step);

private:
    bool devicesShown() const;
    void onTabChanged();

    QTabWidget* m_tabs;
    QWidget* m_devicesTab;
    StepController* m_loopSteps;
    StepController* m_programSteps;
    StepActions* m_actions;
    Timeline m_loop;
    Timeline m_program;
};

}  // namespace tp
