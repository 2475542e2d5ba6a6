// The MLP block's backward pass in the Layer tab: each array's place shows its gradient, filling
// as the loop's backward steps compute them (mlp_timeline.h). Part of MlpPanel, in a file of its
// own.

#include "mlp_panel.h"

#include "core_words.h"
#include "layer/range_text.h"
#include "matrix_view.h"
#include "pending_overlay.h"
#include "scene/mlp_scene.h"
#include "verification_view.h"

#include <QLabel>

#include <algorithm>

namespace tp {
namespace {

// "dkernel2: passed" in the words of the forward's stage lines.
QString gradientLine(const QString& what, const Verification& v) {
    const QString verdict = v.verdict == Verdict::Passed   ? MlpPanel::tr("<b>passed</b>")
                            : v.verdict == Verdict::Failed ? MlpPanel::tr("<b>FAILED</b>")
                                                           : MlpPanel::tr("<b>inconclusive</b>");
    return MlpPanel::tr("%1: %2, %3 of %4 bit-identical")
        .arg(what, verdict)
        .arg(v.bitIdentical)
        .arg(v.elements);
}

}  // namespace

void MlpPanel::showBackwardStep(const TimelineStep& step) {
    const auto owner = m_scene->mlp;
    const MlpScene& s = *owner;
    const MlpBackwardScene& b = *s.backward;
    const MlpGradients& gr = b.split.gradients;
    const LayerConfig& c = m_scene->config;
    const Index chunk = s.split.plan.linear1.chunk;
    const int p = int(c.tpSize);
    if (!m_showsBackward) {
        // Every gradient where its array stood, on its own scale.
        const auto show = [&](MatrixView* view, const QString& name, MatrixData data,
                              const QString& title) {
            view->setName(name);
            view->setMatrix(std::move(data));
            view->setScale(0.0f);
            view->setTitle(title);
        };
        show(m_x, QStringLiteral("dx"), MatrixData::of(owner, gr.dx),
             tr("dx = dx_0 + dx_1 + ...  %1").arg(shape(c.batch, c.inDim)));
        show(m_kernel1, QStringLiteral("dkernel1"), MatrixData::of(owner, gr.dkernel1),
             tr("dkernel1 = x^T @ dh  %1, column block by column block")
                 .arg(shape(c.inDim, c.hidden)));
        show(m_bias1, QStringLiteral("dbias1"), MatrixData::ofRow(owner, gr.dbias1),
             tr("dbias1 = dh.sum(0)  (%1,)").arg(c.hidden));
        show(m_h, QStringLiteral("dh"), MatrixData::of(owner, gr.dh),
             tr("dh = da * gelu'(h)  %1").arg(shape(c.batch, c.hidden)));
        show(m_a, QStringLiteral("da"), MatrixData::of(owner, gr.da),
             tr("da = dy @ kernel2^T  %1, slice by slice").arg(shape(c.batch, c.hidden)));
        show(
            m_kernel2, QStringLiteral("dkernel2"), MatrixData::of(owner, gr.dkernel2),
            tr("dkernel2 = a^T @ dy  %1, row block by row block").arg(shape(c.hidden, c.features)));
        show(m_bias2, QStringLiteral("dbias2"), MatrixData::ofRow(owner, gr.dbias2),
             tr("dbias2 = dy.sum(0), once  (%1,)").arg(c.features));
        show(m_y, QStringLiteral("dy"), MatrixData::of(owner, b.dy),
             tr("dy, the cotangent of y  %1").arg(shape(c.batch, c.features)));
        show(m_reference, QStringLiteral("reference dx"), MatrixData::of(owner, b.reference.dx),
             tr("reference dx (jax.vjp)  %1").arg(shape(c.batch, c.inDim)));
        m_y->setGroups({}, Qt::Horizontal);
        m_showsBackward = true;
    }
    const int g = step.currentGroup;
    const bool linear2 = step.phase == StepPhase::Linear2Gradients && g >= 0;
    const bool linear1 = step.phase == StepPhase::Linear1Gradients && g >= 0;
    m_kernel2->setHighlightedGroup(linear2 ? g : -1);
    m_a->setHighlightedGroup(linear2 ? g : -1);
    m_kernel1->setHighlightedGroup(linear1 ? g : -1);
    m_bias1->setHighlightedGroup(linear1 ? g : -1);
    m_h->setHighlightedGroup(linear1 ? g : -1);
    m_x->setHighlightedGroup(-1);
    m_bias2->setHighlightedGroup(-1);

    const MlpStepState& state = step.mlp;
    const Index rows2 = Index(state.dkernel2Done) * chunk;
    m_kernel2Overlay->setPendingRows(
        state.dkernel2Done == p ? -1 : rows2,
        tr("rows %1 not computed yet").arg(qs(sliceText({rows2, c.hidden}))));
    m_aOverlay->setPending(
        state.dkernel2Done == p ? -1 : rows2,
        tr("da's slices %1 not computed yet").arg(qs(sliceText({rows2, c.hidden}))));
    m_hOverlay->setPending(state.dhIn ? -1 : 0, tr("dh: after da, the GeLU's derivative"));
    const Index cols1 = Index(state.dkernel1Done) * chunk;
    m_kernel1Overlay->setPending(
        state.dkernel1Done == p ? -1 : cols1,
        tr("columns %1 not computed yet").arg(qs(sliceText({cols1, c.hidden}))));
    // dbias1 = dh.sum(0) fills slice by slice with dkernel1's columns; one row has no room for
    // words.
    m_bias1Overlay->setPending(state.dkernel1Done == p ? -1 : cols1, QString());
    m_xOverlay->setPending(step.dxIn ? -1 : 0, tr("dx: the sum of the devices' partials, last"));
    m_yOverlay->setPending(-1, QString());

    // The partial dx_g of the device at work, or of the last one done.
    const int shown = linear1 ? g : std::max(state.dkernel1Done - 1, 0);
    const IndexRange slice = s.split.plan.linear1.groups[std::size_t(shown)].kernelCols;
    m_partial->setName(QStringLiteral("dx_%1").arg(shown));
    m_partial->setMatrix(MatrixData::of(owner, b.split.dxPartials[std::size_t(shown)]));
    m_partial->setScale(0.0f);
    m_partial->setGroups({{0, c.inDim}}, Qt::Horizontal, {shown});
    m_partial->setGroupLabelRanges({slice}, tr("hidden features"));
    m_partial->setTitle(tr("dx_%1 = %2 @ %3^T: device %1's partial  %4")
                            .arg(shown)
                            .arg(qs(columnSlice("dh", slice)), qs(columnSlice("kernel1", slice)),
                                 shape(c.batch, c.inDim)));
    m_partialOverlay->setPending(state.dkernel1Done == 0 ? 0 : -1,
                                 tr("no partial of dx yet: linear1's backward comes last"));

    const MlpBackwardVerification& v = b.verification;
    m_verification->setVerification(v.dx, step.dxIn,
                                    tr("The check of dx waits for the last step: %1 of %2 "
                                       "partials in")
                                        .arg(state.dkernel1Done)
                                        .arg(c.tpSize));
    m_stages->setText(
        step.dxIn ? QStringList{gradientLine(tr("dkernel2"), v.dkernel2),
                                gradientLine(tr("dbias2"), v.dbias2),
                                gradientLine(tr("dkernel1"), v.dkernel1),
                                gradientLine(tr("dbias1"), v.dbias1), gradientLine(tr("dx"), v.dx)}
                        .join(QStringLiteral("<br>"))
                  : tr("The gradients are checked against jax.vjp of the unsharded block once "
                       "dx is summed."));
    m_errorOverlay->setPending(-1, QString());
}

}  // namespace tp
