#pragma once

// Runs the scene on screen on real processes: `mpirun -n <data * tp_size> tpviz-mpi <the scene's
// options> --json --costs` through QProcess, without blocking the UI thread, and reads what each
// rank held and spent from rank 0's report (app/mpi/rank_report.h has its JSON keys).

#include "scene/scene.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

namespace tp {

/// One rank of a finished run, as tpviz-mpi's "ranks" reports it.
struct MpiRankFigures {
    int rank = 0;
    std::int64_t d = 0, m = 0;  ///< its device on the data x model mesh
    std::int64_t kernelBytesHeld = 0;
    std::int64_t biasBytesHeld = 0;
    std::int64_t xBytesHeld = 0;
    std::int64_t outputBytesHeld = 0;
    std::int64_t peakRssBytes = 0;
    double computeSeconds = 0;
    double waitSeconds = 0;  ///< the barrier before the collective
    double communicationSeconds = 0;
    /// With the backward pass: its products' time and its collectives' (summed) on this rank.
    struct Backward {
        double computeSeconds = 0;
        double communicationSeconds = 0;
    };
    std::optional<Backward> backward;
};

/// What a run gave: the ranks and the check, or why there is none.
struct MpiRunResult {
    bool ok = false;  ///< exit status 0 and a report that reads
    QString error;    ///< why not, in words (rank 0's message when it gave one)
    QString verdict;  ///< "assembled output matches the single-process one: bit-identical", ...
    /// the check's verdict: "passed", "failed" or "inconclusive" (JSON verification.verdict)
    QString verdictWord;
    /// With the backward pass: whether the gradients gathered from the ranks passed their check
    /// against jax.vjp's (JSON backward.verification.passed); none without it.
    std::optional<bool> backwardPassed;
    bool passed() const {
        return verdictWord == QLatin1String("passed") && backwardPassed.value_or(true);
    }
    std::vector<MpiRankFigures> ranks;  ///< in rank order
    double wallSeconds = 0;             ///< from start to exit, mpirun's start-up included
};

/// Reads tpviz-mpi's JSON report (stdout of a run); `error` says what is missing when it does not.
MpiRunResult readMpiReport(const QByteArray& json);

/// tpviz-mpi's messages in a failed run's stderr ("tpviz-mpi: ..." lines, an MPI_Abort naming the
/// rank), else its first lines; empty when stderr is.
QString mpiFailureMessage(const QByteArray& stderrText);

/// tpviz-mpi next to the running binary (the install's bin/, the build's app/mpi/), else on PATH;
/// empty when there is none.
QString findTpvizMpi();
/// mpirun on PATH; empty when there is none.
QString findMpirun();

class MpiLauncher : public QObject {
    Q_OBJECT

public:
    /// Larger worlds are refused before launching: one process per device does not scale here.
    static constexpr std::int64_t kMaxRanks = 64;

    /// Finds mpirun and tpviz-mpi (findMpirun, findTpvizMpi).
    explicit MpiLauncher(QObject* parent = nullptr);
    ~MpiLauncher() override;

    /// Overrides where the programs are (tests point them at a missing file).
    void setPrograms(const QString& mpirun, const QString& tpvizMpi);
    QString mpirun() const { return m_mpirun; }
    QString tpvizMpi() const { return m_tpvizMpi; }

    /// Why `scene` cannot be run on ranks, in words (what to install, the world size, the brief's
    /// example or array files); empty when it can.
    QString refusal(const Scene& scene) const;
    /// mpirun's arguments for `scene` with the estimate on `hardware`: -n, --oversubscribe when
    /// there are more ranks than cores, --allow-run-as-root as root, tpviz-mpi and its options.
    QStringList arguments(const Scene& scene, const HardwarePreset& hardware) const;

    /// Starts a run of `scene`; false (and nothing started) when refusal() is not empty or a run
    /// is under way. finished() follows, also after cancel().
    bool start(const Scene& scene, const HardwarePreset& hardware);
    /// Ends the run under way: mpirun is terminated (it ends its ranks), killed if it lingers.
    void cancel();
    bool isRunning() const { return m_process != nullptr; }
    /// Milliseconds since the run under way started (or the last one's wall time).
    std::int64_t elapsedMs() const;
    /// mpirun's process id while a run is under way, else 0.
    qint64 processId() const;

    /// The last finished run's result.
    const MpiRunResult& result() const { return m_result; }

signals:
    void started();
    void finished();

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);

    QString m_mpirun;
    QString m_tpvizMpi;
    QProcess* m_process = nullptr;
    QElapsedTimer m_clock;
    bool m_cancelled = false;
    MpiRunResult m_result;
};

}  // namespace tp
