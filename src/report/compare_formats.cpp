// The four renderings of compare_lines: terminal table, Markdown, CSV and JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "fleetsim/core/csv_reader.hpp"
#include "fleetsim/report/compare.hpp"
#include "fleetsim/report/json_writer.hpp"
#include "fleetsim/report/text_table.hpp"

namespace fleetsim {

namespace {

std::string side_title(const CompareSide& side) {
  return fmt::format("{} (n={})", side.name, side.reports.size());
}

std::string cell_text(const CompareCell& c) {
  if (!c.available) return "n/a";
  return c.half_width.empty() ? c.mean : fmt::format("{} ± {}", c.mean, c.half_width);
}

// Header and rows as the table and Markdown show them.
std::vector<std::vector<std::string>> grid(const std::vector<CompareSide>& sides,
                                           const std::vector<CompareLine>& lines) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"metric"};
  for (std::size_t i = 0; i < sides.size(); ++i) {
    header.push_back(side_title(sides[i]));
    if (i > 0) header.push_back("change");
  }
  rows.push_back(std::move(header));
  for (const CompareLine& line : lines) {
    std::vector<std::string> row{std::string(line.metric)};
    for (std::size_t i = 0; i < line.cells.size(); ++i) {
      row.push_back(cell_text(line.cells[i]));
      if (i > 0) row.push_back(line.cells[i].change);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// A Markdown cell: a '|' in a name would split it.
std::string escaped(const std::string& cell) {
  std::string out;
  for (char c : cell) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string markdown_table(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    out += '|';
    for (const std::string& c : cells) out += fmt::format(" {} |", escaped(c));
    out += '\n';
  };
  line(rows.front());
  out += "|---|";
  for (std::size_t i = 1; i < rows.front().size(); ++i) out += "---:|";
  out += '\n';
  for (std::size_t i = 1; i < rows.size(); ++i) line(rows[i]);
  return out;
}

std::string csv_text(const std::vector<CompareSide>& sides, const std::vector<CompareLine>& lines) {
  std::string out = "metric,side,seeds,mean,half_width,change\n";
  for (const CompareLine& line : lines) {
    for (std::size_t i = 0; i < sides.size(); ++i) {
      const CompareCell& c = line.cells[i];
      out += fmt::format("{},{},{},{},{},{}\n", line.metric, csv_field(sides[i].name), c.seeds,
                         c.mean, c.half_width, c.change == "n/a" ? "" : c.change);
    }
  }
  return out;
}

// A printed figure as a JSON number, so the file has the table's precision; null when empty.
nlohmann::ordered_json number(const std::string& text) {
  if (text.empty()) return nullptr;
  return nlohmann::ordered_json::parse(text);
}

std::string json_text(const std::vector<CompareSide>& sides,
                      const std::vector<CompareLine>& lines) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::object();
  Json& side_list = doc["sides"] = Json::array();
  for (const CompareSide& s : sides)
    side_list.push_back(Json{{"name", s.name}, {"seeds", s.reports.size()}});
  Json& metrics = doc["metrics"] = Json::array();
  for (const CompareLine& line : lines) {
    Json values = Json::array();
    for (std::size_t i = 0; i < line.cells.size(); ++i) {
      const CompareCell& c = line.cells[i];
      Json v{{"mean", number(c.mean)}, {"half_width", number(c.half_width)}, {"seeds", c.seeds}};
      if (i > 0) v["change"] = c.change == "n/a" ? Json(nullptr) : Json(c.change);
      values.push_back(std::move(v));
    }
    metrics.push_back(Json{{"metric", line.metric}, {"values", std::move(values)}});
  }
  return dump_json(doc) + "\n";
}

}  // namespace

std::string format_compare(const std::vector<CompareSide>& sides, CompareFormat format) {
  const std::vector<CompareLine> lines = compare_lines(sides);
  switch (format) {
    case CompareFormat::Table:
      return text_table(grid(sides, lines));
    case CompareFormat::Markdown:
      return markdown_table(grid(sides, lines));
    case CompareFormat::Csv:
      return csv_text(sides, lines);
    case CompareFormat::Json:
      return json_text(sides, lines);
  }
  return {};
}

}  // namespace fleetsim
