#pragma once

// A file written whole under a new temporary name in its folder, then renamed over its path: a
// reader of the path sees the old file or the new one, never half of one, and a symbolic link at
// the path is replaced by the file, never written through.

#include <initializer_list>
#include <string>
#include <string_view>

namespace tp {

/// One file on its way to `path`. write() creates a new file beside it (".NAME.tpviz-XXXXXX",
/// created with O_CREAT | O_EXCL | O_NOFOLLOW, so it is never an existing file or a link's target)
/// and writes, syncs and closes it, checking each step; commit() renames it over `path`. Until
/// commit() succeeds the temporary is removed on discard() and by the destructor, so a failure
/// leaves `path` as it was.
class StagedFile {
public:
    explicit StagedFile(std::string path);
    ~StagedFile();
    StagedFile(StagedFile&& other) noexcept;
    StagedFile& operator=(StagedFile&&) = delete;
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    const std::string& path() const { return m_path; }
    /// The temporary's path once write() created it, else "".
    const std::string& temporaryPath() const { return m_temporary; }

    /// Writes the parts one after another to a new temporary file. Returns "" or a sentence naming
    /// `path` and the reason (e.g. "No space left on device"); on failure nothing is left behind.
    std::string write(std::initializer_list<std::string_view> parts);
    /// Renames the written temporary over `path`. Returns "" or a sentence naming `path`; on
    /// failure the temporary is removed and `path` is as it was.
    std::string commit();
    /// Removes the temporary, if any (before commit()).
    void discard();

private:
    std::string m_path;
    std::string m_temporary;
};

}  // namespace tp
