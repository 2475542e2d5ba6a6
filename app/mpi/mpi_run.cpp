#include "mpi_run.h"

#include "devices/mesh_costs.h"
#include "io/standard_output.h"
#include "layer/forward.h"
#include "nnx/nnx_init.h"
#include "rank_check.h"
#include "rank_report.h"
#include "scene/report.h"
#include "scene/scene_arrays.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <iostream>

namespace tp::mpi {

bool wholeLayerFitsRankZero(const LayerConfig& config) {
    // The gathered arrays and the single-process scene beside them: twice a scene, at most.
    const std::int64_t whole =
        bytesNeeded(config) > INT64_MAX / 2 ? INT64_MAX : 2 * bytesNeeded(config);
    const std::int64_t share = rankBytesNeeded(config);
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
    if (options.mistake != Mistake::None)
        problems.push_back(
            "--mistake: tpviz-mpi runs the correct split on real ranks; tpviz-cli "
            "and the app make the mistakes");
    if (options.backward)
        problems.push_back(
            "--backward: tpviz-mpi runs the forward pass on real ranks; tpviz-cli computes the "
            "backward pass");
    if (!problems.empty() || !configValid)
        return problems;
    LayerConfig c = options.config;
    if (memoryBudget)
        c.memoryBudgetBytes = *memoryBudget;

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
    const std::int64_t share = rankBytesNeeded(c);
    if (share > c.memoryBudgetBytes)
        problems.push_back("each rank needs " + formatBytes(share) + " (" + std::to_string(share) +
                           " bytes) for its share, more than the memory "
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
    if (scene.config.mode == ParallelMode::Row && !scene.result.partials.empty())
        sumInGroupOrder(scene.result);
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

// --costs without the single-process ring: the collective ran on the ranks instead.
SceneCosts rankCosts(const SceneOptions& options) {
    SceneCosts costs;
    costs.mesh = meshCosts(options.config);
    costs.estimate = estimateTime(costs.mesh, *options.hardware);
    costs.ring.kind = costs.mesh.collective.kind;
    costs.ring.note = "the collective ran on the MPI ranks (see MPI below), not simulated";
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

int runRanks(const SceneOptions& options, const std::optional<FailureDrill>& drill,
             MPI_Comm world) {
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
    double start = MPI_Wtime();
    RankShare share = drawShare(c, place);
    stats.generateSeconds = MPI_Wtime() - start;
    runFailureDrill(drill, place.rank);

    const bool whole = wholeLayerFitsRankZero(c);
    // The full report and --save-npy show every partial; the summary only the output.
    const bool saveArrays = !options.saveNpyDir.empty();
    const bool keepPartials = !options.summary || saveArrays;
    const RankOutput output = runForward(c, place, share, modelComm, keepPartials);
    stats.kernelBytesHeld = share.kernel.size() * std::int64_t(sizeof(float));
    stats.biasBytesHeld = share.bias.size() * std::int64_t(sizeof(float));
    stats.xBytesHeld = share.x.size() * std::int64_t(sizeof(float));
    stats.outputBytesHeld = output.held.size() * std::int64_t(sizeof(float));
    stats.computeSeconds = output.computeSeconds;
    stats.communicationSeconds = output.communicationSeconds;
    MPI_Comm_free(&modelComm);

    Verification blocks;
    if (!whole)
        blocks = checkBlocks(c, place, output, share, sceneRun(options).check, world);
    share = RankShare();
    std::vector<Matrix> partials;
    if (keepPartials)
        partials = gatherPartials(c, place, output, world);
    Matrix assembled;
    if (whole)
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
        std::optional<SceneCosts> costs;
        if (options.costs)
            costs = rankCosts(options);
        const SceneCosts* shown = costs ? &*costs : nullptr;
        status = scene.verification.passed() ? 0 : 1;
        std::string error;
        if (saveArrays) {
            error = saveSceneArrays(scene, options.saveNpyDir);
            if (!error.empty())
                error = "--save-npy: " + error;
        }
        if (error.empty())
            error = options.json ? writeStandardOutput([&](std::ostream& out) {
                writeJsonReport(out, scene, options.summary, shown, ranksJson(ranks, check));
            })
                                 : writeStandardOutput(textReport(scene, options.summary, shown) +
                                                       ranksText(ranks, check));
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
