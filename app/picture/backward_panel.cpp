#include "backward_panel.h"

#include "hover_text.h"
#include "layer/range_text.h"
#include "matrix_view.h"
#include "pending_overlay.h"
#include "scene/backward_report.h"
#include "scene/scene_backward.h"

#include <QGridLayout>
#include <QLabel>

#include <algorithm>

namespace tp {
namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

MatrixView* gradientView(const QString& objectName, const QString& name) {
    auto* view = new MatrixView;
    view->setObjectName(objectName);
    view->setName(name);
    return view;
}

// The column groups (column mode's kernel columns) or row groups (row mode's kernel rows).
std::vector<IndexRange> groupRanges(const ShardingPlan& plan, bool rows) {
    std::vector<IndexRange> ranges;
    for (const ShardGroup& g : plan.groups)
        ranges.push_back(rows ? g.kernelRows : g.kernelCols);
    return ranges;
}

// Where the blocks of groups 0..done-1 end along the split dimension (0 before the first).
Index filledTo(const ShardingPlan& plan, int done, bool rows) {
    if (done == 0)
        return 0;
    const ShardGroup& g = plan.groups[std::size_t(done - 1)];
    return rows ? g.kernelRows.stop : g.kernelCols.stop;
}

}  // namespace

BackwardPanel::BackwardPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("backwardPanel"));
    // It takes the room the outputs are given (the window shares its height by theirs): its own
    // least size must not raise the least size of the page they share.
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_dy = gradientView(QStringLiteral("dyView"), QStringLiteral("dy"));
    m_dbias = gradientView(QStringLiteral("dbiasView"), QStringLiteral("dbias"));
    m_dkernel = gradientView(QStringLiteral("dkernelView"), QStringLiteral("dkernel"));
    m_dxPartial = gradientView(QStringLiteral("dxPartialView"), QStringLiteral("dx_g"));
    m_dx = gradientView(QStringLiteral("dxView"), QStringLiteral("dx"));
    m_dyOverlay = new PendingOverlay(m_dy);
    m_dbiasOverlay = new PendingOverlay(m_dbias);
    m_dkernelOverlay = new PendingOverlay(m_dkernel);
    m_dxPartialOverlay = new PendingOverlay(m_dxPartial);
    m_dxOverlay = new PendingOverlay(m_dx);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("backwardNote"));
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("backwardVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // dy    | dkernel | dx_g (column mode)
    // dbias |         | dx
    // the note under all three, then the check
    auto* grid = new QGridLayout(this);
    m_grid = grid;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_dy, 0, 0);
    grid->addWidget(m_dbias, 1, 0);
    grid->addWidget(m_dkernel, 0, 1, 2, 1);
    grid->addWidget(m_dxPartial, 0, 2);
    grid->addWidget(m_dx, 1, 2);
    grid->addWidget(m_note, 2, 0, 1, 3);
    grid->addWidget(m_verdict, 3, 0, 1, 3);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    for (MatrixView* view : {m_dy, m_dbias, m_dkernel, m_dxPartial, m_dx})
        connectHover(view);
}

void BackwardPanel::connectHover(MatrixView* view) {
    connect(view, &MatrixView::cellHovered, this,
            [this, view](int row, int col, float value, int group) {
                emit hoverText(gradientHoverText(view, row, col, value, group));
            });
    connect(view, &MatrixView::hoverLeft, this, [this] { emit hoverText(QString()); });
}

QString BackwardPanel::gradientHoverText(const MatrixView* view, int row, int col, float value,
                                         int group) const {
    const bool vector = view == m_dbias;
    QString text = tp::hoverText(view->name(), vector ? -1 : row, col, value, group);
    if (!m_scene || !m_scene->backward)
        return text;
    const LayerConfig& c = m_scene->config;
    const QString rows = qs(countText(c.batch, "row"));
    const QString i = QString::number(row);
    const QString j = QString::number(col);
    QString sum;
    if (view == m_dkernel) {
        sum = tr("dkernel[%1, %2] = sum_i x[i, %1] * dy[i, %2] over the %3 of the batch")
                  .arg(i, j, rows);
    } else if (view == m_dbias) {
        sum = tr("dbias[%1] = sum_i dy[i, %1] over the %2 of the batch").arg(j, rows);
    } else if (view == m_dy) {
        sum = tr("the cotangent of y[%1, %2]").arg(i, j);
    } else if (view == m_dxPartial && m_dxPartial->highlightedGroup() >= 0) {
        const int g = m_dxPartial->highlightedGroup();
        const IndexRange cols = m_scene->backward->result.plan.groups[std::size_t(g)].kernelCols;
        sum = tr("dx_%1[%2, %3] = sum_j dy[%2, j] * kernel[%3, j] over group %1's features %4 "
                 "only")
                  .arg(g)
                  .arg(i, j, qs(sliceText(cols)));
    } else if (view == m_dx) {
        sum = tr("dx[%1, %2] = sum_j dy[%1, j] * kernel[%2, j] over all %3")
                  .arg(i, j, qs(countText(c.features, "feature")));
        if (c.mode == ParallelMode::Column)
            sum += tr(", the sum of the %1").arg(qs(countText(c.tpSize, "partial")));
    }
    return sum.isEmpty() ? text : text + QStringLiteral(" · ") + sum;
}

void BackwardPanel::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    if (!m_scene || !m_scene->backward) {
        for (MatrixView* view : {m_dy, m_dbias, m_dkernel, m_dxPartial, m_dx})
            view->setMatrix({});
        return;
    }
    const LayerConfig& c = m_scene->config;
    const SceneBackward& b = *m_scene->backward;
    const Gradients& grads = b.result.gradients;
    const ShardingPlan& plan = b.result.plan;
    const bool column = c.mode == ParallelMode::Column;
    const std::vector<IndexRange> ranges = groupRanges(plan, !column);

    m_dy->setMatrix(MatrixData::of(m_scene, b.dy));
    m_dy->setTitle(tr("dy (N %1, features %2): the cotangent of y").arg(c.batch).arg(c.features));
    m_dy->setGroups(column ? ranges : std::vector<IndexRange>{}, Qt::Horizontal);
    m_dbias->setMatrix(MatrixData::ofRow(m_scene, grads.dbias));
    m_dbias->setTitle(tr("dbias = dy.sum(0) (%1,)").arg(c.features));
    m_dbias->setGroups(column ? ranges : std::vector<IndexRange>{}, Qt::Horizontal);
    m_dkernel->setMatrix(MatrixData::of(m_scene, grads.dkernel));
    m_dkernel->setTitle(
        tr("dkernel = x^T @ dy (in_dim %1, features %2)").arg(c.inDim).arg(c.features));
    m_dkernel->setGroups(ranges, column ? Qt::Horizontal : Qt::Vertical);
    m_dx->setMatrix(MatrixData::of(m_scene, grads.dx));
    m_dx->setGroups(column ? std::vector<IndexRange>{} : ranges, Qt::Horizontal);
    m_dxPartial->setVisible(column);
    // Row mode has no partials: dx takes their place too.
    m_grid->removeWidget(m_dx);
    m_grid->addWidget(m_dx, column ? 1 : 0, 2, column ? 1 : 2, 1);
    if (column) {
        m_dx->setTitle(tr("dx = sum of the %1 (N %2, in_dim %3)")
                           .arg(qs(countText(c.tpSize, "partial")))
                           .arg(c.batch)
                           .arg(c.inDim));
        m_note->setText(
            tr("<b>dx is summed over the groups.</b> Each group holds only its columns of the "
               "kernel, so its dx_g = dy[:, cols] @ kernel[:, cols]^T has only its %1 of the %2 "
               "features' terms: dx = dy @ kernel^T is the sum of the partials (the all-reduce "
               "over \"model\"). dkernel and dbias are each group's own columns.")
                .arg(plan.chunk)
                .arg(c.features));
    } else {
        m_dx->setTitle(tr("dx = slices side by side (N %1, in_dim %2)").arg(c.batch).arg(c.inDim));
        m_note->setText(
            tr("<b>dx is placed, not summed.</b> Each group holds kernel rows, so its dy @ "
               "kernel[rows, :]^T is exactly its own columns dx[:, rows]: nothing moves. dbias = "
               "dy.sum(0) is taken once, as the bias was added once."));
    }
    m_dxPartial->setMatrix({});
}

void BackwardPanel::setVerdict(bool whole) {
    if (!whole) {
        m_verdict->setText(
            tr("<b>The check waits for the last step:</b> each gradient against "
               "jax.vjp's, with the rounding bound of its own product."));
        return;
    }
    const BackwardVerification& v = m_scene->backward->verification;
    QString text = v.passed() ? tr("<b>Gradients checked against jax.vjp's: passed.</b>")
                              : tr("<b style='color:#c62828'>Gradients checked against "
                                   "jax.vjp's: NOT passed.</b>");
    for (const std::string& line : backwardVerdictLines(v))
        text += QStringLiteral("<br>") + QString::fromStdString(line).toHtmlEscaped();
    m_verdict->setText(text);
}

void BackwardPanel::setStep(const TimelineStep& step) {
    if (!m_scene || !m_scene->backward)
        return;
    const LayerConfig& c = m_scene->config;
    const BackwardResult& r = m_scene->backward->result;
    const bool column = c.mode == ParallelMode::Column;
    const int done = step.gradientGroupsDone;
    const int group = step.currentGroup;
    const QString waits = tr("each group's block comes at its step");

    m_dyOverlay->setPending(step.backward ? -1 : 0, tr("dy arrives after the forward pass"));
    setVerdict(step.dxIn && step.dbiasIn);
    for (MatrixView* view : {m_dy, m_dkernel, m_dbias, m_dx})
        view->setHighlightedGroup(group);
    const Index filled = filledTo(r.plan, done, !column);
    if (column) {
        m_dkernelOverlay->setPending(filled, waits);
        m_dbiasOverlay->setPending(filled, QString());
    } else {
        m_dkernelOverlay->setPendingRows(filled, waits);
        m_dbiasOverlay->setPending(step.dbiasIn ? -1 : 0, tr("once, at the last step"));
    }
    if (!column) {
        m_dxOverlay->setPending(filled, tr("each group's own slice"));
        return;
    }
    // Column mode: the partial of the group at this step (at the sum, the last one's).
    const int shown = group >= 0 ? group : done - 1;
    if (shown >= 0) {
        const ShardGroup& g = r.plan.groups[std::size_t(shown)];
        m_dxPartial->setMatrix(MatrixData::of(m_scene, r.dxPartials[std::size_t(shown)]));
        m_dxPartial->setGroups({IndexRange{0, c.inDim}}, Qt::Horizontal, {shown});
        // Its band names the features whose terms it holds, not its own columns.
        m_dxPartial->setGroupLabelRanges({g.kernelCols}, tr("features"));
        m_dxPartial->setTitle(
            tr("dx_%1 (N %2, in_dim %3): group %1's partial").arg(shown).arg(c.batch).arg(c.inDim));
        m_dxPartial->setHighlightedGroup(shown);
    } else {
        m_dxPartial->setMatrix(MatrixData::of(m_scene, r.dxPartials.front()));
        m_dxPartial->setTitle(tr("dx_g: each group's partial of dx"));
        m_dxPartial->setHighlightedGroup(-1);
    }
    m_dxPartialOverlay->setPending(shown >= 0 ? -1 : 0, tr("no group's gradients yet"));
    const QString partials = qs(countText(c.tpSize, "partial"));
    m_dxOverlay->setPending(step.dxIn ? -1 : 0,
                            done < c.tpSize
                                ? tr("the sum waits for the %1: %2 in").arg(partials).arg(done)
                                : tr("%1 in: the next step sums them").arg(partials));
}

}  // namespace tp
