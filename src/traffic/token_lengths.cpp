#include "fleetsim/traffic/token_lengths.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/traffic/traffic_config.hpp"

namespace fleetsim {

namespace {

struct LengthColumns {
  std::string_view input;
  std::string_view output;
  std::span<const std::string_view> ignored;  // the layout's other columns, read past
};

constexpr std::array<std::string_view, 1> kSimpleIgnored{"time_s"};
constexpr std::array<std::string_view, 1> kAzureIgnored{"TIMESTAMP"};
constexpr std::array<std::string_view, 3> kMooncakeNonLengthColumns{
    "timestamp_ms", "num_prefix_hash_blocks", "hash_ids"};

constexpr std::array<LengthColumns, 3> kLengthLayouts{{
    {"input_tokens", "output_tokens", kSimpleIgnored},
    {"ContextTokens", "GeneratedTokens", kAzureIgnored},
    {"input_length", "output_length", kMooncakeNonLengthColumns},
}};

constexpr CsvOptions kLengthsCsv{.noun = "token table",
                                 .example_header = "input_tokens,output_tokens"};

}  // namespace

TokenLengthsFile::TokenLengthsFile(const std::filesystem::path& file)
    : csv_(std::make_unique<CsvReader>(file, kLengthsCsv)) {
  std::optional<std::size_t> found;
  for (std::size_t l = 0; l < kLengthLayouts.size() && !found; ++l) {
    if (csv_->column(kLengthLayouts[l].input) || csv_->column(kLengthLayouts[l].output)) found = l;
  }
  if (!found) {
    std::string names;
    for (const std::string& name : csv_->header()) names += (names.empty() ? "" : ",") + name;
    csv_->fail_header("", fmt::format("not a token table: expected a header with "
                                      "input_tokens,output_tokens (or a request trace's "
                                      "ContextTokens,GeneratedTokens or "
                                      "input_length,output_length); the header is \"{}\"",
                                      names));
  }
  const LengthColumns& layout = kLengthLayouts[*found];
  const std::array<std::string_view, 2> known{layout.input, layout.output};
  csv_->check_columns(known, layout.ignored);
  input_ = csv_->require(layout.input);
  output_ = csv_->require(layout.output);
}

TokenLengthsFile::~TokenLengthsFile() = default;
TokenLengthsFile::TokenLengthsFile(TokenLengthsFile&&) noexcept = default;
TokenLengthsFile& TokenLengthsFile::operator=(TokenLengthsFile&&) noexcept = default;

TokenLengths TokenLengthsFile::next() {
  if (!csv_->next_row()) {
    csv_->rewind();
    csv_->next_row();  // a file without rows throws here, at its first pass
  }
  return TokenLengths{
      .input_tokens = static_cast<std::uint32_t>(csv_->integer(input_, 0, kMaxTokens)),
      .output_tokens = static_cast<std::uint32_t>(csv_->integer(output_, 0, kMaxTokens))};
}

std::int64_t scan_token_lengths(const std::filesystem::path& file) {
  TokenLengthsFile lengths(file);
  CsvReader& csv = *lengths.csv_;
  std::int64_t rows = 0;
  while (csv.next_row()) {
    static_cast<void>(csv.integer(lengths.input_, 0, kMaxTokens));
    static_cast<void>(csv.integer(lengths.output_, 0, kMaxTokens));
    ++rows;
  }
  return rows;
}

}  // namespace fleetsim
