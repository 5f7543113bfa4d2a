// An API server that only knows discovery: for `kubectl apply --dry-run=client` of the
// kinds kube-lite does not serve (RBAC, apps, batch, admission policies, the Prometheus
// Operator's PodMonitor). kubectl needs discovery to map a kind to its resource, and a
// 404 for the live object; nothing is stored.
#pragma once

#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace weft::agent::testing {

class DiscoveryStub {
 public:
  struct Kind {
    std::string group, version, kind, plural;
    bool namespaced;
  };

  DiscoveryStub() {
    const std::vector<Kind> kinds = {
        {"", "v1", "Namespace", "namespaces", false},
        {"", "v1", "ServiceAccount", "serviceaccounts", true},
        {"", "v1", "ConfigMap", "configmaps", true},
        {"", "v1", "Service", "services", true},
        {"rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false},
        {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false},
        {"rbac.authorization.k8s.io", "v1", "Role", "roles", true},
        {"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true},
        {"apps", "v1", "DaemonSet", "daemonsets", true},
        {"apps", "v1", "Deployment", "deployments", true},
        {"batch", "v1", "CronJob", "cronjobs", true},
        {"batch", "v1", "Job", "jobs", true},
        {"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false},
        {"policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true},
        {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", false},
        {"admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding",
         "validatingadmissionpolicybindings", false},
        {"monitoring.coreos.com", "v1", "PodMonitor", "podmonitors", true},
        {"monitoring.coreos.com", "v1", "ServiceMonitor", "servicemonitors", true},
    };
    std::map<std::string, nlohmann::json> lists;   // "/api/v1", "/apis/apps/v1" -> APIResourceList
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& k : kinds) {
      const std::string gv = k.group.empty() ? k.version : k.group + "/" + k.version;
      const std::string path = k.group.empty() ? "/api/" + k.version : "/apis/" + gv;
      auto& list = lists[path];
      if (list.is_null()) {
        list = {{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv},
                {"resources", nlohmann::json::array()}};
        if (!k.group.empty()) {
          nlohmann::json v = {{"groupVersion", gv}, {"version", k.version}};
          groups.push_back({{"name", k.group}, {"versions", {v}}, {"preferredVersion", v}});
        }
      }
      std::string singular = k.kind;
      for (auto& c : singular) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      list["resources"].push_back({{"name", k.plural}, {"singularName", singular}, {"namespaced", k.namespaced},
                                   {"kind", k.kind},
                                   {"verbs", {"create", "delete", "get", "list", "patch", "update", "watch"}}});
    }
    server_.Get("/api", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[]})", "application/json");
    });
    server_.Get("/apis", [groups](const httplib::Request&, httplib::Response& res) {
      res.set_content(nlohmann::json{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}}.dump(),
                      "application/json");
    });
    server_.Get(".*", [lists](const httplib::Request& req, httplib::Response& res) {
      if (auto it = lists.find(req.path); it != lists.end()) {
        res.set_content(it->second.dump(), "application/json");
        return;
      }
      res.status = 404;
      res.set_content(R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})",
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~DiscoveryStub() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace weft::agent::testing
