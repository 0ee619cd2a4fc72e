#include "core/exception_message.h"

#include <new>
#include <stdexcept>

#include "core/error.h"

namespace dp {

std::string exception_message(const std::exception& error) {
    if (dynamic_cast<const Error*>(&error)) return error.what();
    if (dynamic_cast<const std::bad_alloc*>(&error))
        return "out of memory: the run needs more memory than this machine has free; lower "
               "the batch size, the number of samples or the number of devices";
    if (dynamic_cast<const std::length_error*>(&error))
        return "a size too large to allocate was asked for: lower the batch size, the number of "
               "samples or the input size";
    // A bug, not a setting: say so, and keep the library's text for the report.
    return std::string("internal error (please report it): ") + error.what();
}

std::string current_exception_message() {
    try {
        throw;
    } catch (const std::exception& error) {
        return exception_message(error);
    } catch (...) {
        return "internal error (please report it): an unknown exception";
    }
}

}  // namespace dp
