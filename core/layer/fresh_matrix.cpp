#include "layer/fresh_matrix.h"

#include <omp.h>

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tp {

Matrix uninitializedMatrix(Index rows, Index cols) {
    Matrix m(rows, cols);
#if defined(MADV_HUGEPAGE)
    // Only whole pages inside the allocation, and only where they can hold a huge page (2 MiB);
    // smaller matrices are left alone.
    constexpr std::uintptr_t kPage = 4096;
    const auto begin = (reinterpret_cast<std::uintptr_t>(m.data()) + kPage - 1) & ~(kPage - 1);
    const auto end = reinterpret_cast<std::uintptr_t>(m.data() + m.size()) & ~(kPage - 1);
    if (end > begin && end - begin >= (std::uintptr_t(2) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // a hint; may fail
#endif
    return m;
}

void mapRows(Matrix& m, Index first, Index count) {
#if defined(MADV_POPULATE_WRITE)
    constexpr std::uintptr_t kPage = 4096;
    const auto from = reinterpret_cast<std::uintptr_t>(m.data() + first * m.cols());
    const auto to = reinterpret_cast<std::uintptr_t>(m.data() + (first + count) * m.cols());
    // Every page holding a byte of the rows, and no other: all of them belong to the matrix's
    // allocation, so they are mapped. Populating writes nothing, so a page shared with other data
    // keeps it.
    const auto begin = from & ~(kPage - 1);
    const auto end = (to + kPage - 1) & ~(kPage - 1);
    if (end - begin >= (std::uintptr_t(1) << 20))
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);  // a hint
#else
    (void)m;
    (void)first;
    (void)count;
#endif
}

IndexRange mapThreadRows(Matrix& m) {
    const Index threads = omp_get_num_threads();
    const Index thread = omp_get_thread_num();
    const IndexRange run{m.rows() * thread / threads, m.rows() * (thread + 1) / threads};
    mapRows(m, run.start, run.size());
    return run;
}

Matrix mappedMatrix(Index rows, Index cols) {
    Matrix m = uninitializedMatrix(rows, cols);
#pragma omp parallel if (rows * cols > (Index(1) << 16))
    mapThreadRows(m);
    return m;
}

}  // namespace tp
