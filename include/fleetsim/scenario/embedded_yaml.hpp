// YAML held as text in a string of a manifest (a ConfigMap's data): where that text sits in its
// file, so that problems inside it are reported at their own line.
#pragma once

#include "fleetsim/core/error.hpp"
#include "fleetsim/scenario/yaml_reader.hpp"

namespace fleetsim {

// A literal block scalar (|) keeps each line of the text on one of the file's lines, so an
// error inside maps to its own line; any other string maps to where the string starts.
struct TextOrigin {
  SourceLocation scalar;  // where the string starts (its "|" for a block)
  int indent = -1;        // the block's indentation; -1 for other strings

  SourceLocation map(const SourceLocation& inner) const {
    if (indent < 0 || inner.line == 0) return scalar;
    return {.file = scalar.file, .line = scalar.line + inner.line, .col = indent + inner.col};
  }
};

TextOrigin text_origin(const YamlValue& value);

}  // namespace fleetsim
