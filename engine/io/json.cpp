#include "io/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace dp {
namespace {

// Length of the valid UTF-8 sequence starting at text[0], or 0 if there is none
// (overlong forms, surrogates and code points past U+10FFFF are invalid).
std::size_t utf8_sequence_length(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continuation = [&](std::size_t i, unsigned low = 0x80, unsigned high = 0xBF) {
        return i < text.size() && byte(i) >= low && byte(i) <= high;
    };
    const unsigned lead = byte(0);
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
    if (lead >= 0xE0 && lead <= 0xEF) {
        const unsigned low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
        return continuation(1, low, high) && continuation(2) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        const unsigned low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
        return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
    }
    return 0;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
    if (code_point < 0x80) {
        out += char(code_point);
    } else if (code_point < 0x800) {
        out += char(0xC0 | code_point >> 6);
        out += char(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
        out += char(0xE0 | code_point >> 12);
        out += char(0x80 | (code_point >> 6 & 0x3F));
        out += char(0x80 | (code_point & 0x3F));
    } else {
        out += char(0xF0 | code_point >> 18);
        out += char(0x80 | (code_point >> 12 & 0x3F));
        out += char(0x80 | (code_point >> 6 & 0x3F));
        out += char(0x80 | (code_point & 0x3F));
    }
}

}  // namespace

void JsonReader::syntax_error_at(std::size_t position, const std::string& reason) const {
    throw Error(error_prefix_ + " at byte " + std::to_string(position) + error_suffix_ + ": " + reason);
}

void JsonReader::syntax_error(const std::string& reason) const { syntax_error_at(position_, reason); }

void JsonReader::skip_whitespace() {
    while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') ++position_;
}

void JsonReader::expect(char c, const char* what) {
    skip_whitespace();
    if (peek() != c) syntax_error(std::string("expected ") + what);
    ++position_;
}

void JsonReader::parse_object(const std::function<void(std::string, std::size_t)>& on_member) {
    expect('{', "'{'");
    skip_whitespace();
    if (peek() == '}') {
        ++position_;
        return;
    }
    while (true) {
        skip_whitespace();
        const std::size_t key_position = position_;
        std::string key = parse_string();
        expect(':', "':'");
        on_member(std::move(key), key_position);
        skip_whitespace();
        if (peek() == '}') {
            ++position_;
            return;
        }
        expect(',', "',' or '}'");
    }
}

std::string JsonReader::parse_string() {
    expect('"', "a string");
    std::string value;
    while (true) {
        if (at_end()) syntax_error("unterminated string");
        const char c = text_[position_];
        if (c == '"') {
            ++position_;
            return value;
        }
        if (static_cast<unsigned char>(c) < 0x20) syntax_error("control character in a string");
        if (c == '\\') {
            parse_escape(value);
            continue;
        }
        const std::size_t length = utf8_sequence_length(text_.substr(position_));
        if (length == 0) syntax_error("invalid UTF-8");
        value.append(text_.substr(position_, length));
        position_ += length;
    }
}

void JsonReader::parse_escape(std::string& value) {
    ++position_;  // the backslash
    if (at_end()) syntax_error("unterminated string");
    const char c = text_[position_++];
    switch (c) {
        case '"':
            value += '"';
            return;
        case '\\':
            value += '\\';
            return;
        case '/':
            value += '/';
            return;
        case 'b':
            value += '\b';
            return;
        case 'f':
            value += '\f';
            return;
        case 'n':
            value += '\n';
            return;
        case 'r':
            value += '\r';
            return;
        case 't':
            value += '\t';
            return;
        case 'u':
            break;
        default:
            syntax_error_at(position_ - 1, "invalid escape");
    }
    std::uint32_t code_point = parse_hex4();
    if (code_point >= 0xDC00 && code_point <= 0xDFFF) syntax_error("lone low surrogate in \\u escape");
    if (code_point >= 0xD800 && code_point <= 0xDBFF) {
        if (text_.substr(position_, 2) != "\\u") syntax_error("lone high surrogate in \\u escape");
        position_ += 2;
        const std::uint32_t low = parse_hex4();
        if (low < 0xDC00 || low > 0xDFFF) syntax_error("lone high surrogate in \\u escape");
        code_point = 0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00);
    }
    append_utf8(value, code_point);
}

std::uint32_t JsonReader::parse_hex4() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i, ++position_) {
        const char c = peek();
        int digit = -1;
        if (c >= '0' && c <= '9') digit = c - '0';
        if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        if (digit < 0) syntax_error("expected 4 hex digits after \\u");
        value = value << 4 | std::uint32_t(digit);
    }
    return value;
}

std::uint64_t JsonReader::parse_unsigned() {
    skip_whitespace();
    if (peek() == '-') syntax_error("expected a non-negative integer");
    if (peek() < '0' || peek() > '9') syntax_error("expected an integer");
    const std::size_t start = position_;
    std::uint64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
        const auto digit = std::uint64_t(peek() - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10)
            syntax_error_at(start, "integer too large");
        value = value * 10 + digit;
        ++position_;
    }
    if (text_[start] == '0' && position_ - start > 1)
        syntax_error_at(start, "leading zero in an integer");
    if (peek() == '.' || peek() == 'e' || peek() == 'E') syntax_error("expected an integer");
    return value;
}

std::vector<std::uint64_t> JsonReader::parse_unsigned_array() {
    expect('[', "'['");
    std::vector<std::uint64_t> values;
    skip_whitespace();
    if (peek() == ']') {
        ++position_;
        return values;
    }
    while (true) {
        values.push_back(parse_unsigned());
        skip_whitespace();
        if (peek() == ']') {
            ++position_;
            return values;
        }
        expect(',', "',' or ']'");
    }
}

JsonType JsonReader::peek_type() {
    skip_whitespace();
    switch (peek()) {
        case '{': return JsonType::object;
        case '[': return JsonType::array;
        case '"': return JsonType::string;
        case 't':
        case 'f': return JsonType::boolean;
        case 'n': return JsonType::null;
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return JsonType::number;
            syntax_error(at_end() ? "unexpected end of the text" : "expected a value");
    }
}

JsonNumber JsonReader::parse_number() {
    skip_whitespace();
    const std::size_t start = position_;
    const auto digits = [&] {
        if (peek() < '0' || peek() > '9') syntax_error("expected a digit");
        while (peek() >= '0' && peek() <= '9') ++position_;
    };
    if (peek() == '-') ++position_;
    // RFC 8259: no leading zeros, no '+', no bare '.' or exponent.
    if (peek() == '0') ++position_;
    else digits();
    bool integer = true;
    if (peek() == '.') {
        ++position_;
        digits();
        integer = false;
    }
    if (peek() == 'e' || peek() == 'E') {
        ++position_;
        if (peek() == '+' || peek() == '-') ++position_;
        digits();
        integer = false;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + position_;
    JsonNumber number;
    if (integer) {
        std::int64_t whole = 0;
        if (std::from_chars(first, last, whole).ec == std::errc{}) {
            number.whole = whole;
            number.value = double(whole);
            return number;
        }
    }
    // from_chars, not strtod: the C library's decimal point follows the
    // locale (Qt programs set it from the environment), JSON's is '.'.
    if (std::from_chars(first, last, number.value).ec != std::errc{})
        syntax_error_at(start, "number out of range");
    // Whole and within int64 (2^63 itself is not).
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (std::trunc(number.value) == number.value && number.value >= -kTwoTo63 && number.value < kTwoTo63)
        number.whole = std::int64_t(number.value);
    return number;
}

void JsonReader::expect_word(std::string_view word) {
    skip_whitespace();
    if (text_.substr(position_, word.size()) != word) syntax_error("expected a value");
    position_ += word.size();
}

bool JsonReader::parse_boolean() {
    skip_whitespace();
    if (peek() == 't') {
        expect_word("true");
        return true;
    }
    if (peek() != 'f') syntax_error("expected true or false");
    expect_word("false");
    return false;
}

void JsonReader::parse_null() { expect_word("null"); }

void JsonReader::parse_array(const std::function<void(std::size_t)>& on_item) {
    expect('[', "'['");
    skip_whitespace();
    if (peek() == ']') {
        ++position_;
        return;
    }
    for (std::size_t index = 0;; ++index) {
        skip_whitespace();
        on_item(index);
        skip_whitespace();
        if (peek() == ']') {
            ++position_;
            return;
        }
        expect(',', "',' or ']'");
    }
}

void JsonReader::skip_scalar() {
    switch (peek_type()) {
        case JsonType::string: parse_string(); return;
        case JsonType::number: parse_number(); return;
        case JsonType::boolean: parse_boolean(); return;
        case JsonType::null: parse_null(); return;
        default: syntax_error("expected a value");
    }
}

void JsonReader::skip_value() {
    // Iterative, with the open containers on a stack of '{' and '[': the
    // depth costs heap, never the call stack.
    std::vector<char> open;
    while (true) {
        // At the start of a value.
        const JsonType type = peek_type();
        if (type == JsonType::object || type == JsonType::array) {
            if (open.size() == kMaxDepth) syntax_error("arrays and objects nested too deeply");
            const char opening = peek(), closing = type == JsonType::object ? '}' : ']';
            ++position_;
            skip_whitespace();
            if (peek() == closing) {
                ++position_;
            } else {
                open.push_back(opening);
                if (opening == '{') {
                    parse_string();
                    expect(':', "':'");
                }
                continue;
            }
        } else {
            skip_scalar();
        }
        // After a value: close what it ends, or go on to the next item.
        while (!open.empty()) {
            skip_whitespace();
            const bool in_object = open.back() == '{';
            if (peek() == (in_object ? '}' : ']')) {
                ++position_;
                open.pop_back();
                continue;
            }
            expect(',', in_object ? "',' or '}'" : "',' or ']'");
            if (in_object) {
                skip_whitespace();
                parse_string();
                expect(':', "':'");
            }
            break;
        }
        if (open.empty()) return;
    }
}

void append_json_string(std::string& out, std::string_view text) {
    constexpr std::string_view kShortEscaped = "\b\f\n\r\t", kShortEscapes = "bfnrt";
    constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
    constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (static_cast<unsigned char>(c) >= 0x80) {
            // JSON text is UTF-8: a byte that starts no valid sequence (a
            // Latin-1 file name) becomes U+FFFD rather than invalid JSON.
            const std::size_t length = utf8_sequence_length(text.substr(i));
            if (length == 0) out += kReplacementCharacter;
            else out += text.substr(i, length);
            i += std::max<std::size_t>(length, 1);
            continue;
        }
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (const auto k = kShortEscaped.find(c); k != std::string_view::npos) {
            out += '\\';
            out += kShortEscapes[k];
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += "\\u00";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        } else {
            out += c;
        }
        ++i;
    }
    out += '"';
}

bool is_valid_utf8(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = utf8_sequence_length(text.substr(i));
        if (length == 0) return false;
        i += length;
    }
    return true;
}

std::string json_string(std::string_view text) {
    std::string out;
    append_json_string(out, text);
    return out;
}

namespace {

template <typename Real>
std::string shortest_json_number(Real value) {
    if (!std::isfinite(value)) return "null";
    char text[32];
    return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace

std::string json_number(double value) { return shortest_json_number(value); }
std::string json_number(float value) { return shortest_json_number(value); }

}  // namespace dp
