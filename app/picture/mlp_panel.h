#pragma once

// The Layer tab of the MLP block (block/mlp.h): both layers, the hidden activations between them
// and the output, step by step along mlpLoopTimeline, each array a view of the scene's own.

#include "compute/scene_computer.h"
#include "scene/timeline.h"

#include <QWidget>

#include <memory>

class QGridLayout;
class QLabel;
class QSplitter;

namespace tp {

class HeatmapLegend;
class KernelWithBias;
class MatrixView;
class PendingOverlay;
class VerificationView;

/// Top: x beside linear1's kernel1 (with bias1 under it) in its groups' colours, h and a =
/// GeLU(h) under kernel1 column under column, sliced the same way, and kernel2 (with bias2) whose
/// row groups carry the same colours and labels as h's and a's column groups: device g's slice
/// of a feeds device g's rows of kernel2. Bottom: the current device's partial sum (a
/// column-parallel linear2: its block of y), y, the reference, the check of h, a and y, and with a
/// mistake the error map |y - reference|. A mistake's plan changes the groups (row-then-column:
/// kernel1's row groups and x's column groups, kernel2's column groups). At the backward's steps
/// each array's place shows its gradient (dx where x is, dkernel1, dbias1, dh, da, dkernel2,
/// dbias2, the partial dx_g, dy where y is), filling as the devices compute them.
class MlpPanel : public QWidget {
    Q_OBJECT

public:
    explicit MlpPanel(QWidget* parent = nullptr);

    /// Shows a scene of the MLP block (scene->mlp set): views into its arrays, no copies.
    void setScene(ScenePtr scene);
    /// Shows the block at a step of its loop (mlpLoopTimeline).
    void setStep(const TimelineStep& step);

    MatrixView* inputView() const { return m_x; }
    MatrixView* kernel1View() const { return m_kernel1; }
    MatrixView* bias1View() const { return m_bias1; }
    MatrixView* hiddenView() const { return m_h; }      ///< h (its gradient dh)
    MatrixView* activationView() const { return m_a; }  ///< a = gelu(h) (its gradient da)
    MatrixView* kernel2View() const { return m_kernel2; }
    MatrixView* bias2View() const { return m_bias2; }
    MatrixView* partialView() const { return m_partial; }
    MatrixView* outputView() const { return m_y; }
    MatrixView* referenceView() const { return m_reference; }
    MatrixView* errorView() const { return m_error; }
    VerificationView* verificationView() const { return m_verification; }
    /// Each stage's verdict (h, a, y; the backward's gradients) once the pass is complete.
    QLabel* stagesLabel() const { return m_stages; }
    /// What the split does (or the mistake's warning), under x.
    QLabel* warningLabel() const { return m_warning; }
    PendingOverlay* hiddenOverlay() const { return m_hOverlay; }
    PendingOverlay* activationOverlay() const { return m_aOverlay; }
    PendingOverlay* bias1Overlay() const { return m_bias1Overlay; }
    PendingOverlay* outputOverlay() const { return m_yOverlay; }

signals:
    /// Text describing the hovered cell ("" when the pointer leaves).
    void hoverText(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    MatrixView* addView(const QString& objectName, const QString& name);
    void showForwardArrays();
    void showForwardStep(const TimelineStep& step);
    void showBackwardStep(const TimelineStep& step);  // mlp_panel_backward.cpp
    void showChecks(const TimelineStep& step);
    void fitHiddenHeights();

    ScenePtr m_scene;
    std::shared_ptr<const Matrix> m_errors;  ///< the error map's elements (null: none shown)
    bool m_showsBackward = false;            ///< the views hold the gradients
    QSplitter* m_split;
    QGridLayout* m_top;
    MatrixView* m_x;
    MatrixView* m_kernel1;
    MatrixView* m_bias1;
    MatrixView* m_h;
    MatrixView* m_a;
    MatrixView* m_kernel2;
    MatrixView* m_bias2;
    MatrixView* m_partial;
    MatrixView* m_y;
    MatrixView* m_reference;
    MatrixView* m_error;
    KernelWithBias* m_layer1;
    KernelWithBias* m_layer2;
    PendingOverlay* m_xOverlay;
    PendingOverlay* m_kernel1Overlay;
    PendingOverlay* m_bias1Overlay;  ///< dbias1's slices, filled with dkernel1's columns
    PendingOverlay* m_hOverlay;
    PendingOverlay* m_aOverlay;
    PendingOverlay* m_kernel2Overlay;
    PendingOverlay* m_partialOverlay;
    PendingOverlay* m_yOverlay;
    PendingOverlay* m_errorOverlay;
    HeatmapLegend* m_legend;
    QLabel* m_warning;
    QLabel* m_stages;
    VerificationView* m_verification;
};

}  // namespace tp
