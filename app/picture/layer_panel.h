#pragma once

// The layer's inputs: x (N, in_dim) beside the kernel (in_dim, features), the bias strip under the
// kernel, and the value legend. Groups carry their colours; the current group stands out.

#include "compute/scene_computer.h"
#include "scene/timeline.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace tp {

class HeatmapLegend;
class KernelWithBias;
class MatrixView;
class TracePanel;
class UnusedCellsOverlay;

class LayerPanel : public QWidget {
    Q_OBJECT

public:
    explicit LayerPanel(QWidget* parent = nullptr);

    /// Shows a scene's x, kernel and bias (views into the scene, no copies).
    void setScene(ScenePtr scene);
    /// Highlights the group of a step of the loop (timeline.h); the start and the bias step
    /// highlight nothing.
    void setStep(const TimelineStep& step);

    MatrixView* inputView() const { return m_x; }
    MatrixView* kernelView() const { return m_kernel; }
    MatrixView* biasView() const { return m_bias; }
    TracePanel* tracePanel() const { return m_trace; }
    /// init-per-group: the kernel every group builds for itself (Scene::groupLayer), drawn right
    /// of the one kernel whose slices the groups should have used; hidden for other scenes.
    MatrixView* ownKernelView() const { return m_own; }

    /// How many terms a trace lists before summing the rest.
    static constexpr Index kTraceTerms = 8;

    /// Shows or folds away the explanations: the notes under x, the legend's caption line and
    /// the trace panel while it holds only its hint (a trace always shows), so that a short
    /// window gives x and the kernel the room. Their text stays in docs/app.md.
    void setExplanationsShown(bool shown);
    bool explanationsShown() const { return m_explanations; }

    /// The least height of this panel at which the kernel prints its numbers at its current
    /// width (the bias strip under it at its least), 0 when no height does. A short window gives
    /// the layer this much first (pictureShare).
    int heightForKernelNumbers() const;

    /// The status text of kernel[row, col]: its value and group, the group's range, the output
    /// column it feeds and its flat index (row * features + col) in the row-major kernel.
    QString kernelHoverText(int row, int col, float value, int group) const;

public slots:
    /// Traces y[row, col]: outlines row `row` of x, column `col` of the kernel and bias[col] in
    /// the owning group's colour and shows the sum in the trace panel. A mistake's output of
    /// another shape than y (sum-groups, concat-partials) has no y[row, col]: the trace clears.
    void traceOutput(int row, int col);
    /// No output cell is traced: the outlines go and the trace panel shows its hint.
    void clearTrace();
    void zoomIn();
    void zoomOut();
    void fitToView();

signals:
    /// Text describing the hovered cell ("" when the pointer leaves).
    void hoverText(const QString& text);

private:
    void connectHover(MatrixView* view, const QString& name, bool vector = false);
    /// Caps x's height at what its rows need with rows as tall as the kernel's, so that x sits
    /// right over its notes and the trace panel takes the spare height.
    void fitInputHeight();
    // How the layer is read wrongly by the scene's mistake (mistake_layer.cpp).
    void showMistake();
    void showMistakeStep(int group);
    /// The trace panel shows with a trace, or with its hint while the explanations show.
    void showTracePanel();

    ScenePtr m_scene;
    QGridLayout* m_grid;
    MatrixView* m_x;
    MatrixView* m_kernel;
    MatrixView* m_bias;
    MatrixView* m_own;
    UnusedCellsOverlay* m_unusedKernel;  ///< slice-x: the kernel cells no group reads
    QLabel* m_xNote;
    QLabel* m_biasNote;
    HeatmapLegend* m_legend;
    KernelWithBias* m_kernelWithBias;
    TracePanel* m_trace;
    bool m_explanations = true;
};

}  // namespace tp
