// binpack: the fuller a node would be with the pod on it, the higher its score, over
// the resources the pod requests among cpu, memory and binpack.resources (any extended
// resource), each with its weight.
#include "scheduler/core/plugins/binpack/binpack.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "scheduler/core/plugins/plugin_makers.h"

namespace weft::scheduler {
namespace {

struct Args {
  double weight = 1;
  std::map<std::string, double> resources{{"cpu", 1}, {"memory", 1}};
};

class Binpack : public OptionPlugin {
 public:
  Binpack(const PluginOption& o, Args a) : OptionPlugin(o), args_(std::move(a)) {}

  void open(Session& ssn) override {
    if (args_.weight == 0) return;
    std::vector<std::pair<int, double>> dims;
    for (const auto& [name, w] : args_.resources)
      if (int d = ssn.cluster.dim_of(name); d >= 0 && w > 0) dims.push_back({d, w});
    ssn.add_batch_node_order(opt_, [&ssn, dims, weight = args_.weight](int pod, const std::vector<int>& nodes,
                                                                        std::vector<double>& scores) {
      const ClusterState& c = ssn.cluster;
      const auto& req = c.request(pod);
      double weights = 0;
      std::pair<int, double> used[8];   // the dimensions the pod requests (at most 8 counted)
      int count = 0;
      for (const auto& [d, w] : dims)
        if (req[d] != 0 && count < 8) weights += w, used[count++] = {d, w};
      if (weights <= 0) return;
      const double scale = weight * 100.0 / weights;
      for (size_t i = 0; i < nodes.size(); ++i) {
        double sum = 0;
        for (int k = 0; k < count; ++k) sum += used[k].second * std::min(c.used_fraction(pod, nodes[i], used[k].first), 1.0);
        scores[i] += scale * sum;
      }
    });
  }

 private:
  Args args_;
};

std::string trim(std::string s) {
  auto not_space = [](unsigned char ch) { return !std::isspace(ch); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

Result<std::unique_ptr<Plugin>> make(const PluginOption& option, std::vector<std::string>*) {
  Args a;
  for (const auto& [k, v] : option.arguments.items()) {
    if (k == "binpack.resources") {
      if (!v.is_string()) return make_error("argument 'binpack.resources': not a comma-separated string");
      std::string list = v.get<std::string>();
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        std::string name = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!name.empty() && !a.resources.count(name)) a.resources[name] = 1;
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      continue;
    }
    auto n = number_arg(v, k);
    if (!n) return n.error();
    if (k == "binpack.weight") a.weight = *n;
    else if (k == "binpack.cpu") a.resources["cpu"] = *n;
    else if (k == "binpack.memory") a.resources["memory"] = *n;
    else if (k.rfind("binpack.resources.", 0) == 0) a.resources[k.substr(18)] = *n;
    else return unknown_argument(k, "binpack.weight, binpack.cpu, binpack.memory, binpack.resources, binpack.resources.<name>");
  }
  return std::unique_ptr<Plugin>(std::make_unique<Binpack>(option, std::move(a)));
}

}  // namespace

Result<std::unique_ptr<Plugin>> make_binpack_plugin(const PluginOption& option, std::vector<std::string>* warnings) {
  return make(option, warnings);
}

}  // namespace weft::scheduler
