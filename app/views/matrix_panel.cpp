#include "matrix_panel.h"

#include <QVBoxLayout>

namespace tp {

MatrixPanel::MatrixPanel(QWidget* parent)
    : QWidget(parent), m_view(new MatrixView(this)), m_legend(new HeatmapLegend(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend, 0);
    connect(m_view, &MatrixView::effectiveScaleChanged, m_legend, &HeatmapLegend::setScale);
    m_legend->setScale(m_view->effectiveScale());
}

void MatrixPanel::setMatrix(MatrixData matrix) {
    m_view->setMatrix(std::move(matrix));
    m_legend->setScale(m_view->effectiveScale());
}

void MatrixPanel::setGroups(std::vector<IndexRange> groups, Qt::Orientation axis,
                            std::vector<int> groupIds) {
    m_groupIds = groupIds;
    if (m_groupIds.empty()) {
        for (std::size_t k = 0; k < groups.size(); ++k)
            m_groupIds.push_back(int(k));
    }
    m_view->setGroups(std::move(groups), axis, std::move(groupIds));
    updateLegendGroups();
}

void MatrixPanel::setTitle(const QString& title) {
    m_view->setTitle(title);
}

void MatrixPanel::setHighlightedGroup(int group) {
    m_view->setHighlightedGroup(group);
    updateLegendGroups();
}

void MatrixPanel::setLegendVisible(bool visible) {
    m_legend->setVisible(visible);
}

void MatrixPanel::updateLegendGroups() {
    // A highlighted group's ramp alone; otherwise every group's (the legend draws the first 4).
    const int highlighted = m_view->highlightedGroup();
    if (highlighted >= 0)
        m_legend->setGroups({highlighted});
    else
        m_legend->setGroups(m_groupIds);
}

}  // namespace tp
