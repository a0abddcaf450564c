// Per-request token counts replayed from a CSV file (a `tokens: {file: …}`), for any synthetic
// pattern: the lengths of a real workload (ShareGPT, a production sample) at a rate of your own.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace fleetsim {

class CsvReader;

// One row: a request's input and output tokens.
struct TokenLengths {
  std::uint32_t input_tokens = 0;
  std::uint32_t output_tokens = 0;
};

// The file's header names the two token columns of one of the request-trace layouts
// (traffic_replay.hpp), in any order:
//   input_tokens,output_tokens              (time_s read past)
//   ContextTokens,GeneratedTokens           (Azure; TIMESTAMP read past)
//   input_length,output_length              (Mooncake; timestamp_ms and its hash columns read
//                                            past)
// so a replay trace gives its lengths without its timing. Any other column is an error. Counts
// are whole numbers in [0, kMaxTokens], as in a replayed trace.
//
// Streams the file a row at a time (memory stays flat in its length) and starts again from the
// first row at its end.
class TokenLengthsFile {
 public:
  // Opens the file and reads its header. Throws TraceError with file:line:col on a missing or
  // empty file (no header, or no rows) or a header without a known pair of columns.
  explicit TokenLengthsFile(const std::filesystem::path& file);
  ~TokenLengthsFile();
  TokenLengthsFile(TokenLengthsFile&&) noexcept;
  TokenLengthsFile& operator=(TokenLengthsFile&&) noexcept;

  // The next row's counts; after the last row, the first's. Throws TraceError at a malformed row.
  TokenLengths next();

 private:
  friend std::int64_t scan_token_lengths(const std::filesystem::path& file);

  std::unique_ptr<CsvReader> csv_;
  std::size_t input_ = 0;  // field indexes
  std::size_t output_ = 0;
};

// Reads the file through, checking every row as next() would; returns the number of rows. Throws
// TraceError with file:line:col at the first problem.
std::int64_t scan_token_lengths(const std::filesystem::path& file);

}  // namespace fleetsim
