// `fleetsim merge`: a sharded sweep's results-shard-I-of-N.csv files joined into the results.csv
// one sweep would have written, refusing what would make it half an answer without saying so.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace fleetsim {

// The shard results files among `inputs`: a folder gives its files named exactly
// results-shard-I-of-N.csv (not a leftover .tmp or a .bak copy), and a file must be so named.
// Throws InputError naming an input that is neither or that holds no shard.
std::vector<std::filesystem::path> shard_files(const std::vector<std::filesystem::path>& inputs);

struct MergeOutcome {
  std::size_t runs = 0;      // the study's runs
  std::size_t missing = 0;   // of them, those no shard has
  std::string missing_text;  // "no shard 2 of 3 among the inputs; ...": empty when complete
};

// Joins the rows of `shards` into `out` in the order a single sweep writes them, with its study
// record. The shards must be of one study (digest, seeds, shard count), each shard given once,
// each row one of its shard's runs; and, unless `allow_partial`, all of the study's runs must be
// there. Throws InputError naming the file (and line) or what is missing.
MergeOutcome merge_results(const std::vector<std::filesystem::path>& shards,
                           const std::filesystem::path& out, bool allow_partial = false);

}  // namespace fleetsim
