// The descheduler's load file (plan/run --load file=F): decode; what it accepts is JSON
// (its pod entries are read in one pass, checked as they are read), every pod entry it
// accepts is one key of the report, and its numbers are the ones nlohmann's own reader
// (strtod) reads.
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
  // Numbers compared with nlohmann's own reading (strtod), not weft's reader, which reads
  // them as the load file does.
  const auto theirs = nlohmann::json::parse(text, nullptr, false);
  if (!pods.is_array() || !theirs.is_object() || !theirs.contains("pods")) return 0;
  for (const auto& entry : theirs.at("pods")) {
    auto it = report->pods.find(entry.at("namespace").get<std::string>() + "/" + entry.at("name").get<std::string>());
    weft::fuzz::check(it != report->pods.end(), "each pod entry is in the report under its key");
    for (const char* field : {"cpu", "memory"}) {
      const auto value = entry.contains(field) ? entry.at(field) : nlohmann::json();
      const auto& read = std::string_view(field) == "cpu" ? it->second.cpu_cores : it->second.memory_bytes;
      weft::fuzz::check(value.is_null() ? !read : read && *read == value.get<double>(),
                        "a pod's reading is the number the tree reads");
    }
  }
  return 0;
}
