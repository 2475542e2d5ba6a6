#!/bin/sh
# The cost model over a shaped link between two hosts, played by two network namespaces on this
# machine. Not a test: it needs root, takes minutes, and prints the figures of docs/costs.md.
#   sh tests/mpi/two_hosts.sh [BUILD_DIR]
#
# What it makes, and removes on exit, also on failure or interruption:
#   - the network namespaces tpviz-host0 and tpviz-host1, each with its loopback up;
#   - a veth pair joining them: tpviz-veth0 (10.77.0.1/24) in tpviz-host0, tpviz-veth1
#     (10.77.0.2/24) in tpviz-host1, each end's egress shaped by `netem rate 1gbit delay 100us`:
#     1 Gbit/s each way and 100 us from one host to the other. A kernel without netem (no
#     CONFIG_NET_SCH_NETEM) gets `tbf rate 1gbit` instead: the rate without the delay, said so;
#   - a temporary directory with the calibrated preset and the ranks' wrapper.
# It touches no other interface or address, and refuses to start when one of its names exists.
#
# How the two ranks meet. mpirun starts the ranks of one machine itself, without a daemon, and they
# reach it through PMIx over TCP, which listens on the loopback by default; but each namespace has
# a loopback of its own, so a rank in another namespace than the launcher's cannot reach it (it
# exits at MPI_Init). So mpirun runs in tpviz-host0, as it runs on a cluster's first host, its PMIx
# server listens on the link's subnet (PMIX_MCA_ptl_tcp_if_include), and rank 1 reaches it over the
# link: a few messages at start and exit, outside the timed calls. Open MPI's own out-of-band
# channel joins daemons, and a launch on one machine starts none. Each rank runs through a
# wrapper that enters the namespace of its rank (ip netns exec tpviz-host$OMPI_COMM_WORLD_RANK), and
# the ranks talk over Open MPI's TCP transport on 10.77.0.0/24 only: btl tcp,self, so no shared
# memory between them although they share this machine.
#
# Then, in tpviz-host0: tpviz-mpi --calibrate over the link (its sweep, its fits and the preset it
# writes), and model_vs_run.sh with that preset and the wrapper: predicted / measured per collective
# and size, and per product.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
-h | --help)
    sed -n '/^set -eu/q; 2,$ s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
esac
build=$(cd "${1:-build}" && pwd)
[ -x "$build/app/mpi/tpviz-mpi" ] || {
    echo "two_hosts.sh: no $build/app/mpi/tpviz-mpi: build it first" >&2
    exit 2
}
[ "$(id -u)" = 0 ] || {
    echo "two_hosts.sh: needs root to make network namespaces" >&2
    exit 2
}

hosts="tpviz-host0 tpviz-host1"
subnet=10.77.0.0/24
rate=1gbit
delay=100us

for host in $hosts; do
    if ip netns list | grep -qw "$host"; then
        echo "two_hosts.sh: the namespace $host exists already: remove it (ip netns del $host)" >&2
        exit 2
    fi
done

made=""
tmp=""
tearDown() {
    for host in $made; do
        ip netns del "$host"  # and the veth end inside it, with its peer
    done
    [ -z "$tmp" ] || rm -rf "$tmp"
}
trap tearDown EXIT
trap 'exit 130' INT TERM HUP

tmp=$(mktemp -d)
for host in $hosts; do
    ip netns add "$host"
    made="$made $host"
    ip -n "$host" link set lo up
done
ip link add tpviz-veth0 netns tpviz-host0 type veth peer name tpviz-veth1 netns tpviz-host1
shaping="netem rate $rate delay $delay"
for i in 0 1; do
    ip -n "tpviz-host$i" address add "10.77.0.$((i + 1))/24" dev "tpviz-veth$i"
    ip -n "tpviz-host$i" link set "tpviz-veth$i" up
    if ! tc -n "tpviz-host$i" qdisc add dev "tpviz-veth$i" root $shaping 2>/dev/null; then
        # A burst of 3 frames, as near netem's frame by frame as tbf goes (a burst of 128 KiB let
        # the calibration's small sizes through unshaped and fit a beta of 0.68 GB/s); a queue of
        # up to 10 ms.
        shaping="tbf rate $rate burst 4542 latency 10ms"
        tc -n "tpviz-host$i" qdisc add dev "tpviz-veth$i" root $shaping
    fi
done
case $shaping in
netem*) echo "link: 10.77.0.1 <-> 10.77.0.2, each way $shaping" ;;
*) echo "link: 10.77.0.1 <-> 10.77.0.2, each way $shaping (this kernel has no netem:" \
    "no $delay delay)" ;;
esac

cat >"$tmp/rank" <<'EOF'
#!/bin/sh
exec ip netns exec "tpviz-host$OMPI_COMM_WORLD_RANK" "$@"
EOF
chmod +x "$tmp/rank"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=$subnet
export PMIX_MCA_ptl_tcp_if_include=$subnet
export OMP_NUM_THREADS=1

echo "calibration over the link (tpviz-mpi --calibrate, 2 ranks):"
ip netns exec tpviz-host0 mpirun -n 2 "$tmp/rank" "$build/app/mpi/tpviz-mpi" --calibrate \
    --output "$tmp/two-hosts.json"
echo "the model on that preset against the runs (model_vs_run.sh):"
ip netns exec tpviz-host0 sh "$here/model_vs_run.sh" "$build" "$tmp/two-hosts.json" "$tmp/rank"
