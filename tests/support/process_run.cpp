#include "process_run.h"

#include <QProcess>
#include <QProcessEnvironment>

#include <unistd.h>

namespace tp::test {
namespace {

void addFailure(ProcessRun& run, const QString& program, const QStringList& args,
                const QString& failure) {
    run.err +=
        QStringLiteral("\n%1 %2: %3\n").arg(program, args.join(QLatin1Char(' ')), failure).toUtf8();
}

}  // namespace

ProcessRun runProcess(const QString& program, const QStringList& args,
                      const ProcessOptions& options) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (auto it = options.environment.begin(); it != options.environment.end(); ++it)
        env.insert(it.key(), it.value());
    process.setProcessEnvironment(env);
    if (!options.workingDirectory.isEmpty())
        process.setWorkingDirectory(options.workingDirectory);
    if (!options.standardOutputFile.isEmpty())
        process.setStandardOutputFile(options.standardOutputFile);
    if (options.closeStandardOutput)
        process.setChildProcessModifier([] { ::close(STDOUT_FILENO); });
    process.start(program, args);

    ProcessRun run;
    if (!process.waitForStarted(options.timeoutMs)) {
        addFailure(run, program, args, QStringLiteral("could not start: ") + process.errorString());
        return run;
    }
    run.started = true;
    process.write(options.input);
    process.closeWriteChannel();

    QString failure;
    if (!process.waitForFinished(options.timeoutMs)) {
        failure = QStringLiteral("still running after %1 ms; killed").arg(options.timeoutMs);
        process.kill();
        process.waitForFinished();
    } else if (process.exitStatus() != QProcess::NormalExit) {
        failure = QStringLiteral("crashed: ") + process.errorString();
    } else {
        run.finished = true;
        run.exitCode = process.exitCode();
    }
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    if (!failure.isEmpty())
        addFailure(run, program, args, failure);
    return run;
}

}  // namespace tp::test
