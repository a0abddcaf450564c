#include "fleetsim/core/csv_line.hpp"

namespace fleetsim {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Columns count characters, not bytes: UTF-8 continuation bytes do not start a character.
class ColumnCounter {
 public:
  explicit ColumnCounter(std::string_view line) : line_(line) {}
  int at(std::size_t byte) {
    for (; pos_ < byte && pos_ < line_.size(); ++pos_) {
      if ((static_cast<unsigned char>(line_[pos_]) & 0xC0) != 0x80) ++col_;
    }
    return col_;
  }

 private:
  std::string_view line_;
  std::size_t pos_ = 0;
  int col_ = 1;
};

}  // namespace

int character_column(std::string_view line, std::size_t byte) { return ColumnCounter(line).at(byte); }

std::optional<CsvSyntaxError> split_csv_line(std::string_view line, std::vector<CsvField>& fields,
                                             std::string& unquoted) {
  fields.clear();
  unquoted.clear();
  unquoted.reserve(line.size());
  ColumnCounter cols(line);
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && is_space(line[i])) ++i;
    CsvField field;
    field.col = cols.at(i);
    if (i < line.size() && line[i] == '"') {
      const std::size_t open = i++;
      const std::size_t begin = unquoted.size();
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            unquoted += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        unquoted += line[i++];
      }
      if (!closed) return CsvSyntaxError{cols.at(open), "unterminated quoted field (a quoted field must end on its line)"};
      while (i < line.size() && is_space(line[i])) ++i;
      if (i < line.size() && line[i] != ',') return CsvSyntaxError{cols.at(i), "unexpected text after a closing quote"};
      field.text = std::string_view(unquoted).substr(begin);
    } else {
      const std::size_t start = i;
      while (i < line.size() && line[i] != ',') ++i;
      std::size_t end = i;
      while (end > start && is_space(line[end - 1])) --end;
      field.text = line.substr(start, end - start);
    }
    fields.push_back(field);
    if (i >= line.size()) return std::nullopt;
    ++i;  // the comma
  }
}

}  // namespace fleetsim
