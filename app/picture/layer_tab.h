#pragma once

// The Layer tab: one Linear's layer over its outputs (at the backward's steps, its gradients), or
// the MLP block's panel, whichever the scene on screen is; the loop's steps go to the one shown.

#include "compute/scene_computer.h"
#include "scene/timeline.h"

#include <QStackedWidget>

class QSplitter;

namespace tp {

class BackwardPanel;
class LayerPanel;
class MlpPanel;
class OutputPanel;

class LayerTab : public QStackedWidget {
    Q_OBJECT

public:
    explicit LayerTab(QWidget* parent = nullptr);

    LayerPanel* layerPanel() const { return m_layer; }
    OutputPanel* outputPanel() const { return m_output; }
    BackwardPanel* backwardPanel() const { return m_backward; }
    MlpPanel* mlpPanel() const { return m_mlp; }
    /// One Linear's page: the layer over the outputs.
    QSplitter* linearPage() const { return m_split; }

    /// Shows a new scene on the page for its block.
    void setScene(const ScenePtr& scene);
    /// Shows a step of the loop (loopTimeline) of the scene shown.
    void setStep(const TimelineStep& step);
    /// The view the step keys go to: the kernel of the page shown.
    QWidget* keyTarget() const;
    /// Shares one Linear's height between the layer and the outputs (layerHeight): by their rows,
    /// the kernel's numbers first.
    void shareHeight();

    /// The height of one Linear's layer and outputs together (logical px) below which their
    /// explanations fold away (LayerPanel/OutputPanel::setExplanationsShown, and the step's
    /// caption over them), and from which they show again. Folding the caption makes the picture
    /// one text line taller; the gap, wider than that line, keeps it from flipping back.
    static constexpr int kFoldExplanationsBelow = 500;
    static constexpr int kShowExplanationsFrom = 560;

    /// The page shown's sizes only: the page not shown (the MLP block's, wider) must not widen
    /// the window nor narrow the Parameters beside one Linear's picture.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /// The explanations folded away (false) or came back (true): the caption over the tab follows.
    void explanationsShownChanged(bool shown);

protected:
    /// Folds or shows the explanations as the picture's height (the linear page) changes; the
    /// decision reads only that height, which the folding does not change.
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Shows `page` (one Linear's or the block's) and lets the layout take its sizes.
    void showPage(QWidget* page);

    ScenePtr m_scene;
    QSplitter* m_split;
    LayerPanel* m_layer;
    OutputPanel* m_output;
    BackwardPanel* m_backward;
    QStackedWidget* m_results;  ///< under the layer: the outputs, or the gradients
    MlpPanel* m_mlp;
};

}  // namespace tp
