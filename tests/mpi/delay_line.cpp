// tpviz-delay-line: a link between two network namespaces in userspace, for a kernel without netem.
// It joins two TAP devices, one in each namespace, and forwards Ethernet frames both ways with a
// rate and a one-way delay (delay_schedule.h says when each frame is delivered). two_hosts.sh
// starts it; it runs until SIGTERM, SIGINT or SIGHUP, then says what it forwarded and dropped.
//   tpviz-delay-line --rate RATE --delay TIME --limit TIME NS0/TAP0 NS1/TAP1

#include "delay_schedule.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tp::test::FrameFate;
using tp::test::LinkShape;

const char kUsage[] =
    "usage: tpviz-delay-line --rate RATE --delay TIME --limit TIME NS0/TAP0 NS1/TAP1\n"
    "Forwards Ethernet frames between the TAP device TAP0 in the network namespace NS0\n"
    "(/run/netns/NS0) and TAP1 in NS1, each way at RATE (as tc says it: 1gbit) and --delay after\n"
    "a frame's last bit; a frame that would wait more than --limit behind others is dropped.\n";

// An error in words: main prints it and exits non-zero.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A command line that is not the usage: main prints the usage too.
struct UsageFailure : Failure {
    using Failure::Failure;
};

[[noreturn]] void failWithErrno(const std::string& what) {
    throw Failure(what + ": " + std::strerror(errno));
}

std::int64_t nowNs() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// One end of the link: a TAP device in a network namespace.
struct TapEnd {
    std::string namespaceName;
    std::string tapName;
    int fd = -1;
};

TapEnd parseEnd(const std::string& words) {
    const std::size_t slash = words.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == words.size())
        throw UsageFailure("\"" + words + "\" is not NAMESPACE/TAP");
    const std::string tap = words.substr(slash + 1);
    if (tap.size() >= IFNAMSIZ)
        throw UsageFailure("the TAP name \"" + tap + "\" is longer than " +
                           std::to_string(IFNAMSIZ - 1) + " characters");
    return {words.substr(0, slash), tap};
}

// Opens the end's TAP from inside its namespace; the file stays this end's after the process
// moves to another namespace.
void openTap(TapEnd& end) {
    const std::string path = "/run/netns/" + end.namespaceName;
    const int nsFd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (nsFd < 0)
        failWithErrno("cannot open the network namespace " + path);
    const int entered = setns(nsFd, CLONE_NEWNET);
    close(nsFd);
    if (entered != 0)
        failWithErrno("cannot enter the network namespace " + end.namespaceName);
    end.fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (end.fd < 0)
        failWithErrno("cannot open /dev/net/tun");
    ifreq request{};
    request.ifr_flags = IFF_TAP | IFF_NO_PI;
    std::strncpy(request.ifr_name, end.tapName.c_str(), IFNAMSIZ - 1);
    if (ioctl(end.fd, TUNSETIFF, &request) != 0)
        failWithErrno("cannot attach to the TAP device " + end.tapName + " in " +
                      end.namespaceName + " (ip -n " + end.namespaceName +
                      " tuntap add mode tap name " + end.tapName + " makes it)");
}

// A frame on its way: written to the other side at deliveryNs.
struct FrameInFlight {
    std::int64_t deliveryNs = 0;
    std::vector<unsigned char> bytes;
};

// One way of the link: frames read from `from`, written to `to`, in the order read.
struct Direction {
    const TapEnd* from = nullptr;
    const TapEnd* to = nullptr;
    std::int64_t busyUntilNs = 0;
    std::deque<FrameInFlight> inFlight;
    long long forwarded = 0;
    long long droppedByQueue = 0;
    long long notWritten = 0;
};

// Ethernet with an MTU of up to 65535 and its header.
constexpr std::size_t kLargestFrame = 65536 + 14;
// Frames read at most from one side per wake, so that the other side and the deliveries wait no
// longer than this many reads.
constexpr int kReadsPerWake = 32;

void readFrames(const LinkShape& shape, Direction& way) {
    std::vector<unsigned char> buffer(kLargestFrame);
    for (int i = 0; i < kReadsPerWake; ++i) {
        const ssize_t bytes = read(way.from->fd, buffer.data(), buffer.size());
        if (bytes < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (bytes < 0)
            failWithErrno("cannot read from " + way.from->tapName);
        const FrameFate fate = tp::test::scheduleFrame(shape, way.busyUntilNs, nowNs(), bytes);
        way.busyUntilNs = fate.busyUntilNs;
        if (fate.dropped) {
            ++way.droppedByQueue;
            continue;
        }
        way.inFlight.push_back({fate.deliveryNs, {buffer.begin(), buffer.begin() + bytes}});
    }
}

void deliverDue(Direction& way, std::int64_t now) {
    while (!way.inFlight.empty() && way.inFlight.front().deliveryNs <= now) {
        const std::vector<unsigned char>& frame = way.inFlight.front().bytes;
        // A TAP takes a whole frame or refuses it (its side down, no memory): then it is lost, as
        // on a wire.
        if (write(way.to->fd, frame.data(), frame.size()) == static_cast<ssize_t>(frame.size()))
            ++way.forwarded;
        else
            ++way.notWritten;
        way.inFlight.pop_front();
    }
}

// Low among real-time priorities: above every normal process, below the kernel's interrupt threads.
constexpr int kRealTimePriority = 10;

volatile sig_atomic_t stopSignal = 0;

void onStopSignal(int signal) {
    stopSignal = signal;
}

// The signals that stop the line arrive only while it waits in ppoll, so a frame is never cut
// half-handled and the wait cannot miss one.
sigset_t blockStopSignals() {
    sigset_t stop;
    sigemptyset(&stop);
    for (int signal : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&stop, signal);
        struct sigaction action {};
        action.sa_handler = onStopSignal;
        sigaction(signal, &action, nullptr);
    }
    sigset_t waiting;
    sigprocmask(SIG_BLOCK, &stop, &waiting);
    return waiting;
}

void run(const LinkShape& shape, TapEnd ends[2]) {
    const sigset_t waiting = blockStopSignals();
    // The default timer slack (50 us) would add up to that to each wake, half the delay.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    // The ranks poll for messages and keep every core busy; at a normal priority the line would
    // wait for a time slice (milliseconds) before it reads or delivers a frame. A real-time
    // priority lets it run as soon as a frame or a deadline wakes it; it sleeps between them.
    sched_param priority{};
    priority.sched_priority = kRealTimePriority;
    if (sched_setscheduler(0, SCHED_FIFO, &priority) != 0)
        std::fprintf(stderr,
                     "tpviz-delay-line: runs at a normal priority (SCHED_FIFO refused: %s), so "
                     "frames may wait for a core\n",
                     std::strerror(errno));
    const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0)
        failWithErrno("cannot open /proc/self/ns/net");
    openTap(ends[0]);
    openTap(ends[1]);
    if (setns(home, CLONE_NEWNET) != 0)
        failWithErrno("cannot return to the network namespace it started in");
    close(home);

    Direction ways[2];
    ways[0].from = ways[1].to = &ends[0];
    ways[1].from = ways[0].to = &ends[1];
    while (stopSignal == 0) {
        const std::int64_t now = nowNs();
        std::int64_t nextNs = -1;
        for (Direction& way : ways) {
            deliverDue(way, now);
            if (!way.inFlight.empty() && (nextNs < 0 || way.inFlight.front().deliveryNs < nextNs))
                nextNs = way.inFlight.front().deliveryNs;
        }
        timespec timeout{};
        if (nextNs >= 0) {
            const std::int64_t waitNs = nextNs > now ? nextNs - now : 0;
            timeout.tv_sec = waitNs / 1'000'000'000;
            timeout.tv_nsec = waitNs % 1'000'000'000;
        }
        pollfd readable[2] = {{ends[0].fd, POLLIN, 0}, {ends[1].fd, POLLIN, 0}};
        const int ready = ppoll(readable, 2, nextNs >= 0 ? &timeout : nullptr, &waiting);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready < 0)
            failWithErrno("cannot wait for frames");
        for (int i = 0; i < 2; ++i) {
            if (readable[i].revents & (POLLERR | POLLNVAL))
                throw Failure("the TAP device " + ends[i].tapName + " failed");
            if (readable[i].revents & POLLIN)
                readFrames(shape, ways[i]);
        }
    }
    for (const Direction& way : ways)
        std::fprintf(stderr,
                     "tpviz-delay-line: %s/%s -> %s/%s: %lld frames forwarded, %lld dropped by "
                     "the queue's bound, %lld refused by the receiving side\n",
                     way.from->namespaceName.c_str(), way.from->tapName.c_str(),
                     way.to->namespaceName.c_str(), way.to->tapName.c_str(), way.forwarded,
                     way.droppedByQueue, way.notWritten);
}

// The value after option argv[i], or a failure that names the option.
std::string valueOf(int argc, char** argv, int& i) {
    if (i + 1 >= argc)
        throw UsageFailure(std::string(argv[i]) + " needs a value");
    return argv[++i];
}

// The shape the command line asks for; the ends go to `ends`.
LinkShape parseArguments(int argc, char** argv, std::vector<std::string>& ends) {
    std::optional<std::int64_t> values[3];  // --rate, --delay, --limit
    const char* const names[3] = {"--rate", "--delay", "--limit"};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const int option = arg == names[0] ? 0 : arg == names[1] ? 1 : arg == names[2] ? 2 : -1;
        if (option < 0 && arg.rfind("-", 0) == 0)
            throw UsageFailure("unknown option " + arg);
        if (option < 0) {
            ends.push_back(arg);
            continue;
        }
        const std::string words = valueOf(argc, argv, i);
        values[option] = option == 0 ? tp::test::parseRate(words) : tp::test::parseTime(words);
        if (!values[option])
            throw UsageFailure(arg + " " + words + " is not a " +
                               (option == 0 ? "rate (e.g. 1gbit)" : "time (e.g. 100us)"));
    }
    for (int option = 0; option < 3; ++option)
        if (!values[option])
            throw UsageFailure(std::string("needs ") + names[option]);
    if (ends.size() != 2)
        throw UsageFailure("needs two ends, NS0/TAP0 NS1/TAP1, not " + std::to_string(ends.size()));
    return {*values[0], *values[1], *values[2]};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help")) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    try {
        std::vector<std::string> ends;
        const LinkShape shape = parseArguments(argc, argv, ends);
        TapEnd tapEnds[2] = {parseEnd(ends[0]), parseEnd(ends[1])};
        run(shape, tapEnds);
        return 0;
    } catch (const UsageFailure& failure) {
        std::fprintf(stderr, "tpviz-delay-line: %s\n%s", failure.what(), kUsage);
        return 2;
    } catch (const Failure& failure) {
        std::fprintf(stderr, "tpviz-delay-line: %s\n", failure.what());
        return 1;
    }
}
