#include "scheduler/core/config.h"

#include <algorithm>
#include <cctype>

#include "kube/scenario.h"
#include "scheduler/core/config_metrics.h"
#include "scheduler/core/plugins/registry.h"

namespace weft::scheduler {
namespace {

using nlohmann::json;

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

const char* kActionNames = "enqueue, allocate, preempt, reclaim, backfill, gangpreempt, gangreclaim";

Result<Action> parse_action(const std::string& name) {
  if (name == "enqueue") return Action::Enqueue;
  if (name == "allocate") return Action::Allocate;
  if (name == "preempt") return Action::Preempt;
  if (name == "reclaim") return Action::Reclaim;
  if (name == "backfill") return Action::Backfill;
  if (name == "gangpreempt") return Action::GangPreempt;
  if (name == "gangreclaim") return Action::GangReclaim;
  if (name == "shuffle")
    return make_error("action '" + name + "' is a Volcano action weft does not implement (implemented: " +
                      kActionNames + ")");
  return make_error("action '" + name + "' is unknown (supported: " + std::string(kActionNames) + ")");
}

std::string switch_names() {
  std::string out;
  for (const auto& [s, key] : switch_keys()) out += (out.empty() ? "" : ", ") + std::string(key);
  return out;
}

Status parse_plugin(Config& c, const json& p, int tier, const std::string& where) {
  if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
    return make_error(where + ": missing 'name'");
  PluginOption opt(p["name"].get<std::string>(), tier);
  opt.where = where + " (" + opt.name + ")";
  const PluginFactory* factory = find_plugin(opt.name);
  if (!factory) {
    std::string what = volcano_plugin_not_implemented(opt.name) ? "is a Volcano plugin weft does not implement"
                                                                : "is unknown";
    return make_error(opt.where + ": plugin '" + opt.name + "' " + what + " (implemented: " +
                      implemented_plugin_names() + ")");
  }
  for (const auto& item : p.items()) {
    const std::string& k = item.key();   // not a structured binding: clang 14 cannot capture one
    const json& v = item.value();
    if (k == "name" || k == "arguments") continue;
    auto sw = std::find_if(switch_keys().begin(), switch_keys().end(), [&](const auto& e) { return k == e.second; });
    if (sw == switch_keys().end())
      return make_error(opt.where + ": option '" + k + "' is unknown (supported: " + switch_names() + ")");
    if (v.is_null()) continue;
    if (!v.is_boolean()) return make_error(opt.where + ": option '" + k + "': not a boolean");
    opt.switches[sw->first] = v.get<bool>();
  }
  if (c.has(opt.name)) return make_error(opt.where + ": plugin '" + opt.name + "' is listed twice");
  if (p.contains("arguments") && !p["arguments"].is_null()) {
    if (!p["arguments"].is_object()) return make_error(opt.where + ": arguments: not a map");
    opt.arguments = p["arguments"];
  }
  std::vector<std::string> warnings;
  auto made = factory->make(opt, &warnings);
  if (!made) return wrap(made.error(), opt.where);
  for (const auto& w : warnings) c.warnings.push_back(opt.where + ": " + w);
  c.plugins.push_back(std::move(opt));
  return {};
}

// configurations[i].arguments of gangpreempt / gangreclaim, read as Volcano reads them.
Status parse_gang_eviction_args(const json& args, const std::string& where, GangEvictionArgs& out,
                                std::vector<std::string>& warnings) {
  for (const auto& [key, v] : args.items()) {
    if (key == "maxDomains") {
      if (!v.is_number_integer()) return make_error(where + ": argument 'maxDomains': " + v.dump() + " is not an integer");
      out.max_domains = v.get<int>();
      if (out.max_domains <= 0) {
        warnings.push_back(where + ": maxDomains " + v.dump() + " is not positive; using 8 (as Volcano)");
        out.max_domains = GangEvictionArgs{}.max_domains;
      }
    } else if (key == "allowWholeBundle") {
      if (!v.is_boolean()) return make_error(where + ": argument 'allowWholeBundle': " + v.dump() + " is not a boolean");
      out.allow_whole_bundle = v.get<bool>();
    } else {
      return make_error(where + ": argument '" + key + "' is unknown (supported: maxDomains, allowWholeBundle)");
    }
  }
  return {};
}

Status parse_action_configuration(Config& c, const json& conf, const std::string& where) {
  if (!conf.is_object() || !conf.contains("name") || !conf["name"].is_string()) return make_error(where + ": missing 'name'");
  const std::string name = conf["name"].get<std::string>();
  auto act = parse_action(name);
  if (!act) return make_error(where + ": " + act.message());
  const json args = conf.value("arguments", json::object());
  if (args.is_null() || (args.is_object() && args.empty())) return {};
  if (!args.is_object()) return make_error(where + " (" + name + "): arguments: not a map");
  if (*act == Action::GangPreempt || *act == Action::GangReclaim)
    return parse_gang_eviction_args(args, where + " (" + name + ")",
                                    *act == Action::GangPreempt ? c.gang_preempt : c.gang_reclaim, c.warnings);
  return make_error(where + " (" + name + "): argument '" + args.items().begin().key() +
                    "' is unknown (of weft's actions only gangpreempt and gangreclaim take arguments; "
                    "see docs/scheduler.md)");
}

// weft's own constraint plugins are on unless listed (a Volcano configuration carried
// over does not name them, and their annotations must not be ignored).
void add_implicit(Config& c) {
  int tier = c.plugins.empty() ? 0 : c.plugins.back().tier;
  for (const auto& f : plugin_factories())
    if (f.implicit && !c.has(f.name)) c.plugins.emplace_back(f.name, tier);
}

}  // namespace

std::string action_name(Action a) {
  switch (a) {
    case Action::Enqueue: return "enqueue";
    case Action::Allocate: return "allocate";
    case Action::Preempt: return "preempt";
    case Action::Reclaim: return "reclaim";
    case Action::Backfill: return "backfill";
    case Action::GangPreempt: return "gangpreempt";
    case Action::GangReclaim: return "gangreclaim";
  }
  return "?";
}

bool Config::has(const std::string& name) const { return plugin(name) != nullptr; }

const PluginOption* Config::plugin(const std::string& name) const {
  auto it = std::find_if(plugins.begin(), plugins.end(), [&](const PluginOption& p) { return p.name == name; });
  return it == plugins.end() ? nullptr : &*it;
}

bool Config::has(Action a) const { return std::find(actions.begin(), actions.end(), a) != actions.end(); }

Config Config::defaults() {
  Config c;
  c.actions = {Action::Enqueue, Action::Allocate, Action::Reclaim, Action::Backfill};
  int tier = 0;
  // proportion sits in the first tier with gang and conformance: reclaim's victims are
  // voted on tier by tier, and only there does its deserved-share rule take part.
  for (const auto& tier_plugins : {std::vector<const char*>{"priority", "gang", "conformance", "proportion"},
                                   std::vector<const char*>{"drf", "predicates", "binpack", "network-topology-aware"}}) {
    for (const char* name : tier_plugins) c.plugins.emplace_back(name, tier);
    ++tier;
  }
  add_implicit(c);
  return c;
}

Result<Config> parse_config(const std::string& yaml_text, const std::string& name) {
  auto doc = kube::yaml_to_json(yaml_text, name);
  if (!doc) return doc.error();
  if (!doc->is_object()) return make_error(name + ": not a map with 'actions' and 'tiers'");
  Config c;
  for (const auto& [k, v] : doc->items()) {
    (void)v;
    if (k != "actions" && k != "tiers" && k != "configurations" && k != "metrics")
      return make_error(name + ": key '" + k + "' is unknown (supported: actions, tiers, configurations, metrics)");
  }
  if (auto m = check_metrics_section(doc->value("metrics", json()), name); !m) return m.error();
  if (!doc->contains("actions") || !(*doc)["actions"].is_string())
    return make_error(name + ": actions: missing (a string such as \"enqueue, allocate, backfill\")");
  std::string actions = (*doc)["actions"].get<std::string>();
  size_t start = 0;
  while (true) {
    size_t comma = actions.find(',', start);
    std::string a = trim(actions.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!a.empty()) {
      auto act = parse_action(a);
      if (!act) return make_error(name + ": actions: " + act.message());
      c.actions.push_back(*act);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (c.actions.empty()) return make_error(name + ": actions: empty");
  const json tiers = doc->value("tiers", json::array());
  if (!tiers.is_array()) return make_error(name + ": tiers: not a list");
  for (size_t t = 0; t < tiers.size(); ++t) {
    std::string tw = name + ": tiers[" + std::to_string(t) + "]";
    if (!tiers[t].is_object()) return make_error(tw + ": not a map");
    for (const auto& [k, v] : tiers[t].items()) {
      (void)v;
      if (k != "plugins") return make_error(tw + ": key '" + k + "' is unknown");
    }
    const json plugins = tiers[t].value("plugins", json::array());
    if (!plugins.is_array()) return make_error(tw + ".plugins: not a list");
    for (size_t i = 0; i < plugins.size(); ++i)
      if (auto st = parse_plugin(c, plugins[i], static_cast<int>(t), tw + ".plugins[" + std::to_string(i) + "]"); !st)
        return st.error();
  }
  const PluginOption* drf = c.plugin("drf");
  if (drf && drf->hierarchy() && c.has("proportion"))
    return make_error(drf->where + ": enableHierarchy conflicts with proportion (as in Volcano)");
  if (c.has("proportion") && c.has("capacity"))
    return make_error(name + ": proportion and capacity both set queue shares; enable one of them");
  if (doc->contains("configurations") && !(*doc)["configurations"].is_null()) {
    const auto& confs = (*doc)["configurations"];
    if (!confs.is_array()) return make_error(name + ": configurations: not a list");
    for (size_t i = 0; i < confs.size(); ++i)
      if (auto st = parse_action_configuration(c, confs[i], name + ": configurations[" + std::to_string(i) + "]"); !st)
        return st.error();
  }
  add_implicit(c);
  return c;
}

}  // namespace weft::scheduler
