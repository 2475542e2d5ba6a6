#pragma once

// Large matrices in fresh memory. A matrix of many MiB comes from pages the process has never
// touched, and its first write pays a page fault for each 4 KiB; marked for transparent huge pages
// it pays one for each 2 MiB; with its rows mapped ahead (mapRows) one call maps them all.

#include "layer/eigen_types.h"

namespace tp {

/// An uninitialised (rows, cols) matrix. On Linux its memory is marked for transparent huge
/// pages (madvise MADV_HUGEPAGE) before anything touches it, which makes the first write of a
/// large array (the kernel, the partials of a split) several times cheaper in page faults.
Matrix uninitializedMatrix(Index rows, Index cols);

/// Maps the pages of rows [first, first + count) of a fresh matrix, each row of cols() floats and
/// no gap between rows, before anything writes them (madvise MADV_POPULATE_WRITE): one call instead
/// of a page fault per page. The thread that will write the rows calls it, so that threads share
/// the work. A hint: where the system cannot, the first writes fault as before.
void mapRows(Matrix& m, Index first, Index count);

/// An uninitialised (rows, cols) matrix whose pages the threads have mapped, each the run of rows
/// mapThreadRows gives it (one thread for a matrix of at most 2^16 floats).
Matrix mappedMatrix(Index rows, Index cols);

/// Inside a parallel region: this thread's share of a fresh matrix's rows, one run of them split
/// statically between the threads, whose pages it maps (mapRows) before anything writes them.
IndexRange mapThreadRows(Matrix& m);

}  // namespace tp
