#include "rank_memory.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace tp::mpi {

void keepFreedPages() {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr)
        return;
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace tp::mpi
