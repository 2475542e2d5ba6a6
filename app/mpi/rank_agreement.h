#pragma once

// Before any collective that depends on the scene, the ranks agree that they can run and that they
// run the same scene: a rank that refuses its input, or that was started with other options, ends
// the job on every rank with its reasons printed, instead of leaving the others waiting in a
// collective it never joins.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tp::mpi {

/// What agreeOnRun found.
struct RunAgreement {
    bool agreed = false;                ///< every rank can run, and all run the same scene
    std::vector<std::string> messages;  ///< on rank 0 when not agreed: what to print, in words
};

/// Collective over `world`. First an all-reduce of each rank's ok flag (its `problems` empty);
/// when some rank has problems, they are gathered to rank 0, and each is printed once: plainly
/// when every rank has it, else after the ranks that have it ("rank 1: ..."). Then, when every
/// rank can run, an all-reduce of the smallest and largest hash (64-bit FNV-1a) of each rank's
/// `sceneWords` (the words that spell its scene and run, e.g. sceneArguments); when they differ,
/// the words are gathered to rank 0 and the message names each rank's.
RunAgreement agreeOnRun(const std::vector<std::string>& problems,
                        const std::vector<std::string>& sceneWords, MPI_Comm world);

/// The 64-bit FNV-1a hash of the words, each ended by a NUL.
std::uint64_t wordsHash(const std::vector<std::string>& words);

}  // namespace tp::mpi
