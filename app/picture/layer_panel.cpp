#include "layer_panel.h"

#include "heatmap_image.h"
#include "heatmap_legend.h"
#include "hover_text.h"
#include "matrix_view.h"
#include "step_plan.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace tp {
namespace {

constexpr int kBiasHeight = 84;

std::vector<IndexRange> groupRanges(const ShardingPlan& plan) {
    std::vector<IndexRange> ranges;
    ranges.reserve(plan.groups.size());
    for (const ShardGroup& group : plan.groups)
        ranges.push_back(plan.mode == ParallelMode::Column ? group.kernelCols : group.kernelRows);
    return ranges;
}

QLabel* noteLabel() {
    auto* label = new QLabel;
    label->setWordWrap(true);
    label->setStyleSheet(QStringLiteral("color: #555;"));
    return label;
}

// Ramps for the legend: the current group, or the first few groups at the start and the end.
std::vector<int> legendGroups(const LayerConfig& config, int currentGroup) {
    if (currentGroup >= 0)
        return {currentGroup};
    std::vector<int> groups;
    for (int g = 0; g < std::min<int>(int(config.tpSize), 4); ++g)
        groups.push_back(g);
    return groups;
}

}  // namespace

/// The kernel over the whole width with the bias strip under it. The strip spans the kernel's
/// viewport and lines its columns up with the kernel's (MatrixView::setColumnLeader); this widget
/// only decides how far down the strip sits (right under the kernel's last row while the kernel
/// fits its width, else at the bottom) and how tall it is.
class KernelWithBias : public QWidget {
public:
    KernelWithBias(MatrixView* kernel, MatrixView* bias) : m_kernel(kernel), m_bias(bias) {
        kernel->setParent(this);
        bias->setParent(this);
        bias->setColumnLeader(kernel);
        // Queued: the kernel computes its new layout in its own resize and zoom handlers first.
        auto later = [this] { QTimer::singleShot(0, this, [this] { placeBias(); }); };
        connect(kernel, &MatrixView::zoomChanged, this, later);
        connect(kernel->horizontalScrollBar(), &QScrollBar::rangeChanged, this, later);
        connect(kernel->horizontalScrollBar(), &QScrollBar::valueChanged, this, later);
    }

    QSize sizeHint() const override {
        const QSize kernel = m_kernel->sizeHint();
        return {kernel.width(), kernel.height() + kBiasHeight};
    }
    QSize minimumSizeHint() const override {
        const QSize kernel = m_kernel->minimumSizeHint();
        return {kernel.width(), kernel.height() + kBiasHeight};
    }

    void placeBias() {
        const QWidget* viewport = m_kernel->viewport();
        const QPoint origin = viewport->mapTo(this, QPoint(0, 0));
        const auto place = [&](int top, int height) {
            m_bias->setGeometry(origin.x(), std::max(0, top), viewport->width(), height);
        };
        const MatrixData& m = m_kernel->matrix();
        const QRectF first = m.isEmpty() ? QRectF() : m_kernel->cellRect(0, 0);
        const QRectF last = m.isEmpty() ? QRectF() : m_kernel->cellRect(m.rows() - 1, m.cols() - 1);
        const bool fits =
            !m.isEmpty() && first.left() >= 0 && last.right() <= viewport->width() + 1;
        if (!fits) {
            place(height() - kBiasHeight, kBiasHeight);
            return;
        }
        const auto under = [&](int stripHeight) {
            place(std::min(int(std::ceil(origin.y() + last.bottom())) + 2, height() - stripHeight),
                  stripHeight);
        };
        under(kBiasHeight);
        // A strip too short for cells as tall as the kernel's are wide: grow it by what they lack.
        if (m_bias->matrix().isEmpty() || !m_bias->isVisible())
            return;
        const qreal lacking = m_bias->heightForSquareCells();
        if (lacking > 0.5)
            under(kBiasHeight + int(std::ceil(lacking)));
    }

protected:
    void resizeEvent(QResizeEvent*) override {
        m_kernel->setGeometry(0, 0, width(), std::max(0, height() - kBiasHeight));
        placeBias();
    }

private:
    MatrixView* m_kernel;
    MatrixView* m_bias;
};

LayerPanel::LayerPanel(QWidget* parent) : QWidget(parent) {
    m_x = new MatrixView;
    m_x->setObjectName(QStringLiteral("inputView"));
    m_kernel = new MatrixView;
    m_kernel->setObjectName(QStringLiteral("kernelView"));
    m_bias = new MatrixView;
    m_bias->setObjectName(QStringLiteral("biasView"));
    m_xNote = noteLabel();
    m_xNote->setObjectName(QStringLiteral("inputNote"));
    m_biasNote = noteLabel();
    m_biasNote->setObjectName(QStringLiteral("biasNote"));
    m_legend = new HeatmapLegend;

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_x, 0, 0);
    grid->addWidget(m_xNote, 1, 0, Qt::AlignTop);
    // The bias strip sits under the kernel, column under column.
    m_kernelWithBias = new KernelWithBias(m_kernel, m_bias);
    grid->addWidget(m_kernelWithBias, 0, 1, 2, 1);
    auto* under = new QHBoxLayout;
    under->addWidget(m_biasNote, 1);
    under->addWidget(m_legend);
    grid->addLayout(under, 2, 0, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 4);
    grid->setRowStretch(0, 1);

    connectHover(m_x, QStringLiteral("x"));
    connectHover(m_kernel, QStringLiteral("kernel"));
    connectHover(m_bias, QStringLiteral("bias"), true);
    connect(m_kernel, &MatrixView::effectiveScaleChanged, this,
            [this](float scale) { m_legend->setScale(scale); });
}

void LayerPanel::connectHover(MatrixView* view, const QString& name, bool vector) {
    connect(view, &MatrixView::cellHovered, this,
            [this, name, vector](int row, int col, float value, int group) {
                emit hoverText(tp::hoverText(name, vector ? -1 : row, col, value, group));
            });
    connect(view, &MatrixView::hoverLeft, this, [this] { emit hoverText(QString()); });
}

void LayerPanel::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    const LayerConfig& c = m_scene->config;
    const LayerParams& p = m_scene->params;
    const ShardingPlan& plan = m_scene->result.plan;
    const std::vector<IndexRange> ranges = groupRanges(plan);
    const bool column = c.mode == ParallelMode::Column;

    m_kernel->setMatrix(MatrixData::of(m_scene, p.kernel));
    m_kernel->setGroups(ranges, column ? Qt::Horizontal : Qt::Vertical);
    m_kernel->setTitle(tr("kernel (in_dim %1, features %2): %3 groups of %4 %5")
                           .arg(c.inDim)
                           .arg(c.features)
                           .arg(c.tpSize)
                           .arg(plan.chunk)
                           .arg(column ? tr("columns") : tr("rows")));
    m_bias->setMatrix(MatrixData::ofRow(m_scene, p.bias));
    m_bias->setTitle(tr("bias (%1,)").arg(c.features));
    m_x->setMatrix(MatrixData::of(m_scene, p.x));
    m_x->setTitle(tr("x (N %1, in_dim %2)").arg(c.batch).arg(c.inDim));
    if (column) {
        m_bias->setGroups(ranges, Qt::Horizontal);
        m_x->setGroups({}, Qt::Horizontal);
        m_xNote->setText(
            tr("<b>x: the full input every group receives.</b> Each group multiplies "
               "all of x by its own kernel columns."));
        m_biasNote->setText(tr("bias is sliced like the kernel's columns: group i adds "
                               "bias[i*%1:(i+1)*%1] to its own output columns.")
                                .arg(plan.chunk));
    } else {
        m_bias->setGroups({}, Qt::Horizontal);
        m_x->setGroups(ranges, Qt::Horizontal);
        m_xNote->setText(tr("<b>x is split by columns</b> to match the kernel's row groups: group "
                            "i reads x[:, i*%1:(i+1)*%1].")
                             .arg(plan.chunk));
        m_biasNote->setText(
            tr("bias is not split: it is added once, to the sum of the partial "
               "products, in the last step."));
    }
    m_legend->setScale(m_kernel->effectiveScale());
    m_legend->setGroups(legendGroups(c, -1));
    m_kernelWithBias->placeBias();
}

void LayerPanel::setStep(int step) {
    if (!m_scene)
        return;
    const LayerConfig& c = m_scene->config;
    const StepState state = stepState(c, step);
    const int group = state.currentGroup;
    m_kernel->setHighlightedGroup(group);
    if (c.mode == ParallelMode::Column) {
        m_bias->setHighlightedGroup(group);
        m_x->setHighlightedGroup(-1);
    } else {
        m_x->setHighlightedGroup(group);
        m_bias->setHighlightedGroup(-1);
    }
    m_legend->setScale(m_kernel->effectiveScale());
    m_legend->setGroups(legendGroups(c, group));
}

void LayerPanel::zoomIn() {
    m_kernel->zoomIn();
}

void LayerPanel::zoomOut() {
    m_kernel->zoomOut();
}

void LayerPanel::fitToView() {
    m_kernel->resetZoom();
}

}  // namespace tp
