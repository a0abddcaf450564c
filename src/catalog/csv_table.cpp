#include "csv_table.hpp"

#include "fleetsim/core/csv_line.hpp"

#include <fmt/format.h>

#include <fstream>
#include <system_error>

namespace fleetsim::csv {

namespace {

// Far above any real catalog (AWS's ~900 types × ~30 offerings is a few MiB), low enough that a
// wrong path pointing at a huge file fails at once instead of exhausting memory.
constexpr std::uintmax_t kMaxFileBytes = 64ULL << 20;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

Table Table::read(const std::filesystem::path& path) {
  Table t;
  t.file_ = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw CatalogError({t.file_}, "", "file not found");
  if (std::filesystem::is_directory(path, ec))
    throw CatalogError({t.file_}, "", "is a directory, expected a CSV file");
  auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw CatalogError({t.file_}, "",
                       fmt::format("file is {} bytes; a catalog file may be at most {} bytes", size,
                                   kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CatalogError({t.file_}, "", "cannot open file");

  std::string line;
  std::vector<CsvField> split;
  std::string unquoted;
  int line_no = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view view(line);
    if (line_no == 1 && view.starts_with(kUtf8Bom)) view.remove_prefix(kUtf8Bom.size());
    if (!view.empty() && view.back() == '\r') view.remove_suffix(1);
    if (trim(view).empty()) continue;
    if (auto error = split_csv_line(view, split, unquoted))
      throw CatalogError({t.file_, line_no, error->col}, "", std::string(error->message));
    std::vector<Field> fields;
    fields.reserve(split.size());
    for (const CsvField& f : split) fields.push_back(Field{.text = std::string(f.text), .col = f.col});
    if (!have_header) {
      t.header_line_ = line_no;
      for (const auto& f : fields) {
        if (f.text.empty())
          throw CatalogError({t.file_, line_no, f.col}, "", "empty column name in the header");
        for (const auto& seen : t.header_)
          if (seen == f.text)
            throw CatalogError({t.file_, line_no, f.col}, f.text,
                               "column appears twice in the header");
        t.header_.push_back(f.text);
      }
      have_header = true;
      continue;
    }
    if (fields.size() != t.header_.size()) {
      int col = fields.size() > t.header_.size() ? fields[t.header_.size()].col : 0;
      throw CatalogError({t.file_, line_no, col}, "",
                         fmt::format("expected {} fields as in the header, found {}",
                                     t.header_.size(), fields.size()));
    }
    t.records_.push_back(Record{.line = line_no, .fields = std::move(fields)});
  }
  if (in.bad()) throw CatalogError({t.file_, line_no}, "", "read error");
  if (!have_header) throw CatalogError({t.file_, 1}, "", "file is empty; expected a header row");
  return t;
}

std::optional<std::size_t> Table::find(std::string_view column) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == column) return i;
  return std::nullopt;
}

std::size_t Table::require(std::string_view column) const {
  if (auto i = find(column)) return *i;
  throw CatalogError({file_, header_line_}, std::string(column),
                     "required column is missing from the header");
}

CatalogError Table::error(const Record& r, std::size_t column, std::string message) const {
  return CatalogError({file_, r.line, r.fields[column].col}, header_[column], std::move(message));
}

}  // namespace fleetsim::csv
