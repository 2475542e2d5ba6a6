#include "mlp/mlp_ranks.h"

#include "block/mlp.h"
#include "block/mlp_backward.h"
#include "block/mlp_check.h"
#include "block/mlp_costs.h"
#include "io/standard_output.h"
#include "mlp/mlp_rank_report.h"
#include "nnx/nnx_init.h"
#include "rank_check.h"
#include "rank_faults.h"
#include "scene/mlp_report.h"
#include "scene/mlp_scene.h"
#include "scene/scene_arrays.h"
#include "steady_seconds.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>

namespace tp::mpi {

std::int64_t mlpRankBytesNeeded(const LayerConfig& c, bool backward) {
    const MlpCosts costs = mlpCosts(c, Mistake::None, backward);
    std::int64_t bytes = costs.perDevice.total();
    if (backward)
        bytes += costs.backward.total() + costs.backward.dxBytes;
    return bytes;
}

bool wholeBlockFitsRankZero(const LayerConfig& c, bool backward) {
    std::int64_t whole = 0;
    if (__builtin_mul_overflow(mlpBytesNeeded(c), 2, &whole) ||
        (backward && __builtin_add_overflow(whole, mlpBackwardBytesNeeded(c), &whole)))
        return false;
    const std::int64_t share = mlpRankBytesNeeded(c, backward);
    return whole <= c.memoryBudgetBytes - std::min(share, c.memoryBudgetBytes);
}

std::vector<std::string> mlpRunProblems(const SceneOptions& options, const LayerConfig& c,
                                        int worldSize) {
    std::vector<std::string> problems;
    if (worldSize != c.tpSize)
        problems.push_back("the world size (" + std::to_string(worldSize) +
                           " ranks) must equal tp_size (" + std::to_string(c.tpSize) +
                           "): the MLP block runs one rank per device of its \"model\" axis; "
                           "start it with mpirun -n " +
                           std::to_string(c.tpSize));
    if (mlpBytesNeeded(c) == INT64_MAX) {  // saturated: the byte counts below would overflow
        problems.push_back(
            "this block's sizes are beyond any memory (more than 2^63 bytes); choose smaller "
            "sizes");
        return problems;
    }
    const bool backward = options.backward;
    const std::int64_t share = mlpRankBytesNeeded(c, backward);
    if (share > c.memoryBudgetBytes)
        problems.push_back("each rank needs " + formatBytes(share) + " (" + std::to_string(share) +
                           " bytes) for its slice of the block" +
                           (backward ? " and its backward pass" : "") +
                           ", more than the memory budget of " + formatBytes(c.memoryBudgetBytes) +
                           "; split it across more ranks (a larger tp_size) or choose smaller "
                           "sizes");
    // The largest array one rank sends in one MPI call: the partial sums, its slices of kernel1
    // and kernel2 (gathered with the gradients' slices), x's rows (dx).
    const std::int64_t slice = c.hidden / c.tpSize;
    const std::int64_t largest =
        std::max({c.batch * c.features, c.inDim * slice, slice * c.features, c.batch * c.inDim});
    if (largest > INT_MAX)
        problems.push_back("a rank's largest array (" + std::to_string(largest) +
                           " values) is more than one MPI message of 2^31 - 1 values; use a "
                           "larger tp_size or smaller sizes");
    if (!wholeBlockFitsRankZero(c, backward))
        problems.push_back(
            "tpviz-mpi checks the MLP block on rank 0 against the whole block computed in one "
            "process, and the whole block (" +
            formatBytes(mlpBytesNeeded(c)) + ", twice: gathered, and computed in one process)" +
            (backward ? " with its backward pass (" + formatBytes(mlpBackwardBytesNeeded(c)) + ")"
                      : std::string()) +
            " does not fit rank 0's memory budget of " + formatBytes(c.memoryBudgetBytes) +
            " beside its share; choose smaller sizes");
    return problems;
}

namespace {

// The rank's slice as a block of its own: one device holding `hidden / tp_size` hidden features.
// The core's split of it computes exactly the rank's products.
LayerConfig sliceConfig(const LayerConfig& c) {
    LayerConfig slice = c;
    slice.hidden = c.hidden / c.tpSize;
    slice.tpSize = 1;
    return slice;
}

// What a rank computed in the forward pass, and how long it took.
struct RankForward {
    IndexRange hidden;  // its slice of the hidden features
    MlpParams share;    // drawn from the seed alone
    MlpForward pass;    // its h and a (N, c), and linear2's partial sum (partials[0], (N, F))
    Matrix output;      // (N, F): the partial sums all-reduced, bias2 added once
    double generateSeconds = 0, computeSeconds = 0, communicationSeconds = 0;
};

// The wall clock of an all-reduce of `sums` in place, in the steady state (steadyCollective:
// after every rank is ready, and after untimed calls); 0 and left out when the tests skip it.
double allReduceSeconds(bool skipped, Matrix& sums, MPI_Comm world) {
    if (skipped)
        return 0;
    return steadyCollective(world, std::span(sums.data(), std::size_t(sums.size())),
                            [&] {
                                MPI_Allreduce(MPI_IN_PLACE, sums.data(), int(sums.size()),
                                              MPI_FLOAT, MPI_SUM, world);
                            })
        .call;
}

RankForward runForward(const LayerConfig& c, int rank, const TestOptions& hidden, MPI_Comm world) {
    RankForward f;
    const std::int64_t width = c.hidden / c.tpSize;
    f.hidden = {rank * width, (rank + 1) * width};
    double start = MPI_Wtime();
    f.share = mlpShard(c, f.hidden);
    f.generateSeconds = MPI_Wtime() - start;
    runFailureDrill(hidden.drill, rank);

    f.computeSeconds = steadySeconds([&] {
        f.pass = {};
        f.pass = mlpForward(f.share, sliceConfig(c));
    });
    // The one device's output is its partial sum plus bias2; here the partial sums are
    // all-reduced first, and bias2 is added once after.
    f.output = std::move(f.pass.output);
    f.output = f.pass.partials.front();
    f.communicationSeconds =
        allReduceSeconds(hidden.skippedCollective == "partials", f.output, world);
    f.output.rowwise() += f.share.bias2;
    return f;
}

// What a rank computed in the backward pass, and how long it took.
struct RankBackward {
    Matrix dy;         // (N, F), all of it
    MlpBackward pass;  // its slices of the gradients; gradients.dx all-reduced
    double generateSeconds = 0, computeSeconds = 0, communicationSeconds = 0;
};

RankBackward runBackward(const LayerConfig& c, const RankForward& f, bool keepPartial,
                         const std::string& skipped, MPI_Comm world) {
    RankBackward b;
    double start = MPI_Wtime();
    b.dy = mlpCotangentBlock(c, {0, c.batch}, {0, c.features});
    b.generateSeconds = MPI_Wtime() - start;
    b.computeSeconds = steadySeconds([&] {
        b.pass = {};
        b.pass = mlpBackwardParallel(f.share, f.pass, b.dy);
    });
    // The one device's dx is its partial, bit for bit (a sum of one device's product): kept
    // before the all-reduce, instead of made again.
    b.pass.dxPartials =
        keepPartial ? Partials(std::vector<Matrix>{b.pass.gradients.dx}) : Partials();
    Matrix& dx = b.pass.gradients.dx;
    b.communicationSeconds = allReduceSeconds(skipped == "dx", dx, world);
    return b;
}

// On rank 0: every rank's block side by side in rank order, along the columns (h, a, dkernel1,
// dbias1: slices of the hidden features) or the rows (dkernel2). Empty elsewhere. Collective.
enum class Along { Columns, Rows };

Matrix gatherSlices(const MatrixCRef& mine, Along along, MPI_Comm world) {
    const Matrix contiguous = mine;
    const std::vector<float> all = gatherFloats(contiguous.data(), contiguous.size(), world);
    if (all.empty())
        return {};
    const Index rows = mine.rows(), cols = mine.cols();
    const Index ranks = Index(all.size()) / std::max<Index>(mine.size(), 1);
    if (along == Along::Rows)  // row blocks rank after rank are the whole array, row-major
        return Eigen::Map<const Matrix>(all.data(), rows * ranks, cols);
    Matrix whole(rows, cols * ranks);
    for (Index r = 0; r < ranks; ++r)
        whole.middleCols(r * cols, cols) =
            Eigen::Map<const Matrix>(all.data() + r * mine.size(), rows, cols);
    return whole;
}

// On rank 0: every rank's (rows, cols) array, in rank order. Empty elsewhere. Collective.
std::vector<Matrix> gatherEach(const Matrix& mine, MPI_Comm world) {
    const std::vector<float> all = gatherFloats(mine.data(), mine.size(), world);
    std::vector<Matrix> each;
    for (std::size_t at = 0; mine.size() > 0 && at < all.size(); at += std::size_t(mine.size()))
        each.emplace_back(Eigen::Map<const Matrix>(all.data() + at, mine.rows(), mine.cols()));
    return each;
}

RowVector gatherBias(const RowVector& mine, MPI_Comm world) {
    const Matrix whole =
        gatherSlices(Eigen::Map<const Matrix>(mine.data(), 1, mine.size()), Along::Columns, world);
    return whole.size() ? RowVector(whole.row(0)) : RowVector();
}

// On rank 0: the split's arrays as the core's MlpForward holds them (partials only when kept).
MlpForward gatherForward(const LayerConfig& c, RankForward& f, bool keepPartials, MPI_Comm world) {
    MlpForward whole;
    whole.plan = mlpPlan(c);
    whole.h = gatherSlices(f.pass.h, Along::Columns, world);
    whole.a = gatherSlices(f.pass.a, Along::Columns, world);
    if (keepPartials)
        whole.partials = gatherEach(f.pass.partials.front(), world);
    whole.output = std::move(f.output);  // every rank holds all of it after the all-reduce
    return whole;
}

// On rank 0: the gradients as the core's MlpBackward holds them (the dx partials only when
// kept). dx and dbias2 are rank 0's own: every rank holds them whole.
MlpBackward gatherBackward(RankBackward& b, MPI_Comm world) {
    MlpGradients& mine = b.pass.gradients;
    MlpBackward whole;
    MlpGradients& g = whole.gradients;
    g.dkernel1 = gatherSlices(mine.dkernel1, Along::Columns, world);
    g.dbias1 = gatherBias(mine.dbias1, world);
    g.dkernel2 = gatherSlices(mine.dkernel2, Along::Rows, world);
    g.da = gatherSlices(mine.da, Along::Columns, world);
    g.dh = gatherSlices(mine.dh, Along::Columns, world);
    if (!b.pass.dxPartials.empty())
        whole.dxPartials = gatherEach(b.pass.dxPartials.front(), world);
    g.dx = std::move(mine.dx);
    g.dbias2 = std::move(mine.dbias2);
    return whole;
}

std::int64_t bitIdenticalElements(const Matrix& a, const Matrix& b) {
    assert(a.size() == b.size());
    using Bits = Eigen::Map<const Eigen::Array<std::uint32_t, Eigen::Dynamic, 1>>;
    return (Bits(reinterpret_cast<const std::uint32_t*>(a.data()), a.size()) ==
            Bits(reinterpret_cast<const std::uint32_t*>(b.data()), b.size()))
        .count();
}

// Rank 0's scene for the report: the arrays gathered from the ranks, beside the whole block drawn
// and computed here, and checked against it with the block's check; `check` counts the output
// elements whose bits equal the single-process split's (tpviz-cli's output).
Scene assembleScene(const SceneOptions& options, MlpForward split,
                    std::optional<MlpBackward> backward, CheckKind& check) {
    const LayerConfig& c = options.config;
    const CheckSettings settings = sceneRun(options).check;
    auto s = std::make_shared<MlpScene>();
    s->params = initMlp(c);
    s->split = std::move(split);
    s->reference = mlpReference(s->params);
    s->bounds = mlpForwardBounds(s->params, s->reference);
    s->verification = verifyMlp(s->split, s->reference, s->bounds, settings);
    s->costs = mlpCosts(c, Mistake::None, options.backward);
    const Matrix single = mlpForward(s->params, c).output;
    check.elements = single.size();
    check.bitIdentical = bitIdenticalElements(single, s->split.output);
    if (backward) {
        MlpBackwardScene b;
        b.dy = mlpCotangentBlock(c, {0, c.batch}, {0, c.features});
        b.split = std::move(*backward);
        b.reference = mlpBackwardReference(s->params, s->reference, b.dy);
        b.verification = verifyMlpBackward(b.split.gradients, b.reference, s->params, s->reference,
                                           s->bounds, b.dy, settings);
        s->backward = std::move(b);
    }
    Scene scene;
    scene.config = c;
    scene.mlp = std::move(s);
    return scene;
}

MlpRankStats forwardStats(int rank, const RankForward& f) {
    constexpr auto f32 = std::int64_t(sizeof(float));
    MlpRankStats s;
    s.rank = rank;
    s.hidden = f.hidden;
    s.kernel1BytesHeld = f.share.kernel1.size() * f32;
    s.bias1BytesHeld = f.share.bias1.size() * f32;
    s.kernel2BytesHeld = f.share.kernel2.size() * f32;
    s.bias2BytesHeld = f.share.bias2.size() * f32;
    s.xBytesHeld = f.share.x.size() * f32;
    s.hiddenBytesHeld = (f.pass.h.size() + f.pass.a.size()) * f32;
    s.partialBytesHeld = f.pass.partials.front().size() * f32;
    s.outputBytesHeld = f.output.size() * f32;
    s.generateSeconds = f.generateSeconds;
    s.computeSeconds = f.computeSeconds;
    s.communicationSeconds = f.communicationSeconds;
    return s;
}

MlpRankBackwardStats backwardStats(const RankBackward& b) {
    constexpr auto f32 = std::int64_t(sizeof(float));
    const MlpGradients& g = b.pass.gradients;
    return {b.dy.size() * f32,       g.da.size() * f32,     g.dh.size() * f32,
            g.dkernel1.size() * f32, g.dbias1.size() * f32, g.dkernel2.size() * f32,
            g.dbias2.size() * f32,   g.dx.size() * f32,     b.generateSeconds,
            b.computeSeconds,        b.communicationSeconds};
}

// Writes --save-npy's arrays and the report; the exit status (2 when either could not be written,
// with the reason on stderr).
int report(const SceneOptions& options, const Scene& scene, const std::vector<MlpRankStats>& ranks,
           const CheckKind& check) {
    int status = scene.passed() ? 0 : 1;
    std::string error;
    if (!options.saveNpyDir.empty()) {
        error = saveSceneArrays(scene, options.saveNpyDir, nullptr);
        if (!error.empty())
            error = "--save-npy: " + error;
    }
    if (error.empty())
        error = options.json
                    ? writeStandardOutput([&](std::ostream& out) {
                          writeMlpJsonReport(out, scene, options.summary, options.costs,
                                             mlpRanksJson(ranks, check));
                      })
                    : writeStandardOutput(mlpTextReport(scene, options.summary, options.costs) +
                                          mlpRanksText(ranks, check));
    if (error.empty())
        error = finishStandardOutput();
    if (!error.empty()) {
        std::cerr << "tpviz-mpi: " << error << '\n';
        status = 2;
    }
    return status;
}

}  // namespace

int runMlpRanks(const SceneOptions& options, const TestOptions& hidden, MPI_Comm world) {
    const LayerConfig& c = options.config;
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    // The full report and --save-npy show linear2's partial sums and dx's.
    const bool keepPartials = !options.summary || !options.saveNpyDir.empty();

    RankForward forward = runForward(c, rank, hidden, world);
    MlpRankStats stats = forwardStats(rank, forward);
    std::optional<RankBackward> backward;
    if (options.backward) {
        backward = runBackward(c, forward, keepPartials, hidden.skippedCollective, world);
        stats.backward = backwardStats(*backward);
    }
    forward.share = MlpParams();
    std::optional<MlpBackward> gradients;
    if (backward)
        gradients = gatherBackward(*backward, world);
    backward.reset();
    MlpForward split = gatherForward(c, forward, keepPartials, world);
    forward = RankForward();
    stats.peakRssBytes = peakRssBytes();
    const std::vector<MlpRankStats> ranks = gatherMlpStats(stats, world);

    int status = 0;
    if (rank == 0) {
        CheckKind check{true, "the whole block (" + formatBytes(mlpBytesNeeded(c)) +
                                  ") twice, gathered and computed in one process, beside rank 0's "
                                  "share fits the memory budget of " +
                                  formatBytes(c.memoryBudgetBytes)};
        const Scene scene = assembleScene(options, std::move(split), std::move(gradients), check);
        status = report(options, scene, ranks, check);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, world);
    return status;
}

}  // namespace tp::mpi
