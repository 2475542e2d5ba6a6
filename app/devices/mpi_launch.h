#pragma once

// Runs the scene on screen on real processes: `mpirun -n <data * tp_size> tpviz-mpi <the scene's
// options> --json --costs` through QProcess, without blocking the UI thread, and reads what each
// rank held and spent from rank 0's report (app/mpi/rank_report.h has its JSON keys). It also
// calibrates this machine the same way: `mpirun -n 2 tpviz-mpi --calibrate --json`, read as a
// hardware preset.

#include "devices/hardware.h"
#include "scene/scene.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryFile>

#include <cstdint>
#include <memory>
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

    /// Why nothing can be run on ranks, in words (what to install); empty when mpirun and
    /// tpviz-mpi are there.
    QString programsRefusal() const;
    /// Why `scene` cannot be run on ranks, in words (what to install, the world size, the brief's
    /// example or array files); empty when it can.
    QString refusal(const Scene& scene) const;
    /// mpirun's arguments for `scene` with the estimate on `hardware`: -n, --oversubscribe when
    /// there are more ranks than cores, --allow-run-as-root as root, tpviz-mpi and its options.
    /// A preset that is not built in (added in the app) is given to --hardware as the JSON file
    /// `presetPath` (start() writes it); without one, as its name.
    QStringList arguments(const Scene& scene, const HardwarePreset& hardware,
                          const QString& presetPath = {}) const;
    /// The arguments of the run start() began last (empty before one).
    const QStringList& lastArguments() const { return m_lastArguments; }
    /// mpirun's arguments for calibrating this machine on kCalibrationRanks ranks: as arguments()
    /// up to tpviz-mpi, then --calibrate --json.
    QStringList calibrationArguments() const;
    static constexpr std::int64_t kCalibrationRanks = 2;

    /// Starts a run of `scene`; false (and nothing started) when refusal() is not empty or a run
    /// is under way. finished() follows, also after cancel().
    bool start(const Scene& scene, const HardwarePreset& hardware);
    /// Starts calibrating this machine; false (and nothing started) when programsRefusal() is not
    /// empty or a run is under way. finished() follows: calibration() holds the preset read from
    /// tpviz-mpi's JSON (the core's parseHardwareJson), else result().error says why not.
    bool startCalibration();
    /// The last finished calibration's preset; none after a failed one or a scene's run.
    const std::optional<HardwarePreset>& calibration() const { return m_calibration; }
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
    void launch(const QStringList& arguments);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    /// mpirun's arguments up to and with tpviz-mpi, for `ranks` ranks.
    QStringList mpirunArguments(std::int64_t ranks) const;

    QString m_mpirun;
    QString m_tpvizMpi;
    QProcess* m_process = nullptr;
    QStringList m_lastArguments;
    std::unique_ptr<QTemporaryFile> m_presetFile;  ///< an added preset for the run's --hardware
    QElapsedTimer m_clock;
    bool m_cancelled = false;
    bool m_calibrating = false;  ///< the run under way (or the last) is a calibration
    MpiRunResult m_result;
    std::optional<HardwarePreset> m_calibration;
};

}  // namespace tp
