// tpviz-mpi: the tensor-parallel split on real processes, one MPI rank per device of the
// data x model mesh; rank 0 prints tpviz-cli's report plus what each rank held and spent.

#include "jax_random.h"
#include "mpi_run.h"
#include "python_snippet.h"
#include "rank_faults.h"
#include "test_options.h"

#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <new>
#include <string>
#include <vector>

namespace {

void printHelp() {
    std::cout << "Usage: mpirun -n <data * tp_size> tpviz-mpi [options]\n"
                 "Runs nnx.Linear(in_dim, features) split across data * tp_size MPI ranks: each "
                 "rank draws only its share from the seed, computes its partial and takes part in "
                 "the output layout's collective; rank 0 prints tpviz-cli's report, each rank's "
                 "bytes held and times, and the check.\n\n"
              << tp::sceneOptionsHelp()
              << "  --version                    print the version and the SIMD path in use, "
                 "then exit\n";
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    // --help and --version answer without MPI, so they work outside mpirun too.
    if (std::find(args.begin(), args.end(), "--version") != args.end()) {
        std::cout << "tpviz-mpi " << TPVIZ_VERSION << "\nSIMD path: " << tp::simdPathName() << '\n';
        return 0;
    }
    const tp::mpi::TestOptions hidden = tp::mpi::takeTestOptions(args);
    tp::SceneOptionsParse parse = tp::parseSceneOptions(args);
    if (parse.options.help) {
        printHelp();
        return 0;
    }
    if (parse.options.listHardware) {
        std::cout << tp::hardwareListText();
        return 0;
    }

    MPI_Init(&argc, &argv);
    int rank = 0;
    int worldSize = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    tp::mpi::installFaultHandlers(rank);

    std::vector<std::string> problems = hidden.errors;
    for (std::string& problem : tp::mpi::runProblems(parse, worldSize, hidden.memoryBudget))
        problems.push_back(std::move(problem));
    if (!problems.empty()) {
        if (rank == 0)
            for (const std::string& problem : problems)
                std::cerr << "tpviz-mpi: " << problem << '\n';
        MPI_Finalize();
        return 2;
    }
    if (parse.options.python) {
        if (rank == 0)
            std::cout << tp::pythonSnippet(parse.options.config, tp::Mistake::None,
                                           tp::sceneRun(parse.options).check);
        MPI_Finalize();
        return 0;
    }

    int status = 1;
    try {
        if (hidden.memoryBudget)
            parse.options.config.memoryBudgetBytes = *hidden.memoryBudget;
        status = tp::mpi::runRanks(parse.options, hidden.drill, MPI_COMM_WORLD);
    } catch (const std::bad_alloc&) {
        tp::mpi::abortJob(rank, "out of memory (std::bad_alloc)");
    } catch (const std::exception& e) {
        tp::mpi::abortJob(rank, e.what());
    }
    MPI_Finalize();
    return status;
}
