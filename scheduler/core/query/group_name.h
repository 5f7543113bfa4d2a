// The one reader of the PodGroup a pod names, for the scheduler and the descheduler alike:
// as Volcano reads it, the annotation scheduling.k8s.io/group-name, else
// scheduling.volcano.sh/group-name (an empty value counts as absent).
#pragma once

#include <array>
#include <string>

#include "common/keys.h"

namespace weft::scheduler {

inline constexpr const char* kVolcanoGroupAnnotation = "scheduling.volcano.sh/group-name";
inline constexpr std::array<const char*, 2> kGroupNameKeys = {keys::kGroupAnnotation, kVolcanoGroupAnnotation};

// annotation_of(key) returns a pointer to the annotation's value, or null when absent.
template <class AnnotationOf>
std::string group_name(AnnotationOf&& annotation_of) {
  for (const char* key : kGroupNameKeys)
    if (const std::string* v = annotation_of(key); v && !v->empty()) return *v;
  return "";
}

}  // namespace weft::scheduler
