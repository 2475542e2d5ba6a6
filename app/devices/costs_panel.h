#pragma once

// The costs of a scene's mesh: memory per device against the unsharded layer, bytes on the wire,
// the time estimate on a chosen hardware preset, and how memory and traffic change with tp.

#include "device_holdings.h"

#include <QWidget>

#include <functional>
#include <optional>

class QComboBox;
class QLabel;
class QTabWidget;

namespace tp {

class EstimateBars;
class HardwareBox;
class LayoutSweepPlot;
class TpSweepPlot;

class CostsPanel : public QWidget {
    Q_OBJECT

public:
    explicit CostsPanel(QWidget* parent = nullptr);

    /// As wide as the panel may be: the cards take the rest.
    QSize sizeHint() const override;

    /// Shows the costs of `scene` (its mesh costs and the estimate for the selected preset).
    void setDeviceScene(const DeviceScene& scene);

    /// The selected hardware preset: built-in, read from a file or calibrated (HardwareBox).
    const HardwarePreset& hardware() const;
    /// Selects a preset by name; false when there is none of that name.
    bool selectHardware(const QString& name);

    QComboBox* hardwareBox() const;
    HardwareBox* hardwareChoice() const { return m_hardware; }
    QLabel* memoryLabel() const { return m_memory; }
    QLabel* wireLabel() const { return m_wire; }
    /// With the backward pass: the gradients' bytes per device and each backward collective's
    /// bytes sent; hidden without.
    QLabel* backwardLabel() const { return m_backward; }
    QLabel* estimateLabel() const { return m_estimate; }
    /// One Linear's three layouts side by side on the preset (compareLayouts): memory at rest and
    /// at peak, bytes sent and the estimated time of each pass; hidden for the MLP block.
    QLabel* layoutsLabel() const { return m_layouts; }
    EstimateBars* estimateBars() const { return m_bars; }
    TpSweepPlot* plot() const { return m_plot; }
    /// One Linear's three layouts against tp_size and against D (layoutSweep), each in a tab
    /// beside the tp plot; hidden for the MLP block.
    LayoutSweepPlot* layoutsOverTp() const { return m_layoutsOverTp; }
    LayoutSweepPlot* layoutsOverData() const { return m_layoutsOverData; }
    QTabWidget* plotTabs() const { return m_plots; }

signals:
    void hardwareChanged();

private:
    void showEstimate();

    std::shared_ptr<const SceneCosts> m_costs;
    /// The scene's forward and (when it has one) backward estimate on a preset: one Linear's or
    /// the MLP block's.
    std::function<TimeEstimate(const HardwarePreset&)> m_forwardEstimate;
    std::function<TimeEstimate(const HardwarePreset&)> m_backwardEstimate;
    /// One Linear's config as run, for the layouts' comparison; nullopt for the MLP block.
    std::optional<LayerConfig> m_linear;
    QLabel* m_layouts;
    QLabel* m_layoutsTitle;
    HardwareBox* m_hardware;
    QLabel* m_memory;
    QLabel* m_wire;
    QLabel* m_backward;
    QLabel* m_backwardTitle;
    QLabel* m_estimate;
    EstimateBars* m_bars;
    TpSweepPlot* m_plot;
    LayoutSweepPlot* m_layoutsOverTp;
    LayoutSweepPlot* m_layoutsOverData;
    QTabWidget* m_plots;
};

/// The core's durationText (duration_text.h) for the app's labels: "53.3 µs", "16.0 ms".
QString durationLabel(double seconds);

/// "1 ring step", "3 ring steps": range_text.h's countText for the app's translated nouns.
QString countText(std::int64_t n, const QString& noun);

}  // namespace tp
