#include "tools/kube-lite/routing.h"

#include <vector>

namespace weft::kube_lite {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace

Route parse_route(const ResourceTypes& types, const std::string& path) {
  Route r;
  auto segs = split_path(path);
  if (segs.empty()) return r;
  if (segs.size() == 1 && segs[0] == "version") {
    r.kind = Route::Kind::Version;
    return r;
  }
  if (segs[0] == "openapi" && segs.size() >= 2 && segs[1] == "v3") {
    if (segs.size() == 2) {
      r.kind = Route::Kind::OpenApiIndex;
    } else if (segs.size() == 4 && segs[2] == "api") {
      r.kind = Route::Kind::OpenApiDocument;
      r.version = segs[3];
    } else if (segs.size() == 5 && segs[2] == "apis") {
      r.kind = Route::Kind::OpenApiDocument;
      r.group = segs[3];
      r.version = segs[4];
    }
    return r;
  }
  size_t at;
  if (segs[0] == "api") {
    if (segs.size() == 1) {
      r.kind = Route::Kind::ApiVersions;
      return r;
    }
    r.version = segs[1];
    at = 2;
  } else if (segs[0] == "apis") {
    if (segs.size() == 1) {
      r.kind = Route::Kind::GroupList;
      return r;
    }
    r.group = segs[1];
    if (segs.size() == 2) {
      r.kind = Route::Kind::Group;
      return r;
    }
    r.version = segs[2];
    at = 3;
  } else {
    return r;
  }
  if (segs.size() == at) {
    r.kind = Route::Kind::ResourceList;
    return r;
  }
  std::vector<std::string> rest(segs.begin() + static_cast<long>(at), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    const auto* t = types.find(r.group, r.version, rest[2]);
    if (t && t->namespaced) {
      r.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.size() > 3) return r;
  r.type = types.find(r.group, r.version, rest[0]);
  if (!r.type) return r;
  if (!r.type->namespaced && !r.ns.empty()) return r;
  if (rest.size() >= 2) r.name = rest[1];
  if (rest.size() == 3) r.subresource = rest[2];
  r.kind = Route::Kind::Resource;
  return r;
}

}  // namespace weft::kube_lite
