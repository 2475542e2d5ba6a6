#pragma once

// The tpviz window: composes the parameter panel, the layer and output panels, the step controls
// and the scene computer. It wires them together and computes nothing itself.

#include "compute/scene_computer.h"
#include "picture/layer_tab.h"

#include <QMainWindow>

class QLabel;
class QProgressBar;
class QSplitter;
class QStackedWidget;
class QPushButton;
class QTableView;
class QTabWidget;

namespace tp {

class DevicesView;
class GroupTableModel;
class LayerPanel;
class OutputPanel;
class BackwardPanel;
class ParameterPanel;
class SceneSession;
class PythonDialog;
class StepActions;
class StepController;
class StepKeys;
class TabTimelines;
struct TimelineStep;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    struct Options {
        bool useSettings = true;  ///< read and write QSettings (off for --screenshot)
    };

    explicit MainWindow(Options options);
    MainWindow() : MainWindow(Options{}) {}
    ~MainWindow() override;

    /// Shows a config (and how to run it: a mistake, the check's rule) in the parameter panel and
    /// computes it now (no debounce).
    /// With SceneSource::Files, `files` names the arrays (read off the UI thread), unless
    /// `loaded` holds them read already (as the command line reads them).
    void showConfig(const LayerConfig& config, SceneSource source, const SceneRun& run = {},
                    const ArrayFiles& files = {}, std::shared_ptr<LoadedArrays> loaded = {});

    /// The scene on screen (the last good one), or null before the first arrives.
    ScenePtr scene() const;
    /// The scene on screen or else the inputs, for the actions that work on it.
    SceneSession* session() const { return m_session; }

    ParameterPanel* parameterPanel() const { return m_parameters; }
    LayerPanel* layerPanel() const { return m_layer; }
    OutputPanel* outputPanel() const { return m_output; }
    /// The backward pass's gradients, shown in the outputs' place at the loop's backward steps.
    BackwardPanel* backwardPanel() const { return m_backward; }
    /// The Layer tab: one Linear's panels above, or the MLP block's.
    LayerTab* layerTab() const { return m_layerTab; }
    /// The position of the tab on screen in its timeline (the Layer tab's loop, the Devices tab's
    /// mesh program): what the step controls drive.
    StepController* stepController() const;
    /// Both tabs' timelines and positions.
    TabTimelines* timelines() const { return m_timelines; }
    StepActions* stepActions() const { return m_stepActions; }
    SceneComputer* computer() const { return m_computer; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* cancelButton() const { return m_cancel; }
    QLabel* equationLabel() const { return m_equation; }
    /// The tabs of the centre: "Layer" (the layer and its outputs) and "Devices" (the mesh).
    QTabWidget* viewTabs() const { return m_views; }
    DevicesView* devicesView() const { return m_devices; }
    QLabel* timingLabel() const { return m_timing; }

    /// Opens the Python snippet of the scene on screen (Help > Python snippet) and returns it.
    PythonDialog* showPythonSnippet();

    /// The window's size at first launch on a screen whose available area is `available`.
    static QSize openingSize(QSize available);

    /// The Parameters dock's width in a window `windowWidth` px wide, at first launch and once
    /// grown back after a narrow spell: a fifth of the window, within [310, 340].
    static int parameterWidth(int windowWidth);

    /// Sizes the window and its docks as at first launch on a screen whose available area is
    /// `available` (the opening size, the parameters about 310 px wide).
    void openOn(QSize available);

    /// Saves the window (not the screen) as a picture, SVG for a .svg path (tp::writePicture);
    /// false when the file cannot be written.
    bool saveScreenshot(const QString& path);
    /// The same; on failure `error` (if given) receives the reason (QImageWriter::errorString).
    bool saveScreenshot(const QString& path, QString* error);
    /// The file name offered for a screenshot (SceneSession::pictureName).
    QString screenshotName() const;
    /// Edit > Reset to defaults: the default scene at step 0.
    void resetToDefaults();

    /// Where the explanations fold away and come back (LayerTab's heights).
    static constexpr int kFoldExplanationsBelow = LayerTab::kFoldExplanationsBelow;
    static constexpr int kShowExplanationsFrom = LayerTab::kShowExplanationsFrom;

signals:
    /// A new scene is on screen.
    void sceneShown();

protected:
    void closeEvent(QCloseEvent* event) override;
    /// A window grown wider gives the Parameters dock back the width it opened with (at the
    /// default size or from saved geometry), which a narrow window took from it.
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildMenus();
    void buildStatusBar();
    /// Stops the computation in flight; the fields return to the scene on screen.
    void cancelComputation();
    void onSceneReady(ScenePtr scene, qint64 elapsedMs);
    void onBusyChanged(bool busy);
    /// Shows the step of the tab on screen in what both tabs share: the words over the tabs and
    /// the Groups dock (each group waiting, computing or done at that step).
    void showStep(const TimelineStep& step);
    void showAbout();
    void saveSettings();

    Options m_options;
    SceneSession* m_session;
    SceneComputer* m_computer;
    TabTimelines* m_timelines;
    StepActions* m_stepActions;
    StepKeys* m_stepKeys = nullptr;
    ParameterPanel* m_parameters;
    LayerPanel* m_layer;
    OutputPanel* m_output;
    BackwardPanel* m_backward;
    LayerTab* m_layerTab;  ///< one Linear's layer and outputs, or the MLP block
    QTabWidget* m_views;
    DevicesView* m_devices;
    GroupTableModel* m_groups;
    QTableView* m_groupTable;
    int m_parameterWidth = 0;  ///< the Parameters dock's width at opening (parameterWidth)
    QLabel* m_equation;
    QLabel* m_caption;
    QLabel* m_hover;
    QLabel* m_timing;
    QString m_sceneTiming;  ///< the timing of the scene on screen
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QTimer* m_progressDelay;
};

}  // namespace tp
