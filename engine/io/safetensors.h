#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dp {

// The safetensors format (https://huggingface.co/docs/safetensors), which
// PyTorch's ecosystem reads and writes: an 8-byte little-endian header length
// N, N bytes of JSON header
//   {"__metadata__": {"key": "value", ...},
//    "name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}
// then the tensors' raw little-endian row-major bytes, the offsets counting
// from the end of the header. Only the dtypes this engine stores are supported.
enum class TensorDtype { f32, i64 };

// "F32" or "I64", as the header spells them.
const char* dtype_name(TensorDtype dtype);
std::size_t dtype_size(TensorDtype dtype);

struct TensorEntry {
    std::string name;
    TensorDtype dtype = TensorDtype::f32;
    std::vector<std::int64_t> shape;  // [] for a scalar
    std::vector<std::byte> data;      // little-endian, row-major

    std::size_t element_count() const;
};

TensorEntry f32_tensor(std::string name, std::vector<std::int64_t> shape, std::span<const float> values);
TensorEntry i64_tensor(std::string name, std::vector<std::int64_t> shape,
                       std::span<const std::int64_t> values);

// Copy a tensor's elements out; `out` must hold exactly element_count() of
// the tensor's dtype (std::invalid_argument otherwise).
void copy_elements(const TensorEntry& tensor, std::span<float> out);
void copy_elements(const TensorEntry& tensor, std::span<std::int64_t> out);

struct SafetensorsFile {
    std::vector<TensorEntry> tensors;             // in the order of their data
    std::map<std::string, std::string> metadata;  // "__metadata__"; empty if absent

    const TensorEntry* find(std::string_view name) const;  // nullptr if absent
};

// Reads and validates a whole file. Throws dp::Error with a one-line message
// naming the file and the problem: missing or unreadable, truncated, header
// JSON malformed, a dtype other than F32 or I64, data_offsets that disagree
// with shape and dtype, or tensors whose data overlap, leave gaps or leave
// bytes unaccounted for.
SafetensorsFile read_safetensors(const std::filesystem::path& file);

// Writes the tensors as the reference implementation does: I64 before F32
// (larger dtypes first, so every tensor's data is aligned to its element
// size), then by name; compact JSON with "__metadata__" first (its keys
// sorted, where the reference leaves them in hash order); the header padded
// with spaces to a multiple of 8.
// The bytes go to a temporary beside `file`, are flushed to disk and renamed
// over `file` (io/atomic_file.h), so a reader sees the old file or the new one, never a part. On
// failure the temporary is removed, an existing `file` is left as it was and
// dp::Error names the file. Tensors with duplicate names, a name of
// "__metadata__" or data not matching their shape throw std::invalid_argument.
void write_safetensors_atomically(const std::filesystem::path& file, std::span<const TensorEntry> tensors,
                                  const std::map<std::string, std::string>& metadata = {});

}  // namespace dp
