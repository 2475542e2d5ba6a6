#include "layer_tab.h"

#include "backward_panel.h"
#include "height_share.h"
#include "layer_panel.h"
#include "matrix_view.h"
#include "mlp_panel.h"
#include "output_panel.h"

#include <QResizeEvent>
#include <QSplitter>

#include <algorithm>

namespace tp {

LayerTab::LayerTab(QWidget* parent) : QStackedWidget(parent) {
    setObjectName(QStringLiteral("layerTab"));
    m_split = new QSplitter(Qt::Vertical);
    m_layer = new LayerPanel;
    m_output = new OutputPanel;
    m_backward = new BackwardPanel;
    m_results = new QStackedWidget;
    m_results->setObjectName(QStringLiteral("resultsStack"));
    m_results->addWidget(m_output);
    m_results->addWidget(m_backward);
    m_split->addWidget(m_layer);
    m_split->addWidget(m_results);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_split->setChildrenCollapsible(false);
    m_split->installEventFilter(this);
    m_mlp = new MlpPanel;
    addWidget(m_split);
    addWidget(m_mlp);
}

bool LayerTab::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_split && event->type() == QEvent::Resize) {
        const int height = static_cast<QResizeEvent*>(event)->size().height();
        const bool shown = m_layer->explanationsShown();
        if (shown && height < kFoldExplanationsBelow) {
            m_layer->setExplanationsShown(false);
            m_output->setExplanationsShown(false);
            emit explanationsShownChanged(false);
        } else if (!shown && height >= kShowExplanationsFrom) {
            m_layer->setExplanationsShown(true);
            m_output->setExplanationsShown(true);
            emit explanationsShownChanged(true);
        }
        shareHeight();  // every height: a short one gives the kernel's numbers the room first
    }
    return QStackedWidget::eventFilter(watched, event);
}

void LayerTab::setScene(const ScenePtr& scene) {
    const bool newShape = !m_scene || m_scene->config.batch != scene->config.batch ||
                          m_scene->config.inDim != scene->config.inDim ||
                          m_scene->config.block != scene->config.block;
    m_scene = scene;
    if (scene->mlp) {
        m_mlp->setScene(scene);
        showPage(m_mlp);
        return;
    }
    showPage(m_split);
    if (newShape)
        shareHeight();
    m_layer->setScene(scene);
    m_output->setScene(scene);
    m_backward->setScene(scene);
}

void LayerTab::setStep(const TimelineStep& step) {
    if (!m_scene)
        return;
    if (m_scene->mlp) {
        m_mlp->setStep(step);
        return;
    }
    // The page first: the gradients' overlays place themselves over views on screen.
    m_results->setCurrentWidget(step.backward ? static_cast<QWidget*>(m_backward) : m_output);
    m_layer->setStep(step);
    m_output->setStep(step);
    m_backward->setStep(step);
}

void LayerTab::showPage(QWidget* page) {
    if (page == currentWidget())
        return;
    setCurrentWidget(page);
    updateGeometry();  // the window's layout asks for the new page's sizes
}

QSize LayerTab::sizeHint() const {
    return currentWidget()->sizeHint();
}

QSize LayerTab::minimumSizeHint() const {
    return currentWidget()->minimumSizeHint();
}

QWidget* LayerTab::keyTarget() const {
    if (currentWidget() == m_mlp)
        return m_mlp->kernel1View();
    return m_layer->kernelView();
}

void LayerTab::shareHeight() {
    if (!m_scene || m_scene->mlp)
        return;
    const int total = std::max(2, m_split->height() - m_split->handleWidth());
    const int layer = layerHeight(m_scene->config, total, m_layer->heightForKernelNumbers(),
                                  m_output->minimumSizeHint().height());
    m_split->setSizes({layer, total - layer});
}

}  // namespace tp
