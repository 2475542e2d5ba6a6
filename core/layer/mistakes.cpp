#include "layer/mistakes.h"

#include "layer/group_sums.h"

#include <cassert>

namespace tp {
namespace {

struct MistakeInfo {
    Mistake mistake;
    std::string_view name;
    std::string_view mode;  // the mode it belongs to: "column", "row", "both", or "mlp" (the block)
    std::string_view what;  // the wrong computation
};

constexpr MistakeInfo kMistakes[] = {
    {Mistake::None, "none", "both", "no mistake: the correct split"},
    {Mistake::SumGroups, "sum-groups", "column",
     "the groups' (N, chunk) outputs added instead of concatenated"},
    {Mistake::ConcatPartials, "concat-partials", "row",
     "the (N, features) partial sums concatenated along the last axis instead of added"},
    {Mistake::BiasPerPartial, "bias-per-partial", "row",
     "the bias added to every partial sum instead of once"},
    {Mistake::InitPerGroup, "init-per-group", "both",
     "each group builds its own nnx.Linear of its shard's shape with nnx.Rngs(seed)"},
    {Mistake::SliceX, "slice-x", "column",
     "each group also uses only its own block of x's columns (in_dim % tp_size == 0)"},
    {Mistake::RowThenColumn, "row-then-column", "mlp",
     "linear1 row-parallel with GeLU on each device's partial sums before they are added, then "
     "linear2 column-parallel"},
    {Mistake::GatherBetween, "gather-between", "mlp",
     "the hidden activations all-gathered between the layers and linear2 run on the whole hidden: "
     "right, but more bytes and memory"},
    {Mistake::Bias2PerPartial, "bias2-per-partial", "mlp",
     "linear2's bias added by every device before the all-reduce"},
};

const MistakeInfo& info(Mistake mistake) {
    for (const MistakeInfo& i : kMistakes)
        if (i.mistake == mistake)
            return i;
    assert(false);
    return kMistakes[0];
}

std::int64_t floats(std::int64_t n) {
    return n * std::int64_t(sizeof(float));
}

// Runs piece(i, partial) for every group in order, with progress and cancellation; partials
// (rows, cols) each. Eigen threads inside each product.
template <typename Piece>
ForwardResult eachGroup(const ShardingPlan& plan, Index rows, Index cols, Progress* progress,
                        Piece&& piece) {
    ForwardResult result;
    result.plan = plan;
    std::vector<Matrix> partials(std::size_t(plan.tpSize));
    for (Index i = 0; i < plan.tpSize; ++i) {
        if (isCancelled(progress))
            break;
        Matrix& partial = partials[std::size_t(i)];
        partial.resize(rows, cols);
        piece(plan.groups[std::size_t(i)], partial);
        advance(progress);
    }
    result.partials = std::move(partials);
    return result;
}

// output = partials[0] + ... + partials[last], the last running sum.
void addPartials(ForwardResult& result) {
    result.partialsAdded = true;
    result.output = sumInGroupOrder(result.partials, result.partials.size());
}

// output = the partials side by side in group order.
void concatenatePartials(ForwardResult& result) {
    Index cols = 0;
    for (const Matrix& p : result.partials)
        cols += p.cols();
    result.output.resize(result.partials.front().rows(), cols);
    Index at = 0;
    for (const Matrix& p : result.partials) {
        result.output.middleCols(at, p.cols()) = p;
        at += p.cols();
    }
}

}  // namespace

IndexRange sliceXInputBlock(const ShardingPlan& plan, Index group) {
    const Index r = plan.inDim / plan.tpSize;
    return {group * r, (group + 1) * r};
}

const std::vector<Mistake>& allMistakes() {
    static const std::vector<Mistake> mistakes = {
        Mistake::SumGroups,     Mistake::ConcatPartials, Mistake::BiasPerPartial,
        Mistake::InitPerGroup,  Mistake::SliceX,         Mistake::RowThenColumn,
        Mistake::GatherBetween, Mistake::Bias2PerPartial};
    return mistakes;
}

Block mistakeBlock(Mistake mistake) {
    return info(mistake).mode == "mlp" ? Block::Mlp : Block::Linear;
}

std::vector<Mistake> blockMistakes(Block block) {
    std::vector<Mistake> mistakes;
    for (const Mistake m : allMistakes())
        if (mistakeBlock(m) == block)
            mistakes.push_back(m);
    return mistakes;
}

std::string_view toString(Mistake mistake) {
    return info(mistake).name;
}

std::optional<Mistake> parseMistake(std::string_view text) {
    for (const MistakeInfo& i : kMistakes)
        if (i.name == text)
            return i.mistake;
    return std::nullopt;
}

std::string mistakeDescription(Mistake mistake) {
    return std::string(info(mistake).mode) + ": " + std::string(info(mistake).what);
}

std::vector<ConfigProblem> mistakeProblems(const LayerConfig& config, Mistake mistake,
                                           bool nnxLayer) {
    std::vector<ConfigProblem> problems;
    const std::string name(toString(mistake));
    const bool column = config.mode == ParallelMode::Column;
    const bool mlp = config.block == Block::Mlp;
    if (mistake != Mistake::None && mistakeBlock(mistake) != config.block) {
        problems.push_back(
            {ConfigField::Mistake, name +
                                       (mlp ? " is a mistake of one Linear ("
                                            : " is a mistake of the "
                                              "MLP block (") +
                                       std::string(info(mistake).what) + "); choose the block " +
                                       std::string(toString(mistakeBlock(mistake)))});
        return problems;
    }
    const auto splits = [&](std::int64_t size, const char* dim, const char* why) {
        if (size > 0 && config.tpSize > 0 && size % config.tpSize != 0)
            problems.push_back({ConfigField::Mistake, name + " " + why + ", and " + dim + " (" +
                                                          std::to_string(size) +
                                                          ") is not divisible by tp_size (" +
                                                          std::to_string(config.tpSize) + ")"});
    };
    switch (mistake) {
        case Mistake::None:
        case Mistake::InitPerGroup:
        case Mistake::Bias2PerPartial:
            break;
        case Mistake::RowThenColumn:
            splits(config.inDim, "in_dim", "splits linear1 by its in_dim rows");
            splits(config.features, "features", "splits linear2 by its features columns");
            break;
        case Mistake::GatherBetween:
            splits(config.features, "features", "splits linear2 by its features columns");
            break;
        case Mistake::SumGroups:
        case Mistake::SliceX:
            if (!column)
                problems.push_back({ConfigField::Mistake, name + " is a column-parallel mistake (" +
                                                              std::string(info(mistake).what) +
                                                              "); choose mode column"});
            break;
        case Mistake::ConcatPartials:
        case Mistake::BiasPerPartial:
            if (column)
                problems.push_back({ConfigField::Mistake, name + " is a row-parallel mistake (" +
                                                              std::string(info(mistake).what) +
                                                              "); choose mode row"});
            break;
    }
    if (mistake == Mistake::SliceX && column && config.inDim > 0 && config.tpSize > 0 &&
        config.inDim % config.tpSize != 0)
        problems.push_back({ConfigField::Mistake,
                            "slice-x gives each group an equal block of x's in_dim (" +
                                std::to_string(config.inDim) + ") columns, and in_dim is not " +
                                "divisible by tp_size (" + std::to_string(config.tpSize) + ")"});
    if (mistake == Mistake::InitPerGroup && !nnxLayer)
        problems.push_back({ConfigField::Mistake,
                            "init-per-group builds each group's nnx.Linear from the seed; the "
                            "worked example has fixed arrays and no seed"});
    if (problems.empty() && mistake != Mistake::None && config.validate().empty()) {
        const std::int64_t need = bytesNeeded(config) + mistakeExtraBytes(config, mistake);
        if (need > config.memoryBudgetBytes)
            problems.push_back({ConfigField::Memory, "with the mistake " + name +
                                                         " this scene needs " + formatBytes(need) +
                                                         ", more than the memory budget of " +
                                                         formatBytes(config.memoryBudgetBytes) +
                                                         "; choose smaller sizes"});
    }
    return problems;
}

std::int64_t mistakeExtraBytes(const LayerConfig& c, Mistake mistake) {
    switch (mistake) {
        case Mistake::SumGroups:
            return floats(2 * c.batch * (c.features / c.tpSize));
        case Mistake::ConcatPartials:
            return floats(c.batch * c.features * c.tpSize);
        case Mistake::InitPerGroup:
            return floats(c.inDim * c.features / c.tpSize + c.features);
        case Mistake::RowThenColumn:  // linear1's partial sums and their GeLUs, (N, hidden) each
            return floats(2 * c.tpSize * c.batch * c.hidden);
        case Mistake::None:
        case Mistake::BiasPerPartial:
        case Mistake::SliceX:
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
            break;
    }
    return 0;
}

std::string mistakeWithoutEffect(const LayerConfig& config, Mistake mistake, bool biasIsZero) {
    const bool oneGroup = config.tpSize == 1;
    switch (mistake) {
        case Mistake::None:
            break;
        case Mistake::SumGroups:
            if (oneGroup)
                return "sum-groups has no effect at tp_size 1: the one group's output is the "
                       "whole output, and a sum of one output is that output";
            break;
        case Mistake::ConcatPartials:
            if (oneGroup)
                return "concat-partials has no effect at tp_size 1: there is one partial sum, and "
                       "concatenating one array is the same as adding it";
            break;
        case Mistake::BiasPerPartial:
            if (oneGroup)
                return "bias-per-partial has no effect at tp_size 1: there is one partial sum, "
                       "so the bias is added once anyway";
            if (biasIsZero)
                return "bias-per-partial has no effect here: the bias is zero (NNX's default "
                       "bias init), so adding it to every partial sum adds nothing";
            break;
        case Mistake::InitPerGroup:
            if (oneGroup)
                return "init-per-group has no effect at tp_size 1: the one group's own "
                       "nnx.Linear has the whole layer's shape and seed, so it is that layer";
            break;
        case Mistake::SliceX:
            if (oneGroup)
                return "slice-x has no effect at tp_size 1: the one group's block of x is all "
                       "of x";
            break;
        case Mistake::RowThenColumn:
            if (oneGroup)
                return "row-then-column has no effect at tp_size 1: the one device's partial sum "
                       "is all of h, so its GeLU is the GeLU of the sum";
            break;
        case Mistake::GatherBetween:
            return "gather-between computes the right output: its cost is the hidden activations "
                   "gathered onto every device (the costs show the extra bytes and memory)";
        case Mistake::Bias2PerPartial:
            if (oneGroup)
                return "bias2-per-partial has no effect at tp_size 1: there is one partial sum, "
                       "so linear2's bias is added once anyway";
            if (biasIsZero)
                return "bias2-per-partial has no effect here: the biases are zero (NNX's default "
                       "bias init), so adding linear2's to every partial sum adds nothing";
            break;
    }
    return {};
}

std::optional<BiasInit> biasShowingMistake(const LayerConfig& config, Mistake mistake,
                                           bool biasIsZero) {
    const bool perPartial =
        mistake == Mistake::BiasPerPartial || mistake == Mistake::Bias2PerPartial;
    if (!perPartial || config.tpSize == 1 || !biasIsZero)
        return std::nullopt;
    return BiasInit{BiasInit::Kind::Normal, 0.5f};
}

ForwardResult forwardWithMistake(Mistake mistake, const MatrixCRef& x, const MatrixCRef& kernel,
                                 const RowVectorCRef& bias, const ShardingPlan& plan,
                                 const GroupLayer& own, Progress* progress) {
    assert(x.cols() == plan.inDim && kernel.rows() == plan.inDim);
    assert(kernel.cols() == plan.features && bias.size() == plan.features);
    assert(mistakeBlock(mistake) == Block::Linear);
    const Index batch = x.rows();
    const bool column = plan.mode == ParallelMode::Column;
    ForwardResult result;
    switch (mistake) {
        case Mistake::RowThenColumn:
        case Mistake::GatherBetween:
        case Mistake::Bias2PerPartial:
            break;  // the MLP block's, made by block/mlp.h
        case Mistake::None:
            return forwardParallel(x, kernel, bias, plan, progress);
        case Mistake::SumGroups:
            assert(column);
            // The right pieces, then added as if they were partial sums of the same columns.
            result = forwardColumnParallel(x, kernel, bias, plan, progress);
            if (!isCancelled(progress))
                addPartials(result);
            return result;
        case Mistake::ConcatPartials:
            assert(!column);
            // The right partial sums, then set side by side instead of added.
            result = forwardRowParallel(x, kernel, bias, plan, progress);
            if (isCancelled(progress))
                return result;
            result.partialsAdded = false;
            concatenatePartials(result);
            // The bias, (features,), fits the result only when there is one partial.
            if (plan.tpSize == 1)
                result.output.rowwise() += bias;
            return result;
        case Mistake::BiasPerPartial:
            assert(!column);
            // The right partial sums, each with the bias, then added.
            result = forwardRowParallel(x, kernel, bias, plan, progress);
            if (isCancelled(progress))
                return result;
            {
                std::vector<Matrix> partials = std::move(result.partials).take();
                for (Matrix& partial : partials)
                    partial.rowwise() += bias;
                result.partials = std::move(partials);
            }
            addPartials(result);
            return result;
        case Mistake::InitPerGroup:
            if (column) {
                assert(own.kernel.rows() == plan.inDim && own.kernel.cols() == plan.chunk);
                result = eachGroup(plan, batch, plan.chunk, progress,
                                   [&](const ShardGroup&, Matrix& partial) {
                                       multiply(partial, x, own.kernel);
                                       partial.rowwise() += own.bias;
                                   });
                if (!isCancelled(progress))
                    concatenatePartials(result);
                return result;
            }
            assert(own.kernel.rows() == plan.chunk && own.kernel.cols() == plan.features);
            result = eachGroup(plan, batch, plan.features, progress,
                               [&](const ShardGroup& g, Matrix& partial) {
                                   partial = groupProduct(inputSlice(x, g), own.kernel);
                               });
            if (isCancelled(progress))
                return result;
            addPartials(result);
            result.output.rowwise() += own.bias;
            return result;
        case Mistake::SliceX:
            assert(column && plan.inDim % plan.tpSize == 0);
            result = eachGroup(
                plan, batch, plan.chunk, progress, [&](const ShardGroup& g, Matrix& partial) {
                    const IndexRange b = sliceXInputBlock(plan, g.index);
                    multiply(
                        partial, x.middleCols(b.start, b.size()),
                        kernel.block(b.start, g.kernelCols.start, b.size(), g.kernelCols.size()));
                    partial.rowwise() += bias.segment(g.kernelCols.start, g.kernelCols.size());
                });
            if (!isCancelled(progress))
                concatenatePartials(result);
            return result;
    }
    return result;
}

}  // namespace tp
