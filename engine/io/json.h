#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dp {

// JSON text: the building blocks of the strict, schema-following readers
// (the safetensors header) and the one string writer every JSON the engine
// writes uses (safetensors headers, run records).

// The kinds of JSON value, told apart by the character a value starts with.
enum class JsonType { object, array, string, number, boolean, null };

// A JSON number as a double, and as a whole number when it is one that an
// int64 holds exactly: an integer literal in int64's range ("7"), or a
// fraction or exponent that comes out whole ("7.0", "7e0"). Past 2^63 a
// whole number has none, so a uint64 seed there is refused, not rounded.
struct JsonNumber {
    double value = 0;
    std::optional<std::int64_t> whole;
};

// A cursor over JSON text that reads one value at a time, as the caller's
// schema expects it: no generic tree, so nesting is bounded and every error
// says what was expected where. Errors throw dp::Error as
// "<error_prefix> at byte <n><error_suffix>: <reason>".
class JsonReader {
public:
    // How deeply skip_value lets arrays and objects nest: Qt's JSON parser's
    // limit, which the run record's reader had when it was Qt's. A deeper
    // document is refused, so the stack of open ones stays small.
    static constexpr std::size_t kMaxDepth = 1024;

    JsonReader(std::string_view text, std::string error_prefix, std::string error_suffix = {})
        : text_(text), error_prefix_(std::move(error_prefix)), error_suffix_(std::move(error_suffix)) {}

    std::size_t position() const { return position_; }
    bool at_end() const { return position_ >= text_.size(); }
    // '\0' at the end, which no token starts with.
    char peek() const { return at_end() ? '\0' : text_[position_]; }
    void skip_whitespace();
    void expect(char c, const char* what);

    // Calls on_member(key, key_position) with the position at the member's
    // value, for each member of an object.
    void parse_object(const std::function<void(std::string, std::size_t)>& on_member);
    // A string with its escapes resolved, refused unless valid UTF-8.
    std::string parse_string();
    std::uint64_t parse_unsigned();
    std::vector<std::uint64_t> parse_unsigned_array();

    // The rest of the interface serves readers that look fields up by name
    // (the run record): they check the whole text with skip_value first,
    // index an object's members by position, then seek to each.

    // Moves the cursor to `position` (one that position() returned).
    void seek(std::size_t position) { position_ = position; }
    // The type of the value at the cursor (after whitespace), from its first
    // character; a syntax error where no value starts.
    JsonType peek_type();
    // Any number RFC 8259 allows; one too large for a double, or one that
    // rounds to zero from non-zero digits ("1e-400"), is refused.
    JsonNumber parse_number();
    bool parse_boolean();
    void parse_null();
    // Calls on_item(index) at each item of an array, which must read the item.
    void parse_array(const std::function<void(std::size_t)>& on_item);
    // Reads past one value of any type, checking its syntax: what a reader
    // does with a member it does not know, and how it checks the whole text
    // before reading any of it. Arrays and objects nest at most kMaxDepth deep.
    void skip_value();

    [[noreturn]] void syntax_error_at(std::size_t position, const std::string& reason) const;
    [[noreturn]] void syntax_error(const std::string& reason) const;

private:
    void parse_escape(std::string& value);
    std::uint32_t parse_hex4();
    void expect_word(std::string_view word);
    // Skips one scalar value (string, number, true, false, null).
    void skip_scalar();

    std::string_view text_;
    std::string error_prefix_, error_suffix_;
    std::size_t position_ = 0;
};

// Appends `text` as a JSON string, escaped as serde_json (the safetensors
// reference implementation's library) writes it. JSON is UTF-8: each byte of
// `text` that is not part of valid UTF-8 (a file name in Latin-1, legal on
// Linux) is written as U+FFFD, so the output is always valid JSON; callers
// that care say so (is_valid_utf8).
void append_json_string(std::string& out, std::string_view text);
std::string json_string(std::string_view text);
// Whether `text` is valid UTF-8 (what append_json_string writes unchanged).
bool is_valid_utf8(std::string_view text);

// A number in its shortest form that reads back as the same double ("0.2"),
// or null for NaN and infinities, which JSON cannot spell.
std::string json_number(double value);
// The same for a float: its own shortest form, so that 0.2f is 0.2, not 0.200000003.
std::string json_number(float value);

}  // namespace dp
