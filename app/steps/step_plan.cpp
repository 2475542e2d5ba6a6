#include "step_plan.h"

#include "sharding_plan.h"

#include <algorithm>

namespace tp {
namespace {

QString range(std::int64_t start, std::int64_t stop) {
    return QStringLiteral("%1:%2").arg(start).arg(stop);
}

QString shape(std::int64_t rows, std::int64_t cols) {
    return QStringLiteral("%1x%2").arg(rows).arg(cols);
}

constexpr auto kGap = "   ";

}  // namespace

int stepCount(const LayerConfig& config) {
    const int groups = int(config.tpSize);
    return config.mode == ParallelMode::Column ? groups + 1 : groups + 2;
}

StepState stepState(const LayerConfig& config, int step) {
    StepState state;
    const int groups = int(config.tpSize);
    state.step = std::clamp(step, 0, stepCount(config) - 1);
    state.groupsDone = std::min(state.step, groups);
    state.currentGroup = state.step >= 1 && state.step <= groups ? state.step - 1 : -1;
    if (config.mode == ParallelMode::Column) {
        state.complete = state.groupsDone == groups;
    } else {
        state.biasAdded = state.step == groups + 1;
        state.complete = state.biasAdded;
    }
    return state;
}

QString equationText(const LayerConfig& config, int step) {
    const StepState state = stepState(config, step);
    const ShardingPlan plan = ShardingPlan::make(config);
    if (state.biasAdded)
        return QString::fromStdString(rowBiasEquation(plan, config.batch));
    if (state.currentGroup >= 0)
        return QString::fromStdString(stepEquation(plan, state.currentGroup, config.batch));
    // Before any group: the whole layer, and how it will be split.
    const std::int64_t n = config.batch, in = config.inDim, f = config.features;
    const QString split =
        config.mode == ParallelMode::Column
            ? QStringLiteral("as %1 groups of %2 output columns")
            : QStringLiteral("as %1 partial sums over row groups of %2, the bias added once");
    return QStringLiteral("y = x @ kernel + bias%1(%2 @ %3 + %4), %5")
        .arg(kGap, shape(n, in), shape(in, f))
        .arg(f)
        .arg(split.arg(config.tpSize).arg(config.chunk()));
}

QString stepCaption(const LayerConfig& config, int step) {
    const StepState state = stepState(config, step);
    const int last = stepCount(config) - 1;
    const QString prefix = QStringLiteral("Step %1 of %2: ").arg(state.step).arg(last);
    const std::int64_t chunk = config.chunk();
    if (config.mode == ParallelMode::Column) {
        if (state.currentGroup < 0)
            return prefix + QStringLiteral("start; %1 groups of %2 output columns each")
                                .arg(config.tpSize)
                                .arg(chunk);
        const std::int64_t a = state.currentGroup * chunk;
        return prefix + QStringLiteral("group %1 computes output columns %2")
                            .arg(state.currentGroup)
                            .arg(range(a, a + chunk));
    }
    if (state.biasAdded)
        return prefix + QStringLiteral("add the bias once to the summed partials");
    if (state.currentGroup < 0)
        return prefix + QStringLiteral("start; %1 groups of %2 kernel rows each")
                            .arg(config.tpSize)
                            .arg(chunk);
    const std::int64_t a = state.currentGroup * chunk;
    return prefix + QStringLiteral("group %1 adds the partial sum of kernel rows %2")
                        .arg(state.currentGroup)
                        .arg(range(a, a + chunk));
}

}  // namespace tp
