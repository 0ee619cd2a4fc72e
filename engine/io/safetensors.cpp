#include "io/safetensors.h"


#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <utility>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/bounded_file.h"
#include "io/json.h"

namespace dp {

// Tensor data is copied between memory and file as is.
static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; big-endian hosts would need byte swaps");

namespace {

// The reference implementation refuses larger headers; so does this reader,
// which keeps a corrupt length from allocating gigabytes.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
constexpr std::uint64_t kMaxDimension = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kMetadataKey = "__metadata__";

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& problem) {
    throw Error(file.string() + ": " + problem);
}


template <typename Integer>
std::string list_text(const std::vector<Integer>& values) {
    std::string text = "[";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i > 0) text += ',';
        text += std::to_string(values[i]);
    }
    return text + "]";
}

bool is_control_character(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// Tensor names appear in one-line error messages, so neither the reader nor
// the writer allows control characters in them.
bool has_control_character(std::string_view text) {
    return std::any_of(text.begin(), text.end(), is_control_character);
}

// Other strings from the file, shown in an error message.
std::string shown(std::string text) {
    std::replace_if(text.begin(), text.end(), is_control_character, '?');
    return text;
}

// ---- Reading the header --------------------------------------------------

struct HeaderTensor {
    std::string name;
    TensorDtype dtype = TensorDtype::f32;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;
};

struct Header {
    std::vector<HeaderTensor> tensors;  // in header order
    std::map<std::string, std::string> metadata;
};

// A strict parser for exactly the JSON a safetensors header holds: one object
// of tensor descriptions and an optional "__metadata__" object of strings.
// It follows that schema rather than building a generic JSON tree, so nesting
// is bounded and every error can say what was expected where.
class HeaderParser {
public:
    HeaderParser(const std::filesystem::path& file, std::string_view text)
        : file_(file), json_(text, file.string() + ": bad header JSON", " of the header") {}

    Header parse() {
        Header header;
        json_.skip_whitespace();
        std::set<std::string> keys;
        json_.parse_object([&](std::string key, std::size_t key_position) {
            if (has_control_character(key))
                syntax_error_at(key_position, "tensor name with a control character");
            if (!keys.insert(key).second) syntax_error_at(key_position, "duplicate key \"" + key + "\"");
            if (key == kMetadataKey)
                header.metadata = parse_metadata();
            else
                header.tensors.push_back(parse_tensor(std::move(key)));
        });
        json_.skip_whitespace();  // the writer pads with spaces
        if (!json_.at_end()) syntax_error("unexpected data after the header object");
        return header;
    }

private:
    [[noreturn]] void syntax_error_at(std::size_t position, const std::string& reason) {
        json_.syntax_error_at(position, reason);
    }
    [[noreturn]] void syntax_error(const std::string& reason) { json_.syntax_error(reason); }

    std::map<std::string, std::string> parse_metadata() {
        std::map<std::string, std::string> metadata;
        json_.parse_object([&](std::string key, std::size_t key_position) {
            std::string value = json_.parse_string();
            if (!metadata.emplace(std::move(key), std::move(value)).second)
                syntax_error_at(key_position, "duplicate key in __metadata__");
        });
        return metadata;
    }

    HeaderTensor parse_tensor(std::string name) {
        HeaderTensor tensor;
        tensor.name = std::move(name);
        std::optional<std::string> dtype;
        std::optional<std::vector<std::uint64_t>> shape, offsets;
        const std::size_t start = json_.position();
        json_.parse_object([&](std::string key, std::size_t key_position) {
            const auto set_once = [&](auto& field, auto value) {
                if (field) syntax_error_at(key_position, "duplicate key \"" + key + "\"");
                field = std::move(value);
            };
            if (key == "dtype")
                set_once(dtype, json_.parse_string());
            else if (key == "shape")
                set_once(shape, json_.parse_unsigned_array());
            else if (key == "data_offsets")
                set_once(offsets, json_.parse_unsigned_array());
            else
                syntax_error_at(key_position,
                                "unexpected key \"" + shown(key) + "\" in tensor " + tensor.name);
        });
        const char* missing = !dtype ? "dtype" : !shape ? "shape" : !offsets ? "data_offsets" : nullptr;
        if (missing) syntax_error_at(start, "tensor " + tensor.name + " lacks " + missing);
        if (offsets->size() != 2)
            syntax_error_at(start, "data_offsets of tensor " + tensor.name + " has " +
                                       std::to_string(offsets->size()) + " entries, not 2");

        if (*dtype == "F32")
            tensor.dtype = TensorDtype::f32;
        else if (*dtype == "I64")
            tensor.dtype = TensorDtype::i64;
        else
            fail(file_, "tensor " + tensor.name + " has dtype " + shown(*dtype) +
                            "; only F32 and I64 are supported");
        for (std::uint64_t dimension : *shape) {
            if (dimension > kMaxDimension)
                fail(file_, "tensor " + tensor.name + " has a dimension too large: " + list_text(*shape));
            tensor.shape.push_back(std::int64_t(dimension));
        }
        tensor.begin = (*offsets)[0];
        tensor.end = (*offsets)[1];
        return tensor;
    }

    const std::filesystem::path& file_;
    JsonReader json_;
};

// Checks each tensor's size and that the tensors tile [0, end) without gaps
// or overlaps, as the reference implementation requires; returns that end and
// sorts the tensors by offset.
std::uint64_t validate_layout(const std::filesystem::path& file, std::vector<HeaderTensor>& tensors) {
    for (const HeaderTensor& tensor : tensors) {
        const std::string offsets = list_text(std::vector{tensor.begin, tensor.end});
        if (tensor.end < tensor.begin)
            fail(file,
                 "tensor " + tensor.name + " has data_offsets " + offsets + " that end before they begin");
        std::uint64_t bytes = dtype_size(tensor.dtype);
        for (std::int64_t dimension : tensor.shape) {
            if (dimension != 0 &&
                bytes > std::numeric_limits<std::uint64_t>::max() / std::uint64_t(dimension))
                fail(file, "tensor " + tensor.name + " has a shape too large: " + list_text(tensor.shape));
            bytes *= std::uint64_t(dimension);
        }
        if (tensor.end - tensor.begin != bytes)
            fail(file, "tensor " + tensor.name + " has data_offsets " + offsets + " (" +
                           std::to_string(tensor.end - tensor.begin) + " bytes) but its shape " +
                           list_text(tensor.shape) + " of " + dtype_name(tensor.dtype) + " needs " +
                           std::to_string(bytes) + " bytes");
    }
    std::sort(tensors.begin(), tensors.end(), [](const HeaderTensor& a, const HeaderTensor& b) {
        return std::tie(a.begin, a.end) < std::tie(b.begin, b.end);
    });
    std::uint64_t end = 0;
    const HeaderTensor* previous = nullptr;
    for (const HeaderTensor& tensor : tensors) {
        if (tensor.begin < end)
            fail(file, "tensor " + tensor.name + " overlaps tensor " + previous->name + " in the data");
        if (tensor.begin > end)
            fail(file, "tensor " + tensor.name + " starts at data offset " + std::to_string(tensor.begin) +
                           ", leaving a gap after offset " + std::to_string(end));
        end = tensor.end;
        previous = &tensor;
    }
    return end;
}

// ---- Writing ---------------------------------------------------------------

std::string header_bytes(std::span<const TensorEntry* const> tensors,
                         const std::map<std::string, std::string>& metadata) {
    std::string json = "{";
    if (!metadata.empty()) {
        append_json_string(json, kMetadataKey);
        json += ':';
        const char* separator = "{";
        for (const auto& [key, value] : metadata) {
            json += std::exchange(separator, ",");
            append_json_string(json, key);
            json += ':';
            append_json_string(json, value);
        }
        json += '}';
    }
    std::uint64_t offset = 0;
    for (const TensorEntry* tensor : tensors) {
        if (json.size() > 1) json += ',';
        append_json_string(json, tensor->name);
        json += ":{\"dtype\":";
        append_json_string(json, dtype_name(tensor->dtype));
        json += ",\"shape\":" + list_text(tensor->shape);
        json += ",\"data_offsets\":" + list_text(std::vector{offset, offset + tensor->data.size()});
        json += '}';
        offset += tensor->data.size();
    }
    json += '}';
    // Padding makes the data start at a multiple of 8, aligning every tensor.
    json.append((8 - json.size() % 8) % 8, ' ');
    return json;
}

void check_writable(std::span<const TensorEntry> tensors) {
    std::set<std::string_view> names;
    for (const TensorEntry& tensor : tensors) {
        const std::string what = "write_safetensors_atomically: tensor " + tensor.name;
        if (tensor.name == kMetadataKey || has_control_character(tensor.name))
            throw std::invalid_argument(what + ": reserved name or control character");
        if (!names.insert(tensor.name).second) throw std::invalid_argument(what + " appears twice");
        if (tensor.data.size() != tensor.element_count() * dtype_size(tensor.dtype))
            throw std::invalid_argument(what + ": " + std::to_string(tensor.data.size()) +
                                        " bytes do not match its shape " + list_text(tensor.shape));
    }
}

}  // namespace

const char* dtype_name(TensorDtype dtype) { return dtype == TensorDtype::f32 ? "F32" : "I64"; }

std::size_t dtype_size(TensorDtype dtype) { return dtype == TensorDtype::f32 ? 4 : 8; }

std::size_t TensorEntry::element_count() const {
    return std::accumulate(
        shape.begin(), shape.end(), std::size_t{1},
        [](std::size_t count, std::int64_t dimension) { return count * std::size_t(dimension); });
}

namespace {

template <typename T>
TensorEntry make_tensor(std::string name, TensorDtype dtype, std::vector<std::int64_t> shape,
                        std::span<const T> values) {
    TensorEntry tensor{std::move(name), dtype, std::move(shape), {}};
    if (tensor.element_count() != values.size())
        throw std::invalid_argument("tensor " + tensor.name + ": " + std::to_string(values.size()) +
                                    " values for shape " + list_text(tensor.shape));
    const auto bytes = std::as_bytes(values);
    tensor.data.assign(bytes.begin(), bytes.end());
    return tensor;
}

template <typename T>
void copy_out(const TensorEntry& tensor, TensorDtype dtype, std::span<T> out) {
    if (tensor.dtype != dtype || out.size() != tensor.element_count() ||
        tensor.data.size() != out.size_bytes())
        throw std::invalid_argument("copy_elements: tensor " + tensor.name + " is not " +
                                    std::to_string(out.size()) + " elements of " + dtype_name(dtype));
    std::copy(tensor.data.begin(), tensor.data.end(), std::as_writable_bytes(out).begin());
}

}  // namespace

TensorEntry f32_tensor(std::string name, std::vector<std::int64_t> shape, std::span<const float> values) {
    return make_tensor(std::move(name), TensorDtype::f32, std::move(shape), values);
}

TensorEntry i64_tensor(std::string name, std::vector<std::int64_t> shape,
                       std::span<const std::int64_t> values) {
    return make_tensor(std::move(name), TensorDtype::i64, std::move(shape), values);
}

void copy_elements(const TensorEntry& tensor, std::span<float> out) {
    copy_out(tensor, TensorDtype::f32, out);
}

void copy_elements(const TensorEntry& tensor, std::span<std::int64_t> out) {
    copy_out(tensor, TensorDtype::i64, out);
}

const TensorEntry* SafetensorsFile::find(std::string_view name) const {
    const auto it = std::find_if(tensors.begin(), tensors.end(),
                                 [&](const TensorEntry& tensor) { return tensor.name == name; });
    return it == tensors.end() ? nullptr : &*it;
}

SafetensorsFile read_safetensors(const std::filesystem::path& file) {
    BoundedFile in(file, read_limit::checkpoint);
    const std::uint64_t file_size = in.size();
    const auto read_exactly = [&](void* out, std::uint64_t size) { in.read_exactly(out, size); };

    if (file_size < 8)
        fail(file,
             "truncated: " + std::to_string(file_size) + " bytes, too short for the 8-byte header length");
    std::uint64_t header_size = 0;
    read_exactly(&header_size, 8);
    if (header_size > kMaxHeaderBytes)
        fail(file, "header length " + std::to_string(header_size) +
                       " is over the 100 MB limit (corrupt file, or not a safetensors file)");
    if (header_size > file_size - 8)
        fail(file, "truncated: the header length is " + std::to_string(header_size) + " bytes but only " +
                       std::to_string(file_size - 8) + " follow it");
    std::string header_text(header_size, '\0');
    read_exactly(header_text.data(), header_size);

    Header header = HeaderParser(file, header_text).parse();
    const std::uint64_t data_size = validate_layout(file, header.tensors);
    const std::uint64_t available = file_size - 8 - header_size;
    if (data_size > available)
        fail(file, "truncated: the tensors need " + std::to_string(data_size) + " bytes of data but only " +
                       std::to_string(available) + " follow the header");
    if (data_size < available)
        fail(file, "unexpected data after the last tensor (" + std::to_string(available - data_size) +
                       " bytes; corrupt header?)");

    SafetensorsFile result;
    result.metadata = std::move(header.metadata);
    for (HeaderTensor& tensor : header.tensors) {  // sorted by offset, so the reads are sequential
        TensorEntry entry{std::move(tensor.name), tensor.dtype, std::move(tensor.shape), {}};
        entry.data.resize(tensor.end - tensor.begin);
        read_exactly(entry.data.data(), entry.data.size());
        result.tensors.push_back(std::move(entry));
    }
    return result;
}

void write_safetensors_atomically(const std::filesystem::path& file, std::span<const TensorEntry> tensors,
                                  const std::map<std::string, std::string>& metadata) {
    check_writable(tensors);
    // Larger elements first keeps each tensor aligned to its element size.
    std::vector<const TensorEntry*> sorted;
    for (const TensorEntry& tensor : tensors) sorted.push_back(&tensor);
    std::sort(sorted.begin(), sorted.end(), [](const TensorEntry* a, const TensorEntry* b) {
        const std::size_t a_size = dtype_size(a->dtype), b_size = dtype_size(b->dtype);
        return a_size != b_size ? a_size > b_size : a->name < b->name;
    });
    const std::string header = header_bytes(sorted, metadata);
    const std::uint64_t header_size = header.size();

    AtomicFile temporary(file);
    temporary.write(std::as_bytes(std::span(&header_size, 1)));
    temporary.write(header);
    for (const TensorEntry* tensor : sorted) temporary.write(tensor->data);
    temporary.commit();
}

}  // namespace dp
