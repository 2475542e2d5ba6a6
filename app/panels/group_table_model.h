#pragma once

// The groups of the split as a side table: what each group reads and writes, and where the walk is.

#include "layer/layer_config.h"
#include "layer/mistakes.h"
#include "layer/sharding_plan.h"
#include "scene/timeline.h"

#include <QAbstractTableModel>

namespace tp {

/// One row per group: the range of the kernel it reads (column mode: the kernel's and the bias's
/// columns, the same range; row mode: the kernel's rows, also x's columns), the output columns it
/// writes, and its status at the current step (done, computing, waiting), every range read from
/// the config's ShardingPlan. The header names the arrays and a cell holds only the range
/// ("4:8"), so that the table fits the dock; the tooltips say it all in words. Rows carry the
/// group's colour.
class GroupTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Group, Kernel, Output, Status, ColumnCount };

    explicit GroupTableModel(QObject* parent = nullptr);

    /// The groups of `config` as `mistake` splits it: one Linear's, or the MLP block's devices
    /// (mlpPlan: a device's part of linear1, of the hidden features in Megatron's split, and its
    /// part of linear2).
    void setConfig(const LayerConfig& config, Mistake mistake = Mistake::None);
    /// Shows the groups' status at a step of the loop (the Layer tab's timeline).
    void setStep(const TimelineStep& step);
    const LayerConfig& config() const { return m_config; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    LayerConfig m_config;
    ShardingPlan m_plan;   ///< ShardingPlan::make(m_config); the MLP block's linear1 plan
    ShardingPlan m_plan2;  ///< the MLP block's linear2 plan
    TimelineStep m_step;
    bool m_valid = false;
};

}  // namespace tp
