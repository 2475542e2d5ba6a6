// tpviz-mpi: the tensor-parallel split on real processes, one MPI rank per device of the
// data x model mesh, forward and (with --backward) backward; rank 0 prints tpviz-cli's report plus
// what each rank held and spent.

#include "calibrate.h"
#include "io/standard_output.h"
#include "layer/products.h"
#include "mpi_run.h"
#include "nnx/jax_random.h"
#include "rank_agreement.h"
#include "rank_faults.h"
#include "rank_memory.h"
#include "ring_algorithms.h"
#include "scene/option_rows.h"
#include "scene/python_snippet.h"
#include "scene/scene_arguments.h"
#include "scene/scene_arrays.h"
#include "test_options.h"

#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace {

// --version, answered before MPI starts, and --calibrate, listed in the help with the scene's
// options.
// --calibrate takes only --json and --output FILE (which is then a file, not the layout).
const tp::ExtraOption kCalibrate{
    "--calibrate", "",
    "measure this machine's collectives (8 B to 64 MiB), products and memory, fit the cost "
    "model's alpha and beta, and print a hardware preset; with --json only the preset, as "
    "--hardware FILE.json reads it; with --output FILE also write it to FILE"};

const std::vector<tp::ExtraOption>& extraOptions() {
    static const std::vector<tp::ExtraOption> extras = {tp::versionOption(), kCalibrate};
    return extras;
}

// --calibrate's own options out of `args`, or the problems with them.
struct CalibrateArgs {
    tp::mpi::CalibrateOptions options;
    std::vector<std::string> problems;
};

CalibrateArgs calibrateArgs(const std::vector<std::string>& args) {
    CalibrateArgs out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == kCalibrate.name)
            continue;
        if (args[i] == "--json")
            out.options.json = true;
        else if (args[i] == "--output" && i + 1 < args.size())
            out.options.output = args[++i];
        else
            out.problems.push_back(args[i] == "--output"
                                       ? "--calibrate --output needs a FILE"
                                       : "--calibrate takes only --json and --output FILE, not " +
                                             args[i]);
    }
    return out;
}

std::string helpText() {
    return "Usage: mpirun -n <data * tp_size> tpviz-mpi [options]\n"
           "Runs nnx.Linear(in_dim, features) split across data * tp_size MPI ranks: each "
           "rank draws only its share from the seed, computes its partial and takes part in "
           "the output layout's collective (with --backward, its gradients and the backward's "
           "collectives too); rank 0 prints tpviz-cli's report, each rank's bytes held and "
           "times, and the check. With --block mlp, the Megatron MLP block on tp_size ranks: "
           "each rank its slice of the hidden features, one all-reduce of linear2's partial "
           "sums (and with --backward one of dx). With --layout fsdp or sequence (and --costs), "
           "one Linear's layout: each rank keeps only its chunks at rest and runs the layout's "
           "gathers and reduce-scatters over the data and model communicators in the order "
           "--costs lists them; each rank reports its bytes at rest and at its peak and each "
           "collective's time.\n\n" +
           tp::sceneOptionsHelp(extraOptions());
}

// Prints the finished output; a failure to write it is exit 2 with the reason, never success.
int print(const std::string& text, int status) {
    std::string error = tp::writeStandardOutput(text);
    if (error.empty())
        error = tp::finishStandardOutput();
    if (error.empty())
        return status;
    std::cerr << "tpviz-mpi: " << error << '\n';
    return 2;
}

// The words that spell this rank's scene and run, which every rank must share: the options
// (sceneArguments, with each option's value as parsed, so a scene file's contents count), the
// hidden memory budget and a collective left out.
std::vector<std::string> sceneWords(const tp::SceneOptions& options,
                                    const tp::mpi::TestOptions& hidden) {
    std::vector<std::string> words = tp::sceneArguments(options);
    words.push_back("--memory-budget");
    words.push_back(std::to_string(hidden.memoryBudget.value_or(options.config.memoryBudgetBytes)));
    if (!hidden.skippedCollective.empty()) {
        words.push_back("--skip-collective");
        words.push_back(hidden.skippedCollective);
    }
    return words;
}

// --calibrate on every rank; MPI is finalised here.
int calibrate(const CalibrateArgs& args) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int status = 2;
    if (!args.problems.empty()) {
        if (rank == 0)
            for (const std::string& problem : args.problems)
                std::cerr << "tpviz-mpi: " << problem << '\n';
    } else {
        status = tp::mpi::runCalibration(args.options, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    // Before MPI or any file is opened: a file opened now would be given descriptor 1.
    const std::string outputProblem = tp::standardOutputProblem();
    std::vector<std::string> args(argv + 1, argv + argc);
    // --help and --version answer without MPI, so they work outside mpirun too.
    if (std::find(args.begin(), args.end(), tp::versionOption().name) != args.end())
        return print(std::string("tpviz-mpi ") + TPVIZ_VERSION + '\n' + tp::simdPathLine() + '\n',
                     0);
    const tp::mpi::TestOptions hidden = tp::mpi::takeTestOptions(args);
    tp::SceneOptionsParse parse = tp::parseSceneOptions(args, extraOptions());
    if (parse.options.help)
        return print(helpText(), 0);
    if (parse.options.listHardware)
        return print(tp::hardwareListText(), 0);

    tp::mpi::preferRingBytes();
    tp::mpi::keepFreedPages();
    MPI_Init(&argc, &argv);
    int rank = 0;
    int worldSize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    tp::mpi::installFaultHandlers(rank);
    if (std::find(args.begin(), args.end(), kCalibrate.name) != args.end())
        return calibrate(calibrateArgs(args));

    std::vector<std::string> problems = hidden.errors;
    if (!outputProblem.empty())
        problems.push_back(outputProblem);
    for (std::string& problem : tp::mpi::runProblems(parse, worldSize, hidden.memoryBudget))
        problems.push_back(std::move(problem));
    if (std::string problem = tp::mpi::skippedCollectiveProblem(hidden, parse.options.config.block);
        !problem.empty())
        problems.push_back(std::move(problem));
    // Rank 0 writes the arrays, into its own file system.
    if (rank == 0 && !parse.options.saveNpyDir.empty())
        if (std::string problem = tp::sceneArrayFolderProblem(parse.options.saveNpyDir);
            !problem.empty())
            problems.push_back(tp::optionName(tp::Option::SaveNpy) + ": " + problem);
    const tp::mpi::RunAgreement agreement =
        tp::mpi::agreeOnRun(problems, sceneWords(parse.options, hidden), MPI_COMM_WORLD);
    if (!agreement.agreed) {
        for (const std::string& message : agreement.messages)
            std::cerr << "tpviz-mpi: " << message << '\n';
        MPI_Finalize();
        return 2;
    }
    if (parse.options.python) {
        int status = 0;
        if (rank == 0)
            status = print(tp::pythonSnippet(parse.options.config, tp::Mistake::None,
                                             tp::sceneRun(parse.options).check),
                           0);
        MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Finalize();
        return status;
    }

    int status = 1;
    try {
        if (hidden.memoryBudget)
            parse.options.config.memoryBudgetBytes = *hidden.memoryBudget;
        // The ranks time their products (compute_s): the product routes' one-time start-up,
        // OpenBLAS's load on the first product that takes it, is paid here instead.
        tp::warmProducts();
        status = tp::mpi::runRanks(parse.options, hidden, MPI_COMM_WORLD);
    } catch (const std::bad_alloc&) {
        tp::mpi::abortJob(rank, "out of memory (std::bad_alloc)");
    } catch (const std::exception& e) {
        tp::mpi::abortJob(rank, e.what());
    }
    MPI_Finalize();
    return status;
}
