// How the layer panel draws a scene's mistake where the mistake reads the layer wrongly: the own
// kernel each group builds (init-per-group), the block of x each group takes (slice-x), the bias
// every partial adds (bias-per-partial). Part of LayerPanel, in a file of its own.

#include "layer_panel.h"

#include "layer/range_text.h"
#include "matrix_view.h"
#include "mistake_text.h"
#include "unused_cells_overlay.h"

#include <QGridLayout>
#include <QLabel>

#include <algorithm>
#include <cmath>

namespace tp {

void LayerPanel::showMistake() {
    const Scene& s = *m_scene;
    const LayerConfig& c = s.config;
    const bool own = s.mistake == Mistake::InitPerGroup;
    m_own->setVisible(own);
    if (own) {
        const Matrix& k = s.groupLayer.kernel;
        m_own->setMatrix(MatrixData::of(m_scene, k));
        m_own->setTitle(tr("own_kernel %1 of every group")
                            .arg(QString::fromStdString(shapeTuple(k.rows(), k.cols()))));
        m_own->setToolTip(tr("nnx.Linear(%1, %2, rngs=nnx.Rngs(%3)).kernel: the layer each group "
                             "builds for itself, used instead of its slice of the one kernel")
                              .arg(k.rows())
                              .arg(k.cols())
                              .arg(c.seed));
        m_own->setScale(m_kernel->effectiveScale());  // compare it with the slices it replaces
        // The own kernel takes room by its columns, as x and the kernel share theirs.
        const double share = double(k.cols()) / double(c.inDim + c.features + k.cols());
        m_grid->setColumnStretch(2, int(std::lround(std::clamp(share, 0.15, 0.4) * 100)));
    } else {
        m_own->setMatrix({});
        m_grid->setColumnStretch(2, 0);
    }
    std::vector<CellBlock> used;
    if (s.mistake == Mistake::SliceX) {
        // The blocks of x's columns the groups take, coloured as their groups, and the only
        // kernel cells each group reads: the matching rows of its own columns.
        std::vector<IndexRange> blocks;
        for (Index g = 0; g < c.tpSize; ++g) {
            blocks.push_back(sliceXInputBlock(s.result.plan, g));
            used.push_back({blocks.back(), s.result.plan.groups[std::size_t(g)].kernelCols});
        }
        m_x->setGroups(blocks, Qt::Horizontal);
    }
    m_unusedKernel->setUsedBlocks(std::move(used));
    const QString note = mistakeLayerNote(s);
    if (!note.isEmpty())
        m_xNote->setText(m_xNote->text() + QStringLiteral("<br>") + note);
}

void LayerPanel::showMistakeStep(int group) {
    switch (m_scene->mistake) {
        case Mistake::InitPerGroup:
            // Every group multiplies by the same own kernel: it takes the colour of the group
            // at work.
            if (group >= 0) {
                m_own->setGroups({{0, m_own->matrix().cols()}}, Qt::Horizontal, {group});
                // Labelled with the columns (column mode) it stands in for.
                const ShardGroup& g = m_scene->result.plan.groups.at(std::size_t(group));
                m_own->setGroupLabelRanges({g.kernelCols});
            } else
                m_own->setGroups({}, Qt::Horizontal);
            break;
        case Mistake::SliceX:
            m_x->setHighlightedGroup(group);
            break;
        case Mistake::BiasPerPartial:
            // The whole bias goes into the partial of the group at work.
            if (group >= 0)
                m_bias->setGroups({{0, m_bias->matrix().cols()}}, Qt::Horizontal, {group});
            else
                m_bias->setGroups({}, Qt::Horizontal);
            break;
        case Mistake::None:
        case Mistake::RowThenColumn:  // the MLP block's
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
        case Mistake::SumGroups:
        case Mistake::ConcatPartials:
            break;
    }
}

}  // namespace tp
