#include "output_panel.h"

#include "error_map.h"
#include "heatmap_image.h"
#include "hover_text.h"
#include "layer/range_text.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "pending_overlay.h"
#include "title_row.h"
#include "verification_view.h"

#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <cmath>

namespace tp {
namespace {

QString qs(const std::string& text) {
    return QString::fromStdString(text);
}

/// The warnings' colours (orange, red) are dark shades for a light window; on a dark window they
/// would be hard to read, so lighter shades of them take their place.
QString legibleOn(QString html, const QColor& window) {
    if (window.lightness() >= 128)
        return html;
    html.replace(QStringLiteral("#b35900"), QStringLiteral("#ffb366"));
    html.replace(QStringLiteral("#c62828"), QStringLiteral("#ff8a80"));
    return html;
}

}  // namespace

OutputPanel::OutputPanel(QWidget* parent) : QWidget(parent) {
    m_partial = new MatrixView;
    m_partial->setObjectName(QStringLiteral("partialView"));
    m_result = new MatrixView;
    m_result->setObjectName(QStringLiteral("resultView"));
    m_final = new MatrixView;
    m_final->setObjectName(QStringLiteral("finalView"));
    m_reference = new MatrixView;
    m_reference->setObjectName(QStringLiteral("referenceView"));
    m_error = new MatrixView;
    m_error->setObjectName(QStringLiteral("errorView"));
    m_error->hide();
    m_partialOverlay = new PendingOverlay(m_partial);
    m_resultOverlay = new PendingOverlay(m_result);
    m_finalOverlay = new PendingOverlay(m_final);
    m_errorOverlay = new PendingOverlay(m_error);
    m_warning = new QLabel;
    m_warning->setObjectName(QStringLiteral("warningLabel"));
    m_warning->setWordWrap(true);
    m_warning->setAlignment(Qt::AlignCenter);
    m_warning->setMinimumWidth(180);
    m_warning->setMaximumWidth(240);
    m_verification = new VerificationView;
    m_verification->setMaximumWidth(240);

    // partial | warning | result
    // final   | check   | reference | error map (column mode: the error map in final's place)
    auto* grid = new QGridLayout(this);
    m_grid = grid;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_partial, 0, 0);
    // The warning over the check, in one column spanning both rows, so that the check can take
    // the warning's place when the panel is short (foldWarning).
    m_middle = new QWidget;
    // As wide with the warning as without: its folding must not change the check's width.
    m_middle->setMinimumWidth(220);
    m_middle->setMaximumWidth(240);
    auto* middle = new QVBoxLayout(m_middle);
    middle->setContentsMargins(0, 0, 0, 0);
    middle->addWidget(m_warning);
    middle->addWidget(m_verification, 1);
    grid->addWidget(m_middle, 0, 1, 2, 1);
    grid->addWidget(m_result, 0, 2, 1, 2);
    grid->addWidget(m_final, 1, 0);
    grid->addWidget(m_reference, 1, 2);
    grid->addWidget(m_error, 1, 3);
    grid->setColumnStretch(0, 2);
    grid->setColumnStretch(2, 3);

    connectHover(m_partial, QStringLiteral("partial"));
    connectHover(m_result, QStringLiteral("y"));
    connectHover(m_final, QStringLiteral("y"));
    connectHover(m_reference, QStringLiteral("reference"));
    connectHover(m_error, QStringLiteral("|y - reference|"));
}

void OutputPanel::setWarning(const QString& html, const QString& shortHtml) {
    m_warningHtml = html;
    m_shortWarningHtml = shortHtml;
    showWarningText(html);
    foldWarning();
}

void OutputPanel::showWarningText(const QString& html) {
    m_shownWarningHtml = html;
    m_warning->setText(legibleOn(html, palette().color(QPalette::Window)));
}

void OutputPanel::foldWarning() {
    // The check's verdict and figures first: the warning shows when both fit the column.
    const int width = m_middle->width();
    const int spacing = std::max(0, m_middle->layout()->spacing());
    const int check =
        m_verification->heightForWidth(std::min(width, m_verification->maximumWidth()));
    const auto fits = [&] {
        return width <= 0 || m_warning->heightForWidth(std::min(width, m_warning->maximumWidth())) +
                                     spacing + check <=
                                 m_middle->height();
    };
    // A short window folds the mode's warning with the other explanations; a mistake's warning
    // says what is wrong, and stays while it fits, or its headline does.
    const bool wanted = m_explanations || (m_scene && m_scene->mistake != Mistake::None);
    showWarningText(m_warningHtml);
    bool fit = fits();
    if (!fit && !m_shortWarningHtml.isEmpty()) {
        showWarningText(m_shortWarningHtml);
        fit = fits();
    }
    m_warning->setVisible(wanted && fit);
}

void OutputPanel::setExplanationsShown(bool shown) {
    m_explanations = shown;
    m_verification->setExplanationShown(shown);
    foldWarning();
}

void OutputPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    foldWarning();
}

void OutputPanel::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_warning->setText(legibleOn(m_shownWarningHtml, palette().color(QPalette::Window)));
}

void OutputPanel::connectHover(MatrixView* view, const QString& name) {
    view->setName(name);
    connect(view, &MatrixView::cellHovered, this,
            [this, view](int row, int col, float value, int group) {
                emit hoverText(tp::hoverText(view->name(), row, col, value, group));
                emit outputCellHovered(row,
                                       view == m_partial ? int(m_partialFirstColumn) + col : col);
            });
    connect(view, &MatrixView::hoverLeft, this, [this] {
        emit hoverText(QString());
        emit outputCellLeft();
    });
}

void OutputPanel::setScene(ScenePtr scene) {
    m_scene = std::move(scene);
    m_runningSum = nullptr;
    const LayerConfig& c = m_scene->config;
    const ForwardResult& r = m_scene->result;
    // One scale for every output so that their colours compare.
    const float scale = std::max(maxAbs(MatrixData::of(m_scene, m_scene->reference)), 1e-30f);
    for (MatrixView* view : {m_partial, m_result, m_final, m_reference})
        view->setScale(scale);

    m_reference->setMatrix(MatrixData::of(m_scene, m_scene->reference));
    m_reference->setGroups({}, Qt::Horizontal);
    m_reference->setTitle(
        tr("reference x @ kernel + bias  %1").arg(qs(shapeTuple(c.batch, c.features))));
    std::vector<IndexRange> outputRanges;
    for (const ShardGroup& g : r.plan.groups)
        outputRanges.push_back(g.outputCols);

    const QString mistakeWarning = tp::mistakeWarning(*m_scene);
    m_verification->setNote(qs(m_scene->mistakeWithoutEffect));
    m_verification->setBiasOffer(m_scene->biasShowingMistake);
    if (c.mode == ParallelMode::Column) {
        m_final->hide();
        m_result->setName(QStringLiteral("y"));
        m_partial->setName(QStringLiteral("block"));  // group i's block of output columns
        m_result->setMatrix(MatrixData::of(m_scene, r.output));
        if (m_scene->mistake == Mistake::SumGroups)
            m_result->setGroups({}, Qt::Horizontal);  // a sum of every group's columns
        else
            m_result->setGroups(outputRanges, Qt::Horizontal);
        setWarning(
            tr("<p style='color:#b35900'><b>⚠ Do not sum the groups' outputs:</b> they are "
               "different output columns, not partial sums of the same columns.</p>"
               "<p>Each group's block is <b>placed</b> in its own columns: concatenate in group "
               "order "
               "along the last axis.</p>"));
    } else {
        m_final->show();
        m_result->setName(QStringLiteral("sum"));
        m_partial->setName(QStringLiteral("partial"));
        m_final->setMatrix(MatrixData::of(m_scene, r.output));
        m_final->setGroups({}, Qt::Horizontal);
        const QString title = mistakeOutputTitle(*m_scene);
        m_final->setTitle(!title.isEmpty()
                              ? title
                              : tr("y = sum + bias  %1").arg(qs(shapeTuple(c.batch, c.features))));
        setWarning(
            tr("<p><b>+ Add the partial sums:</b> every row group contributes to the same "
               "output columns, so they are combined by addition (an all-reduce on devices).</p>"
               "<p>The bias is added <b>once</b>, to the total, not to each partial.</p>"));
    }
    if (!mistakeWarning.isEmpty())
        setWarning(mistakeWarning, mistakeHeadline(*m_scene));
    showErrorMap();
    setStep(TimelineStep{});  // the start
}

void OutputPanel::showErrorMap() {
    m_errors = m_scene->mistake != Mistake::None ? errorMap(*m_scene) : nullptr;
    // Column mode leaves final's place free: the error map takes it, beside the check.
    const bool column = m_scene->config.mode == ParallelMode::Column;
    m_grid->removeWidget(m_error);
    m_grid->addWidget(m_error, 1, column ? 0 : 3);
    m_error->setVisible(m_errors != nullptr);
    if (!m_errors) {
        m_error->setMatrix({});
        return;
    }
    const Verification& v = m_scene->verification;
    m_error->setMatrix(MatrixData::of(m_errors, *m_errors));
    m_error->setScale(0.0f);  // its own scale: errors are far smaller than the outputs
    m_error->setGroups({}, Qt::Horizontal);
    // The largest error is the ramp's scale beside the title ("±1.2e-7"): the title says where.
    m_errorTitle = tr("|y - reference|, max at [%1, %2]").arg(v.worstRow).arg(v.worstCol);
    m_error->setTitle(m_errorTitle);
    if (v.maxAbsError > 0)
        m_error->setTraceLines(int(v.worstRow), int(v.worstCol), QColor(0xc6, 0x28, 0x28));
    else
        m_error->setTraceLines(-1, -1, QColor());
}

void OutputPanel::markErrorMap(bool complete) {
    m_errorOverlay->setPending(complete ? -1 : 0, tr("the error map waits for the last step"));
    // Where the largest error is, only once the output it measures exists.
    if (m_errors)
        m_error->setTitle(complete ? m_errorTitle : tr("|y - reference|"));
}

void OutputPanel::setStep(const TimelineStep& step) {
    if (!m_scene)
        return;
    if (m_scene->config.mode == ParallelMode::Column)
        showColumnStep(step);
    else
        showRowStep(step);
    shareWidth();
    foldWarning();  // the check's text changed with the step
}

void OutputPanel::shareWidth() {
    const bool row = m_scene->config.mode == ParallelMode::Row;
    const bool fourth = m_errors && row;
    if (!fourth) {
        // Column mode: the (N, chunk) block beside the (N, features) output, which takes more.
        // Row mode: every output is (N, features), and they share alike, so that the partial sum
        // prints its numbers wherever the running sum does.
        m_grid->setColumnStretch(0, row ? 1 : 2);
        m_grid->setColumnStretch(2, row ? 1 : 3);
        m_grid->setColumnStretch(3, 0);
        return;
    }
    // Row mode: four (N, features) arrays beside the check, with the error map under the running
    // sum: each column's share is the width its titles need whole, so that none is cut where
    // they all fit.
    // The error map's share is that of its complete title, so that the columns keep their
    // widths from step to step.
    const auto need = [](const MatrixView* view, const QString& title) {
        return int(std::ceil(wholeTitleWidth(view->font(), title, view->scaleText())));
    };
    m_grid->setColumnStretch(
        0, std::max(need(m_partial, m_partial->title()), need(m_final, m_final->title())));
    m_grid->setColumnStretch(2, need(m_reference, m_reference->title()));
    m_grid->setColumnStretch(3, need(m_error, m_errorTitle));
}

void OutputPanel::showColumnStep(const TimelineStep& state) {
    const LayerConfig& c = m_scene->config;
    const ForwardResult& r = m_scene->result;
    const int group = std::max(state.currentGroup, 0);
    const ShardGroup& g = r.plan.groups[std::size_t(group)];

    m_partial->setMatrix(MatrixData::of(m_scene, r.partials[std::size_t(group)]));
    m_partial->setGroups({IndexRange{0, g.outputCols.size()}}, Qt::Horizontal, {group});
    m_partial->setGroupLabelRanges({g.outputCols});  // the output columns it fills
    m_partialFirstColumn = g.outputCols.start;
    const QString mistakeTitle = mistakePartialTitle(*m_scene, group);
    m_partial->setTitle(!mistakeTitle.isEmpty()
                            ? mistakeTitle
                            : tr("block %1 = %2  %3")
                                  .arg(group)
                                  .arg(qs(columnSlice("y", g.outputCols)),
                                       qs(shapeTuple(c.batch, g.outputCols.size()))));
    m_partialOverlay->setPending(state.currentGroup < 0 ? 0 : -1,
                                 tr("no group computed yet: press Next (Right)"));

    markErrorMap(state.complete);
    m_verification->setVerification(m_scene->verification, state.complete,
                                    tr("Check waits for the last step: %1 of %2 placed")
                                        .arg(state.groupsDone)
                                        .arg(qs(countText(c.tpSize, "block"))));
    if (m_scene->mistake == Mistake::SumGroups) {
        // The wrong pass: the partials added into one (N, chunk) block, group after group.
        const int summed = state.groupsDone;
        m_result->setMatrix(runningSumAfter(std::max(summed - 1, 0)));
        m_result->setTitle(tr("y = sum of the blocks  %1: %2 of %3 added")
                               .arg(qs(shapeTuple(c.batch, r.plan.chunk)))
                               .arg(summed)
                               .arg(c.tpSize));
        m_resultOverlay->setPending(summed == 0 ? 0 : -1, tr("sum = 0"));
        return;
    }
    // The output columns placed so far: those of groups 0..groupsDone-1.
    const Index filled = state.groupsDone == 0
                             ? 0
                             : r.plan.groups[std::size_t(state.groupsDone - 1)].outputCols.stop;
    m_result->setTitle(tr("y = concatenate(blocks)  %1: %2 of %3")
                           .arg(qs(shapeTuple(c.batch, c.features)))
                           .arg(state.groupsDone)
                           .arg(qs(countText(c.tpSize, "block"))));
    m_result->setHighlightedGroup(state.complete ? -1 : state.currentGroup);
    m_resultOverlay->setPending(
        state.complete ? -1 : filled,
        tr("columns %1 not computed yet").arg(qs(sliceText({filled, c.features}))));
}

void OutputPanel::showRowStep(const TimelineStep& state) {
    const LayerConfig& c = m_scene->config;
    const ForwardResult& r = m_scene->result;
    const int group =
        state.currentGroup >= 0 ? state.currentGroup : std::max(state.groupsDone - 1, 0);
    const ShardGroup& g = r.plan.groups[std::size_t(group)];

    m_partial->setMatrix(MatrixData::of(m_scene, r.partials[std::size_t(group)]));
    m_partial->setGroups({g.outputCols}, Qt::Horizontal, {group});
    m_partial->setGroupLabelRanges({g.kernelRows}, QStringLiteral("kernel rows"));
    m_partialFirstColumn = 0;  // a row-mode partial is full width
    const QString mistakeTitle = mistakePartialTitle(*m_scene, group);
    m_partial->setTitle(!mistakeTitle.isEmpty() ? mistakeTitle
                                                : tr("partial sum of group %1, rows %2  %3")
                                                      .arg(group)
                                                      .arg(qs(sliceText(g.kernelRows)),
                                                           qs(shapeTuple(c.batch, c.features))));
    m_partialOverlay->setPending(state.groupsDone == 0 ? 0 : -1,
                                 tr("no group computed yet: press Next (Right)"));

    const int summed = state.groupsDone;
    if (m_scene->mistake == Mistake::ConcatPartials) {
        showConcatenatedPartials(summed);
    } else {
        m_result->setMatrix(runningSumAfter(std::max(summed - 1, 0)));
        m_result->setGroups({}, Qt::Horizontal);
        m_result->setTitle(
            tr("running sum of %1  %2")
                .arg(qs(countText(summed, "partial sum")), qs(shapeTuple(c.batch, c.features))));
        m_resultOverlay->setPending(summed == 0 ? 0 : -1, tr("sum = 0"));
    }
    m_finalOverlay->setPending(state.biasIn ? -1 : 0,
                               m_scene->mistake == Mistake::None
                                   ? tr("last step: y = sum + bias, the bias added once")
                                   : tr("last step: y, as the mistake makes it"));
    markErrorMap(state.complete);
    m_verification->setVerification(
        m_scene->verification, state.complete,
        tr("Check waits for the last step: %1 of %2 added, bias not yet")
            .arg(summed)
            .arg(qs(countText(c.tpSize, "partial sum"))));
}

// Made when the step changes, never per paint: one addition to the sum shown when stepping on by
// one group, else summed from the first partial. A new matrix each time, as views and their
// renders may still hold the one shown before.
MatrixData OutputPanel::runningSumAfter(Index k) {
    const ForwardResult& r = m_scene->result;
    if (!m_runningSum || m_runningSumAfter != k) {
        m_runningSum = std::make_shared<const Matrix>(m_runningSum && m_runningSumAfter + 1 == k
                                                          ? nextRunningSum(r, *m_runningSum, k)
                                                          : runningSum(r, k));
        m_runningSumAfter = k;
    }
    return MatrixData::of(m_runningSum, *m_runningSum);
}

void OutputPanel::showConcatenatedPartials(int summed) {
    // concat-partials: the partial sums set side by side, one (N, features) block per group.
    const LayerConfig& c = m_scene->config;
    const ForwardResult& r = m_scene->result;
    const Index shown = std::max(summed, 1);
    std::vector<IndexRange> blocks;
    std::vector<int> ids;
    for (Index i = 0; i < shown; ++i) {
        blocks.push_back({i * c.features, (i + 1) * c.features});
        ids.push_back(int(i));
    }
    // At tp_size 1 the output carries the bias (it fits): the one partial is the concatenation.
    m_result->setMatrix(c.tpSize == 1
                            ? MatrixData::of(m_scene, r.partials.front())
                            : MatrixData::of(m_scene, r.output.leftCols(shown * c.features)));
    m_result->setGroups(blocks, Qt::Horizontal, ids);
    m_result->setTitle(tr("concatenate(partial sums) of %1  %2")
                           .arg(qs(countText(summed, "partial sum")),
                                qs(shapeTuple(c.batch, shown * c.features))));
    m_resultOverlay->setPending(summed == 0 ? 0 : -1, tr("nothing concatenated yet"));
}

}  // namespace tp
