#include "group_table_model.h"

#include "layer/range_text.h"
#include "palette.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace tp {

GroupTableModel::GroupTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GroupTableModel::setConfig(const LayerConfig& config) {
    beginResetModel();
    m_config = config;
    m_plan = ShardingPlan::make(config);
    m_valid = true;
    endResetModel();
}

void GroupTableModel::setStep(const TimelineStep& step) {
    if (step.groupsDone == m_step.groupsDone && step.currentGroup == m_step.currentGroup &&
        step.complete == m_step.complete)
        return;
    m_step = step;
    if (rowCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int GroupTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_valid ? 0 : int(m_config.tpSize);
}

int GroupTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GroupTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const int group = index.row();
    const ShardGroup& g = m_plan.groups.at(std::size_t(group));
    const bool column = m_plan.mode == ParallelMode::Column;
    const TimelineStep& state = m_step;
    auto text = [](const std::string& s) { return QString::fromStdString(s); };
    if (role == Qt::DisplayRole) {
        // The header names the arrays, the cell the range they share: short enough for the dock.
        switch (index.column()) {
            case Group:
                return group;
            case Kernel:
                return text(sliceText(column ? g.kernelCols : g.kernelRows));
            case Output:
                return column ? text(sliceText(g.outputCols)) : tr("all, summed");
            case Status:
                if (group == state.currentGroup && !state.complete)
                    return tr("computing");
                return group < state.groupsDone ? tr("done") : tr("waiting");
        }
    }
    if (role == Qt::DecorationRole && index.column() == Group)
        return groupColor(group);
    if (role == Qt::ForegroundRole && group >= state.groupsDone)
        return QBrush(QColor(140, 140, 140));
    if (role == Qt::FontRole && group == state.currentGroup) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role == Qt::ToolTipRole)
        return column
                   ? tr("Group %1 reads all of x and kernel columns %2, adds %3 and writes "
                        "output columns %4")
                         .arg(group)
                         .arg(text(sliceText(g.kernelCols)),
                              text(vectorSlice("bias", g.kernelCols)),
                              text(sliceText(g.outputCols)))
                   : tr("Group %1 reads %2 and kernel rows %3 and adds a partial sum to every "
                        "output column")
                         .arg(group)
                         .arg(text(columnSlice("x", g.inputCols)), text(sliceText(g.kernelRows)));
    return {};
}

QVariant GroupTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const bool column = m_config.mode == ParallelMode::Column;
    switch (section) {
        case Group:
            return tr("Group");
        case Kernel:
            return column ? tr("Kernel & bias") : tr("Kernel rows");
        case Output:
            return column ? tr("Writes y") : tr("Adds to y");
        case Status:
            return tr("Status");
    }
    return {};
}

}  // namespace tp
