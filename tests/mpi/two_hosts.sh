#!/bin/sh
# The cost model over a shaped link between two hosts, played by two network namespaces on this
# machine. Not a test: it needs root, takes minutes, and prints the figures of docs/costs.md.
#   sh tests/mpi/two_hosts.sh [BUILD_DIR]
#
# What it makes, and removes on exit, also on failure or interruption:
#   - the network namespaces tpviz-host0 and tpviz-host1, each with its loopback up;
#   - a link joining them, 10.77.0.1/24 in tpviz-host0 and 10.77.0.2/24 in tpviz-host1, 1 Gbit/s
#     each way and 100 us from one host to the other. With netem, a veth pair (tpviz-veth0 in
#     tpviz-host0, tpviz-veth1 in tpviz-host1), each end's egress shaped by
#     `netem rate 1gbit delay 100us`. A kernel without netem (no CONFIG_NET_SCH_NETEM) gets a TAP
#     device in each namespace instead (tpviz-tap0, tpviz-tap1, MTU 9000) and the delay line
#     BUILD_DIR/tests/mpi/tpviz-delay-line between them, which forwards each frame at that rate and
#     that delay in userspace (built with the tests when MPI is found), said so;
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
queueLimit=10ms  # the delay line's: a frame that would wait longer behind others is dropped

for host in $hosts; do
    if ip netns list | grep -qw "$host"; then
        echo "two_hosts.sh: the namespace $host exists already: remove it (ip netns del $host)" >&2
        exit 2
    fi
done

made=""
tmp=""
delayLine=""
tearDown() {
    if [ -n "$delayLine" ]; then
        kill "$delayLine" 2>/dev/null || true
        wait "$delayLine" || true
    fi
    for host in $made; do
        ip netns del "$host"  # and the veth end or the TAP inside it
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
# netem when the kernel has it: a veth pair, each end shaped.
ip link add tpviz-veth0 netns tpviz-host0 type veth peer name tpviz-veth1 netns tpviz-host1
shaping="netem rate $rate delay $delay"
if tc -n tpviz-host0 qdisc add dev tpviz-veth0 root $shaping 2>/dev/null; then
    tc -n tpviz-host1 qdisc add dev tpviz-veth1 root $shaping
    device=tpviz-veth
    echo "link: 10.77.0.1 <-> 10.77.0.2, each way $shaping"
else
    # No netem: a TAP in each namespace and the delay line between them. MTU 9000, so that
    # 1 Gbit/s is some 14k frames a second, which a process forwards without falling behind.
    ip -n tpviz-host0 link del tpviz-veth0
    [ -x "$build/tests/mpi/tpviz-delay-line" ] || {
        echo "two_hosts.sh: this kernel has no netem, and there is no" \
            "$build/tests/mpi/tpviz-delay-line to delay the link instead: build it first" >&2
        exit 2
    }
    device=tpviz-tap
    for i in 0 1; do
        ip -n "tpviz-host$i" tuntap add mode tap name "tpviz-tap$i"
        ip -n "tpviz-host$i" link set "tpviz-tap$i" mtu 9000
    done
    "$build/tests/mpi/tpviz-delay-line" --rate "$rate" --delay "$delay" --limit "$queueLimit" \
        tpviz-host0/tpviz-tap0 tpviz-host1/tpviz-tap1 &
    delayLine=$!
    shaping="tpviz-delay-line --rate $rate --delay $delay --limit $queueLimit"
    echo "link: 10.77.0.1 <-> 10.77.0.2, each way $shaping (this kernel has no netem: TAP" \
        "devices with MTU 9000, the rate and the delay made in userspace)"
fi
for i in 0 1; do
    ip -n "tpviz-host$i" address add "10.77.0.$((i + 1))/24" dev "$device$i"
    ip -n "tpviz-host$i" link set "$device$i" up
done
if [ -n "$delayLine" ]; then
    # The TAPs have a carrier once the delay line holds them: wait for it, up to 5 s.
    tries=0
    while ip -n tpviz-host0 link show tpviz-tap0 | grep -q NO-CARRIER ||
        ip -n tpviz-host1 link show tpviz-tap1 | grep -q NO-CARRIER; do
        kill -0 "$delayLine" 2>/dev/null || {
            echo "two_hosts.sh: the delay line stopped before it joined the TAP devices" >&2
            exit 1
        }
        tries=$((tries + 1))
        [ "$tries" -le 50 ] || {
            echo "two_hosts.sh: the delay line did not join the TAP devices in 5 s" >&2
            exit 1
        }
        sleep 0.1
    done
fi

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
