#include "layer_panel.h"

#include "group_band.h"
#include "heatmap_image.h"
#include "heatmap_legend.h"
#include "hover_text.h"
#include "kernel_with_bias.h"
#include "layer/trace.h"
#include "matrix_view.h"
#include "palette.h"
#include "readable_height.h"
#include "trace_panel.h"
#include "unused_cells_overlay.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tp {
namespace {

// The widest a kernel column is held for its numbers: an 800 px window with its Parameters keeps
// it beside x. A kernel that needs more shares the width by the columns alone.
constexpr int kMaxKernelLeastWidth = 480;
constexpr qreal kMinXCell = 24;

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
    label->setForegroundRole(QPalette::PlaceholderText);  // secondary text, light or dark theme
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

LayerPanel::LayerPanel(QWidget* parent) : QWidget(parent) {
    m_x = new MatrixView;
    m_x->setObjectName(QStringLiteral("inputView"));
    m_kernel = new MatrixView;
    m_kernel->setObjectName(QStringLiteral("kernelView"));
    m_unusedKernel = new UnusedCellsOverlay(m_kernel);
    m_bias = new MatrixView;
    m_bias->setObjectName(QStringLiteral("biasView"));
    m_own = new MatrixView;
    m_own->setObjectName(QStringLiteral("ownKernelView"));
    m_own->hide();
    m_xNote = noteLabel();
    m_xNote->setObjectName(QStringLiteral("inputNote"));
    m_biasNote = noteLabel();
    m_biasNote->setObjectName(QStringLiteral("biasNote"));
    m_legend = new HeatmapLegend;

    m_x->setHorizontalAlignment(Qt::AlignRight);  // x hugs the kernel: no empty band between
    m_kernel->setHorizontalAlignment(Qt::AlignLeft);
    auto* grid = new QGridLayout(this);
    m_grid = grid;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_x, 0, 0);
    // Column 0: x and the words about it; the kernel with its bias strip takes all the height of
    // column 1, so that the kernel gets the most room.
    grid->addWidget(m_xNote, 1, 0, Qt::AlignTop);
    grid->addWidget(m_biasNote, 2, 0, Qt::AlignTop);
    grid->addWidget(m_legend, 3, 0);
    m_trace = new TracePanel;
    grid->addWidget(m_trace, 4, 0);
    // The bias strip sits under the kernel, column under column.
    m_kernelWithBias = new KernelWithBias(m_kernel, m_bias);
    m_kernelWithBias->onResized = [this] {
        // x's cells are never larger than the kernel's, so the two read alike; but never capped
        // below kMinXCell, so that x stays visible beside a kernel of sub-pixel cells.
        const QSizeF cell = m_kernel->layout().base;
        if (!cell.isEmpty())
            m_x->setMaxFitCell(std::max({cell.width(), cell.height(), kMinXCell}));
        fitInputHeight();
    };
    grid->addWidget(m_kernelWithBias, 0, 1, 5, 1);
    grid->addWidget(m_own, 0, 2, 5, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 4);
    // x grows up to the height its rows need (fitInputHeight), the trace panel takes the rest:
    // no empty band around x's few rows.
    grid->setRowStretch(0, 1);
    grid->setRowStretch(4, 1);

    connectHover(m_x, QStringLiteral("x"));
    m_kernel->setName(QStringLiteral("kernel"));
    connect(m_kernel, &MatrixView::cellHovered, this,
            [this](int row, int col, float value, int group) {
                emit hoverText(kernelHoverText(row, col, value, group));
            });
    connect(m_kernel, &MatrixView::hoverLeft, this, [this] { emit hoverText(QString()); });
    connectHover(m_bias, QStringLiteral("bias"), true);
    connectHover(m_own, QStringLiteral("own_kernel"));
    connect(m_kernel, &MatrixView::effectiveScaleChanged, this,
            [this](float scale) { m_legend->setScale(scale); });
}

void LayerPanel::connectHover(MatrixView* view, const QString& name, bool vector) {
    view->setName(name);
    connect(view, &MatrixView::cellHovered, this,
            [this, view, vector](int row, int col, float value, int group) {
                emit hoverText(tp::hoverText(view->name(), vector ? -1 : row, col, value, group));
            });
    connect(view, &MatrixView::hoverLeft, this, [this] { emit hoverText(QString()); });
}

QString LayerPanel::kernelHoverText(int row, int col, float value, int group) const {
    QString text = tp::hoverText(m_kernel->name(), row, col, value, group);
    if (!m_scene)
        return text;
    const KernelCellTrace t = traceKernelCell(m_scene->result.plan, row, col);
    const bool column = m_scene->config.mode == ParallelMode::Column;
    text += tr(" · %1 %2 · feeds y[:, %3]%4 · flat index %5 of the row-major kernel")
                .arg(column ? tr("columns") : tr("rows"), rangeText(t.groupRange))
                .arg(t.outputCol)
                .arg(column ? QString() : tr(" through group %1's partial sum").arg(t.group))
                .arg(t.flatIndex);
    if (m_scene->kernelDrawn)
        text += QStringLiteral(" · ") +
                QString::fromStdString(
                    bitsOriginText(kernelBitsOrigin(m_scene->config.inDim, m_scene->config.features,
                                                    m_scene->config.prng, t.flatIndex),
                                   m_scene->config.prng));
    return text;
}

void LayerPanel::traceOutput(int row, int col) {
    if (!m_scene || row < 0 || col < 0 || row >= m_scene->config.batch ||
        col >= m_scene->config.features)
        return;
    const Scene& s = *m_scene;
    if (s.result.output.rows() != s.reference.rows() ||
        s.result.output.cols() != s.reference.cols()) {
        clearTrace();
        return;
    }
    const OutputTrace t = tp::traceOutput(s.params.x, s.params.kernel, s.params.bias, s.result,
                                          s.reference, row, col, kTraceTerms);
    // Column mode: the owning group's colour; row mode: every group reads a part of the column,
    // so a neutral dark outline.
    const QColor colour = t.ownerGroup >= 0 ? groupColor(t.ownerGroup) : QColor(0x20, 0x20, 0x20);
    m_x->setTraceLines(row, -1, colour);
    m_kernel->setTraceLines(-1, col, colour);
    m_bias->setTraceLines(-1, col, colour);
    m_trace->showTrace(t, s.config.mode);
    showTracePanel();
}

void LayerPanel::clearTrace() {
    for (MatrixView* view : {m_x, m_kernel, m_bias})
        view->setTraceLines(-1, -1, QColor());
    m_trace->clear();
    showTracePanel();
}

void LayerPanel::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    m_trace->clear();
    showTracePanel();
    const LayerConfig& c = m_scene->config;
    const LayerParams& p = m_scene->params;
    const ShardingPlan& plan = m_scene->result.plan;
    const std::vector<IndexRange> ranges = groupRanges(plan);
    const bool column = c.mode == ParallelMode::Column;

    m_kernel->setMatrix(MatrixData::of(m_scene, p.kernel), m_scene->kernelMaxAbs);
    m_kernel->setGroups(ranges, column ? Qt::Horizontal : Qt::Vertical);
    const bool one = plan.chunk == 1;  // "2 groups of 1 row", not "of 1 rows"
    m_kernel->setTitle(
        tr("kernel (in_dim %1, features %2): %3 %4 of %5 %6")
            .arg(c.inDim)
            .arg(c.features)
            .arg(c.tpSize)
            .arg(c.tpSize == 1 ? tr("group") : tr("groups"))
            .arg(plan.chunk)
            .arg(column ? (one ? tr("column") : tr("columns")) : (one ? tr("row") : tr("rows"))));
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
    NonFiniteKinds nonFinite = m_x->nonFinite();
    nonFinite |= m_kernel->nonFinite();
    nonFinite |= m_bias->nonFinite();
    m_legend->setNonFinite(nonFinite);
    // x (N, in_dim) and the kernel (in_dim, features) share the width by their columns, so their
    // cells come out alike; the kernel keeps at least 55% of it.
    const double xShare = std::clamp(double(c.inDim) / double(c.inDim + c.features), 0.15, 0.45);
    m_grid->setColumnStretch(0, int(std::lround(xShare * 100)));
    m_grid->setColumnStretch(1, 100 - int(std::lround(xShare * 100)));
    // The kernel's numbers first, across too: a narrow layer keeps the width they need.
    const int least = widthForNumbers(m_kernel->numbersLayout());
    m_kernelWithBias->setMinimumWidth(least <= kMaxKernelLeastWidth ? least : 0);
    showMistake();
    m_kernelWithBias->placeBias();
    m_kernelWithBias->onResized();
}

void LayerPanel::setStep(const TimelineStep& step) {
    if (!m_scene)
        return;
    const LayerConfig& c = m_scene->config;
    const int group = step.currentGroup;
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
    m_trace->setBackwardStep(step.backward);
    showMistakeStep(group);
}

void LayerPanel::fitInputHeight() {
    const QSizeF cell = m_kernel->layout().base;
    if (m_x->matrix().isEmpty() || cell.isEmpty()) {
        m_x->setMaximumHeight(QWIDGETSIZE_MAX);
        return;
    }
    // x's rows as tall as the kernel's (x's cells follow the kernel's size), plus its title,
    // band and margins: what the view has beyond its cell area.
    const qreal chrome = m_x->height() - m_x->layout().area.height();
    const qreal rows = qreal(m_x->matrix().rows()) * std::max(cell.height(), kMinXCell);
    // Qt's largest height for a million rows and more.
    const int wanted = int(std::min<qreal>(std::ceil(chrome + rows), QWIDGETSIZE_MAX));
    m_x->setMaximumHeight(std::max(wanted, m_x->minimumSizeHint().height()));
}

int LayerPanel::heightForKernelNumbers() const {
    return m_kernelWithBias->heightForNumbers();
}

void LayerPanel::setExplanationsShown(bool shown) {
    m_explanations = shown;
    m_xNote->setVisible(shown);
    m_biasNote->setVisible(shown);
    m_legend->setCaptionShown(shown);
    showTracePanel();
}

void LayerPanel::showTracePanel() {
    m_trace->setVisible(m_explanations || m_trace->showsTrace());
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
