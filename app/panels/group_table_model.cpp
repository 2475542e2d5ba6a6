#include "group_table_model.h"

#include "block/mlp.h"
#include "layer/range_text.h"
#include "palette.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace tp {

GroupTableModel::GroupTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GroupTableModel::setConfig(const LayerConfig& config, Mistake mistake) {
    beginResetModel();
    m_config = config;
    if (config.block == Block::Mlp) {
        const MlpPlan plan = mlpPlan(config, mistake);
        m_plan = plan.linear1;
        m_plan2 = plan.linear2;
    } else {
        m_plan = ShardingPlan::make(config);
    }
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
    const bool mlp = m_config.block == Block::Mlp;
    const bool rows2 = mlp && m_plan2.mode == ParallelMode::Row;
    if (role == Qt::DisplayRole) {
        // The header names the arrays, the cell the range they share: short enough for the dock.
        switch (index.column()) {
            case Group:
                return group;
            case Kernel:
                return text(sliceText(g.owned));
            case Output:
                if (mlp)
                    return rows2 ? tr("all, summed")
                                 : text(sliceText(m_plan2.groups.at(std::size_t(group)).owned));
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
    if (role == Qt::ToolTipRole && mlp)
        return column && rows2
                   ? tr("Device %1 owns hidden features %2: kernel1's columns and bias1's, its "
                        "slice of h and a = gelu(h), and kernel2's rows %2; its partial sum of y "
                        "is all-reduced")
                         .arg(group)
                         .arg(text(sliceText(g.owned)))
                   : tr("Device %1 reads kernel1's %2 %3 and computes y's columns %4")
                         .arg(group)
                         .arg(column ? tr("columns") : tr("rows"), text(sliceText(g.owned)),
                              text(sliceText(m_plan2.groups.at(std::size_t(group)).owned)));
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
    const bool mlp = m_config.block == Block::Mlp;
    const bool megatron =
        mlp && m_plan.mode == ParallelMode::Column && m_plan2.mode == ParallelMode::Row;
    switch (section) {
        case Group:
            return mlp ? tr("Device") : tr("Group");
        case Kernel:
            if (mlp)
                return megatron ? tr("Hidden") : tr("kernel1");
            return column ? tr("Kernel & bias") : tr("Kernel rows");
        case Output:
            if (mlp)
                return megatron ? tr("Adds to y") : tr("Writes y");
            return column ? tr("Writes y") : tr("Adds to y");
        case Status:
            return tr("Status");
    }
    return {};
}

}  // namespace tp
