#include "fleetsim/report/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "fleetsim/report/number_format.hpp"

namespace fleetsim {

namespace {

using Json = nlohmann::ordered_json;

void newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out.push_back('\n');
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}

void write(std::string& out, const Json& v, int indent, int depth) {
  switch (v.type()) {
    case Json::value_t::object: {
      if (v.empty()) {
        out += "{}";
        return;
      }
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        newline(out, indent, depth + 1);
        append_json_string(out, it.key());
        out += indent < 0 ? ":" : ": ";
        write(out, it.value(), indent, depth + 1);
      }
      newline(out, indent, depth);
      out.push_back('}');
      return;
    }
    case Json::value_t::array: {
      if (v.empty()) {
        out += "[]";
        return;
      }
      out.push_back('[');
      bool first = true;
      for (const Json& item : v) {
        if (!first) out.push_back(',');
        first = false;
        newline(out, indent, depth + 1);
        write(out, item, indent, depth + 1);
      }
      newline(out, indent, depth);
      out.push_back(']');
      return;
    }
    case Json::value_t::string:
      append_json_string(out, v.get_ref<const std::string&>());
      return;
    case Json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::number_integer:
      fmt::format_to(std::back_inserter(out), "{}", v.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned:
      fmt::format_to(std::back_inserter(out), "{}", v.get<std::uint64_t>());
      return;
    case Json::value_t::number_float: {
      const double x = v.get<double>();
      if (std::isfinite(x)) {
        append_decimal(out, x, /*keep_point=*/true);
      } else {
        out += "null";
      }
      return;
    }
    case Json::value_t::null:
    case Json::value_t::binary:  // not produced by the report; nlohmann would not print it as JSON
    case Json::value_t::discarded:
      out += "null";
      return;
  }
}

}  // namespace

std::string dump_json(const Json& value, int indent) {
  std::string out;
  write(out, value, indent, 0);
  return out;
}

}  // namespace fleetsim
