// UTF-8 validity (RFC 3629): names go into JSON outputs, which must be valid UTF-8.
#pragma once

#include <cstddef>
#include <string_view>

namespace fleetsim {

// The length (2 to 4) of the valid multi-byte UTF-8 sequence at s[i], or 0: overlong forms,
// surrogates and code points past U+10FFFF are invalid. s[i] must be at least 0x80.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);

bool is_valid_utf8(std::string_view s);

}  // namespace fleetsim
