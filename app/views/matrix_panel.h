#pragma once

// One matrix as the app shows it: a MatrixView over its legend.

#include "heatmap_legend.h"
#include "matrix_view.h"

#include <QWidget>

namespace tp {

/// A MatrixView (title, cells, group labels) with a HeatmapLegend under it that follows the view's
/// scale and groups. Use view() for everything about the matrix.
class MatrixPanel : public QWidget {
    Q_OBJECT

public:
    explicit MatrixPanel(QWidget* parent = nullptr);

    MatrixView* view() const { return m_view; }
    HeatmapLegend* legend() const { return m_legend; }

    /// Shorthands for view()->setMatrix / setGroups / setTitle that also update the legend.
    void setMatrix(MatrixData matrix);
    void setGroups(std::vector<IndexRange> groups, Qt::Orientation axis,
                   std::vector<int> groupIds = {});
    void setTitle(const QString& title);
    void setHighlightedGroup(int group);
    void setLegendVisible(bool visible);

private:
    void updateLegendGroups();

    MatrixView* m_view;
    HeatmapLegend* m_legend;
    std::vector<int> m_groupIds;
};

}  // namespace tp
