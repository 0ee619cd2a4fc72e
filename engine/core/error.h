#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace dp {

// An error a user can act on: its message is one line that names the problem
// and, where it helps, what to do. Front ends print it as is and exit non-zero.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An Error about one setting: which one (its config_fields name, "lr") rides
// with the message, so that a front end points at the field it is about
// instead of parsing the message for it.
class SettingError : public Error {
public:
    SettingError(std::string setting, const std::string& message)
        : Error(message), setting_(std::move(setting)) {}
    const std::string& setting() const { return setting_; }

private:
    std::string setting_;
};

}  // namespace dp
