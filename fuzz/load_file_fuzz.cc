// The descheduler's load file (plan/run --load file=F): decode; what it accepts is JSON
// (its pod entries are read in one pass, their ends found by brackets before their text is
// checked), and every pod entry it accepts is one key of the report.
#include "descheduler/core/load.h"
#include "fuzz/fuzz.h"
#include "kube/client/json_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = weft::fuzz::text(data, size);
  auto report = weft::descheduler::parse_load_file(text, "fuzz.json");
  if (!report) return 0;
  auto tree = weft::kube::read_json(text);
  weft::fuzz::check(tree.ok(), "an accepted load file is JSON");
  const auto& pods = (*tree)["pods"];
  weft::fuzz::check(pods.is_null() || (pods.is_array() && pods.size() == report->pods.size()),
                    "one report entry per pod entry");
  return 0;
}
