#include "mpi_launch.h"

#include "io/hardware_file.h"
#include "scene/scene_arguments.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QThread>
#include <QTimer>

#include <unistd.h>

namespace tp {
namespace {

// How long mpirun may take to end its ranks after SIGTERM before it is killed.
constexpr int kTerminateGraceMs = 3000;

std::int64_t integer(const QJsonObject& object, const char* key) {
    return std::int64_t(object.value(QLatin1String(key)).toDouble());
}

}  // namespace

MpiRunResult readMpiReport(const QByteArray& json) {
    MpiRunResult result;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        result.error = QCoreApplication::translate("MpiLauncher",
                                                   "tpviz-mpi's report is not JSON (%1 at byte %2)")
                           .arg(parseError.errorString())
                           .arg(parseError.offset);
        return result;
    }
    const QJsonObject report = doc.object();
    const QJsonArray ranks = report.value(QLatin1String("ranks")).toArray();
    const QJsonObject mpi = report.value(QLatin1String("mpi")).toObject();
    const QJsonObject verification = report.value(QLatin1String("verification")).toObject();
    if (ranks.isEmpty() || mpi.isEmpty() || verification.isEmpty()) {
        result.error = QCoreApplication::translate(
            "MpiLauncher", "tpviz-mpi's report has no \"ranks\", \"mpi\" or \"verification\"");
        return result;
    }
    for (const QJsonValue& value : ranks) {
        const QJsonObject r = value.toObject();
        const QJsonArray device = r.value(QLatin1String("device")).toArray();
        result.ranks.push_back(
            {.rank = int(integer(r, "rank")),
             .d = std::int64_t(device.at(0).toDouble()),
             .m = std::int64_t(device.at(1).toDouble()),
             .kernelBytesHeld = integer(r, "kernel_bytes_held"),
             .biasBytesHeld = integer(r, "bias_bytes_held"),
             .xBytesHeld = integer(r, "x_bytes_held"),
             .outputBytesHeld = integer(r, "output_bytes_held"),
             .peakRssBytes = integer(r, "peak_rss_bytes"),
             .computeSeconds = r.value(QLatin1String("compute_s")).toDouble(),
             .waitSeconds = r.value(QLatin1String("wait_s")).toDouble(),
             .communicationSeconds = r.value(QLatin1String("communication_s")).toDouble(),
             .backward = std::nullopt});
        if (const QJsonObject b = r.value(QLatin1String("backward")).toObject(); !b.isEmpty()) {
            MpiRankFigures::Backward& backward = result.ranks.back().backward.emplace();
            backward.computeSeconds = b.value(QLatin1String("compute_s")).toDouble();
            for (const QJsonValue& c : b.value(QLatin1String("collectives")).toArray())
                backward.communicationSeconds +=
                    c.toObject().value(QLatin1String("communication_s")).toDouble();
        }
    }
    result.verdictWord = verification.value(QLatin1String("verdict")).toString();
    const std::int64_t elements = integer(mpi, "elements");
    const std::int64_t identical = integer(mpi, "bit_identical");
    const QString note = mpi.value(QLatin1String("check_note")).toString();
    const auto tr = [](const char* text) {
        return QCoreApplication::translate("MpiLauncher", text);
    };
    const bool perBlock =
        mpi.value(QLatin1String("check")).toString() == QLatin1String("per-block");
    // Rounding alone may reach the resolution, too close to the values to tell a mistake.
    const QString cannotTell =
        tr("at in_dim %1 float32 rounding alone may reach %2, too close to the values' size (%3) "
           "to tell a mistake")
            .arg(integer(verification, "in_dim"))
            .arg(verification.value(QLatin1String("resolution")).toDouble(), 0, 'g', 3)
            .arg(verification.value(QLatin1String("value_scale")).toDouble(), 0, 'g', 3);
    const bool inconclusive = result.verdictWord == QLatin1String("inconclusive");
    if (perBlock && inconclusive)
        result.verdict = tr("INCONCLUSIVE: each rank's output block is within the rounding bound "
                            "of a reference block it drew itself (%1), but %2")
                             .arg(note, cannotTell);
    else if (perBlock)
        result.verdict = (result.passed() ? tr("each rank's output block matches a reference block "
                                               "it drew itself (%1)")
                                          : tr("FAILED: a rank's output block does not match the "
                                               "reference block it drew itself (%1)"))
                             .arg(note);
    else if (inconclusive)
        result.verdict = tr("INCONCLUSIVE: the assembled output is within the rounding bound of "
                            "the single-process one, but %1")
                             .arg(cannotTell);
    else if (!result.passed())
        result.verdict = tr("FAILED: the assembled output does not match the single-process one "
                            "(%1 elements beyond the rounding bound)")
                             .arg(integer(verification, "over_bound"));
    else if (identical == elements)
        result.verdict = tr("assembled output matches the single-process one: bit-identical "
                            "(%1 of %1 elements)")
                             .arg(elements);
    else
        result.verdict = tr("assembled output matches the single-process one within the rounding "
                            "bound (%1 of %2 elements bit-identical)")
                             .arg(identical)
                             .arg(elements);
    if (const QJsonValue backward = report.value(QLatin1String("backward")); backward.isObject()) {
        const QJsonValue passed = backward.toObject()
                                      .value(QLatin1String("verification"))
                                      .toObject()
                                      .value(QLatin1String("passed"));
        if (!passed.isBool()) {
            result.error = tr("tpviz-mpi's report has a \"backward\" without verification.passed");
            return result;
        }
        result.backwardPassed = passed.toBool();
        result.verdict +=
            *result.backwardPassed
                ? tr("; the gradients gathered from the ranks (dx, dkernel, dbias) match "
                     "jax.vjp's within the rounding bound")
                : tr("; FAILED: a gradient gathered from the ranks does not match jax.vjp's");
    }
    result.ok = true;
    return result;
}

QString mpiFailureMessage(const QByteArray& stderrText) {
    const QStringList lines = QString::fromUtf8(stderrText).split(QLatin1Char('\n'));
    QStringList own;
    for (const QString& line : lines)
        if (line.startsWith(QLatin1String("tpviz-mpi:")))
            own << line.mid(10).trimmed();
    if (!own.isEmpty())
        return own.join(QLatin1Char('\n'));
    QStringList first;  // mpirun's own words, without its rulers of dashes
    for (const QString& line : lines)
        if (!line.trimmed().isEmpty() && !line.startsWith(QLatin1String("----")) &&
            first.size() < 8)
            first << line.trimmed();
    return first.join(QLatin1Char('\n'));
}

QString findTpvizMpi() {
    const QDir here(QCoreApplication::applicationDirPath());
    // The install's bin/, the build's app/ (tpviz) and tests/<dir>/ (the tests).
    for (const QString& relative :
         {QStringLiteral("tpviz-mpi"), QStringLiteral("mpi/tpviz-mpi"),
          QStringLiteral("../app/mpi/tpviz-mpi"), QStringLiteral("../../app/mpi/tpviz-mpi")}) {
        const QFileInfo candidate(here.filePath(relative));
        if (candidate.isFile() && candidate.isExecutable())
            return candidate.canonicalFilePath();
    }
    return QStandardPaths::findExecutable(QStringLiteral("tpviz-mpi"));
}

QString findMpirun() {
    return QStandardPaths::findExecutable(QStringLiteral("mpirun"));
}

MpiLauncher::MpiLauncher(QObject* parent)
    : QObject(parent), m_mpirun(findMpirun()), m_tpvizMpi(findTpvizMpi()) {}

MpiLauncher::~MpiLauncher() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(kTerminateGraceMs);
    }
}

void MpiLauncher::setPrograms(const QString& mpirun, const QString& tpvizMpi) {
    m_mpirun = mpirun;
    m_tpvizMpi = tpvizMpi;
}

QString MpiLauncher::programsRefusal() const {
    const auto exists = [](const QString& path) {
        const QFileInfo info(path);
        return !path.isEmpty() && info.isFile() && info.isExecutable();
    };
    if (!exists(m_mpirun))
        return tr("mpirun was not found on PATH%1. Install Open MPI (sudo apt install openmpi-bin "
                  "libopenmpi-dev) and rebuild tpviz, which then builds tpviz-mpi too.")
            .arg(m_mpirun.isEmpty() ? QString() : tr(" (looked for %1)").arg(m_mpirun));
    if (!exists(m_tpvizMpi))
        return tr("tpviz-mpi was not built%1: CMake builds it when it finds MPI (sudo apt install "
                  "libopenmpi-dev, then configure and build again).")
            .arg(m_tpvizMpi.isEmpty() ? QString() : tr(" (looked for %1)").arg(m_tpvizMpi));
    return {};
}

QString MpiLauncher::refusal(const Scene& scene) const {
    if (QString missing = programsRefusal(); !missing.isEmpty())
        return missing;
    if (scene.source == SceneSource::Brief)
        return tr(
            "The worked example is not drawn from a seed, and each rank draws its share "
            "from the seed: choose an NNX layer to run it on ranks.");
    if (scene.source == SceneSource::Files)
        return tr(
            "This scene's arrays were read from files, and each rank draws its share from "
            "the seed: choose an NNX layer to run it on ranks.");
    const std::int64_t world = scene.config.dataSize * scene.config.tpSize;
    if (world > kMaxRanks)
        return tr("This scene needs data (%1) x tp_size (%2) = %3 ranks, one process each; at "
                  "most %4 are started from here. Choose a smaller mesh, or run tpviz-mpi with "
                  "mpirun and a hostfile.")
            .arg(scene.config.dataSize)
            .arg(scene.config.tpSize)
            .arg(world)
            .arg(kMaxRanks);
    return {};
}

QStringList MpiLauncher::mpirunArguments(std::int64_t ranks) const {
    QStringList args{QStringLiteral("-n"), QString::number(ranks)};
    if (ranks > QThread::idealThreadCount())
        args << QStringLiteral("--oversubscribe");
    if (geteuid() == 0)
        args << QStringLiteral("--allow-run-as-root");
    return args << m_tpvizMpi;
}

QStringList MpiLauncher::calibrationArguments() const {
    return mpirunArguments(kCalibrationRanks)
           << QStringLiteral("--calibrate") << QStringLiteral("--json");
}

QStringList MpiLauncher::arguments(const Scene& scene, const HardwarePreset& hardware,
                                   const QString& presetPath) const {
    QStringList args = mpirunArguments(scene.config.dataSize * scene.config.tpSize);
    // The correct split on the scene's layer and mesh: tpviz-mpi makes no mistakes.
    SceneOptions options;
    options.config = scene.config;
    options.json = true;
    options.costs = true;
    options.backward = scene.backward != nullptr;  // the gradients too, when the scene has them
    options.hardware = &hardware;
    if (findHardware(hardware.name) != &hardware && !presetPath.isEmpty()) {
        options.hardwareFromFile = std::make_shared<const HardwarePreset>(hardware);
        options.hardwarePath = presetPath.toStdString();
    }
    for (const std::string& word : sceneArguments(options))
        args << QString::fromStdString(word);
    return args;
}

bool MpiLauncher::start(const Scene& scene, const HardwarePreset& hardware) {
    if (m_process || !refusal(scene).isEmpty())
        return false;
    m_calibrating = false;
    // A preset added in the app (read from a file, or calibrated) reaches the ranks' --hardware
    // as a JSON file of its own: a new name in the temporary folder (created, never opened
    // through an existing file or link), readable by this user only, removed with the next run
    // or the launcher.
    m_presetFile.reset();
    QString presetPath;
    if (findHardware(hardware.name) != &hardware) {
        m_presetFile = std::make_unique<QTemporaryFile>(
            QDir(QDir::tempPath()).filePath(QStringLiteral("tpviz-preset-XXXXXX.json")));
        const QByteArray json = QByteArray::fromStdString(hardwareJson(hardware));
        if (!m_presetFile->open() || m_presetFile->write(json) != json.size() ||
            !m_presetFile->flush()) {
            m_result = {};
            m_result.error =
                tr("The preset %1 could not be written for the ranks: %2")
                    .arg(QString::fromStdString(hardware.name), m_presetFile->errorString());
            m_presetFile.reset();
            return false;
        }
        m_presetFile->close();
        presetPath = m_presetFile->fileName();
    }
    m_lastArguments = arguments(scene, hardware, presetPath);
    launch(m_lastArguments);
    return true;
}

bool MpiLauncher::startCalibration() {
    if (m_process || !programsRefusal().isEmpty())
        return false;
    m_calibrating = true;
    launch(calibrationArguments());
    return true;
}

void MpiLauncher::launch(const QStringList& arguments) {
    m_cancelled = false;
    m_result = {};
    m_calibration.reset();
    m_process = new QProcess(this);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    // The ranks share this machine's cores: one OpenMP thread each unless the user chose.
    if (!environment.contains(QStringLiteral("OMP_NUM_THREADS")))
        environment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    m_process->setProcessEnvironment(environment);
    connect(m_process, &QProcess::finished, this, &MpiLauncher::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onFinished(-1, QProcess::CrashExit);
    });
    m_clock.start();
    emit started();
    m_process->start(m_mpirun, arguments);
}

void MpiLauncher::cancel() {
    if (!m_process || m_cancelled)
        return;
    m_cancelled = true;
    m_process->terminate();
    QTimer::singleShot(kTerminateGraceMs, m_process, &QProcess::kill);
}

std::int64_t MpiLauncher::elapsedMs() const {
    return m_process ? m_clock.elapsed() : std::int64_t(m_result.wallSeconds * 1000);
}

qint64 MpiLauncher::processId() const {
    return m_process ? m_process->processId() : 0;
}

void MpiLauncher::onFinished(int exitCode, QProcess::ExitStatus status) {
    if (!m_process)
        return;
    QProcess* process = m_process;
    m_process = nullptr;
    const double wall = double(m_clock.elapsed()) / 1000.0;
    const QByteArray out = process->readAllStandardOutput();
    const QByteArray err = process->readAllStandardError();
    const QString startError =
        process->error() == QProcess::FailedToStart ? process->errorString() : QString();
    process->deleteLater();
    if (m_cancelled) {
        m_result.error =
            tr("Cancelled after %1 s: mpirun and its ranks were ended.").arg(wall, 0, 'f', 1);
    } else if (!startError.isEmpty()) {
        m_result.error = tr("mpirun did not start: %1").arg(startError);
    } else if (status != QProcess::NormalExit || exitCode != 0) {
        const QString message = mpiFailureMessage(err);
        m_result.error =
            (status == QProcess::NormalExit
                 ? tr("tpviz-mpi ended with exit status %1").arg(exitCode)
                 : tr("mpirun crashed")) +
            (message.isEmpty() ? QStringLiteral(".") : QStringLiteral(":\n") + message);
    } else if (m_calibrating) {
        const HardwareFileRead read =
            parseHardwareJson(out.toStdString(), "tpviz-mpi --calibrate --json");
        m_calibration = read.preset;
        m_result.ok = read.preset.has_value();
        QStringList problems;
        for (const std::string& problem : read.problems)
            problems << QString::fromStdString(problem);
        m_result.error = problems.join(QStringLiteral("; "));
    } else {
        m_result = readMpiReport(out);
        if (!m_result.ok) {
            const QString message = mpiFailureMessage(err);
            if (!message.isEmpty())
                m_result.error += QStringLiteral(":\n") + message;
        }
    }
    m_result.wallSeconds = wall;
    emit finished();
}

}  // namespace tp
