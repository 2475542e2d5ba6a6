#pragma once

// Standard output as a file whose every write is checked: a report that cannot be written whole
// (a full disk, /dev/full, a closed stdout, a reader gone) is a failure in words, never success.

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace tp {

/// "" when standard output is open, else why not ("standard output is closed"). Checked before
/// anything opens a file, which would otherwise be given descriptor 1 and receive the report.
std::string standardOutputProblem();

/// Writes `text` to standard output and flushes it. Returns "" or the reason in words, e.g.
/// "standard output cannot be written: No space left on device".
std::string writeStandardOutput(std::string_view text);

/// Writes what `write` streams into std::cout (a document too big to hold as one text) and
/// flushes it. Returns "" or the reason in words, as for a text.
std::string writeStandardOutput(const std::function<void(std::ostream&)>& write);

/// After the last write: flushes standard output and closes a duplicate of it, which reports a
/// failure the file system defers to the close. Returns "" or the reason in words.
std::string finishStandardOutput();

}  // namespace tp
