#include "mlp_panel.h"

#include "cell_text.h"
#include "core_words.h"
#include "error_map.h"
#include "heatmap_image.h"
#include "heatmap_legend.h"
#include "hover_text.h"
#include "kernel_with_bias.h"
#include "layer/range_text.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "mlp_check_subject.h"
#include "pending_overlay.h"
#include "scene/mlp_scene.h"
#include "verification_view.h"

#include <QGridLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace tp {
namespace {

// Each group's part of its split dimension: its columns (column-parallel) or rows.
std::vector<IndexRange> ownedRanges(const ShardingPlan& plan) {
    std::vector<IndexRange> ranges;
    for (const ShardGroup& g : plan.groups)
        ranges.push_back(g.owned);
    return ranges;
}

QLabel* wrappedLabel(const QString& name) {
    auto* label = new QLabel;
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

float largest(std::initializer_list<MatrixData> arrays) {
    float scale = 1e-30f;
    for (const MatrixData& m : arrays)
        scale = std::max(scale, maxAbs(m));
    return scale;
}

}  // namespace

MlpPanel::MlpPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("mlpPanel"));
    m_x = addView(QStringLiteral("mlpInputView"), QStringLiteral("x"));
    m_kernel1 = addView(QStringLiteral("kernel1View"), QStringLiteral("kernel1"));
    m_bias1 = addView(QStringLiteral("bias1View"), QStringLiteral("bias1"));
    m_h = addView(QStringLiteral("hiddenView"), QStringLiteral("h"));
    m_a = addView(QStringLiteral("activationView"), QStringLiteral("a"));
    m_kernel2 = addView(QStringLiteral("kernel2View"), QStringLiteral("kernel2"));
    m_bias2 = addView(QStringLiteral("bias2View"), QStringLiteral("bias2"));
    m_partial = addView(QStringLiteral("mlpPartialView"), QStringLiteral("partial"));
    m_y = addView(QStringLiteral("mlpOutputView"), QStringLiteral("y"));
    m_reference = addView(QStringLiteral("mlpReferenceView"), QStringLiteral("reference"));
    m_error = addView(QStringLiteral("mlpErrorView"), QStringLiteral("|y - reference|"));
    m_error->hide();
    m_xOverlay = new PendingOverlay(m_x);
    m_kernel1Overlay = new PendingOverlay(m_kernel1);
    m_bias1Overlay = new PendingOverlay(m_bias1);
    m_hOverlay = new PendingOverlay(m_h);
    m_aOverlay = new PendingOverlay(m_a);
    m_kernel2Overlay = new PendingOverlay(m_kernel2);
    m_partialOverlay = new PendingOverlay(m_partial);
    m_yOverlay = new PendingOverlay(m_y);
    m_errorOverlay = new PendingOverlay(m_error);
    m_x->setHorizontalAlignment(Qt::AlignRight);  // x hugs kernel1
    m_kernel1->setHorizontalAlignment(Qt::AlignLeft);
    m_kernel2->setHorizontalAlignment(Qt::AlignLeft);
    m_layer1 = new KernelWithBias(m_kernel1, m_bias1);
    m_layer2 = new KernelWithBias(m_kernel2, m_bias2);
    // h and a lie under kernel1, column under column: hidden feature j is kernel1's column j.
    m_h->setColumnLeader(m_kernel1);
    m_a->setColumnLeader(m_kernel1);
    m_layer1->onResized = [this] {
        // x's cells are never larger than kernel1's, so the two read alike.
        const QSizeF cell = m_kernel1->layout().base;
        if (!cell.isEmpty())
            m_x->setMaxFitCell(std::max({cell.width(), cell.height(), qreal(24)}));
        fitHiddenHeights();
    };
    m_legend = new HeatmapLegend;
    m_warning = wrappedLabel(QStringLiteral("mlpWarning"));
    m_warning->setMinimumWidth(140);

    // x and its words | kernel1 over h over a | kernel2, as tall as all three.
    auto* top = new QWidget;
    m_top = new QGridLayout(top);
    m_top->setContentsMargins(0, 0, 0, 0);
    // x and its words in one column of their own, so that the words' height never sets the
    // height of h's and a's rows.
    auto* left = new QWidget;
    auto* words = new QVBoxLayout(left);
    words->setContentsMargins(0, 0, 0, 0);
    words->addWidget(m_x, 2);
    words->addWidget(m_warning, 0, Qt::AlignTop);
    words->addStretch(1);
    words->addWidget(m_legend);
    m_top->addWidget(left, 0, 0, 3, 1);
    m_top->addWidget(m_layer1, 0, 1);
    m_top->addWidget(m_h, 1, 1);
    m_top->addWidget(m_a, 2, 1);
    m_top->addWidget(m_layer2, 0, 2, 3, 1);

    // partial | the words and the check | y
    // error map |                       | reference
    m_stages = wrappedLabel(QStringLiteral("mlpStages"));
    m_verification = new VerificationView;
    m_verification->setSubject(mlpCheckSubject(false));
    auto* middle = new QWidget;
    middle->setMinimumWidth(260);
    middle->setMaximumWidth(320);
    auto* column = new QVBoxLayout(middle);
    column->setContentsMargins(0, 0, 0, 0);
    column->addWidget(m_stages);
    column->addWidget(m_verification, 1);
    auto* bottom = new QWidget;
    auto* grid = new QGridLayout(bottom);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_partial, 0, 0);
    grid->addWidget(middle, 0, 1, 2, 1);
    grid->addWidget(m_y, 0, 2);
    grid->addWidget(m_error, 1, 0);
    grid->addWidget(m_reference, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(2, 1);

    m_split = new QSplitter(Qt::Vertical);
    m_split->addWidget(top);
    m_split->addWidget(bottom);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_split);
}

MatrixView* MlpPanel::addView(const QString& objectName, const QString& name) {
    auto* view = new MatrixView;
    view->setObjectName(objectName);
    view->setName(name);
    connect(view, &MatrixView::cellHovered, this,
            [this, view](int row, int col, float value, int group) {
                const bool vector = view == m_bias1 || view == m_bias2;
                emit hoverText(tp::hoverText(view->name(), vector ? -1 : row, col, value, group));
            });
    connect(view, &MatrixView::hoverLeft, this, [this] { emit hoverText(QString()); });
    return view;
}

void MlpPanel::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    m_showsBackward = false;
    showForwardArrays();
    const MlpScene& s = *m_scene->mlp;
    const LayerConfig& c = m_scene->config;
    // The split's lesson under x, or the mistake's.
    const QString warning = mistakeWarning(*m_scene);
    m_warning->setText(
        !warning.isEmpty()
            ? warning
            : tr("<p><b>Megatron's split:</b> linear1 by its columns, linear2 by its rows, over "
                 "the same %1 per device.</p>"
                 "<p><b>Nothing moves between the layers:</b> device g's slice of a is exactly "
                 "what its rows of kernel2 read (the same colour, the same label).</p>"
                 "<p><b>+ One all-reduce</b> adds the %2 partial sums; bias2 is added "
                 "<b>once</b>.</p>")
                  .arg(qs(countText(s.split.plan.linear1.chunk, "hidden feature")))
                  .arg(c.tpSize));
    m_verification->setNote(qs(s.mistakeWithoutEffect));
    m_verification->setBiasOffer(std::nullopt);

    m_errors = m_scene->mistake != Mistake::None ? errorMap(*m_scene) : nullptr;
    m_error->setVisible(m_errors != nullptr);
    if (m_errors) {
        const Verification& v = s.verification.output;
        m_error->setMatrix(MatrixData::of(m_errors, *m_errors));
        m_error->setScale(0.0f);  // its own scale: errors are far smaller than the outputs
        m_error->setTitle(tr("|y - reference|, max at [%1, %2]").arg(v.worstRow).arg(v.worstCol));
        if (v.maxAbsError > 0)
            m_error->setTraceLines(int(v.worstRow), int(v.worstCol), QColor(0xc6, 0x28, 0x28));
        else
            m_error->setTraceLines(-1, -1, QColor());
    } else {
        m_error->setMatrix({});
    }
    // x's share of the width by its columns against kernel1's and kernel2's.
    const double total = double(c.inDim + c.hidden + c.features);
    const auto share = [&](std::int64_t cols, double least) {
        return std::max(int(std::lround(100 * std::max(double(cols) / total, least))), 1);
    };
    m_top->setColumnStretch(0, share(c.inDim, 0.12));
    m_top->setColumnStretch(1, share(c.hidden, 0.3));
    m_top->setColumnStretch(2, share(c.features, 0.2));
    // kernel1 with its bias strip, h and a share the height by their rows (and their titles').
    const auto rows = [](std::int64_t n) { return int(std::min<std::int64_t>(n, 64)); };
    m_top->setRowStretch(0, rows(c.inDim) + 6);
    m_top->setRowStretch(1, rows(c.batch) + 2);
    m_top->setRowStretch(2, rows(c.batch) + 2);
    setStep(TimelineStep{});
}

void MlpPanel::fitHiddenHeights() {
    // h and a as tall as their rows need with cells as wide as kernel1's (they follow its
    // columns), and at least that up to a few rows' worth, so that kernel1 takes the spare height
    // and never the rows of h and a.
    const qreal side = std::max<qreal>(m_kernel1->cellSize().width(), 12);
    for (MatrixView* view : {m_h, m_a}) {
        if (view->matrix().isEmpty()) {
            view->setMinimumHeight(0);
            view->setMaximumHeight(QWIDGETSIZE_MAX);
            continue;
        }
        // The view's least height is its chrome and two rows of the least cells.
        const qreal chrome = view->minimumSizeHint().height() - 2 * MatrixLayout::kMinSquareCell +
                             2 * view->frameWidth();
        const int wanted = int(std::min<qreal>(
            std::ceil(chrome + qreal(view->matrix().rows()) * side), QWIDGETSIZE_MAX));
        view->setMaximumHeight(wanted);
        view->setMinimumHeight(std::min(wanted, int(std::ceil(chrome + 4 * side))));
    }
}

void MlpPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // The outputs and the check take a third of the height: their arrays are (N, features).
    const int total = std::max(2, m_split->height() - m_split->handleWidth());
    m_split->setSizes({total * 2 / 3, total - total * 2 / 3});
}

void MlpPanel::showForwardArrays() {
    const auto owner = m_scene->mlp;
    const MlpScene& s = *owner;
    const LayerConfig& c = m_scene->config;
    const MlpPlan& plan = s.split.plan;
    const bool column1 = plan.linear1.mode == ParallelMode::Column;
    const bool row2 = plan.linear2.mode == ParallelMode::Row;
    const std::vector<IndexRange> ranges1 = ownedRanges(plan.linear1);
    const std::vector<IndexRange> ranges2 = ownedRanges(plan.linear2);
    const auto groupsOf = [](std::int64_t n, Index chunk, bool columns) {
        const bool one = chunk == 1;
        return MlpPanel::tr("%1 of %2 %3")
            .arg(qs(countText(n, "device")))
            .arg(chunk)
            .arg(columns ? (one ? MlpPanel::tr("column") : MlpPanel::tr("columns"))
                         : (one ? MlpPanel::tr("row") : MlpPanel::tr("rows")));
    };

    m_x->setName(QStringLiteral("x"));
    m_x->setMatrix(MatrixData::of(owner, s.params.x));
    m_x->setScale(0.0f);
    m_x->setTitle(tr("x (N %1, in_dim %2)").arg(c.batch).arg(c.inDim));
    m_x->setGroups(column1 ? std::vector<IndexRange>{} : ranges1, Qt::Horizontal);

    m_kernel1->setName(QStringLiteral("kernel1"));
    m_kernel1->setMatrix(MatrixData::of(owner, s.params.kernel1));
    m_kernel1->setScale(0.0f);
    m_kernel1->setGroups(ranges1, column1 ? Qt::Horizontal : Qt::Vertical);
    m_kernel1->setTitle(tr("kernel1 (in_dim %1, hidden %2): %3")
                            .arg(c.inDim)
                            .arg(c.hidden)
                            .arg(groupsOf(c.tpSize, plan.linear1.chunk, column1)));
    m_bias1->setName(QStringLiteral("bias1"));
    m_bias1->setMatrix(MatrixData::ofRow(owner, s.params.bias1));
    m_bias1->setScale(0.0f);
    m_bias1->setGroups(column1 ? ranges1 : std::vector<IndexRange>{}, Qt::Horizontal);
    m_bias1->setTitle(column1 ? tr("bias1 (%1,)").arg(c.hidden)
                              : tr("bias1 (%1,), added by device 0").arg(c.hidden));

    // h and a on one scale, so that the GeLU's effect reads in their colours.
    const float hidden =
        largest({MatrixData::of(owner, s.split.h), MatrixData::of(owner, s.split.a),
                 MatrixData::of(owner, s.reference.h)});
    m_h->setName(QStringLiteral("h"));
    m_h->setMatrix(MatrixData::of(owner, s.split.h));
    m_h->setGroups(column1 ? ranges1 : std::vector<IndexRange>{}, Qt::Horizontal);
    m_h->setTitle(tr("h = x @ kernel1 + bias1  %1").arg(shape(c.batch, c.hidden)));
    m_a->setName(QStringLiteral("a"));
    m_a->setMatrix(MatrixData::of(owner, s.split.a));
    m_a->setGroups(column1 ? ranges1 : std::vector<IndexRange>{}, Qt::Horizontal);
    m_a->setTitle(
        column1
            ? tr("a = gelu(h)  %1, slice by slice").arg(shape(c.batch, c.hidden))
            : tr("a = gelu(h_0) + gelu(h_1) + ...  %1, not gelu(h)").arg(shape(c.batch, c.hidden)));
    for (MatrixView* view : {m_h, m_a})
        view->setScale(hidden);

    m_kernel2->setName(QStringLiteral("kernel2"));
    m_kernel2->setMatrix(MatrixData::of(owner, s.params.kernel2));
    m_kernel2->setScale(0.0f);
    // Megatron: the row groups over hidden in the colours and labels of a's column groups.
    m_kernel2->setGroups(ranges2, row2 ? Qt::Vertical : Qt::Horizontal);
    m_kernel2->setTitle(tr("kernel2 (%1, %2)").arg(c.hidden).arg(c.features));
    m_kernel2->setToolTip(tr("kernel2 (hidden %1, features %2): %3")
                              .arg(c.hidden)
                              .arg(c.features)
                              .arg(groupsOf(c.tpSize, plan.linear2.chunk, !row2)));
    m_bias2->setName(QStringLiteral("bias2"));
    m_bias2->setMatrix(MatrixData::ofRow(owner, s.params.bias2));
    m_bias2->setScale(0.0f);
    m_bias2->setGroups(row2 ? std::vector<IndexRange>{} : ranges2, Qt::Horizontal);
    m_bias2->setTitle(tr("bias2 (%1,)").arg(c.features));

    // One scale for every output so that their colours compare: the reference's and the split's
    // (a partial beyond it shows in full colour, as in one Linear's output panel). The partials
    // are not read here: made on first read, they would all be made now, on this thread.
    const float out =
        largest({MatrixData::of(owner, s.reference.output), MatrixData::of(owner, s.split.output)});
    for (MatrixView* view : {m_partial, m_y, m_reference})
        view->setScale(out);
    m_y->setName(QStringLiteral("y"));
    m_y->setMatrix(MatrixData::of(owner, s.split.output));
    m_y->setGroups(row2 ? std::vector<IndexRange>{} : ranges2, Qt::Horizontal);
    m_y->setTitle(
        row2 ? tr("y = the sum of the partials + bias2  %1").arg(shape(c.batch, c.features))
             : tr("y = concatenate(blocks)  %1").arg(shape(c.batch, c.features)));
    m_reference->setName(QStringLiteral("reference"));
    m_reference->setMatrix(MatrixData::of(owner, s.reference.output));
    m_reference->setGroups({}, Qt::Horizontal);
    m_reference->setTitle(tr("reference, the unsharded block  %1").arg(shape(c.batch, c.features)));
    for (PendingOverlay* overlay : {m_xOverlay, m_kernel1Overlay, m_bias1Overlay, m_kernel2Overlay})
        overlay->setPending(-1, QString());

    NonFiniteKinds nonFinite = m_x->nonFinite();
    nonFinite |= m_kernel1->nonFinite();
    nonFinite |= m_kernel2->nonFinite();
    m_legend->setNonFinite(nonFinite);
}

void MlpPanel::setStep(const TimelineStep& step) {
    if (!m_scene)
        return;
    m_verification->setSubject(mlpCheckSubject(step.backward && m_scene->mlp->backward));
    if (step.backward && m_scene->mlp->backward) {
        showBackwardStep(step);
        return;
    }
    if (m_showsBackward) {
        showForwardArrays();
        m_showsBackward = false;
    }
    showForwardStep(step);
    showChecks(step);
}

void MlpPanel::showForwardStep(const TimelineStep& step) {
    const auto owner = m_scene->mlp;
    const MlpScene& s = *owner;
    const LayerConfig& c = m_scene->config;
    const MlpPlan& plan = s.split.plan;
    const bool column1 = plan.linear1.mode == ParallelMode::Column;
    const bool row2 = plan.linear2.mode == ParallelMode::Row;
    const int g = step.currentGroup;
    const bool linear1 = step.phase == StepPhase::Linear1Gelu && g >= 0;
    const bool linear2 = step.phase == StepPhase::Linear2Computes && g >= 0;

    // The device at work stands out; in linear2's step, also the slice of a it reads.
    m_kernel1->setHighlightedGroup(linear1 ? g : -1);
    m_bias1->setHighlightedGroup(linear1 && column1 ? g : -1);
    m_x->setHighlightedGroup(linear1 && !column1 ? g : -1);
    m_h->setHighlightedGroup(linear1 && column1 ? g : -1);
    m_a->setHighlightedGroup(column1 && (linear1 || (linear2 && row2)) ? g : -1);
    m_kernel2->setHighlightedGroup(linear2 ? g : -1);
    m_bias2->setHighlightedGroup(linear2 && !row2 ? g : -1);
    m_legend->setScale(m_kernel1->effectiveScale());
    std::vector<int> legendGroups;
    if (g >= 0)
        legendGroups.push_back(g);
    else
        for (int k = 0; k < std::min<int>(int(c.tpSize), 4); ++k)
            legendGroups.push_back(k);
    m_legend->setGroups(legendGroups);

    // h and a fill slice by slice (row-then-column: h shows a device's partial sum).
    const int done1 = step.mlp.hiddenDone;
    if (column1) {
        const Index filled = Index(done1) * plan.linear1.chunk;
        const QString waiting =
            tr("hidden features %1 not computed yet").arg(qs(sliceText({filled, c.hidden})));
        m_hOverlay->setPending(done1 == int(c.tpSize) ? -1 : filled, waiting);
        m_aOverlay->setPending(done1 == int(c.tpSize) ? -1 : filled, waiting);
        if (s.mistake == Mistake::GatherBetween)
            m_a->setTitle(
                step.mlp.hiddenShared
                    ? tr("a, all-gathered: every device holds all of it  %1")
                          .arg(shape(c.batch, c.hidden))
                    : tr("a = gelu(h)  %1, slice by slice").arg(shape(c.batch, c.hidden)));
    } else {
        const int shown = linear1 ? g : std::max(done1 - 1, 0);
        m_h->setMatrix(MatrixData::of(owner, s.split.hPartials[std::size_t(shown)]));
        m_h->setGroups({{0, c.hidden}}, Qt::Horizontal, {shown});
        m_h->setTitle(
            tr("h_%1 = %2 @ %3%4: device %1's partial sum  %5")
                .arg(shown)
                .arg(qs(columnSlice("x", plan.linear1.groups[std::size_t(shown)].owned)),
                     qs(rowSlice("kernel1", plan.linear1.groups[std::size_t(shown)].owned)),
                     shown == 0 ? tr(" + bias1") : QString(), shape(c.batch, c.hidden)));
        m_hOverlay->setPending(done1 == 0 ? 0 : -1, tr("no device computed yet"));
        m_aOverlay->setPending(step.mlp.hiddenShared ? -1 : 0,
                               tr("a = the sum of the devices' GeLUs, once they are added"));
    }

    // linear2: the device's partial sum (or block of y), and y filling.
    const int done2 = step.mlp.linear2Done;
    const int shown = linear2 ? g : std::max(done2 - 1, 0);
    const ShardGroup& group = plan.linear2.groups[std::size_t(shown)];
    if (row2) {
        m_partial->setMatrix(MatrixData::of(owner, s.split.partials[std::size_t(shown)]));
        m_partial->setGroups({{0, c.features}}, Qt::Horizontal, {shown});
        m_partial->setGroupLabelRanges({group.kernelRows}, tr("hidden rows"));
        m_partial->setTitle(
            tr("partial_%1 = %2 @ %3%4  %5")
                .arg(shown)
                .arg(qs(columnSlice("a", group.kernelRows)),
                     qs(rowSlice("kernel2", group.kernelRows)),
                     s.mistake == Mistake::Bias2PerPartial ? tr(" + bias2") : QString(),
                     shape(c.batch, c.features)));
        m_yOverlay->setPending(step.complete ? -1 : 0,
                               s.mistake == Mistake::Bias2PerPartial
                                   ? tr("last step: y, the partial sums added")
                                   : tr("last step: the partial sums added, bias2 once"));
    } else {
        const IndexRange cols = group.kernelCols;
        m_partial->setMatrix(MatrixData::of(owner, s.split.output).block({0, c.batch}, cols));
        m_partial->setGroups({{0, cols.size()}}, Qt::Horizontal, {shown});
        m_partial->setGroupLabelRanges({cols});
        m_partial->setTitle(tr("block %1 = %2  %3")
                                .arg(shown)
                                .arg(qs(columnSlice("y", cols)), shape(c.batch, cols.size())));
        const Index filled = Index(done2) * plan.linear2.chunk;
        m_yOverlay->setPending(
            step.complete ? -1 : filled,
            tr("columns %1 not computed yet").arg(qs(sliceText({filled, c.features}))));
        m_y->setHighlightedGroup(step.complete ? -1 : g);
    }
    m_partialOverlay->setPending(done2 == 0 ? 0 : -1,
                                 tr("linear2 waits for linear1: press Next (Right)"));
}

namespace {

// "a = gelu(h): passed, 64 of 64 bit-identical" or its failure with the largest error.
QString verdictLine(const QString& what, const Verification& v) {
    switch (v.verdict) {
        case Verdict::Passed:
            return MlpPanel::tr("%1: <b>passed</b>, %2 of %3 bit-identical")
                .arg(what.toHtmlEscaped())
                .arg(v.bitIdentical)
                .arg(v.elements);
        case Verdict::Failed:
            return MlpPanel::tr(
                       "<span style='color:#c62828'>%1: <b>FAILED</b></span>, max |error| %2 at "
                       "[%3, %4]")
                .arg(what.toHtmlEscaped(), cellText(float(v.maxAbsError)))
                .arg(v.worstRow)
                .arg(v.worstCol);
        case Verdict::Inconclusive:
            break;
    }
    return MlpPanel::tr("%1: <b>inconclusive</b>").arg(what.toHtmlEscaped());
}

}  // namespace

void MlpPanel::showChecks(const TimelineStep& step) {
    const MlpScene& s = *m_scene->mlp;
    const LayerConfig& c = m_scene->config;
    m_verification->setVerification(s.verification.output, step.complete,
                                    tr("Check waits for the last step: %1 of %2 through linear2")
                                        .arg(step.mlp.linear2Done)
                                        .arg(qs(countText(c.tpSize, "device"))));
    m_stages->setText(
        step.complete ? QStringList{verdictLine(tr("h = x @ kernel1 + bias1"), s.verification.h),
                                    verdictLine(tr("a = gelu(h)"), s.verification.a),
                                    verdictLine(tr("y"), s.verification.output)}
                            .join(QStringLiteral("<br>"))
                      : tr("Each stage is checked against the unsharded block once "
                           "the pass is complete: h, a and y."));
    m_errorOverlay->setPending(step.complete ? -1 : 0, tr("the error map waits for the last step"));
}

}  // namespace tp
