#pragma once

// The scene a window shows, for the actions that work on it (scene files, exports): the scene on
// screen, or else the inputs as a request; show() to put a request on screen; sceneShown when a
// new scene is there.

#include "scene/scene.h"
#include "scene/scene_request.h"

#include <QObject>
#include <QString>

#include <memory>

class QMainWindow;

namespace tp {

class ParameterPanel;
class SceneComputer;
class StepController;
class TabTimelines;

class SceneSession : public QObject {
    Q_OBJECT

public:
    /// The session of `window`, whose inputs are `inputs`, computed by `computer`, stepped by
    /// `timelines`; a child of `window`.
    SceneSession(QMainWindow* window, ParameterPanel* inputs, SceneComputer* computer,
                 TabTimelines* timelines);

    /// The scene on screen (the last good one), or null before the first arrives.
    ScenePtr scene() const { return m_scene; }
    /// The scene on screen as a request (its config, source, mistake and check, and the files
    /// named when its arrays come from files), or else the inputs' (inputs()). Its arrays are
    /// not read.
    SceneRequest request() const;
    /// What the inputs say now, as a request (its arrays not read).
    SceneRequest inputs() const;

    /// Shows `request` in the inputs and computes it now (no debounce), unless the inputs refuse
    /// it (each problem then shown next to its input). With SceneSource::Files the worker reads
    /// request.files, unless `loaded` holds those arrays read already (as the command line reads
    /// them); request.arrays is not read.
    void show(const SceneRequest& request, std::shared_ptr<LoadedArrays> loaded = {});

    /// The position of the tab on screen in its timeline: what the step controls drive.
    StepController* steps() const;
    /// The file name offered for a picture of the window: named after the scene and the step,
    /// e.g. "tpviz-8x12-column-tp3-step0.png".
    QString pictureName() const;
    /// The window the scene is shown in: the parent of dialogs, its status bar for messages.
    QMainWindow* window() const { return m_window; }

    /// Puts `scene` on screen as the scene of the session; sceneShown() once every view shows it.
    void setScene(ScenePtr scene) { m_scene = std::move(scene); }

signals:
    /// A new scene is on screen.
    void sceneShown();
    /// The scene asked for last cannot be computed (out of memory, its array files refused): the
    /// reason in words; the scene on screen, if any, stays.
    void sceneRefused(const QString& reason);

private:
    QMainWindow* m_window;
    ParameterPanel* m_inputs;
    SceneComputer* m_computer;
    TabTimelines* m_timelines;
    ScenePtr m_scene;
};

}  // namespace tp
