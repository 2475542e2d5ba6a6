#pragma once

// The collectives' algorithms the ranks ask Open MPI for, so that what they time is what the cost
// model prices: a ring's bytes.
//
// Open MPI's tuned component picks MPI_Reduce_scatter_block's algorithm by fixed rules, and on 2
// to 8 ranks it picks a reduce to one rank followed by a scatter: the whole array goes to that
// rank and half of it comes back, three times a ring's bytes on 2 ranks. Over a 1 Gbit/s link
// between two namespaces a reduce-scatter of 64 MiB took 997 ms against 395 ms with recursive
// halving, which on 2 ranks is the ring's one exchange of halves (and on 2^k ranks sends the
// ring's (P-1)/P of the array in k steps instead of P-1). So the ranks ask for recursive halving
// unless the user set the algorithm: the same as
//   OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm=3
// The all-reduce and all-gather keep Open MPI's rules: they already send a ring's bytes.

namespace tp::mpi {

/// Sets the environment before MPI_Init; a variable the user set is kept.
void preferRingBytes();

}  // namespace tp::mpi
