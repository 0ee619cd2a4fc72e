#include "io/output_file.h"

#include <unistd.h>

#include <system_error>

#include "core/error.h"

namespace dp {

std::filesystem::path write_target(const std::filesystem::path& file) {
    std::filesystem::path target = file;
    for (int links = 0; std::filesystem::is_symlink(target); ++links) {
        if (links == 40)  // as the kernel's ELOOP
            throw Error(file.string() + " is a loop of symbolic links: give a file path");
        const std::filesystem::path next = std::filesystem::read_symlink(target);
        target = next.is_absolute() ? next : target.parent_path() / next;
    }
    return target;
}

std::string non_file_kind(const std::filesystem::path& file) {
    std::error_code error;
    switch (std::filesystem::status(file, error).type()) {
    case std::filesystem::file_type::not_found:
    case std::filesystem::file_type::regular: return {};
    case std::filesystem::file_type::directory: return "a folder";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::fifo: return "a named pipe";
    case std::filesystem::file_type::socket: return "a socket";
    default: return error ? "unreadable (" + error.message() + ")" : "not a regular file";
    }
}

void check_output_file(const std::filesystem::path& file, const std::string& what) {
    if (file.empty()) return;
    const std::filesystem::path target = write_target(file);
    const std::string shown = what + " " + file.string();
    if (const std::string kind = non_file_kind(target); !kind.empty())
        throw Error(shown + " is " + kind + ", not a file: give the path of a file to write");
    const std::filesystem::path folder = target.parent_path().empty() ? "." : target.parent_path();
    std::error_code error;
    if (!std::filesystem::is_directory(folder, error))
        throw Error(shown + ": folder " + folder.string() +
                    " does not exist: create it or choose another path");
    // The write creates a temporary beside the file and renames it over the
    // file, so the folder must be writable even when the file is.
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw Error(shown + ": folder " + folder.string() +
                    " is not writable: choose a path in a folder you can write to");
}

}  // namespace dp
