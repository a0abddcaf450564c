#include "fleetsim/core/csv_reader.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fleetsim/core/error.hpp"
#include "unit/core/temp_trace.hpp"

using namespace fleetsim;
using test::TempTrace;

namespace {

constexpr CsvOptions kOptions{.noun = "trace", .example_header = "a,b"};

CsvReader reader(const std::string& text, CsvOptions options = kOptions) {
  return CsvReader::from_text(text, "f.csv", options);
}

// Every data row's fields, as text.
std::vector<std::vector<std::string>> rows_of(CsvReader& csv) {
  std::vector<std::vector<std::string>> rows;
  while (csv.next_row()) {
    auto& row = rows.emplace_back();
    for (const CsvField& f : csv.fields()) row.emplace_back(f.text);
  }
  return rows;
}

std::vector<std::vector<std::string>> rows_of(const std::string& text) {
  CsvReader csv = reader(text);
  return rows_of(csv);
}

// What reading `text` through raises ("" if nothing).
std::string error_of(const std::string& text, CsvOptions options = kOptions) {
  try {
    CsvReader csv = reader(text, options);
    rows_of(csv);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using Rows = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("csv: quoted fields hold commas, doubled quotes and blanks", "[core][csv]") {
  CHECK(rows_of("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n") == Rows{{"x, y", "say \"hi\""}});
  CHECK(rows_of("a,b\n\"\",\"\"\"\"\n") == Rows{{"", "\""}});
  // Blanks around a field, quoted or not, are trimmed; inside quotes they are kept.
  CHECK(rows_of("a,b\n  x  , \" y \" \n") == Rows{{"x", " y "}});
  CHECK(rows_of("a,b\n,\n") == Rows{{"", ""}});
  // A quote inside an unquoted field is text.
  CHECK(rows_of("a,b\n5\"x,y\n") == Rows{{"5\"x", "y"}});
}

TEST_CASE("csv: CRLF and LF line ends, a missing last line end", "[core][csv]") {
  CHECK(rows_of("a,b\r\n1,2\r\n3,4\n5,6") == Rows{{"1", "2"}, {"3", "4"}, {"5", "6"}});
  CsvReader csv = reader("a,b\r\n1,\"2\"\r\n");
  REQUIRE(csv.next_row());
  CHECK(csv.field(1) == "2");  // no '\r' left behind a closing quote
  CHECK(csv.line() == 2);
}

TEST_CASE("csv: a UTF-8 byte-order mark at the start is ignored", "[core][csv]") {
  CsvReader csv = reader(
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\n");
  CHECK(csv.header() == std::vector<std::string>{"a", "b"});
  CHECK(csv.require("a") == 0);
  REQUIRE(csv.next_row());
  CHECK(csv.fields()[0].col == 1);
  // Only at the start of the file: elsewhere it is text.
  CHECK(rows_of("a,b\n\xEF\xBB\xBFx,y\n") == Rows{{"\xEF\xBB\xBFx", "y"}});
}

TEST_CASE("csv: trailing blank lines are tolerated, inner ones are not", "[core][csv]") {
  CHECK(rows_of("a,b\n1,2\n\n  \r\n\t\n") == Rows{{"1", "2"}});
  CHECK(error_of("a,b\n1,2\n\n3,4\n") ==
        "f.csv:3:1: blank line inside the trace (only trailing blank lines are allowed)");
  // Catalog tables skip blank lines wherever they are, before the header too.
  CsvOptions skip = kOptions;
  skip.skip_blank_lines = true;
  CsvReader csv = reader("\n\na,b\n\n1,2\n\n3,4\n", skip);
  CHECK(csv.header_line() == 3);
  CHECK(rows_of(csv) == Rows{{"1", "2"}, {"3", "4"}});
  CHECK(csv.line() == 7);
}

TEST_CASE("csv: columns are found by name, a missing one is named", "[core][csv]") {
  CsvReader csv = reader("note, b ,a,note\n1,2,3,4\n");
  CHECK(csv.require("a") == 2);
  CHECK(csv.require("b") == 1);
  CHECK_FALSE(csv.column("c"));
  CHECK(csv.header_line() == 1);
  try {
    csv.require("c");
    FAIL("expected a TraceError");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()) ==
          "f.csv:1:1: c: missing column (the header has: note, b, a, note)");
    CHECK(e.where().line == 1);
    CHECK(e.field() == "c");
  }
  // A column looked up must be unique; others may repeat ("note").
  CHECK_THROWS_WITH(csv.column("note"),
                    "f.csv:1:12: note: column appears twice (first at column 1)");
  REQUIRE(csv.next_row());
  CHECK(csv.field(csv.require("a")) == "3");
}

TEST_CASE("csv: an unterminated quote is located", "[core][csv]") {
  CHECK(error_of("a,b\n1,2\n3,\"4\n") ==
        "f.csv:3:3: unterminated quoted field (a quoted field must end on its line)");
  // A quoted field does not run on to the next line.
  CHECK(error_of("a,b\n\"1\n2\",3\n") ==
        "f.csv:2:1: unterminated quoted field (a quoted field must end on its line)");
  CHECK(error_of("a,b\n\"1\"x,2\n") == "f.csv:2:4: unexpected text after a closing quote");
  CHECK(error_of("\"a,b\n1,2\n") ==
        "f.csv:1:1: unterminated quoted field (a quoted field must end on its line)");
}

TEST_CASE("csv: a bad number is an error at its line, column and field", "[core][csv]") {
  CsvReader csv = reader("a,value\n1,2.5\n2,abc\n");
  const std::size_t value = csv.require("value");
  REQUIRE(csv.next_row());
  CHECK(csv.number(value) == 2.5);
  REQUIRE(csv.next_row());
  try {
    csv.number(value);
    FAIL("expected a TraceError");
  } catch (const TraceError& e) {
    CHECK(std::string(e.what()) == "f.csv:3:3: value: expected a number, got \"abc\"");
    CHECK(e.where().line == 3);
    CHECK(e.where().col == 3);
    CHECK(e.field() == "value");
  }
  // The error reading `field` as a number raises.
  const auto number_error = [](const std::string& field) {
    CsvReader r = reader("a,value\n1," + field + "\n");
    REQUIRE(r.next_row());
    try {
      r.number(1);
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(number_error("") == "f.csv:2:3: value: is empty; expected a number");
  CHECK(number_error("inf") == "f.csv:2:3: value: must be a finite number, got inf");
  CHECK(number_error("1e999") == "f.csv:2:3: value: must be a finite number, got 1e999");
  CHECK(number_error("1.5x") == "f.csv:2:3: value: expected a number, got \"1.5x\"");
  // A long field is cut in the message.
  CHECK(number_error(std::string(100, 'x')) ==
        "f.csv:2:3: value: expected a number, got \"" + std::string(40, 'x') + "…\"");
}

TEST_CASE("csv: whole numbers are range-checked", "[core][csv]") {
  CsvReader csv = reader("n\n7\n4.0\n-3\n2.5\n11\n99999999999999999999999\n0.0\n");
  const auto next = [&] {
    REQUIRE(csv.next_row());
    try {
      return std::to_string(csv.integer(0, 0, 10));
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
  };
  CHECK(next() == "7");
  CHECK(next() == "4");  // an integral decimal, as pandas writes
  CHECK(next() == "f.csv:4:1: n: must not be negative, got -3");
  CHECK(next() == "f.csv:5:1: n: must be a whole number, got 2.5");
  CHECK(next() == "f.csv:6:1: n: must be at most 10, got 11");
  CHECK(next() == "f.csv:7:1: n: must be at most 10, got 99999999999999999999999");
  REQUIRE(csv.next_row());
  CHECK_THROWS_WITH(csv.integer(0, 1, 10), "f.csv:8:1: n: must be at least 1, got 0.0");
}

TEST_CASE("csv: an empty file, a blank header and a header alone are errors", "[core][csv]") {
  CHECK(error_of("") == "f.csv:1:1: trace is empty; expected a header row such as \"a,b\"");
  CHECK(error_of("\r\n") == "f.csv:1:1: the header row is blank; expected one such as \"a,b\"");
  CHECK(error_of("a,b\n") == "f.csv:1:1: trace has no rows (only a header)");
  CHECK(error_of("a,b\n\n\n") == "f.csv:1:1: trace has no rows (only a header)");
  CsvOptions skip = kOptions;
  skip.skip_blank_lines = true;
  skip.noun = "catalog table";
  CHECK(error_of("\n \n", skip) ==
        "f.csv:1:1: catalog table is empty; expected a header row such as \"a,b\"");
}

TEST_CASE("csv: a row must have the header's field count", "[core][csv]") {
  CHECK(error_of("a,b\n1,2,3\n") == "f.csv:2:5: expected 2 fields as in the header, found 3");
  // Too few: the column past the end, where the missing field belongs.
  CHECK(error_of("a,b\n1\n") == "f.csv:2:2: expected 2 fields as in the header, found 1");
}

TEST_CASE("csv: columns count characters, not bytes", "[core][csv]") {
  CsvReader csv = reader("name,n\nentraînement,x\n");
  REQUIRE(csv.next_row());
  CHECK(csv.fields()[1].col == 14);
  CHECK_THROWS_WITH(csv.number(1), "f.csv:2:14: n: expected a number, got \"x\"");
  CHECK_THROWS_WITH(csv.fail(0, "bad", 3), "f.csv:2:4: name: bad");
}

TEST_CASE("csv: the error type follows the input", "[core][csv]") {
  CsvOptions catalog = kOptions;
  catalog.input = CsvInput::Catalog;
  CHECK_THROWS_AS(reader("a,b\n1\n", catalog).next_row(), CatalogError);
  CHECK_THROWS_AS(reader("a,b\n1\n").next_row(), TraceError);
}

TEST_CASE("csv: files: missing, a directory, too large, and read through", "[core][csv]") {
  const std::filesystem::path missing =
      std::filesystem::temp_directory_path() / "fleetsim-no-such-file.csv";
  CHECK_THROWS_WITH(CsvReader(missing, kOptions), missing.string() + ": trace file not found");
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  CHECK_THROWS_WITH(CsvReader(dir, kOptions), dir.string() + ": is a directory, not a trace file");

  TempTrace file(
      "\xEF\xBB\xBF"
      "a,b\r\n\"1,5\",2\r\n");
  CsvOptions small = kOptions;
  small.max_file_bytes = 8;
  CHECK_THROWS_WITH(
      CsvReader(file.path(), small),
      file.path().string() + ": file is 17 bytes; a trace file may be at most 8 bytes");
  CsvReader csv(file.path(), kOptions);
  CHECK(csv.file() == file.path().string());
  CHECK(rows_of(csv) == Rows{{"1,5", "2"}});
}

TEST_CASE("csv: a line over the limit is refused without reading it whole", "[core][csv]") {
  TempTrace file("a,b\n1,2\n" + std::string(CsvReader::kMaxLineBytes + 1, 'x') + "\n");
  CsvReader csv(file.path(), kOptions);
  REQUIRE(csv.next_row());
  CHECK_THROWS_WITH(
      csv.next_row(),
      file.path().string() + ":3: line is longer than 1048576 bytes; is this a CSV file?");
  // A line of exactly the limit is fine.
  TempTrace longest("a\n" + std::string(CsvReader::kMaxLineBytes, 'y') + "\n");
  CsvReader ok(longest.path(), kOptions);
  REQUIRE(ok.next_row());
  CHECK(ok.field(0).size() == CsvReader::kMaxLineBytes);
}

TEST_CASE("csv: rows stream across read buffers, and rewind starts over", "[core][csv]") {
  // Far more than one 64 KiB read, with lines of varying length so they straddle the reads.
  std::string text = "i,name\r\n";
  constexpr int kRows = 30'000;
  for (int i = 0; i < kRows; ++i) {
    text.append(std::to_string(i)).append(",\"n");
    text.append(static_cast<std::size_t>(i % 7), ',').append("\"\r\n");
  }
  TempTrace file(text);
  CsvReader csv(file.path(), kOptions);
  for (int pass = 0; pass < 2; ++pass) {
    int rows = 0;
    while (csv.next_row()) {
      REQUIRE(csv.integer(0, 0, kRows) == rows);
      const std::string_view name = csv.field(1);
      REQUIRE(name.starts_with('n'));
      REQUIRE(name.find_first_not_of(',', 1) == std::string_view::npos);
      REQUIRE(name.size() == static_cast<std::size_t>(1 + rows % 7));
      ++rows;
      REQUIRE(csv.line() == rows + 1);
      REQUIRE(csv.rows() == rows);
    }
    CHECK(rows == kRows);
    csv.rewind();
  }
}

TEST_CASE("csv: reading a row reuses the reader's buffers", "[core][csv]") {
  // Rows shaped as the first: the fields view the same storage every time.
  CsvReader csv = reader("a,b\n\"xx\",yyyy\n\"ab\",zzzz\n\"\"\"\",wwww\n");
  REQUIRE(csv.next_row());
  const char* quoted = csv.field(0).data();
  const char* plain = csv.field(1).data();
  while (csv.next_row()) {
    CHECK(csv.field(0).data() == quoted);
    CHECK(csv.field(1).data() == plain);
  }
}

TEST_CASE("csv: check_columns refuses a column nothing reads, returns the ignored ones",
          "[core][csv]") {
  constexpr std::array<std::string_view, 2> kKnown{"time_s", "value"};
  constexpr std::array<std::string_view, 1> kIgnored{"hash_ids"};
  CsvReader ok = reader("value,hash_ids,time_s\n1,x,2\n");
  CHECK(ok.check_columns(kKnown, kIgnored) == std::vector<std::string>{"hash_ids"});
  CsvReader typo = reader("time_s,valeu\n1,2\n");
  CHECK_THROWS_WITH(typo.check_columns(kKnown),
                    "f.csv:1:8: valeu: unknown column, not read; the trace reads time_s,value; "
                    "did you mean \"value\"?");
  CsvReader other = reader("time_s,value,capacity_type\n1,2,spot\n");
  CHECK_THROWS_WITH(other.check_columns(kKnown, kIgnored),
                    "f.csv:1:14: capacity_type: unknown column, not read; the trace reads "
                    "time_s,value");
}
