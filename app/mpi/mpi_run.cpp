#include "mpi_run.h"

#include "devices/layout_costs.h"
#include "devices/mesh_costs.h"
#include "io/standard_output.h"
#include "layer/forward.h"
#include "layout_ranks.h"
#include "mlp/mlp_ranks.h"
#include "nnx/nnx_init.h"
#include "rank_backward.h"
#include "rank_check.h"
#include "rank_report.h"
#include "scene/report.h"
#include "scene/scene_arrays.h"
#include "scene/scene_backward.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <iostream>

namespace tp::mpi {

namespace {

// A rank's share, with its backward pass when asked: the fsdp and sequence layouts' peak as
// layoutMemory counts it.
std::int64_t shareBytes(const LayerConfig& config, bool backward) {
    if (config.layout != ShardingLayout::Tensor)
        return layoutMemory(config, backward).peak;
    return rankBytesNeeded(config) + (backward ? rankBackwardBytesNeeded(config) : 0);
}

}  // namespace

bool wholeLayerFitsRankZero(const LayerConfig& config, bool backward) {
    // The gathered arrays and the single-process scene beside them: twice a scene, at most; with
    // the backward pass, its gathered gradients and their check too.
    std::int64_t whole = 0;
    if (__builtin_mul_overflow(bytesNeeded(config), 2, &whole) ||
        (backward && __builtin_add_overflow(whole, backwardBytesNeeded(config), &whole)))
        return false;
    const std::int64_t share = shareBytes(config, backward);
    return whole <= config.memoryBudgetBytes - std::min(share, config.memoryBudgetBytes);
}

std::vector<std::string> runProblems(const SceneOptionsParse& parse, int worldSize,
                                     std::optional<std::int64_t> memoryBudget) {
    const SceneOptions& options = parse.options;
    // The options' own errors, then the scene's problems but the whole scene's memory budget.
    std::vector<std::string> problems(parse.errors.begin(),
                                      parse.errors.end() - std::ptrdiff_t(parse.problems.size()));
    bool configValid = true;
    for (const ConfigProblem& p : parse.problems) {
        if (p.field == ConfigField::Memory)
            continue;
        problems.push_back(p.message);
        configValid = false;
    }
    if (options.source == SceneSource::Brief)
        problems.push_back(
            "--example brief: the worked example's arrays are not drawn from a seed, and "
            "each rank draws its share from the seed; leave it out");
    if (options.source == SceneSource::Files)
        problems.push_back(
            "--kernel, --bias FILE, --x: each rank draws its share from the seed; tpviz-cli reads "
            "array files");
    if (options.mistake != Mistake::None && options.config.block == Block::Mlp)
        problems.push_back(
            "--mistake: tpviz-mpi runs the MLP block's correct split on real ranks; tpviz-cli "
            "--block mlp --mistake NAME makes the block's mistakes for real");
    else if (options.mistake != Mistake::None)
        problems.push_back(
            "--mistake: tpviz-mpi runs the correct split on real ranks; tpviz-cli "
            "and the app make the mistakes");
    if (!problems.empty() || !configValid)
        return problems;
    LayerConfig c = options.config;
    if (memoryBudget)
        c.memoryBudgetBytes = *memoryBudget;
    if (c.block == Block::Mlp)
        return mlpRunProblems(options, c, worldSize);

    const std::int64_t devices = c.dataSize * c.tpSize;
    if (worldSize != devices)
        problems.push_back("the world size (" + std::to_string(worldSize) +
                           " ranks) must equal data (" + std::to_string(c.dataSize) +
                           ") * tp_size (" + std::to_string(c.tpSize) +
                           ") = " + std::to_string(devices) + ": start it with mpirun -n " +
                           std::to_string(devices));
    if (bytesNeeded(c) == INT64_MAX) {  // saturated: the byte counts below would overflow
        problems.push_back(
            "this scene's sizes are beyond any memory (more than 2^63 bytes); "
            "choose smaller sizes");
        return problems;
    }
    const std::int64_t share = shareBytes(c, options.backward);
    if (share > c.memoryBudgetBytes)
        problems.push_back("each rank needs " + formatBytes(share) + " (" + std::to_string(share) +
                           " bytes) for its share" +
                           (options.backward ? " and its backward pass" : "") +
                           ", more than the memory "
                           "budget of " +
                           formatBytes(c.memoryBudgetBytes) +
                           "; split it across more ranks (a larger tp_size or data) or choose "
                           "smaller sizes");
    const std::int64_t rows = c.batch / c.dataSize;
    if (rows * c.features > INT_MAX)
        problems.push_back("a rank's output (" + std::to_string(rows) + " x " +
                           std::to_string(c.features) +
                           " values) is more than one MPI message "
                           "of 2^31 - 1 values; use a larger data size or a smaller batch");
    if (options.backward && largestBackwardMessage(c) > INT_MAX)
        problems.push_back("--backward: a rank's largest gradient or dy (" +
                           std::to_string(largestBackwardMessage(c)) +
                           " values) is more than one MPI message of 2^31 - 1 values; use a "
                           "larger tp_size or data size, or smaller sizes");
    if (c.layout != ShardingLayout::Tensor && !wholeLayerFitsRankZero(c, options.backward))
        problems.push_back("--layout " + std::string(toString(c.layout)) +
                           ": rank 0 checks every rank's arrays against the whole layer, and the "
                           "whole layer (" +
                           formatBytes(bytesNeeded(c)) +
                           ", twice: gathered, and computed in one process to check it) does not "
                           "fit rank 0's memory budget of " +
                           formatBytes(c.memoryBudgetBytes) +
                           " beside its share; choose smaller sizes or the tensor layout");
    if (!options.summary && !wholeLayerFitsRankZero(c))
        problems.push_back("the full report prints every array, and the whole layer (" +
                           formatBytes(bytesNeeded(c)) +
                           ", twice: gathered, and computed in one process to check it) does not "
                           "fit rank 0's memory budget of " +
                           formatBytes(c.memoryBudgetBytes) + " beside its share; add --summary");
    if (!options.saveNpyDir.empty() && !wholeLayerFitsRankZero(c))
        problems.push_back("--save-npy writes every array from rank 0, and the whole layer (" +
                           formatBytes(bytesNeeded(c)) +
                           ", twice: gathered, and computed in one process to check it) does not "
                           "fit rank 0's memory budget of " +
                           formatBytes(c.memoryBudgetBytes) +
                           " beside its share; leave out --save-npy or choose smaller sizes");
    if (options.backward && !wholeLayerFitsRankZero(c, true))
        problems.push_back(
            "--backward checks the gradients on rank 0 against jax.vjp of the whole layer, and "
            "the whole layer (" +
            formatBytes(bytesNeeded(c)) + ", twice) with its backward pass (" +
            formatBytes(backwardBytesNeeded(c)) + ") does not fit rank 0's memory budget of " +
            formatBytes(c.memoryBudgetBytes) +
            " beside its share; leave out --backward or choose smaller sizes");
    return problems;
}

namespace {

// Rank 0's scene for the report: the gathered output (and partials for the full report), with the
// arrays and the reference generated on rank 0 when the whole layer fits, else config and plan.
// With the whole layer, `check` also counts the output elements whose bits equal the core's split
// forward pass computed here.
Scene assembleScene(const SceneOptions& options, bool whole, Matrix output,
                    std::vector<Matrix> partials, CheckKind& check) {
    Scene scene;
    scene.config = options.config;
    scene.result.plan = ShardingPlan::make(scene.config);
    scene.result.output = std::move(output);
    scene.result.partials = std::move(partials);
    scene.result.partialsAdded =
        scene.config.mode == ParallelMode::Row && !scene.result.partials.empty();
    if (whole) {
        scene.params = initLayer(scene.config);
        const LayerParams& q = scene.params;
        scene.reference = forwardReference(q.x, q.kernel, q.bias);
        scene.verification = checkOutput(scene.result.output, scene.reference, q.x, q.kernel,
                                         q.bias, sceneRun(options).check);
        const Matrix single = forwardParallel(q.x, q.kernel, q.bias, scene.result.plan).output;
        check.elements = single.size();
        check.bitIdentical = std::int64_t(
            (Eigen::Map<const Eigen::ArrayXi>(reinterpret_cast<const int*>(single.data()),
                                              single.size()) ==
             Eigen::Map<const Eigen::ArrayXi>(
                 reinterpret_cast<const int*>(scene.result.output.data()), single.size()))
                .count());
    }
    return scene;
}

// --costs without the single-process rings: the collectives ran on the ranks instead.
SceneCosts rankCosts(const SceneOptions& options, const std::vector<LayoutCollective>& program) {
    constexpr const char* kOnRanks = "ran on the MPI ranks (see MPI below), not simulated";
    SceneCosts costs;
    costs.hardware = *options.hardware;
    costs.mesh = meshCosts(options.config);
    costs.estimate = layoutEstimate(options.config, PassPhase::Forward, costs.hardware);
    costs.backwardEstimate = layoutEstimate(options.config, PassPhase::Backward, costs.hardware);
    costs.ring.kind = costs.mesh.collective.kind;
    costs.ring.note = std::string("the collective ") + kOnRanks;
    for (const LayoutCollective& step : program) {
        RingRun& run = costs.layoutRings.emplace_back();
        run.kind = step.cost.kind;
        run.note = kOnRanks;
    }
    return costs;
}

CheckKind checkKind(const LayerConfig& c, bool whole) {
    const std::string twice = "the whole layer (" + formatBytes(bytesNeeded(c)) +
                              ") twice, gathered and computed in one process, beside rank 0's "
                              "share";
    const std::string budget = "the memory budget of " + formatBytes(c.memoryBudgetBytes);
    if (whole)
        return {true, twice + " fits " + budget};
    return {false, twice + " does not fit " + budget +
                       "; each rank checked its output block against a reference block it drew"};
}

}  // namespace

int runRanks(const SceneOptions& options, const TestOptions& hidden, MPI_Comm world) {
    if (options.config.block == Block::Mlp)
        return runMlpRanks(options, hidden, world);
    const LayerConfig& c = options.config;
    int worldRank = 0;
    MPI_Comm_rank(world, &worldRank);
    const RankPlace place = rankPlace(c, worldRank);
    MPI_Comm modelComm = MPI_COMM_NULL;
    MPI_Comm_split(world, int(place.d), int(place.m), &modelComm);

    RankStats stats;
    stats.rank = place.rank;
    stats.d = place.d;
    stats.m = place.m;
    const bool whole = wholeLayerFitsRankZero(c, options.backward);
    // The full report and --save-npy show every partial; the summary only the output.
    const bool saveArrays = !options.saveNpyDir.empty();
    const bool keepPartials = !options.summary || saveArrays;
    const bool layout = c.layout != ShardingLayout::Tensor;
    constexpr auto f32 = std::int64_t(sizeof(float));
    RankShare share;
    RankOutput output;
    BackwardResult gathered;
    if (layout) {
        // runProblems made sure the whole layer is on rank 0 to check every rank's arrays.
        runFailureDrill(hidden.drill, place.rank);
        MPI_Comm dataComm = MPI_COMM_NULL;
        MPI_Comm_split(world, int(place.m), int(place.d), &dataComm);
        LayoutRankRun run =
            runLayoutRanks(c, place, modelComm, dataComm, options.backward, keepPartials);
        MPI_Comm_free(&dataComm);
        stats.generateSeconds = run.generateSeconds;
        stats.kernelBytesHeld = run.kernelBytesAtRest;
        stats.biasBytesHeld = run.biasBytesAtRest;
        stats.xBytesHeld = run.xBytesAtRest;
        stats.layout =
            RankLayoutStats{run.kernelBytesAtRest + run.biasBytesAtRest + run.xBytesAtRest,
                            run.bytesPeak, std::move(run.collectiveSeconds)};
        output = std::move(run.output);
        if (options.backward) {
            const RankGradients& b = run.backward;
            const Gradients& g = b.gradients;
            stats.backward = RankBackwardStats{b.dy.size() * f32,
                                               g.dx.size() * f32,
                                               g.dkernel.size() * f32,
                                               g.dbias.size() * f32,
                                               b.generateSeconds,
                                               b.computeSeconds,
                                               {}};
            gathered = gatherLayoutGradients(c, place, b, world);
        }
    } else {
        double start = MPI_Wtime();
        share = drawShare(c, place);
        stats.generateSeconds = MPI_Wtime() - start;
        runFailureDrill(hidden.drill, place.rank);
        output = runForward(c, place, share, modelComm, keepPartials);
        stats.kernelBytesHeld = share.kernel.size() * f32;
        stats.biasBytesHeld = share.bias.size() * f32;
        stats.xBytesHeld = share.x.size() * f32;
    }
    stats.outputBytesHeld = output.held.size() * f32;
    stats.computeSeconds = output.computeSeconds;
    stats.waitSeconds = output.waitSeconds;
    stats.communicationSeconds = output.communicationSeconds;

    if (options.backward && !layout) {
        MPI_Comm dataComm = MPI_COMM_NULL;
        MPI_Comm_split(world, int(place.m), int(place.d), &dataComm);
        const RankGradients gradients = runBackward(c, place, share, modelComm, dataComm,
                                                    !options.summary, hidden.skippedCollective);
        MPI_Comm_free(&dataComm);
        const Gradients& g = gradients.gradients;
        stats.backward = RankBackwardStats{gradients.dy.size() * f32,  g.dx.size() * f32,
                                           g.dkernel.size() * f32,     g.dbias.size() * f32,
                                           gradients.generateSeconds,  gradients.computeSeconds,
                                           gradients.collectiveSeconds};
        gathered = gatherGradients(c, place, gradients, world);
    }
    MPI_Comm_free(&modelComm);

    Verification blocks;
    if (!whole)
        blocks = checkBlocks(c, place, output, share, sceneRun(options).check, world);
    share = RankShare();
    std::vector<Matrix> partials;
    if (keepPartials)
        partials = gatherPartials(c, place, output, world);
    Matrix assembled;
    if (layout)
        assembled = gatherLayoutOutput(c, place, output.held, world);
    else if (whole)
        assembled = gatherOutput(c, place, output, world);
    stats.peakRssBytes = peakRssBytes();
    const std::vector<RankStats> ranks = gatherStats(stats, world);

    int status = 0;
    if (place.rank == 0) {
        CheckKind check = checkKind(c, whole);
        Scene scene =
            assembleScene(options, whole, std::move(assembled), std::move(partials), check);
        if (!whole)
            scene.verification = blocks;
        // The gradients gathered from the ranks, checked as tpviz-cli checks its own (runProblems
        // made sure the whole layer is here).
        std::optional<SceneBackward> backward;
        if (options.backward)
            backward =
                completeBackward(scene, cotangent(c), std::move(gathered), sceneRun(options).check);
        const std::vector<LayoutCollective> program =
            layout ? layoutCollectives(c, options.backward) : std::vector<LayoutCollective>();
        std::optional<SceneCosts> costs;
        if (options.costs)
            costs = rankCosts(options, program);
        const SceneCosts* shown = costs ? &*costs : nullptr;
        const SceneBackward* shownBackward = backward ? &*backward : nullptr;
        // A layout's backward collectives are timed in its program's times.
        const std::vector<BackwardCollective> collectives =
            backward && !layout ? backward->collectives : std::vector<BackwardCollective>();
        status =
            scene.verification.passed() && (!backward || backward->verification.passed()) ? 0 : 1;
        std::string error;
        if (saveArrays) {
            error = saveSceneArrays(scene, options.saveNpyDir, shownBackward);
            if (!error.empty())
                error = "--save-npy: " + error;
        }
        if (error.empty())
            error = options.json ? writeStandardOutput([&](std::ostream& out) {
                writeJsonReport(out, scene, options.summary, shown,
                                ranksJson(ranks, check, collectives, program), shownBackward);
            })
                                 : writeStandardOutput(
                                       textReport(scene, options.summary, shown, shownBackward) +
                                       ranksText(ranks, check, collectives, program));
        if (error.empty())
            error = finishStandardOutput();
        if (!error.empty()) {
            std::cerr << "tpviz-mpi: " << error << '\n';
            status = 2;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, world);
    return status;
}

}  // namespace tp::mpi
