#pragma once

// The layer's backward pass step by step (scene_backward.h), in the Layer tab under x and the
// kernel: the cotangent dy, each group's gradient blocks filling in, dx and dbias.

#include "compute/scene_computer.h"
#include "scene/timeline.h"

#include <QWidget>

class QGridLayout;
class QLabel;

namespace tp {

class MatrixView;
class PendingOverlay;

/// dy (batch, features) with dbias = dy.sum(0) under it, dkernel (in_dim, features) filling one
/// group's block at a time in its colour, and dx:
/// - column mode: the current group's partial dx_g = dy[:, cols] @ kernel[:, cols]^T, a whole
///   (batch, in_dim) array that covers only its features' terms, and dx = the sum of the
///   partials, in at the SumDx step; dbias fills block by block with dkernel's columns.
/// - row mode: dx with each group's own slice dx[:, rows] placed side by side as the groups
///   compute them (nothing summed); dbias = dy.sum(0) in at its own step, once.
/// Every view shows the scene's own gradients (Scene::backward): no copies.
class BackwardPanel : public QWidget {
    Q_OBJECT

public:
    explicit BackwardPanel(QWidget* parent = nullptr);

    /// A scene with its backward pass (Scene::backward); a scene without one clears the views.
    void setScene(ScenePtr scene);
    /// Shows the gradients as a backward step of the loop leaves them (timeline.h).
    void setStep(const TimelineStep& step);

    MatrixView* dyView() const { return m_dy; }
    MatrixView* dkernelView() const { return m_dkernel; }
    MatrixView* dbiasView() const { return m_dbias; }
    /// Column mode: the current group's dx partial; hidden in row mode.
    MatrixView* dxPartialView() const { return m_dxPartial; }
    /// Column mode: the sum of the partials; row mode: the slices side by side.
    MatrixView* dxView() const { return m_dx; }
    PendingOverlay* dkernelOverlay() const { return m_dkernelOverlay; }
    PendingOverlay* dbiasOverlay() const { return m_dbiasOverlay; }
    PendingOverlay* dxOverlay() const { return m_dxOverlay; }
    QLabel* noteLabel() const { return m_note; }
    /// The gradients' check against jax.vjp's: waiting until the backward's last step, then one
    /// line per gradient with its verdict (backwardVerdictLines).
    QLabel* verdictLabel() const { return m_verdict; }

    /// The status text of a gradient cell: its value and group, and the sum it is, e.g.
    /// "dkernel[3, 5] = 0.25 · group 1 · dkernel[3, 5] = sum_i x[i, 3] * dy[i, 5] over the 2
    /// rows of the batch".
    QString gradientHoverText(const MatrixView* view, int row, int col, float value,
                              int group) const;

signals:
    /// Text describing the hovered cell ("" when the pointer leaves).
    void hoverText(const QString& text);

private:
    void connectHover(MatrixView* view);
    /// The check's words: waiting, or (whole: the backward's last step) each gradient's verdict.
    void setVerdict(bool whole);

    ScenePtr m_scene;
    QGridLayout* m_grid;
    MatrixView* m_dy;
    MatrixView* m_dbias;
    MatrixView* m_dkernel;
    MatrixView* m_dxPartial;
    MatrixView* m_dx;
    PendingOverlay* m_dyOverlay;
    PendingOverlay* m_dbiasOverlay;
    PendingOverlay* m_dkernelOverlay;
    PendingOverlay* m_dxPartialOverlay;
    PendingOverlay* m_dxOverlay;
    QLabel* m_note;
    QLabel* m_verdict;
};

}  // namespace tp
