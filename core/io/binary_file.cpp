#include "binary_file.h"

#include "staged_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace tp {

InputFile::InputFile(const std::string& path) : m_path(path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        m_error = path + ": is a folder, not a file";
        return;
    }
    m_file.reset(std::fopen(path.c_str(), "rb"));
    if (!m_file) {
        m_error = path + ": cannot be opened: " + std::strerror(errno);
        return;
    }
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        m_error = path + ": its size cannot be read: " + ec.message();
        m_file.reset();
        return;
    }
    m_size = std::int64_t(size);
}

bool InputFile::readAt(std::int64_t offset, void* out, std::int64_t count) {
    if (offset < 0 || count < 0 || offset > m_size || count > m_size - offset) {
        m_error = m_path + ": ends before the " + std::to_string(count) + " bytes at offset " +
                  std::to_string(offset) + " (the file has " + std::to_string(m_size) + " bytes)";
        return false;
    }
    if (std::fseek(m_file.get(), long(offset), SEEK_SET) != 0 ||
        std::fread(out, 1, std::size_t(count), m_file.get()) != std::size_t(count)) {
        m_error = m_path + ": reading failed: " + std::strerror(errno);
        return false;
    }
    return true;
}

std::string writeWholeFile(const std::string& path, std::initializer_list<std::string_view> parts) {
    StagedFile file(path);
    const std::string error = file.write(parts);
    return error.empty() ? file.commit() : error;
}

}  // namespace tp
